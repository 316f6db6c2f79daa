package main

import (
	"encoding/json"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/internal/capgen"
)

// floodStats is what stats --format json says of the connection table.
type floodStats struct {
	Capture struct {
		Evicted int64 `json:"connections_evicted"`
		Refused int64 `json:"connection_limit_packets"`
	} `json:"capture"`
}

// TestFloodCLI: 100 001 one-packet flows without a handshake, ending 1 s
// before kcat's Produce capture begins (two files, read as one), do not
// keep kcat's connections out: stats gives the same APIs, partitions and
// clients as for kcat's capture alone, and says (and on stderr, as every
// command reading captures does) that connections were evicted. The
// table's line for it: render's TestStatsConnectionTable.
func TestFloodCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("100 001 flows")
	}
	f, err := os.Open(lz4Capture)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := dissect.NewPacketReader(f)
	if err != nil {
		t.Fatal(err)
	}
	_, ci, _, err := pr.Next()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	const step = 10 * time.Microsecond
	n := dissect.DefaultMaxConnections + 1
	floodFile := filepath.Join(t.TempDir(), "flood.pcap")
	out, err := os.Create(floodFile)
	if err != nil {
		t.Fatal(err)
	}
	start := ci.Timestamp.Add(-time.Second - time.Duration(n-1)*step)
	if err := capgen.WriteFlood(out, n, netip.MustParseAddrPort("127.0.0.1:9092"), start, step); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}

	code, alone, stderr := runCLI(t, "stats", "--format", "json", lz4Capture)
	if code != 0 || stderr != "" {
		t.Fatalf("stats alone: exit %d, stderr %q", code, stderr)
	}
	const warning = "kdissect: more than 100000 connections open at once: 2 connections evicted (least evidence of being real first: no handshake, one way only, no frame)\n"
	code, flooded, stderr := runCLI(t, "stats", "--format", "json", floodFile, lz4Capture)
	if code != 0 || stderr != warning {
		t.Fatalf("stats after the flood: exit %d, stderr %q", code, stderr)
	}
	var a, b statsOut // stats_test.go
	var fs floodStats
	for _, u := range []struct {
		s string
		v any
	}{{alone, &a}, {flooded, &b}, {flooded, &fs}} {
		if err := json.Unmarshal([]byte(u.s), u.v); err != nil {
			t.Fatal(err)
		}
	}
	if a.Capture.Exchanges == 0 || b.Capture.Exchanges != a.Capture.Exchanges || !reflect.DeepEqual(a.APIs, b.APIs) ||
		!reflect.DeepEqual(a.Partitions, b.Partitions) || !reflect.DeepEqual(a.Clients, b.Clients) {
		t.Errorf("after the flood:\n%s\nalone:\n%s", flooded, alone)
	}
	// The 100 001st flow evicts the first; kcat's connections, one after
	// the other, one more.
	if fs.Capture.Evicted != 2 || fs.Capture.Refused != 0 {
		t.Errorf("connections evicted %d, packets refused %d; want 2 and 0", fs.Capture.Evicted, fs.Capture.Refused)
	}
}
