package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
)

// Record sets with holes: a records field read from a gapped Reader
// (Records.Gaps). Entries are framed as in a whole field, by their size;
// an entry wholly captured decodes as it would there. An entry with bytes
// in a gap gives what was captured of it (see decodeHoledBatch and
// decodeHoledMessage), and the next entry starts where its size says. An
// entry whose size was not captured is found again by scanning for the
// next entry wholly captured whose magic, size and CRC agree.

// resyncCRCFactor bounds the CRC work of resynchronisation in a records
// field: at most this many times the field's length in bytes checked, so
// that a field crafted with a plausible entry at every byte costs linear
// time.
const resyncCRCFactor = 4

// holes is a records field of size bytes of which b holds the first
// len(b); gaps (sorted, disjoint, non-empty, relative to the field) are
// the bytes not captured, and cover [len(b), size).
type holes struct {
	b    []byte
	size int
	gaps []Gap
}

// firstGapEndingAfter returns the index of the first gap ending after off.
func (h *holes) firstGapEndingAfter(off int) int {
	i, _ := slices.BinarySearchFunc(h.gaps, off, func(g Gap, off int) int {
		if g.End <= off {
			return -1
		}
		return 1
	})
	return i
}

// captured reports whether no byte of [from, to) is in a gap.
func (h *holes) captured(from, to int) bool {
	i := h.firstGapEndingAfter(from)
	return i == len(h.gaps) || h.gaps[i].Start >= to
}

// gapsIn returns the gaps that meet [from, to), clipped to it, relative
// to from; nil when there are none.
func (h *holes) gapsIn(from, to int) []Gap {
	var out []Gap
	for _, g := range h.gaps[h.firstGapEndingAfter(from):] {
		if g.Start >= to {
			break
		}
		out = append(out, Gap{max(g.Start, from) - from, min(g.End, to) - from})
	}
	return out
}

// lostIn returns how many bytes of [from, to) are in gaps.
func (h *holes) lostIn(from, to int) int {
	n := 0
	for _, g := range h.gapsIn(from, to) {
		n += g.End - g.Start
	}
	return n
}

// sizeGapEnd returns, for the entry at pos whose size field (bytes 8 to
// 12) meets a gap, where that gap ends: where the search for the next
// entry starts.
func (h *holes) sizeGapEnd(pos int) int {
	return h.gaps[h.firstGapEndingAfter(pos+8)].End
}

// DecodeGappedRecordSet decodes a records field of size bytes of which raw
// holds the first len(raw) and gaps (relative to the field; sorted,
// disjoint, covering [len(raw), size)) the byte ranges the capture did not
// hold: what Records.DecodeRecords does for a field with Records.Gaps.
// With no gaps it is DecodeRecordSet.
//
// Entries are framed as DecodeRecordSet frames them, and one wholly
// captured decodes as there. A batch or message with bytes in a gap gives
// the header fields captured (the others are not captured: see
// RecordBatch.Gaps, LegacyMessage.Gaps), never a verified CRC, and for an
// uncompressed batch the records wholly before its first gap; the next
// entry starts where its size says. An entry whose size was not captured
// is skipped, with the bytes after it up to the next entry wholly captured
// whose magic, size and CRC agree (the scan is bounded: see
// resyncCRCFactor). Notes say what was not captured. Count counts only
// the records decoded.
func DecodeGappedRecordSet(raw []byte, size int, gaps []Gap, opts RecordDecodeOptions) *RecordSet {
	if len(raw) > size {
		raw = raw[:size]
	}
	gs := normalizeGaps(gaps, len(raw), size)
	if len(gs) == 0 {
		return DecodeRecordSet(raw, opts)
	}
	d := recordDecoder{s: &RecordSet{}, budget: opts.Budget, countOnly: opts.CountOnly}
	if d.budget == nil {
		d.budget = NewRecordBudget(opts.MaxDecompressedBytes)
	}
	d.decodeGappedSet(&holes{b: raw, size: size, gaps: gs})
	return d.s
}

// frameKind is how the framing of a field with holes takes the bytes at a
// position.
type frameKind int8

const (
	frameWhole     frameKind = iota // an entry wholly captured
	frameHoled                      // an entry, size and magic captured, with bytes in a gap
	frameMagicLost                  // an entry whose size was captured, not its magic
	frameSizeLost                   // the size field is in a gap: the entry cannot be framed
	framePartial                    // a trailing entry cut short (a Fetch's size limit)
	frameBad                        // an entry that cannot be framed (err)
	frameTailLost                   // fewer bytes than an entry header are left, some not captured
)

