package dissect

import (
	"testing"
	"time"

	"github.com/gopacket/gopacket/reassembly"
)

// TestHeldListMergeKeepsNewestClock: once maxHeldSegs segments are held,
// a further one merges into the last entry, which must then carry the
// newest arrival time: a flush before that time must not drop it while
// reassembly still holds the newer bytes.
func TestHeldListMergeKeepsNewestClock(t *testing.T) {
	var h heldList
	t0 := time.Unix(1000, 0)
	// Every segment lies beyond a hole at 0..100: all are held.
	for i := range maxHeldSegs {
		h.accept(0, reassembly.Sequence(100+10*i), 10, int64(i+1), t0)
	}
	late := t0.Add(time.Minute)
	h.accept(0, reassembly.Sequence(100+10*maxHeldSegs), 10, 5000, late)
	if len(h.segs) != maxHeldSegs {
		t.Fatalf("%d entries held, want %d", len(h.segs), maxHeldSegs)
	}
	h.flushedBefore(t0.Add(time.Second)) // the older ones went with the flush
	if len(h.segs) != 1 || h.min() != maxHeldSegs {
		t.Errorf("after the flush: %d entries, lowest packet %d; want the merged entry (packet %d) kept", len(h.segs), h.min(), maxHeldSegs)
	}
}
