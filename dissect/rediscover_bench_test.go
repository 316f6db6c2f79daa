package dissect

import (
	"bytes"
	"io"
	"testing"

	"github.com/kdissect/kdissect/internal/capgen"
)

// What ReadOptions.Rediscover costs: a capture file read with and without
// the first pass that learns brokers (capgen's synthetic capture, held in
// memory: MB/s counts its bytes). Without brokers to learn, the first
// pass is reassembly and framing spent for nothing.
func BenchmarkReadCapturesRediscover(b *testing.B) {
	var buf bytes.Buffer
	res, err := capgen.Write(&buf, capgen.Config{Bytes: 16 << 20, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	caps := []Capture{{Name: "capgen", Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}}
	for _, rediscover := range []bool{false, true} {
		name := "once"
		if rediscover {
			name = "twice"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				if err := New(Options{}).ReadCaptures(caps, ReadOptions{Rediscover: rediscover}, func(*Exchange) { n++ }); err != nil {
					b.Fatal(err)
				}
				if n != res.Exchanges {
					b.Fatalf("%d exchanges, want %d", n, res.Exchanges)
				}
			}
		})
	}
}
