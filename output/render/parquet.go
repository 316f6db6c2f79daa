package render

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// ExchangeRow is one exchange as a row of the Parquet file Parquet
// writes: the JSON Lines contract (DESIGN.md) with typed columns. A key
// that is null in JSON is a null (nil) column here; request and response
// are their JSON Lines bodies as JSON text, for DuckDB's json functions
// (request->>'$.Acks'), Spark's from_json or pandas' json.loads.
//
// ts is a TIMESTAMP(NANOS, UTC); Spark before 4 reads that only with
// spark.sql.legacy.parquet.nanosAsLong (as an int64 of nanoseconds).
type ExchangeRow struct {
	TS            *time.Time `parquet:"ts,optional,timestamp(nanosecond)"`
	Stream        int64      `parquet:"stream"`
	Client        string     `parquet:"client,dict"`
	Broker        string     `parquet:"broker,dict"`
	APIKey        *int32     `parquet:"api_key,optional,int(16)"`
	API           *string    `parquet:"api,optional,dict"`
	APIVersion    *int32     `parquet:"api_version,optional,int(16)"`
	CorrelationID int32      `parquet:"correlation_id"`
	ClientID      *string    `parquet:"client_id,optional,dict"`
	Request       *string    `parquet:"request,optional"`
	Response      *string    `parquet:"response,optional"`
	RequestSize   *int32     `parquet:"request_size,optional"`
	ResponseSize  *int32     `parquet:"response_size,optional"`
	LatencyUS     *int64     `parquet:"latency_us,optional"`
	TLS           *TLSRow    `parquet:"tls,optional"`
	Topics        []TopicRow `parquet:"topics,list"`
	Errors        []ErrorRow `parquet:"errors,list"`
	// ErrorsNotCaptured: the response's error codes were not all
	// captured, Errors holds those that were (JSON's errors_not_captured,
	// false where JSON leaves it out).
	ErrorsNotCaptured bool `parquet:"errors_not_captured"`
	// Records is null when the capture held none of the exchange's
	// records and lacked some, a lower bound when RecordsNotCaptured
	// (docs/lossy.md, "What unknown looks like").
	Records *int64 `parquet:"records,optional"`
	// RecordsAborted: of Records, those of aborted transactions (JSON's
	// records_aborted), null with Records.
	RecordsAborted     *int64   `parquet:"records_aborted,optional"`
	RecordsNotCaptured bool     `parquet:"records_not_captured"`
	Notes              []string `parquet:"notes,list"`
	File               *string  `parquet:"file,optional,dict"`
	// RequestPackets and ResponsePackets are [first, last] frame numbers
	// as Wireshark numbers the file's frames; empty for a side not
	// captured (JSON's null).
	RequestPackets  []int64 `parquet:"request_packets,optional,list"`
	ResponsePackets []int64 `parquet:"response_packets,optional,list"`
	// PacketComments: the input pcapng's comments of the exchange's packets.
	PacketComments []string `parquet:"packet_comments,list"`
}

// TopicRow is one element of ExchangeRow.Topics: a topic and the
// partitions the exchange touches. Topic is null for a topic known only
// by its ID (TopicID, Kafka's base64 form as in JSON).
type TopicRow struct {
	Topic      *string `parquet:"topic,optional"`
	TopicID    *string `parquet:"topic_id,optional"`
	Partitions []int32 `parquet:"partitions,list"`
}

// ErrorRow is one element of ExchangeRow.Errors: a non-zero error code of
// the response, its name as Kafka's protocol names it, and where it
// applies (null where not applicable).
type ErrorRow struct {
	Code      int32   `parquet:"code,int(16)"`
	Name      string  `parquet:"name"`
	Topic     *string `parquet:"topic,optional"`
	TopicID   *string `parquet:"topic_id,optional"`
	Partition *int32  `parquet:"partition,optional"`
}

// TLSRow is ExchangeRow.TLS: what the connection's TLS handshake negotiated.
type TLSRow struct {
	Version   string `parquet:"version"`
	Cipher    string `parquet:"cipher"`
	SNI       string `parquet:"sni"`
	Encrypted bool   `parquet:"encrypted"`
}

// Parquet bounds: a row group ends once the rows written into it hold
// ParquetRowGroupBytes (their strings, uncompressed) or ParquetRowGroupRows,
// so the writer's memory (it holds a row group until it ends) stays flat
// whatever the capture's size. 64 MiB of bodies compress to a few MiB.
const (
	ParquetRowGroupBytes = 64 << 20
	ParquetRowGroupRows  = 1 << 20
)

