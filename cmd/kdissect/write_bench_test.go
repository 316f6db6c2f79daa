package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/internal/capgen"
)

// BenchmarkReadWrite times `kdissect read --format json` on a 32 MB
// synthetic capture (package capgen) alone, with -w (every packet
// spooled and written again, commented) and with -w and a filter (the
// packets of the Produce exchanges only):
//
//	go test ./cmd/kdissect -run '^$' -bench ReadWrite -benchmem
func BenchmarkReadWrite(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "bench.pcap")
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
	out := filepath.Join(dir, "out.pcapng")
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
