// Package report builds the HTML report of a capture (kdissect report):
// the aggregate of output/stats, the same numbers stats prints, and time
// series of the exchanges drawn as inline SVG plots, in one file that
// needs no network to be viewed.
package report

import (
	"time"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/output/stats"
)

// maxBuckets bounds the points of a time series: past it, the buckets
// are merged into wider ones (see widths), so that memory stays bounded
// whatever the capture's span.
const maxBuckets = 240

// maxNames bounds the names a series keeps apart (topics, error names,
// APIs); the ones past it count as stats.Other, as stats bounds its rows.
const maxNames = 1000

// widths are the bucket widths, each a multiple of the one before it, so
// that a bucket always falls inside one bucket of the next width; past
// the last, widths double.
var widths = []time.Duration{
	time.Millisecond, 2 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond,
	100 * time.Millisecond, 200 * time.Millisecond, time.Second, 2 * time.Second,
	10 * time.Second, 20 * time.Second, time.Minute, 2 * time.Minute, 10 * time.Minute,
	20 * time.Minute, time.Hour, 2 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
}

// bucket is what the exchanges whose request started in one interval
// carry.
type bucket struct {
	requests      int64
	requestBytes  int64
	responseBytes int64
	perAPI        map[string]int64
	latency       map[string]*stats.Histogram // by API name, microseconds
	produced      map[string]int64            // records by topic
	fetched       map[string]int64
	errors        map[string]int64 // by Kafka's error name
}

func newBucket() *bucket {
	return &bucket{
		perAPI: map[string]int64{}, latency: map[string]*stats.Histogram{},
		produced: map[string]int64{}, fetched: map[string]int64{}, errors: map[string]int64{},
	}
}

// merge adds o into b.
func (b *bucket) merge(o *bucket) {
	b.requests += o.requests
	b.requestBytes += o.requestBytes
	b.responseBytes += o.responseBytes
	for k, v := range o.perAPI {
		b.perAPI[k] += v
	}
	for k, h := range o.latency {
		if b.latency[k] == nil {
			b.latency[k] = &stats.Histogram{}
		}
		b.latency[k].Merge(h)
	}
	for k, v := range o.produced {
		b.produced[k] += v
	}
	for k, v := range o.fetched {
		b.fetched[k] += v
	}
	for k, v := range o.errors {
		b.errors[k] += v
	}
}

// series is the exchanges over time, in buckets of one width from start
// (a multiple of the width).
type series struct {
	start   time.Time
	step    int // index in widths, or beyond: widths[len-1] doubled
	buckets []*bucket
	topics  map[string]bool // seen, for maxNames
	errors  map[string]bool
}

func (s *series) width() time.Duration {
	if s.step < len(widths) {
		return widths[s.step]
	}
	return widths[len(widths)-1] << (s.step - len(widths) + 1)
}

// at returns the bucket of time t, widening the buckets as needed.
func (s *series) at(t time.Time) *bucket {
	if s.buckets == nil {
		s.start = t.Truncate(s.width())
	}
	for {
		w := s.width()
		if t.Before(s.start) { // an exchange before the first: start earlier
			start := t.Truncate(w)
			shift := int(s.start.Sub(start) / w)
			s.buckets = append(make([]*bucket, shift), s.buckets...)
			s.start = start
		}
		i := int(t.Sub(s.start) / w)
		if i < maxBuckets && len(s.buckets) <= maxBuckets {
			for len(s.buckets) <= i {
				s.buckets = append(s.buckets, nil)
			}
			if s.buckets[i] == nil {
				s.buckets[i] = newBucket()
			}
			return s.buckets[i]
		}
		s.widen()
	}
}

// widen merges the buckets into buckets of the next width.
func (s *series) widen() {
	old, oldW := s.buckets, s.width()
	s.step++
	w := s.width()
	start := s.start.Truncate(w)
	var out []*bucket
	for j, b := range old {
		if b == nil {
			continue
		}
		i := int(s.start.Add(time.Duration(j)*oldW).Sub(start) / w)
		for len(out) <= i {
			out = append(out, nil)
		}
		if out[i] == nil {
			out[i] = b
			continue
		}
		out[i].merge(b)
	}
	s.buckets, s.start = out, start
}

// name bounds the names a series keeps apart: n, or stats.Other once
// seen holds maxNames others.
func name(seen map[string]bool, n string) string {
	if seen[n] {
		return n
	}
	if len(seen) >= maxNames {
		return stats.Other
	}
	seen[n] = true
	return n
}

// apiName names an exchange's API as stats does.
func apiName(ex *dissect.Exchange) string {
	switch {
	case ex.SASLToken:
		return "SASL token"
	case ex.APIKey < 0:
		return "unknown"
	}
	return codec.APIName(ex.APIKey)
}

// add counts ex in its bucket: the one of its request's time (its
// response's without a request); an exchange with neither (a TLS
// connection not decrypted) is in the totals only.
func (s *series) add(ex *dissect.Exchange) {
	var t time.Time
	switch {
	case ex.Request != nil:
		t = ex.Request.Time
	case ex.Response != nil:
		t = ex.Response.Time
	default:
		return
	}
	b := s.at(t)
	api := apiName(ex)
	b.requests++
	b.perAPI[api]++
	if ex.Request != nil {
		b.requestBytes += int64(ex.Request.Size)
	}
	if ex.Response != nil {
		b.responseBytes += int64(ex.Response.Size)
	}
	if lat, ok := ex.Latency(); ok {
		h := b.latency[api]
		if h == nil {
			h = &stats.Histogram{}
			b.latency[api] = h
		}
		h.Add(lat.Microseconds())
	}
	dec := ex.Decoded
	if dec == nil {
		return
	}
	for _, e := range dec.Errors {
		b.errors[name(s.errors, codec.ErrorName(e.Code))]++
	}
	if ex.SASLToken || ex.APIKey != codec.ApiKeyProduce && ex.APIKey != codec.ApiKeyFetch {
		return
	}
	for _, rr := range dec.RecordSets {
		if rr.Records.Set == nil {
			continue
		}
		topic := rr.Topic
		if topic == "" && !rr.TopicID.IsZero() {
			topic = "id:" + rr.TopicID.String()
		}
		topic = name(s.topics, topic)
		if ex.APIKey == codec.ApiKeyProduce {
			b.produced[topic] += int64(rr.Records.Set.Count())
		} else {
			b.fetched[topic] += int64(rr.Records.Set.Count())
		}
	}
}
