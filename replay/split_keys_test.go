package replay

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// requestExchange makes a decoded exchange of one request (no response
// captured), as the dissector would hand it over: stream, time offset
// in ms.
func requestExchange(t testing.TB, stream int, ms int, key, version int16, req codec.Message) *dissect.Exchange {
	t.Helper()
	id := "kdissect-test"
	h := codec.RequestHeader{RequestApiKey: key, RequestApiVersion: version, CorrelationId: int32(ms), ClientId: &id}
	b := h.AppendTo(nil, codec.RequestHeaderVersion(key, version))
	b = req.AppendTo(b, version)
	ex := &dissect.Exchange{Stream: stream, APIKey: key, APIVersion: version, CorrelationID: int32(ms), ClientID: &id,
		Request: &dissect.Frame{Bytes: b, Size: int32(len(b)), Time: time.Unix(1700000000, 0).Add(time.Duration(ms) * time.Millisecond)}}
	dissect.NewDecoder(dissect.DecodeOptions{}).DecodeFrames(ex)
	if ex.Decoded == nil || ex.Decoded.Request == nil {
		t.Fatalf("%s v%d does not decode: %v", codec.APIName(key), version, ex.Notes)
	}
	return ex
}

// TestReplaySplitByCoordinator replays requests naming twelve groups or
// transactional ids each (DescribeGroups, DeleteGroups, OffsetFetch v8,
// ConsumerGroupDescribe, DescribeTransactions) to a three-broker target,
// where they have different coordinators: each request is split by
// coordinator, every part goes to the key's coordinator (none answers
// NOT_COORDINATOR), each coordinator gets only its keys, and the merged
// answer counts once with every key's error.
func TestReplaySplitByCoordinator(t *testing.T) {
	target := newTarget(t, kfake.NumBrokers(3))
	var groups, txns []string
	for i := range 12 {
		groups = append(groups, fmt.Sprintf("split-group-%d", i))
		txns = append(txns, fmt.Sprintf("split-txn-%d", i))
	}
	nodes := map[int32]bool{}
	for _, g := range groups {
		nodes[target.CoordinatorFor(g)] = true
	}
	if len(nodes) < 2 {
		t.Fatalf("the groups all have coordinator %v: the test needs several", nodes)
	}
	// Which keys each broker was asked about, per ApiKey.
	var mu sync.Mutex
	asked := map[int16]map[string]int32{}
	target.Control(func(req kmsg.Request) (kmsg.Response, error, bool) {
		target.KeepControl()
		var keys []string
		switch q := req.(type) {
		case *kmsg.DescribeGroupsRequest:
			keys = q.Groups
		case *kmsg.DeleteGroupsRequest:
			keys = q.Groups
		case *kmsg.ConsumerGroupDescribeRequest:
			keys = q.Groups
		case *kmsg.DescribeTransactionsRequest:
			keys = q.TransactionalIDs
		case *kmsg.OffsetFetchRequest:
			for _, g := range q.Groups {
				keys = append(keys, g.Group)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if asked[req.Key()] == nil {
			asked[req.Key()] = map[string]int32{}
		}
		for _, k := range keys {
			asked[req.Key()][k] = target.CurrentNode()
		}
		return nil, nil, false
	})
	ofGroups := make([]codec.OffsetFetchRequestGroup, len(groups))
	for i, g := range groups {
		ofGroups[i] = codec.OffsetFetchRequestGroup{GroupId: g}
		ofGroups[i].SetDefaults()
		ofGroups[i].GroupId = g
	}
	exs := []*dissect.Exchange{
		requestExchange(t, 0, 0, 15, 5, &codec.DescribeGroupsRequest{Groups: groups}),
		requestExchange(t, 0, 1, 9, 8, &codec.OffsetFetchRequest{Groups: ofGroups}),
		requestExchange(t, 0, 2, 69, 0, &codec.ConsumerGroupDescribeRequest{GroupIds: groups}),
		requestExchange(t, 0, 3, 65, 0, &codec.DescribeTransactionsRequest{TransactionalIds: txns}),
		requestExchange(t, 0, 4, 42, 2, &codec.DeleteGroupsRequest{GroupsNames: groups}),
	}
	r, err := New(Options{Broker: target.ListenAddrs()[0], Speed: 0})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := r.Run(testCtx(t), func(add func(*dissect.Exchange) error) error {
		for _, ex := range exs {
			if err := add(ex); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Complete() || rep.Total.Answered != len(exs) {
		t.Fatalf("report: %+v failures %v", rep.Total, rep.Failures)
	}
	for _, s := range rep.APIs {
		if n := s.ReplayedErrors["NOT_COORDINATOR"]; n > 0 {
			t.Errorf("%s: replayed NOT_COORDINATOR×%d", s.API, n)
		}
	}
	for _, e := range rep.Plan {
		if !strings.Contains(strings.Join(e.Rewrites, ";"), "split by coordinator into") {
			t.Errorf("%s: not split: %q", e.API, e.Rewrites)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, key := range []int16{15, 9, 69, 65, 42} {
		keys := groups
		if key == 65 {
			keys = txns
		}
		for _, k := range keys {
			node, ok := asked[key][k]
			if !ok {
				t.Errorf("%s: %s never sent", codec.APIName(key), k)
			} else if want := target.CoordinatorFor(k); node != want {
				t.Errorf("%s: %s sent to node %d, its coordinator is %d", codec.APIName(key), k, node, want)
			}
		}
	}
}
