package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkExport times read --format json and read --format parquet -w
// end to end on the 32 MB synthetic capture of BenchmarkStatsCommand, each
// writing a file, and reports the size of what each wrote (out-MB) beside
// the speed over the capture's bytes (MB/s):
//
//	go test ./cmd/kdissect -run '^$' -bench Export -benchtime 3x
func BenchmarkExport(b *testing.B) {
	dir := b.TempDir()
	path, res := benchCapture(b, dir)
	for _, format := range []string{"json", "parquet"} {
		b.Run(format, func(b *testing.B) {
			out := filepath.Join(dir, "out."+format)
			b.SetBytes(res.Bytes)
			for b.Loop() {
				var stderr strings.Builder
				args := []string{"read", "--format", format, path}
				code := 0
				if format == "parquet" {
					code = run(append(args, "-w", out), nil, io.Discard, &stderr)
				} else {
					o, err := os.Create(out)
					if err != nil {
						b.Fatal(err)
					}
					code = run(args, nil, o, &stderr)
					o.Close()
				}
				if code != 0 {
					b.Fatalf("exit %d: %s", code, stderr.String())
				}
			}
			st, err := os.Stat(out)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(st.Size())/1e6, "out-MB")
			b.ReportMetric(float64(res.Exchanges)*float64(b.N)/b.Elapsed().Seconds(), "exchanges/s")
		})
	}
}
