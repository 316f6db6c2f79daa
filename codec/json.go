package codec

import (
	"encoding/base64"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// JSONWriter appends compact JSON to a buffer. Generated WriteJSON methods
// use it so that messages are written without reflection, with Kafka's field
// names as keys and only the fields present in the version decoded.
//
// Byte strings (bytes fields, record keys and values, and string fields that
// are not valid UTF-8) are written losslessly in one way: a JSON string when
// the bytes are valid UTF-8 without control characters other than tab, CR
// and LF, else an object {"base64": "..."} holding standard base64.
type JSONWriter struct {
	// ShowSecrets writes credentials (SASL tokens, delegation token HMACs,
	// salted passwords) as they are instead of redacting them.
	ShowSecrets bool
	// OffsetBase is added to the byte offsets written in "not_captured"
	// (which count from the start of the frame without its size prefix):
	// 4 makes them count from the size prefix, as a hexdump of the frame
	// with its prefix does.
	OffsetBase int

	buf      []byte
	comma    []bool // per open container: whether a value was written
	afterKey bool

	spillAt int                      // see Spill
	spill   func(full []byte) []byte // nil: the buffer only grows
}

// Spill makes the writer hand its buffer over whenever the buffer holds at
// least limit bytes as a value or key begins: next takes the full buffer
// (its bytes are the output's next part) and returns an empty one to go on
// in. Output of any length (a Fetch of 50 000 records renders to tens of
// MB) is then built in parts of about limit bytes, without one buffer
// growing and copying itself over and over. Bytes returns what follows the
// last hand-over. A nil next stops spilling.
func (w *JSONWriter) Spill(limit int, next func(full []byte) []byte) {
	w.spillAt, w.spill = limit, next
}

// NewJSONWriter returns a writer appending to buf.
func NewJSONWriter(buf []byte) *JSONWriter { return &JSONWriter{buf: buf} }

// Bytes returns the JSON written so far.
func (w *JSONWriter) Bytes() []byte { return w.buf }

// SetBuffer makes the writer append to buf from now on; the writer keeps
// no other reference to its former buffer.
func (w *JSONWriter) SetBuffer(buf []byte) { w.buf = buf }

// Reset empties the buffer, keeping its capacity.
func (w *JSONWriter) Reset() {
	w.buf = w.buf[:0]
	w.comma = w.comma[:0]
	w.afterKey = false
}

func (w *JSONWriter) pre() {
	if w.spill != nil && len(w.buf) >= w.spillAt {
		w.buf = w.spill(w.buf)
	}
	if w.afterKey {
		w.afterKey = false
		return
	}
	if n := len(w.comma); n > 0 {
		if w.comma[n-1] {
			w.buf = append(w.buf, ',')
		} else {
			w.comma[n-1] = true
		}
	}
}

// BeginObject opens an object.
func (w *JSONWriter) BeginObject() {
	w.pre()
	w.buf = append(w.buf, '{')
	w.comma = append(w.comma, false)
}

// EndObject closes an object.
func (w *JSONWriter) EndObject() {
	w.comma = w.comma[:len(w.comma)-1]
	w.buf = append(w.buf, '}')
}

// BeginArray opens an array.
func (w *JSONWriter) BeginArray() {
	w.pre()
	w.buf = append(w.buf, '[')
	w.comma = append(w.comma, false)
}

// EndArray closes an array.
func (w *JSONWriter) EndArray() {
	w.comma = w.comma[:len(w.comma)-1]
	w.buf = append(w.buf, ']')
}

// Key writes an object key; the next call writes its value.
func (w *JSONWriter) Key(k string) {
	w.pre()
	if plainString(k) { // field names: no escaping to do
		w.buf = append(w.buf, '"')
		w.buf = append(w.buf, k...)
		w.buf = append(w.buf, '"', ':')
	} else {
		w.buf = appendJSONString(w.buf, k)
		w.buf = append(w.buf, ':')
	}
	w.afterKey = true
}

// quotedKey writes a key given already quoted with its colon (`"Offset":`),
// for the keys written once per record, where even checking a key costs.
func (w *JSONWriter) quotedKey(q string) {
	w.pre()
	w.buf = append(w.buf, q...)
	w.afterKey = true
}

// plainString reports whether s is made of jsonPlain bytes only.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if !jsonPlain[s[i]] {
			return false
		}
	}
	return true
}

// Raw writes pre-encoded JSON as one value.
func (w *JSONWriter) Raw(js []byte) {
	w.pre()
	w.buf = append(w.buf, js...)
}

// Null writes null.
func (w *JSONWriter) Null() {
	w.pre()
	w.buf = append(w.buf, "null"...)
}

// Bool writes true or false.
func (w *JSONWriter) Bool(v bool) {
	w.pre()
	w.buf = strconv.AppendBool(w.buf, v)
}

