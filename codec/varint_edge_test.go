package codec

// Varints at every length boundary and past their limits. The expected
// bytes are written out by hand (Kafka's ByteUtils: 7 bits a byte, low
// group first, the high bit set on every byte but the last; zig-zag for the
// signed ones), so the decoder and AppendUvarint & co are both held to
// them rather than to each other.

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"testing"
)

// varintCase is one encoding and the value it holds.
type varintCase struct {
	hex string
	v   uint64
}

// uvarintBoundaries are, for each length n of 1-5 bytes, the smallest and
// the largest value of that length (0, 127; 128, 16383; ...; 2^28, 2^32-1).
var uvarintBoundaries = []varintCase{
	{"00", 0},
	{"7f", 1<<7 - 1},
	{"8001", 1 << 7},
	{"ff7f", 1<<14 - 1},
	{"808001", 1 << 14},
	{"ffff7f", 1<<21 - 1},
	{"80808001", 1 << 21},
	{"ffffff7f", 1<<28 - 1},
	{"8080808001", 1 << 28},
	{"ffffffff0f", 1<<32 - 1},
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestUvarintBoundaries(t *testing.T) {
	for _, c := range uvarintBoundaries {
		b := unhex(t, c.hex)
		r := NewReader(append(b, 0xee)) // a byte after it must stay unread
		if got := r.Uvarint(); r.Err() != nil || uint64(got) != c.v || r.Remaining() != 1 {
			t.Errorf("Uvarint(%s) = %d, err %v, %d bytes left; want %d, 1 left", c.hex, got, r.Err(), r.Remaining(), c.v)
		}
		if got := hex.EncodeToString(AppendUvarint(nil, uint32(c.v))); got != c.hex {
			t.Errorf("AppendUvarint(%d) = %s, want %s", c.v, got, c.hex)
		}
		// Every prefix of a complete varint is truncated, not a value.
		for n := 0; n < len(b); n++ {
			r := NewReader(b[:n])
			r.Uvarint()
			if !errors.Is(r.Err(), ErrTruncated) {
				t.Errorf("Uvarint(%s cut to %d bytes): err %v, want ErrTruncated", c.hex, n, r.Err())
			}
		}
	}
}

func TestUvarintOverflow(t *testing.T) {
	for _, h := range []string{
		"ffffffff10",     // 5th byte 0x10: bit 32 set
		"8080808070",     // 5th byte 0x70: bits 32-34
		"ffffffff8f00",   // 5th byte with the continuation bit: a 6-byte varint
		"808080808001",   // 6 bytes
		"ffffffffffffff", // 7 bytes
	} {
		r := NewReader(unhex(t, h))
		if got := r.Uvarint(); !errors.Is(r.Err(), ErrVarintOverflow) || got != 0 {
			t.Errorf("Uvarint(%s) = %d, err %v; want ErrVarintOverflow", h, got, r.Err())
		}
	}
}

func TestVarintBoundaries(t *testing.T) {
	for _, c := range []struct {
		hex string
		v   int32
	}{
		{"00", 0},
		{"01", -1},
		{"7e", 63},
		{"7f", -64},
		{"8001", 64},
		{"8101", -65},
		{"fe7f", 8191},
		{"ff7f", -8192},
		{"808001", 8192},
		{"ffffff7f", -(1 << 27)},
		{"8080808001", 1 << 27},
		{"feffffff0f", math.MaxInt32},
		{"ffffffff0f", math.MinInt32},
	} {
		r := NewReader(unhex(t, c.hex))
		if got := r.Varint(); r.Err() != nil || got != c.v || r.Remaining() != 0 {
			t.Errorf("Varint(%s) = %d, err %v, %d bytes left; want %d", c.hex, got, r.Err(), r.Remaining(), c.v)
		}
		if got := hex.EncodeToString(AppendVarint(nil, c.v)); got != c.hex {
			t.Errorf("AppendVarint(%d) = %s, want %s", c.v, got, c.hex)
		}
	}
	r := NewReader(unhex(t, "ffffffff1f"))
	if r.Varint(); !errors.Is(r.Err(), ErrVarintOverflow) {
		t.Errorf("Varint(ffffffff1f): err %v, want ErrVarintOverflow", r.Err())
	}
}

func TestUvarlongBoundaries(t *testing.T) {
	// For each length n of 1-10 bytes: 2^(7(n-1)) (the smallest value of
	// length n, 0 for n = 1) and 2^(7n)-1 (the largest; 2^64-1 for n = 10).
	for n := 1; n <= 10; n++ {
		var lo, hi uint64
		if n > 1 {
			lo = 1 << (7 * (n - 1))
		}
		hi = 1<<(7*n) - 1
		if n == 10 {
			hi = math.MaxUint64
		}
		for _, v := range []uint64{lo, hi} {
			want := varlongBytes(v)
			if len(want) != n {
				t.Fatalf("test bug: %d encodes in %d bytes, want %d", v, len(want), n)
			}
			r := NewReader(append(want, 0xee))
			if got := r.Uvarlong(); r.Err() != nil || got != v || r.Remaining() != 1 {
				t.Errorf("Uvarlong(%x) = %d, err %v, %d left; want %d, 1 left", want, got, r.Err(), r.Remaining(), v)
			}
			if got := AppendUvarlong(nil, v); string(got) != string(want) {
				t.Errorf("AppendUvarlong(%d) = %x, want %x", v, got, want)
			}
			for cut := 0; cut < n; cut++ {
				r := NewReader(want[:cut])
				r.Uvarlong()
				if !errors.Is(r.Err(), ErrTruncated) {
					t.Errorf("Uvarlong(%x cut to %d bytes): err %v, want ErrTruncated", want, cut, r.Err())
				}
			}
		}
	}
	// A 10th byte of 1 is bit 63 and still valid (2^63, above).
	for _, h := range []string{
		"ffffffffffffffffff02",   // 10th byte 0x02: bit 64 set
		"ffffffffffffffffff7f",   // 10th byte 0x7f
		"ffffffffffffffffff8100", // 11 bytes
		"8080808080808080808001", // 11 bytes, a value that would fit
	} {
		r := NewReader(unhex(t, h))
		if got := r.Uvarlong(); !errors.Is(r.Err(), ErrVarintOverflow) || got != 0 {
			t.Errorf("Uvarlong(%s) = %d, err %v; want ErrVarintOverflow", h, got, r.Err())
		}
	}
}

func TestVarlongExtremes(t *testing.T) {
	for _, c := range []struct {
		hex string
		v   int64
	}{
		{"00", 0},
		{"01", -1},
		{"7e", 63},
		{"7f", -64},
		{"8001", 64},
		{"feffffffffffffffff01", math.MaxInt64},
		{"ffffffffffffffffff01", math.MinInt64},
		{"8080808010", 1 << 31},       // past int32: 5 bytes, 5th > 0x0f
		{"ffffffff0f", math.MinInt32}, // the same bytes as Varint's
	} {
		r := NewReader(unhex(t, c.hex))
		if got := r.Varlong(); r.Err() != nil || got != c.v || r.Remaining() != 0 {
			t.Errorf("Varlong(%s) = %d, err %v, %d left; want %d", c.hex, got, r.Err(), r.Remaining(), c.v)
		}
		if got := hex.EncodeToString(AppendVarlong(nil, c.v)); got != c.hex {
			t.Errorf("AppendVarlong(%d) = %s, want %s", c.v, got, c.hex)
		}
	}
}

// varlongBytes encodes v by the rule in the file comment, apart from the
// code under test.
func varlongBytes(v uint64) []byte {
	var out []byte
	for v >= 0x80 {
		out = append(out, byte(v)|0x80)
		v >>= 7
	}
	return append(out, byte(v))
}

// TestReaderErrorIsSticky checks that after the first error every read
// returns its zero value and consumes nothing, however many bytes remain:
// a decoder that goes on after a failure must not pick up values from
// where the failure left it.
func TestReaderErrorIsSticky(t *testing.T) {
	for name, read := range map[string]func(r *Reader) (any, bool){
		"Uvarint":  func(r *Reader) (any, bool) { v := r.Uvarint(); return v, v == 0 },
		"Varint":   func(r *Reader) (any, bool) { v := r.Varint(); return v, v == 0 },
		"Uvarlong": func(r *Reader) (any, bool) { v := r.Uvarlong(); return v, v == 0 },
		"Varlong":  func(r *Reader) (any, bool) { v := r.Varlong(); return v, v == 0 },
		"Int8":     func(r *Reader) (any, bool) { v := r.Int8(); return v, v == 0 },
		"Int16":    func(r *Reader) (any, bool) { v := r.Int16(); return v, v == 0 },
		"Int32":    func(r *Reader) (any, bool) { v := r.Int32(); return v, v == 0 },
		"Int64":    func(r *Reader) (any, bool) { v := r.Int64(); return v, v == 0 },
		"UUID":     func(r *Reader) (any, bool) { v := r.UUID(); return v, v == UUID{} },
		"String":   func(r *Reader) (any, bool) { v := r.CompactString(); return v, v == "" },
		"Bytes":    func(r *Reader) (any, bool) { v := r.CompactBytes(); return v, len(v) == 0 },
	} {
		// 16 bytes of 0x05 after a failed read: every read above would
		// take a non-zero value from them.
		r := NewReader(bytes.Repeat([]byte{0x05}, 16))
		r.Fail(ErrTruncated)
		if v, zero := read(r); !zero || r.Offset() != 0 {
			t.Errorf("%s after an error = %v at offset %d, want zero at 0", name, v, r.Offset())
		}
	}
}
