package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"
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
	// Entries holds every complete entry that was decoded, in wire order:
	// all of them unless the record decoding budget ran out (see
	// RecordBudget), which a note says.
	Entries []RecordEntry
	// PartialBytes is the length of a trailing incomplete entry, which is
	// not decoded nor counted. A Fetch response cuts its last batch at the
	// size limit, so this is normal there.
	PartialBytes int
	// Notes lists the problems met: CRC mismatch, decompression failure,
	// record count mismatch, trailing garbage, nested compression, the
	// record decoding budget running out. Decoding goes on past each one
	// where the framing allows. At most maxRecordSetNotes problems are
	// listed, then one note counts the rest.
	Notes []string
	// NoteKinds holds the kind of each note: NoteKinds[i] is Notes[i]'s.
	NoteKinds []NoteKind
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

// maxMessageChunk is the most top-level legacy messages allocated at once.
const maxMessageChunk = 64

// maxRecordSetNotes is the most notes a RecordSet lists: a bad entry can
// hold millions of bad records or inner messages, and a note for each would
// cost more than the records.
const maxRecordSetNotes = 100

// minEntrySize is the smallest valid size field per magic: an empty
// message (CRC, magic, attributes, null key and value, plus a timestamp for
// magic 1) or a v2 batch header with no records.
var minEntrySize = [3]int32{0: 14, 1: 22, 2: recordBatchHeaderLen - entryHeaderLen}

// RecordBudget bounds the memory that decoding record sets takes, in
// bytes. Decoding charges it, before allocating, for everything that grows
// with the data: the output of each decompression, and the Go size of each
// decoded entry, batch, record, header (and header key string) and legacy
// message. The records field itself is not charged: decoding aliases its
// bytes.
//
// What does not fit is not decoded: a decompression stops at the budget
// left, a batch or wrapper keeps the records or inner messages that fit,
// and the entries after it are skipped, each time with a note. From then on
// the budget is exhausted: record sets decoded later with it decode no
// entry, and note how many they skip.
//
// So decoding every record set of a frame with one budget of B bytes
// retains at most B bytes besides the frame and the notes, and allocates at
// most about 3B at its peak (a decompression holds its output in pooled
// chunks before copying it into a buffer of the exact size; a zstd window
// is at most the budget left).
//
// A RecordBudget is not safe for concurrent use; create one per frame.
type RecordBudget struct {
	limit     int64
	used      int64
	exhausted bool
}

// NewRecordBudget returns a budget of limit bytes, or of
// DefaultMaxDecompressedBytes when limit <= 0.
func NewRecordBudget(limit int64) *RecordBudget {
	if limit <= 0 {
		limit = DefaultMaxDecompressedBytes
	}
	return &RecordBudget{limit: limit}
}

// Limit returns the budget's size in bytes.
func (b *RecordBudget) Limit() int64 { return b.limit }

// Used returns the bytes charged so far.
func (b *RecordBudget) Used() int64 { return b.used }

// Exhausted reports whether something did not fit in the budget: decoding
// charged to it since then has decoded nothing.
func (b *RecordBudget) Exhausted() bool { return b.exhausted }

// remaining is what is left to charge, 0 once exhausted.
func (b *RecordBudget) remaining() int64 {
	if b.exhausted {
		return 0
	}
	return b.limit - b.used
}

// charge charges n bytes, or reports false and exhausts the budget when
// they do not fit.
func (b *RecordBudget) charge(n int64) bool {
	if b.exhausted || n > b.limit-b.used {
		b.exhausted = true
		return false
	}
	b.used += n
	return true
}

// exhaustedNote is the start of the notes that say the budget ran out.
func (b *RecordBudget) exhaustedNote() string {
	return "record decoding budget of " + formatByteSize(b.limit) + " exhausted"
}