// frameAt frames the entry at pos of h, as splitEntry frames a whole
// field.
func (h *holes) frameAt(pos int) (n int, magic int8, kind frameKind, err error) {
	rest := h.size - pos
	if rest < entryHeaderLen {
		if h.captured(pos, h.size) {
			return 0, 0, framePartial, nil
		}
		return 0, 0, frameTailLost, nil
	}
	if !h.captured(pos+8, pos+entryHeaderLen) {
		return 0, 0, frameSizeLost, nil
	}
	size := int32(binary.BigEndian.Uint32(h.b[pos+8:]))
	if size < 0 {
		return 0, 0, frameBad, fmt.Errorf("negative entry size %d", size)
	}
	magicKnown := rest > entryMagicAt && h.captured(pos+entryMagicAt, pos+entryMagicAt+1)
	if magicKnown {
		magic = int8(h.b[pos+entryMagicAt])
		if magic < 0 || magic > 2 {
			return 0, 0, frameBad, fmt.Errorf("unknown magic %d", magic)
		}
		if size < minEntrySize[magic] {
			return 0, 0, frameBad, fmt.Errorf("entry size %d below the %d bytes of an empty magic %d entry", size, minEntrySize[magic], magic)
		}
	}
	if int64(size) > int64(rest-entryHeaderLen) {
		return 0, 0, framePartial, nil
	}
	n = entryHeaderLen + int(size)
	switch {
	case n <= entryMagicAt:
		return 0, 0, frameBad, fmt.Errorf("entry size %d below any magic's minimum", size)
	case !magicKnown:
		return n, 0, frameMagicLost, nil
	case h.captured(pos, pos+n):
		return n, magic, frameWhole, nil
	}
	return n, magic, frameHoled, nil
}

// resync returns the first position p >= from where an entry starts that
// is wholly captured, of a known magic, of a size at least that magic's
// minimum and within the field, and whose CRC matches (CRC-32C over
// [p+21, end) for a v2 batch, CRC-32 over [p+16, end) for a legacy
// message). The magic and size are checked before any CRC is computed,
// and the bytes CRC-checked are taken from budget: found is false when
// there is no such entry, gaveUp too when the budget ran out first. Each
// position costs constant work besides its CRC, gaps are stepped over
// whole, and so the scan is linear in the field's length.
func (h *holes) resync(from int, budget *int) (p int, found, gaveUp bool) {
	be := binary.BigEndian
	gi := h.firstGapEndingAfter(from)
	for p = from; p+entryHeaderLen+int(minEntrySize[0]) <= h.size; p++ {
		for gi < len(h.gaps) && h.gaps[gi].End <= p {
			gi++
		}
		if gi < len(h.gaps) && h.gaps[gi].Start < p+entryMagicAt+1 {
			p = h.gaps[gi].End - 1 // the header is not captured at any p before the gap's end
			continue
		}
		magic := h.b[p+entryMagicAt]
		if magic > 2 {
			continue
		}
		size := int32(be.Uint32(h.b[p+8:]))
		if size < minEntrySize[magic] || int64(size) > int64(h.size-p-entryHeaderLen) {
			continue
		}
		end := p + entryHeaderLen + int(size)
		if gi < len(h.gaps) && h.gaps[gi].Start < end {
			continue
		}
		if *budget < end-p {
			return h.size, false, true
		}
		*budget -= end - p
		entry := h.b[p:end]
		var ok bool
		if magic == 2 {
			ok = be.Uint32(entry[17:]) == crc32.Checksum(entry[batchCrcStart:], castagnoli)
		} else {
			ok = be.Uint32(entry[12:]) == crc32.ChecksumIEEE(entry[entryMagicAt:])
		}
		if ok {
			return p, true, false
		}
	}
	return h.size, false, false
}

// entryName names an entry's format for notes.
func entryName(magic int8) string {
	if magic == 2 {
		return "batch"
	}
	return "message"
}

