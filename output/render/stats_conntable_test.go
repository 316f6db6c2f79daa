package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/internal/capgen"
	"github.com/kdissect/kdissect/output/stats"
)

// TestStatsConnectionTable: with a connection table of one, three
// one-packet flows without a handshake before kcat's capture evict each
// other and are evicted by kcat's first connection; five during its last
// connection are refused. The Capture table says both counts, and the
// JSON has them.
func TestStatsConnectionTable(t *testing.T) {
	const kcat = "../../testdata/pcaps/kcat_produce_lz4.pcap"
	real, err := os.ReadFile(kcat)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := dissect.NewPacketReader(bytes.NewReader(real))
	if err != nil {
		t.Fatal(err)
	}
	_, ci, _, err := pr.Next()
	if err != nil {
		t.Fatal(err)
	}
	broker := netip.MustParseAddrPort("127.0.0.1:9092")
	floods := make([]bytes.Buffer, 2)
	// kcat's last connection spans 0.22 s to 0.72 s after its first packet.
	for i, f := range []struct {
		n  int
		at time.Duration
	}{{3, -time.Second}, {5, 400 * time.Millisecond}} {
		if err := capgen.WriteFlood(&floods[i], f.n, broker, ci.Timestamp.Add(f.at), time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	d := dissect.New(dissect.Options{MaxConnections: 1})
	col := stats.New()
	caps := []dissect.Capture{{Name: "before", Reader: &floods[0]}, {Name: kcat, Reader: bytes.NewReader(real)}, {Name: "during", Reader: &floods[1]}}
	if err := d.ReadCaptures(caps, dissect.ReadOptions{}, func(ex *dissect.Exchange) {
		dissect.NewDecoder(dissect.DecodeOptions{}).Decode(ex)
		col.Add(ex)
	}); err != nil {
		t.Fatal(err)
	}
	st := d.Stats()
	if st.ConnEvicted == 0 || st.ConnLimit == 0 {
		t.Fatalf("evicted %d, refused packets %d: want some of each", st.ConnEvicted, st.ConnLimit)
	}
	info := StatsInfo{Packets: st.Packets, Loss: LossOf(st)}
	var tables, js bytes.Buffer
	if err := WriteStatsTables(&tables, col.Report(), info); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("  connections     %d evicted from the full table (those with the least evidence of being real first), %d packets of others not dissected (the table full)\n", st.ConnEvicted, st.ConnLimit)
	if !strings.Contains(tables.String(), want) {
		t.Errorf("no line %q in\n%s", want, tables.String())
	}
	if err := WriteStatsJSON(&js, col.Report(), info); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Capture struct {
			Evicted int64 `json:"connections_evicted"`
			Refused int64 `json:"connection_limit_packets"`
		} `json:"capture"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Capture.Evicted != st.ConnEvicted || got.Capture.Refused != st.ConnLimit {
		t.Errorf("JSON: evicted %d, refused packets %d; want %d and %d", got.Capture.Evicted, got.Capture.Refused, st.ConnEvicted, st.ConnLimit)
	}
}
