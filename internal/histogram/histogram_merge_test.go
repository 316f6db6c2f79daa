package histogram

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestHistogramMerge checks that merging two histograms gives what adding
// all their samples to one gives: the same count, min, max, mean, exactness
// and percentiles, on either side of the exact store's size.
func TestHistogramMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range [][2]int{{0, 0}, {0, 5}, {5, 0}, {3, 7}, {exactSamples / 2, exactSamples / 2}, {exactSamples, 1}, {1, exactSamples}, {2000, 10}, {10, 2000}, {3000, 4000}} {
		var a, b, all Histogram
		for i := range n[0] + n[1] {
			v := int64(math.Exp(rng.Float64() * math.Log(1e7)))
			if i < n[0] {
				a.Add(v)
			} else {
				b.Add(v)
			}
			all.Add(v)
		}
		bCount := b.Count()
		a.Merge(&b)
		if b.Count() != bCount {
			t.Fatalf("%v: Merge changed its argument", n)
		}
		if a.Count() != all.Count() || a.Min() != all.Min() || a.Max() != all.Max() || a.Exact() != all.Exact() || math.Abs(a.Mean()-all.Mean()) > 1e-9*all.Mean() {
			t.Errorf("%v: merged count %d min %d max %d exact %v mean %f, want %d %d %d %v %f", n,
				a.Count(), a.Min(), a.Max(), a.Exact(), a.Mean(), all.Count(), all.Min(), all.Max(), all.Exact(), all.Mean())
		}
		for _, p := range []float64{1, 50, 90, 99, 100} {
			if got, want := a.Percentile(p), all.Percentile(p); got != want {
				t.Errorf("%v: p%v merged %d, added one by one %d", n, p, got, want)
			}
		}
	}
}

// TestHistogramMergeMany: merging histograms gives the percentiles, count,
// min, max and mean of one histogram that saw every sample, exact or
// bucketed.
func TestHistogramMergeMany(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sizes := range [][]int{{10, 20}, {600, 600}, {3000, 5}, {5, 3000}, {4000, 4000, 0}} {
		var all, merged Histogram
		for _, n := range sizes {
			var h Histogram
			for range n {
				v := rng.Int64N(1 << uint(rng.IntN(30)+1))
				h.Add(v)
				all.Add(v)
			}
			merged.Merge(&h)
		}
		if merged.Count() != all.Count() || merged.Min() != all.Min() || merged.Max() != all.Max() || merged.Mean() != all.Mean() {
			t.Errorf("%v: merged count %d min %d max %d mean %f, one histogram %d %d %d %f", sizes,
				merged.Count(), merged.Min(), merged.Max(), merged.Mean(), all.Count(), all.Min(), all.Max(), all.Mean())
		}
		for _, p := range []float64{50, 90, 99, 100} {
			if g, w := merged.Percentile(p), all.Percentile(p); g != w {
				t.Errorf("%v: p%v merged %d, one histogram %d", sizes, p, g, w)
			}
		}
	}
}
