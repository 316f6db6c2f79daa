package replay

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kdissect/kdissect/client"
	"github.com/kdissect/kdissect/codec"
)

// leaderLayout says where a leader-routed message keeps its topics and
// their partitions, by Kafka field name.
type leaderLayout struct {
	topics     string // the message's list of topics
	partitions string // the topic's list of partitions: structs, or int32 indexes
	index      string // the partition struct's int32 index; "" for a list of indexes
}

// leaderAPI is the layout of a leader-routed API's request and response.
type leaderAPI struct{ req, resp leaderLayout }

// leaderRouted are the APIs whose partitions are each served by their
// leader: a request naming partitions led by several brokers of the
// target is split by leader and the answers merged.
// TestLeaderLayoutsMatchCodec holds the field names to the codec.
var leaderRouted = map[int16]leaderAPI{
	0:  {leaderLayout{"TopicData", "PartitionData", "Index"}, leaderLayout{"Responses", "PartitionResponses", "Index"}},  // Produce
	1:  {leaderLayout{"Topics", "Partitions", "Partition"}, leaderLayout{"Responses", "Partitions", "PartitionIndex"}},   // Fetch
	2:  {leaderLayout{"Topics", "Partitions", "PartitionIndex"}, leaderLayout{"Topics", "Partitions", "PartitionIndex"}}, // ListOffsets
	21: {leaderLayout{"Topics", "Partitions", "PartitionIndex"}, leaderLayout{"Topics", "Partitions", "PartitionIndex"}}, // DeleteRecords
	23: {leaderLayout{"Topics", "Partitions", "Partition"}, leaderLayout{"Topics", "Partitions", "Partition"}},           // OffsetForLeaderEpoch
	61: {leaderLayout{"Topics", "PartitionIndexes", ""}, leaderLayout{"Topics", "Partitions", "PartitionIndex"}},         // DescribeProducers
}

// maxLeaderAttempts bounds the sends of one partition of a leader-routed
// request: the first, then retries after a metadata refresh.
const maxLeaderAttempts = 4

// leaderRetryBackoff is the pause before a retry, for a leader election
// to settle.
const leaderRetryBackoff = 100 * time.Millisecond

// tpKey names one partition of a message: its topic by name, or by ID
// when the version sent carries no name.
type tpKey struct {
	name      string
	id        codec.UUID
	partition int32
}

func (k tpKey) String() string {
	if k.name != "" {
		return fmt.Sprintf("%s[%d]", k.name, k.partition)
	}
	return fmt.Sprintf("%s[%d]", k.id, k.partition)
}

// topicOf returns the topic a topic struct names: by name when it has
// one, else by ID.
func topicOf(t reflect.Value) (name string, id codec.UUID) {
	for _, f := range [...]string{"Name", "Topic"} {
		if v := t.FieldByName(f); v.IsValid() && v.Kind() == reflect.String && v.String() != "" {
			return v.String(), codec.UUID{}
		}
	}
	if v := t.FieldByName("TopicId"); v.IsValid() && v.Type() == uuidType {
		id = v.Interface().(codec.UUID)
	}
	return "", id
}

// partitionIndex returns the index of a partition struct (or int32).
func partitionIndex(p reflect.Value, l leaderLayout) int32 {
	if l.index == "" {
		return int32(p.Int())
	}
	return int32(p.FieldByName(l.index).Int())
}

// partitionsOf lists the partitions a message names, in order.
func partitionsOf(m codec.Message, l leaderLayout) []tpKey {
	var out []tpKey
	topics := reflect.ValueOf(m).Elem().FieldByName(l.topics)
	for i := range topics.Len() {
		t := topics.Index(i)
		name, id := topicOf(t)
		ps := t.FieldByName(l.partitions)
		for j := range ps.Len() {
			out = append(out, tpKey{name, id, partitionIndex(ps.Index(j), l)})
		}
	}
	return out
}

