package stats

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
