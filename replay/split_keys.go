package replay

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/kdissect/kdissect/client"
	"github.com/kdissect/kdissect/codec"
)

// keyLayout says where a request naming several groups or transactional
// ids keeps them, and where its answer answers each, by Kafka field name.
type keyLayout struct {
	keyType int8   // FindCoordinator key type: client.CoordinatorGroup or CoordinatorTransaction
	req     string // the request's list: of strings, or of structs
	reqKey  string // the key field of the request's structs; "" for strings
	resp    string // the response's list of structs, one per key
	respKey string // the key field of the response's structs
}

// keyRouted are the APIs whose one request may name several groups or
// transactional ids, each served by its coordinator: a request naming
// keys of several coordinators of the target is split by coordinator and
// the answers merged. TestKeyLayoutsMatchCodec holds the field names to
// the codec.
var keyRouted = map[int16]keyLayout{
	9:  {client.CoordinatorGroup, "Groups", "GroupId", "Groups", "GroupId"},                             // OffsetFetch v8+
	15: {client.CoordinatorGroup, "Groups", "", "Groups", "GroupId"},                                    // DescribeGroups
	42: {client.CoordinatorGroup, "GroupsNames", "", "Results", "GroupId"},                              // DeleteGroups
	65: {client.CoordinatorTransaction, "TransactionalIds", "", "TransactionStates", "TransactionalId"}, // DescribeTransactions
	69: {client.CoordinatorGroup, "GroupIds", "", "Groups", "GroupId"},                                  // ConsumerGroupDescribe
	77: {client.CoordinatorGroup, "GroupIds", "", "Groups", "GroupId"},                                  // ShareGroupDescribe
	89: {client.CoordinatorGroup, "GroupIds", "", "Groups", "GroupId"},                                  // StreamsGroupDescribe
}

// keysOf returns the keys a request names, in order.
func keysOf(m codec.Message, l keyLayout) []string {
	list := reflect.ValueOf(m).Elem().FieldByName(l.req)
	out := make([]string, list.Len())
	for i := range list.Len() {
		e := list.Index(i)
		if l.reqKey != "" {
			e = e.FieldByName(l.reqKey)
		}
		out[i] = e.String()
	}
	return out
}

// keySubset returns a copy of m naming only the keys keep accepts.
func keySubset(m codec.Message, l keyLayout, keep func(string) bool) codec.Message {
	src := reflect.ValueOf(m).Elem()
	dst := reflect.New(src.Type())
	dst.Elem().Set(src)
	list := src.FieldByName(l.req)
	kept := reflect.MakeSlice(list.Type(), 0, list.Len())
	for i := range list.Len() {
		e := list.Index(i)
		k := e
		if l.reqKey != "" {
			k = e.FieldByName(l.reqKey)
		}
		if keep(k.String()) {
			kept = reflect.Append(kept, e)
		}
	}
	dst.Elem().FieldByName(l.req).Set(kept)
	return dst.Interface().(codec.Message)
}

// keyResults returns the answer's structs by key, and their error codes.
func keyResults(resp codec.Message, l keyLayout) map[string]reflect.Value {
	out := map[string]reflect.Value{}
	list := reflect.ValueOf(resp).Elem().FieldByName(l.resp)
	for i := range list.Len() {
		e := list.Index(i)
		out[e.FieldByName(l.respKey).String()] = e
	}
	return out
}

// mergeKeyed makes one answer of the answers to the parts of a split
// request: each key's latest answer, in the request's order (keys), the
// top-level fields of the first answer with the largest ThrottleTimeMs.
func mergeKeyed(answers []codec.Message, l keyLayout, keys []string, results map[string]reflect.Value) codec.Message {
	first := reflect.ValueOf(answers[0]).Elem()
	dst := reflect.New(first.Type())
	d := dst.Elem()
	d.Set(first)
	for _, a := range answers[1:] {
		if f := d.FieldByName("ThrottleTimeMs"); f.IsValid() {
			f.SetInt(max(f.Int(), reflect.ValueOf(a).Elem().FieldByName("ThrottleTimeMs").Int()))
		}
	}
	list := d.FieldByName(l.resp)
	out := reflect.MakeSlice(list.Type(), 0, len(keys))
	seen := map[string]bool{}
	for _, k := range keys {
		if e, ok := results[k]; ok && !seen[k] {
			seen[k] = true
			out = reflect.Append(out, e)
		}
	}
	list.Set(out)
	return dst.Interface().(codec.Message)
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
func (r *Replayer) sendToCoordinators(ctx context.Context, cs *conns, it *item, req codec.Message, v int16, l keyLayout) (codec.Message, time.Duration, error) {
	keys := keysOf(req, l)
	results := map[string]reflect.Value{}
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
		nodes := r.coordinatorsOf(ctx, l.keyType, pending, attempt > 0)
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
			p.req = keySubset(req, l, func(k string) bool { return set[k] })
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
			for k, e := range keyResults(p.resp, l) {
				results[k] = e
				if f := e.FieldByName("ErrorCode"); f.IsValid() && f.Int() == 16 && attempt+1 < maxLeaderAttempts { // NOT_COORDINATOR
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
	return mergeKeyed(answers, l, keys, results), lat, err
}
