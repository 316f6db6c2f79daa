// Package ordered runs a function on a stream of items on several
// goroutines at once and hands the results on in the order the items came,
// with bounded memory: the parallel stage of a pipeline whose input and
// output are both ordered (exchanges in capture order).
package ordered

import "sync"

// Pipeline calls Work on each item Put, on up to Workers goroutines at
// once, then Done on each item, one at a time, in the order they were Put.
// Put blocks while the items in flight (Put and not yet through Done) are
// Depth in number or together cost more than MaxCost, so that a slow Done
// (a blocked writer) holds back the producer instead of growing memory.
// An item's cost is what Put says plus what Work returns (memory that
// working on it took, known only then).
type Pipeline[T any] struct {
	work func(T) int64
	done func(T)

	jobs    chan *slot[T] // to the workers
	pending chan *slot[T] // to Done, in order
	wg      sync.WaitGroup
	ended   chan struct{} // closed when the Done goroutine returns

	mu      sync.Mutex
	cond    *sync.Cond
	cost    int64 // cost of the items in flight
	maxCost int64
	keep    bool
	seq     uint64 // items Put so far
	doneSeq uint64 // items released so far (see await)
}

// slot is one item in flight; ready is closed once Work returned.
type slot[T any] struct {
	v     T
	cost  int64
	seq   uint64 // its place in the order of Put, from 0
	ready chan struct{}
}

// Config sizes a Pipeline.
type Config struct {
	// Workers is how many goroutines run Work; at least 1.
	Workers int
	// Depth is how many items may be in flight at once; at least Workers.
	Depth int
	// MaxCost bounds the total cost (Put's cost argument, in the caller's
	// unit: bytes) of the items in flight; 0 means no bound. An item
	// costing more than MaxCost alone still passes, alone.
	MaxCost int64
	// KeepCost says that an item stays in flight after Done, its cost
	// counted, until the caller calls Release for it: when Done hands
	// items on to a further stage, the bound then covers both stages. The
	// caller releases the items in any order, each once.
	KeepCost bool
}

// New starts a Pipeline. work runs concurrently with itself and with done,
// and returns the cost the item gained; done runs on one goroutine. Call
// Close to finish.
func New[T any](cfg Config, work func(T) int64, done func(T)) *Pipeline[T] {
	cfg.Workers = max(cfg.Workers, 1)
	cfg.Depth = max(cfg.Depth, cfg.Workers)
	p := &Pipeline[T]{
		work:    work,
		done:    done,
		jobs:    make(chan *slot[T], cfg.Depth),
		pending: make(chan *slot[T], cfg.Depth),
		ended:   make(chan struct{}),
		maxCost: cfg.MaxCost,
		keep:    cfg.KeepCost,
	}
	p.cond = sync.NewCond(&p.mu)
	for range cfg.Workers {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for s := range p.jobs {
				p.await(s)
				if extra := p.work(s.v); extra > 0 && p.maxCost > 0 {
					p.mu.Lock()
					s.cost += extra
					p.cost += extra
					p.mu.Unlock()
				}
				close(s.ready)
			}
		}()
	}
	go func() {
		defer close(p.ended)
		for s := range p.pending {
			<-s.ready
			p.done(s.v)
			if !p.keep {
				p.release(s.cost)
			}
		}
	}()
	return p
}

// Put hands v, of the given cost, to the pipeline; it blocks while the
// pipeline is full. Call it from one goroutine at a time.
func (p *Pipeline[T]) Put(v T, cost int64) {
	if p.maxCost > 0 {
		p.mu.Lock()
		for p.cost > 0 && p.cost+cost > p.maxCost {
			p.cond.Wait()
		}
		p.cost += cost
		p.mu.Unlock()
	}
	s := &slot[T]{v: v, cost: cost, seq: p.seq, ready: make(chan struct{})}
	p.seq++
	// pending first: Done waits on it in order, and its capacity bounds
	// the items in flight.
	p.pending <- s
	p.jobs <- s
}

// await holds a worker back before working on s while the items in
// flight cost more than MaxCost, unless s is the oldest: what Work adds is
// known only after it, so items let in cheap (an exchange counted by its
// frames) must not all grow at once (each decoded into megabytes of
// records). The oldest always goes ahead, so Done always gets its next
// item. Work in progress then costs at most Workers items beyond MaxCost.
//
// s is the oldest in flight when doneSeq, the number of items released,
// is its number: only items before it can have been released (they went
// through Done first), so all of them were, in whatever order.
func (p *Pipeline[T]) await(s *slot[T]) {
	if p.maxCost <= 0 {
		return
	}
	p.mu.Lock()
	for p.cost > p.maxCost && s.seq != p.doneSeq {
		p.cond.Wait()
	}
	p.mu.Unlock()
}

// release takes an item of the given cost out of flight.
func (p *Pipeline[T]) release(cost int64) {
	p.mu.Lock()
	p.cost -= cost
	p.doneSeq++
	p.mu.Unlock()
	p.cond.Broadcast()
}

// Release takes an item that went through Done out of flight, with its
// cost: Put's, what Work added and what Grow added for it (KeepCost only).
func (p *Pipeline[T]) Release(cost int64) {
	if p.keep {
		p.release(cost)
	}
}

// Grow adds cost to the items in flight: memory an item took after Work,
// in a further stage (KeepCost), to be released with it. It does not block.
func (p *Pipeline[T]) Grow(cost int64) {
	if p.maxCost <= 0 || cost <= 0 {
		return
	}
	p.mu.Lock()
	p.cost += cost
	p.mu.Unlock()
}

// Close waits until every item Put has been through Done, and stops the
// goroutines. Put must not be called after Close.
func (p *Pipeline[T]) Close() {
	close(p.jobs)
	close(p.pending)
	p.wg.Wait()
	<-p.ended
}
