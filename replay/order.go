package replay

import (
	"slices"
	"time"
)

// pendingOrder keeps the capture's causal order across connections: a
// request may be sent once every request of another connection that was
// handed over before it and answered (or, without an
// answer, sent) in the capture before it was sent has been done here.
// It holds the requests not done, sorted by when the capture saw them completed (depTime), then by
// arrival (seq). It is not safe for concurrent use: sched's mutex guards
// it.
//
// Only requests handed over earlier (smaller seq) hold a request back,
// so the oldest request not done never waits for the order: whatever the
// capture's times (several files, clocks gone backwards), the waits form
// no cycle. It holds every request held, of connections with a runner
// or not (Options.Concurrency): a transaction's Produce on a connection
// waiting for a slot still goes before its EndTxn on another. sched
// stops a runner waiting here when the request it waits for needs its
// slot.
type pendingOrder struct {
	items []*item
}

// depTime is when the capture saw the item completed: its response, or
// its request when no response was captured (never before its request).
func depTime(it *item) time.Time {
	if it.respTime.After(it.reqTime) {
		return it.respTime
	}
	return it.reqTime
}

func cmpPending(a, b *item) int {
	if c := a.dep.Compare(b.dep); c != 0 {
		return c
	}
	return a.index - b.index
}

// insert adds an item.
func (o *pendingOrder) insert(it *item) {
	i, _ := slices.BinarySearchFunc(o.items, it, cmpPending)
	o.items = slices.Insert(o.items, i, it)
}

// remove takes an item out; it does nothing when the item is not there.
func (o *pendingOrder) remove(it *item) {
	if i, ok := slices.BinarySearchFunc(o.items, it, cmpPending); ok {
		o.items = slices.Delete(o.items, i, i+1)
	}
}

// blocked says whether a request held here still holds it back: one of
// another connection, handed over before it, completed in the capture
// before it was sent.
func (o *pendingOrder) blocked(it *item) bool {
	for _, x := range o.items {
		if !x.dep.Before(it.reqTime) {
			return false
		}
		if x.stream != it.stream && x.index < it.index {
			return true
		}
	}
	return false
}
