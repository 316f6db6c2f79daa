package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/internal/capedit"
	"github.com/kdissect/kdissect/internal/capgen"
)

// TestDecodeCutAsRead: decode, given a frame cut short, decodes it as read
// decodes the same frame cut short in a capture (one decoder, dissect's):
// the notes on its body are the same, word for word. The capture is cut
// to a snap length inside the request's records.
func TestDecodeCutAsRead(t *testing.T) {
	req, resp, err := capgen.ProduceFrames(1, capgen.MinimalBatch(codec.CompressionNone, 20))
	if err != nil {
		t.Fatal(err)
	}
	var clean bytes.Buffer
	if err := capgen.WriteExchanges(&clean, [][2][]byte{{req, resp}}); err != nil {
		t.Fatal(err)
	}
	const headers = 14 + 20 + 20 // Ethernet, IPv4 and TCP (capgen writes no options)
	held := len(req) - 30        // of the request's bytes, size prefix included
	path := filepath.Join(t.TempDir(), "cut.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := capedit.Rewrite(f, &clean, capedit.Options{Snap: headers + held}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if len(resp) > held {
		t.Fatalf("the response (%d bytes) is cut too", len(resp))
	}

	// The notes on the body: those that name the API or its records, not
	// those of the framing (how the frame was cut, in words of each
	// command's input).
	body := func(notes []any) []string {
		var out []string
		for _, n := range notes {
			if s := n.(string); strings.HasPrefix(s, "Produce v") || strings.HasPrefix(s, "records of ") {
				out = append(out, s)
			}
		}
		return out
	}
	lines := jsonLines(t, "read", "--format", "json", "-p", "9092", path)
	if len(lines) != 1 {
		t.Fatalf("read: %d exchanges, want 1", len(lines))
	}
	read := body(lines[0]["notes"].([]any))
	code, out, errs := runCLI(t, "decode", "--compact", hex.EncodeToString(req[:held]))
	if code != 0 {
		t.Fatalf("decode: exit %d: %s", code, errs)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	decoded := body(m["notes"].([]any))
	if len(read) == 0 || !slices.Equal(read, decoded) {
		t.Errorf("notes on the body:\nread   %q\ndecode %q", read, decoded)
	}
	t.Logf("%q", read)
}
