package codec

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// LegacyMessage is one entry of a message set (Kafka's LegacyRecord): magic
// 0 (Kafka 0.8 and 0.9) or magic 1 (Kafka 0.10, which added the timestamp,
// KIP-32). On the wire, big-endian:
//
//	Offset      int64   for a compressed wrapper: the offset of its last
//	                    inner message
//	MessageSize int32   bytes after this field
//	Crc         uint32  CRC-32 (IEEE) of Magic to the end
//	Magic       int8    0 or 1
//	Attributes  int8    bits 0-2 codec; bit 3 timestamp type (magic 1)
//	Timestamp   int64   ms since the epoch; magic 1 only
//	Key         int32 length (-1 null) + bytes
//	Value       int32 length (-1 null) + bytes; for a compressed wrapper,
//	            the compressed message set of its inner messages
//
// Inner messages of a wrapper carry, for magic 1, offsets relative to the
// first (0, 1, ...): inner i is at wrapper.Offset - (last.Offset -
// inner[i].Offset). For magic 0 they are absolute.
type LegacyMessage struct {
	Offset int64 // as on the wire
	// AbsoluteOffset is the offset in the partition: Offset, except for
	// the inner messages of a magic-1 wrapper (decode only).
	AbsoluteOffset int64
	MessageSize    int32
	Crc            uint32
	CrcValid       bool // Crc matched the bytes (decode only; meaningless unless CrcChecked)
	Magic          int8
	Attributes     int8
	// Timestamp (magic 1 only) is the message's timestamp as Kafka
	// reports it: as on the wire, except for the inner messages of a
	// wrapper whose timestamp type is LogAppendTime, which take the
	// wrapper's Timestamp (decode only; see WireTimestamp).
	Timestamp int64
	// WireTimestamp is the timestamp on the wire (magic 1, decode only).
	// It differs from Timestamp only for the inner messages of a
	// LogAppendTime wrapper: the broker sets the wrapper's timestamp when
	// it appends and leaves the inner messages as the producer wrote them,
	// so Kafka's LegacyRecord reports the wrapper's timestamp and
	// timestamp type for each of them, and so do Timestamp and
	// TimestampType. AppendMessageSet writes Timestamp.
	WireTimestamp int64
	Key           []byte // nil when null
	Value         []byte // nil when null
	// Inner holds the decoded inner messages of a compressed wrapper.
	// Kafka forbids compressed inner messages; they are kept undecoded.
	Inner []LegacyMessage

	// Gaps lists the byte ranges of the message (relative to its first
	// byte) that the capture did not hold, nil when it holds them all
	// (decode only; see DecodeGappedRecordSet). A message with gaps has
	// fields not captured (Captured says which; they hold zero), a CRC
	// that cannot be verified (CrcValid is false and means nothing), no
	// Inner messages, and is not counted as a record.
	Gaps []Gap

	// wrapperTime reports that Timestamp and the timestamp type are the
	// wrapper's (an inner message of a LogAppendTime wrapper).
	wrapperTime bool

	nc uint8 // fields not captured: msgNc* bits
}

// messageTimestampTypeBit is attribute bit 3, meaningful for magic 1.
const messageTimestampTypeBit = 1 << 3

// Compression returns the codec of the value (attribute bits 0-2).
func (m *LegacyMessage) Compression() Compression {
	return Compression(m.Attributes & compressionMask)
}

// TimestampType returns attribute bit 3, or LogAppendTime for the inner
// messages of a LogAppendTime wrapper (see WireTimestamp); magic 0 has no
// timestamp and reports CreateTime.
func (m *LegacyMessage) TimestampType() TimestampType {
	if m.Magic >= 1 && (m.wrapperTime || m.Attributes&messageTimestampTypeBit != 0) {
		return TimestampLogAppendTime
	}
	return TimestampCreateTime
}

// legacyHeaderLen is the size of a message up to and including Attributes.
const legacyHeaderLen = 18

// msgLoc locates a message for notes. It is formatted only when a note is
// written, so that clean messages cost no formatting.
type msgLoc struct {
	pos     int    // byte of the message in its set
	inner   int    // index in the wrapper's inner set; -1 at top level
	wrapper string // the wrapper's location, for inner messages
}

func (l msgLoc) format(offset int64) string {
	if l.inner < 0 {
		return fmt.Sprintf("message at byte %d (Offset %d)", l.pos, offset)
	}
	return fmt.Sprintf("%s: inner message %d at byte %d (Offset %d)", l.wrapper, l.inner, l.pos, offset)
}

