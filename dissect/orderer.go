package dissect

import (
	"container/heap"
	"math"
)

// noLow is the low-water mark of something that can produce no exchange.
const noLow = math.MaxInt64

// orderKey sorts exchanges in capture order: the packet of the request's
// first byte (Exchange.Order), then the stream, then the stream offset of
// the exchange's first frame in its direction.
type orderKey struct {
	order  int64
	stream int
	pos    int64
}

func (a orderKey) less(b orderKey) bool {
	if a.order != b.order {
		return a.order < b.order
	}
	if a.stream != b.stream {
		return a.stream < b.stream
	}
	return a.pos < b.pos
}

// slot is an exchange waiting in the orderer, from the moment its order key
// is known (its first frame was framed) until it is emitted.
type slot struct {
	ex   *Exchange
	key  orderKey
	done bool  // complete: nothing will be added to the exchange any more
	cost int64 // what it holds, for Options.MaxBufferedBytes
	// owner completes the exchange; asked to give up waiting when the
	// buffer limit is reached. Nil once done.
	owner *conn
	idx   int // in the orderer's heap
	// recent are the entries that keep its frames for comparison with
	// retransmitted copies (retransmit.go), by frameDir.
	recent [2]*recentFrame
}

// slotCost estimates the memory an exchange holds: its frames plus a fixed
// overhead for the structures around them.
func slotCost(ex *Exchange) int64 {
	n := int64(512)
	for _, f := range []*Frame{ex.Request, ex.Response} {
		if f != nil {
			n += int64(cap(f.Bytes))
		}
	}
	return n
}

// orderer emits exchanges in capture order as soon as that order is
// certain. It holds every exchange whose first frame has been framed, in a
// heap by order key; the head is emitted once it is complete and no
// exchange with a smaller key can still appear: its key is below the
// session's low-water mark (the smallest packet index that may still start
// a frame, see Session.lowWater). Emission order therefore never depends on
// when exchanges complete.
type orderer struct {
	h        slotHeap
	emit     func(*Exchange)
	bytes    int64 // sum of the costs of the slots held
	maxBytes int64
	peak     int
	emitted  int64
	last     orderKey // key of the last exchange emitted
}

// add starts holding an exchange. A complete one (done) may still wait for
// earlier ones.
func (o *orderer) add(ex *Exchange, key orderKey, owner *conn, done bool) *slot {
	s := &slot{ex: ex, key: key, done: done, owner: owner}
	if done {
		s.owner = nil
	}
	s.cost = slotCost(ex)
	o.bytes += s.cost
	heap.Push(&o.h, s)
	o.peak = max(o.peak, len(o.h))
	return s
}

// complete marks an exchange as complete; its frames may have grown.
func (o *orderer) complete(s *slot) {
	if s.done {
		return
	}
	s.done = true
	s.owner = nil
	c := slotCost(s.ex)
	o.bytes += c - s.cost
	s.cost = c
}

// release emits, in order, every complete exchange at the head whose key is
// below low. Over the buffer limit it first makes the owners of incomplete
// head exchanges give up waiting (each gets a note), so that a request whose
// response never comes cannot hold everything behind it in memory; an
// exchange is never emitted before low allows it, so the order holds.
func (o *orderer) release(low int64) {
	for len(o.h) > 0 {
		s := o.h[0]
		if !s.done {
			if o.maxBytes <= 0 || o.bytes <= o.maxBytes || s.owner == nil {
				return
			}
			s.owner.giveUp(s)
			if !s.done {
				return // cannot happen: giveUp completes
			}
		}
		if s.key.order >= low {
			return
		}
		heap.Pop(&o.h)
		s.forgetRecent()
		o.bytes -= s.cost
		o.last = s.key
		o.emitted++
		if o.emit != nil {
			o.emit(s.ex)
		}
	}
}

// frontier is the order of the last exchange emitted (-1 before the
// first): a frame starting in a packet at or before it would come out of
// order.
func (o *orderer) frontier() int64 {
	if o.emitted == 0 {
		return -1
	}
	return o.last.order
}

type slotHeap []*slot

func (h slotHeap) Len() int           { return len(h) }
func (h slotHeap) Less(i, j int) bool { return h[i].key.less(h[j].key) }
func (h slotHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].idx, h[j].idx = i, j
}
func (h *slotHeap) Push(x any) {
	s := x.(*slot)
	s.idx = len(*h)
	*h = append(*h, s)
}
func (h *slotHeap) Pop() any {
	old := *h
	s := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return s
}

// blocker is something that may still produce exchanges whose order is at
// least low: a connection (its partial frames, the bytes reassembly holds
// behind a hole, responses waiting for their request) or a connection not
// yet recognised as Kafka. The session keeps blockers in a heap to know the
// smallest low at once.
type blocker struct {
	low int64 // noLow when it can produce nothing
	idx int   // in lowHeap; -1 when not in it
}

// lowHeap is a min-heap of blockers by low.
type lowHeap []*blocker

func (h lowHeap) Len() int           { return len(h) }
func (h lowHeap) Less(i, j int) bool { return h[i].low < h[j].low }
func (h lowHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].idx, h[j].idx = i, j
}
func (h *lowHeap) Push(x any) {
	b := x.(*blocker)
	b.idx = len(*h)
	*h = append(*h, b)
}
func (h *lowHeap) Pop() any {
	old := *h
	b := old[len(old)-1]
	old[len(old)-1] = nil
	b.idx = -1
	*h = old[:len(old)-1]
	return b
}

// set changes a blocker's low, adding it to the heap or removing it.
func (h *lowHeap) set(b *blocker, low int64) {
	b.low = low
	switch {
	case low == noLow && b.idx >= 0:
		heap.Remove(h, b.idx)
	case low == noLow:
	case b.idx >= 0:
		heap.Fix(h, b.idx)
	default:
		heap.Push(h, b)
	}
}

// min returns the smallest low, noLow when the heap is empty.
func (h lowHeap) min() int64 {
	if len(h) == 0 {
		return noLow
	}
	return h[0].low
}
