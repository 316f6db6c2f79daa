package replay

import (
	"slices"

	"github.com/kdissect/kdissect/codec"
)

// leaderAPI splits the requests of a leader-routed API by partition and
// merges the answers to the parts, through the codec's generated
// layouts of the request's and the response's topics
// (codec.PartitionLayout).
type leaderAPI interface {
	// partitions lists the partitions a request names, in order.
	partitions(req codec.Message) []tpKey
	// subset returns a copy of req holding only the partitions keep
	// accepts, topics without any left dropped; a kept partition whose
	// CurrentLeaderEpoch names an epoch gets epoch's for it, when that
	// is not negative. req is not modified.
	subset(req codec.Message, keep func(tpKey) bool, epoch func(tpKey) int32) codec.Message
	// results returns the partitions a response answers, by partition.
	results(resp codec.Message) map[tpKey]partResult
	// merge makes one response of the answers to the parts of a split
	// request: every partition's latest answer (results), grouped by
	// topic in the request's order (order); the top-level fields of the
	// first answer, with the largest ThrottleTimeMs, the first non-zero
	// top-level ErrorCode and every broker of the NodeEndpoints lists.
	merge(answers []codec.Message, order []tpKey, results map[tpKey]partResult) codec.Message
}

// partResult is one partition's answer: pointers to the partition struct
// and the topic struct it came in, of the response type.
type partResult struct {
	topic, part any
	code        int16
}

// leaderSplit is the leaderAPI of requests Q (topics QT, partitions QP)
// answered by responses R (topics RT, partitions RP).
type leaderSplit[Q, QT, QP, R, RT, RP any] struct {
	req  codec.PartitionLayout[Q, QT, QP]
	resp codec.PartitionLayout[R, RT, RP]
	// epoch is a request partition's CurrentLeaderEpoch; nil when it
	// has none.
	epoch func(*QP) *int32
	// top merges the top-level fields of another answer into dst.
	top func(dst, other *R)
}

// newLeaderSplit returns the leaderAPI of a request and response layout.
func newLeaderSplit[Q, QT, QP, R, RT, RP any](req codec.PartitionLayout[Q, QT, QP], resp codec.PartitionLayout[R, RT, RP],
	epoch func(*QP) *int32, top func(dst, other *R)) leaderAPI {
	return leaderSplit[Q, QT, QP, R, RT, RP]{req: req, resp: resp, epoch: epoch, top: top}
}

// topicKey returns the topic a topic struct names: by name when it has
// one, else by ID.
func topicKey[M, T, P any](l codec.PartitionLayout[M, T, P], t *T) (name string, id codec.UUID) {
	if l.Name != nil {
		if n := *l.Name(t); n != "" {
			return n, codec.UUID{}
		}
	}
	if l.ID != nil {
		id = *l.ID(t)
	}
	return "", id
}

func (s leaderSplit[Q, QT, QP, R, RT, RP]) partitions(req codec.Message) []tpKey {
	var out []tpKey
	topics := *s.req.Topics(any(req).(*Q))
	for i := range topics {
		name, id := topicKey(s.req, &topics[i])
		ps := *s.req.Partitions(&topics[i])
		for j := range ps {
			out = append(out, tpKey{name, id, *s.req.Index(&ps[j])})
		}
	}
	return out
}

func (s leaderSplit[Q, QT, QP, R, RT, RP]) subset(req codec.Message, keep func(tpKey) bool, epoch func(tpKey) int32) codec.Message {
	src := any(req).(*Q)
	dst := new(Q)
	*dst = *src
	topics := *s.req.Topics(src)
	out := make([]QT, 0, len(topics))
	for i := range topics {
		name, id := topicKey(s.req, &topics[i])
		ps := *s.req.Partitions(&topics[i])
		kept := make([]QP, 0, len(ps))
		for j := range ps {
			k := tpKey{name, id, *s.req.Index(&ps[j])}
			if !keep(k) {
				continue
			}
			kept = append(kept, ps[j])
			if s.epoch == nil {
				continue
			}
			if e := s.epoch(&kept[len(kept)-1]); *e >= 0 && epoch(k) >= 0 {
				*e = epoch(k)
			}
		}
		if len(kept) == 0 {
			continue
		}
		nt := topics[i]
		*s.req.Partitions(&nt) = kept
		out = append(out, nt)
	}
	*s.req.Topics(dst) = out
	return any(dst).(codec.Message)
}

func (s leaderSplit[Q, QT, QP, R, RT, RP]) results(resp codec.Message) map[tpKey]partResult {
	out := map[tpKey]partResult{}
	topics := *s.resp.Topics(any(resp).(*R))
	for i := range topics {
		t := &topics[i]
		name, id := topicKey(s.resp, t)
		ps := *s.resp.Partitions(t)
		for j := range ps {
			p := &ps[j]
			var code int16
			if s.resp.ErrorCode != nil {
				code = *s.resp.ErrorCode(p)
			}
			out[tpKey{name, id, *s.resp.Index(p)}] = partResult{topic: t, part: p, code: code}
		}
	}
	return out
}

