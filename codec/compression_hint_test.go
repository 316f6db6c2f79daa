package codec

import (
	"bytes"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// A zstd frame of a long run of text declares a content size over
// deflate's ratio; readCapped is still handed that size, so the output is
// allocated once and not gathered in chunks and copied (twice its size at
// once: 100 MB for a 50 MB record value). A declared size beyond what zstd
// can expand the frame to is still not believed.
func TestZstdContentSizeHint(t *testing.T) {
	const size = 16 << 20
	src, err := Compress(CompressionZstd, nil, bytes.Repeat([]byte("value of kdissect; "), size/19+1)[:size])
	if err != nil {
		t.Fatal(err)
	}
	var h zstd.Header
	if err := h.Decode(src); err != nil || !h.HasFCS || h.FrameContentSize != size {
		t.Fatalf("frame header %+v, %v: want a content size of %d", h, err, size)
	}
	if int64(len(src))*deflateMaxRatio >= size {
		t.Fatalf("%d compressed bytes: not beyond deflate's ratio, the case is not tested", len(src))
	}
	if got := plausibleHint(size, len(src), DefaultMaxDecompressedBytes, zstdMaxRatio); got != size {
		t.Errorf("hint %d for the frame's %d bytes, want its content size %d", got, len(src), size)
	}
	if got := plausibleHint(size, 100, DefaultMaxDecompressedBytes, zstdMaxRatio); got == size {
		t.Errorf("hint %d for 100 bytes: a lying content size believed", got)
	}
	out, err := Decompress(CompressionZstd, src, DefaultMaxDecompressedBytes)
	if err != nil || len(out) != size || cap(out) != size {
		t.Errorf("decompressed %d bytes (cap %d), %v; want %d", len(out), cap(out), err, size)
	}
}