func (d *recordDecoder) decodeGappedSet(h *holes) {
	s := d.s
	var msgs []LegacyMessage // chunks, as decodeSet allocates them
	var skippedBatches, skippedMessages int
	budget := resyncCRCFactor * h.size
	for pos := 0; pos < h.size; {
		n, magic, kind, err := h.frameAt(pos)
		switch kind {
		case framePartial:
			s.PartialBytes = h.size - pos
			pos = h.size
			continue
		case frameBad:
			d.note(NoteRecords, "%d bytes left undecoded at byte %d: %v", h.size-pos, pos, err)
			pos = h.size
			continue
		case frameTailLost:
			d.note(NoteNotCaptured, "the last %d bytes (at byte %d), fewer than an entry header, not all captured: not decoded", h.size-pos, pos)
			pos = h.size
			continue
		case frameSizeLost:
			p, found, gaveUp := h.resync(h.sizeGapEnd(pos), &budget)
			switch {
			case found:
				_, m, _, _ := h.frameAt(p)
				d.note(NoteNotCaptured, "%d bytes at byte %d skipped (%d of them not captured): the size of the entry there (BatchLength or MessageSize) was not captured; resynchronised on the %s at byte %d, found by its magic, size and CRC", p-pos, pos, h.lostIn(pos, p), entryName(m), p)
			case gaveUp:
				d.note(NoteNotCaptured, "the last %d bytes (at byte %d; %d of them not captured) not decoded: the size of the entry there (BatchLength or MessageSize) was not captured, and the search for the next entry by its CRC stopped after checking %d times the field's bytes", h.size-pos, pos, h.lostIn(pos, h.size), resyncCRCFactor)
			default:
				d.note(NoteNotCaptured, "the last %d bytes (at byte %d; %d of them not captured) not decoded: the size of the entry there (BatchLength or MessageSize) was not captured, and no entry wholly captured with a matching CRC follows", h.size-pos, pos, h.lostIn(pos, h.size))
			}
			pos = p
			continue
		case frameMagicLost:
			d.note(NoteNotCaptured, "entry at byte %d (%d bytes, %d of them not captured): its magic byte was not captured, so neither is its format: not decoded", pos, n, h.lostIn(pos, pos+n))
			pos += n
			continue
		}
		// frameWhole, frameHoled
		if magic == 2 {
			if d.budget.exhausted || !d.budget.charge(sizeEntry+sizeBatch) {
				skippedBatches++
				pos += n
				continue
			}
			var b *RecordBatch
			if kind == frameWhole {
				b = d.decodeBatch(h.b[pos:pos+n], pos)
			} else {
				b = d.decodeHoledBatch(h, pos, n)
			}
			s.Entries = append(s.Entries, RecordEntry{Batch: b})
			pos += n
			continue
		}
		if !d.budget.exhausted && len(msgs) == cap(msgs) {
			if d.budget.charge(maxMessageChunk * sizeMessage) {
				msgs = make([]LegacyMessage, 0, maxMessageChunk)
			}
		}
		if d.budget.exhausted || !d.budget.charge(sizeEntry) {
			skippedMessages++
			pos += n
			continue
		}
		if kind == frameWhole {
			msgs = append(msgs, d.decodeMessage(h.b[pos:pos+n], pos))
		} else {
			msgs = append(msgs, d.decodeHoledMessage(h, pos, n))
		}
		s.Entries = append(s.Entries, RecordEntry{Message: &msgs[len(msgs)-1]})
		pos += n
	}
	if skippedBatches+skippedMessages > 0 {
		d.noteAlways(NoteDecodeBudget, "%s: %s not decoded", d.budget.exhaustedNote(), entryCount(skippedBatches, skippedMessages))
	}
	if d.suppressed > 0 {
		d.noteAlways(NoteRecords, "%d more problems not listed", d.suppressed)
	}
}

// The header fields of a v2 batch: name, offset and length in the entry,
// in the order of RecordBatch's nc bits.
var batchHeaderFields = [...]struct {
	name     string
	off, len int
}{
	{"BaseOffset", 0, 8},
	{"BatchLength", 8, 4},
	{"PartitionLeaderEpoch", 12, 4},
	{"Magic", 16, 1},
	{"Crc", 17, 4},
	{"Attributes", 21, 2},
	{"LastOffsetDelta", 23, 4},
	{"BaseTimestamp", 27, 8},
	{"MaxTimestamp", 35, 8},
	{"ProducerId", 43, 8},
	{"ProducerEpoch", 51, 2},
	{"BaseSequence", 53, 4},
	{"RecordCount", 57, 4},
}

