package codec

import (
	"fmt"
	"hash/crc32"
	"strconv"
)

// This file reports the byte range of every field of a record set to a
// Tracer, for annotated hexdumps: what the generated decoders do for
// message bodies, one level further down, into record batches (magic 2),
// legacy message sets (magic 0 and 1) and their records. The framing of
// entries is splitEntry's, the decoder's; decompression is the decoder's
// too. Only the walk over the fields is this file's, because the decoder
// keeps values, not where they were.

// Checksum is the value reported for a Crc field: the CRC on the wire,
// the one computed over the bytes it covers, and whether they match.
type Checksum struct {
	Value    uint32
	Computed uint32
	Valid    bool
}

// TraceNote is the value reported for a range that holds no field: its
// name is in parentheses ("(partial entry)", "(not decoded)", "(unread)")
// and the note says why.
type TraceNote string

// SectionTracer is a Tracer that also follows bytes that are not in the
// traced buffer: the decompressed records of a compressed entry.
// TraceRecordSet decompresses only for a SectionTracer.
type SectionTracer interface {
	Tracer
	// BeginSection starts a section over data, the decompressed bytes
	// of the compressed payload whose field just ended; until the
	// matching EndSection, offsets are into data. err says why data is
	// shorter than the payload holds (a decompression error, the
	// budget), or is nil; data may then be empty.
	BeginSection(c Compression, data []byte, err error)
	EndSection()
}

// TraceRecordSet reports every field of the record set raw (the bytes of
// a records field) to t, with offsets into raw, so that the fields with no
// field inside them cover every byte of raw exactly once. What cannot be
// framed or read is reported as one range named in parentheses with a
// TraceNote value: "(partial entry)" for a trailing entry cut short (a
// Fetch response cuts its last batch at its size limit), "(not decoded)"
// for bytes that do not parse, "(unread)" for bytes after a record's or a
// message's fields, "(after the records)" for bytes after RecordCount
// records.
//
// Entries are reported by index (BeginIndex). A v2 batch holds BaseOffset,
// BatchLength, PartitionLeaderEpoch, Magic, Crc (a Checksum), Attributes,
// LastOffsetDelta, BaseTimestamp, MaxTimestamp, ProducerId, ProducerEpoch,
// BaseSequence, RecordCount and Records: the records by index, each with
// Length, Attributes, TimestampDelta, OffsetDelta, KeyLength, Key,
// ValueLength, Value and Headers ("(count)", then by index KeyLength,
// Key, ValueLength, Value). A legacy message holds Offset, MessageSize,
// Crc, Magic, Attributes, Timestamp (magic 1), KeyLength, Key, ValueLength
// and Value. Key and Value are not reported when null or empty (their
// length says so). Values are as in Tracer, plus Checksum and TraceNote;
// the End of a batch reports a *RecordBatch (header fields, without
// Records), of a record a *Record (with Offset and Timestamp computed), of
// a legacy message a *LegacyMessage (without Inner; the AbsoluteOffset of
// an inner message is completed once all its wrapper's are traced).
//
// A compressed payload (a batch's Records, a wrapper message's Value) is
// one field whose value is its Compression; when t is a SectionTracer, the
// payload is then decompressed and its records or inner messages reported
// inside a section. Decompressed bytes are charged to opts.Budget, or to a
// budget of opts.MaxDecompressedBytes of the call's own, as
// DecodeRecordSet charges them: share one budget among the record sets of
// a frame to bound what tracing the frame holds. Inner messages of a
// wrapper are not decompressed further: Kafka forbids nested compression.
//
// The trace reports as decoded what DecodeRecordSet decodes with the same
// budget, and charges the budget as it does, in the same order: a record
// that does not decode ends the records of its batch, as does the first
// that does not fit in the budget, and the entries after the budget ran
// out are not decoded; each such range is "(not decoded)" with a note. So
// the records reported are those RecordSet.Count counts, and a trace is
// bounded by the budget as decoding is.
//
// A RecordsDeferrer gets the records of each v2 batch as one range
// instead (DeferRecords), to trace them later with BatchRecords.Trace.
func TraceRecordSet(raw []byte, t Tracer, opts RecordDecodeOptions) {
	TraceRecordEntries(raw, t, opts, nil)
}

