package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/kdissect/kdissect/internal/capedit"
)

// A real capture whose packets are split into IP fragments reads as the
// capture itself; stats counts the fragments reassembled, and those
// dropped when a fragment is lost.
func TestStatsFragments(t *testing.T) {
	src, err := os.ReadFile("../../testdata/pcaps/kcat_produce_lz4.pcap")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	frag, lost := filepath.Join(dir, "fragmented.pcap"), filepath.Join(dir, "lost.pcap")
	fragBytes, res := rewriteTo(t, frag, src, capedit.Options{Fragment: 512})
	// The second fragment of the first packet fragmented goes missing.
	lostAt := -1
	pkts := 0
	rewriteTo(t, lost, fragBytes, capedit.Options{Drop: func(p capedit.Packet) bool {
		pkts++
		ip, _ := gopacket.NewPacket(p.Data, p.LinkType, gopacket.Default).Layer(layers.LayerTypeIPv4).(*layers.IPv4)
		if lostAt < 0 && ip != nil && ip.FragOffset > 0 {
			lostAt = p.Index
			return true
		}
		return false
	}})
	type capture struct {
		Packets              int64 `json:"packets"`
		Exchanges            int64 `json:"exchanges"`
		FragmentsReassembled int64 `json:"fragments_reassembled"`
		ReassembledDatagrams int64 `json:"reassembled_datagrams"`
		FragmentsDropped     int64 `json:"fragments_dropped"`
	}
	stats := func(path string) (capture, string) {
		code, table, _ := runCLI(t, "stats", path)
		if code != 0 {
			t.Fatalf("stats: exit %d", code)
		}
		return statsCapture[capture](t, path), table
	}

	// Frame numbers count the fragments (TestFrameNumbersTshark).
	numbers := regexp.MustCompile(`,"(request|response)_packets":(\[\d+,\d+\]|null)`)
	_, whole, _ := runCLI(t, "read", "--format", "json", "../../testdata/pcaps/kcat_produce_lz4.pcap")
	whole = numbers.ReplaceAllString(whole, "")
	if _, got, _ := runCLI(t, "read", "--format", "json", frag); numbers.ReplaceAllString(got, "") != whole || whole == "" || !strings.Contains(got, `"request_packets"`) {
		t.Errorf("the fragmented capture reads otherwise:\n%s\nwhole:\n%s", got, whole)
	}
	orig, table := stats("../../testdata/pcaps/kcat_produce_lz4.pcap")
	if strings.Contains(table, "IP fragments") {
		t.Errorf("a capture without fragments has a fragments line:\n%s", table)
	}
	st, table := stats(frag)
	want := capture{Packets: orig.Packets - int64(res.Fragmented) + int64(res.Fragments), Exchanges: orig.Exchanges,
		FragmentsReassembled: int64(res.Fragments), ReassembledDatagrams: int64(res.Fragmented)}
	line := fmt.Sprintf("IP fragments    %d reassembled into %d datagrams\n", res.Fragments, res.Fragmented)
	if st != want || res.Fragmented == 0 || !strings.Contains(table, line) {
		t.Errorf("stats say %+v, want %+v; table without %q:\n%s", st, want, line, table)
	}

	st, table = stats(lost)
	line = fmt.Sprintf("IP fragments    %d reassembled into %d datagrams, 1 dropped (not reassembled)\n", res.Fragments-2, res.Fragmented-1)
	if lostAt < 0 || st.FragmentsDropped != 1 || st.FragmentsReassembled != int64(res.Fragments-2) || !strings.Contains(table, line) {
		t.Errorf("packet %d of %d lost: stats say %+v; table without %q:\n%s", lostAt, pkts, st, line, table)
	}
}
