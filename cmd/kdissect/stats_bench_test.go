package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/internal/capedit"
)

// BenchmarkStatsCommand times `kdissect stats` end to end, its parallel
// pipeline included, on a 32 MB synthetic capture (package capgen) written
// to a file:
//
//	go test ./cmd/kdissect -run '^$' -bench StatsCommand -benchmem
func BenchmarkStatsCommand(b *testing.B) {
	path, res := benchCapture(b) // write_bench_test.go
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

// BenchmarkStatsDamaged times `kdissect stats` on a real capture of kcat
// traffic in Ethernet-sized packets (testdata/pcaps/kcat_mtu.pcap.gz) and
// on damaged copies of it (internal/capedit): data segments lost at
// random, and the snap lengths of header-only captures. Lost packets must
// cost little more than the clean capture:
//
//	go test ./cmd/kdissect -run '^$' -bench StatsDamaged -benchmem
func BenchmarkStatsDamaged(b *testing.B) {
	clean, err := os.ReadFile("../../testdata/pcaps/kcat_mtu.pcap.gz")
	if err != nil {
		b.Fatal(err)
	}
	for _, v := range []struct {
		name string
		opts capedit.Options
	}{
		{"clean", capedit.Options{}},
		{"lost-0.05%", capedit.Options{Drop: capedit.RandomDrop(0.0005, 1, true)}},
		{"lost-0.25%", capedit.Options{Drop: capedit.RandomDrop(0.0025, 1, true)}},
		{"lost-1%", capedit.Options{Drop: capedit.RandomDrop(0.01, 1, true)}},
		{"snap-128", capedit.Options{Snap: 128}},
		{"snap-512", capedit.Options{Snap: 512}},
	} {
		b.Run(v.name, func(b *testing.B) {
			var buf bytes.Buffer
			res, err := capedit.Rewrite(&buf, bytes.NewReader(clean), v.opts)
			if err != nil {
				b.Fatal(err)
			}
			path := filepath.Join(b.TempDir(), "capture.pcap")
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				b.Fatal(err)
			}
			var stderr strings.Builder
			b.ReportAllocs()
			for b.Loop() {
				if code := run([]string{"stats", path}, nil, io.Discard, &stderr); code != 0 {
					b.Fatalf("exit %d: %s", code, stderr.String())
				}
			}
			b.ReportMetric(float64(len(res.Dropped)), "lost-packets")
		})
	}
}