// TraceRecordEntries traces raw as TraceRecordSet does, calling done
// after each of its entries (a batch or a message, with all it holds) and
// after the range that ends the set early ("(partial entry)", "(not
// decoded)"), so that a tracer can let go of each entry's fields before
// the next is traced: a Fetch response of 50 000 records then needs the
// fields of one batch at a time, not of all.
func TraceRecordEntries(raw []byte, t Tracer, opts RecordDecodeOptions, done func()) {
	rt := recordTracer{t: t, dec: recordDecoder{s: &RecordSet{}, budget: opts.Budget}, entryDone: done}
	if rt.dec.budget == nil {
		rt.dec.budget = NewRecordBudget(opts.MaxDecompressedBytes)
	}
	rt.st, _ = t.(SectionTracer)
	rt.set(raw)
}

// RecordsDeferrer is a Tracer that takes the records of a v2 batch as one
// range, to trace them later, one at a time (BatchRecords.Trace): a batch
// may hold hundreds of thousands of records.
type RecordsDeferrer interface {
	Tracer
	// DeferRecords stands for the "Records" field of a batch, which
	// holds r's range (never empty); the batch's End follows.
	DeferRecords(r *BatchRecords)
}

// BatchRecords is the records of a v2 batch whose trace was deferred
// (RecordsDeferrer), framed and charged to the record decoding budget
// when the batch was traced, as the decoder frames and charges them: the
// records that Trace reports are those decoding the batch decodes.
type BatchRecords struct {
	buf      []byte // the traced buffer or a section's data
	from, to int    // the records field in buf
	batch    *RecordBatch
	plan     recordsPlan
}

// Range returns the byte range of the records field, in the traced
// buffer or the section's data.
func (r *BatchRecords) Range() (from, to int) { return r.from, r.to }

// Batch returns the batch (header fields, without Records).
func (r *BatchRecords) Batch() *RecordBatch { return r.batch }

// Count returns how many records Trace reports: those decoding decodes.
func (r *BatchRecords) Count() int { return r.plan.n }

// Trace traces the records as a record set's trace does inside the
// batch's "Records" field (the field itself is not reported), calling
// done after each record and after the range that ends them early.
func (r *BatchRecords) Trace(t Tracer, done func()) {
	rt := recordTracer{t: t}
	rt.recordsIn(r.buf, r.from, r.to, r.batch, r.plan, done)
}

// recordTracer walks one record set.
type recordTracer struct {
	t   Tracer
	st  SectionTracer // nil when t follows no sections
	dec recordDecoder // for its decompression and charges within the budget
	// entryDone, when set, is called after each entry of the outer set.
	entryDone func()
}

// leaf reports a field with nothing inside.
func (rt *recordTracer) leaf(name string, start, end int, v any) {
	rt.t.Begin(name, start)
	rt.t.End(end, v)
}

// The trace charges the record decoding budget exactly as decoding the
// set charges it, in the same order (the entries, each batch and chunk of
// legacy messages, every decompression, the records that decode, their
// headers and header keys), and reports as decoded only what decoding
// decodes: so that a view of the trace and the decoded set (JSON, counts)
// agree on every record, and the budget bounds both alike. What decoding
// skips is reported as "(not decoded)" with a note saying why.

// budgetNote is the note of a range the budget left undecoded.
func (rt *recordTracer) budgetNote(what string) TraceNote {
	return TraceNote(rt.dec.budget.exhaustedNote() + ": " + what + " not decoded")
}

