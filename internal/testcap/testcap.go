// Package testcap reads a capture of testdata/pcaps into decoded
// exchanges, for the tests of the packages that consume them
// (output/metrics, output/sink).
package testcap

import (
	"os"
	"testing"

	"github.com/kdissect/kdissect/dissect"
)

// Decoded dissects the capture at path (Kafka on port 9092) and decodes
// each exchange in capture order; it returns the exchanges and the
// dissector's counts. A capture that cannot be read fails tb.
func Decoded(tb testing.TB, path string, opts dissect.DecodeOptions) ([]*dissect.Exchange, dissect.Stats) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	d := dissect.New(dissect.Options{Ports: []uint16{9092}})
	dec := dissect.NewDecoder(opts)
	var exs []*dissect.Exchange
	if err := d.ReadCapture(f, func(ex *dissect.Exchange) {
		dec.Decode(ex)
		exs = append(exs, ex)
	}); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return exs, d.Stats()
}