// decodeMessage decodes the top-level legacy entry found at byte pos of the
// set and, for a compressed wrapper, its inner messages.
func (d *recordDecoder) decodeMessage(entry []byte, pos int) LegacyMessage {
	loc := msgLoc{pos: pos, inner: -1}
	m := d.decodeMessageFields(entry, loc)
	c := m.Compression()
	if c == CompressionNone {
		return m
	}
	where := loc.format(m.Offset)
	if c == CompressionZstd {
		// Kafka answers UNSUPPORTED_COMPRESSION_TYPE; decode it anyway.
		d.note(NoteRecords, "%s: zstd in a magic %d message; Kafka allows zstd only in v2 batches", where, m.Magic)
	}
	// Magic-0 LZ4 frames carry Kafka's wrong header checksum (KAFKA-3160).
	data, err := d.decompress(c, m.Value, m.Magic == 0)
	if err != nil {
		d.noteFor(err)("%s: %v; inner messages decoded from the %d bytes recovered", where, err, len(data))
	}
	m.Inner = d.decodeInner(&m, data, where)
	return m
}

// decodeMessageFields decodes one message entry without looking inside a
// compressed value.
func (d *recordDecoder) decodeMessageFields(entry []byte, loc msgLoc) LegacyMessage {
	be := binary.BigEndian
	m := LegacyMessage{
		Offset:      int64(be.Uint64(entry)),
		MessageSize: int32(be.Uint32(entry[8:])),
		Crc:         be.Uint32(entry[12:]),
		Magic:       int8(entry[16]),
		Attributes:  int8(entry[17]),
	}
	m.AbsoluteOffset = m.Offset
	if crc := crc32.ChecksumIEEE(entry[entryMagicAt:]); crc == m.Crc {
		m.CrcValid = true
	} else if d.listing() {
		d.note(NoteCRCMismatch, "%s: CRC-32 mismatch: 0x%08x on the wire, 0x%08x computed", loc.format(m.Offset), m.Crc, crc)
	}
	var r Reader
	r.Reset(entry[legacyHeaderLen:])
	if m.Magic >= 1 {
		m.Timestamp = r.Int64()
		m.WireTimestamp = m.Timestamp
	}
	m.Key = r.NullableBytes()
	m.Value = r.NullableBytes()
	switch {
	case r.Failed() && d.listing():
		d.note(NoteRecords, "%s: %v", loc.format(m.Offset), r.Err())
	case !r.Failed() && r.Remaining() > 0 && d.listing():
		d.note(NoteRecords, "%s: %d bytes after the value", loc.format(m.Offset), r.Remaining())
	}
	return m
}

// decodeInner decodes the inner message set of wrapper w (located by
// where), one level deep only: a compressed inner message is noted and
// kept undecoded. It frames the messages first, to allocate them at once,
// and only as many as fit in the budget.
func (d *recordDecoder) decodeInner(w *LegacyMessage, data []byte, where string) []LegacyMessage {
	framed, end := 0, 0
	for end < len(data) {
		n, magic, partial, err := splitEntry(data[end:])
		if partial || err != nil || magic == 2 {
			break
		}
		framed++
		end += n
	}
	fit := int(min(int64(framed), d.budget.remaining()/sizeMessage))
	d.budget.used += int64(fit) * sizeMessage // fits
	if fit < framed {
		d.budget.exhausted = true
	}
	var inner []LegacyMessage
	if fit > 0 {
		inner = make([]LegacyMessage, 0, fit)
	}
	pos := 0
	for len(inner) < fit {
		rest := data[pos:]
		n, _, _, _ := splitEntry(rest) // framed above
		loc := msgLoc{pos: pos, inner: len(inner), wrapper: where}
		m := d.decodeMessageFields(rest[:n], loc)
		if m.Magic != w.Magic && d.listing() {
			d.note(NoteRecords, "%s: magic %d inside a magic %d wrapper", loc.format(m.Offset), m.Magic, w.Magic)
		}
		if m.Compression() != CompressionNone && d.listing() {
			d.note(NoteRecords, "%s: nested %v compression, which Kafka forbids; not decompressed", loc.format(m.Offset), m.Compression())
		}
		inner = append(inner, m)
		pos += n
	}
	switch {
	case fit < framed:
		d.noteAlways(NoteDecodeBudget, "%s: %s: %d of %d inner messages decoded", where, d.budget.exhaustedNote(), fit, framed)
	case end < len(data):
		// What stopped the framing.
		rest := data[end:]
		_, magic, partial, err := splitEntry(rest)
		switch {
		case partial:
			err = fmt.Errorf("truncated (%d bytes)", len(rest))
		case err == nil && magic == 2:
			err = fmt.Errorf("a v2 record batch")
		}
		d.note(NoteRecords, "%s: inner message %d at byte %d: %v; %d bytes left undecoded", where, framed, end, err, len(rest))
	}
	if w.Magic >= 1 && len(inner) > 0 {
		last := inner[len(inner)-1].Offset
		logAppend := w.TimestampType() == TimestampLogAppendTime
		for i := range inner {
			in := &inner[i]
			in.AbsoluteOffset = w.Offset - (last - in.Offset)
			if logAppend && in.Magic >= 1 {
				// Kafka's LegacyRecord: the wrapper's time and type.
				in.Timestamp = w.Timestamp
				in.wrapperTime = true
			}
		}
	}
	return inner
}

