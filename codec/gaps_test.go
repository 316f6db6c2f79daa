package codec

// Unit tests of the gapped Reader (NewGappedReader): every primitive
// inside, across and at the edges of gaps, the stop in the frame's last
// gap, lengths lost, string and bytes content stepped over, varints, and
// lengths checked against the frame's size rather than the bytes held.

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// gapped returns a gapped Reader over frame with the bytes in gaps
// overwritten (their content must not matter) and the bytes from cut on
// not held at all (cut < 0: all held).
func gappedOver(frame []byte, cut int, gaps ...Gap) *Reader {
	b := append([]byte(nil), frame...)
	for _, g := range gaps {
		for i := g.Start; i < g.End && i < len(b); i++ {
			b[i] = 0xa5 // meaningless
		}
	}
	if cut >= 0 {
		b = b[:cut]
	}
	return NewGappedReader(b, len(frame), gaps)
}

// readPrimitive reads one fixed-width primitive of the given kind and
// returns its value boxed.
type primCase struct {
	name  string
	size  int
	write func(dst []byte) []byte
	read  func(r *Reader) any
	want  any
}

func primCases() []primCase {
	u := UUID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	return []primCase{
		{"Int8", 1, func(d []byte) []byte { return AppendInt8(d, -7) }, func(r *Reader) any { return r.Int8() }, int8(-7)},
		{"Bool", 1, func(d []byte) []byte { return AppendBool(d, true) }, func(r *Reader) any { return r.Bool() }, true},
		{"Int16", 2, func(d []byte) []byte { return AppendInt16(d, -300) }, func(r *Reader) any { return r.Int16() }, int16(-300)},
		{"Uint16", 2, func(d []byte) []byte { return AppendUint16(d, 65000) }, func(r *Reader) any { return r.Uint16() }, uint16(65000)},
		{"Int32", 4, func(d []byte) []byte { return AppendInt32(d, -70000) }, func(r *Reader) any { return r.Int32() }, int32(-70000)},
		{"Uint32", 4, func(d []byte) []byte { return AppendUint32(d, 4000000000) }, func(r *Reader) any { return r.Uint32() }, uint32(4000000000)},
		{"Int64", 8, func(d []byte) []byte { return AppendInt64(d, math.MinInt64+5) }, func(r *Reader) any { return r.Int64() }, int64(math.MinInt64 + 5)},
		{"Float64", 8, func(d []byte) []byte { return AppendFloat64(d, 2.5) }, func(r *Reader) any { return r.Float64() }, 2.5},
		{"UUID", 16, func(d []byte) []byte { return AppendUUID(d, u) }, func(r *Reader) any { return r.UUID() }, u},
	}
}

