package stats

import (
	"math/rand/v2"
	"testing"
)

// TestHistogramMerge: merging histograms gives the percentiles, count,
// min, max and mean of one histogram that saw every sample, exact or
// bucketed.
func TestHistogramMerge(t *testing.T) {
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
