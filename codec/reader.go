package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
)

// Sentinel errors returned (wrapped in a *DecodeError) by decoders.
var (
	// ErrTruncated means a field needs more bytes than remain in the frame.
	ErrTruncated = errors.New("truncated")
	// ErrInvalidLength means a length or count field is negative (other than
	// the -1 null marker where it is allowed) or larger than the bytes that
	// remain, so it cannot be honoured without reading past the frame.
	ErrInvalidLength = errors.New("invalid length")
	// ErrVarintOverflow means a varint ran past its maximum width.
	ErrVarintOverflow = errors.New("varint overflow")
	// ErrUnsupportedVersion means the codec has no layout for the ApiVersion.
	ErrUnsupportedVersion = errors.New("unsupported version")
	// ErrUnknownAPIKey means the ApiKey is not one the codec knows.
	ErrUnknownAPIKey = errors.New("unknown api key")
	// ErrNotCaptured means a length, count or varint that locates what
	// follows fell in a gap of a gapped Reader (NewGappedReader), or a
	// read ran into the gap at the frame's end: decoding stopped there;
	// what was read before stands (see Reader.NotCaptured).
	ErrNotCaptured = errors.New("not captured")
)

// DecodeError says where decoding stopped: the byte offset in the decoded
// buffer and the path of the field being read (for example
// "TopicData[0].PartitionData[2].Records").
type DecodeError struct {
	Offset int
	Path   string
	Err    error
}

