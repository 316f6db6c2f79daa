package main

import (
	"crypto/sha256"
	"hash"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/internal/capgen"
	"github.com/kdissect/kdissect/output/render"
)

// read's parallel pipeline writes what decoding and writing each exchange
// in turn writes, on a capture of thousands of exchanges (more rows than
// the summary table keeps in memory), with and without -c and filters.
func TestPipelineMatchesSerial(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gen.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := capgen.Write(f, capgen.Config{Exchanges: 4300, Conns: 16, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	serial := func(format string, count int, api int16) digest {
		buf := newDigest()
		var out exchangeWriter = render.NewJSONLines(buf, false)
		if format == "summary" {
			out = render.NewTable(buf)
		}
		dec := dissect.NewDecoder(dissect.DecodeOptions{Records: codec.RecordDecodeOptions{MaxDecompressedBytes: codec.DefaultMaxDecompressedBytes}})
		n := 0
		if err := dissect.New(dissect.Options{}).ReadFile(path, func(ex *dissect.Exchange) {
			if count > 0 && n >= count {
				return
			}
			dec.Decode(ex)
			if api >= 0 && ex.APIKey != api {
				return
			}
			n++
			if err := out.Write(ex); err != nil {
				t.Fatal(err)
			}
		}); err != nil {
			t.Fatal(err)
		}
		if err := out.Flush(); err != nil {
			t.Fatal(err)
		}
		return buf.sum()
	}
	for _, c := range []struct {
		args   []string
		format string
		count  int
		api    int16
	}{
		{[]string{"--format", "json"}, "json", 0, -1},
		{[]string{"--format", "summary"}, "summary", 0, -1},
		{[]string{"--format", "json", "-c", "777"}, "json", 777, -1},
		{[]string{"--format", "summary", "--api", "Fetch", "-c", "4500"}, "summary", 4500, 1},
	} {
		stdout := newDigest()
		var stderr strings.Builder
		if code := run(append([]string{"read", path, "--no-color"}, c.args...), strings.NewReader(""), stdout, &stderr); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr.String())
		}
		got, want := stdout.sum(), serial(c.format, c.count, c.api)
		if got != want {
			t.Errorf("%v: %d bytes differ from the serial %d", c.args, got.n, want.n)
		}
		t.Logf("%v: %d bytes", c.args, got.n)
	}
}

// digest is the SHA-256 and length of what was written. The JSON Lines
// compared run to 190 MB: held in growing buffers they cost three times
// what reading the capture does (memclr, memmove, madvise), more so on a
// busy machine.
type digest struct {
	sha [sha256.Size]byte
	n   int64
}

type digestWriter struct {
	h hash.Hash
	n int64
}

func newDigest() *digestWriter { return &digestWriter{h: sha256.New()} }

func (d *digestWriter) Write(p []byte) (int, error) {
	d.n += int64(len(p))
	return d.h.Write(p)
}

func (d *digestWriter) sum() digest {
	var s digest
	d.h.Sum(s.sha[:0])
	s.n = d.n
	return s
}