// Bits of RecordBatch.nc, as batchHeaderFields.
const (
	batchNcBaseOffset = 1 << iota
	batchNcBatchLength
	batchNcPartitionLeaderEpoch
	batchNcMagic
	batchNcCrc
	batchNcAttributes
	batchNcLastOffsetDelta
	batchNcBaseTimestamp
	batchNcMaxTimestamp
	batchNcProducerId
	batchNcProducerEpoch
	batchNcBaseSequence
	batchNcRecordCount
)

// decodeHoledBatch decodes the v2 batch of n bytes at pos of h, which has
// bytes in a gap: the header fields captured, and for an uncompressed
// batch whose header was captured, the records wholly before its first
// gap.
func (d *recordDecoder) decodeHoledBatch(h *holes, pos, n int) *RecordBatch {
	var hdr [recordBatchHeaderLen]byte
	copy(hdr[:], h.b[pos:min(pos+recordBatchHeaderLen, len(h.b))])
	b := d.batchHeader(hdr[:])
	b.CrcValid = false
	b.Gaps = h.gapsIn(pos, pos+n)
	for k, f := range batchHeaderFields {
		if !h.captured(pos+f.off, pos+f.off+f.len) {
			b.nc |= 1 << k
		}
	}
	b.clearNotCaptured()
	b.Records = []Record{}
	where := fmt.Sprintf("batch at byte %d", pos)
	if b.Captured("BaseOffset") {
		where += fmt.Sprintf(" (BaseOffset %d)", b.BaseOffset)
	}
	lost := fmt.Sprintf("%s: %d of its %d bytes not captured", where, h.lostIn(pos, pos+n), n)
	firstGap := b.Gaps[0].Start
	switch {
	case firstGap < recordBatchHeaderLen:
		b.RecordsNotCaptured = b.knownRecordCount()
		d.note(NoteCRCNotVerified, "%s, in its header: CRC-32C not verified, records not decoded", lost)
		return b
	case b.Compression() != CompressionNone:
		b.RecordsNotCaptured = b.knownRecordCount()
		d.note(NoteCRCNotVerified, "%s: CRC-32C not verified, %v-compressed records not decoded (%d records)", lost, b.Compression(), b.RecordCount)
		return b
	}
	data := h.b[pos+recordBatchHeaderLen : pos+firstGap]
	var st recordsStop
	b.Records, st = d.decodeRecords(b, data, where)
	b.RecordsNotCaptured = max(0, b.RecordCount-int32(len(b.Records)))
	if b.RecordCount < 0 {
		b.RecordsNotCaptured = -1
	}
	switch {
	case st.budget:
		d.noteAlways(NoteDecodeBudget, "%s: %s: %d of RecordCount %d records decoded", where, d.budget.exhaustedNote(), len(b.Records), b.RecordCount)
	case st.err != nil && !errors.Is(st.err, ErrTruncated):
		// A record cut short by the gap is no problem; another is.
		d.note(NoteRecords, "%s: %v", where, st.err)
	}
	if b.RecordsNotCaptured == 0 {
		d.note(NoteCRCNotVerified, "%s, after its records: CRC-32C not verified; all %d records decoded", lost, len(b.Records))
	} else {
		d.note(NoteCRCNotVerified, "%s: CRC-32C not verified; %d of RecordCount %d records decoded, the rest not captured", lost, len(b.Records), b.RecordCount)
	}
	return b
}

// knownRecordCount is RecordCount as RecordsNotCaptured takes it: -1 when
// not captured or negative.
func (b *RecordBatch) knownRecordCount() int32 {
	if !b.Captured("RecordCount") || b.RecordCount < 0 {
		return -1
	}
	return b.RecordCount
}

// clearNotCaptured zeroes the header fields not captured: no value is
// kept of them.
func (b *RecordBatch) clearNotCaptured() {
	for k, f := range batchHeaderFields {
		if b.nc&(1<<k) == 0 {
			continue
		}
		switch f.name {
		case "BaseOffset":
			b.BaseOffset = 0
		case "PartitionLeaderEpoch":
			b.PartitionLeaderEpoch = 0
		case "Crc":
			b.Crc = 0
		case "Attributes":
			b.Attributes = 0
		case "LastOffsetDelta":
			b.LastOffsetDelta = 0
		case "BaseTimestamp":
			b.BaseTimestamp = 0
		case "MaxTimestamp":
			b.MaxTimestamp = 0
		case "ProducerId":
			b.ProducerId = 0
		case "ProducerEpoch":
			b.ProducerEpoch = 0
		case "BaseSequence":
			b.BaseSequence = 0
		case "RecordCount":
			b.RecordCount = 0
		}
	}
}

