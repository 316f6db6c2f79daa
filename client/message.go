package client

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kdissect/kdissect/codec"
)

// Message is one record as fetched: the Go successor of the Perl package's
// Kafka::Message, from a v2 record batch or a v0/v1 message set.
//
// A damaged entry (CRC mismatch, decompression failure, undecodable
// records) still yields messages, with Valid false and Error saying why:
// the records that could be decoded, or, when none could, one message at
// the entry's first offset with no key nor value whose NextOffset skips
// the whole entry.
type Message struct {
	Topic     string
	Partition int32
	Offset    int64
	// NextOffset is the offset to fetch after this message: Offset+1, or
	// past the whole entry for a damaged entry's placeholder.
	NextOffset int64
	Key        []byte // nil when null
	Value      []byte // nil when null
	Headers    []Header
	// Timestamp is the record's timestamp (ms precision); the zero time
	// for magic 0 messages, which have none.
	Timestamp     time.Time
	TimestampType codec.TimestampType
	Magic         int8              // 0, 1 (message sets) or 2 (record batch)
	Compression   codec.Compression // of the batch or wrapper message
	ProducerID    int64             // -1 when none (and for magic 0/1)
	// Valid is false for a message from a damaged entry; Error then holds
	// an *Error matching ErrCorruptMessage (CRC mismatch, bad framing,
	// undecodable record) or ErrCompression (decompression failed).
	Valid bool
	Error error
}

// FetchResult is what one Fetch returned for one partition.
type FetchResult struct {
	Topic     string
	Partition int32
	// Messages holds the records at or after the requested offset, in
	// offset order; control records and, with ReadCommitted, the records
	// of aborted transactions are left out (and counted below).
	Messages []Message
	// HighWatermark is the offset after the last committed record;
	// LastStableOffset (v4+) the offset after the last record of a
	// decided transaction; LogStartOffset (v5+) the first offset kept.
	// Unknown values are -1.
	HighWatermark    int64
	LastStableOffset int64
	LogStartOffset   int64
	// NextOffset is where the next Fetch should start: after the last
	// complete entry returned, control and aborted batches included, or
	// the requested offset when no complete entry came.
	NextOffset int64
	// ControlRecords counts the control records (transaction markers)
	// skipped; AbortedRecords the records of aborted transactions skipped
	// under ReadCommitted.
	ControlRecords int
	AbortedRecords int
	// PartialBytes is the size of a trailing incomplete entry: the broker
	// cut it at the size limit. When it is the only entry, the next record
	// is larger than the fetch's MaxBytes.
	PartialBytes int
}

// decodeMessages decodes a records field into r, starting at offset
// from (records before it, which a broker returns when from is inside a
// batch, are dropped). aborted, when not nil, lists the aborted
// transactions to skip (ReadCommitted).
func decodeMessages(r *FetchResult, raw []byte, from int64, aborted []codec.FetchResponseAbortedTransaction, readCommitted bool, opts codec.RecordDecodeOptions) {
	r.NextOffset = from
	// The aborted transactions in order of first offset; a producer id
	// joins the active set once its first offset is reached and leaves it
	// at its ABORT marker (as the Java consumer's Fetcher does).
	aborted = slices.Clone(aborted)
	slices.SortFunc(aborted, func(a, b codec.FetchResponseAbortedTransaction) int {
		return int(min(max(a.FirstOffset-b.FirstOffset, -1), 1))
	})
	active := map[int64]bool{}
	entries := splitEntries(r, raw, opts)
	n := 0
	for _, e := range entries {
		if e.set != nil {
			n += e.set.Count()
		}
	}
	r.Messages = make([]Message, 0, n+1)
	for _, en := range entries {
		if en.set == nil || len(en.set.Entries) == 0 {
			note := en.note
			if en.set != nil {
				note = strings.Join(en.set.Notes, "; ")
			}
			r.add(damaged(r, en.base, en.base+1, en.magic, codec.CompressionNone, ErrCorruptMessage, note), from)
			r.NextOffset = max(r.NextOffset, en.base+1)
			continue
		}
		set := en.set
		e := set.Entries[0]
		switch {
		case e.Batch != nil:
			b := e.Batch
			last := b.BaseOffset + int64(b.LastOffsetDelta)
			for len(aborted) > 0 && aborted[0].FirstOffset <= last {
				active[aborted[0].ProducerId] = true
				aborted = aborted[1:]
			}
			r.NextOffset = max(r.NextOffset, last+1)
			if b.IsControl() {
				for _, rec := range b.Records {
					if rec.Control != nil && rec.Control.Type == codec.ControlAbort {
						delete(active, b.ProducerId)
					}
					if rec.Offset >= from {
						r.ControlRecords++
					}
				}
				continue
			}
			if readCommitted && b.IsTransactional() && active[b.ProducerId] {
				for _, rec := range b.Records {
					if rec.Offset >= from {
						r.AbortedRecords++
					}
				}
				continue
			}
			r.addBatch(b, set.Notes, from, last)
		case e.Message != nil:
			r.addLegacy(e.Message, set.Notes, from)
		}
	}
}

// entry is one framed entry of a records field: decoded (set), or not
// framable (set nil, note says why; the rest of the field is dropped).
type entry struct {
	set   *codec.RecordSet
	base  int64
	magic byte
	note  string
}