// AppendMessageSet appends msgs as a message set of the given magic (0 or
// 1; it panics otherwise) and returns the extended slice. Each message is
// written from its Offset, Attributes (codec bits cleared), Timestamp
// (magic 1), Key and Value; MessageSize and Crc are computed, Magic is the
// argument.
//
// With c other than CompressionNone, msgs become the inner messages of one
// wrapper message, as producers write it: inner offsets as given (0, 1, ...
// relative for magic 1), wrapper Offset the last inner Offset, a null key,
// Timestamp the largest inner timestamp and the timestamp type of the last
// inner message. For magic 0 and LZ4 the frame gets the header checksum
// Kafka's magic-0 readers expect (KAFKA-3160, KIP-57). An empty msgs
// appends nothing. It panics if c is not valid (Compression.Valid).
func AppendMessageSet(dst []byte, magic int8, c Compression, msgs []LegacyMessage) []byte {
	if magic != 0 && magic != 1 {
		panic(fmt.Sprintf("codec: AppendMessageSet: magic %d, want 0 or 1", magic))
	}
	if !c.Valid() {
		panic(fmt.Sprintf("codec: AppendMessageSet: invalid compression codec %d", int8(c)))
	}
	if c == CompressionNone {
		for i := range msgs {
			dst = appendMessage(dst, magic, &msgs[i], msgs[i].Attributes&^compressionMask, msgs[i].Value)
		}
		return dst
	}
	if len(msgs) == 0 {
		return dst
	}
	bp, _ := recordScratch.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	raw := (*bp)[:0]
	for i := range msgs {
		raw = appendMessage(raw, magic, &msgs[i], msgs[i].Attributes&^compressionMask, msgs[i].Value)
	}
	last := &msgs[len(msgs)-1]
	wrapper := LegacyMessage{Offset: last.Offset, Timestamp: last.Timestamp}
	for i := range msgs {
		wrapper.Timestamp = max(wrapper.Timestamp, msgs[i].Timestamp)
	}
	attrs := int8(c)
	if magic >= 1 {
		attrs |= last.Attributes & messageTimestampTypeBit
	}
	// Write the wrapper with an empty value, then compress straight into
	// dst and fix the lengths and the CRC.
	start := len(dst)
	dst = appendMessage(dst, magic, &wrapper, attrs, []byte{})
	valueAt := len(dst)
	var err error
	dst, err = Compress(c, dst, raw)
	if err != nil {
		panic(fmt.Sprintf("codec: AppendMessageSet: %v", err))
	}
	if cap(raw) <= maxPooledScratch {
		*bp = raw
		recordScratch.Put(bp)
	}
	if c == CompressionLZ4 && magic == 0 {
		breakLZ4HeaderChecksum(dst[valueAt:])
	}
	binary.BigEndian.PutUint32(dst[valueAt-4:], uint32(len(dst)-valueAt))
	binary.BigEndian.PutUint32(dst[start+8:], uint32(len(dst)-start-entryHeaderLen))
	binary.BigEndian.PutUint32(dst[start+12:], crc32.ChecksumIEEE(dst[start+entryMagicAt:]))
	return dst
}

