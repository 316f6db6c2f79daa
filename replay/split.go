package replay

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kdissect/kdissect/client"
	"github.com/kdissect/kdissect/codec"
)

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
	l := codec.PartitionsOfProduceRequestTopicData()
	for i := range p.TopicData {
		td := &p.TopicData[i]
		name, id := topicKey(l, td)
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
	order := l.partitions(req)
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
			p.req = l.subset(req, func(k tpKey) bool { return in[k] }, func(k tpKey) int32 { return leaders[k].epoch })
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
			for k, res := range l.results(p.resp) {
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
	return l.merge(answers, order, results), lat, err
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
