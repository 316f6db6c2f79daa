package dissect

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/kdissect/kdissect/internal/capedit"
)

// TestGapsBothWaysTwice: two exchanges in a row left out of a connection
// (as read -w with a filter writes it) leave a gap each way before and
// after the exchange between them, whose request and response are both
// found by scanning; the response, judged while its request still waits
// for what follows it, is framed and matched all the same.
func TestGapsBothWaysTwice(t *testing.T) {
	const src = "../testdata/pcaps/franz_groups.pcap"
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	// Frames 51-52 (corr 3) and 108, 111 (corr 5) of client port 44086,
	// and the ACK 107 between: 0-based indexes.
	drop := map[int]bool{50: true, 51: true, 106: true, 107: true, 110: true}
	var buf bytes.Buffer
	if _, err := capedit.Rewrite(&buf, bytes.NewReader(b), capedit.Options{Drop: func(p capedit.Packet) bool { return drop[p.Index] }}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "gaps.pcap")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	whole := map[int32]*Exchange{}
	for _, ex := range readExchanges(t, src) {
		if ex.Client.Port() == 44086 {
			whole[ex.CorrelationID] = ex
		}
	}
	seen := 0
	for _, ex := range readExchanges(t, path) {
		if ex.Client.Port() != 44086 {
			continue
		}
		w := whole[ex.CorrelationID]
		if ex.CorrelationID == 3 || ex.CorrelationID == 5 || w == nil {
			t.Errorf("corr %d: exchange of packets left out", ex.CorrelationID)
			continue
		}
		seen++
		if ex.Request == nil || ex.Response == nil || !bytes.Equal(ex.Response.Bytes, w.Response.Bytes) {
			t.Errorf("corr %d: request %v, response %v (notes %q)", ex.CorrelationID, ex.Request != nil, ex.Response != nil, ex.Notes)
		}
	}
	if seen != len(whole)-2 {
		t.Errorf("%d exchanges of the connection, want %d", seen, len(whole)-2)
	}
}