// subset returns a copy of the message m holding only the partitions
// keep accepts, topics without any left dropped; edit, when not nil, may
// change each partition struct kept (a copy). m is not modified.
func subset(m codec.Message, l leaderLayout, keep func(tpKey) bool, edit func(tpKey, reflect.Value)) codec.Message {
	src := reflect.ValueOf(m).Elem()
	dst := reflect.New(src.Type())
	dst.Elem().Set(src)
	topics := src.FieldByName(l.topics)
	out := reflect.MakeSlice(topics.Type(), 0, topics.Len())
	for i := range topics.Len() {
		t := topics.Index(i)
		name, id := topicOf(t)
		ps := t.FieldByName(l.partitions)
		kept := reflect.MakeSlice(ps.Type(), 0, ps.Len())
		for j := range ps.Len() {
			k := tpKey{name, id, partitionIndex(ps.Index(j), l)}
			if !keep(k) {
				continue
			}
			kept = reflect.Append(kept, ps.Index(j))
			if edit != nil && l.index != "" {
				edit(k, kept.Index(kept.Len()-1))
			}
		}
		if kept.Len() == 0 {
			continue
		}
		nt := reflect.New(t.Type()).Elem()
		nt.Set(t)
		nt.FieldByName(l.partitions).Set(kept)
		out = reflect.Append(out, nt)
	}
	dst.Elem().FieldByName(l.topics).Set(out)
	return dst.Interface().(codec.Message)
}

// partResult is one partition's answer: the partition struct and the
// topic struct it came in.
type partResult struct {
	topic, part reflect.Value
	code        int16
}

// resultsOf returns the partitions a response answers, by partition.
func resultsOf(resp codec.Message, l leaderLayout) map[tpKey]partResult {
	out := map[tpKey]partResult{}
	topics := reflect.ValueOf(resp).Elem().FieldByName(l.topics)
	for i := range topics.Len() {
		t := topics.Index(i)
		name, id := topicOf(t)
		ps := t.FieldByName(l.partitions)
		for j := range ps.Len() {
			p := ps.Index(j)
			out[tpKey{name, id, partitionIndex(p, l)}] = partResult{topic: t, part: p, code: int16(p.FieldByName("ErrorCode").Int())}
		}
	}
	return out
}

// mergeResponses makes one response of the answers to the parts of a
// split request: every partition's latest answer (results), grouped by
// topic in the request's order (order); the top-level fields of the
// first answer, with the largest ThrottleTimeMs, the first non-zero
// top-level ErrorCode and every broker of the NodeEndpoints lists.
func mergeResponses(answers []codec.Message, l leaderLayout, order []tpKey, results map[tpKey]partResult) codec.Message {
	first := reflect.ValueOf(answers[0]).Elem()
	dst := reflect.New(first.Type())
	d := dst.Elem()
	d.Set(first)
	for _, a := range answers[1:] {
		v := reflect.ValueOf(a).Elem()
		if f := d.FieldByName("ThrottleTimeMs"); f.IsValid() {
			f.SetInt(max(f.Int(), v.FieldByName("ThrottleTimeMs").Int()))
		}
		if f := d.FieldByName("ErrorCode"); f.IsValid() && f.Int() == 0 {
			f.SetInt(v.FieldByName("ErrorCode").Int())
		}
		if f := d.FieldByName("NodeEndpoints"); f.IsValid() {
			o := v.FieldByName("NodeEndpoints")
			for i := range o.Len() {
				e := o.Index(i)
				dup := false
				for j := range f.Len() {
					dup = dup || f.Index(j).FieldByName("NodeId").Int() == e.FieldByName("NodeId").Int()
				}
				if !dup {
					f.Set(reflect.Append(f, e))
				}
			}
		}
	}
	topics := d.FieldByName(l.topics)
	out := reflect.MakeSlice(topics.Type(), 0, topics.Len())
	at := map[[2]any]int{} // topic (name, id) → index in out
	for _, k := range order {
		res, ok := results[k]
		if !ok {
			continue
		}
		tk := [2]any{k.name, k.id}
		i, seen := at[tk]
		if !seen {
			nt := reflect.New(res.topic.Type()).Elem()
			nt.Set(res.topic)
			ps := nt.FieldByName(l.partitions)
			ps.Set(reflect.MakeSlice(ps.Type(), 0, 4))
			out = reflect.Append(out, nt)
			i = out.Len() - 1
			at[tk] = i
		}
		ps := out.Index(i).FieldByName(l.partitions)
		ps.Set(reflect.Append(ps, res.part))
	}
	topics.Set(out)
	return dst.Interface().(codec.Message)
}

// leadershipError reports the partition error codes that say the request
// went to a broker that does not lead the partition (any more):
// LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH,
// UNKNOWN_LEADER_EPOCH.
func leadershipError(code int16) bool {
	switch code {
	case 5, 6, 74, 75:
		return true
	}
	return false
}

// idempotentRecords reports whether raw (one partition's records) is
// only record batches v2 with a producer id: batches the target
// deduplicates by sequence, so that sending them again cannot append
// them twice.
func idempotentRecords(raw []byte) bool {
	n := 0
	for ; len(raw) > 0; n++ {
		entry, rest, ok := codec.NextRawBatch(raw)
		if !ok {
			return false
		}
		if p, ok := codec.ReadBatchProducer(entry); !ok || p.ProducerId < 0 {
			return false
		}
		raw = rest
	}
	return n > 0
}

