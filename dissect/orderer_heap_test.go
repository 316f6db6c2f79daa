package dissect

import "testing"

// TestLowHeapSet: a blocker that can produce nothing more leaves the heap
// wherever it sits, the root (the smallest low) included, and the next
// smallest low is then the minimum; lowering and raising a low keeps the
// heap in order.
func TestLowHeapSet(t *testing.T) {
	var h lowHeap
	bs := []*blocker{{idx: -1}, {idx: -1}, {idx: -1}, {idx: -1}}
	for i, low := range []int64{5, 10, 7, 20} {
		h.set(bs[i], low)
	}
	check := func(what string, min int64, n int) {
		t.Helper()
		if h.min() != min || h.Len() != n {
			t.Fatalf("%s: min %d, %d blockers; want %d, %d", what, h.min(), h.Len(), min, n)
		}
		for i, b := range h {
			if b.idx != i {
				t.Fatalf("%s: blocker at %d says %d", what, i, b.idx)
			}
		}
	}
	check("pushed", 5, 4)
	h.set(bs[0], noLow) // the root
	check("root removed", 7, 3)
	if bs[0].idx != -1 {
		t.Fatalf("a removed blocker keeps index %d", bs[0].idx)
	}
	h.set(bs[3], 1) // lowered to the top
	check("lowered", 1, 3)
	h.set(bs[3], 30) // raised to the bottom
	check("raised", 7, 3)
	h.set(bs[2], noLow) // the root again
	h.set(bs[0], noLow) // not in the heap: nothing
	check("root removed again", 10, 2)
	h.set(bs[0], 3) // back in
	check("back", 3, 3)
}
