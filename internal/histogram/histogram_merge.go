package histogram

// Merge adds o's samples to h, as if each had been added to h: exact while
// both together are at most the exact store's size, else bucketed with the
// same precision (RelativeError) as Add gives. o is not changed.
func (h *Histogram) Merge(o *Histogram) {
	if o == nil || o.count == 0 {
		return
	}
	if h.count == 0 || o.min < h.min {
		h.min = o.min
	}
	h.max = max(h.max, o.max)
	h.count += o.count
	h.sum += o.sum
	if h.buckets == nil && o.buckets == nil && len(h.exact)+len(o.exact) <= exactSamples {
		h.exact = append(h.exact, o.exact...)
		return
	}
	if h.buckets == nil {
		h.buckets = make(map[uint16]uint64)
		for _, x := range h.exact {
			h.buckets[bucketOf(x)]++
		}
		h.exact = nil
	}
	for _, x := range o.exact {
		h.buckets[bucketOf(x)]++
	}
	for k, n := range o.buckets {
		h.buckets[k] += n
	}
}
