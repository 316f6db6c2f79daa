package codec

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestJSONStringEscapes(t *testing.T) {
	for _, s := range []string{"plain", "q\"b\\s", "ctl\x00\x1f\n\r\t", "utf8 ünï ☃ 𝄞", "ls\u2028ps\u2029end", "\u2028", "e2\xe2\x80"} {
		w := NewJSONWriter(nil)
		w.String(s)
		var back any
		if err := json.Unmarshal(w.Bytes(), &back); err != nil {
			t.Fatalf("%q -> %s: %v", s, w.Bytes(), err)
		}
		if str, ok := back.(string); ok && str != s {
			t.Errorf("%q -> %s -> %q", s, w.Bytes(), str)
		}
		w.Reset()
		w.ByteString([]byte(s))
		if err := json.Unmarshal(w.Bytes(), &back); err != nil {
			t.Fatalf("bytes %q -> %s: %v", s, w.Bytes(), err)
		}
	}
	w := NewJSONWriter(nil)
	w.String("a\u2028b")
	if string(w.Bytes()) != `"a\u2028b"` {
		t.Errorf("U+2028 not escaped: %s", w.Bytes())
	}
	w.Reset()
	w.ByteString([]byte{0xff, 0x00, 0x01})
	if string(w.Bytes()) != `{"base64":"/wAB"}` {
		t.Errorf("binary: %s", w.Bytes())
	}
}

// appendTextString (and IsText, -Y's) agrees with isText and
// appendJSONString, its two-pass definition, on edge cases and random
// bytes.
func TestAppendTextString(t *testing.T) {
	cases := [][]byte{{}, []byte("plain"), []byte(`{"a":"b\\c"}`), []byte("tab\tcr\rlf\n"), {0x7f}, {0x1b, '['},
		[]byte("line\u2028sep\u2029"), []byte("é日本"), {0xff}, {0xe2, 0x80}, []byte("ok\x00")}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = []byte{'a', '"', '\\', '\n', 0x01, 0x7f, 0xe2, 0x80, 0xa8, 0xc3, 0xa9, 0xff}[rng.IntN(12)]
		}
		cases = append(cases, b)
	}
	for _, b := range cases {
		got, ok := appendTextString([]byte("x"), b)
		if ok != isText(b) || IsText(b) != ok {
			t.Fatalf("%q: text %v, isText %v, IsText %v", b, ok, isText(b), IsText(b))
		}
		want := []byte("x")
		if ok {
			want = appendJSONString(want, b)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%q: got %q, want %q", b, got, want)
		}
	}
}

// isText is the test's definition of text, which the writer's one-pass
// escaping must agree with.
func isText(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
			return false
		}
	}
	return utf8.Valid(b)
}

// TestJSONWriterSpill checks that a writer handing its buffer over at
// every value (limit 1) or now and then writes, in its parts, exactly what
// one buffer gets.
func TestJSONWriterSpill(t *testing.T) {
	write := func(w *JSONWriter) {
		w.BeginObject()
		w.Key("records")
		w.BeginArray()
		for i := range 200 {
			w.BeginObject()
			w.Key("offset")
			w.Int(int64(i))
			w.Key("value")
			w.ByteString([]byte(strings.Repeat("v\"", i)))
			w.Key("key")
			w.Null()
			w.EndObject()
		}
		w.EndArray()
		w.Key("n")
		w.Uint(200)
		w.EndObject()
	}
	one := NewJSONWriter(nil)
	write(one)
	for _, limit := range []int{1, 100, 4096} {
		var parts [][]byte
		w := NewJSONWriter(nil)
		w.Spill(limit, func(full []byte) []byte {
			parts = append(parts, full)
			return nil
		})
		write(w)
		joined := append(bytes.Join(parts, nil), w.Bytes()...)
		if !bytes.Equal(joined, one.Bytes()) {
			t.Errorf("limit %d: parts joined differ from one buffer", limit)
		}
		if len(parts) < 2 {
			t.Errorf("limit %d: %d parts", limit, len(parts))
		}
	}
}
