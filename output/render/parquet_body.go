package render

import (
	"unsafe"

	"github.com/kdissect/kdissect/codec"
)

// bodyBufferKept is the largest JSON buffer a pooled writer keeps between
// exchanges, in bytes.
const bodyBufferKept = 1 << 20

// bodyString returns the JSON jw holds as a string. A body larger than
// bodyBufferKept, whose buffer would not be kept anyway, takes the buffer
// over instead of copying it when the buffer is at most a quarter slack:
// a long record value (50 MB in one Produce) is then held once, not twice
// at once. jw is left with no buffer (nothing can change the string).
func bodyString(jw *codec.JSONWriter) string {
	b := jw.Bytes()
	if len(b) <= bodyBufferKept || cap(b)-len(b) > len(b)/4 {
		return string(b)
	}
	jw.SetBuffer(nil)
	return unsafe.String(unsafe.SliceData(b), len(b))
}