// CrcChecked reports whether CrcValid says anything: false for a batch
// with bytes not captured (Gaps), whose CRC could not be computed.
func (b *RecordBatch) CrcChecked() bool { return b.Gaps == nil }

// CrcChecked reports whether CrcValid says anything: false for a message
// with bytes not captured (Gaps), whose CRC could not be computed.
func (m *LegacyMessage) CrcChecked() bool { return m.Gaps == nil }

// Captured reports whether the header field named (as in the struct and
// its JSON: "BaseOffset" ... "RecordCount") was captured: true for every
// field of a batch wholly captured (Gaps nil). A field not captured holds
// zero. Derived values (Compression, TimestampType, IsTransactional,
// IsControl) are known when Attributes is.
func (b *RecordBatch) Captured(field string) bool {
	for k, f := range batchHeaderFields {
		if f.name == field {
			return b.nc&(1<<k) == 0
		}
	}
	return true
}

// The fields of a legacy message, in the order of LegacyMessage.nc bits.
const (
	msgNcOffset = 1 << iota
	msgNcCrc
	msgNcAttributes
	msgNcTimestamp
	msgNcKey
	msgNcValue
)

var legacyFieldBits = map[string]uint8{
	"Offset": msgNcOffset, "Crc": msgNcCrc, "Attributes": msgNcAttributes,
	"Timestamp": msgNcTimestamp, "Key": msgNcKey, "Value": msgNcValue,
}

// Captured reports whether the field named (as in the struct: "Offset",
// "Crc", "Attributes", "Timestamp", "Key", "Value") was captured: true for
// every field of a message wholly captured (Gaps nil), and for
// MessageSize and Magic, which frame it. A field not captured holds zero
// (nil for Key and Value).
func (m *LegacyMessage) Captured(field string) bool {
	return m.nc&legacyFieldBits[field] == 0
}

// decodeHoledMessage decodes the legacy message of n bytes at pos of h,
// which has bytes in a gap: the fields captured, read in order as long as
// what locates them (the key's length) was captured; a compressed
// wrapper's inner messages are not decoded.
func (d *recordDecoder) decodeHoledMessage(h *holes, pos, n int) LegacyMessage {
	gaps := h.gapsIn(pos, pos+n)
	m := LegacyMessage{Gaps: gaps}
	r := NewGappedReader(h.b[pos:min(pos+n, len(h.b))], n, gaps)
	field := func(bit uint8) bool {
		if r.err == nil {
			return true
		}
		if !r.skipped() {
			// Stopped: this field and every one after it are lost.
			m.nc |= ^(bit - 1)
			return false
		}
		m.nc |= bit
		return true
	}
	m.Offset = r.Int64()
	field(msgNcOffset)
	m.AbsoluteOffset = m.Offset
	m.MessageSize = r.Int32() // captured: it framed the message
	m.Crc = r.Uint32()
	field(msgNcCrc)
	m.Magic = r.Int8() // captured: it framed the message
	m.Attributes = r.Int8()
	ok := field(msgNcAttributes)
	if ok && m.Magic >= 1 {
		m.Timestamp = r.Int64()
		m.WireTimestamp = m.Timestamp
		ok = field(msgNcTimestamp)
	}
	if ok {
		m.Key = r.NullableBytes()
		ok = field(msgNcKey)
	} else {
		m.nc |= msgNcKey | msgNcValue
	}
	if ok {
		m.Value = r.NullableBytes()
		field(msgNcValue)
	} else {
		m.nc |= msgNcValue
	}
	if m.nc&msgNcOffset != 0 {
		m.Offset, m.AbsoluteOffset = 0, 0
	}
	if m.nc&msgNcTimestamp != 0 {
		m.Timestamp, m.WireTimestamp = 0, 0
	}
	if m.nc&msgNcKey != 0 {
		m.Key = nil
	}
	if m.nc&msgNcValue != 0 {
		m.Value = nil
	}
	loc := msgLoc{pos: pos, inner: -1}
	where := fmt.Sprintf("message at byte %d", pos)
	if m.nc&msgNcOffset == 0 {
		where = loc.format(m.Offset)
	}
	lost := fmt.Sprintf("%s: %d of its %d bytes not captured: CRC-32 not verified", where, h.lostIn(pos, pos+n), n)
	if m.nc&msgNcAttributes == 0 && m.Compression() != CompressionNone {
		d.note(NoteCRCNotVerified, "%s; %v-compressed inner messages not decoded", lost, m.Compression())
	} else {
		d.note(NoteCRCNotVerified, "%s", lost)
	}
	return m
}

