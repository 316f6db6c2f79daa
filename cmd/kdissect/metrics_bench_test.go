package main

import (
	"io"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
)

// BenchmarkMetricsCommand times, on the capture of BenchmarkStatsCommand,
// stats, read --format json, and read --format json --metrics (a
// server on a loopback port, not scraped): the difference of those two
// is what --metrics costs beside a view; read -q --metrics, which counts
// records as stats does, is to be held against stats' time:
//
//	go test ./cmd/kdissect -run '^$' -bench MetricsCommand -benchmem
func BenchmarkMetricsCommand(b *testing.B) {
	path, res := benchCapture(b, b.TempDir())
	for _, v := range []struct {
		name string
		args []string
	}{
		{"stats", []string{"stats", path}},
		{"read-json", []string{"read", "--format", "json", path}},
		{"read-json-metrics", []string{"read", "--format", "json", "--metrics", "127.0.0.1:0", path}},
		{"read-quiet-metrics", []string{"read", "-q", "--metrics", "127.0.0.1:0", path}}, // against stats
	} {
		b.Run(v.name, func(b *testing.B) {
			var stderr strings.Builder
			b.SetBytes(res.Bytes)
			b.ReportAllocs()
			for b.Loop() {
				if code := run(v.args, nil, io.Discard, &stderr); code != 0 {
					b.Fatalf("exit %d: %s", code, stderr.String())
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/(float64(b.N)*float64(res.Records)), "ns/record")
		})
	}
}

// BenchmarkSinkCommand times, on the capture of BenchmarkStatsCommand,
// read --format json with and without --sink to a kfake broker in this
// process (whose work is counted too), and stats for the scale:
//
//	go test ./cmd/kdissect -run '^$' -bench SinkCommand -benchmem
func BenchmarkSinkCommand(b *testing.B) {
	path, res := benchCapture(b, b.TempDir())
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "exchanges"))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	sinkURL := "kafka://" + c.ListenAddrs()[0] + "/exchanges"
	for _, v := range []struct {
		name string
		args []string
	}{
		{"stats", []string{"stats", path}},
		{"read-json", []string{"read", "--format", "json", path}},
		{"read-json-sink", []string{"read", "--format", "json", "--sink", sinkURL, path}},
	} {
		b.Run(v.name, func(b *testing.B) {
			var stderr strings.Builder
			b.SetBytes(res.Bytes)
			b.ReportAllocs()
			for b.Loop() {
				stderr.Reset()
				if code := run(v.args, nil, io.Discard, &stderr); code != 0 {
					b.Fatalf("exit %d: %s", code, stderr.String())
				}
			}
			if s := stderr.String(); strings.Contains(s, "sink") {
				b.Log(strings.TrimSpace(s))
			}
		})
	}
}
