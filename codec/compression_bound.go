package codec

import (
	"bytes"
	"encoding/binary"
)

// decompressedBound returns an upper bound of what src, a payload
// compressed with c, decompresses to, read from its framing without
// decompressing it; ok is false when the framing does not say (then only
// decompressing tells). For RecordDecodeOptions.CountOnly, which takes a
// compressed batch at its header only when decompressing it could not
// exhaust the budget: a decompression bomb is decoded in full, as JSON
// decodes it, and so counted alike.
//
//   - gzip: deflate's largest ratio, about 1032:1;
//   - snappy: the lengths its blocks declare (raw or xerial framing),
//     which decoding checks;
//   - lz4 (frame format): per block, its size when stored, else the
//     smaller of the frame's block maximum and 255 times its size;
//   - zstd: per block, its size when raw or RLE, else the format's block
//     maximum, 128 KiB.
func decompressedBound(c Compression, src []byte) (n int64, ok bool) {
	switch c {
	case CompressionNone:
		return int64(len(src)), true
	case CompressionGzip:
		return 1032*int64(len(src)) + 1024, true
	case CompressionSnappy:
		return snappyBound(src)
	case CompressionLZ4:
		return lz4Bound(src)
	case CompressionZstd:
		return zstdBound(src)
	}
	return 0, false
}

func snappyBound(src []byte) (int64, bool) {
	if len(src) < xerialHeaderLen || !bytes.Equal(src[:8], xerialMagic[:]) {
		n, err := snappyLen(src)
		return n, err == nil
	}
	var total int64
	for p := xerialHeaderLen; p < len(src); {
		chunk, next, err := xerialChunk(src, p)
		if err != nil {
			return 0, false
		}
		n, err := snappyLen(chunk)
		if err != nil {
			return 0, false
		}
		total += n
		p = next
	}
	return total, true
}

// lz4Bound walks the blocks of one or more LZ4 frames.
func lz4Bound(src []byte) (int64, bool) {
	var total int64
	for p := 0; p < len(src); {
		h, ok := parseLZ4Header(src[p:])
		if !ok {
			return 0, false
		}
		flg, bd := src[p+4], src[p+5]
		blockMax := int64(1) << (8 + 2*int64(bd>>4&7)) // 4: 64 KiB ... 7: 4 MiB
		if bd>>4&7 < 4 {
			return 0, false
		}
		p += h.len
		for {
			if len(src)-p < 4 {
				return 0, false
			}
			size := binary.LittleEndian.Uint32(src[p:])
			p += 4
			if size == 0 {
				break // EndMark
			}
			n := int64(size &^ (1 << 31))
			if n > int64(len(src)-p) {
				return 0, false
			}
			if size&(1<<31) != 0 {
				total += n // stored
			} else {
				total += min(blockMax, 255*n+16)
			}
			p += int(n)
			if flg&0x10 != 0 {
				p += 4 // block checksum
			}
		}
		if flg&0x04 != 0 {
			p += 4 // content checksum
		}
		if p > len(src) {
			return 0, false
		}
	}
	return total, true
}

// zstdBound walks the blocks of one or more zstd frames (skippable frames
// hold nothing).
func zstdBound(src []byte) (int64, bool) {
	const (
		frameMagic     = 0xFD2FB528
		blockMax       = 128 << 10
		skippableMagic = 0x184D2A50
	)
	var total int64
	for p := 0; p < len(src); {
		if len(src)-p < 5 {
			return 0, false
		}
		magic := binary.LittleEndian.Uint32(src[p:])
		if magic&^0xf == skippableMagic {
			if len(src)-p < 8 {
				return 0, false
			}
			p += 8 + int(binary.LittleEndian.Uint32(src[p+4:]))
			continue
		}
		if magic != frameMagic {
			return 0, false
		}
		fhd := src[p+4]
		p += 5
		single := fhd&0x20 != 0
		if !single {
			p++ // Window_Descriptor
		}
		p += [4]int{0, 1, 2, 4}[fhd&3] // Dictionary_ID
		fcs := [4]int{0, 2, 4, 8}[fhd>>6]
		if fcs == 0 && single {
			fcs = 1
		}
		p += fcs
		for last := false; !last; {
			if len(src)-p < 3 {
				return 0, false
			}
			h := uint32(src[p]) | uint32(src[p+1])<<8 | uint32(src[p+2])<<16
			p += 3
			last = h&1 != 0
			size := int64(h >> 3)
			switch h >> 1 & 3 {
			case 0: // raw
				total += size
				p += int(size)
			case 1: // RLE: one byte, repeated size times
				total += size
				p++
			case 2: // compressed
				total += blockMax
				p += int(size)
			default:
				return 0, false
			}
			if p > len(src) {
				return 0, false
			}
		}
		if fhd&0x04 != 0 {
			p += 4 // content checksum
		}
		if p > len(src) {
			return 0, false
		}
	}
	return total, true
}
