package report

import (
	"net/netip"
	"testing"
	"time"

	"github.com/kdissect/kdissect/dissect"
)

// exchangeAt is an ApiVersions exchange whose request is at t and whose
// response came lat later.
func exchangeAt(t time.Time, lat time.Duration) *dissect.Exchange {
	return &dissect.Exchange{
		Client: netip.MustParseAddrPort("10.0.0.1:5000"), Broker: netip.MustParseAddrPort("10.0.0.2:9092"),
		APIKey: 18, APIVersion: 3,
		Request:  &dissect.Frame{Size: 10, Time: t},
		Response: &dissect.Frame{Size: 20, Time: t.Add(lat)},
	}
}

// TestSeriesBounded: exchanges over three days, one before the first,
// end in at most maxBuckets buckets of one of the widths, and every
// exchange, byte and latency sample is in one of them.
func TestSeriesBounded(t *testing.T) {
	s := series{topics: map[string]bool{}, errors: map[string]bool{}}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	n := 0
	for i := range 3000 {
		s.add(exchangeAt(t0.Add(time.Duration(i)*90*time.Second), time.Duration(i%50)*time.Millisecond))
		n++
	}
	s.add(exchangeAt(t0.Add(-5*time.Hour), time.Millisecond)) // before the first: the series starts earlier
	n++
	if len(s.buckets) > maxBuckets {
		t.Fatalf("%d buckets, bound %d", len(s.buckets), maxBuckets)
	}
	w := s.width()
	if w < 24*time.Hour/maxBuckets || !s.start.Equal(s.start.Truncate(w)) {
		t.Errorf("width %v, start %v: not a width that fits three days into %d buckets, or a start not on it", w, s.start, maxBuckets)
	}
	var reqs, reqBytes, samples int64
	for i, b := range s.buckets {
		if b == nil {
			continue
		}
		reqs += b.requests
		reqBytes += b.requestBytes
		samples += int64(b.latency["ApiVersions"].Count())
		if i == 0 && b.requests != 1 {
			t.Errorf("first bucket holds %d exchanges, want the early one alone", b.requests)
		}
	}
	if reqs != int64(n) || reqBytes != 10*int64(n) || samples != int64(n) {
		t.Errorf("buckets hold %d exchanges, %d request bytes, %d latencies; want %d, %d, %d", reqs, reqBytes, samples, n, 10*n, n)
	}
}