// TraceGappedRecordSet traces a records field with holes, of size bytes
// of which raw holds the first len(raw) and gaps the ranges not captured
// (as DecodeGappedRecordSet takes them), as TraceRecordSet traces a whole
// one: TraceGappedRecordEntries with no done.
func TraceGappedRecordSet(raw []byte, size int, gaps []Gap, t Tracer, opts RecordDecodeOptions) {
	TraceGappedRecordEntries(raw, size, gaps, t, opts, nil)
}

// TraceGappedRecordEntries traces a records field with holes as
// TraceRecordEntries traces a whole one, with offsets into the field, so
// that the leaf fields cover [0, size) exactly once. Entries are framed as
// DecodeGappedRecordSet frames them, and one wholly captured is traced as
// in a whole field. Bytes not captured are reported as ranges named
// "(not captured)" whose value is a NotCapturedValue; captured bytes that
// cannot be decoded because of them (bytes skipped to resynchronise, the
// records after a gap) as "(not decoded)" with a TraceNote. In an entry
// with gaps, a header field not captured is begun and ended with a
// NotCapturedValue; its Crc is reported as a uint32, since it cannot be
// checked; no record is reported that was not wholly captured, nor are a
// compressed payload's records; and a batch's records are traced at once,
// never deferred (RecordsDeferrer). With no gaps it is TraceRecordEntries.
func TraceGappedRecordEntries(raw []byte, size int, gaps []Gap, t Tracer, opts RecordDecodeOptions, done func()) {
	if len(raw) > size {
		raw = raw[:size]
	}
	gs := normalizeGaps(gaps, len(raw), size)
	if len(gs) == 0 {
		TraceRecordEntries(raw, t, opts, done)
		return
	}
	rt := recordTracer{t: t, dec: recordDecoder{s: &RecordSet{}, budget: opts.Budget}, entryDone: done}
	if rt.dec.budget == nil {
		rt.dec.budget = NewRecordBudget(opts.MaxDecompressedBytes)
	}
	rt.st, _ = t.(SectionTracer)
	rt.gappedSet(&holes{b: raw, size: size, gaps: gs})
}

// Trace traces the records field with TraceGappedRecordEntries when it has
// Gaps, else with TraceRecordEntries, with offsets into the field.
func (r *Records) Trace(t Tracer, opts RecordDecodeOptions, done func()) {
	if r.Gaps != nil {
		TraceGappedRecordEntries(r.Raw, r.Len(), r.Gaps, t, opts, done)
		return
	}
	TraceRecordEntries(r.Raw, t, opts, done)
}

// pieces reports [from, to) of h as its gaps, "(not captured)" with a
// NotCapturedValue, and the captured bytes between them, named name with
// the TraceNote note.
func (rt *recordTracer) pieces(h *holes, from, to int, name, note string) {
	at := from
	for _, g := range h.gapsIn(from, to) {
		if s := from + g.Start; at < s {
			rt.leaf(name, at, s, TraceNote(note))
		}
		rt.leaf("(not captured)", from+g.Start, from+g.End, NotCapturedValue{})
		at = from + g.End
	}
	if at < to {
		rt.leaf(name, at, to, TraceNote(note))
	}
}

