package replay

import (
	"context"
	"errors"
	"sync"
)

// sched hands the requests Add takes to the replayed connections: it
// holds them in the read-ahead window (Options.Window), gives each
// captured connection with requests waiting a runner (a goroutine with
// its own connections to the target) while there are fewer than
// Options.Concurrency, and keeps the causal order (pendingOrder) over
// every request held, of connections with a runner or not.
//
// Progress: the oldest request held (the smallest index) never waits
// for the order, and its connection always gets a runner: when every
// runner is taken, one is stopped for it (see evictable: one whose
// connection has nothing waiting, else one whose next request waits for
// the order); its connections are closed, its requests stay held, and
// it starts again on new connections when a slot frees. When no runner
// can stop because one waits for the answer of a rebalance (JoinGroup,
// SyncGroup) the capture answered only after the oldest request was
// sent, that answer may wait for the oldest request itself (another
// member joining): the oldest request's connection then gets a runner
// beyond Options.Concurrency (see overflow). So a full window always
// drains, and Add never waits for ever, whatever the concurrency.
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
	overflow int // runners started beyond conc for a rebalance

	start func(q *streamQ) // starts a runner for q; mu is held
}

// streamQ is one captured connection's requests held, in capture order;
// items[0] is being sent or is next.
type streamQ struct {
	stream  int
	items   []*item
	bytes   int64
	running bool  // has a runner
	evict   bool  // its runner is to stop before its next request
	waiting bool  // its runner waits for the causal order
	sending *item // the request its runner is sending, nil when none
	last    int   // index of the last request done, for choosing which runner stops
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
	s.order.insert(it)
	s.schedule()
	s.cond.Broadcast()
	return nil
}

// schedule starts runners for the connections with requests waiting,
// oldest first, while there are fewer than conc; when there are not,
// it asks a runner to stop for the oldest (evictable), or starts the
// oldest beyond conc when its request can go and a rebalance may wait
// for it (overflows). mu is held.
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
			for _, q := range s.streams {
				if q.running && q.evict {
					return // one is stopping already
				}
			}
			ready := !s.order.blocked(next.items[0])
			if v := s.evictable(next, ready); v != nil {
				v.evict = true
				s.cond.Broadcast()
				return
			}
			if !ready || !s.overflows(next) {
				return // a runner ends its request first
			}
			s.overflow++
		}
		next.running, next.evict = true, false
		s.running++
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
	if len(q.items) > 0 && !q.evict {
		return q.items[0], true
	}
	s.stop(q)
	return nil, false
}

// stop ends q's runner: its requests stay held for a later one. mu is
// held.
func (s *sched) stop(q *streamQ) {
	if q.evict {
		s.evicted++
	}
	q.running, q.evict, q.waiting, q.sending = false, false, false, nil
	s.running--
	if len(q.items) == 0 {
		delete(s.streams, q.stream)
	}
	s.schedule()
	s.cond.Broadcast()
}

// errStopped says a runner was stopped for another connection while its
// request waited (sched.waitOrder): the request stays held.
var errStopped = errors.New("replay: runner stopped for another connection")

// waitOrder blocks until the causal order lets it, q's next request, be
// sent; it is then q's request being sent until done. Errors: the
// context's when it ends; errStopped when q's runner was stopped for
// another connection meanwhile (the runner must end without done: it
// stays held).
func (s *sched) waitOrder(q *streamQ, it *item) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer func() { q.waiting = false }()
	for {
		if err := s.ctx.Err(); err != nil {
			return err
		}
		if q.evict {
			s.stop(q)
			return errStopped
		}
		if !s.order.blocked(it) {
			q.sending = it
			if rebalanceAPIs[it.key] {
				s.schedule() // the other members may now go beyond conc
			}
			return nil
		}
		if !q.waiting {
			q.waiting = true
			s.schedule() // q's slot may go to the request it waits for
			continue     // schedule may have asked q itself to stop
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
	q.sending = nil
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
// connection start, and how many were started beyond the concurrency
// for a rebalance.
func (s *sched) evictions() (evicted, overflow int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.evicted, s.overflow
}
