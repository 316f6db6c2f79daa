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
}

// slot is one item in flight; ready is closed once Work returned.
type slot[T any] struct {
	v     T
	cost  int64
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
	}
	p.cond = sync.NewCond(&p.mu)
	for range cfg.Workers {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for s := range p.jobs {
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
			p.release(s.cost)
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
	s := &slot[T]{v: v, cost: cost, ready: make(chan struct{})}
	// pending first: Done waits on it in order, and its capacity bounds
	// the items in flight.
	p.pending <- s
	p.jobs <- s
}

func (p *Pipeline[T]) release(cost int64) {
	if p.maxCost <= 0 {
		return
	}
	p.mu.Lock()
	p.cost -= cost
	p.mu.Unlock()
	p.cond.Broadcast()
}

// Close waits until every item Put has been through Done, and stops the
// goroutines. Put must not be called after Close.
func (p *Pipeline[T]) Close() {
	close(p.jobs)
	close(p.pending)
	p.wg.Wait()
	<-p.ended
}