// set traces the entries of a records field, as decodeSet decodes them.
func (rt *recordTracer) set(buf []byte) {
	budget := rt.dec.budget
	batches, messages, _ := countEntries(buf)
	if n := batches + messages; n > 0 {
		budget.charge(int64(n) * sizeEntry)
	}
	chunk := 0 // legacy messages the chunk allocated last still holds
	done := func() {
		if rt.entryDone != nil {
			rt.entryDone()
		}
	}
	for pos, i := 0, 0; pos < len(buf); {
		rest := buf[pos:]
		n, magic, partial, err := splitEntry(rest)
		switch {
		case partial:
			rt.leaf("(partial entry)", pos, len(buf), TraceNote(fmt.Sprintf("an entry cut short: %d bytes (a Fetch response cuts its last batch at its size limit)", len(rest))))
			done()
			return
		case err != nil:
			rt.leaf("(not decoded)", pos, len(buf), TraceNote(fmt.Sprintf("%d bytes left undecoded: %v", len(rest), err)))
			done()
			return
		}
		decoded := false
		if magic == 2 {
			decoded = !budget.exhausted && budget.charge(sizeBatch)
		} else {
			messages--
			if !budget.exhausted && chunk == 0 {
				if k := min(maxMessageChunk, messages+1); budget.charge(int64(k) * sizeMessage) {
					chunk = k
				}
			}
			if decoded = !budget.exhausted; decoded {
				chunk--
			}
		}
		switch {
		case !decoded:
			// Every entry after it is skipped too: one range for them.
			rt.skipped(buf, pos)
			done()
			return
		case magic == 2:
			rt.batch(buf, pos, n, i)
		default:
			rt.message(buf, pos, n, i, nil)
		}
		done()
		i++
		pos += n
	}
}

// skipped reports the entries of buf from pos on, which decoding skips
// once the budget is exhausted, as one range, followed by what ends the
// set early.
func (rt *recordTracer) skipped(buf []byte, pos int) {
	batches, messages, n := countEntries(buf[pos:])
	end := pos + n
	rt.leaf("(not decoded)", pos, end, rt.budgetNote(entryCount(batches, messages)))
	if end < len(buf) {
		rest := buf[end:]
		if _, _, partial, err := splitEntry(rest); partial {
			rt.leaf("(partial entry)", end, len(buf), TraceNote(fmt.Sprintf("an entry cut short: %d bytes (a Fetch response cuts its last batch at its size limit)", len(rest))))
		} else {
			rt.leaf("(not decoded)", end, len(buf), TraceNote(fmt.Sprintf("%d bytes left undecoded: %v", len(rest), err)))
		}
	}
}

// innerSet traces the inner messages of wrapper, decompressed into buf,
// as decodeInner decodes them: framed first, and only as many as fit in
// the budget.
func (rt *recordTracer) innerSet(buf []byte, wrapper *LegacyMessage) {
	framed, end := 0, 0
	for end < len(buf) {
		n, magic, partial, err := splitEntry(buf[end:])
		if partial || err != nil || magic == 2 {
			break
		}
		framed++
		end += n
	}
	budget := rt.dec.budget
	fit := int(min(int64(framed), budget.remaining()/sizeMessage))
	budget.used += int64(fit) * sizeMessage // fits
	if fit < framed {
		budget.exhausted = true
	}
	var msgs []*LegacyMessage // for their absolute offsets
	pos := 0
	for i := 0; i < fit; i++ {
		n, _, _, _ := splitEntry(buf[pos:]) // framed above
		m := rt.message(buf, pos, n, i, wrapper)
		if wrapper.Magic >= 1 {
			msgs = append(msgs, m)
		}
		pos += n
	}
	if fit < framed {
		rt.leaf("(not decoded)", pos, end, rt.budgetNote(fmt.Sprintf("%d of %d inner messages", framed-fit, framed)))
		pos = end
	}
	if pos < len(buf) {
		rest := buf[pos:]
		switch _, magic, partial, err := splitEntry(rest); {
		case partial:
			rt.leaf("(partial entry)", pos, len(buf), TraceNote(fmt.Sprintf("an entry cut short: %d bytes", len(rest))))
		case err != nil:
			rt.leaf("(not decoded)", pos, len(buf), TraceNote(fmt.Sprintf("%d bytes left undecoded: %v", len(rest), err)))
		case magic == 2:
			rt.leaf("(not decoded)", pos, len(buf), TraceNote("a v2 record batch inside a legacy message set"))
		}
	}
	if len(msgs) > 0 {
		// Magic-1 inner offsets are relative: the wrapper's Offset is
		// the last one's (see LegacyMessage).
		last := msgs[len(msgs)-1].Offset
		for _, m := range msgs {
			m.AbsoluteOffset = wrapper.Offset - (last - m.Offset)
		}
	}
}

