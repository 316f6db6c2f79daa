package metrics

import (
	"bytes"
	"testing"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/internal/capgen"
	"github.com/kdissect/kdissect/output/stats"
)

// BenchmarkAdd times Collector.Add against stats' Collector.Add on the
// exchanges of the 32 MB synthetic capture of BenchmarkStatsCommand
// (cmd/kdissect), decoded as stats decodes them (records counted, not
// decompressed): what --metrics adds per exchange to a capture's work.
//
//	go test ./output/metrics -run '^$' -bench Add -benchmem
func BenchmarkAdd(b *testing.B) {
	var buf bytes.Buffer
	if _, err := capgen.Write(&buf, capgen.Config{Bytes: 32 << 20, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	d := dissect.New(dissect.Options{Ports: []uint16{9092}})
	dec := dissect.NewDecoder(dissect.DecodeOptions{Records: codec.RecordDecodeOptions{CountOnly: true, MaxDecompressedBytes: codec.DefaultMaxDecompressedBytes}})
	var exs []*dissect.Exchange
	if err := d.ReadCapture(bytes.NewReader(buf.Bytes()), func(ex *dissect.Exchange) {
		dec.Decode(ex)
		exs = append(exs, ex)
	}); err != nil {
		b.Fatal(err)
	}
	b.Run("stats", func(b *testing.B) {
		for b.Loop() {
			c := stats.New()
			for _, ex := range exs {
				c.Add(ex)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(exs)), "ns/exchange")
	})
	b.Run("metrics", func(b *testing.B) {
		for b.Loop() {
			c := New(Options{})
			for _, ex := range exs {
				c.Add(ex)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(exs)), "ns/exchange")
	})
	b.ReportMetric(float64(len(exs)), "exchanges")
}
