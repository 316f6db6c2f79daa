package replay

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kdissect/kdissect/client"
	"github.com/kdissect/kdissect/codec"
)

// keyAPI splits a request naming several groups or transactional ids by
// key and merges the answers to the parts.
type keyAPI interface {
	// keyType is the FindCoordinator key type of the keys:
	// client.CoordinatorGroup or CoordinatorTransaction.
	keyType() int8
	// keys returns the keys a request names, in order.
	keys(req codec.Message) []string
	// subset returns a copy of req naming only the keys keep accepts.
	subset(req codec.Message, keep func(string) bool) codec.Message
	// results returns the answer's structs by key (pointers), and their
	// error codes.
	results(resp codec.Message) map[string]keyResult
	// merge makes one answer of the answers to the parts of a split
	// request: each key's latest answer, in the request's order (keys),
	// the top-level fields of the first answer with the largest
	// ThrottleTimeMs.
	merge(answers []codec.Message, keys []string, results map[string]keyResult) codec.Message
}

// keyResult is the answer to one key: a pointer to its struct in the
// response, and its error code.
type keyResult struct {
	entry any
	code  int16
}

// keySplit is the keyAPI of requests Q listing keys in Es (strings or
// structs) answered by responses R listing structs X.
type keySplit[Q, E, R, X any] struct {
	typ      int8
	list     func(*Q) *[]E
	key      func(*E) string
	answers  func(*R) *[]X
	answerOf func(*X) (key string, code int16)
	throttle func(*R) *int32
}

func (s keySplit[Q, E, R, X]) keyType() int8 { return s.typ }

func (s keySplit[Q, E, R, X]) keys(req codec.Message) []string {
	list := *s.list(any(req).(*Q))
	out := make([]string, len(list))
	for i := range list {
		out[i] = s.key(&list[i])
	}
	return out
}

func (s keySplit[Q, E, R, X]) subset(req codec.Message, keep func(string) bool) codec.Message {
	src := any(req).(*Q)
	dst := new(Q)
	*dst = *src
	list := *s.list(src)
	kept := make([]E, 0, len(list))
	for i := range list {
		if keep(s.key(&list[i])) {
			kept = append(kept, list[i])
		}
	}
	*s.list(dst) = kept
	return any(dst).(codec.Message)
}

func (s keySplit[Q, E, R, X]) results(resp codec.Message) map[string]keyResult {
	out := map[string]keyResult{}
	list := *s.answers(any(resp).(*R))
	for i := range list {
		k, code := s.answerOf(&list[i])
		out[k] = keyResult{entry: &list[i], code: code}
	}
	return out
}

func (s keySplit[Q, E, R, X]) merge(answers []codec.Message, keys []string, results map[string]keyResult) codec.Message {
	dst := new(R)
	*dst = *any(answers[0]).(*R)
	for _, a := range answers[1:] {
		t := s.throttle(dst)
		*t = max(*t, *s.throttle(any(a).(*R)))
	}
	out := make([]X, 0, len(keys))
	seen := map[string]bool{}
	for _, k := range keys {
		if e, ok := results[k]; ok && !seen[k] {
			seen[k] = true
			out = append(out, *e.entry.(*X))
		}
	}
	*s.answers(dst) = out
	return any(dst).(codec.Message)
}

// stringKey is the key of a list of strings.
func stringKey(s *string) string { return *s }