// fieldReader reads the fields of one region of a buffer and reports
// them; after the first field that does not read, it reports the rest of
// the region as "(not decoded)" and reads nothing more.
type fieldReader struct {
	t   Tracer
	r   Reader
	end int
	bad bool
}

func newFieldReader(t Tracer, buf []byte, from, to int) *fieldReader {
	f := &fieldReader{t: t, end: to}
	f.r.Reset(buf[:to])
	f.r.Span(from)
	return f
}

// field reads one field with read and reports it as name; ok is false
// once a field failed.
func (f *fieldReader) field(name string, read func(r *Reader) any) (v any, ok bool) {
	if f.bad {
		return nil, false
	}
	start := f.r.Offset()
	v = read(&f.r)
	if f.r.Failed() {
		f.fail(start, f.r.Err())
		return nil, false
	}
	f.t.Begin(name, start)
	f.t.End(f.r.Offset(), v)
	return v, true
}

// fail reports the region from start on as not decoded.
func (f *fieldReader) fail(start int, err error) {
	f.bad = true
	f.t.Begin("(not decoded)", start)
	f.t.End(f.end, TraceNote(err.Error()))
}

// rest reports the bytes left in the region as name, if any.
func (f *fieldReader) rest(name, why string) {
	if f.bad || f.r.Offset() >= f.end {
		return
	}
	n := f.end - f.r.Offset()
	f.t.Begin(name, f.r.Offset())
	f.t.End(f.end, TraceNote(fmt.Sprintf("%d bytes %s", n, why)))
}

func readInt8(r *Reader) any    { return r.Int8() }
func readInt16(r *Reader) any   { return r.Int16() }
func readInt32(r *Reader) any   { return r.Int32() }
func readInt64(r *Reader) any   { return r.Int64() }
func readVarint(r *Reader) any  { return r.Varint() }
func readVarlong(r *Reader) any { return r.Varlong() }

// batch traces the v2 batch of n bytes at buf[pos:].
func (rt *recordTracer) batch(buf []byte, pos, n, idx int) {
	entry := buf[pos : pos+n]
	rt.t.BeginIndex(idx, pos)
	f := newFieldReader(rt.t, buf, pos, pos+n)
	b := &RecordBatch{}
	// The entry is framed, so its 61-byte header reads.
	v, _ := f.field("BaseOffset", readInt64)
	b.BaseOffset = v.(int64)
	v, _ = f.field("BatchLength", readInt32)
	b.BatchLength = v.(int32)
	v, _ = f.field("PartitionLeaderEpoch", readInt32)
	b.PartitionLeaderEpoch = v.(int32)
	v, _ = f.field("Magic", readInt8)
	b.Magic = v.(int8)
	computed := crc32.Checksum(entry[batchCrcStart:], castagnoli)
	v, _ = f.field("Crc", func(r *Reader) any {
		c := r.Uint32()
		return Checksum{Value: c, Computed: computed, Valid: c == computed}
	})
	b.Crc, b.CrcValid = v.(Checksum).Value, v.(Checksum).Valid
	v, _ = f.field("Attributes", readInt16)
	b.Attributes = v.(int16)
	v, _ = f.field("LastOffsetDelta", readInt32)
	b.LastOffsetDelta = v.(int32)
	v, _ = f.field("BaseTimestamp", readInt64)
	b.BaseTimestamp = v.(int64)
	v, _ = f.field("MaxTimestamp", readInt64)
	b.MaxTimestamp = v.(int64)
	v, _ = f.field("ProducerId", readInt64)
	b.ProducerId = v.(int64)
	v, _ = f.field("ProducerEpoch", readInt16)
	b.ProducerEpoch = v.(int16)
	v, _ = f.field("BaseSequence", readInt32)
	b.BaseSequence = v.(int32)
	v, _ = f.field("RecordCount", readInt32)
	b.RecordCount = v.(int32)

	from, to := pos+recordBatchHeaderLen, pos+n
	if c := b.Compression(); c != CompressionNone && to > from {
		rt.leaf("Records", from, to, c)
		if rt.st != nil {
			data, err := rt.decompress(c, buf[from:to], false)
			rt.st.BeginSection(c, data, err)
			rt.records(data, 0, len(data), b)
			rt.st.EndSection()
		}
	} else if to > from {
		rt.records(buf, from, to, b)
	}
	rt.t.End(pos+n, b)
}