// What decoding charges per decoded value (see RecordBudget).
const (
	sizeEntry   = int64(unsafe.Sizeof(RecordEntry{}))
	sizeBatch   = int64(unsafe.Sizeof(RecordBatch{}))
	sizeRecord  = int64(unsafe.Sizeof(Record{}))
	sizeHeader  = int64(unsafe.Sizeof(RecordHeader{}))
	sizeControl = int64(unsafe.Sizeof(ControlRecord{})+7) &^ 7
	sizeMessage = int64(unsafe.Sizeof(LegacyMessage{}))
)

// recordDecoder decodes one record set, charging budget.
type recordDecoder struct {
	s          *RecordSet
	budget     *RecordBudget
	countOnly  bool // RecordDecodeOptions.CountOnly
	suppressed int  // notes past maxRecordSetNotes
}

// DecodeRecordSet decodes the entries of a records field. It never panics,
// never returns nil, and keeps going past problems that leave the framing
// intact (each becomes a note); it stops at the first entry it cannot frame
// (unknown magic, impossible size), noting the bytes left undecoded. See
// RecordSet for aliasing.
//
// Decoding is charged to opts.Budget, or when it is nil to a budget of
// opts.MaxDecompressedBytes of its own: see RecordBudget for what is
// charged and what happens when the budget runs out.
func DecodeRecordSet(raw []byte, opts RecordDecodeOptions) *RecordSet {
	d := recordDecoder{s: &RecordSet{}, budget: opts.Budget, countOnly: opts.CountOnly}
	if d.budget == nil {
		d.budget = NewRecordBudget(opts.MaxDecompressedBytes)
	}
	d.decodeSet(raw)
	return d.s
}

func (d *recordDecoder) decodeSet(raw []byte) {
	s := d.s
	batches, messages, _ := countEntries(raw)
	if n := batches + messages; n > 0 && d.budget.charge(int64(n)*sizeEntry) {
		s.Entries = make([]RecordEntry, 0, n)
	}
	// Legacy messages are allocated from chunks, never appended past
	// their capacity so that the pointers in Entries stay put: a Fetch of
	// old-format messages holds hundreds of small ones.
	var msgs []LegacyMessage
	var skippedBatches, skippedMessages int
	for pos := 0; pos < len(raw); {
		rest := raw[pos:]
		n, magic, partial, err := splitEntry(rest)
		if partial {
			s.PartialBytes = len(rest)
			break
		}
		if err != nil {
			d.note(NoteRecords, "%d bytes left undecoded at byte %d: %v", len(rest), pos, err)
			break
		}
		entry := rest[:n]
		pos += n
		if magic == 2 {
			batches--
			if d.budget.exhausted || !d.budget.charge(sizeBatch) {
				skippedBatches++
				continue
			}
			s.Entries = append(s.Entries, RecordEntry{Batch: d.decodeBatch(entry, pos-n)})
			continue
		}
		messages--
		if !d.budget.exhausted && len(msgs) == cap(msgs) {
			k := min(maxMessageChunk, messages+1)
			if d.budget.charge(int64(k) * sizeMessage) {
				msgs = make([]LegacyMessage, 0, k)
			}
		}
		if d.budget.exhausted {
			skippedMessages++
			continue
		}
		msgs = append(msgs, d.decodeMessage(entry, pos-n))
		s.Entries = append(s.Entries, RecordEntry{Message: &msgs[len(msgs)-1]})
	}
	if skippedBatches+skippedMessages > 0 {
		d.noteAlways(NoteDecodeBudget, "%s: %s not decoded", d.budget.exhaustedNote(), entryCount(skippedBatches, skippedMessages))
	}
	if d.suppressed > 0 {
		d.noteAlways(NoteRecords, "%d more problems not listed", d.suppressed)
	}
}

// countEntries returns how many complete entries of each format raw holds,
// up to the first that cannot be framed, and how many bytes they take.
func countEntries(raw []byte) (batches, messages, framed int) {
	for framed < len(raw) {
		n, magic, partial, err := splitEntry(raw[framed:])
		if partial || err != nil {
			break
		}
		if magic == 2 {
			batches++
		} else {
			messages++
		}
		framed += n
	}
	return batches, messages, framed
}