// appendMessage appends one message from m's Offset, Timestamp and Key and
// the given attributes and value.
func appendMessage(dst []byte, magic int8, m *LegacyMessage, attrs int8, value []byte) []byte {
	start := len(dst)
	dst = AppendInt64(dst, m.Offset)
	dst = AppendInt32(dst, 0)  // MessageSize, set below
	dst = AppendUint32(dst, 0) // Crc, set below
	dst = AppendInt8(dst, magic)
	dst = AppendInt8(dst, attrs)
	if magic >= 1 {
		dst = AppendInt64(dst, m.Timestamp)
	}
	dst = AppendNullableBytes(dst, m.Key)
	dst = AppendNullableBytes(dst, value)
	binary.BigEndian.PutUint32(dst[start+8:], uint32(len(dst)-start-entryHeaderLen))
	binary.BigEndian.PutUint32(dst[start+12:], crc32.ChecksumIEEE(dst[start+entryMagicAt:]))
	return dst
}

// breakLZ4HeaderChecksum rewrites the header checksum of the LZ4 frame at
// the start of frame the way Kafka's magic-0 writers computed it: over the
// magic number too (KAFKA-3160).
func breakLZ4HeaderChecksum(frame []byte) {
	if h, ok := parseLZ4Header(frame); ok {
		frame[h.len-1] = byte(xxh32Short(frame[:h.len-1]) >> 8)
	}
}

// writeJSON writes the message as
//
//	{"Offset", "AbsoluteOffset" (inner messages only), "MessageSize",
//	 "Crc", "CrcValid", "Magic", "Attributes", "Compression",
//	 "TimestampType" and "Timestamp" (magic 1), "WireTimestamp" (inner
//	 messages of a LogAppendTime wrapper only), "Key",
//	 "Value" (not for a top-level compressed wrapper),
//	 "Messages": [inner messages] (only for a top-level compressed wrapper)}
//
// with the key and value as JSONWriter byte strings. A compressed inner
// message, which is not decompressed, shows its compressed Value.
func (m *LegacyMessage) writeJSON(w *JSONWriter, inner bool) {
	if m.Gaps != nil {
		m.writeHoledJSON(w)
		return
	}
	w.BeginObject()
	w.Key("Offset")
	w.Int(m.Offset)
	if inner {
		w.Key("AbsoluteOffset")
		w.Int(m.AbsoluteOffset)
	}
	w.Key("MessageSize")
	w.Int(int64(m.MessageSize))
	w.Key("Crc")
	w.Uint(uint64(m.Crc))
	w.Key("CrcValid")
	w.Bool(m.CrcValid)
	w.Key("Magic")
	w.Int(int64(m.Magic))
	w.Key("Attributes")
	w.Int(int64(m.Attributes))
	w.Key("Compression")
	w.String(m.Compression().String())
	if m.Magic >= 1 {
		w.Key("TimestampType")
		w.String(m.TimestampType().String())
		w.Key("Timestamp")
		w.Int(m.Timestamp)
		if m.wrapperTime {
			w.Key("WireTimestamp")
			w.Int(m.WireTimestamp)
		}
	}
	w.Key("Key")
	w.ByteString(m.Key)
	if inner || m.Compression() == CompressionNone {
		w.Key("Value")
		w.ByteString(m.Value)
	} else {
		w.Key("Messages")
		w.BeginArray()
		for i := range m.Inner {
			m.Inner[i].writeJSON(w, true)
		}
		w.EndArray()
	}
	w.EndObject()
}

// writeHoledJSON is writeJSON for a (top-level) message with gaps: the
// fields captured, no CrcValid, no inner messages, and "NotCaptured":
// [{"start", "end"}] (relative to the message).
func (m *LegacyMessage) writeHoledJSON(w *JSONWriter) {
	w.BeginObject()
	if m.Captured("Offset") {
		w.Key("Offset")
		w.Int(m.Offset)
	}
	w.Key("MessageSize")
	w.Int(int64(m.MessageSize))
	if m.Captured("Crc") {
		w.Key("Crc")
		w.Uint(uint64(m.Crc))
	}
	w.Key("Magic")
	w.Int(int64(m.Magic))
	attrs := m.Captured("Attributes")
	if attrs {
		w.Key("Attributes")
		w.Int(int64(m.Attributes))
		w.Key("Compression")
		w.String(m.Compression().String())
	}
	if m.Magic >= 1 {
		if attrs {
			w.Key("TimestampType")
			w.String(m.TimestampType().String())
		}
		if m.Captured("Timestamp") {
			w.Key("Timestamp")
			w.Int(m.Timestamp)
		}
	}
	if m.Captured("Key") {
		w.Key("Key")
		w.ByteString(m.Key)
	}
	if m.Captured("Value") && attrs && m.Compression() == CompressionNone {
		w.Key("Value")
		w.ByteString(m.Value)
	}
	w.Key("NotCaptured")
	writeGapsJSON(w, m.Gaps)
	w.EndObject()
}