// retrySafe returns, for a leader-routed request, which partitions may
// be sent again without changing what the target holds: every partition
// of a read (Fetch, ListOffsets, OffsetForLeaderEpoch,
// DescribeProducers) and of DeleteRecords (deleting below an offset
// twice deletes nothing more); of a Produce, the partitions whose
// batches are all idempotent.
func retrySafe(req codec.Message) func(tpKey) bool {
	p, ok := req.(*codec.ProduceRequest)
	if !ok {
		return func(tpKey) bool { return true }
	}
	safe := map[tpKey]bool{}
	for _, td := range p.TopicData {
		name, id := topicOf(reflect.ValueOf(td))
		for _, pd := range td.PartitionData {
			safe[tpKey{name, id, pd.Index}] = idempotentRecords(pd.Records.Raw)
		}
	}
	return func(k tpKey) bool { return safe[k] }
}

// leader is a partition's leader on the target.
type leader struct {
	node, epoch int32 // -1: unknown
}

// leaderOf returns the target's leader of the partition, from the
// metadata cache (refreshed first when refresh is set).
func (r *Replayer) leaderOf(ctx context.Context, k tpKey, refresh bool) leader {
	name := k.name
	if name == "" {
		name = r.st.targetName(k.id)
	}
	if name == "" {
		return leader{-1, -1}
	}
	t, err := r.meta.Topic(ctx, name, refresh)
	if err != nil {
		return leader{-1, -1}
	}
	i, ok := slices.BinarySearchFunc(t.Partitions, k.partition, func(p client.PartitionMetadata, want int32) int { return int(p.Partition) - int(want) })
	if !ok {
		return leader{-1, -1}
	}
	return leader{t.Partitions[i].Leader, t.Partitions[i].LeaderEpoch}
}

// nodeAddr returns the address of a target node: the bootstrap address
// when the target has one broker or the node is unknown.
func (r *Replayer) nodeAddr(node int32) string {
	if !r.routing || node < 0 {
		return r.home
	}
	if b, ok := r.meta.Broker(node); ok {
		return b.Addr()
	}
	return r.home
}

// leaderPart is the part of a split request going to one broker.
type leaderPart struct {
	addr string
	req  codec.Message
	tps  []tpKey
	resp codec.Message
	err  error
}

