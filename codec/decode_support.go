package codec

import (
	"fmt"
	"unsafe"
)

// Helpers used by the generated decoders and encoders.

// checkCount fails when n elements of at least minSize bytes each cannot fit
// in the remaining bytes, so that a lying count never drives an allocation.
func (r *Reader) checkCount(n, minSize int) {
	if r.err == nil && n > r.Remaining()/minSize {
		r.Fail(fmt.Errorf("%w: %d elements of at least %d bytes with %d bytes remaining", ErrInvalidLength, n, minSize, r.Remaining()))
	}
}

// tagCount reads the number of tagged fields; each takes at least two bytes.
func (r *Reader) tagCount() int {
	n := int(r.Uvarint())
	r.checkCount(n, 2)
	if r.err != nil {
		return 0
	}
	return n
}

// tagStart reads a tag and its size and returns the tag and the offset
// where its data ends. prev is the previous tag of the section, -1 for the
// first: Kafka requires ascending tags, and a section out of order is kept
// but cannot be re-encoded as it was, so it is a warning.
func (r *Reader) tagStart(prev int64) (tag uint32, end int) {
	tag = r.Uvarint()
	if r.err == nil && int64(tag) <= prev {
		r.Warn("tagged field %d after tagged field %d: tags out of order", tag, prev)
	}
	size := int64(r.Uvarint())
	if r.err != nil {
		return 0, r.off
	}
	if size > int64(r.Remaining()) {
		r.Fail(fmt.Errorf("%w: tagged field %d of %d bytes with %d bytes remaining", ErrInvalidLength, tag, size, r.Remaining()))
		return 0, r.off
	}
	return tag, r.off + int(size)
}

// limited is what a limit hides, for unlimit.
type limited struct {
	buf    []byte
	hidden int
}

// limit restricts reading to end (at most the frame's end) and returns
// what it hides for unlimit.
func (r *Reader) limit(end int) limited {
	full := limited{r.buf, r.hidden}
	if end <= len(r.buf) {
		r.buf, r.hidden = r.buf[:end], 0
	} else {
		r.hidden = end - len(r.buf) // a gapped Reader: buf ends at a gap
	}
	return full
}

// unlimit ends a limit: the known tagged field must have used all its bytes.
func (r *Reader) unlimit(full limited, end int, tag uint32) {
	// A field stepped over in a gap (errSkip) leaves the tag's bytes
	// after it as unread as a field read does.
	if (r.err == nil || r.err == errSkip) && r.off < end {
		r.Warn("tagged field %d: %d bytes not read", tag, end-r.off)
		if r.tr != nil {
			r.tr.Begin("(unread)", r.off)
			r.tr.End(end, nil)
		}
		r.off = end
	}
	// In a gapped Reader, buf may end before off now: the next read
	// refreshes it.
	r.buf, r.hidden = full.buf, full.hidden
}

func ptrString(s string) *string { return &s }

// nullMarker reads the byte before a nullable struct: -1 for null, 1 for
// present. Kafka takes any negative value as null and any other as present;
// values other than -1 and 1 cannot be re-encoded as they were, so they are
// warned about.
func (r *Reader) nullMarker() bool {
	v := r.int8Len()
	if r.err == nil && v != -1 && v != 1 {
		as := "present"
		if v < 0 {
			as = "null"
		}
		r.Warn("nullable struct marker %d, read as %s", v, as)
	}
	return v < 0
}

// writeUnknownTagsJSON writes kept tagged fields as
// "UnknownTaggedFields": [{"Tag": n, "Data": bytes}].
func writeUnknownTagsJSON(w *JSONWriter, tags []TaggedField) {
	if len(tags) == 0 {
		return
	}
	w.Key("UnknownTaggedFields")
	w.BeginArray()
	for _, t := range tags {
		w.BeginObject()
		w.Key("Tag")
		w.Uint(uint64(t.Tag))
		w.Key("Data")
		w.ByteString(t.Data)
		w.EndObject()
	}
	w.EndArray()
}

// tracedNullMarker is nullMarker, reported to a Tracer as a field of its own.
func (r *Reader) tracedNullMarker() bool {
	off := r.off
	null := r.nullMarker()
	if r.tr != nil && r.err == nil {
		r.tr.Begin("(null marker)", off)
		r.tr.End(r.off, null)
	}
	return null
}

// preallocBytes is how much memory an array may reserve before its elements
// decode.
const preallocBytes = 1 << 20

// prealloc returns an empty slice for an array of n elements (n already
// checked against the bytes remaining): room for all of them when that
// takes at most preallocBytes, else room for some, the slice growing as
// elements actually decode, so that a count that lies costs what the
// frame really holds, not what it claims.
func prealloc[T any](n int) []T {
	var zero T
	limit := max(1, preallocBytes/max(1, int(unsafe.Sizeof(zero))))
	return make([]T, 0, min(n, limit))
}

// grow returns a with room for one more element of an array of n elements:
// when a is full, a copy with twice its capacity, but never more than n.
// Elements cost at most twice what decodes, and an honest count ends with
// the capacity it states (append would grow large slices by 1.25 times,
// 5 times the final size in all, and past n).
func grow[T any](a []T, n int) []T {
	if len(a) < cap(a) {
		return a
	}
	b := make([]T, len(a), max(len(a)+1, min(n, 2*cap(a))))
	copy(b, a)
	return b
}