// Parquet writes exchanges as a Parquet file of ExchangeRow, zstd-compressed.
// Row may run on many goroutines at once; WriteRow, Write and Close on one.
// Close must be called: it writes the file's footer, without which the
// file cannot be read.
type Parquet struct {
	w           *parquet.GenericWriter[ExchangeRow]
	out         *pageIndexFilter // what w writes to
	zstd        *zstdPages
	rows        ParquetRows
	batch       []ExchangeRow
	groupBytes  int64 // of the row group being written
	rowGroupMax int64
	written     int64
	closed      bool
}

// ParquetRows makes the rows of exchanges, with their bodies rendered as
// JSON Lines renders them. Row may run on many goroutines at once.
type ParquetRows struct {
	// ShowSecrets writes credentials in the bodies (see codec.JSONWriter).
	ShowSecrets bool
	writers     sync.Pool // of *codec.JSONWriter
}

// ParquetOptions are the options of NewParquet.
type ParquetOptions struct {
	// ShowSecrets writes credentials in the bodies (see codec.JSONWriter).
	ShowSecrets bool
	// RowGroupBytes overrides ParquetRowGroupBytes when positive.
	RowGroupBytes int64
	// Created, when set, is written as the file's created_by.
	Created string
}

// exchangeBlobs are the payload columns of the exchanges file: the bodies
// and the packet comments.
var exchangeBlobs = [][]string{{"request"}, {"response"}, {"packet_comments", "list", "element"}}

// NewParquet returns a writer of a Parquet file to w.
func NewParquet(w io.Writer, opts ParquetOptions) *Parquet {
	z := newZstdPages()
	var more []parquet.WriterOption
	if opts.Created != "" {
		more = append(more, parquet.CreatedBy("kdissect", opts.Created, ""))
	}
	pw, out := newParquetWriter[ExchangeRow](w, z, exchangeBlobs, more...)
	p := &Parquet{
		w:           pw,
		out:         out,
		zstd:        z,
		rows:        ParquetRows{ShowSecrets: opts.ShowSecrets},
		rowGroupMax: ParquetRowGroupBytes,
	}
	if opts.RowGroupBytes > 0 {
		p.rowGroupMax = opts.RowGroupBytes
	}
	return p
}

// Row returns ex as a row, with the bytes its strings hold (an estimate of
// what it costs the row group). It may run on many goroutines at once.
func (p *Parquet) Row(ex *dissect.Exchange) (ExchangeRow, int64) { return p.rows.Row(ex) }

// Row returns ex as a row, with the bytes its strings hold (an estimate of
// what it costs a row group).
func (p *ParquetRows) Row(ex *dissect.Exchange) (ExchangeRow, int64) {
	dec := ex.Decoded
	if dec == nil {
		dec = &dissect.Decoded{}
	}
	var r ExchangeRow
	n := int64(64) // the fixed-size columns, roughly
	if t := ex.Time(); !t.IsZero() {
		t = t.UTC()
		r.TS = &t
	}
	r.Stream = int64(ex.Stream)
	r.Client = ex.Client.String()
	r.Broker = ex.Broker.String()
	if ex.APIKey >= 0 {
		k, v := int32(ex.APIKey), int32(ex.APIVersion)
		r.APIKey, r.APIVersion = &k, &v
	}
	if dec.API != nil {
		r.API = &dec.API.Name
	}
	r.CorrelationID = ex.CorrelationID
	if ex.ClientID != nil {
		r.ClientID = textPtr(*ex.ClientID)
		n += int64(len(*r.ClientID))
	}
	if dec.Request != nil || dec.Response != nil {
		jw, _ := p.writers.Get().(*codec.JSONWriter)
		if jw == nil {
			jw = codec.NewJSONWriter(nil)
			jw.ShowSecrets = p.ShowSecrets
			jw.OffsetBase = frameOffsetBase
		}
		if dec.Request != nil {
			jw.Reset()
			dec.Request.WriteJSON(jw, ex.APIVersion)
			s := bodyString(jw)
			r.Request = &s
			n += int64(len(s))
		}
		if dec.Response != nil {
			jw.Reset()
			dec.Response.WriteJSON(jw, dec.ResponseVersion)
			s := bodyString(jw)
			r.Response = &s
			n += int64(len(s))
		}
		if cap(jw.Bytes()) > bodyBufferKept { // not kept: a huge Fetch's buffer
			jw.SetBuffer(nil)
		}
		p.writers.Put(jw)
	}
	if ex.Request != nil {
		s := ex.Request.Size
		r.RequestSize = &s
	}
	if ex.Response != nil {
		s := ex.Response.Size
		r.ResponseSize = &s
	}
	if lat, ok := ex.Latency(); ok {
		us := lat.Microseconds()
		r.LatencyUS = &us
	}
	if t := ex.TLS; t != nil {
		r.TLS = &TLSRow{Version: t.Version, Cipher: t.Cipher, SNI: validText(t.SNI), Encrypted: t.Encrypted}
	}
	r.Topics = make([]TopicRow, len(dec.Topics))
	for i, tp := range dec.Topics {
		tr := &r.Topics[i]
		if tp.Topic != "" || tp.TopicID.IsZero() {
			tr.Topic = textPtr(tp.Topic)
			n += int64(len(tp.Topic))
		}
		if !tp.TopicID.IsZero() {
			id := tp.TopicID.String()
			tr.TopicID = &id
		}
		tr.Partitions = make([]int32, len(tp.Partitions))
		for j, part := range tp.Partitions {
			tr.Partitions[j] = int32(part)
		}
		n += 4 * int64(len(tp.Partitions))
	}
	r.Errors = make([]ErrorRow, len(dec.Errors))
	for i, e := range dec.Errors {
		er := &r.Errors[i]
		er.Code = int32(e.Code)
		er.Name = codec.ErrorName(e.Code)
		if e.Topic != "" {
			er.Topic = textPtr(e.Topic)
		}
		if !e.TopicID.IsZero() {
			id := e.TopicID.String()
			er.TopicID = &id
		}
		if e.Partition >= 0 {
			part := int32(e.Partition)
			er.Partition = &part
		}
		n += 32
	}
	r.ErrorsNotCaptured, r.RecordsNotCaptured = dec.ErrorsNotCaptured, dec.RecordsNotCaptured
	r.Records = countJSON(int64(dec.Records), dec.RecordsNotCaptured)
	r.RecordsAborted = countJSON(int64(dec.RecordsAborted), dec.RecordsNotCaptured && dec.Records == 0)
	r.RequestPackets = framePackets(ex.Request)
	r.ResponsePackets = framePackets(ex.Response)
	for _, c := range ex.PacketComments {
		r.PacketComments = append(r.PacketComments, validText(c))
		n += int64(len(c))
	}
	r.Notes = make([]string, len(ex.Notes))
	for i, note := range ex.Notes {
		r.Notes[i] = validText(note.Text)
		n += int64(len(note.Text))
	}
	if ex.File != "" {
		r.File = textPtr(ex.File)
	}
	return r, n
}