// gappedSet traces the entries of a records field with holes, charging
// the budget as decodeGappedSet does.
func (rt *recordTracer) gappedSet(h *holes) {
	done := func() {
		if rt.entryDone != nil {
			rt.entryDone()
		}
	}
	budget := rt.dec.budget
	chunk := 0 // legacy messages the chunk allocated last still holds
	crcBudget := resyncCRCFactor * h.size
	for pos, i := 0, 0; pos < h.size; {
		n, magic, kind, err := h.frameAt(pos)
		switch kind {
		case framePartial:
			rt.pieces(h, pos, h.size, "(partial entry)", fmt.Sprintf("an entry cut short: %d bytes (a Fetch response cuts its last batch at its size limit)", h.size-pos))
			done()
			return
		case frameBad:
			rt.pieces(h, pos, h.size, "(not decoded)", fmt.Sprintf("%d bytes left undecoded: %v", h.size-pos, err))
			done()
			return
		case frameTailLost:
			rt.pieces(h, pos, h.size, "(not decoded)", "fewer bytes than an entry header, some not captured")
			done()
			return
		case frameSizeLost:
			p, found, _ := h.resync(h.sizeGapEnd(pos), &crcBudget)
			note := "the size of the entry here was not captured: skipped to the next entry found by its CRC"
			if !found {
				note = "the size of the entry here was not captured, and no entry found by its CRC follows"
			}
			rt.pieces(h, pos, p, "(not decoded)", note)
			done()
			pos = p
			continue
		case frameMagicLost:
			rt.pieces(h, pos, pos+n, "(not decoded)", "an entry whose magic byte was not captured")
			done()
			pos += n
			continue
		}
		// frameWhole, frameHoled: decoded unless the budget is exhausted.
		var decoded bool
		if magic == 2 {
			decoded = !budget.exhausted && budget.charge(sizeEntry+sizeBatch)
		} else {
			if !budget.exhausted && chunk == 0 && budget.charge(maxMessageChunk*sizeMessage) {
				chunk = maxMessageChunk
			}
			if decoded = !budget.exhausted && budget.charge(sizeEntry); decoded {
				chunk--
			}
		}
		switch {
		case !decoded:
			rt.pieces(h, pos, pos+n, "(not decoded)", string(rt.budgetNote("the "+entryName(magic))))
		case kind == frameWhole && magic == 2:
			rt.batch(h.b, pos, n, i)
		case kind == frameWhole:
			rt.message(h.b, pos, n, i, nil)
		case magic == 2:
			rt.holedBatch(h, pos, n, i)
		default:
			rt.holedMessage(h, pos, n, i)
		}
		done()
		if decoded {
			i++
		}
		pos += n
	}
}

// holedBatch traces the v2 batch of n bytes at pos of h, which has bytes
// in a gap.
func (rt *recordTracer) holedBatch(h *holes, pos, n, idx int) {
	rt.t.BeginIndex(idx, pos)
	var hdr [recordBatchHeaderLen]byte
	copy(hdr[:], h.b[pos:min(pos+recordBatchHeaderLen, len(h.b))])
	b := rt.dec.batchHeader(hdr[:])
	b.Gaps = h.gapsIn(pos, pos+n)
	be := binary.BigEndian
	for k, f := range batchHeaderFields {
		start, end := pos+f.off, pos+f.off+f.len
		if !h.captured(start, end) {
			b.nc |= 1 << k
			rt.leaf(f.name, start, end, NotCapturedValue{})
			continue
		}
		var v any
		switch f.len {
		case 1:
			v = int8(hdr[f.off])
		case 2:
			v = int16(be.Uint16(hdr[f.off:]))
		case 4:
			v = int32(be.Uint32(hdr[f.off:]))
			if f.name == "Crc" {
				v = be.Uint32(hdr[f.off:])
			}
		case 8:
			v = int64(be.Uint64(hdr[f.off:]))
		}
		rt.leaf(f.name, start, end, v)
	}
	b.clearNotCaptured()
	from, to := pos+recordBatchHeaderLen, pos+n
	firstGap := pos + b.Gaps[0].Start
	if firstGap < from || b.Compression() != CompressionNone {
		b.RecordsNotCaptured = b.knownRecordCount()
	}
	if from < to {
		rt.t.Begin("Records", from)
		switch {
		case firstGap < from:
			rt.pieces(h, from, to, "(not decoded)", "records of a batch whose header was not all captured")
		case b.Compression() != CompressionNone:
			rt.pieces(h, from, to, "(not decoded)", fmt.Sprintf("%v-compressed records with bytes not captured", b.Compression()))
		default:
			// The records wholly captured before the first gap that
			// decode, as decodeHoledBatch decodes them.
			plan := rt.dec.planRecords(b, h.b[from:firstGap])
			rt.recordsIn(h.b, from, from+plan.end, b, recordsPlan{n: plan.n, end: plan.end}, nil)
			b.RecordsNotCaptured = max(0, b.RecordCount-int32(plan.n))
			if b.RecordCount < 0 {
				b.RecordsNotCaptured = -1
			}
			note := "records after bytes not captured"
			switch {
			case plan.budget != "":
				note = fmt.Sprintf("%s: %d of RecordCount %d records decoded", plan.budget, plan.n, b.RecordCount)
			case int64(plan.n) == int64(b.RecordCount):
				note = fmt.Sprintf("bytes after the %d records of RecordCount", b.RecordCount)
			case plan.err != nil && !errors.Is(plan.err, ErrTruncated):
				note = plan.err.Error()
			}
			rt.pieces(h, from+plan.end, to, "(not decoded)", note)
		}
		rt.t.End(to, nil)
	}
	rt.t.End(to, b)
}

