package replay

import (
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kdissect/kdissect/client"
)

// TestReplayVersionsPerBroker replays kcat's produce and consume capture
// (Fetch v11 naming three partitions) to a three-broker target whose
// node 1 offers Fetch only up to v8, as in a rolling upgrade (and
// closes the connection on a higher one, as a broker does): the part
// of each Fetch going to node 1 is sent at v8 (node 0, the bootstrap
// broker, takes v11), the report lists that downgrade for node 1's
// address, every Fetch is answered without UNSUPPORTED_VERSION, and the
// records arrive the same.
func TestReplayVersionsPerBroker(t *testing.T) {
	const path = "../testdata/pcaps/kcat_produce_none.pcap"
	want := producedRecords(t, path)
	target := newTarget(t, kfake.NumBrokers(3), kfake.SeedTopics(3, "produce-none"))
	if err := target.MoveTopicPartition("produce-none", 1, 1); err != nil { // node 1 leads a partition
		t.Fatal(err)
	}
	ctx := testCtx(t)
	// Node 0's ApiVersions answer, to give node 1 the same but Fetch.
	cn, err := client.Dial(ctx, target.ListenAddrs()[0], &client.Config{})
	if err != nil {
		t.Fatal(err)
	}
	offered := cn.APIVersions()
	cn.Close()
	target.ControlKey(18, func(req kmsg.Request) (kmsg.Response, error, bool) {
		target.KeepControl()
		if target.CurrentNode() != 1 {
			return nil, nil, false
		}
		resp := req.ResponseKind().(*kmsg.ApiVersionsResponse)
		for _, av := range offered {
			if av.BrokerMax < 0 {
				continue
			}
			k := kmsg.NewApiVersionsResponseApiKey()
			k.ApiKey, k.MinVersion, k.MaxVersion = av.Key, av.BrokerMin, av.BrokerMax
			if av.Key == 1 {
				k.MaxVersion = 8
			}
			resp.ApiKeys = append(resp.ApiKeys, k)
		}
		return resp, nil, true
	})
	// Node 1 refuses a Fetch above v8 as a broker that does not know
	// the version does: it closes the connection.
	target.ControlKey(1, func(req kmsg.Request) (kmsg.Response, error, bool) {
		target.KeepControl()
		if target.CurrentNode() == 1 && req.GetVersion() > 8 {
			return nil, fmt.Errorf("Fetch v%d: node 1 offers v0-v8", req.GetVersion()), true
		}
		return nil, nil, false
	})
	r := loadCapture(t, path, Options{Broker: target.ListenAddrs()[0]})
	rep, err := r.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Complete() {
		t.Fatalf("report not complete: %+v failures %v", rep.Total, rep.Failures)
	}
	node1 := target.ListenAddrs()[1]
	found := false
	for _, d := range rep.Downgrades {
		if d.API == "Fetch" {
			if d.Broker != node1 || d.From != 11 || d.To != 8 {
				t.Errorf("downgrade %+v: want Fetch v11→v8 to %s only", d, node1)
			}
			found = true
		}
	}
	if !found {
		t.Errorf("no Fetch downgrade for %s: %+v", node1, rep.Downgrades)
	}
	for _, s := range rep.APIs {
		if s.API == "Fetch" && (s.Answered != s.Sent || s.ReplayedErrors["UNSUPPORTED_VERSION"] > 0) {
			t.Errorf("Fetch: sent %d, answered %d, errors %v", s.Sent, s.Answered, s.ReplayedErrors)
		}
	}
	sameRecords(t, consumeAll(t, target.ListenAddrs()[0], map[string]int32{"produce-none": 3}), want)
}
