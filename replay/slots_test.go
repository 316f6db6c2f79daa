package replay

import (
	"context"
	"testing"
)

// TestSlotsRebalanceOverflow holds the rules of a full set of slots
// (Options.Concurrency 1): a runner with nothing held gives its slot
// first, then one waiting for the causal order; a runner sending gives
// none, but when it sends a JoinGroup the capture answered only after
// the oldest request held was sent (another member joining), that
// request's connection gets a runner beyond the concurrency; never for
// a request sent after the JoinGroup's answer, nor for one not oldest.
func TestSlotsRebalanceOverflow(t *testing.T) {
	mk := func(index, stream int, key int16, req, resp int64) *item {
		it := &item{index: index, stream: stream, key: key, reqTime: unix(req), respTime: unix(resp)}
		it.dep = depTime(it)
		return it
	}
	var started []int
	s := newSched(context.Background(), Window{}, 1, func(q *streamQ) { started = append(started, q.stream) })
	join := mk(0, 0, 11, 1, 5) // member A's JoinGroup, answered at 5
	a := &streamQ{stream: 0, items: []*item{join}, running: true, sending: join}
	b := &streamQ{stream: 1, items: []*item{mk(1, 1, 11, 2, 5)}} // member B's, sent at 2
	s.streams[0], s.streams[1] = a, b
	s.running = 1
	if v := s.evictable(b, true); v != nil {
		t.Fatalf("runner of stream %d evictable while it sends", v.stream)
	}
	join.key = 3 // a Metadata in flight: B waits for it to end
	if s.overflows(b) {
		t.Error("a Metadata in flight lets B beyond the concurrency")
	}
	join.key = 11
	b.items[0].reqTime = unix(6) // sent after the JoinGroup's answer
	if s.overflows(b) {
		t.Error("B sent after the JoinGroup's answer goes beyond the concurrency")
	}
	b.items[0].reqTime = unix(2)
	s.schedule()
	if len(started) != 1 || started[0] != 1 || s.overflow != 1 || s.running != 2 {
		t.Fatalf("started %v, overflow %d, running %d; want B started beyond the concurrency", started, s.overflow, s.running)
	}

	// Slots full again: a runner waiting for the order gives its slot to
	// an older request the order lets go (never to a younger one, nor to
	// one the order holds back), unless one has nothing held.
	c := &streamQ{stream: 2, items: []*item{mk(3, 2, 0, 3, 4)}, running: true, waiting: true}
	next := &streamQ{stream: 4, items: []*item{mk(2, 4, 0, 3, 4)}}
	s.streams[2] = c
	if v := s.evictable(next, true); v != c {
		t.Errorf("evictable %v, want the waiting runner of stream 2", v)
	}
	if v := s.evictable(next, false); v != nil {
		t.Errorf("runner of stream %d stopped for a request the order holds back", v.stream)
	}
	next.items[0].index = 4
	if v := s.evictable(next, true); v != nil {
		t.Errorf("runner of stream %d stopped for a younger request", v.stream)
	}
	d := &streamQ{stream: 3, running: true, last: 0}
	s.streams[3] = d
	if v := s.evictable(next, false); v != d {
		t.Errorf("evictable %v, want the idle runner of stream 3", v)
	}
}
