package capedit_test

import (
	"bytes"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/kdissect/kdissect/internal/capedit"
)

// Moves write each moved packet just before the packet named, stamped the
// time asked before it, and every other packet as it was, in its order;
// with Drop, a packet dropped is left out wherever it would go.
func TestMoves(t *testing.T) {
	in := readFile(t, "../../testdata/pcaps/kcat_group.pcap")
	all := readCapture(t, in).packets
	moves := []capedit.Move{{Packet: 9, Before: 3, Early: time.Millisecond}, {Packet: 20, Before: 12, Early: 0}}
	out, res := rewrite(t, in, capedit.Options{Moves: moves, Drop: capedit.DropIndexes(5, 20)})
	var want []packet
	for i, p := range all {
		switch i {
		case 3:
			moved := all[9]
			moved.ci.Timestamp = p.ci.Timestamp.Add(-time.Millisecond)
			want = append(want, moved)
		case 5, 9, 20:
			continue
		}
		want = append(want, p)
	}
	samePackets(t, want, readCapture(t, out).packets)
	if res.Moved != 1 || res.Written != len(all)-2 || !slices.Equal(res.Dropped, []int{5, 20}) {
		t.Errorf("result %+v", res)
	}
	for _, bad := range [][]capedit.Move{
		{{Packet: 3, Before: 3}},
		{{Packet: 3, Before: 5}},
		{{Packet: 9, Before: 3}, {Packet: 12, Before: 9}},
		{{Packet: 9, Before: 3, Early: -time.Second}},
	} {
		if _, err := capedit.Rewrite(io.Discard, bytes.NewReader(in), capedit.Options{Moves: bad}); err == nil {
			t.Errorf("moves %+v: no error", bad)
		}
	}
}
