package render

import (
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
)

// zstdPages is the zstd codec of a Parquet writer's pages: one encoder,
// kept for the writer's life. parquet-go's own codec takes its encoders
// from a pool, which the collector empties, and each new encoder
// allocates its history window afresh: with the garbage that rendering
// bodies makes, that was most of the bytes a Parquet export allocated.
// The encoder is safe for concurrent use (zstd.Encoder.EncodeAll).
type zstdPages struct {
	enc *zstd.Encoder
	dec *zstd.Decoder
}

// newZstdPages returns the codec. The window need not be larger than a
// page: each page is compressed alone.
func newZstdPages() *zstdPages {
	enc, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(zstd.SpeedFastest),
		zstd.WithEncoderConcurrency(1),
		zstd.WithWindowSize(1<<20),
		zstd.WithZeroFrames(true),
		zstd.WithEncoderCRC(false),
	)
	if err != nil {
		panic(err) // only for invalid options, which these are not
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		panic(err)
	}
	return &zstdPages{enc: enc, dec: dec}
}

func (*zstdPages) String() string                            { return "ZSTD" }
func (*zstdPages) CompressionCodec() format.CompressionCodec { return format.Zstd }

func (z *zstdPages) Encode(dst, src []byte) ([]byte, error) {
	return z.enc.EncodeAll(src, dst[:0]), nil
}

func (z *zstdPages) Decode(dst, src []byte) ([]byte, error) {
	return z.dec.DecodeAll(src, dst[:0])
}

// close frees the encoder's and decoder's goroutines and buffers.
func (z *zstdPages) close() {
	z.enc.Close()
	z.dec.Close()
}
