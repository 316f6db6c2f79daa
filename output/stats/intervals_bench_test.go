package stats

import (
	"bytes"
	"testing"
	"time"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/internal/capgen"
)

// BenchmarkCollectorAdd times Collector.Add alone on the decoded exchanges
// of a 16 MB synthetic capture (package capgen): without intervals, and
// with them at 1 ms (many intervals, merged past MaxIntervals) and 1 s:
//
//	go test ./output/stats -run '^$' -bench CollectorAdd -benchmem
func BenchmarkCollectorAdd(b *testing.B) {
	var buf bytes.Buffer
	if _, err := capgen.Write(&buf, capgen.Config{Bytes: 16 << 20, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	d := dissect.New(dissect.Options{})
	dec := dissect.NewDecoder(dissect.DecodeOptions{Records: codec.RecordDecodeOptions{MaxDecompressedBytes: codec.DefaultMaxDecompressedBytes, CountOnly: true}})
	var exs []*dissect.Exchange
	if err := d.ReadCapture(bytes.NewReader(buf.Bytes()), func(ex *dissect.Exchange) {
		dec.Decode(ex)
		exs = append(exs, ex)
	}); err != nil {
		b.Fatal(err)
	}
	first := d.Stats().First
	for _, width := range []time.Duration{0, time.Millisecond, time.Second} {
		name := "none"
		if width > 0 {
			name = width.String()
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var r *Report
			for b.Loop() {
				c := New()
				if width > 0 {
					c.SetIntervals(width, 0)
					c.SetOrigin(first)
				}
				for _, ex := range exs {
					c.Add(ex)
				}
				r = c.Report()
			}
			if r.Intervals != nil {
				b.ReportMetric(float64(len(r.Intervals.Rows)), "intervals")
				b.ReportMetric(float64(r.Intervals.Width.Microseconds()), "width-µs")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(exs)), "ns/exchange")
		})
	}
}
