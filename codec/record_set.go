package codec

import (
	"encoding/binary"
	"fmt"
)

// RecordSet is the decoded content of a records field: a sequence of
// entries, each a v2 record batch (magic 2) or a legacy message (magic 0 or
// 1). Kafka lets the formats mix in one field (a Fetch of a partition
// upgraded in place returns old messages before new batches), so the format
// is chosen per entry by its magic byte, never by the API version.
//
// Keys, values and header values alias the buffer they were decoded from:
// the raw bytes for uncompressed entries, a buffer of their own for the
// records of a compressed entry. Copy them to keep them beyond the raw bytes.
type RecordSet struct {
	// Entries holds every complete entry, in wire order.
	Entries []RecordEntry
	// PartialBytes is the length of a trailing incomplete entry, which is
	// not decoded nor counted. A Fetch response cuts its last batch at the
	// size limit, so this is normal there.
	PartialBytes int
	// Notes lists the problems met: CRC mismatch, decompression failure or
	// cap hit, record count mismatch, trailing garbage, nested compression.
	// Decoding goes on past each one where the framing allows.
	Notes []string
}

// RecordEntry is one entry of a RecordSet; exactly one field is set.
type RecordEntry struct {
	Batch   *RecordBatch   // magic 2
	Message *LegacyMessage // magic 0 or 1
}

// Both formats start an entry with the same 17 bytes: offset int64, size
// int32 (of what follows it), then 4 bytes (PartitionLeaderEpoch or CRC),
// then the magic byte.
const (
	entryHeaderLen = 12 // offset and size
	entryMagicAt   = 16
)

// maxMessageChunk is the most legacy messages allocated at once;
// minLegacyEntryLen is the smallest legacy entry (magic 0, empty).
const (
	maxMessageChunk   = 64
	minLegacyEntryLen = entryHeaderLen + 14
)

// minEntrySize is the smallest valid size field per magic: an empty
// message (CRC, magic, attributes, null key and value, plus a timestamp for
// magic 1) or a v2 batch header with no records.
var minEntrySize = [3]int32{0: 14, 1: 22, 2: recordBatchHeaderLen - entryHeaderLen}

// DecodeRecordSet decodes the entries of a records field. It never panics,
// never returns nil, and keeps going past problems that leave the framing
// intact (each becomes a note); it stops at the first entry it cannot frame
// (unknown magic, impossible size), noting the bytes left undecoded. See
// RecordSet for aliasing.
func DecodeRecordSet(raw []byte, opts RecordDecodeOptions) *RecordSet {
	s := &RecordSet{}
	limit := opts.maxBytes()
	// Legacy messages are allocated from chunks, never appended past
	// their capacity so that the pointers in Entries stay put: a Fetch of
	// old-format messages holds hundreds of small ones.
	var msgs []LegacyMessage
	for pos := 0; pos < len(raw); {
		rest := raw[pos:]
		n, magic, partial, err := splitEntry(rest)
		if partial {
			s.PartialBytes = len(rest)
			break
		}
		if err != nil {
			s.note("%d bytes left undecoded at byte %d: %v", len(rest), pos, err)
			break
		}
		entry := rest[:n]
		if magic == 2 {
			s.Entries = append(s.Entries, RecordEntry{Batch: s.decodeBatch(entry, pos, limit)})
		} else {
			if len(msgs) == cap(msgs) {
				msgs = make([]LegacyMessage, 0, min(maxMessageChunk, len(rest)/minLegacyEntryLen+1))
			}
			msgs = append(msgs, s.decodeMessage(entry, pos, limit))
			s.Entries = append(s.Entries, RecordEntry{Message: &msgs[len(msgs)-1]})
		}
		pos += n
	}
	return s
}

// splitEntry frames the entry at the start of rest and returns its length
// and magic. partial reports a trailing entry cut short; err an entry that
// cannot be framed.
func splitEntry(rest []byte) (n int, magic int8, partial bool, err error) {
	if len(rest) < entryHeaderLen {
		return 0, 0, true, nil
	}
	size := int32(binary.BigEndian.Uint32(rest[8:]))
	if size < 0 {
		return 0, 0, false, fmt.Errorf("negative entry size %d", size)
	}
	if len(rest) > entryMagicAt {
		magic = int8(rest[entryMagicAt])
		if magic < 0 || magic > 2 {
			return 0, 0, false, fmt.Errorf("unknown magic %d", magic)
		}
		if size < minEntrySize[magic] {
			return 0, 0, false, fmt.Errorf("entry size %d below the %d bytes of an empty magic %d entry", size, minEntrySize[magic], magic)
		}
	}
	if int64(size) > int64(len(rest)-entryHeaderLen) {
		return 0, 0, true, nil
	}
	if len(rest) <= entryMagicAt {
		// Complete yet too short to hold a magic byte.
		return 0, 0, false, fmt.Errorf("entry size %d below any magic's minimum", size)
	}
	return entryHeaderLen + int(size), magic, false, nil
}

func (s *RecordSet) note(format string, args ...any) {
	s.Notes = append(s.Notes, fmt.Sprintf(format, args...))
}

// Count returns the number of complete records: every decoded record of
// every v2 batch (control records included), every decoded inner message of
// a compressed legacy wrapper, and every uncompressed legacy message. A
// partial trailing entry is not counted, nor are records that could not be
// decoded (see Notes). A nil set (a null records field) counts 0.
func (s *RecordSet) Count() int {
	if s == nil {
		return 0
	}
	n := 0
	for _, e := range s.Entries {
		switch {
		case e.Batch != nil:
			n += len(e.Batch.Records)
		case e.Message != nil && e.Message.Compression() != CompressionNone:
			n += len(e.Message.Inner)
		case e.Message != nil:
			n++
		}
	}
	return n
}

// WriteJSON writes the set as an array with one object per entry, shaped as
// RecordBatch.writeJSON and LegacyMessage.writeJSON describe. Notes and
// PartialBytes are not written: the caller reports them with its own notes.
// A nil set (a null records field) is written as null.
func (s *RecordSet) WriteJSON(w *JSONWriter) {
	if s == nil {
		w.Null()
		return
	}
	w.BeginArray()
	for _, e := range s.Entries {
		switch {
		case e.Batch != nil:
			e.Batch.writeJSON(w)
		case e.Message != nil:
			e.Message.writeJSON(w, false)
		}
	}
	w.EndArray()
}
