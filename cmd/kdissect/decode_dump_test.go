package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// capturedFrames returns the request and response frames (size prefix
// included) of a real capture, with their exchanges.
func capturedFrames(t *testing.T, path string) []*dissect.Exchange {
	t.Helper()
	var out []*dissect.Exchange
	if err := dissect.New(dissect.Options{}).ReadFile(path, func(e *dissect.Exchange) { out = append(out, e) }); err != nil {
		t.Fatal(err)
	}
	return out
}

func prefixed(f *dissect.Frame) []byte {
	return append([]byte{byte(f.Size >> 24), byte(f.Size >> 16), byte(f.Size >> 8), byte(f.Size)}, f.Bytes...)
}

// decodeBody runs decode and returns its JSON without the notes.
func decodeBody(t *testing.T, stdin string, args ...string) (int, map[string]any, string) {
	t.Helper()
	code, out, errs := runCLIWithInput(t, stdin, append([]string{"decode", "--compact"}, args...)...)
	if code != 0 {
		return code, nil, errs
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("decode output %q: %v", out, err)
	}
	delete(m, "notes")
	return code, m, errs
}

// The dumps of xxd, hexdump -C and od decode as the bytes they show; a
// tshark -x dump of a packet decodes as its TCP payload. Each against the
// frame as plain hex.
func TestDecodeHexDumps(t *testing.T) {
	exs := capturedFrames(t, "../../testdata/pcaps/kcat_metadata_offsets.pcap")
	dir := t.TempDir()
	var n int
	for _, ex := range exs {
		if ex.Request == nil || len(ex.Request.Bytes) != int(ex.Request.Size) {
			continue
		}
		frame := prefixed(ex.Request)
		path := filepath.Join(dir, "f.bin")
		if err := os.WriteFile(path, frame, 0o644); err != nil {
			t.Fatal(err)
		}
		_, want, errs := decodeBody(t, "", string(hexOf(frame)))
		if want == nil {
			t.Fatalf("plain hex: %s", errs)
		}
		for _, tool := range [][]string{{"xxd", path}, {"xxd", "-g", "1", path}, {"hexdump", "-C", path}, {"od", "-A", "x", "-t", "x1z", path}, {"od", "-A", "x", "-t", "x1", path}} {
			if _, err := exec.LookPath(tool[0]); err != nil {
				continue
			}
			dump, err := exec.Command(tool[0], tool[1:]...).Output()
			if err != nil {
				t.Fatal(err)
			}
			_, got, errs := decodeBody(t, string(dump))
			if got == nil || !jsonEqual(got, want) {
				t.Errorf("%v of ApiKey %d v%d: %s\n%s", tool, ex.APIKey, ex.APIVersion, errs, dump)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no dump tool found (od is in coreutils)")
	}
	// Dumps of 2-byte words show them in the machine's byte order: refused,
	// with the dumps to use instead.
	for _, tool := range [][]string{{"hexdump", filepath.Join(dir, "f.bin")}, {"od", "-x", filepath.Join(dir, "f.bin")}} {
		if _, err := exec.LookPath(tool[0]); err != nil {
			continue
		}
		dump, err := exec.Command(tool[0], tool[1:]...).Output()
		if err != nil {
			t.Fatal(err)
		}
		if code, _, errs := runCLIWithInput(t, string(dump), "decode"); code != exitUsage || !strings.Contains(errs, "dump with hexdump -C, xxd or od -A x -t x1") {
			t.Errorf("%v: exit %d, %q", tool, code, errs)
		}
	}

	// tshark -x: each Kafka packet of the capture is a dump of the whole
	// frame, Ethernet and all.
	if _, err := exec.LookPath("tshark"); err != nil {
		t.Skip("tshark not installed")
	}
	out, err := exec.Command("tshark", "-r", "../../testdata/pcaps/kcat_metadata_offsets.pcap", "-x", "-Y", "kafka.request_key").Output()
	if err != nil {
		t.Fatal(err)
	}
	dumps := strings.Split(strings.TrimSpace(string(out)), "\n\n")
	var reqs []*dissect.Exchange
	for _, ex := range exs {
		if ex.Request != nil {
			reqs = append(reqs, ex)
		}
	}
	if len(dumps) != len(reqs) {
		t.Fatalf("tshark dumped %d request packets, the capture has %d requests", len(dumps), len(reqs))
	}
	for i, d := range dumps {
		_, want, _ := decodeBody(t, "", string(hexOf(prefixed(reqs[i].Request))))
		code, out, errs := runCLIWithInput(t, d, "decode", "--compact")
		var got map[string]any
		if code != 0 || json.Unmarshal([]byte(out), &got) != nil {
			t.Fatalf("tshark -x dump %d: exit %d %s", i, code, errs)
		}
		if !strings.Contains(out, "the dump is a packet (IPv4 127.0.0.1:") {
			t.Errorf("dump %d: no note of the packet: %s", i, out)
		}
		delete(got, "notes")
		if !jsonEqual(got, want) {
			t.Errorf("tshark -x dump %d decodes otherwise than its frame:\n%s", i, d)
		}
	}
}

func hexOf(b []byte) []byte {
	var out bytes.Buffer
	for _, c := range b {
		out.WriteString("0123456789abcdef"[c>>4 : c>>4+1])
		out.WriteString("0123456789abcdef"[c&15 : c&15+1])
	}
	return out.Bytes()
}

func jsonEqual(a, b map[string]any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// A response given without --api is refused, naming the APIs and versions
// it decodes whole as, its own among them; bytes that are neither are
// refused too.
func TestDecodeResponseWithoutAPI(t *testing.T) {
	exs := capturedFrames(t, "../../testdata/pcaps/kcat_metadata_offsets.pcap")
	n := 0
	for _, ex := range exs {
		api, ok := codec.LookupAPI(ex.APIKey)
		if ex.Response == nil || !ok {
			continue
		}
		code, out, errs := runCLI(t, "decode", string(hexOf(prefixed(ex.Response))))
		own := fmt.Sprintf("%s v%d", api.Name, ex.APIVersion)
		if code != exitUsage || !strings.Contains(errs, "not a request") || !strings.Contains(errs, "as a response it decodes whole as") ||
			!slices.Contains(responseCandidates(ex.Response.Bytes), own) {
			t.Errorf("%s response without --api: exit %d, stdout %.100q, stderr %q", own, code, out, errs)
		}
		n++
	}
	if n == 0 {
		t.Fatal("no response in the capture")
	}
	if code, _, errs := runCLI(t, "decode", "7fff00017fff7fff0003616263"); code != exitUsage || !strings.Contains(errs, "ApiKey 32767 is unknown") {
		t.Errorf("unknown ApiKey: exit %d, %q", code, errs)
	}
}
