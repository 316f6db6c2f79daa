package codec

import "encoding/binary"

// ProduceAcks reads the Acks field of a Produce request frame (header and
// body, without the size prefix) without decoding the rest: Acks follows
// the request header and, from v3, the TransactionalId. It lets a
// dissector know, before any response could arrive, that a request with
// Acks=0 will get none. ok is false when the frame is not a Produce request
// or is too short.
func ProduceAcks(frame []byte) (acks int16, ok bool) {
	if len(frame) < 10 || binary.BigEndian.Uint16(frame) != 0 {
		return 0, false
	}
	version := int16(binary.BigEndian.Uint16(frame[2:]))
	r := NewReader(frame[8:])
	r.NullableString() // ClientId (never compact)
	flexible := version >= 9
	if flexible {
		skipTags(r)
	}
	if version >= 3 {
		if flexible {
			r.CompactNullableString()
		} else {
			r.NullableString()
		}
	}
	acks = r.Int16()
	return acks, r.Err() == nil
}

// skipTags reads past a tagged-field section.
func skipTags(r *Reader) {
	n := r.tagCount()
	for i := 0; i < n && r.err == nil; i++ {
		_, end := r.tagStart(-1)
		if r.err == nil {
			r.off = end
		}
	}
}
