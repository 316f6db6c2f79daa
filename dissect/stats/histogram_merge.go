package stats

// Merge adds o's samples to h, as if each had been added to h: the
// report's time series merge the histograms of narrow buckets into wider
// ones. Percentiles stay within RelativeError (exact while both are exact
// and together hold at most exactSamples).
func (h *Histogram) Merge(o *Histogram) {
	if o == nil || o.count == 0 {
		return
	}
	if o.buckets == nil {
		for _, v := range o.exact {
			h.Add(v)
		}
		return
	}
	if h.buckets == nil {
		h.buckets = make(map[uint16]uint64, len(o.buckets))
		for _, x := range h.exact {
			h.buckets[bucketOf(x)]++
		}
		h.exact = nil
	}
	for k, n := range o.buckets {
		h.buckets[k] += n
	}
	if h.count == 0 || o.min < h.min {
		h.min = o.min
	}
	h.max = max(h.max, o.max)
	h.count += o.count
	h.sum += o.sum
}