// TestGappedPrimitives frames each primitive between two int32 markers
// (4 bytes before, 4 after) and punches every gap [a, b) within the
// frame: the primitive reads when the gap misses it, is stepped over when
// the gap meets it, and the marker after it always reads unless the gap
// meets the marker; nothing stops, since the gaps end before the frame.
func TestGappedPrimitives(t *testing.T) {
	for _, c := range primCases() {
		frame := AppendInt32(nil, 0x11223344)
		frame = c.write(frame)
		frame = AppendInt32(frame, 0x55667788)
		frame = AppendInt8(frame, 9) // the frame ends after a byte never in a gap
		fieldStart, fieldEnd := 4, 4+c.size
		for a := 0; a < len(frame)-1; a++ {
			for b := a + 1; b <= len(frame)-1; b++ {
				r := gappedOver(frame, -1, Gap{a, b})
				meets := func(s, e int) bool { return a < e && b > s }

				m1 := r.Int32()
				if meets(0, 4) {
					if !r.skipped() || m1 != 0 {
						t.Fatalf("%s gap [%d,%d): first marker not stepped over (%v, %v)", c.name, a, b, m1, r.err)
					}
				} else if m1 != 0x11223344 || r.err != nil {
					t.Fatalf("%s gap [%d,%d): first marker %x, %v", c.name, a, b, m1, r.err)
				}
				v := c.read(r)
				if meets(fieldStart, fieldEnd) {
					if !r.skipped() {
						t.Fatalf("%s gap [%d,%d): field not stepped over: %v, err %v", c.name, a, b, v, r.err)
					}
					if !reflect.ValueOf(v).IsZero() {
						t.Fatalf("%s gap [%d,%d): a field not captured reads %v, want the zero value", c.name, a, b, v)
					}
				} else if r.err != nil || !reflect.DeepEqual(v, c.want) {
					t.Fatalf("%s gap [%d,%d): got %v (err %v), want %v", c.name, a, b, v, r.err, c.want)
				}
				if r.Offset() != fieldEnd {
					t.Fatalf("%s gap [%d,%d): offset %d after the field, want %d", c.name, a, b, r.Offset(), fieldEnd)
				}
				m2 := r.Int32()
				if meets(fieldEnd, fieldEnd+4) {
					if !r.skipped() {
						t.Fatalf("%s gap [%d,%d): second marker not stepped over", c.name, a, b)
					}
				} else if m2 != 0x55667788 || r.err != nil {
					t.Fatalf("%s gap [%d,%d): second marker %x, %v", c.name, a, b, m2, r.err)
				}
				if last := r.Int8(); last != 9 || r.Err() != nil || r.Remaining() != 0 {
					t.Fatalf("%s gap [%d,%d): last byte %d, err %v, %d left", c.name, a, b, last, r.Err(), r.Remaining())
				}
				// One entry per field met, with the field's range.
				var want []NotCaptured
				for _, f := range [][2]int{{0, 4}, {fieldStart, fieldEnd}, {fieldEnd, fieldEnd + 4}} {
					if meets(f[0], f[1]) {
						want = append(want, NotCaptured{Start: f[0], End: f[1]})
					}
				}
				if got := r.NotCaptured(); !reflect.DeepEqual(got, want) {
					t.Fatalf("%s gap [%d,%d): NotCaptured %+v, want %+v", c.name, a, b, got, want)
				}
			}
		}
	}
}

// TestGappedTailStop: a fixed-width field in the gap that reaches the
// frame's end stops decoding there (one entry up to the end, Stop), and
// so does one that only starts before that gap; the field before reads.
func TestGappedTailStop(t *testing.T) {
	for _, c := range primCases() {
		frame := AppendInt16(nil, 77)
		frame = c.write(frame)
		frame = AppendInt32(frame, 1)
		for cut := 2; cut < 2+c.size; cut++ {
			// Bytes from cut on not held: the tail gap.
			r := NewGappedReader(frame[:cut], len(frame), nil)
			if v := r.Int16(); v != 77 {
				t.Fatalf("%s cut %d: Int16 %d", c.name, cut, v)
			}
			c.read(r)
			if r.skipped() {
				t.Fatalf("%s cut %d: stepped over a field in the tail gap", c.name, cut)
			}
			err := r.Err()
			var de *DecodeError
			if !errors.Is(err, ErrNotCaptured) || !errors.As(err, &de) || de.Offset != 2 {
				t.Fatalf("%s cut %d: err %v, want ErrNotCaptured at offset 2", c.name, cut, err)
			}
			want := []NotCaptured{{Start: 2, End: len(frame), Stop: true}}
			if got := r.NotCaptured(); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s cut %d: NotCaptured %+v, want %+v", c.name, cut, got, want)
			}
			// After a stop nothing more reads.
			if v := r.Int32(); v != 0 || len(r.NotCaptured()) != 1 {
				t.Fatalf("%s cut %d: read %d after the stop", c.name, cut, v)
			}
		}
		// A gap that reaches the end, given as a gap over held bytes.
		r := gappedOver(frame, -1, Gap{2 + c.size - 1, len(frame)})
		r.Int16()
		c.read(r)
		if !errors.Is(r.Err(), ErrNotCaptured) || r.skipped() {
			t.Fatalf("%s: a field meeting the last gap did not stop: %v", c.name, r.Err())
		}
	}
}

