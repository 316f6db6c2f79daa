package client

import (
	"errors"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kversion"
)

// TestLookups asks a three-broker kfake cluster for a topic's leaders
// (cached, then refreshed after a leader moves), the brokers, the
// controller and a group's and a transaction's coordinators, and checks
// them against what the cluster says of itself.
func TestLookups(t *testing.T) {
	c := newCluster(t, kfake.NumBrokers(3), kfake.SeedTopics(3, "orders"))
	cl := newClient(t, c, nil)
	ctx := testCtx(t)

	tm, err := cl.Topic(ctx, "orders", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(tm.Partitions) != 3 || tm.ID.IsZero() {
		t.Fatalf("orders: %+v", tm)
	}
	for _, p := range tm.Partitions {
		if want := c.LeaderFor("orders", p.Partition); p.Leader != want {
			t.Errorf("orders[%d]: leader %d, the cluster says %d", p.Partition, p.Leader, want)
		}
		if _, ok := cl.Broker(p.Leader); !ok {
			t.Errorf("orders[%d]: leader %d is not among the brokers", p.Partition, p.Leader)
		}
	}
	moved := (tm.Partitions[0].Leader + 1) % 3
	if err := c.MoveTopicPartition("orders", 0, moved); err != nil {
		t.Fatal(err)
	}
	if cached, _ := cl.Topic(ctx, "orders", false); cached.Partitions[0].Leader == moved {
		t.Errorf("the cached answer already knows the move")
	}
	fresh, err := cl.Topic(ctx, "orders", true)
	if err != nil {
		t.Fatal(err)
	}
	if p := fresh.Partitions[0]; p.Leader != moved || p.LeaderEpoch <= tm.Partitions[0].LeaderEpoch {
		t.Errorf("after the move: leader %d epoch %d, want leader %d and an epoch above %d", p.Leader, p.LeaderEpoch, moved, tm.Partitions[0].LeaderEpoch)
	}
	if _, err := cl.Topic(ctx, "nope", false); !errors.Is(err, ErrUnknownTopicOrPartition) {
		t.Errorf("unknown topic: %v", err)
	}
	if _, ok := cl.Broker(99); ok {
		t.Errorf("broker 99 exists")
	}

	ctl, err := cl.Controller(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cl.Broker(ctl); !ok {
		t.Errorf("controller %d is not among the brokers", ctl)
	}

	for _, k := range []struct {
		typ int8
		key string
	}{{CoordinatorGroup, "g1"}, {CoordinatorTransaction, "txn-1"}} {
		b, err := cl.FindCoordinator(ctx, k.typ, k.key)
		if err != nil {
			t.Fatalf("%s: %v", k.key, err)
		}
		if want := c.CoordinatorFor(k.key); b.NodeID != want {
			t.Errorf("%s: coordinator %d, the cluster says %d", k.key, b.NodeID, want)
		}
		if kb, _ := cl.Broker(b.NodeID); kb.Addr() != b.Addr() {
			t.Errorf("%s: coordinator at %s, metadata says %s", k.key, b.Addr(), kb.Addr())
		}
	}
}

// TestFindCoordinators asks three-broker kfake clusters for the
// coordinators of twelve groups and of twelve transactional ids: in one
// batch each (FindCoordinator v4+), and from a cluster limited to Kafka
// 2.8 (FindCoordinator v3: one request per key). Each is the broker the
// cluster says, and the keys fall on more than one broker.
func TestFindCoordinators(t *testing.T) {
	for name, opts := range map[string][]kfake.Opt{
		"batch":      {kfake.NumBrokers(3)},
		"one-by-one": {kfake.NumBrokers(3), kfake.MaxVersions(kversion.V2_8_0())},
	} {
		t.Run(name, func(t *testing.T) {
			c := newCluster(t, opts...)
			cl := newClient(t, c, nil)
			ctx := testCtx(t)
			for _, typ := range []int8{CoordinatorGroup, CoordinatorTransaction} {
				var keys []string
				for i := range 12 {
					keys = append(keys, fmt.Sprintf("key-%d-%d", typ, i))
				}
				got, err := cl.FindCoordinators(ctx, typ, keys)
				if err != nil {
					t.Fatal(err)
				}
				nodes := map[int32]bool{}
				for _, k := range keys {
					b, ok := got[k]
					if !ok {
						t.Errorf("%s: no coordinator", k)
						continue
					}
					if want := c.CoordinatorFor(k); b.NodeID != want {
						t.Errorf("%s: coordinator %d, the cluster says %d", k, b.NodeID, want)
					}
					nodes[b.NodeID] = true
				}
				if len(nodes) < 2 {
					t.Errorf("type %d: every key on nodes %v", typ, nodes)
				}
			}
		})
	}
}
