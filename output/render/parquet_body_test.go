package render

import (
	"bytes"
	"strings"
	"testing"
	"unsafe"

	"github.com/kdissect/kdissect/codec"
)

// A body over bodyBufferKept becomes the row's string without a copy (a
// 50 MB record value was held twice at once, as the JSON buffer and its
// copy); the writer is left without that buffer, so the next body cannot
// overwrite the string. Smaller bodies, and buffers with much slack, are
// copied and the writer keeps its buffer.
func TestBodyString(t *testing.T) {
	body := func(n, capacity int) *codec.JSONWriter {
		b := make([]byte, n, capacity)
		copy(b, bytes.Repeat([]byte("x"), n))
		return codec.NewJSONWriter(b)
	}
	for _, tc := range []struct {
		name      string
		n, cap    int
		wantTaken bool
	}{
		{"long body", bodyBufferKept + 1, bodyBufferKept + 1, true},
		{"long body, a little slack", 4 << 20, 5 << 20, true},
		{"long body, half its buffer slack", 4 << 20, 8 << 20, false},
		{"short body", 100, 1 << 10, false},
		{"at the bound", bodyBufferKept, bodyBufferKept, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			jw := body(tc.n, tc.cap)
			buf := jw.Bytes()
			s := bodyString(jw)
			if len(s) != tc.n || s != string(buf) {
				t.Fatalf("string of %d bytes, want the %d of the body", len(s), tc.n)
			}
			taken := unsafe.StringData(s) == unsafe.SliceData(buf)
			if taken != tc.wantTaken {
				t.Errorf("buffer taken over %v, want %v", taken, tc.wantTaken)
			}
			if kept := jw.Bytes() != nil; kept == taken {
				t.Errorf("writer keeps a buffer %v with the buffer taken over %v", kept, taken)
			}
			jw.Reset()
			jw.Text("y")
			if s != strings.Repeat("x", tc.n) {
				t.Error("the next body changed the string")
			}
		})
	}
}
