package replay

import (
	"context"
	"slices"
	"sort"
	"sync"
	"time"
)

// order keeps the capture's causal order across connections: a request
// may be sent once every request of another connection being replayed
// that was answered (or, without an answer, sent) in the capture before
// it was sent has been done here. Requests of a connection not yet
// admitted (Options.Concurrency) are not waited for, so that a full set
// of connections never waits for one that cannot start.
type order struct {
	mu       sync.Mutex
	cond     *sync.Cond
	items    []*item
	byDone   []int       // indexes into items, by depTime
	depTimes []time.Time // parallel to byDone
	done     []bool      // by item index
	admitted map[int]bool
	low      int // byDone[:low] are all done
}

// depTime is when the capture saw the item completed: its response, or
// its request when no response was captured.
func depTime(it *item) time.Time {
	if !it.respTime.IsZero() {
		return it.respTime
	}
	return it.reqTime
}

func newOrder(items []*item) *order {
	o := &order{items: items, done: make([]bool, len(items)), admitted: map[int]bool{}}
	o.cond = sync.NewCond(&o.mu)
	for i, it := range items {
		if it.skip != "" {
			o.done[i] = true
			continue
		}
		o.byDone = append(o.byDone, i)
	}
	sort.SliceStable(o.byDone, func(a, b int) bool {
		return depTime(items[o.byDone[a]]).Before(depTime(items[o.byDone[b]]))
	})
	o.depTimes = make([]time.Time, len(o.byDone))
	for k, i := range o.byDone {
		o.depTimes[k] = depTime(items[i])
	}
	return o
}

// admit marks a connection as being replayed.
func (o *order) admit(stream int) {
	o.mu.Lock()
	o.admitted[stream] = true
	o.mu.Unlock()
	o.cond.Broadcast()
}

// finish marks an item done, sent or not.
func (o *order) finish(it *item) {
	o.mu.Lock()
	o.done[it.index] = true
	for o.low < len(o.byDone) && o.done[o.byDone[o.low]] {
		o.low++
	}
	o.mu.Unlock()
	o.cond.Broadcast()
}

// wait blocks until it may be sent, or ctx ends (its error then).
func (o *order) wait(ctx context.Context, it *item) error {
	n, _ := slices.BinarySearchFunc(o.depTimes, it.reqTime, func(t, target time.Time) int { return t.Compare(target) })
	stop := context.AfterFunc(ctx, func() {
		o.mu.Lock()
		o.cond.Broadcast()
		o.mu.Unlock()
	})
	defer stop()
	o.mu.Lock()
	defer o.mu.Unlock()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !o.blocked(it, n) {
			return nil
		}
		o.cond.Wait()
	}
}

// blocked says whether an item among byDone[:n] still holds it back.
func (o *order) blocked(it *item, n int) bool {
	for k := o.low; k < n; k++ {
		i := o.byDone[k]
		other := o.items[i]
		if !o.done[i] && other.stream != it.stream && o.admitted[other.stream] {
			return true
		}
	}
	return false
}