// entryCount says "N batches", "N messages" or "N batches and M messages".
func entryCount(batches, messages int) string {
	switch {
	case messages == 0:
		return fmt.Sprintf("%d batches", batches)
	case batches == 0:
		return fmt.Sprintf("%d messages", messages)
	}
	return fmt.Sprintf("%d batches and %d messages", batches, messages)
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

// listing reports whether one more note can be listed, and counts it as
// not listed when it cannot. Where a note's arguments cost (formatting,
// an error per record), test it before building them:
//
//	if d.listing() {
//		d.note(...)
//	}
func (d *recordDecoder) listing() bool {
	if len(d.s.Notes) < maxRecordSetNotes {
		return true
	}
	d.suppressed++
	return false
}

// noteAlways adds a note even past maxRecordSetNotes: for the budget
// running out, which happens once per set.
func (d *recordDecoder) noteAlways(kind NoteKind, format string, args ...any) {
	d.s.Notes = append(d.s.Notes, fmt.Sprintf(format, args...))
	d.s.NoteKinds = append(d.s.NoteKinds, kind)
}

// noteFor returns, for a decompression error, noteAlways when it says the
// budget ran out, else note, noting the error's kind (decompressKind).
func (d *recordDecoder) noteFor(err error) func(format string, args ...any) {
	kind := d.decompressKind(err)
	if errors.Is(err, ErrDecompressedTooLarge) {
		return func(format string, args ...any) { d.noteAlways(kind, format, args...) }
	}
	return func(format string, args ...any) { d.note(kind, format, args...) }
}

// note adds a note of kind, or counts it once maxRecordSetNotes are listed.
func (d *recordDecoder) note(kind NoteKind, format string, args ...any) {
	if d.listing() {
		d.noteAlways(kind, format, args...)
	}
}

// decompress decompresses src with c into at most the budget left, and
// charges the output. When the output would exceed the budget left, it
// returns the part that fits and an error that says so, and the budget is
// exhausted.
func (d *recordDecoder) decompress(c Compression, src []byte, brokenLZ4Header bool) ([]byte, error) {
	limit := d.budget.remaining()
	if limit <= 0 {
		d.budget.exhausted = true
		return nil, fmt.Errorf("%s decompression: %s", c, d.budget.exhaustedNote())
	}
	out, err := decompressIn(c, src, limit, d.budget.limit, brokenLZ4Header)
	d.budget.used += int64(cap(out)) // fits: cap(out) <= limit
	if ce := (*capError)(nil); errors.As(err, &ce) && !ce.window {
		// The output filled what was left (a window too large for the
		// whole budget is refused up front and costs nothing).
		d.budget.exhausted = true
	}
	return out, err
}

// Count returns the number of complete records: every decoded record of
// every v2 batch (control records included), every decoded inner message of
// a compressed legacy wrapper, and every uncompressed legacy message. A
// partial trailing entry is not counted, nor are records that could not be
// decoded (see Notes), nor records not captured (a batch or message with
// bytes in a gap counts the records decoded before its first gap). A batch
// taken at its header (RecordDecodeOptions.CountOnly) counts its
// RecordCount. A nil set (a null records field) counts 0.
func (s *RecordSet) Count() int {
	if s == nil {
		return 0
	}
	n := 0
	for _, e := range s.Entries {
		n += e.count()
	}
	return n
}

// count is the entry's complete records, as RecordSet.Count counts them.
func (e RecordEntry) count() int {
	switch {
	case e.Batch != nil && e.Batch.RecordsCounted:
		return int(e.Batch.RecordCount)
	case e.Batch != nil:
		return len(e.Batch.Records)
	case e.Message != nil && e.Message.Compression() != CompressionNone:
		return len(e.Message.Inner)
	case e.Message != nil && e.Message.Gaps == nil:
		return 1 // a message with bytes not captured is no complete record
	}
	return 0
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