// Int writes an integer.
func (w *JSONWriter) Int(v int64) {
	w.pre()
	w.buf = strconv.AppendInt(w.buf, v, 10)
}

// Uint writes an unsigned integer.
func (w *JSONWriter) Uint(v uint64) {
	w.pre()
	w.buf = strconv.AppendUint(w.buf, v, 10)
}

// Float writes a number; NaN and infinities, which JSON cannot hold, are
// written as the strings "NaN", "+Inf" and "-Inf".
func (w *JSONWriter) Float(v float64) {
	w.pre()
	if math.IsNaN(v) || math.IsInf(v, 0) {
		w.buf = strconv.AppendQuote(w.buf, strconv.FormatFloat(v, 'g', -1, 64))
		return
	}
	w.buf = strconv.AppendFloat(w.buf, v, 'g', -1, 64)
}

// String writes s as a JSON string, or as {"base64": ...} when s is not
// valid UTF-8.
func (w *JSONWriter) String(s string) {
	w.pre()
	if !utf8.ValidString(s) {
		w.buf = appendBase64Object(w.buf, []byte(s))
		return
	}
	w.buf = appendJSONString(w.buf, s)
}

// Text writes s as a JSON string whatever its bytes: invalid UTF-8 is
// replaced by U+FFFD. It is for values the JSON Lines contract types as
// strings (client ids, topic names, notes), where readers expect a string
// more than every byte; bodies keep the lossless rule of String.
func (w *JSONWriter) Text(s string) {
	w.pre()
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	w.buf = appendJSONString(w.buf, s)
}

// NullableText writes s with Text, or null when s is nil.
func (w *JSONWriter) NullableText(s *string) {
	if s == nil {
		w.Null()
		return
	}
	w.Text(*s)
}

// NullableString writes s, or null when s is nil.
func (w *JSONWriter) NullableString(s *string) {
	if s == nil {
		w.Null()
		return
	}
	w.String(*s)
}

// ByteString writes b by the byte-string rule of the type comment; nil is null.
func (w *JSONWriter) ByteString(b []byte) {
	w.pre()
	switch {
	case b == nil:
		w.buf = append(w.buf, "null"...)
	default:
		// One pass for the common case, text (record keys and values);
		// what turns out not to be text is written again as base64.
		var ok bool
		if w.buf, ok = appendTextString(w.buf, b); !ok {
			w.buf = appendBase64Object(w.buf, b)
		}
	}
}

// IsText reports whether b is written as a JSON string (UTF-8 text
// without control characters other than tab, newline and carriage
// return, nor DEL); other bytes are written as {"base64": "..."}.
func IsText(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
			return false
		}
	}
	return utf8.Valid(b)
}

// jsonPlain marks the bytes appendTextString copies as they are: printable
// ASCII but the quote and the backslash.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// appendTextString is appendJSONString(dst, b) when isText(b), in one pass
// over b; otherwise it returns dst unchanged and false.
func appendTextString(dst []byte, b []byte) ([]byte, bool) {
	orig := len(dst)
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(b); {
		c := b[i]
		if jsonPlain[c] {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return dst[:orig], false
			}
			if r == '\u2028' || r == '\u2029' {
				// Valid JSON but line ends in JavaScript: escaped as
				// encoding/json does.
				dst = append(dst, b[start:i]...)
				dst = append(dst, `\u202`...)
				dst = append(dst, hexDigits[r&0xf])
				start = i + size
			}
			i += size
			continue
		}
		dst = append(dst, b[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default: // other control characters and DEL: not text
			return dst[:orig], false
		}
		i++
		start = i
	}
	dst = append(dst, b[start:]...)
	return append(dst, '"'), true
}

// UUID writes u in Kafka's base64 form.
func (w *JSONWriter) UUID(u UUID) {
	w.pre()
	w.buf = append(w.buf, '"')
	w.buf = base64.RawURLEncoding.AppendEncode(w.buf, u[:])
	w.buf = append(w.buf, '"')
}

func appendBase64Object(dst []byte, b []byte) []byte {
	dst = append(dst, `{"base64":"`...)
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, `"}`...)
}

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s, which must be valid UTF-8, for JSON. It is
// generic so that byte strings are written without a conversion.
func appendJSONString[T ~string | ~[]byte](dst []byte, s T) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x20 && c != '"' && c != '\\' && c != 0xe2:
			continue
		case c == 0xe2:
			// U+2028 and U+2029 (E2 80 A8/A9) are valid JSON but end lines in
			// JavaScript; escape them as encoding/json does.
			if i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xa8 || s[i+2] == 0xa9) {
				dst = append(dst, s[start:i]...)
				dst = append(dst, `\u202`...)
				dst = append(dst, hexDigits[s[i+2]&0xf])
				i += 2
				start = i + 1
			}
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