// TestGappedLengthsLost: a length, count, varint or marker in a gap stops
// decoding, wherever the gap is.
func TestGappedLengthsLost(t *testing.T) {
	tail := AppendInt32(nil, 42) // a field after, never in the gap
	cases := []struct {
		name  string
		field []byte
		read  func(r *Reader)
	}{
		{"String", AppendString(nil, "hello"), func(r *Reader) { _ = r.String() }},
		{"NullableString", AppendNullableString(nil, ptrString("hello")), func(r *Reader) { r.NullableString() }},
		{"CompactString", AppendCompactString(nil, "hello"), func(r *Reader) { r.CompactString() }},
		{"Bytes", AppendBytes(nil, []byte("hello")), func(r *Reader) { r.Bytes() }},
		{"CompactNullableBytes", AppendCompactNullableBytes(nil, []byte("hello")), func(r *Reader) { r.CompactNullableBytes() }},
		{"ArrayLen", AppendArrayLen(nil, 1, false), func(r *Reader) { r.ArrayLen() }},
		{"CompactArrayLen", AppendCompactArrayLen(nil, 1, false), func(r *Reader) { r.CompactArrayLen() }},
		{"Uvarint", AppendUvarint(nil, 300), func(r *Reader) { r.Uvarint() }},
		{"Varint", AppendVarint(nil, -300), func(r *Reader) { r.Varint() }},
		{"Uvarlong", AppendUvarlong(nil, 1<<40), func(r *Reader) { r.Uvarlong() }},
		{"nullMarker", AppendInt8(nil, 1), func(r *Reader) { r.nullMarker() }},
		{"tagCount", AppendUvarint(nil, 0), func(r *Reader) { r.tagCount() }},
		{"tagStart", AppendUvarint(AppendUvarint(nil, 3), 0), func(r *Reader) { r.tagStart(-1) }},
	}
	for _, c := range cases {
		frame := append(append([]byte(nil), c.field...), tail...)
		// The length part: the field's first byte.
		r := gappedOver(frame, -1, Gap{0, 1})
		c.read(r)
		if r.skipped() || !errors.Is(r.Err(), ErrNotCaptured) {
			t.Errorf("%s: length in a gap: skipped or err %v, want a stop", c.name, r.Err())
			continue
		}
		want := []NotCaptured{{Start: 0, End: len(frame), Stop: true}}
		if got := r.NotCaptured(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: NotCaptured %+v, want %+v", c.name, got, want)
		}
	}
	// A varint whose later byte is in the gap stops at the varint's start.
	frame := append(AppendInt8(nil, 5), AppendUvarint(nil, 1<<20)...)
	frame = append(frame, tail...)
	r := gappedOver(frame, -1, Gap{2, 3})
	r.Int8()
	r.Uvarint()
	var de *DecodeError
	if err := r.Err(); !errors.As(err, &de) || !errors.Is(err, ErrNotCaptured) || de.Offset != 1 {
		t.Errorf("varint with a byte in a gap: %v, want ErrNotCaptured at offset 1", err)
	}
}

