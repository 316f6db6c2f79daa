package main

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/internal/capgen"
)

// BenchmarkStatsCommand times `kdissect stats` end to end, its parallel
// pipeline included, on a 32 MB synthetic capture (package capgen) written
// to a file:
//
//	go test ./cmd/kdissect -run '^$' -bench StatsCommand -benchmem
func BenchmarkStatsCommand(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bench.pcap")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	res, err := capgen.Write(f, capgen.Config{Bytes: 32 << 20, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	var stderr strings.Builder
	b.SetBytes(res.Bytes)
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		if code := run([]string{"stats", path}, nil, io.Discard, &stderr); code != 0 {
			b.Fatalf("exit %d: %s", code, stderr.String())
		}
	}
	runtime.ReadMemStats(&after)
	perRun := float64(b.N) * float64(res.Records)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/perRun, "ns/record")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/perRun, "allocs/record")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/perRun, "B/record")
}
