package replay

import (
	"fmt"
	"net/netip"
	"slices"
	"sync"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// fetchSessions turns the captured Fetch requests of KIP-227 fetch
// sessions (Fetch v7+) into full fetches without a session (SessionId 0,
// SessionEpoch -1), so that no FETCH_SESSION_ID_NOT_FOUND or
// INVALID_FETCH_SESSION_EPOCH can come of the target not knowing the
// captured session ids, and a Fetch split by leader needs no session on
// each broker:
//
//   - a full fetch (SessionId 0) is sent as it is, SessionEpoch -1;
//     when it opened a session (SessionEpoch 0), the session's
//     partitions are the ones it names, under the SessionId of its
//     captured answer;
//   - an incremental fetch (SessionId and SessionEpoch > 0) names only
//     the partitions added or changed since the session's previous
//     request, and ForgottenTopicsData the ones removed: the session's
//     partitions are updated with them, and the request sent names them
//     all, each with its latest fetch position (what the captured broker
//     answered for them);
//   - SessionEpoch -1 with a SessionId closes the session: it is
//     forgotten.
//
// Sessions are keyed by the captured broker's address and the session
// id: a session lives on one broker, and survives its client's
// reconnections. An incremental fetch whose session opened before the
// capture began names only what it names; its item says so. Requests are
// rewritten as Add takes them, in capture order, which is the order the
// captured sessions evolved in.
type fetchSessions struct {
	mu   sync.Mutex
	m    map[sessionKey]*fetchSession
	conv int   // incremental fetches sent as full ones
	tick int64 // requests seen, for finding the session unused longest
}

// maxFetchSessions bounds the sessions remembered, as a broker bounds
// its session cache (Kafka's max.incremental.fetch.session.cache.slots
// is 1000): past it, the session unused longest is forgotten, and a
// later incremental fetch of it names only what it names (noted).
const maxFetchSessions = 10000

type sessionKey struct {
	broker netip.AddrPort
	id     int32
}

// fetchSession is one captured session's partitions, in the order
// they were added: per topic (name before v13, ID from v13) the topic
// struct (its Partitions unused) and its partitions.
type fetchSession struct {
	topics []sessionTopic
	used   int64 // fetchSessions.tick when last used
}

type sessionTopic struct {
	topic      codec.FetchRequestFetchTopic
	partitions []codec.FetchRequestFetchPartition
}

func newFetchSessions() *fetchSessions {
	return &fetchSessions{m: map[sessionKey]*fetchSession{}}
}

// converted returns how many incremental fetches were sent as full ones.
func (f *fetchSessions) converted() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.conv
}

// capture rewrites the request of a Fetch item (decoded from its own
// copy) to a full fetch without a session, learning the sessions from
// the request and from the captured answer in ex.
func (f *fetchSessions) capture(it *item, ex *dissect.Exchange) {
	q, ok := it.req.(*codec.FetchRequest)
	if !ok || it.version < 7 || q.SessionEpoch < 0 && q.SessionId == 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tick++
	key := sessionKey{ex.Broker, q.SessionId}
	switch {
	case q.SessionEpoch == -1: // closes the session; a full fetch of what it names
		delete(f.m, key)
	case q.SessionId == 0 || q.SessionEpoch == 0: // full fetch, opening a session
		delete(f.m, key)
		if id := capturedSessionID(ex); id != 0 {
			s := &fetchSession{used: f.tick}
			s.update(q)
			f.m[sessionKey{ex.Broker, id}] = s
			f.bound()
		}
	default: // incremental
		s, known := f.m[key]
		if !known {
			s = &fetchSession{used: f.tick}
			f.m[key] = s
			f.bound()
			it.rewriteNts = append(it.rewriteNts, fmt.Sprintf("incremental fetch of session %d whose start was not captured: sent as a full fetch of the partitions it names", q.SessionId))
		}
		s.used = f.tick
		s.update(q)
		q.Topics = s.request()
		f.conv++
		if known {
			it.rewriteNts = append(it.rewriteNts, fmt.Sprintf("incremental fetch (session %d, epoch %d) sent as a full fetch of the session's %d partitions", q.SessionId, q.SessionEpoch, s.count()))
		}
	}
	q.SessionId, q.SessionEpoch, q.ForgottenTopicsData = 0, -1, nil
}

// bound forgets the session unused longest while there are more than
// maxFetchSessions; f.mu is held.
func (f *fetchSessions) bound() {
	for len(f.m) > maxFetchSessions {
		var oldest sessionKey
		first := true
		for k, s := range f.m {
			if first || s.used < f.m[oldest].used {
				oldest, first = k, false
			}
		}
		delete(f.m, oldest)
	}
}

// capturedSessionID returns the SessionId of the captured Fetch answer,
// 0 when there is none.
func capturedSessionID(ex *dissect.Exchange) int32 {
	if ex.Decoded == nil {
		return 0
	}
	if r, ok := ex.Decoded.Response.(*codec.FetchResponse); ok && r.ErrorCode == 0 {
		return r.SessionId
	}
	return 0
}

func sameTopic(a, b *codec.FetchRequestFetchTopic) bool {
	return a.Topic == b.Topic && a.TopicId == b.TopicId
}

// update applies a request of the session: the partitions it names are
// added or replaced, its forgotten ones removed.
func (s *fetchSession) update(q *codec.FetchRequest) {
	for _, ft := range q.ForgottenTopicsData {
		for i := range s.topics {
			t := &s.topics[i]
			if t.topic.Topic != ft.Topic || t.topic.TopicId != ft.TopicId {
				continue
			}
			t.partitions = slices.DeleteFunc(t.partitions, func(p codec.FetchRequestFetchPartition) bool {
				return slices.Contains(ft.Partitions, p.Partition)
			})
		}
	}
	s.topics = slices.DeleteFunc(s.topics, func(t sessionTopic) bool { return len(t.partitions) == 0 })
	for _, rt := range q.Topics {
		i := slices.IndexFunc(s.topics, func(t sessionTopic) bool { return sameTopic(&t.topic, &rt) })
		if i < 0 {
			t := rt
			t.Partitions = nil
			s.topics = append(s.topics, sessionTopic{topic: t})
			i = len(s.topics) - 1
		}
		t := &s.topics[i]
		for _, p := range rt.Partitions {
			if j := slices.IndexFunc(t.partitions, func(x codec.FetchRequestFetchPartition) bool { return x.Partition == p.Partition }); j >= 0 {
				t.partitions[j] = p
			} else {
				t.partitions = append(t.partitions, p)
			}
		}
	}
}

// request returns the session's partitions as a Fetch request's Topics
// (fresh slices: rewriting them leaves the session as captured).
func (s *fetchSession) request() []codec.FetchRequestFetchTopic {
	out := make([]codec.FetchRequestFetchTopic, len(s.topics))
	for i, t := range s.topics {
		out[i] = t.topic
		out[i].Partitions = slices.Clone(t.partitions)
	}
	return out
}

func (s *fetchSession) count() int {
	n := 0
	for _, t := range s.topics {
		n += len(t.partitions)
	}
	return n
}