// decompress decompresses a payload within what is left of the budget,
// as the decoder does.
func (rt *recordTracer) decompress(c Compression, src []byte, brokenLZ4Header bool) ([]byte, error) {
	return rt.dec.decompress(c, src, brokenLZ4Header)
}

// recordsPlan is what decoding the records of a batch decodes, found as
// decodeRecords finds it and with the budget charged as it charges it:
// the first n records, which end at end, and why the bytes after them are
// not decoded when RecordCount was not reached.
type recordsPlan struct {
	n, end int
	err    error  // the record after them does not decode
	budget string // the record after them does not fit in the budget: the note that says so
}

// planRecords decodes nothing: it frames and checks the records of b in
// data (decodeRecords' first pass, checkRecords), and charges the budget
// what decoding them charges, header keys included.
func (d *recordDecoder) planRecords(b *RecordBatch, data []byte) recordsPlan {
	n, headers, cost, st := d.checkRecords(b, data)
	d.budget.used += cost // fits: cost <= what was left
	if st.budget {
		d.budget.exhausted = true
	}
	p := recordsPlan{n: n, end: st.end, err: st.err}
	if st.budget {
		p.budget = d.budget.exhaustedNote()
	}
	if headers > 0 {
		if k, end, ok := d.chargeHeaderKeys(data, n); !ok {
			p = recordsPlan{n: k, end: end, budget: d.budget.exhaustedNote()}
		}
	}
	return p
}

// chargeHeaderKeys charges the header keys of the first n records of data
// (which decode) as headerDecoder.key charges them in decodeRecords'
// second pass, and reports whether they all fit; if not, k records fit,
// ending at end.
func (d *recordDecoder) chargeHeaderKeys(data []byte, n int) (k, end int, ok bool) {
	var recent [8][]byte // as headerDecoder.keys: round robin, equal by content
	next := 0
	var r Reader
	r.Reset(data)
	for k = 0; k < n; k++ {
		end = r.Offset()
		body := r.Span(int(r.Varint()))
		var b Reader
		b.Reset(body)
		b.Int8()
		b.Varlong()
		b.Varint()
		b.VarintBytes()
		b.VarintBytes()
		for range int(b.Varint()) {
			key := b.Span(int(b.Varint()))
			b.VarintBytes()
			hit := false
			for _, x := range recent {
				if string(x) == string(key) {
					hit = true
					break
				}
			}
			if hit {
				continue
			}
			if !d.budget.charge(int64(len(key)+7) &^ 7) {
				return k, end, false
			}
			recent[next] = key
			next = (next + 1) % len(recent)
		}
	}
	return n, r.Offset(), true
}

// records traces the records of batch b in buf[from:to]: those decoding
// decodes (see planRecords).
func (rt *recordTracer) records(buf []byte, from, to int, b *RecordBatch) {
	plan := rt.dec.planRecords(b, buf[from:to])
	if d, ok := rt.t.(RecordsDeferrer); ok && from < to {
		d.DeferRecords(&BatchRecords{buf: buf, from: from, to: to, batch: b, plan: plan})
		return
	}
	rt.t.Begin("Records", from)
	rt.recordsIn(buf, from, to, b, plan, nil)
	rt.t.End(to, nil)
}