// sendToLeaders sends a leader-routed request (rewritten, at version v)
// to the target's leaders of its partitions: one part per leader, sent
// concurrently, each on this captured connection's connection to that
// broker. A part of a Fetch naming the partitions of several leaders
// leaves the captured fetch session (a session lives on one broker) and
// is a full fetch. CurrentLeaderEpoch fields that name an epoch get the
// target's. Partitions answered with a leadership error, and parts whose
// connection failed, are sent again to the leader a refreshed metadata
// names, when that is safe (retrySafe), up to maxLeaderAttempts sends.
// It returns the merged answer (nil for an Acks=0 Produce), the time
// from the first send to the last answer, retries included, and the
// failures of parts that got no answer in the end. A request naming no
// partition goes whole to the bootstrap broker.
func (r *Replayer) sendToLeaders(ctx context.Context, cs *conns, it *item, req codec.Message, v int16, l leaderAPI) (codec.Message, time.Duration, error) {
	order := partitionsOf(req, l.req)
	if len(order) == 0 { // a Fetch of a session with nothing new to ask, ...
		cn, err := cs.get(ctx, r.home)
		if err != nil {
			return nil, 0, fmt.Errorf("connect to %s: %w", r.home, err)
		}
		t0 := time.Now()
		resp, err := cn.RoundTrip(ctx, req, v)
		return resp, time.Since(t0), err
	}
	safe := retrySafe(req)
	results := map[tpKey]partResult{}
	var answers []codec.Message
	var failures []string
	pending := order
	t0 := time.Now()
	for attempt := 0; len(pending) > 0 && attempt < maxLeaderAttempts; attempt++ {
		refreshed := map[[2]any]bool{}
		leaders := map[tpKey]leader{}
		for _, k := range pending {
			tk := [2]any{k.name, k.id}
			refresh := attempt > 0 && !refreshed[tk]
			refreshed[tk] = true
			leaders[k] = r.leaderOf(ctx, k, refresh)
		}
		if attempt > 0 {
			if err := sleepCtx(ctx, leaderRetryBackoff); err != nil {
				failures = append(failures, err.Error())
				break
			}
		}
		var parts []*leaderPart
		byAddr := map[string]*leaderPart{}
		for _, k := range pending {
			addr := r.nodeAddr(leaders[k].node)
			p, ok := byAddr[addr]
			if !ok {
				p = &leaderPart{addr: addr}
				byAddr[addr] = p
				parts = append(parts, p)
			}
			p.tps = append(p.tps, k)
		}
		split := len(parts) > 1 || len(pending) < len(order)
		for _, p := range parts {
			in := map[tpKey]bool{}
			for _, k := range p.tps {
				in[k] = true
			}
			p.req = subset(req, l.req, func(k tpKey) bool { return in[k] }, func(k tpKey, pv reflect.Value) {
				if f := pv.FieldByName("CurrentLeaderEpoch"); f.IsValid() && f.Int() >= 0 && leaders[k].epoch >= 0 {
					f.SetInt(int64(leaders[k].epoch))
				}
			})
			if f, ok := p.req.(*codec.FetchRequest); ok && split {
				f.SessionId, f.SessionEpoch, f.ForgottenTopicsData = 0, -1, nil
			}
		}
		if len(parts) > 1 && attempt == 0 {
			it.rewriteNts = append(it.rewriteNts, fmt.Sprintf("split by leader into %d requests", len(parts)))
		}
		r.sendParts(ctx, cs, it, parts, v)
		var next []tpKey
		for _, p := range parts {
			if p.err != nil {
				var again []tpKey
				for _, k := range p.tps {
					if safe(k) && ctx.Err() == nil && attempt+1 < maxLeaderAttempts {
						again = append(again, k)
					}
				}
				next = append(next, again...)
				if len(again) < len(p.tps) {
					failures = append(failures, fmt.Sprintf("%s to %s: %v", r.tpList(p.tps), p.addr, p.err))
				}
				continue
			}
			if p.resp == nil { // Acks 0
				continue
			}
			answers = append(answers, p.resp)
			for k, res := range resultsOf(p.resp, l.resp) {
				results[k] = res
				if leadershipError(res.code) && attempt+1 < maxLeaderAttempts {
					if safe(k) {
						next = append(next, k)
					} else {
						r.leaderOf(ctx, k, true) // for the requests that follow
						it.rewriteNts = append(it.rewriteNts, fmt.Sprintf("%s: %s, not sent again: its batches are not idempotent", r.tpList([]tpKey{k}), codec.ErrorName(res.code)))
						r.note(fmt.Sprintf("%s: a partition answered %s was not sent again: its batches are not idempotent, and sending them twice could append them twice", codec.APIName(it.key), codec.ErrorName(res.code)))
					}
				}
			}
		}
		if len(next) > 0 {
			it.rewriteNts = append(it.rewriteNts, fmt.Sprintf("%s: sent again to the leader after a metadata refresh", r.tpList(next)))
			r.note(fmt.Sprintf("%s: partitions whose leader moved were sent again to the new leader after a metadata refresh", codec.APIName(it.key)))
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
	return mergeResponses(answers, l.resp, order, results), lat, err
}

// sendParts sends the parts at once and waits for their answers. Each
// part goes at the version its broker offers (partVersion): v, chosen
// for the whole on another connection, unless that broker offers
// another.
func (r *Replayer) sendParts(ctx context.Context, cs *conns, it *item, parts []*leaderPart, v int16) {
	cns := make([]*client.Conn, len(parts))
	vs := make([]int16, len(parts))
	for i, p := range parts {
		cns[i], p.err = cs.get(ctx, p.addr)
		if p.err != nil {
			p.err = fmt.Errorf("connect: %w", p.err)
			continue
		}
		vs[i], p.err = r.partVersion(it, cns[i], p, v)
	}
	if len(parts) == 1 {
		if parts[0].err == nil {
			parts[0].resp, parts[0].err = cns[0].RoundTrip(ctx, parts[0].req, vs[0])
		}
		return
	}
	var wg sync.WaitGroup
	for i, p := range parts {
		if p.err != nil {
			continue
		}
		wg.Go(func() { p.resp, p.err = cns[i].RoundTrip(ctx, p.req, vs[i]) })
	}
	wg.Wait()
}

// tpList formats partitions for a note: "orders[0], orders[2]", topics
// sent by ID named by the target's name for the ID when known.
func (r *Replayer) tpList(tps []tpKey) string {
	s := make([]string, len(tps))
	for i, k := range tps {
		if k.name == "" {
			if n := r.st.targetName(k.id); n != "" {
				k.name = n
			}
		}
		s[i] = k.String()
	}
	return strings.Join(s, ", ")
}

// sleepCtx pauses d, or until ctx ends (its error then).
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
