package metrics

import "github.com/prometheus/client_golang/prometheus"

// labelKey holds a series' label values (at most four), as a map key that
// costs no allocation.
type labelKey [4]string

// bounded is a metric vector (CounterVec, HistogramVec) whose label sets
// are bounded: up to max are kept apart; beyond, the labels after the
// first fixed ones of a new set are Other. It keeps the children it
// made, so that a known series costs a map lookup.
type bounded[T any] struct {
	with     func(...string) T // the vector's WithLabelValues
	max      int
	fixed    int // leading labels the protocol bounds, kept past max
	admitted int // label sets admitted apart
	children map[labelKey]T
}

func newBounded[T any](with func(...string) T, max, fixed int) *bounded[T] {
	return &bounded[T]{with: with, max: max, fixed: fixed, children: map[labelKey]T{}}
}

// child returns the series of labels. The sets folded into Other are
// not counted against max: there are at most as many as the fixed
// labels make.
func (b *bounded[T]) child(labels ...string) T {
	var k labelKey
	copy(k[:], labels)
	if c, ok := b.children[k]; ok {
		return c
	}
	// A copy goes to the vector: labels itself, kept from escaping,
	// stays on the caller's stack.
	vals := make([]string, len(labels))
	copy(vals, labels)
	if b.admitted >= b.max {
		for i := b.fixed; i < len(vals); i++ {
			vals[i] = Other
		}
		copy(k[:], vals)
		if c, ok := b.children[k]; ok {
			return c
		}
	} else {
		b.admitted++
	}
	c := b.with(vals...)
	b.children[k] = c
	return c
}

// counters and histograms are the bounded vectors of a Collector.
type (
	counters   = bounded[prometheus.Counter]
	histograms = bounded[prometheus.Observer]
)