// TestGappedContentSkipped: string and bytes content in a gap, its length
// read, is stepped over and reading goes on after it; content in the
// frame's last gap stops.
func TestGappedContentSkipped(t *testing.T) {
	tail := AppendInt32(nil, 42)
	cases := []struct {
		name     string
		field    []byte
		lenBytes int
		read     func(r *Reader) any
		want     any
	}{
		{"String", AppendString(nil, "hello"), 2, func(r *Reader) any { return r.String() }, "hello"},
		{"NullableString", AppendNullableString(nil, ptrString("hello")), 2, func(r *Reader) any { return r.NullableString() }, ptrString("hello")},
		{"CompactString", AppendCompactString(nil, "hello"), 1, func(r *Reader) any { return r.CompactString() }, "hello"},
		{"CompactNullableString", AppendCompactNullableString(nil, ptrString("hello")), 1, func(r *Reader) any { return r.CompactNullableString() }, ptrString("hello")},
		{"Bytes", AppendBytes(nil, []byte("hello")), 4, func(r *Reader) any { return r.Bytes() }, []byte("hello")},
		{"NullableBytes", AppendNullableBytes(nil, []byte("hello")), 4, func(r *Reader) any { return r.NullableBytes() }, []byte("hello")},
		{"CompactBytes", AppendCompactBytes(nil, []byte("hello")), 1, func(r *Reader) any { return r.CompactBytes() }, []byte("hello")},
		{"CompactNullableBytes", AppendCompactNullableBytes(nil, []byte("hello")), 1, func(r *Reader) any { return r.CompactNullableBytes() }, []byte("hello")},
	}
	for _, c := range cases {
		frame := append(append([]byte(nil), c.field...), tail...)
		end := len(c.field)
		for a := c.lenBytes; a < end; a++ {
			for b := a + 1; b <= end; b++ {
				r := gappedOver(frame, -1, Gap{a, b})
				v := c.read(r)
				if !r.skipped() {
					t.Fatalf("%s gap [%d,%d): content not stepped over: %v, %v", c.name, a, b, v, r.err)
				}
				if rv := reflect.ValueOf(v); rv.IsValid() && !rv.IsZero() && !(rv.Kind() == reflect.String && rv.Len() == 0) {
					t.Fatalf("%s gap [%d,%d): content not captured reads %q", c.name, a, b, v)
				}
				if got := r.Int32(); got != 42 || r.Err() != nil {
					t.Fatalf("%s gap [%d,%d): the field after reads %d, %v", c.name, a, b, got, r.Err())
				}
				want := []NotCaptured{{Start: c.lenBytes, End: end}}
				if got := r.NotCaptured(); !reflect.DeepEqual(got, want) {
					t.Fatalf("%s gap [%d,%d): NotCaptured %+v, want %+v", c.name, a, b, got, want)
				}
			}
		}
		// Captured around a gap that misses it: read as is.
		r := gappedOver(frame, -1, Gap{end, end + 1})
		if v := c.read(r); !reflect.DeepEqual(v, c.want) || r.err != nil {
			t.Fatalf("%s: next to a gap: %v, %v", c.name, v, r.err)
		}
		// Content cut by the frame's last gap: a stop at the content.
		r = NewGappedReader(frame[:end-1], len(frame), nil)
		c.read(r)
		var de *DecodeError
		if r.skipped() || !errors.As(r.Err(), &de) || !errors.Is(de, ErrNotCaptured) || de.Offset != c.lenBytes {
			t.Fatalf("%s: content in the last gap: %v, want a stop at %d", c.name, r.Err(), c.lenBytes)
		}
	}
}

// TestGappedVarints: a valid 5-byte uvarint (the largest 32-bit value)
// reads, in a Reader over a whole frame and in a gapped one where it ends
// right at a gap; a 6th continuation is an overflow, not a gap.
func TestGappedVarints(t *testing.T) {
	five := []byte{0xff, 0xff, 0xff, 0xff, 0x0f}
	if v := NewReader(five).Uvarint(); v != math.MaxUint32 {
		t.Fatalf("5-byte uvarint: %d", v)
	}
	frame := append(append([]byte(nil), five...), 0, 0, 7)
	r := gappedOver(frame, -1, Gap{5, 7})
	if v := r.Uvarint(); v != math.MaxUint32 || r.err != nil {
		t.Fatalf("5-byte uvarint before a gap: %d, %v", v, r.err)
	}
	r.Int16()
	if !r.skipped() {
		t.Fatal("int16 in the gap not stepped over")
	}
	if v := r.Int8(); v != 7 || r.Err() != nil {
		t.Fatalf("after the gap: %d, %v", v, r.Err())
	}
	// Varint over the whole length of a captured run before a gap, then
	// more: a Uvarlong of 10 bytes.
	long := AppendUvarlong(nil, math.MaxUint64)
	if len(long) != 10 {
		t.Fatalf("uvarlong of %d bytes", len(long))
	}
	frame = append(append([]byte(nil), long...), 0, 1)
	r = gappedOver(frame, -1, Gap{10, 11})
	if v := r.Uvarlong(); v != math.MaxUint64 || r.err != nil {
		t.Fatalf("uvarlong: %d, %v", v, r.err)
	}
	if r = gappedOver([]byte{0xff, 0xff, 0xff, 0xff, 0x1f, 0, 0}, -1, Gap{6, 7}); r.Uvarint() != 0 || !errors.Is(r.Err(), ErrVarintOverflow) {
		t.Fatalf("overflowing uvarint: %v", r.Err())
	}
	// A varint truncated by the frame's end (no gap there) is truncated.
	r = gappedOver([]byte{0, 0, 0x80, 0x80}, -1, Gap{0, 1})
	r.Int16()
	r.skipped()
	if r.Uvarint(); !errors.Is(r.Err(), ErrTruncated) {
		t.Fatalf("varint past the frame's end: %v, want truncated", r.Err())
	}
}