// keyRouted are the APIs whose one request may name several groups or
// transactional ids, each served by its coordinator: a request naming
// keys of several coordinators of the target is split by coordinator and
// the answers merged.
var keyRouted = map[int16]keyAPI{
	codec.ApiKeyOffsetFetch: keySplit[codec.OffsetFetchRequest, codec.OffsetFetchRequestGroup, codec.OffsetFetchResponse, codec.OffsetFetchResponseGroup]{ // v8+
		client.CoordinatorGroup,
		func(q *codec.OffsetFetchRequest) *[]codec.OffsetFetchRequestGroup { return &q.Groups },
		func(g *codec.OffsetFetchRequestGroup) string { return g.GroupId },
		func(r *codec.OffsetFetchResponse) *[]codec.OffsetFetchResponseGroup { return &r.Groups },
		func(g *codec.OffsetFetchResponseGroup) (string, int16) { return g.GroupId, g.ErrorCode },
		func(r *codec.OffsetFetchResponse) *int32 { return &r.ThrottleTimeMs },
	},
	codec.ApiKeyDescribeGroups: keySplit[codec.DescribeGroupsRequest, string, codec.DescribeGroupsResponse, codec.DescribeGroupsResponseDescribedGroup]{
		client.CoordinatorGroup,
		func(q *codec.DescribeGroupsRequest) *[]string { return &q.Groups },
		stringKey,
		func(r *codec.DescribeGroupsResponse) *[]codec.DescribeGroupsResponseDescribedGroup { return &r.Groups },
		func(g *codec.DescribeGroupsResponseDescribedGroup) (string, int16) { return g.GroupId, g.ErrorCode },
		func(r *codec.DescribeGroupsResponse) *int32 { return &r.ThrottleTimeMs },
	},
	codec.ApiKeyDeleteGroups: keySplit[codec.DeleteGroupsRequest, string, codec.DeleteGroupsResponse, codec.DeleteGroupsResponseDeletableGroupResult]{
		client.CoordinatorGroup,
		func(q *codec.DeleteGroupsRequest) *[]string { return &q.GroupsNames },
		stringKey,
		func(r *codec.DeleteGroupsResponse) *[]codec.DeleteGroupsResponseDeletableGroupResult {
			return &r.Results
		},
		func(g *codec.DeleteGroupsResponseDeletableGroupResult) (string, int16) { return g.GroupId, g.ErrorCode },
		func(r *codec.DeleteGroupsResponse) *int32 { return &r.ThrottleTimeMs },
	},
	codec.ApiKeyDescribeTransactions: keySplit[codec.DescribeTransactionsRequest, string, codec.DescribeTransactionsResponse, codec.DescribeTransactionsResponseTransactionState]{
		client.CoordinatorTransaction,
		func(q *codec.DescribeTransactionsRequest) *[]string { return &q.TransactionalIds },
		stringKey,
		func(r *codec.DescribeTransactionsResponse) *[]codec.DescribeTransactionsResponseTransactionState {
			return &r.TransactionStates
		},
		func(t *codec.DescribeTransactionsResponseTransactionState) (string, int16) {
			return t.TransactionalId, t.ErrorCode
		},
		func(r *codec.DescribeTransactionsResponse) *int32 { return &r.ThrottleTimeMs },
	},
	codec.ApiKeyConsumerGroupDescribe: keySplit[codec.ConsumerGroupDescribeRequest, string, codec.ConsumerGroupDescribeResponse, codec.ConsumerGroupDescribeResponseDescribedGroup]{
		client.CoordinatorGroup,
		func(q *codec.ConsumerGroupDescribeRequest) *[]string { return &q.GroupIds },
		stringKey,
		func(r *codec.ConsumerGroupDescribeResponse) *[]codec.ConsumerGroupDescribeResponseDescribedGroup {
			return &r.Groups
		},
		func(g *codec.ConsumerGroupDescribeResponseDescribedGroup) (string, int16) {
			return g.GroupId, g.ErrorCode
		},
		func(r *codec.ConsumerGroupDescribeResponse) *int32 { return &r.ThrottleTimeMs },
	},
	codec.ApiKeyShareGroupDescribe: keySplit[codec.ShareGroupDescribeRequest, string, codec.ShareGroupDescribeResponse, codec.ShareGroupDescribeResponseDescribedGroup]{
		client.CoordinatorGroup,
		func(q *codec.ShareGroupDescribeRequest) *[]string { return &q.GroupIds },
		stringKey,
		func(r *codec.ShareGroupDescribeResponse) *[]codec.ShareGroupDescribeResponseDescribedGroup {
			return &r.Groups
		},
		func(g *codec.ShareGroupDescribeResponseDescribedGroup) (string, int16) { return g.GroupId, g.ErrorCode },
		func(r *codec.ShareGroupDescribeResponse) *int32 { return &r.ThrottleTimeMs },
	},
	codec.ApiKeyStreamsGroupDescribe: keySplit[codec.StreamsGroupDescribeRequest, string, codec.StreamsGroupDescribeResponse, codec.StreamsGroupDescribeResponseDescribedGroup]{
		client.CoordinatorGroup,
		func(q *codec.StreamsGroupDescribeRequest) *[]string { return &q.GroupIds },
		stringKey,
		func(r *codec.StreamsGroupDescribeResponse) *[]codec.StreamsGroupDescribeResponseDescribedGroup {
			return &r.Groups
		},
		func(g *codec.StreamsGroupDescribeResponseDescribedGroup) (string, int16) {
			return g.GroupId, g.ErrorCode
		},
		func(r *codec.StreamsGroupDescribeResponse) *int32 { return &r.ThrottleTimeMs },
	},
}

