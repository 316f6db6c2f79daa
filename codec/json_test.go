package codec

import (
	"encoding/json"
	"testing"
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
