package dissect

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/codec"
)

// testCapture is a capture the tests read, with its broker port.
type testCapture struct {
	path string
	port uint16
}

// allCaptures lists the project's captures (testdata/pcaps, port 9092) and
// the public ones beside the project (../shared/pcaps-public, ports from
// ports.tsv) when that folder exists.
func allCaptures(t *testing.T) []testCapture {
	t.Helper()
	var out []testCapture
	own, _ := filepath.Glob("../testdata/pcaps/*.pcap*")
	for _, p := range own {
		out = append(out, testCapture{p, 9092})
	}
	if len(own) == 0 {
		t.Fatal("no captures in testdata/pcaps")
	}
	f, err := os.Open("../../shared/pcaps-public/ports.tsv")
	if err != nil {
		t.Logf("public captures not available: %v", err)
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, port, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(port)
		if err != nil {
			t.Fatalf("ports.tsv: %q", sc.Text())
		}
		out = append(out, testCapture{filepath.Join("../../shared/pcaps-public", name), uint16(n)})
	}
	return out
}

// decodeCapture reads and decodes a whole capture.
func decodeCapture(t *testing.T, c testCapture) []*Exchange {
	t.Helper()
	d := New(Options{Ports: []uint16{c.port}})
	dec := NewDecoder(DecodeOptions{})
	var exs []*Exchange
	if err := d.ReadFile(c.path, func(ex *Exchange) {
		dec.Decode(ex)
		exs = append(exs, ex)
	}); err != nil {
		t.Fatalf("%s: %v", c.path, err)
	}
	return exs
}

// TestRoundTripEveryFrame checks encode(decode(frame)) == frame for every
// request and response frame of every capture that decodes completely.
// Frames that do not decode completely are counted, and each must carry a
// note saying why.
func TestRoundTripEveryFrame(t *testing.T) {
	total, exact, lenient := 0, 0, 0
	for _, c := range allCaptures(t) {
		for i, ex := range decodeCapture(t, c) {
			dec := ex.Decoded
			if ex.Request != nil && len(ex.Request.Bytes) == int(ex.Request.Size) {
				total++
				if dec.Request == nil || dec.RequestHeader == nil {
					if len(ex.Notes) == 0 {
						t.Errorf("%s #%d: request not decoded and no note", c.path, i)
					}
				} else {
					hv := codec.RequestHeaderVersion(ex.APIKey, ex.APIVersion)
					if dec.RequestHeader.ClientId != nil && hv == 0 {
						hv = 1 // the note-bearing fallback for header v1 on ControlledShutdown v0
					}
					re := dec.Request.AppendTo(dec.RequestHeader.AppendTo(nil, hv), ex.APIVersion)
					re = append(re, dec.RequestTrailing...)
					if dec.RequestLenient {
						lenient++
					} else if string(re) != string(ex.Request.Bytes) {
						t.Errorf("%s #%d %s v%d request: re-encoded %d bytes differ from the %d captured\n got %x\nwant %x",
							c.path, i, dec.API.Name, ex.APIVersion, len(re), len(ex.Request.Bytes), re, ex.Request.Bytes)
					} else {
						exact++
					}
				}
			}
			if ex.Response != nil && len(ex.Response.Bytes) == int(ex.Response.Size) && dec.API != nil && ex.Request != nil {
				total++
				if dec.Response == nil || dec.ResponseHeader == nil {
					if len(ex.Notes) == 0 {
						t.Errorf("%s #%d: response not decoded and no note", c.path, i)
					}
					continue
				}
				hv := codec.ResponseHeaderVersion(ex.APIKey, ex.APIVersion)
				re := dec.Response.AppendTo(dec.ResponseHeader.AppendTo(nil, hv), ex.APIVersion)
				re = append(re, dec.ResponseTrailing...)
				if dec.ResponseLenient {
					lenient++
				} else if string(re) != string(ex.Response.Bytes) {
					t.Errorf("%s #%d %s v%d response: re-encoded %d bytes differ from the %d captured",
						c.path, i, dec.API.Name, ex.APIVersion, len(re), len(ex.Response.Bytes))
				} else {
					exact++
				}
			}
		}
	}
	t.Logf("%d of %d complete frames re-encode byte for byte; %d were read leniently (noted)", exact, total, lenient)
	if exact < total*9/10 {
		t.Errorf("only %d of %d frames decoded and re-encoded", exact, total)
	}
}
