package replay

import (
	"context"
	"sync"
)

// sched hands the requests Add takes to the replayed connections: it
// holds them in the read-ahead window (Options.Window), gives each
// captured connection with requests waiting a runner (a goroutine with
// its own connections to the target) while there are fewer than
// Options.Concurrency, and keeps the causal order (pendingOrder).
//
// Progress: the oldest request held (the smallest index) never waits
// for the order, and its connection always gets a runner: when every
// runner is taken, one whose connection has nothing waiting is stopped
// (its connections closed; a later request of it starts it again on new
// connections). So a full window always drains, and Add never waits for
// ever, whatever the concurrency.
type sched struct {
	mu   sync.Mutex
	cond *sync.Cond
	lim  Window
	conc int

	requests int   // held
	bytes    int64 // held
	streams  map[int]*streamQ
	running  int // runners
	closed   bool
	ctx      context.Context
	order    pendingOrder
	evicted  int // runners stopped for another connection

	start func(q *streamQ) // starts a runner for q; mu is held
}

// streamQ is one captured connection's requests held, in capture order;
// items[0] is being sent or is next.
type streamQ struct {
	stream  int
	items   []*item
	bytes   int64
	running bool // has a runner
	evict   bool // its runner is to stop once it has nothing to do
	last    int  // index of the last request done, for choosing which runner stops
}

func newSched(ctx context.Context, lim Window, conc int, start func(*streamQ)) *sched {
	s := &sched{lim: lim.resolved(), conc: conc, streams: map[int]*streamQ{}, ctx: ctx, start: start}
	s.cond = sync.NewCond(&s.mu)
	context.AfterFunc(ctx, func() {
		s.mu.Lock()
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	return s
}

// fits says whether it can be held now; mu is held.
func (s *sched) fits(q *streamQ, it *item) bool {
	if s.requests > 0 && (s.requests+1 > s.lim.Requests || s.bytes+it.size > s.lim.Bytes) {
		return false
	}
	if q != nil && len(q.items) > 0 && (len(q.items)+1 > s.lim.ConnRequests || q.bytes+it.size > s.lim.ConnBytes) {
		return false
	}
	return true
}

// put holds it, waiting while the window is full. It fails (ctx's
// error) when the replay's context ends first; it is then not held.
func (s *sched) put(it *item) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if err := s.ctx.Err(); err != nil {
			return err
		}
		if s.fits(s.streams[it.stream], it) {
			break
		}
		s.cond.Wait()
	}
	q := s.streams[it.stream]
	if q == nil {
		q = &streamQ{stream: it.stream}
		s.streams[it.stream] = q
	}
	q.items = append(q.items, it)
	q.bytes += it.size
	s.requests++
	s.bytes += it.size
	if q.running {
		s.order.insert(it)
	}
	s.schedule()
	s.cond.Broadcast()
	return nil
}

// schedule starts runners for the connections with requests waiting,
// oldest first, while there are fewer than conc; when there are not,
// it asks a runner whose connection has nothing waiting to stop. mu is
// held.
func (s *sched) schedule() {
	for {
		var next *streamQ
		for _, q := range s.streams {
			if !q.running && len(q.items) > 0 && (next == nil || q.items[0].index < next.items[0].index) {
				next = q
			}
		}
		if next == nil {
			return
		}
		if s.running >= s.conc {
			var idle *streamQ
			for _, q := range s.streams {
				if q.running && q.evict {
					return // one is stopping already
				}
				if q.running && len(q.items) == 0 && (idle == nil || q.last < idle.last) {
					idle = q
				}
			}
			if idle != nil {
				idle.evict = true
				s.cond.Broadcast()
			}
			return
		}
		next.running, next.evict = true, false
		s.running++
		for _, it := range next.items {
			s.order.insert(it)
		}
		s.start(next)
	}
}

// next returns the request q's runner sends next, waiting for one; ok
// false tells the runner to stop: it was asked to, or no request will
// come (Wait was called, or the context ended).
func (s *sched) next(q *streamQ) (it *item, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(q.items) == 0 && !q.evict && !s.closed && s.ctx.Err() == nil {
		s.cond.Wait()
	}
	if len(q.items) > 0 {
		q.evict = false
		return q.items[0], true
	}
	if q.evict {
		s.evicted++
	}
	q.running, q.evict = false, false
	s.running--
	delete(s.streams, q.stream)
	s.schedule()
	s.cond.Broadcast()
	return nil, false
}

// waitOrder blocks until the causal order lets it be sent, or the
// context ends (its error then).
func (s *sched) waitOrder(it *item) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if err := s.ctx.Err(); err != nil {
			return err
		}
		if !s.order.blocked(it) {
			return nil
		}
		s.cond.Wait()
	}
}

// done releases q's first request, it, sent or not.
func (s *sched) done(q *streamQ, it *item) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q.items[0] = nil
	q.items = q.items[1:]
	if len(q.items) == 0 {
		q.items = nil // let the backing array go
	}
	q.bytes -= it.size
	q.last = it.index
	s.requests--
	s.bytes -= it.size
	s.order.remove(it)
	s.schedule()
	s.cond.Broadcast()
}

// close says no request will come: runners stop once theirs are done.
func (s *sched) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.cond.Broadcast()
}

// evictions returns how many runners were stopped to let another
// connection start.
func (s *sched) evictions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.evicted
}
