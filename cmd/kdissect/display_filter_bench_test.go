package main

import (
	"io"
	"strings"
	"testing"
)

// BenchmarkReadDisplayFilter times `kdissect read --format json` on the
// 32 MB synthetic capture of BenchmarkStatsCommand, alone and with -Y
// filters that read the decoded bodies: the filter runs on the render
// stage's workers and should cost at most 15% over json alone.
//
//	go test ./cmd/kdissect -run '^$' -bench ReadDisplayFilter -benchmem -count 5
func BenchmarkReadDisplayFilter(b *testing.B) {
	path, res := benchCapture(b, b.TempDir()) // stats_bench_test.go
	for _, bc := range []struct{ name, expr string }{
		{"json", ""},
		// Passes most exchanges: almost all are still rendered.
		{"body-field", `request.Acks != 0 || any(response.Responses, any(.Partitions, .ErrorCode == 0)) || len(topics) == 0 || latency > duration("1ms")`},
		// Passes none: what the filter itself costs, without output.
		{"body-field-none", `any(request.TopicData, .Name == "no such topic")`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			args := []string{"read", "--format", "json", path}
			if bc.expr != "" {
				args = []string{"read", "--format", "json", "-Y", bc.expr, path}
			}
			b.SetBytes(res.Bytes)
			b.ReportAllocs()
			for b.Loop() {
				var stderr strings.Builder
				if code := run(args, nil, io.Discard, &stderr); code != 0 {
					b.Fatalf("exit %d: %s", code, stderr.String())
				}
			}
		})
	}
}
