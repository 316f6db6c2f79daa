package main

import (
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkReadWrite times `kdissect read --format json` on a 32 MB
// synthetic capture (package capgen) alone, with -w (every packet
// spooled and written again, commented) and with -w and a filter (the
// packets of the Produce exchanges only):
//
//	go test ./cmd/kdissect -run '^$' -bench ReadWrite -benchmem
func BenchmarkReadWrite(b *testing.B) {
	path, res := benchCapture(b, b.TempDir())
	out := filepath.Join(filepath.Dir(path), "out.pcapng")
	for _, c := range []struct {
		name string
		args []string
	}{
		{"json", nil},
		{"json-w", []string{"-w", out}},
		{"json-w-api-produce", []string{"-w", out, "--api", "Produce"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var stderr strings.Builder
			b.SetBytes(res.Bytes)
			b.ReportAllocs()
			for b.Loop() {
				args := append(append([]string{"read", "--format", "json"}, c.args...), path)
				if code := run(args, nil, io.Discard, &stderr); code != 0 {
					b.Fatalf("exit %d: %s", code, stderr.String())
				}
			}
		})
	}
}
