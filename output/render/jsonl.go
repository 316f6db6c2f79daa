// Package render writes dissected exchanges for people and programs: JSON
// Lines (the contract in DESIGN.md) and the summary table.
package render

import (
	"bufio"
	"io"
	"sync"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// frameOffsetBase makes the byte offsets of "not_captured" count the
// frame's 4-byte size prefix, as the hexdump and the notes do.
const frameOffsetBase = 4

// tsLayout is RFC 3339 with nanoseconds, fixed width.
const tsLayout = "2006-01-02T15:04:05.000000000Z07:00"

// JSONLines writes one JSON object per exchange, one per line.
type JSONLines struct {
	w           *bufio.Writer
	jw          *codec.JSONWriter
	showSecrets bool
	writers     sync.Pool // of *codec.JSONWriter, for RenderLine
	chunks      sync.Pool // of *[]byte: the parts of Lines
}

// NewJSONLines returns a writer of JSON Lines to w. Credentials are
// redacted unless showSecrets (see codec.JSONWriter.ShowSecrets). Call Flush
// at the end.
func NewJSONLines(w io.Writer, showSecrets bool) *JSONLines {
	jw := codec.NewJSONWriter(make([]byte, 0, 4096))
	jw.ShowSecrets = showSecrets
	jw.OffsetBase = frameOffsetBase
	return &JSONLines{w: bufio.NewWriterSize(w, 64<<10), jw: jw, showSecrets: showSecrets}
}

// Line is one exchange rendered as a JSON line, newline included, in
// parts of about lineChunk bytes: a Fetch response of 50 000 records
// renders to tens of MB, which one growing buffer would copy over and over
// (and hold twice while it grows). Its parts are recycled by WriteLine.
type Line struct {
	parts [][]byte
	n     int
}

// Len returns the line's length in bytes.
func (l *Line) Len() int { return l.n }

// lineChunk is the size of a Line's parts, in bytes; a part is handed over
// once it holds lineChunk-lineSlack bytes, so that most values still fit.
const (
	lineChunk = 64 << 10
	lineSlack = 4 << 10
)

// RenderLine renders ex as one line. Unlike Write it may run on many
// goroutines at once, so that exchanges are rendered in parallel;
// WriteLine then writes the lines in order.
func (j *JSONLines) RenderLine(ex *dissect.Exchange) *Line {
	jw, _ := j.writers.Get().(*codec.JSONWriter)
	if jw == nil {
		jw = codec.NewJSONWriter(nil)
		jw.ShowSecrets = j.showSecrets
		jw.OffsetBase = frameOffsetBase
	}
	l := &Line{}
	jw.Reset()
	jw.SetBuffer(j.chunk())
	jw.Spill(lineChunk-lineSlack, func(full []byte) []byte {
		l.parts = append(l.parts, full)
		l.n += len(full)
		return j.chunk()
	})
	AppendExchangeJSON(jw, ex)
	last := append(jw.Bytes(), '\n')
	l.parts = append(l.parts, last)
	l.n += len(last)
	jw.Spill(0, nil)
	jw.SetBuffer(nil) // the parts are the line's now
	j.writers.Put(jw)
	return l
}

// chunk returns an empty part for a Line.
func (j *JSONLines) chunk() []byte {
	if b, ok := j.chunks.Get().(*[]byte); ok {
		return (*b)[:0]
	}
	return make([]byte, 0, lineChunk)
}

// WriteLine writes a line RenderLine returned, and recycles its parts:
// the line must not be used again.
func (j *JSONLines) WriteLine(l *Line) error {
	var err error
	for i, p := range l.parts {
		if err == nil {
			_, err = j.w.Write(p)
		}
		if cap(p) <= 2*lineChunk { // not a part grown by one huge value
			j.chunks.Put(&p)
		}
		l.parts[i] = nil
	}
	l.parts, l.n = nil, 0
	return err
}

// Write writes ex as one line.
func (j *JSONLines) Write(ex *dissect.Exchange) error {
	j.jw.Reset()
	AppendExchangeJSON(j.jw, ex)
	b := append(j.jw.Bytes(), '\n')
	_, err := j.w.Write(b)
	return err
}

// Flush writes buffered output.
func (j *JSONLines) Flush() error { return j.w.Flush() }

// AppendExchangeJSON writes ex as the JSON object DESIGN.md specifies.
func AppendExchangeJSON(w *codec.JSONWriter, ex *dissect.Exchange) {
	dec := ex.Decoded
	if dec == nil {
		dec = &dissect.Decoded{}
	}
	w.BeginObject()
	w.Key("ts")
	w.String(ex.Time().UTC().Format(tsLayout))
	w.Key("stream")
	w.Int(int64(ex.Stream))
	w.Key("client")
	w.String(ex.Client.String())
	w.Key("broker")
	w.String(ex.Broker.String())
	w.Key("api_key")
	if ex.APIKey >= 0 {
		w.Int(int64(ex.APIKey))
	} else {
		w.Null()
	}
	w.Key("api")
	if dec.API != nil {
		w.String(dec.API.Name)
	} else {
		w.Null()
	}
	w.Key("api_version")
	if ex.APIKey >= 0 {
		w.Int(int64(ex.APIVersion))
	} else {
		w.Null()
	}
	w.Key("correlation_id")
	w.Int(int64(ex.CorrelationID))
	w.Key("client_id")
	w.NullableText(ex.ClientID)
	w.Key("request")
	if dec.Request != nil {
		dec.Request.WriteJSON(w, ex.APIVersion)
	} else {
		w.Null()
	}
	w.Key("response")
	if dec.Response != nil {
		dec.Response.WriteJSON(w, dec.ResponseVersion)
	} else {
		w.Null()
	}
	w.Key("request_size")
	writeFrameSize(w, ex.Request)
	w.Key("response_size")
	writeFrameSize(w, ex.Response)
	w.Key("latency_us")
	if lat, ok := ex.Latency(); ok {
		w.Int(lat.Microseconds())
	} else {
		w.Null()
	}
	if ex.TLS != nil {
		writeTLSJSON(w, ex.TLS)
	}
	writeSummaryJSON(w, ex, dec)
	writePacketsJSON(w, ex) // packets.go
	if ex.File != "" {
		w.Key("file") // several files were read as one capture
		w.Text(ex.File)
	}
	w.EndObject()
}

// writeTLSJSON writes "tls": what the handshake of an exchange's
// connection negotiated; "encrypted": true on the exchange that stands
// for a connection not decrypted.
func writeTLSJSON(w *codec.JSONWriter, t *dissect.TLSInfo) {
	w.Key("tls")
	w.BeginObject()
	w.Key("version")
	w.String(t.Version)
	w.Key("cipher")
	w.String(t.Cipher)
	w.Key("sni")
	w.Text(t.SNI)
	if t.Encrypted {
		w.Key("encrypted")
		w.Bool(true)
	}
	w.EndObject()
}

// AppendFrameJSON writes the decoded frame of ex (its request, or its
// response when it has no request) for `kdissect decode`: the header
// fields, the header and body as Kafka names their fields, and the
// topics, errors, records and notes as in the JSON Lines contract.
func AppendFrameJSON(w *codec.JSONWriter, ex *dissect.Exchange) {
	dec := ex.Decoded
	if dec == nil {
		dec = &dissect.Decoded{}
	}
	w.BeginObject()
	w.Key("api_key")
	w.Int(int64(ex.APIKey))
	w.Key("api")
	if dec.API != nil {
		w.String(dec.API.Name)
	} else {
		w.Null()
	}
	w.Key("api_version")
	w.Int(int64(ex.APIVersion))
	w.Key("correlation_id")
	w.Int(int64(ex.CorrelationID))
	if ex.Request != nil {
		w.Key("client_id")
		w.NullableText(ex.ClientID)
		w.Key("header")
		if dec.RequestHeader != nil {
			dec.RequestHeader.WriteJSON(w, codec.RequestHeaderVersion(ex.APIKey, ex.APIVersion))
		} else {
			w.Null()
		}
		w.Key("request")
		if dec.Request != nil {
			dec.Request.WriteJSON(w, ex.APIVersion)
		} else {
			w.Null()
		}
	} else {
		w.Key("header")
		if dec.ResponseHeader != nil {
			dec.ResponseHeader.WriteJSON(w, codec.ResponseHeaderVersion(ex.APIKey, dec.ResponseVersion))
		} else {
			w.Null()
		}
		w.Key("response")
		if dec.Response != nil {
			dec.Response.WriteJSON(w, dec.ResponseVersion)
		} else {
			w.Null()
		}
	}
	writeSummaryJSON(w, ex, dec)
	if ex.File != "" {
		w.Key("file") // several files were read as one capture
		w.Text(ex.File)
	}
	w.EndObject()
}

// writeSummaryJSON writes the topics, errors, records and notes keys.
func writeSummaryJSON(w *codec.JSONWriter, ex *dissect.Exchange, dec *dissect.Decoded) {
	w.Key("topics")
	w.BeginArray()
	for _, tp := range dec.Topics {
		w.BeginObject()
		w.Key("topic")
		if tp.Topic != "" || tp.TopicID.IsZero() {
			w.Text(tp.Topic)
		} else {
			w.Null()
		}
		if !tp.TopicID.IsZero() {
			w.Key("topic_id")
			w.UUID(tp.TopicID)
		}
		w.Key("partitions")
		w.BeginArray()
		for _, p := range tp.Partitions {
			w.Int(int64(p))
		}
		w.EndArray()
		w.EndObject()
	}
	w.EndArray()
	w.Key("errors")
	w.BeginArray()
	for _, e := range dec.Errors {
		w.BeginObject()
		w.Key("code")
		w.Int(int64(e.Code))
		w.Key("name")
		w.String(codec.ErrorName(e.Code))
		// The same shape as in topics: a topic known only by its ID has
		// "topic": null beside its "topic_id".
		switch {
		case e.Topic != "":
			w.Key("topic")
			w.Text(e.Topic)
		case !e.TopicID.IsZero():
			w.Key("topic")
			w.Null()
		}
		if !e.TopicID.IsZero() {
			w.Key("topic_id")
			w.UUID(e.TopicID)
		}
		if e.Partition >= 0 {
			w.Key("partition")
			w.Int(int64(e.Partition))
		}
		w.EndObject()
	}
	w.EndArray()
	if dec.ErrorsNotCaptured {
		w.Key("errors_not_captured")
		w.Bool(true)
	}
	// Counts the capture held in part: not_captured.go.
	w.Key("records")
	writeCount(w, int64(dec.Records), dec.RecordsNotCaptured)
	w.Key("records_aborted")
	writeCount(w, int64(dec.RecordsAborted), dec.RecordsNotCaptured && dec.Records == 0)
	if dec.RecordsNotCaptured {
		w.Key("records_not_captured")
		w.Bool(true)
	}
	w.Key("notes")
	w.BeginArray()
	for _, n := range ex.Notes {
		w.Text(n.Text)
	}
	w.EndArray()
}

// writeFrameSize writes the size a frame's prefix announced (bytes after
// the 4-byte prefix), or null for a frame not captured.
func writeFrameSize(w *codec.JSONWriter, f *dissect.Frame) {
	if f == nil {
		w.Null()
		return
	}
	w.Int(int64(f.Size))
}
