package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/dissect/render"
	"github.com/kdissect/kdissect/internal/capgen"
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
	serial := func(format string, count int, api int16) string {
		var buf bytes.Buffer
		var out exchangeWriter = render.NewJSONLines(&buf, false)
		if format == "summary" {
			out = render.NewTable(&buf)
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
		return buf.String()
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
		code, stdout, stderr := runCLI(t, append([]string{"read", path, "--no-color"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		if want := serial(c.format, c.count, c.api); stdout != want {
			t.Errorf("%v: %d bytes differ from the serial %d", c.args, len(stdout), len(want))
		}
	}
}
