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
	checkInOrder(t, got, 500)
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

// Items let in cheap that grow when worked on (an exchange counted by its
// frames, then decoded into megabytes of records) do not all grow at once:
// while the pipeline holds more than MaxCost, only the oldest item is
// worked on, so the cost in flight stays under MaxCost plus what Workers
// items add, and everything still comes out, in order.
func TestWorkWaitsForCost(t *testing.T) {
	const workers, grow, maxCost = 2, 500, 100
	var p *Pipeline[int]
	var peak atomic.Int64
	var got []int
	p = New(Config{Workers: workers, Depth: 32, MaxCost: maxCost},
		func(v int) int64 {
			time.Sleep(time.Duration(rand.IntN(300)) * time.Microsecond)
			p.mu.Lock()
			if c := p.cost + grow; c > peak.Load() {
				peak.Store(c)
			}
			p.mu.Unlock()
			return grow
		},
		func(v int) {
			time.Sleep(time.Duration(rand.IntN(300)) * time.Microsecond) // a slow writer
			got = append(got, v)
		})
	for i := range 300 {
		p.Put(i, 10)
	}
	p.Close()
	checkInOrder(t, got, 300)
	// Without the wait, the 32 items let in at 10 each would grow to 32 × 510.
	if bound := int64(maxCost + workers*(grow+10)); peak.Load() > bound {
		t.Errorf("peak cost %d, want at most %d", peak.Load(), bound)
	}
	t.Logf("peak cost %d", peak.Load())
}

// Two stages under one bound (KeepCost): items stay counted in the first
// stage until the second released them, with what both stages' work
// added, so what is held across both stays under MaxCost plus what
// Workers items add, and nothing is lost or left counted.
func TestKeepCostAcrossStages(t *testing.T) {
	const workers, grow, maxCost = 2, 300, 100
	var first, second *Pipeline[*int64]
	var held, peak atomic.Int64 // what the items hold, as they really do
	add := func(n int64) {
		if h := held.Add(n); h > peak.Load() {
			peak.Store(h)
		}
	}
	out := 0
	second = New(Config{Workers: workers, Depth: 32},
		func(c *int64) int64 {
			time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond)
			add(grow) // rendering took memory too
			first.Grow(grow)
			*c += grow
			return 0
		},
		func(c *int64) {
			time.Sleep(time.Duration(rand.IntN(300)) * time.Microsecond) // a slow writer
			out++
			add(-*c)
			first.Release(*c)
		})
	var n int64
	first = New(Config{Workers: workers, Depth: 32, MaxCost: maxCost, KeepCost: true},
		func(c *int64) int64 {
			add(grow) // decoding took memory
			*c += grow
			return grow
		},
		func(c *int64) {
			n++
			if n%3 == 0 {
				add(-*c)
				first.Release(*c) // left out: released at once, out of order
				return
			}
			second.Put(c, 0)
		})
	for range 300 {
		c := int64(10)
		add(c)
		first.Put(&c, c)
	}
	first.Close()
	second.Close()
	if out != 200 || held.Load() != 0 {
		t.Fatalf("%d items out of 200, %d still held", out, held.Load())
	}
	if first.cost != 0 {
		t.Errorf("cost left %d", first.cost)
	}
	// Without the shared bound, the second stage's 32 items alone would
	// hold 32 × 610.
	if bound := int64(maxCost + (workers+1)*(2*grow+10)); peak.Load() > bound {
		t.Errorf("peak held %d, want at most %d", peak.Load(), bound)
	}
	t.Logf("peak held %d", peak.Load())
}

// checkInOrder fails unless got is 0, 1, ... n-1.
func checkInOrder(t *testing.T, got []int, n int) {
	t.Helper()
	for i, v := range got {
		if v != i {
			t.Fatalf("item %d came out as %d", i, v)
		}
	}
	if len(got) != n {
		t.Fatalf("%d items out of %d", len(got), n)
	}
}