// TestGappedLogicalSize: lengths and counts are checked against the
// frame's size, not the bytes held: a length that fits the frame but not
// the bytes held is honoured (its content is in the last gap: a stop),
// one beyond the frame is invalid, and reading past the frame is
// truncated, as in a Reader over the whole frame.
func TestGappedLogicalSize(t *testing.T) {
	frame := AppendString(nil, "0123456789")
	frame = AppendInt32(frame, 1)
	held := frame[:4] // the length and two bytes of content
	r := NewGappedReader(held, len(frame), nil)
	if r.Remaining() != len(frame) {
		t.Fatalf("Remaining %d, want the frame's %d", r.Remaining(), len(frame))
	}
	_ = r.String()
	if !errors.Is(r.Err(), ErrNotCaptured) {
		t.Fatalf("content in the last gap: %v", r.Err())
	}

	// A length beyond the frame: invalid, whatever the bytes held.
	bad := AppendString(nil, "abc")
	bad[1] = 50
	r = NewGappedReader(bad[:2], len(bad), nil)
	if _ = r.String(); !errors.Is(r.Err(), ErrInvalidLength) {
		t.Fatalf("length beyond the frame: %v, want ErrInvalidLength", r.Err())
	}
	// An array count beyond what the frame can hold.
	arr := AppendArrayLen(nil, 100, false)
	arr = append(arr, make([]byte, 20)...)
	r = NewGappedReader(arr[:4], len(arr), nil)
	r.checkCount(r.ArrayLen(), 4)
	if !errors.Is(r.Err(), ErrInvalidLength) {
		t.Fatalf("count beyond the frame: %v, want ErrInvalidLength", r.Err())
	}
	// Reading past the frame's size: truncated, not "not captured".
	r = NewGappedReader([]byte{1, 2}, 3, []Gap{{0, 1}})
	r.Int8()
	r.skipped()
	if r.Int32(); !errors.Is(r.Err(), ErrTruncated) || errors.Is(r.Err(), ErrNotCaptured) {
		t.Fatalf("past the frame: %v, want truncated", r.Err())
	}
}

// TestGappedNoGaps: with no gaps and all bytes held, NewGappedReader is
// NewReader.
func TestGappedNoGaps(t *testing.T) {
	b := []byte{1, 2, 3}
	if r := NewGappedReader(b, 3, nil); r.g != nil || !reflect.DeepEqual(r, NewReader(b)) {
		t.Fatalf("NewGappedReader without gaps: %+v", r)
	}
	if r := NewGappedReader(b, 3, []Gap{{1, 1}, {5, 9}}); r.g != nil {
		t.Fatal("empty and out-of-frame gaps should leave a plain Reader")
	}
}

// TestGappedUnawareCaller: a caller reading primitives by hand, who never
// takes note of a field stepped over, sees decoding stop at that field:
// nothing after it reads, and Err says where.
func TestGappedUnawareCaller(t *testing.T) {
	frame := AppendInt32(AppendInt32(AppendInt32(nil, 1), 2), 3)
	r := gappedOver(frame, -1, Gap{4, 6})
	a, b, c := r.Int32(), r.Int32(), r.Int32()
	if a != 1 || b != 0 || c != 0 {
		t.Fatalf("read %d %d %d", a, b, c)
	}
	var de *DecodeError
	if err := r.Err(); !errors.As(err, &de) || !errors.Is(err, ErrNotCaptured) || de.Offset != 4 {
		t.Fatalf("err %v, want ErrNotCaptured at 4", err)
	}
	want := []NotCaptured{{Start: 4, End: 12, Stop: true}}
	if got := r.NotCaptured(); !reflect.DeepEqual(got, want) {
		t.Fatalf("NotCaptured %+v, want %+v", got, want)
	}
}

