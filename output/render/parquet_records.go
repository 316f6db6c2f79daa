package render

import (
	"fmt"
	"io"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// RecordRow is one record of a Produce request or a Fetch response, as a
// row of the records file ParquetRecords writes: the records the JSON
// Lines "records" key counts (every complete record of every batch or
// message set, control records included), with the exchange they came in.
type RecordRow struct {
	// TS is the capture time of the exchange (as ExchangeRow.TS), Stream
	// and CorrelationID name it.
	TS            *time.Time `parquet:"ts,optional,timestamp(nanosecond)"`
	Stream        int64      `parquet:"stream"`
	CorrelationID int32      `parquet:"correlation_id"`
	API           string     `parquet:"api,dict"` // Produce or Fetch
	Topic         *string    `parquet:"topic,optional,dict"`
	TopicID       *string    `parquet:"topic_id,optional,dict"`
	Partition     int32      `parquet:"partition"`
	Offset        int64      `parquet:"offset"`
	// Timestamp is the record's, as Kafka reports it (milliseconds);
	// null when it has none (-1, or a magic 0 message).
	Timestamp *time.Time  `parquet:"timestamp,optional,timestamp(millisecond)"`
	Key       []byte      `parquet:"key,optional"`
	Value     []byte      `parquet:"value,optional"`
	Headers   []HeaderRow `parquet:"headers,list"`
	Control   bool        `parquet:"control"` // a control record (transaction marker, KIP-98)
}

// HeaderRow is a record header (KIP-82).
type HeaderRow struct {
	Key   string `parquet:"key"`
	Value []byte `parquet:"value,optional"`
}

// ParquetRecords writes the records of exchanges as a Parquet file of
// RecordRow, zstd-compressed, its row groups bounded as Parquet's. Write
// and Close run on one goroutine. The records must be decoded whole (not
// RecordDecodeOptions.CountOnly).
type ParquetRecords struct {
	w          *parquet.GenericWriter[RecordRow]
	out        *pageIndexFilter // what w writes to
	zstd       *zstdPages
	rows       []RecordRow
	groupBytes int64
	written    int64
	closed     bool
}

// recordBlobs are the payload columns of the records file: keys, values
// and headers, which a compressed batch may make any size.
var recordBlobs = [][]string{{"key"}, {"value"}, {"headers", "list", "element", "key"}, {"headers", "list", "element", "value"}}

// NewParquetRecords returns a writer of a records file to w.
func NewParquetRecords(w io.Writer) *ParquetRecords {
	z := newZstdPages()
	pw, out := newParquetWriter[RecordRow](w, z, recordBlobs)
	return &ParquetRecords{w: pw, out: out, zstd: z}
}

// Write writes the records of ex, if any. The rows are handed to the
// writer (which copies their bytes) before it returns: keys and values
// point into the exchange's frames, which are recycled after it.
func (p *ParquetRecords) Write(ex *dissect.Exchange) error {
	if p.closed {
		return fmt.Errorf("parquet records: write after close")
	}
	dec := ex.Decoded
	if dec == nil || ex.SASLToken || ex.APIKey != codec.ApiKeyProduce && ex.APIKey != codec.ApiKeyFetch {
		return nil
	}
	base := RecordRow{Stream: int64(ex.Stream), CorrelationID: ex.CorrelationID, API: codec.APIName(ex.APIKey)}
	if t := ex.Time(); !t.IsZero() {
		t = t.UTC()
		base.TS = &t
	}
	p.rows = p.rows[:0]
	var size int64
	for _, rr := range dec.RecordSets {
		set := rr.Records.Set
		if set == nil {
			continue
		}
		r := base
		if rr.Topic != "" || rr.TopicID.IsZero() {
			r.Topic = textPtr(rr.Topic)
		}
		if !rr.TopicID.IsZero() {
			id := rr.TopicID.String()
			r.TopicID = &id
		}
		r.Partition = rr.Partition
		add := func(row RecordRow) {
			p.rows = append(p.rows, row)
			size += 48 + int64(len(row.Key)+len(row.Value))
			for _, h := range row.Headers {
				size += int64(len(h.Key) + len(h.Value))
			}
		}
		for _, e := range set.Entries {
			switch {
			case e.Batch != nil:
				for i := range e.Batch.Records {
					rec := &e.Batch.Records[i]
					row := r
					row.Offset = rec.Offset
					row.Timestamp = millis(rec.Timestamp)
					row.Key, row.Value = rec.Key, rec.Value
					row.Control = rec.Control != nil
					if len(rec.Headers) > 0 {
						row.Headers = make([]HeaderRow, len(rec.Headers))
						for j, h := range rec.Headers {
							row.Headers[j] = HeaderRow{Key: validText(h.Key), Value: h.Value}
						}
					}
					add(row)
				}
			case e.Message != nil && e.Message.Compression() != codec.CompressionNone:
				for i := range e.Message.Inner {
					add(legacyRow(r, &e.Message.Inner[i]))
				}
			case e.Message != nil && e.Message.Gaps == nil:
				add(legacyRow(r, e.Message))
			}
		}
	}
	if len(p.rows) == 0 {
		return nil
	}
	if _, err := p.w.Write(p.rows); err != nil {
		return fmt.Errorf("parquet records: write rows: %w", err)
	}
	clear(p.rows)
	p.written += int64(len(p.rows))
	p.groupBytes += size
	if p.groupBytes >= ParquetRowGroupBytes {
		p.groupBytes = 0
		if err := p.w.Flush(); err != nil {
			return fmt.Errorf("parquet records: end row group: %w", err)
		}
	}
	return nil
}

func legacyRow(r RecordRow, m *codec.LegacyMessage) RecordRow {
	r.Offset = m.AbsoluteOffset
	if m.Magic >= 1 {
		r.Timestamp = millis(m.Timestamp)
	}
	r.Key, r.Value = m.Key, m.Value
	return r
}

// millis is a record timestamp, nil when it says none (negative).
func millis(ms int64) *time.Time {
	if ms < 0 {
		return nil
	}
	t := time.UnixMilli(ms).UTC()
	return &t
}

// Rows returns how many records were written.
func (p *ParquetRecords) Rows() int64 { return p.written }

// Close writes the footer. It does not close the io.Writer.
func (p *ParquetRecords) Close() error {
	if p.closed {
		return nil
	}
	p.closed = true
	defer p.zstd.close()
	if err := closeParquet(p.w, p.out); err != nil {
		return fmt.Errorf("parquet records: close: %w", err)
	}
	return nil
}