// splitEntries frames the entries of raw by their size fields and decodes
// each on its own, so that its notes are its own; a trailing incomplete
// entry sets r.PartialBytes.
func splitEntries(r *FetchResult, raw []byte, opts codec.RecordDecodeOptions) []entry {
	var out []entry
	for pos := 0; pos < len(raw); {
		rest := raw[pos:]
		if len(rest) < 17 {
			r.PartialBytes = len(rest)
			break
		}
		base := int64(binary.BigEndian.Uint64(rest))
		size := int32(binary.BigEndian.Uint32(rest[8:]))
		if size < 0 {
			out = append(out, entry{base: base, magic: rest[16], note: fmt.Sprintf("entry at byte %d: negative size %d; %d bytes left undecoded", pos, size, len(rest))})
			break
		}
		if int64(size) > int64(len(rest)-12) {
			r.PartialBytes = len(rest)
			break
		}
		e := rest[:12+int(size)]
		pos += len(e)
		out = append(out, entry{set: codec.DecodeRecordSet(e, opts), base: base, magic: e[16]})
	}
	return out
}

// add appends m when it is at or after from.
func (r *FetchResult) add(m Message, from int64) {
	if m.Offset >= from || m.NextOffset > from && !m.Valid {
		r.Messages = append(r.Messages, m)
	}
}

// damaged returns a placeholder message for an entry none of whose
// records could be decoded.
func damaged(r *FetchResult, offset, next int64, magic byte, c codec.Compression, kind *Error, note string) Message {
	return Message{
		Topic: r.Topic, Partition: r.Partition, Offset: offset, NextOffset: next,
		Magic: int8(magic), Compression: c, ProducerID: -1,
		Error: kind.with(r.Topic, r.Partition, fmt.Sprintf("entry at offset %d: %s", offset, note), nil),
	}
}

// entryError classifies the notes of one entry.
func entryError(r *FetchResult, notes []string, compressed bool, crcValid bool) error {
	if len(notes) == 0 && crcValid {
		return nil
	}
	// With the CRC intact the bytes are what the producer wrote: a
	// problem inside a compressed payload is a decompression problem.
	kind := ErrCorruptMessage
	if compressed && crcValid {
		kind = ErrCompression
	}
	msg := strings.Join(notes, "; ")
	if msg == "" {
		msg = "CRC mismatch"
	}
	return kind.with(r.Topic, r.Partition, msg, nil)
}

func (r *FetchResult) addBatch(b *codec.RecordBatch, notes []string, from, last int64) {
	err := entryError(r, notes, b.Compression() != codec.CompressionNone, b.CrcValid)
	if len(b.Records) == 0 && err != nil {
		m := damaged(r, b.BaseOffset, last+1, 2, b.Compression(), ErrCorruptMessage, "")
		m.Error = err
		r.add(m, from)
		return
	}
	for i := range b.Records {
		rec := &b.Records[i]
		if rec.Offset < from {
			continue
		}
		m := Message{
			Topic: r.Topic, Partition: r.Partition,
			Offset: rec.Offset, NextOffset: rec.Offset + 1,
			Key: rec.Key, Value: rec.Value, Headers: rec.Headers,
			Timestamp: time.UnixMilli(rec.Timestamp), TimestampType: b.TimestampType(),
			Magic: 2, Compression: b.Compression(), ProducerID: b.ProducerId,
			Valid: err == nil, Error: err,
		}
		r.Messages = append(r.Messages, m)
	}
}

func (r *FetchResult) addLegacy(w *codec.LegacyMessage, notes []string, from int64) {
	compressed := w.Compression() != codec.CompressionNone
	err := entryError(r, notes, compressed, w.CrcValid)
	r.NextOffset = max(r.NextOffset, w.Offset+1)
	mk := func(m *codec.LegacyMessage, offset int64) Message {
		msg := Message{
			Topic: r.Topic, Partition: r.Partition, Offset: offset, NextOffset: offset + 1,
			Key: m.Key, Value: m.Value, Magic: m.Magic, Compression: w.Compression(), ProducerID: -1,
			Valid: err == nil && m.CrcValid, Error: err,
		}
		if msg.Error == nil && !m.CrcValid {
			msg.Error = ErrCorruptMessage.with(r.Topic, r.Partition, fmt.Sprintf("message at offset %d: CRC-32 mismatch", offset), nil)
		}
		if m.Magic >= 1 {
			msg.TimestampType = w.TimestampType()
			t := m.Timestamp
			if w.TimestampType() == codec.TimestampLogAppendTime {
				t = w.Timestamp
			}
			msg.Timestamp = time.UnixMilli(t)
		}
		return msg
	}
	if !compressed {
		if w.Offset >= from {
			r.Messages = append(r.Messages, mk(w, w.Offset))
		}
		return
	}
	if len(w.Inner) == 0 {
		m := damaged(r, w.Offset, w.Offset+1, byte(w.Magic), w.Compression(), ErrCompression, "")
		if err == nil {
			err = ErrCompression.with(r.Topic, r.Partition, "compressed message with no inner messages", nil)
		}
		m.Error = err
		r.add(m, from)
		return
	}
	for i := range w.Inner {
		in := &w.Inner[i]
		if in.AbsoluteOffset < from {
			continue
		}
		r.Messages = append(r.Messages, mk(in, in.AbsoluteOffset))
	}
}
