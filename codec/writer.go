package codec

import (
	"encoding/binary"
	"math"
)

// The Append* functions encode Kafka wire primitives by appending to dst and
// returning the extended slice, in the manner of strconv.AppendInt.

// AppendInt8 appends v.
func AppendInt8(dst []byte, v int8) []byte { return append(dst, byte(v)) }

// AppendBool appends 1 for true, 0 for false.
func AppendBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, 1)
	}
	return append(dst, 0)
}

// AppendInt16 appends v big-endian.
func AppendInt16(dst []byte, v int16) []byte { return binary.BigEndian.AppendUint16(dst, uint16(v)) }

// AppendUint16 appends v big-endian.
func AppendUint16(dst []byte, v uint16) []byte { return binary.BigEndian.AppendUint16(dst, v) }

// AppendInt32 appends v big-endian.
func AppendInt32(dst []byte, v int32) []byte { return binary.BigEndian.AppendUint32(dst, uint32(v)) }

// AppendUint32 appends v big-endian.
func AppendUint32(dst []byte, v uint32) []byte { return binary.BigEndian.AppendUint32(dst, v) }

// AppendInt64 appends v big-endian.
func AppendInt64(dst []byte, v int64) []byte { return binary.BigEndian.AppendUint64(dst, uint64(v)) }

// AppendFloat64 appends v as a big-endian IEEE 754 double.
func AppendFloat64(dst []byte, v float64) []byte {
	return binary.BigEndian.AppendUint64(dst, math.Float64bits(v))
}

// AppendUUID appends the 16 bytes of u.
func AppendUUID(dst []byte, u UUID) []byte { return append(dst, u[:]...) }

// AppendUvarint appends v as an unsigned varint.
func AppendUvarint(dst []byte, v uint32) []byte { return binary.AppendUvarint(dst, uint64(v)) }

// AppendUvarlong appends v as an unsigned varint.
func AppendUvarlong(dst []byte, v uint64) []byte { return binary.AppendUvarint(dst, v) }

// AppendVarint appends v zig-zag encoded.
func AppendVarint(dst []byte, v int32) []byte {
	return binary.AppendUvarint(dst, uint64(uint32(v<<1)^uint32(v>>31)))
}

// AppendVarlong appends v zig-zag encoded.
func AppendVarlong(dst []byte, v int64) []byte { return binary.AppendVarint(dst, v) }

// AppendString appends an int16-length string.
func AppendString(dst []byte, s string) []byte {
	return append(AppendInt16(dst, int16(len(s))), s...)
}

// AppendNullableString appends an int16-length string, -1 for nil.
func AppendNullableString(dst []byte, s *string) []byte {
	if s == nil {
		return AppendInt16(dst, -1)
	}
	return AppendString(dst, *s)
}

// AppendCompactString appends a uvarint(length+1) string.
func AppendCompactString(dst []byte, s string) []byte {
	return append(AppendUvarint(dst, uint32(len(s))+1), s...)
}

// AppendCompactNullableString appends a compact string, 0 for nil.
func AppendCompactNullableString(dst []byte, s *string) []byte {
	if s == nil {
		return append(dst, 0)
	}
	return AppendCompactString(dst, *s)
}

// AppendBytes appends int32-length bytes (a nil slice is written as empty).
func AppendBytes(dst []byte, b []byte) []byte {
	return append(AppendInt32(dst, int32(len(b))), b...)
}

// AppendNullableBytes appends int32-length bytes, -1 for nil.
func AppendNullableBytes(dst []byte, b []byte) []byte {
	if b == nil {
		return AppendInt32(dst, -1)
	}
	return AppendBytes(dst, b)
}

// AppendCompactBytes appends uvarint(length+1) bytes.
func AppendCompactBytes(dst []byte, b []byte) []byte {
	return append(AppendUvarint(dst, uint32(len(b))+1), b...)
}

// AppendCompactNullableBytes appends compact bytes, 0 for nil.
func AppendCompactNullableBytes(dst []byte, b []byte) []byte {
	if b == nil {
		return append(dst, 0)
	}
	return AppendCompactBytes(dst, b)
}

// AppendVarintBytes appends zig-zag varint-length bytes, -1 for nil (record keys and values).
func AppendVarintBytes(dst []byte, b []byte) []byte {
	if b == nil {
		return AppendVarint(dst, -1)
	}
	return append(AppendVarint(dst, int32(len(b))), b...)
}

// AppendArrayLen appends an int32 array count, -1 when null.
func AppendArrayLen(dst []byte, n int, null bool) []byte {
	if null {
		return AppendInt32(dst, -1)
	}
	return AppendInt32(dst, int32(n))
}

// AppendCompactArrayLen appends a uvarint(count+1) array count, 0 when null.
func AppendCompactArrayLen(dst []byte, n int, null bool) []byte {
	if null {
		return append(dst, 0)
	}
	return AppendUvarint(dst, uint32(n)+1)
}
