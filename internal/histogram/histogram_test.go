package histogram

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func nearestRank(sorted []int64, p float64) int64 {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// TestHistogramPercentiles checks percentiles against the exact ones: equal
// while the samples fit the exact store, within RelativeError beyond, for
// samples spread over many orders of magnitude.
func TestHistogramPercentiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 10, exactSamples, exactSamples + 1, 5000, 100000} {
		var h Histogram
		s := make([]int64, n)
		for i := range s {
			// Log-uniform from 1µs to about 100s, with some zeros.
			s[i] = int64(math.Exp(rng.Float64() * math.Log(1e8)))
			if rng.IntN(50) == 0 {
				s[i] = 0
			}
			h.Add(s[i])
		}
		slices.Sort(s)
		if h.Count() != uint64(n) || h.Max() != s[n-1] || h.Min() != s[0] {
			t.Fatalf("n=%d: count %d max %d min %d, want %d %d %d", n, h.Count(), h.Max(), h.Min(), n, s[n-1], s[0])
		}
		if h.Exact() != (n <= exactSamples) {
			t.Errorf("n=%d: Exact %v", n, h.Exact())
		}
		for _, p := range []float64{0.1, 1, 25, 50, 90, 99, 99.9, 100} {
			got, want := h.Percentile(p), nearestRank(s, p)
			if h.Exact() && got != want {
				t.Errorf("n=%d p%v: %d, want exactly %d", n, p, got, want)
			}
			if err := math.Abs(float64(got - want)); err > RelativeError*float64(want) {
				t.Errorf("n=%d p%v: %d, want %d within %.2f%%", n, p, got, want, 100*RelativeError)
			}
		}
	}
}

// TestHistogramBuckets checks that buckets tile the values: every value
// falls in the bucket whose range holds it, ranges never overlap.
func TestHistogramBuckets(t *testing.T) {
	prevHi := int64(-1)
	for i := uint16(0); ; i++ {
		lo, hi := bucketRange(i)
		if int64(lo) != prevHi+1 {
			t.Fatalf("bucket %d starts at %d, the previous ended at %d", i, lo, prevHi)
		}
		for _, v := range []uint64{lo, hi, lo + (hi-lo)/2} {
			if bucketOf(int64(v)) != i {
				t.Fatalf("value %d: bucket %d, want %d", v, bucketOf(int64(v)), i)
			}
		}
		if hi >= math.MaxInt64/2 {
			break
		}
		prevHi = int64(hi)
	}
	if b := bucketOf(math.MaxInt64); b < bucketOf(math.MaxInt64/2) {
		t.Errorf("max bucket %d", b)
	}
}