// holedMessage traces the legacy message of n bytes at pos of h, which has
// bytes in a gap: its fields in order while what locates them was
// captured; a compressed value is not decompressed.
func (rt *recordTracer) holedMessage(h *holes, pos, n, idx int) {
	rt.t.BeginIndex(idx, pos)
	end := pos + n
	m := &LegacyMessage{Gaps: h.gapsIn(pos, end)}
	be := binary.BigEndian
	at := pos
	// fixed reports the field of size bytes at at, and reports whether it
	// was captured (then v holds its bytes).
	fixed := func(name string, size int, bit uint8, value func(b []byte) any) (b []byte, ok bool) {
		start := at
		at += size
		if !h.captured(start, at) {
			m.nc |= bit
			rt.leaf(name, start, at, NotCapturedValue{})
			return nil, false
		}
		b = h.b[start:at]
		rt.leaf(name, start, at, value(b))
		return b, true
	}
	if b, ok := fixed("Offset", 8, msgNcOffset, func(b []byte) any { return int64(be.Uint64(b)) }); ok {
		m.Offset = int64(be.Uint64(b))
		m.AbsoluteOffset = m.Offset
	}
	b, _ := fixed("MessageSize", 4, 0, func(b []byte) any { return int32(be.Uint32(b)) })
	m.MessageSize = int32(be.Uint32(b))
	if b, ok := fixed("Crc", 4, msgNcCrc, func(b []byte) any { return be.Uint32(b) }); ok {
		m.Crc = be.Uint32(b)
	}
	b, _ = fixed("Magic", 1, 0, func(b []byte) any { return int8(b[0]) })
	m.Magic = int8(b[0])
	_, attrs := fixed("Attributes", 1, msgNcAttributes, func(b []byte) any { return int8(b[0]) })
	if attrs {
		m.Attributes = int8(h.b[at-1])
	}
	if m.Magic >= 1 {
		if b, ok := fixed("Timestamp", 8, msgNcTimestamp, func(b []byte) any { return int64(be.Uint64(b)) }); ok {
			m.Timestamp = int64(be.Uint64(b))
			m.WireTimestamp = m.Timestamp
		}
	}
	// bytes32 reports an int32 length and the bytes it announces; ok is
	// false once the rest cannot be located.
	bytes32 := func(lenName, name string, bit uint8, compressed bool) bool {
		start := at
		if at+4 > end || !h.captured(at, at+4) {
			m.nc |= msgNcKey | msgNcValue
			rt.pieces(h, start, end, "(not decoded)", fmt.Sprintf("%s not captured", lenName))
			at = end
			return false
		}
		l := int32(be.Uint32(h.b[at:]))
		at += 4
		rt.leaf(lenName, start, at, l)
		if l < -1 || int(l) > end-at {
			m.nc |= msgNcKey | msgNcValue
			rt.pieces(h, at, end, "(not decoded)", fmt.Sprintf("%s %d with %d bytes left", lenName, l, end-at))
			at = end
			return false
		}
		if l <= 0 {
			return true
		}
		s := at
		at += int(l)
		var v any
		switch {
		case !h.captured(s, at):
			m.nc |= bit
			v = NotCapturedValue{}
		case compressed:
			v = Compression(m.Attributes & compressionMask)
		default:
			v = h.b[s:at]
		}
		rt.leaf(name, s, at, v)
		return true
	}
	if bytes32("KeyLength", "Key", msgNcKey, false) {
		bytes32("ValueLength", "Value", msgNcValue, attrs && m.Compression() != CompressionNone)
	}
	if at < end {
		rt.pieces(h, at, end, "(unread)", "after the message's value")
	}
	rt.t.End(end, m)
}