// TestGappedRecordsField: a records field whose length was read takes its
// bytes, holes and all, with Gaps relative to the field; one running into
// the frame's last gap ends early, Len giving its length; one wholly in a
// gap is still a field (not null) with a gap over all of it.
func TestGappedRecordsField(t *testing.T) {
	content := []byte("0123456789")
	frame := AppendBytes(nil, content)
	frame = AppendInt16(frame, 5)
	r := gappedOver(frame, -1, Gap{6, 8}, Gap{10, 11})
	var rec Records
	r.records(&rec, false, true)
	if r.err != nil || len(rec.Raw) != 10 || string(rec.Raw[:2]) != "01" || string(rec.Raw[4:6]) != "45" {
		t.Fatalf("records: %q, %v", rec.Raw, r.err)
	}
	if want := []Gap{{2, 4}, {6, 7}}; !reflect.DeepEqual(rec.Gaps, want) {
		t.Fatalf("Gaps %v, want %v", rec.Gaps, want)
	}
	if v := r.Int16(); v != 5 || r.Err() != nil {
		t.Fatalf("after the records: %d, %v", v, r.Err())
	}
	if got := r.NotCaptured(); len(got) != 2 || got[0] != (NotCaptured{Start: 6, End: 8}) || got[1] != (NotCaptured{Start: 10, End: 11}) {
		t.Fatalf("NotCaptured %+v", got)
	}

	r = NewGappedReader(frame[:7], len(frame), nil)
	rec = Records{}
	r.records(&rec, false, true)
	if r.err != nil || string(rec.Raw) != "012" || rec.Len() != 10 || !reflect.DeepEqual(rec.Gaps, []Gap{{3, 10}}) {
		t.Fatalf("records cut: %q len %d gaps %v err %v", rec.Raw, rec.Len(), rec.Gaps, r.err)
	}
	r.Int16()
	if !errors.Is(r.Err(), ErrNotCaptured) {
		t.Fatalf("after records in the last gap: %v", r.Err())
	}

	r = NewGappedReader(frame[:4], len(frame), nil)
	rec = Records{}
	r.records(&rec, false, true)
	if r.err != nil || rec.IsNull() || len(rec.Raw) != 0 || rec.Len() != 10 || !reflect.DeepEqual(rec.Gaps, []Gap{{0, 10}}) {
		t.Fatalf("records wholly in a gap: %q len %d gaps %v err %v", rec.Raw, rec.Len(), rec.Gaps, r.err)
	}
}

func TestNormalizeGaps(t *testing.T) {
	got := normalizeGaps([]Gap{{8, 9}, {-3, 2}, {2, 4}, {5, 5}, {7, 8}, {20, 30}}, 12, 15)
	want := []Gap{{0, 4}, {7, 9}, {12, 15}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("normalizeGaps: %v, want %v", got, want)
	}
}

// TestGappedTaggedFieldUnread: a known tagged field stepped over in a gap,
// whose tag holds bytes after it, still ends at the tag's end: the next
// tag is read where it is.
func TestGappedTaggedFieldUnread(t *testing.T) {
	frame := AppendInt32(nil, 7)          // the known field
	frame = append(frame, 0xee, 0xee)     // two bytes it leaves unread
	frame = AppendInt16(frame, 0x1234)    // what follows the tag
	r := gappedOver(frame, -1, Gap{1, 2}) // in the known field
	full := r.limit(6)
	r.Int32()
	r.unlimit(full, 6, 3)
	if !r.skipped() || r.Offset() != 6 {
		t.Fatalf("after the tag: offset %d, err %v", r.Offset(), r.err)
	}
	if v := r.Int16(); v != 0x1234 || r.Err() != nil {
		t.Fatalf("after the tag: %x, %v", v, r.Err())
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "2 bytes not read") {
		t.Fatalf("warnings %q", r.Warnings)
	}
}
