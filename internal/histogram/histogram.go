package histogram

import (
	"math"
	"math/bits"
	"slices"
)

// Histogram summarises non-negative integer samples (latencies in
// microseconds) in bounded memory, for percentiles.
//
// The first exactSamples samples are kept as they are, so percentiles of
// up to that many samples are exact. Past that they move into log-linear
// buckets, as HdrHistogram's: each power of two is split into 2^subBits
// buckets of equal width, so a bucket spans at most 1/128 of its lower
// bound, and a percentile is reported as its bucket's midpoint (clamped
// to the smallest and largest sample seen): within 1/256 (0.4%) of the
// true sample, whatever the range of values. Values below 2^subBits get
// buckets one wide: exact. Memory is at most one counter per bucket
// touched, and there are at most 64·128 buckets.
//
// Min, max, count and sum are always exact.
type Histogram struct {
	exact   []int64 // while count <= exactSamples
	buckets map[uint16]uint64
	count   uint64
	sum     float64
	min     int64
	max     int64
}

const (
	subBits      = 7
	exactSamples = 1024
)

// RelativeError is the largest relative error of a reported percentile
// once the samples no longer fit the exact store.
const RelativeError = 1.0 / (1 << (subBits + 1))

// Add records a sample; negative samples count as 0.
func (h *Histogram) Add(v int64) {
	v = max(v, 0)
	if h.count == 0 || v < h.min {
		h.min = v
	}
	h.max = max(h.max, v)
	h.count++
	h.sum += float64(v)
	if h.buckets == nil {
		h.exact = append(h.exact, v)
		if len(h.exact) <= exactSamples {
			return
		}
		h.buckets = make(map[uint16]uint64)
		for _, x := range h.exact {
			h.buckets[bucketOf(x)]++
		}
		h.exact = nil
		return
	}
	h.buckets[bucketOf(v)]++
}

// bucketOf returns the bucket index of v >= 0: below 2^subBits, v itself;
// above, the exponent and the top subBits bits after the leading one.
func bucketOf(v int64) uint16 {
	u := uint64(v)
	if u < 1<<subBits {
		return uint16(u)
	}
	e := bits.Len64(u) - 1 // 2^e <= u < 2^(e+1), e >= subBits
	sub := (u >> (e - subBits)) & (1<<subBits - 1)
	return uint16((e-subBits+1)<<subBits) | uint16(sub)
}

// bucketRange returns the values [lo, hi] of bucket i.
func bucketRange(i uint16) (lo, hi uint64) {
	if i < 1<<subBits {
		return uint64(i), uint64(i)
	}
	e := int(i>>subBits) + subBits - 1
	sub := uint64(i & (1<<subBits - 1))
	width := uint64(1) << (e - subBits)
	lo = uint64(1)<<e | sub<<(e-subBits)
	return lo, lo + width - 1
}

// Count returns the number of samples.
func (h *Histogram) Count() uint64 { return h.count }

// Max returns the largest sample, 0 without samples.
func (h *Histogram) Max() int64 { return h.max }

// Min returns the smallest sample, 0 without samples.
func (h *Histogram) Min() int64 { return h.min }

// Mean returns the mean, 0 without samples.
func (h *Histogram) Mean() float64 {
	if h.count == 0 {
		return 0
	}
	return h.sum / float64(h.count)
}

// Exact reports whether percentiles are exact: the samples are all kept.
func (h *Histogram) Exact() bool { return h.buckets == nil }

// Percentile returns the nearest-rank p-th percentile (0 < p <= 100): the
// smallest sample such that at least p% of the samples are at most it;
// exact while Exact, else within RelativeError of it. 0 without samples.
func (h *Histogram) Percentile(p float64) int64 {
	if h.count == 0 {
		return 0
	}
	rank := uint64(math.Ceil(p / 100 * float64(h.count)))
	rank = min(max(rank, 1), h.count)
	if h.buckets == nil {
		s := slices.Clone(h.exact)
		slices.Sort(s)
		return s[rank-1]
	}
	keys := make([]uint16, 0, len(h.buckets))
	for k := range h.buckets {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var seen uint64
	for _, k := range keys {
		seen += h.buckets[k]
		if seen >= rank {
			lo, hi := bucketRange(k)
			mid := int64(lo + (hi-lo)/2)
			return min(max(mid, h.min), h.max)
		}
	}
	return h.max
}
