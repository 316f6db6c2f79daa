package stats

import (
	"bytes"
	"testing"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/internal/capgen"
)

// BenchmarkStats times the serial path of `kdissect stats` on a 16 MB
// synthetic capture (package capgen): dissect, decode and aggregate, on one
// goroutine, with records decoded in full and counted only (as the command
// does, codec.RecordDecodeOptions.CountOnly). Besides MB/s it reports
// allocations and nanoseconds per record:
//
//	go test ./output/stats -run '^$' -bench Stats -benchmem
func BenchmarkStats(b *testing.B) {
	var buf bytes.Buffer
	res, err := capgen.Write(&buf, capgen.Config{Bytes: 16 << 20, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	capture := buf.Bytes()
	for _, countOnly := range []bool{false, true} {
		name := "full"
		if countOnly {
			name = "count-only"
		}
		b.Run(name, func(b *testing.B) {
			opts := dissect.DecodeOptions{Records: codec.RecordDecodeOptions{MaxDecompressedBytes: codec.DefaultMaxDecompressedBytes, CountOnly: countOnly}}
			b.SetBytes(int64(len(capture)))
			b.ReportAllocs()
			for b.Loop() {
				dec := dissect.NewDecoder(opts)
				col := New()
				err := dissect.New(dissect.Options{}).ReadCapture(bytes.NewReader(capture), func(ex *dissect.Exchange) {
					dec.Decode(ex)
					col.Add(ex)
				})
				if err != nil {
					b.Fatal(err)
				}
				if got := col.Report().Totals.Exchanges; got < int64(res.Exchanges) {
					b.Fatalf("%d of %d exchanges", got, res.Exchanges)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(res.Records), "ns/record")
		})
	}
}
