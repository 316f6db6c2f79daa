package render

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/internal/capgen"
)

// benchCapture is a 16 MB synthetic capture (package capgen) with its
// exchange and record counts.
func benchCapture(b *testing.B) (capture []byte, exchanges int, records int64) {
	b.Helper()
	var buf bytes.Buffer
	res, err := capgen.Write(&buf, capgen.Config{Bytes: 16 << 20, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	return buf.Bytes(), res.Exchanges, res.Records
}

// BenchmarkStages times the serial path of `kdissect read` on a synthetic
// capture, one stage more in each sub-benchmark: dissect (packets, TCP
// reassembly, framing, matching), +decode (headers, bodies, record sets),
// +json (JSON Lines to io.Discard). Besides MB/s it reports allocations
// and nanoseconds per record decoded:
//
//	go test ./output/render -run '^$' -bench Stages -benchmem
func BenchmarkStages(b *testing.B) {
	capture, exchanges, records := benchCapture(b)
	opts := dissect.DecodeOptions{Records: codec.RecordDecodeOptions{MaxDecompressedBytes: codec.DefaultMaxDecompressedBytes}}
	for _, stage := range []string{"dissect", "decode", "json"} {
		b.Run(stage, func(b *testing.B) {
			b.SetBytes(int64(len(capture)))
			b.ReportAllocs()
			for b.Loop() {
				dec := dissect.NewDecoder(opts)
				out := NewJSONLines(io.Discard, false)
				n := 0
				// Frame buffers are recycled as `kdissect read` does.
				pool := &dissect.FramePool{}
				err := dissect.New(dissect.Options{FramePool: pool}).ReadCapture(bytes.NewReader(capture), func(ex *dissect.Exchange) {
					n++
					defer pool.Release(ex)
					if stage == "dissect" {
						return
					}
					dec.Decode(ex)
					if stage == "json" {
						if err := out.Write(ex); err != nil {
							b.Fatal(err)
						}
					}
				})
				if err != nil || n != exchanges {
					b.Fatalf("%d of %d exchanges: %v", n, exchanges, err)
				}
			}
			perRecord(b, records)
		})
	}
}

// perRecord reports allocations and time per record of the benchmark's
// last run of b.N iterations.
func perRecord(b *testing.B, records int64) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(records), "ns/record")
	b.ReportMetric(float64(records), "records")
}

// BenchmarkWriteJSON times JSON Lines encoding alone, of the decoded
// exchanges of a synthetic capture.
func BenchmarkWriteJSON(b *testing.B) {
	capture, _, records := benchCapture(b)
	var exs []*dissect.Exchange
	dec := dissect.NewDecoder(dissect.DecodeOptions{Records: codec.RecordDecodeOptions{MaxDecompressedBytes: codec.DefaultMaxDecompressedBytes}})
	if err := dissect.New(dissect.Options{}).ReadCapture(bytes.NewReader(capture), func(ex *dissect.Exchange) {
		dec.Decode(ex)
		exs = append(exs, ex)
	}); err != nil {
		b.Fatal(err)
	}
	var cw countingWriter
	out := NewJSONLines(&cw, false)
	b.ReportAllocs()
	for b.Loop() {
		for _, ex := range exs {
			if err := out.Write(ex); err != nil {
				b.Fatal(err)
			}
		}
		if err := out.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(cw.n / int64(b.N))
	perRecord(b, records)
}

// countingWriter counts what it discards.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// BenchmarkViews times the detail and hexdump views of a Fetch exchange
// whose response holds one lz4 batch of 20 000 records; bytes/s is the
// text written.
func BenchmarkViews(b *testing.B) {
	ex := fetchExchange(b, 20000)
	for _, hexdump := range []bool{false, true} {
		name := "detail"
		if hexdump {
			name = "hexdump"
		}
		b.Run(name, func(b *testing.B) {
			var cw countingWriter
			v := newView(b, &cw, hexdump, false, codec.RecordDecodeOptions{})
			b.ReportAllocs()
			for b.Loop() {
				if err := v.Write(ex); err != nil {
					b.Fatal(err)
				}
				if err := v.Flush(); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(cw.n / int64(b.N))
			perRecord(b, 20000)
		})
	}
}

// hostileExchange returns a decoded Produce exchange whose request
// carries records, decoded under a record budget of budget bytes.
func hostileExchange(b *testing.B, records []byte, budget int64) *dissect.Exchange {
	b.Helper()
	req, resp, err := capgen.ProduceFrames(1, records)
	if err != nil {
		b.Fatal(err)
	}
	ex := &dissect.Exchange{APIKey: codec.ApiKeyProduce, APIVersion: 7, CorrelationID: 1,
		Request:  &dissect.Frame{Bytes: req[4:], Size: int32(len(req) - 4)},
		Response: &dissect.Frame{Bytes: resp[4:], Size: int32(len(resp) - 4)}}
	dissect.NewDecoder(dissect.DecodeOptions{Records: codec.RecordDecodeOptions{MaxDecompressedBytes: budget}}).DecodeFrames(ex)
	return ex
}

// BenchmarkViewsHostile times the detail and hexdump views of a Produce
// request whose zstd batch decompresses to 256 MiB (a bomb of about 50
// KB), under record budgets of 4, 16 and 64 MiB: the views decompress up
// to the budget and decode no record past it, so the time grows with the
// budget (ns/budget-byte stays flat), not with what the batch holds.
//
//	go test ./output/render -run '^$' -bench ViewsHostile -benchmem
func BenchmarkViewsHostile(b *testing.B) {
	bomb, err := capgen.ZstdBomb(256<<20, -1)
	if err != nil {
		b.Fatal(err)
	}
	for _, mib := range []int64{4, 16, 64} {
		budget := mib << 20
		ex := hostileExchange(b, bomb, budget)
		for _, hexdump := range []bool{false, true} {
			name := fmt.Sprintf("detail/budget=%dMiB", mib)
			if hexdump {
				name = fmt.Sprintf("hexdump/budget=%dMiB", mib)
			}
			b.Run(name, func(b *testing.B) {
				var cw countingWriter
				v := newView(b, &cw, hexdump, false, codec.RecordDecodeOptions{MaxDecompressedBytes: budget})
				b.ReportAllocs()
				for b.Loop() {
					if err := v.Write(ex); err != nil {
						b.Fatal(err)
					}
					if err := v.Flush(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(cw.n)/float64(b.N), "out-bytes/op")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(budget), "ns/budget-byte")
			})
		}
	}
}