// recordsIn traces what records traces inside its "Records" field: the
// plan's records, then the bytes after them, calling done (if set) after
// each record and after the trailing range.
func (rt *recordTracer) recordsIn(buf []byte, from, to int, b *RecordBatch, plan recordsPlan, done func()) {
	if done == nil {
		done = func() {}
	}
	logAppend := b.TimestampType() == TimestampLogAppendTime
	pos := from
	for i := range plan.n {
		// The record decodes: its fields read.
		rt.t.BeginIndex(i, pos)
		f := newFieldReader(rt.t, buf, pos, to)
		v, _ := f.field("Length", readVarint)
		length := v.(int32)
		end := f.r.Offset() + int(length)
		rec := &Record{Length: length}
		rt.recordBody(buf, f.r.Offset(), end, rec)
		rec.Offset = b.BaseOffset + int64(rec.OffsetDelta)
		rec.Timestamp = b.BaseTimestamp + rec.TimestampDelta
		if logAppend {
			rec.Timestamp = b.MaxTimestamp
		}
		rt.t.End(end, rec)
		done()
		pos = end
	}
	if pos >= to {
		return
	}
	switch {
	case plan.budget != "":
		rt.leaf("(not decoded)", pos, to, TraceNote(fmt.Sprintf("%s: %d of RecordCount %d records decoded, %s not decoded", plan.budget, plan.n, b.RecordCount, plural(to-pos, "byte"))))
	case plan.err != nil:
		rt.leaf("(not decoded)", pos, to, TraceNote(fmt.Sprintf("%v; %s not decoded", plan.err, plural(to-pos, "byte"))))
	default:
		rt.leaf("(after the records)", pos, to, TraceNote(fmt.Sprintf("%d bytes after the %d records of RecordCount", to-pos, b.RecordCount)))
	}
	done()
}

// plural writes "1 byte", "2 bytes".
func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}

// recordBody traces the fields of a record after its Length, in
// buf[from:to], into rec.
func (rt *recordTracer) recordBody(buf []byte, from, to int, rec *Record) {
	f := newFieldReader(rt.t, buf, from, to)
	defer f.rest("(unread)", "after the record's fields")
	if v, ok := f.field("Attributes", readInt8); ok {
		rec.Attributes = v.(int8)
	}
	if v, ok := f.field("TimestampDelta", readVarlong); ok {
		rec.TimestampDelta = v.(int64)
	}
	if v, ok := f.field("OffsetDelta", readVarint); ok {
		rec.OffsetDelta = v.(int32)
	}
	rec.Key = f.varintBytes("KeyLength", "Key", false)
	rec.Value = f.varintBytes("ValueLength", "Value", false)
	if f.bad {
		return
	}
	rt.t.Begin("Headers", f.r.Offset())
	if v, ok := f.field("(count)", readVarint); ok {
		// A header takes at least two bytes (two lengths), so a count
		// above half the bytes left is a lie, refused before allocating.
		nh := v.(int32)
		if nh < 0 || int(nh) > (f.end-f.r.Offset())/2 {
			f.fail(f.r.Offset(), fmt.Errorf("header count %d with %d bytes left in the record", nh, f.end-f.r.Offset()))
		} else if nh > 0 {
			rec.Headers = make([]RecordHeader, 0, nh)
		}
		for k := 0; k < int(nh) && !f.bad; k++ {
			rt.t.BeginIndex(k, f.r.Offset())
			key := f.varintBytes("KeyLength", "Key", true)
			value := f.varintBytes("ValueLength", "Value", false)
			rt.t.End(f.offset(), nil)
			rec.Headers = append(rec.Headers, RecordHeader{Key: string(key), Value: value})
		}
	}
	rt.t.End(f.offset(), nil)
}

// offset is where the next field starts: the region's end after a
// failure, which was reported up to it.
func (f *fieldReader) offset() int {
	if f.bad {
		return f.end
	}
	return f.r.Offset()
}

// varintBytes reads a varint length named lenName and the bytes it
// announces, named name (not reported when null or empty), reported as a
// string when text (a header key).
func (f *fieldReader) varintBytes(lenName, name string, text bool) []byte {
	v, ok := f.field(lenName, readVarint)
	if !ok {
		return nil
	}
	n := v.(int32)
	if n < -1 || int(n) > f.end-f.r.Offset() {
		f.fail(f.r.Offset(), fmt.Errorf("%s %d with %d bytes left", lenName, n, f.end-f.r.Offset()))
		return nil
	}
	if n == -1 {
		return nil
	}
	if n == 0 {
		return []byte{}
	}
	start := f.r.Offset()
	b := f.r.Span(int(n)) // fits: checked above
	var value any = b
	if text {
		value = string(b)
	}
	f.t.Begin(name, start)
	f.t.End(f.r.Offset(), value)
	return b
}

