package client

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Two members of a group share a topic's partitions by range, rebalance
// when the second joins, commit with their generation (a stale one is
// refused), and a member that leaves gives its partitions back at once.
// What the coordinator says is read back with franz-go's admin requests.
func TestGroupMembers(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.NumBrokers(2), kfake.SeedTopics(5, "orders"), kfake.SeedTopics(2, "payments"))
	ctx := testCtx(t)
	cfg := GroupConfig{Group: "g1", Topics: []string{"orders", "payments"}, HeartbeatInterval: 50 * time.Millisecond, SessionTimeout: 10 * time.Second, RebalanceTimeout: 10 * time.Second}
	c1 := NewConsumer(newClient(t, c, nil), ConsumerConfig{})
	m1, err := c1.JoinGroup(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := m1.Assignment(); !slices.Equal(got["orders"], []int32{0, 1, 2, 3, 4}) || !slices.Equal(got["payments"], []int32{0, 1}) || !m1.Leader() {
		t.Fatalf("alone: assignment %v, leader %v", got, m1.Leader())
	}
	gen1 := m1.Generation()

	c2 := NewConsumer(newClient(t, c, nil), ConsumerConfig{})
	joined := make(chan *GroupMember, 1)
	go func() {
		m2, err := c2.JoinGroup(ctx, cfg)
		if err != nil {
			t.Error(err)
		}
		joined <- m2
	}()
	// The first member learns of the rebalance from its heartbeat.
	heartbeatUntilRejoin(t, ctx, m1)
	m2 := <-joined
	if m2 == nil {
		t.FailNow()
	}
	if m1.Generation() == gen1 || m2.Generation() != m1.Generation() {
		t.Errorf("generations %d then %d and %d", gen1, m1.Generation(), m2.Generation())
	}
	// Range: sorted by member id, the first takes 3 of orders' 5 and 1 of
	// payments' 2.
	first, second := m1, m2
	if m2.MemberID() < m1.MemberID() {
		first, second = m2, m1
	}
	if a, b := first.Assignment(), second.Assignment(); !slices.Equal(a["orders"], []int32{0, 1, 2}) || !slices.Equal(b["orders"], []int32{3, 4}) ||
		!slices.Equal(a["payments"], []int32{0}) || !slices.Equal(b["payments"], []int32{1}) {
		t.Errorf("assignments %v and %v", a, b)
	}

	// Commits: with the generation, accepted; franz-go reads them back.
	if err := first.Commit(ctx, "orders", 1, 42); err != nil {
		t.Fatal(err)
	}
	stale := &GroupMember{c: first.c, cfg: cfg, memberID: first.MemberID(), generation: gen1}
	if err := stale.Commit(ctx, "orders", 1, 7); !errors.Is(err, ErrIllegalGeneration) || !NeedsRejoin(err) {
		t.Errorf("commit with generation %d: %v", gen1, err)
	}
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer kc.Close()
	of := kmsg.NewPtrOffsetFetchRequest()
	of.Group = "g1"
	ft := kmsg.NewOffsetFetchRequestTopic()
	ft.Topic, ft.Partitions = "orders", []int32{1}
	of.Topics = append(of.Topics, ft)
	ofr, err := of.RequestWith(ctx, kc)
	if err != nil || len(ofr.Topics) != 1 || ofr.Topics[0].Partitions[0].Offset != 42 {
		t.Errorf("committed offset as franz-go reads it: %+v %v", ofr, err)
	}

	// The second leaves: the first, rejoining, gets everything again.
	if err := second.Leave(ctx); err != nil {
		t.Fatal(err)
	}
	heartbeatUntilRejoin(t, ctx, first)
	if got := first.Assignment(); len(got["orders"]) != 5 || len(got["payments"]) != 2 {
		t.Errorf("after the other left: %v", got)
	}
	dg := kmsg.NewPtrDescribeGroupsRequest()
	dg.Groups = []string{"g1"}
	dgr, err := dg.RequestWith(context.Background(), kc)
	if err != nil || len(dgr.Groups) != 1 || len(dgr.Groups[0].Members) != 1 || dgr.Groups[0].ProtocolType != "consumer" || dgr.Groups[0].Protocol != "range" {
		t.Errorf("the group as the coordinator describes it: %+v %v", dgr, err)
	}
	if err := first.Leave(ctx); err != nil {
		t.Fatal(err)
	}
}

// heartbeatUntilRejoin heartbeats until the group says to rejoin, then
// rejoins.
func heartbeatUntilRejoin(t *testing.T, ctx context.Context, m *GroupMember) {
	t.Helper()
	for {
		err := m.Heartbeat(ctx)
		if NeedsRejoin(err) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := m.Rejoin(ctx); err != nil {
		t.Fatal(err)
	}
}
