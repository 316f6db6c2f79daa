package ordered

import (
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"
)

// Items come out in the order they went in, whatever the order their work
// ends in, and never more are in flight than Depth.
func TestOrderAndDepth(t *testing.T) {
	const depth = 6
	var inFlight, peak atomic.Int64
	var got []int
	p := New(Config{Workers: 3, Depth: depth},
		func(v int) int64 {
			time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond)
			return 0
		},
		func(v int) {
			got = append(got, v)
			inFlight.Add(-1)
		})
	for i := range 500 {
		if n := inFlight.Add(1); n > peak.Load() {
			peak.Store(n)
		}
		p.Put(i, 1)
	}
	p.Close()
	for i, v := range got {
		if v != i {
			t.Fatalf("item %d came out as %d", i, v)
		}
	}
	if len(got) != 500 {
		t.Fatalf("%d items out of 500", len(got))
	}
	// Put returns once its item is queued: depth in the queues, plus the
	// one Done holds and the one counted before Put blocked.
	if peak.Load() > depth+2 {
		t.Errorf("%d items in flight, depth %d", peak.Load(), depth)
	}
}

// The cost of the items in flight stays under MaxCost, except for an item
// that alone costs more, which passes alone.
func TestMaxCost(t *testing.T) {
	var peak atomic.Int64
	release := make(chan struct{})
	var p *Pipeline[int64]
	p = New(Config{Workers: 4, Depth: 64, MaxCost: 100},
		func(c int64) int64 {
			p.mu.Lock()
			if p.cost > peak.Load() {
				peak.Store(p.cost)
			}
			if c == 1000 && p.cost != 1000 {
				t.Errorf("the costly item shares the pipeline: cost %d", p.cost)
			}
			p.mu.Unlock()
			return 0
		},
		func(c int64) {
			if c == 1000 {
				<-release
			}
		})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, c := range []int64{30, 30, 30, 1000, 30, 30, 90, 10} {
			p.Put(c, c)
		}
	}()
	time.Sleep(20 * time.Millisecond)
	close(release)
	<-done
	p.Close()
	if peak.Load() > 1000 {
		t.Errorf("peak cost %d", peak.Load())
	}
	if p.cost != 0 {
		t.Errorf("cost left %d", p.cost)
	}
}

// Cost that work adds holds back later items until the item is done.
func TestWorkCost(t *testing.T) {
	release := make(chan struct{})
	var p *Pipeline[int]
	var started atomic.Int64
	p = New(Config{Workers: 2, Depth: 8, MaxCost: 100},
		func(v int) int64 {
			started.Add(1)
			if v == 0 {
				return 1000 // decoding the first item took much memory
			}
			return 0
		},
		func(v int) {
			if v == 0 {
				<-release
			}
		})
	p.Put(0, 10)
	time.Sleep(20 * time.Millisecond) // work on item 0 ends
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; i < 4; i++ {
			p.Put(i, 10)
		}
	}()
	time.Sleep(50 * time.Millisecond)
	if n := started.Load(); n != 1 {
		t.Errorf("%d items started while the first holds 1010 of 100", n)
	}
	close(release)
	<-done
	p.Close()
	if p.cost != 0 {
		t.Errorf("cost left %d", p.cost)
	}
}