func (s leaderSplit[Q, QT, QP, R, RT, RP]) merge(answers []codec.Message, order []tpKey, results map[tpKey]partResult) codec.Message {
	dst := new(R)
	*dst = *any(answers[0]).(*R)
	for _, a := range answers[1:] {
		if s.top != nil {
			s.top(dst, any(a).(*R))
		}
	}
	topics := s.resp.Topics(dst)
	out := make([]RT, 0, len(*topics))
	at := map[[2]any]int{} // topic (name, id) → index in out
	for _, k := range order {
		res, ok := results[k]
		if !ok {
			continue
		}
		tk := [2]any{k.name, k.id}
		i, seen := at[tk]
		if !seen {
			nt := *res.topic.(*RT)
			*s.resp.Partitions(&nt) = make([]RP, 0, 4)
			out = append(out, nt)
			i = len(out) - 1
			at[tk] = i
		}
		ps := s.resp.Partitions(&out[i])
		*ps = append(*ps, *res.part.(*RP))
	}
	*topics = out
	return any(dst).(codec.Message)
}

// mergeNodes returns the brokers of dst with those of other it lacks
// (by node id) appended, in a new slice: dst may share the first
// answer's.
func mergeNodes[E any](dst, other []E, id func(*E) int32) []E {
	out := slices.Clip(dst)
	for i := range other {
		dup := false
		for j := range out {
			dup = dup || id(&out[j]) == id(&other[i])
		}
		if !dup {
			out = append(out, other[i])
		}
	}
	return out
}

// leaderRouted are the APIs whose partitions are each served by their
// leader: a request naming partitions led by several brokers of the
// target is split by leader and the answers merged.
var leaderRouted = map[int16]leaderAPI{
	codec.ApiKeyProduce: newLeaderSplit(codec.PartitionsOfProduceRequestTopicData(), codec.PartitionsOfProduceResponseResponses(), nil,
		func(d, o *codec.ProduceResponse) {
			d.ThrottleTimeMs = max(d.ThrottleTimeMs, o.ThrottleTimeMs)
			d.NodeEndpoints = mergeNodes(d.NodeEndpoints, o.NodeEndpoints, func(e *codec.ProduceResponseNodeEndpoint) int32 { return e.NodeId })
		}),
	codec.ApiKeyFetch: newLeaderSplit(codec.PartitionsOfFetchRequestTopics(), codec.PartitionsOfFetchResponseResponses(),
		func(p *codec.FetchRequestFetchPartition) *int32 { return &p.CurrentLeaderEpoch },
		func(d, o *codec.FetchResponse) {
			d.ThrottleTimeMs = max(d.ThrottleTimeMs, o.ThrottleTimeMs)
			if d.ErrorCode == 0 {
				d.ErrorCode = o.ErrorCode
			}
			d.NodeEndpoints = mergeNodes(d.NodeEndpoints, o.NodeEndpoints, func(e *codec.FetchResponseNodeEndpoint) int32 { return e.NodeId })
		}),
	codec.ApiKeyListOffsets: newLeaderSplit(codec.PartitionsOfListOffsetsRequestTopics(), codec.PartitionsOfListOffsetsResponseTopics(),
		func(p *codec.ListOffsetsRequestListOffsetsPartition) *int32 { return &p.CurrentLeaderEpoch },
		func(d, o *codec.ListOffsetsResponse) { d.ThrottleTimeMs = max(d.ThrottleTimeMs, o.ThrottleTimeMs) }),
	codec.ApiKeyDeleteRecords: newLeaderSplit(codec.PartitionsOfDeleteRecordsRequestTopics(), codec.PartitionsOfDeleteRecordsResponseTopics(), nil,
		func(d, o *codec.DeleteRecordsResponse) { d.ThrottleTimeMs = max(d.ThrottleTimeMs, o.ThrottleTimeMs) }),
	codec.ApiKeyOffsetForLeaderEpoch: newLeaderSplit(codec.PartitionsOfOffsetForLeaderEpochRequestTopics(), codec.PartitionsOfOffsetForLeaderEpochResponseTopics(),
		func(p *codec.OffsetForLeaderEpochRequestOffsetForLeaderPartition) *int32 {
			return &p.CurrentLeaderEpoch
		},
		func(d, o *codec.OffsetForLeaderEpochResponse) {
			d.ThrottleTimeMs = max(d.ThrottleTimeMs, o.ThrottleTimeMs)
		}),
	codec.ApiKeyDescribeProducers: newLeaderSplit(codec.PartitionsOfDescribeProducersRequestTopics(), codec.PartitionsOfDescribeProducersResponseTopics(), nil,
		func(d, o *codec.DescribeProducersResponse) {
			d.ThrottleTimeMs = max(d.ThrottleTimeMs, o.ThrottleTimeMs)
		}),
}