// framePackets is a frame's [first, last] frame numbers, nil without it.
func framePackets(f *dissect.Frame) []int64 {
	if f == nil {
		return nil
	}
	return []int64{f.FilePacket + 1, f.LastFilePacket + 1}
}

// validText is s with invalid UTF-8 replaced, as JSONWriter.Text does: a
// Parquet STRING is UTF-8, and readers reject it otherwise.
func validText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

func textPtr(s string) *string {
	s = validText(s)
	return &s
}

// parquetBatch is how many rows WriteRow gathers before handing them to
// the writer, which amortises its per-call work over a slice of rows.
const parquetBatch = 64

// WriteRow writes a row Row returned, of size bytes; the row group ends
// once its rows hold the bound.
func (p *Parquet) WriteRow(r ExchangeRow, size int64) error {
	if p.closed {
		return fmt.Errorf("parquet: write after close")
	}
	p.batch = append(p.batch, r)
	p.groupBytes += size
	p.written++
	if len(p.batch) >= parquetBatch || p.groupBytes >= p.rowGroupMax {
		if err := p.writeBatch(); err != nil {
			return err
		}
	}
	if p.groupBytes >= p.rowGroupMax {
		p.groupBytes = 0
		if err := p.w.Flush(); err != nil { // ends the row group
			return fmt.Errorf("parquet: end row group: %w", err)
		}
	}
	return nil
}

func (p *Parquet) writeBatch() error {
	if len(p.batch) == 0 {
		return nil
	}
	_, err := p.w.Write(p.batch)
	clear(p.batch) // the bodies go to the collector
	p.batch = p.batch[:0]
	if err != nil {
		return fmt.Errorf("parquet: write rows: %w", err)
	}
	return nil
}

// Write writes ex as one row.
func (p *Parquet) Write(ex *dissect.Exchange) error {
	r, n := p.Row(ex)
	return p.WriteRow(r, n)
}

// Rows returns how many rows were written.
func (p *Parquet) Rows() int64 { return p.written }

// Size returns an estimate of the file's size so far, in bytes: what was
// written out plus the row group held.
func (p *Parquet) Size() int64 { return p.w.Size() + p.groupBytes/8 }

// Close ends the last row group and writes the footer. It does not close
// the io.Writer.
func (p *Parquet) Close() error {
	if p.closed {
		return nil
	}
	p.closed = true
	defer p.zstd.close()
	if err := p.writeBatch(); err != nil {
		return err
	}
	if err := closeParquet(p.w, p.out); err != nil {
		return fmt.Errorf("parquet: close: %w", err)
	}
	return nil
}
