package dissect

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// Bounds on what a compressed capture may make the reader hold: the zstd
// window (zstd's --long=27 uses 128 MiB; the default levels 8 MiB at most)
// and the xz dictionary (xz -9 uses 64 MiB). A file asking for more is
// refused rather than trusted with the memory.
const (
	maxZstdWindow = 128 << 20
	maxXzDict     = 64 << 20
)

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
	xzMagic   = []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}
)

// decompressor recognises a gzip, zstd or xz stream at the start of br
// by its magic (RFC 1952, RFC 8878, the .xz file format 1.1.0) and returns
// a reader of its decompressed bytes and the compression's name; nil and
// "" when br is not compressed. The error is for a stream whose header is
// damaged or asks for more memory than the bounds above.
func decompressor(br *bufio.Reader) (io.Reader, string, error) {
	head, _ := br.Peek(len(xzMagic))
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, "gzip", fmt.Errorf("gzip header: %w", err)
		}
		return zr, "gzip", nil
	case bytes.HasPrefix(head, zstdMagic):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxWindow(maxZstdWindow))
		if err != nil {
			return nil, "zstd", fmt.Errorf("zstd: %w", err)
		}
		return zstdWindowHint{zr.IOReadCloser()}, "zstd", nil
	case bytes.HasPrefix(head, xzMagic):
		if err := checkXzDict(br); err != nil {
			return nil, "xz", err
		}
		zr, err := xz.NewReader(br)
		if err != nil {
			return nil, "xz", fmt.Errorf("xz header: %w", err)
		}
		return zr, "xz", nil
	}
	return nil, "", nil
}

// errXzDict is the cause when an xz file's dictionary exceeds maxXzDict.
var errXzDict = errors.New("xz dictionary larger than 64 MiB")

// checkXzDict reads the LZMA2 dictionary size in the first block header
// of the xz stream at the start of br (the .xz file format 1.1.0, 3.1 and
// 5.3.1: stream header, then block header size, block flags, optional
// sizes, filter flags), and refuses one above maxXzDict: the decoder
// would allocate it whole. xz writes every block of a stream with the
// same filters.
func checkXzDict(br *bufio.Reader) error {
	const streamHeader = 12
	b, _ := br.Peek(streamHeader + 1024)
	if len(b) <= streamHeader || b[streamHeader] == 0 {
		return nil // no block: an empty stream, or too short to say (the decoder will)
	}
	hdr := b[streamHeader:]
	size := (int(hdr[0]) + 1) * 4
	if len(hdr) < size || size < 8 {
		return nil
	}
	p := hdr[2:size]
	uvarint := func() (uint64, bool) {
		var v uint64
		for i := 0; i < 9 && len(p) > 0; i++ {
			c := p[0]
			p = p[1:]
			v |= uint64(c&0x7f) << (7 * i)
			if c < 0x80 {
				return v, true
			}
		}
		return 0, false
	}
	flags := hdr[1]
	for _, present := range []bool{flags&0x40 != 0, flags&0x80 != 0} {
		if present {
			if _, ok := uvarint(); !ok {
				return nil
			}
		}
	}
	for range int(flags&3) + 1 {
		id, ok1 := uvarint()
		n, ok2 := uvarint()
		if !ok1 || !ok2 || uint64(len(p)) < n {
			return nil
		}
		props := p[:n]
		p = p[n:]
		if id == 0x21 && n == 1 { // LZMA2
			c := props[0]
			if c > 40 {
				return nil
			}
			dict := uint64(2|c&1) << (c/2 + 11)
			if dict > maxXzDict {
				return fmt.Errorf("%w (%d MiB): refused", errXzDict, dict>>20)
			}
		}
	}
	return nil
}

// zstdWindowHint says, when a zstd frame's window exceeds maxZstdWindow,
// how to read the capture all the same.
type zstdWindowHint struct{ r io.Reader }

func (z zstdWindowHint) Read(p []byte) (int, error) {
	n, err := z.r.Read(p)
	if errors.Is(err, zstd.ErrWindowSizeExceeded) {
		err = fmt.Errorf("%w: kdissect takes windows up to %d MiB; decompress first: zstd -d --long=31 -c FILE | kdissect read -", err, maxZstdWindow>>20)
	}
	return n, err
}
