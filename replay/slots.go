package replay

// Which runner gives its slot (Options.Concurrency) to the connection
// of the oldest request held, and when that connection may have one
// beyond the concurrency. Both run with sched.mu held.

// evictable returns the runner to stop for next, a connection with no
// runner whose first request ready says the causal order lets go; nil
// when none can stop: one whose connection has nothing held (the one
// whose last request is oldest), else, when next is ready, one whose
// next request waits for the causal order and comes after next's in the
// capture (the last such). So each runner stopped for a waiting one
// lets a request go, and none is started again before next. A runner
// sending a request, or waiting for its time (Options.Speed), ends it
// first.
func (s *sched) evictable(next *streamQ, ready bool) *streamQ {
	var idle, waiting *streamQ
	for _, q := range s.streams {
		switch {
		case !q.running || q.evict:
		case len(q.items) == 0:
			if idle == nil || q.last < idle.last {
				idle = q
			}
		case q.waiting && ready && q.items[0].index > next.items[0].index:
			if waiting == nil || q.items[0].index > waiting.items[0].index {
				waiting = q
			}
		}
	}
	if idle != nil {
		return idle
	}
	return waiting
}

// rebalanceAPIs are the requests a broker answers only once the other
// members of the group have sent theirs (or a timeout passed): JoinGroup
// and SyncGroup.
var rebalanceAPIs = map[int16]bool{11: true, 14: true}

// overflows says whether next, a connection with no runner whose first
// request the causal order lets go, gets a runner beyond the
// concurrency: a runner is sending a rebalance request whose captured
// answer came after next's request was sent in the capture (the broker
// may wait for it, as another member joining, before it answers). The
// members of a rebalance so count as one slot.
func (s *sched) overflows(next *streamQ) bool {
	first := next.items[0]
	for _, q := range s.streams {
		if it := q.sending; q.running && it != nil && rebalanceAPIs[it.key] && it.dep.After(first.reqTime) {
			return true
		}
	}
	return false
}