// coordinatorsOf returns the target's coordinator of each key: from the
// replayed FindCoordinator answers, else asked of the target in one
// batch (all of them with refresh). Keys the target cannot place go to
// -1 (the bootstrap broker).
func (r *Replayer) coordinatorsOf(ctx context.Context, typ int8, keys []string, refresh bool) map[string]int32 {
	out := make(map[string]int32, len(keys))
	var ask []string
	for _, k := range keys {
		if n, ok := r.st.coordinator(coordinatorKey{typ, k}); ok && !refresh {
			out[k] = n
		} else if !slices.Contains(ask, k) {
			ask = append(ask, k)
		}
	}
	if len(ask) == 0 {
		return out
	}
	found, _ := r.meta.FindCoordinators(ctx, typ, ask) // keys not found go to the bootstrap broker
	for _, k := range ask {
		n := int32(-1)
		if b, ok := found[k]; ok {
			n = b.NodeID
			r.st.setCoordinator(coordinatorKey{typ, k}, n)
		}
		out[k] = n
	}
	return out
}

// sendToCoordinators sends a request naming several groups or
// transactional ids (rewritten, at version v) to the target's
// coordinators of them: one part per coordinator, sent at once, each on
// this captured connection's connection to that broker, at the version
// that broker offers (sendParts). Keys answered NOT_COORDINATOR are sent
// again where a fresh lookup says, up to maxLeaderAttempts sends: a
// coordinator that refuses a key does nothing with it. It returns the
// merged answer, the time from the first send to the last answer, and
// the failures of parts that got no answer.
func (r *Replayer) sendToCoordinators(ctx context.Context, cs *conns, it *item, req codec.Message, v int16, l keyAPI) (codec.Message, time.Duration, error) {
	keys := l.keys(req)
	results := map[string]keyResult{}
	var answers []codec.Message
	var failures []string
	pending := keys
	t0 := time.Now()
	for attempt := 0; len(pending) > 0 && attempt < maxLeaderAttempts; attempt++ {
		if attempt > 0 {
			if err := sleepCtx(ctx, leaderRetryBackoff); err != nil {
				failures = append(failures, err.Error())
				break
			}
		}
		nodes := r.coordinatorsOf(ctx, l.keyType(), pending, attempt > 0)
		var parts []*leaderPart
		byAddr := map[string]*leaderPart{}
		in := map[*leaderPart]map[string]bool{}
		for _, k := range pending {
			addr := r.nodeAddr(nodes[k])
			p, ok := byAddr[addr]
			if !ok {
				p = &leaderPart{addr: addr}
				byAddr[addr] = p
				parts = append(parts, p)
				in[p] = map[string]bool{}
			}
			in[p][k] = true
		}
		for _, p := range parts {
			set := in[p]
			p.req = l.subset(req, func(k string) bool { return set[k] })
		}
		if len(parts) > 1 && attempt == 0 {
			it.rewriteNts = append(it.rewriteNts, fmt.Sprintf("split by coordinator into %d requests", len(parts)))
		}
		r.sendParts(ctx, cs, it, parts, v)
		var next []string
		for _, p := range parts {
			if p.err != nil {
				failures = append(failures, fmt.Sprintf("%s to %s: %v", strings.Join(slices.Sorted(maps.Keys(in[p])), ", "), p.addr, p.err))
				continue
			}
			answers = append(answers, p.resp)
			for k, e := range l.results(p.resp) {
				results[k] = e
				if e.code == 16 && attempt+1 < maxLeaderAttempts { // NOT_COORDINATOR
					next = append(next, k)
				}
			}
		}
		if len(next) > 0 {
			it.rewriteNts = append(it.rewriteNts, fmt.Sprintf("%s: sent again to the coordinator after NOT_COORDINATOR", strings.Join(next, ", ")))
		}
		pending = next
	}
	lat := time.Since(t0)
	var err error
	if len(failures) > 0 {
		err = fmt.Errorf("%s", strings.Join(failures, "; "))
	}
	if len(answers) == 0 {
		return nil, lat, err
	}
	return l.merge(answers, keys, results), lat, err
}