// message traces the legacy message of n bytes at buf[pos:]; wrapper, when
// not nil, is the wrapper it is inside (it is not decompressed then, and
// takes the wrapper's time under LogAppendTime, as decodeInner does).
func (rt *recordTracer) message(buf []byte, pos, n, idx int, wrapper *LegacyMessage) *LegacyMessage {
	inner := wrapper != nil
	entry := buf[pos : pos+n]
	rt.t.BeginIndex(idx, pos)
	f := newFieldReader(rt.t, buf, pos, pos+n)
	m := &LegacyMessage{}
	// The entry is framed, so its 18-byte header reads.
	v, _ := f.field("Offset", readInt64)
	m.Offset = v.(int64)
	m.AbsoluteOffset = m.Offset
	v, _ = f.field("MessageSize", readInt32)
	m.MessageSize = v.(int32)
	computed := crc32.ChecksumIEEE(entry[entryMagicAt:])
	v, _ = f.field("Crc", func(r *Reader) any {
		c := r.Uint32()
		return Checksum{Value: c, Computed: computed, Valid: c == computed}
	})
	m.Crc, m.CrcValid = v.(Checksum).Value, v.(Checksum).Valid
	v, _ = f.field("Magic", readInt8)
	m.Magic = v.(int8)
	v, _ = f.field("Attributes", readInt8)
	m.Attributes = v.(int8)
	if m.Magic >= 1 {
		if ts, ok := f.field("Timestamp", readInt64); ok {
			m.Timestamp = ts.(int64)
			m.WireTimestamp = m.Timestamp
			if inner && wrapper.Magic >= 1 && wrapper.TimestampType() == TimestampLogAppendTime {
				// Kafka's LegacyRecord: the wrapper's time and type.
				m.Timestamp = wrapper.Timestamp
				m.wrapperTime = true
			}
		}
	}
	m.Key = f.bytes32("KeyLength", "Key")
	c := m.Compression()
	decompressed := false
	if c == CompressionNone || inner {
		m.Value = f.bytes32("ValueLength", "Value")
	} else if vl, ok := f.field("ValueLength", readInt32); ok {
		// A wrapper: its value is the compressed inner message set.
		vn := vl.(int32)
		switch {
		case vn < -1 || int(vn) > f.end-f.r.Offset():
			f.fail(f.r.Offset(), fmt.Errorf("ValueLength %d with %d bytes left", vn, f.end-f.r.Offset()))
		case vn > 0:
			start := f.r.Offset()
			m.Value = f.r.Span(int(vn))
			rt.leaf("Value", start, f.r.Offset(), c)
			if rt.st != nil {
				// Magic-0 LZ4 frames carry Kafka's wrong header
				// checksum (KAFKA-3160), as the decoder accepts.
				data, err := rt.decompress(c, m.Value, m.Magic == 0)
				decompressed = true
				rt.st.BeginSection(c, data, err)
				rt.innerSet(data, m)
				rt.st.EndSection()
			}
		}
	}
	if c != CompressionNone && !inner && !decompressed && rt.st != nil {
		// The decoder decompresses a wrapper's value whatever it is
		// (nothing, here): the same charge to the budget.
		rt.decompress(c, nil, m.Magic == 0)
	}
	f.rest("(unread)", "after the message's value")
	rt.t.End(pos+n, m)
	return m
}

// bytes32 reads an int32 length named lenName and the bytes it announces,
// named name (not reported when null or empty).
func (f *fieldReader) bytes32(lenName, name string) []byte {
	v, ok := f.field(lenName, readInt32)
	if !ok {
		return nil
	}
	n := v.(int32)
	if n < -1 || int(n) > f.end-f.r.Offset() {
		f.fail(f.r.Offset(), fmt.Errorf("%s %d with %d bytes left", lenName, n, f.end-f.r.Offset()))
		return nil
	}
	if n <= 0 {
		if n == 0 {
			return []byte{}
		}
		return nil
	}
	start := f.r.Offset()
	b := f.r.Span(int(n))
	f.t.Begin(name, start)
	f.t.End(f.r.Offset(), b)
	return b
}