func (e *DecodeError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("at offset %d: %v", e.Offset, e.Err)
	}
	return fmt.Sprintf("%s at offset %d: %v", e.Path, e.Offset, e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// Reader decodes Kafka wire primitives from a byte slice.
//
// It keeps the first error and returns zero values after it, so callers read
// a whole structure and check Err once. Every count and length is checked
// against the bytes that remain before anything is allocated, so a lying
// length field costs an error, never memory. Byte slices returned by the
// Reader alias the input buffer.
//
// A Reader made by NewGappedReader reads a frame with holes: see there.
type Reader struct {
	buf  []byte
	off  int
	err  error
	path []string // field names, innermost first, pushed while unwinding after an error

	// hidden is how many bytes of the frame follow buf: 0 but in a
	// gapped Reader, whose buf ends where the bytes captured from off on
	// end (at a gap), so that every read is checked against the bytes it
	// may take by the one comparison a Reader over a whole frame makes.
	// The bytes remaining are len(buf) + hidden - off.
	hidden int
	g      *gapped // nil but in a gapped Reader

	// Warnings collects problems that did not stop decoding, such as a null
	// string in a field Kafka declares non-nullable.
	Warnings []string

	tr Tracer // nil unless a caller wants every field's byte range
}

// Tracer receives the byte range of every field a generated decoder reads,
// innermost fields nested inside their struct and array: Begin when a
// field starts, End when it is read. For annotated hexdumps. Offsets are
// into the Reader's buffer. value is the decoded value of a primitive field
// (int8..int64, uint16, uint32, float64, bool, string, *string, []byte,
// UUID, TaggedField), a *Records for a record set, nil for a struct or an
// array; in a gapped Reader (NewGappedReader), a NotCapturedValue for a
// field whose bytes fell in a gap (a records field with holes reports its
// *Records, whose Gaps say where). After a decoding error, and after a
// gapped Reader stops (ErrNotCaptured), no field is ended: the fields
// begun last stay open. Bytes a known tagged field leaves unread are
// reported as a field "(unread)".
type Tracer interface {
	Begin(name string, off int)
	BeginIndex(i, off int)
	End(off int, value any)
}

// SetTracer makes r report field ranges to t (nil stops it).
func (r *Reader) SetTracer(t Tracer) {
	if r.g != nil {
		r.g.tr.user = t
		return // r.tr is the gap tracer, which passes every call on to t
	}
	r.tr = t
}

// NewReader returns a Reader over b.
func NewReader(b []byte) *Reader { return &Reader{buf: b} }

// Reset points r at b and clears its error and warnings; the Warnings
// slice is reused, so a caller keeping it across a Reset must copy it. A
// gapped Reader becomes a Reader over the whole of b, keeping its
// caller's Tracer.
func (r *Reader) Reset(b []byte) {
	tr := r.tr
	if r.g != nil {
		tr = r.g.tr.user
	}
	*r = Reader{buf: b, Warnings: r.Warnings[:0], tr: tr}
}

// Err returns the first error met, with the field path, or nil.
func (r *Reader) Err() error {
	if r.err == nil {
		return nil
	}
	if r.err == errSkip {
		r.unskip()
	}
	var de *DecodeError
	if errors.As(r.err, &de) {
		if len(r.path) > 0 {
			p := make([]string, len(r.path))
			for i, s := range r.path {
				p[len(r.path)-1-i] = s
			}
			de.Path = joinPath(p)
			r.path = r.path[:0]
			if r.g != nil && r.g.stop {
				// The stop is the last field listed: nothing is read
				// after it.
				r.g.nc[len(r.g.nc)-1].Path = de.Path
			}
		}
		return de
	}
	return r.err
}

func joinPath(p []string) string {
	var b strings.Builder
	for i, s := range p {
		if i > 0 && !strings.HasPrefix(s, "[") {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}

// Failed reports whether an error has been met.
func (r *Reader) Failed() bool { return r.err != nil }

// Offset returns the number of bytes consumed.
func (r *Reader) Offset() int { return r.off }

// Remaining returns the number of bytes not yet consumed: of the frame's
// size, for a gapped Reader, captured or not.
func (r *Reader) Remaining() int { return len(r.buf) + r.hidden - r.off }

// Fail records err at the current offset unless an error is already held.
func (r *Reader) Fail(err error) {
	if r.err == nil {
		r.err = &DecodeError{Offset: r.off, Err: err}
	}
}

// PushPath records that the error met happened inside field name. Generated
// decoders call it while returning, innermost field first.
func (r *Reader) PushPath(name string) { r.path = append(r.path, name) }

// PushIndex records that the error met happened inside array element i.
func (r *Reader) PushIndex(i int) { r.path = append(r.path, fmt.Sprintf("[%d]", i)) }

// maxWarnings bounds Warnings: a frame full of lenient reads must not cost
// a formatted string per field.
const maxWarnings = 16

// Warn records a problem that does not stop decoding.
func (r *Reader) Warn(format string, args ...any) {
	switch n := len(r.Warnings); {
	case n < maxWarnings:
		r.Warnings = append(r.Warnings, fmt.Sprintf("at offset %d: ", r.off)+fmt.Sprintf(format, args...))
	case n == maxWarnings:
		r.Warnings = append(r.Warnings, "further warnings not shown")
	}
}

// need reports whether the n bytes of a field at off can be read: in a
// gapped Reader, a field whose bytes fall in a gap is stepped over (see
// needSlow).
func (r *Reader) need(n int) bool {
	if r.err != nil {
		return false
	}
	if n > len(r.buf)-r.off {
		return r.needSlow(n, false)
	}
	return true
}

// needLen is need for a length, count or marker, which locates what
// follows: in a gapped Reader, one that falls in a gap stops decoding.
func (r *Reader) needLen(n int) bool {
	if r.err != nil {
		return false
	}
	if n > len(r.buf)-r.off {
		return r.needSlow(n, true)
	}
	return true
}

// Int8 reads a signed byte.
func (r *Reader) Int8() int8 {
	if !r.need(1) {
		return 0
	}
	v := int8(r.buf[r.off])
	r.off++
	return v
}

// int8Len reads a signed byte that locates what follows (a nullable
// struct's marker).
func (r *Reader) int8Len() int8 {
	if !r.needLen(1) {
		return 0
	}
	v := int8(r.buf[r.off])
	r.off++
	return v
}

// int16Len reads an int16 length.
func (r *Reader) int16Len() int16 {
	if !r.needLen(2) {
		return 0
	}
	v := int16(binary.BigEndian.Uint16(r.buf[r.off:]))
	r.off += 2
	return v
}

// int32Len reads an int32 length or count.
func (r *Reader) int32Len() int32 {
	if !r.needLen(4) {
		return 0
	}
	v := int32(binary.BigEndian.Uint32(r.buf[r.off:]))
	r.off += 4
	return v
}

// Bool reads a boolean byte. Kafka reads any non-zero value as true; a
// value other than 0 or 1 is also a warning, since it cannot be re-encoded.
func (r *Reader) Bool() bool {
	v := r.Int8()
	if v != 0 && v != 1 {
		r.Warn("boolean byte %d, read as true", v)
	}
	return v != 0
}

// Int16 reads a big-endian int16.
func (r *Reader) Int16() int16 {
	if !r.need(2) {
		return 0
	}
	v := int16(binary.BigEndian.Uint16(r.buf[r.off:]))
	r.off += 2
	return v
}

// Uint16 reads a big-endian uint16.
func (r *Reader) Uint16() uint16 { return uint16(r.Int16()) }

// Int32 reads a big-endian int32.
func (r *Reader) Int32() int32 {
	if !r.need(4) {
		return 0
	}
	v := int32(binary.BigEndian.Uint32(r.buf[r.off:]))
	r.off += 4
	return v
}

// Uint32 reads a big-endian uint32.
func (r *Reader) Uint32() uint32 { return uint32(r.Int32()) }

// Int64 reads a big-endian int64.
func (r *Reader) Int64() int64 {
	if !r.need(8) {
		return 0
	}
	v := int64(binary.BigEndian.Uint64(r.buf[r.off:]))
	r.off += 8
	return v
}

// Float64 reads a big-endian IEEE 754 double.
func (r *Reader) Float64() float64 { return math.Float64frombits(uint64(r.Int64())) }

// UUID reads 16 bytes.
func (r *Reader) UUID() UUID {
	var u UUID
	if r.need(16) {
		copy(u[:], r.buf[r.off:])
		r.off += 16
	}
	return u
}

// Uvarint reads an unsigned varint of at most 5 bytes (32 bits), as used by
// compact lengths and tagged fields (KIP-482). In a gapped Reader a varint
// with a byte in a gap stops decoding: varints are lengths, counts and tags.
func (r *Reader) Uvarint() uint32 {
	if r.err != nil {
		return 0
	}
	start := r.off
	var v uint32
	for i := 0; i < 5; i++ {
		if r.off >= len(r.buf) && !r.moreSlow(start) {
			return 0
		}
		b := r.buf[r.off]
		r.off++
		if i == 4 && b > 0x0f {
			r.Fail(ErrVarintOverflow)
			return 0
		}
		v |= uint32(b&0x7f) << (7 * i)
		if b < 0x80 {
			return v
		}
	}
	r.Fail(ErrVarintOverflow)
	return 0
}

// Uvarlong reads an unsigned varint of at most 10 bytes (64 bits).
func (r *Reader) Uvarlong() uint64 {
	if r.err != nil {
		return 0
	}
	if r.off < len(r.buf) {
		v, n := binary.Uvarint(r.buf[r.off:])
		if n > 0 {
			r.off += n
			return v
		}
		if n < 0 {
			r.Fail(ErrVarintOverflow)
			return 0
		}
	}
	return r.uvarlongSlow()
}

// uvarlongSlow is Uvarlong for a varint that runs past buf: truncated, or
// in a gapped Reader running into a gap.
func (r *Reader) uvarlongSlow() uint64 {
	start := r.off
	var v uint64
	for i := 0; i < binary.MaxVarintLen64; i++ {
		if r.off >= len(r.buf) && !r.moreSlow(start) {
			return 0
		}
		b := r.buf[r.off]
		r.off++
		if i == binary.MaxVarintLen64-1 && b > 1 {
			r.Fail(ErrVarintOverflow)
			return 0
		}
		v |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			return v
		}
	}
	r.Fail(ErrVarintOverflow)
	return 0
}

// Varint reads a zig-zag encoded signed varint of at most 32 bits, as used in
// record batch v2 records.
func (r *Reader) Varint() int32 {
	u := r.Uvarint()
	return int32(u>>1) ^ -int32(u&1)
}

// Varlong reads a zig-zag encoded signed varint of at most 64 bits.
func (r *Reader) Varlong() int64 {
	u := r.Uvarlong()
	return int64(u>>1) ^ -int64(u&1)
}

// Span returns the next n bytes without copying.
func (r *Reader) Span(n int) []byte {
	if n < 0 {
		r.Fail(fmt.Errorf("%w: %d", ErrInvalidLength, n))
		return nil
	}
	if !r.need(n) {
		return nil
	}
	b := r.buf[r.off : r.off+n : r.off+n]
	r.off += n
	return b
}

// Rest returns every remaining byte without copying.
func (r *Reader) Rest() []byte { return r.Span(r.Remaining()) }

// length validates a decoded length: -1 is null (returned as -1 with
// null=true), anything else must be non-negative and fit in the remaining
// bytes.
func (r *Reader) length(n int64, what string) (int, bool) {
	if r.err != nil {
		return 0, false
	}
	if n == -1 {
		return -1, true
	}
	if n < 0 || n > int64(r.Remaining()) {
		r.Fail(fmt.Errorf("%w: %s length %d with %d bytes remaining", ErrInvalidLength, what, n, r.Remaining()))
		return 0, false
	}
	return int(n), false
}

func (r *Reader) stringOf(n int, null bool, nullable bool) (string, bool) {
	if null {
		if !nullable {
			r.Warn("null string in a non-nullable field, read as empty")
		}
		return "", true
	}
	if r.err != nil {
		return "", false
	}
	if n > len(r.buf)-r.off && !r.needSlow(n, false) {
		return "", false // content not captured (length checked)
	}
	s := string(r.buf[r.off : r.off+n])
	r.off += n
	return s, false
}

// String reads an int16-length string. A null (-1) is read as "" with a warning.
func (r *Reader) String() string {
	n, null := r.length(int64(r.int16Len()), "string")
	s, _ := r.stringOf(n, null, false)
	return s
}

// NullableString reads an int16-length string that may be null.
func (r *Reader) NullableString() *string {
	n, null := r.length(int64(r.int16Len()), "string")
	s, isNull := r.stringOf(n, null, true)
	if isNull || r.err != nil {
		return nil
	}
	return &s
}

// CompactString reads a uvarint(length+1) string (KIP-482). A null is read as "" with a warning.
func (r *Reader) CompactString() string {
	n, null := r.length(int64(r.Uvarint())-1, "compact string")
	s, _ := r.stringOf(n, null, false)
	return s
}

// CompactNullableString reads a compact string that may be null.
func (r *Reader) CompactNullableString() *string {
	n, null := r.length(int64(r.Uvarint())-1, "compact string")
	s, isNull := r.stringOf(n, null, true)
	if isNull || r.err != nil {
		return nil
	}
	return &s
}

func (r *Reader) bytesOf(n int, null bool, nullable bool) []byte {
	if null {
		if !nullable {
			r.Warn("null bytes in a non-nullable field, read as empty")
			return []byte{}
		}
		return nil
	}
	if r.err != nil {
		return nil
	}
	return r.Span(n)
}

// Bytes reads int32-length bytes. A null is read as empty with a warning.
func (r *Reader) Bytes() []byte {
	n, null := r.length(int64(r.int32Len()), "bytes")
	return r.bytesOf(n, null, false)
}

// NullableBytes reads int32-length bytes; null is returned as nil.
func (r *Reader) NullableBytes() []byte {
	n, null := r.length(int64(r.int32Len()), "bytes")
	return r.bytesOf(n, null, true)
}

// CompactBytes reads uvarint(length+1) bytes. A null is read as empty with a warning.
func (r *Reader) CompactBytes() []byte {
	n, null := r.length(int64(r.Uvarint())-1, "compact bytes")
	return r.bytesOf(n, null, false)
}

// CompactNullableBytes reads compact bytes; null is returned as nil.
func (r *Reader) CompactNullableBytes() []byte {
	n, null := r.length(int64(r.Uvarint())-1, "compact bytes")
	return r.bytesOf(n, null, true)
}

// VarintBytes reads zig-zag varint-length bytes (record keys and values);
// a length of -1 is null and returned as nil.
func (r *Reader) VarintBytes() []byte {
	n, null := r.length(int64(r.Varint()), "varint bytes")
	if null {
		return nil
	}
	return r.bytesOf(n, false, true)
}

// ArrayLen reads an int32 array count. It returns -1 for a null array. A
// count larger than the remaining bytes is an error, since every element
// takes at least one byte.
func (r *Reader) ArrayLen() int {
	n, null := r.length(int64(r.int32Len()), "array")
	if null {
		return -1
	}
	return n
}

// CompactArrayLen reads a uvarint(count+1) array count; -1 means null.
func (r *Reader) CompactArrayLen() int {
	n, null := r.length(int64(r.Uvarint())-1, "compact array")
	if null {
		return -1
	}
	return n
}

// NotNull reports a warning when a non-nullable array was null and returns
// n clamped to zero.
func (r *Reader) NotNull(n int) int {
	if n < 0 {
		r.Warn("null array in a non-nullable field, read as empty")
		return 0
	}
	return n
}
