package replay

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kdissect/kdissect/client"
)

// spreadTarget starts a three-broker kfake cluster holding the topics
// (3 partitions each), partition p led by node p, so that a request
// naming several partitions of a topic names several leaders.
func spreadTarget(t *testing.T, topics []string) *kfake.Cluster {
	t.Helper()
	c := newTarget(t, kfake.NumBrokers(3), kfake.SeedTopics(3, topics...))
	for _, topic := range topics {
		for p := range int32(3) {
			if err := c.MoveTopicPartition(topic, p, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	return c
}

// produceLog records which broker received each Produce request, and
// each topic-partition it named.
type produceLog struct {
	mu      sync.Mutex
	brokers map[int32]int
}

func watchProduce(c *kfake.Cluster) *produceLog {
	l := &produceLog{brokers: map[int32]int{}}
	c.ControlKey(0, func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		l.mu.Lock()
		l.brokers[c.CurrentNode()]++
		l.mu.Unlock()
		return nil, nil, false
	})
	return l
}

func topicsOf(want map[topicPartition][]rec) map[string]int32 {
	out := map[string]int32{}
	for tp := range want {
		out[tp.topic] = 3
	}
	return out
}

// TestReplayAcrossLeaders replays kcat's and franz-go's producers and
// consumers, whose every Produce and Fetch names the three partitions of
// a topic, to a three-broker target where each partition has its own
// leader: the requests are split by leader (each broker gets Produce
// requests), each counted once in the report, answered without error,
// and the records land once each, in order, in every partition.
func TestReplayAcrossLeaders(t *testing.T) {
	for _, name := range []string{"kcat_produce_zstd", "kcat_produce_gzip", "franz_idempotent"} {
		t.Run(name, func(t *testing.T) {
			path := "../testdata/pcaps/" + name + ".pcap"
			want := producedRecords(t, path)
			topics := topicsOf(want)
			target := spreadTarget(t, slices.Sorted(func(yield func(string) bool) {
				for tp := range topics {
					if !yield(tp) {
						return
					}
				}
			}))
			log := watchProduce(target)
			r := loadCapture(t, path, Options{Broker: target.ListenAddrs()[0]})
			rep, err := r.Run(testCtx(t))
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Complete() {
				t.Errorf("report not complete: %+v failures %v", rep.Total, rep.Failures)
			}
			sameRecords(t, consumeAll(t, target.ListenAddrs()[0], topics), want)
			for _, s := range rep.APIs {
				switch s.API {
				case "Produce", "Fetch", "ListOffsets", "OffsetForLeaderEpoch":
					if len(s.ReplayedErrors) > 0 {
						t.Errorf("%s: replayed errors %v", s.API, s.ReplayedErrors)
					}
					if s.Sent != s.Captured || s.Answered != s.Sent {
						t.Errorf("%s: captured %d, sent %d, answered %d", s.API, s.Captured, s.Sent, s.Answered)
					}
				}
			}
			log.mu.Lock()
			defer log.mu.Unlock()
			if len(log.brokers) != 3 {
				t.Errorf("Produce requests by broker: %v, want all three", log.brokers)
			}
			split := 0
			for _, e := range rep.Plan {
				for _, n := range e.Rewrites {
					if strings.HasPrefix(n, "split by leader") {
						split++
					}
				}
			}
			if split == 0 {
				t.Errorf("no request was split by leader")
			}
		})
	}
}

// moveOnce moves, once, a partition of the n-th Produce request the
// cluster receives away from the broker that received it, after it
// arrived and before the broker handles it: the broker answers
// NOT_LEADER_OR_FOLLOWER for it. It returns the partition moved.
func moveOnce(t *testing.T, c *kfake.Cluster, n int, names map[[16]byte]string) func() string {
	var mu sync.Mutex
	seen, moved := 0, ""
	c.ControlKey(0, func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		mu.Lock()
		seen++
		do := seen == n
		mu.Unlock()
		if !do {
			return nil, nil, false
		}
		node := c.CurrentNode()
		pr := req.(*kmsg.ProduceRequest)
		for _, tp := range pr.Topics {
			topic := tp.Topic
			if topic == "" {
				topic = names[tp.TopicID]
			}
			for _, p := range tp.Partitions {
				if c.LeaderFor(topic, p.Partition) != node {
					continue
				}
				c.SleepControl(func() {
					if err := c.MoveTopicPartition(topic, p.Partition, (node+1)%3); err != nil {
						t.Error(err)
					}
				})
				mu.Lock()
				moved = fmt.Sprintf("%s[%d]", topic, p.Partition)
				mu.Unlock()
				return nil, nil, false
			}
		}
		return nil, nil, false
	})
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		return moved
	}
}

// topicIDs returns the cluster's topic IDs by ID.
func topicIDs(t *testing.T, c *kfake.Cluster, topics map[string]int32) map[[16]byte]string {
	t.Helper()
	cl, err := client.New(testCtx(t), client.Config{Brokers: c.ListenAddrs()[:1]})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	out := map[[16]byte]string{}
	for name := range topics {
		tm, err := cl.Topic(testCtx(t), name, false)
		if err != nil {
			t.Fatal(err)
		}
		out[tm.ID] = name
	}
	return out
}

// TestReplayLeaderMoves moves the leader of a partition while the
// idempotent franz-go producer's capture is replayed, between a Produce
// request reaching its broker and the broker handling it: the broker
// answers NOT_LEADER_OR_FOLLOWER, replay refreshes the metadata and sends
// that partition's batches (idempotent) to the new leader, and every
// record lands once, in order.
func TestReplayLeaderMoves(t *testing.T) {
	const path = "../testdata/pcaps/franz_idempotent.pcap"
	want := producedRecords(t, path)
	topics := topicsOf(want)
	target := spreadTarget(t, slices.Collect(func(yield func(string) bool) {
		for tp := range topics {
			if !yield(tp) {
				return
			}
		}
	}))
	moved := moveOnce(t, target, 2, topicIDs(t, target, topics))
	r := loadCapture(t, path, Options{Broker: target.ListenAddrs()[0]})
	rep, err := r.Run(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if moved() == "" {
		t.Fatal("no partition was moved")
	}
	if !rep.Complete() {
		t.Errorf("report not complete: %+v failures %v", rep.Total, rep.Failures)
	}
	sameRecords(t, consumeAll(t, target.ListenAddrs()[0], topics), want)
	for _, s := range rep.APIs {
		if s.API == "Produce" && len(s.ReplayedErrors) > 0 {
			t.Errorf("Produce: replayed errors %v", s.ReplayedErrors)
		}
	}
	again := false
	for _, e := range rep.Plan {
		for _, n := range e.Rewrites {
			again = again || e.API == "Produce" && strings.Contains(n, moved()) && strings.Contains(n, "sent again")
		}
	}
	if !again {
		t.Errorf("no Produce says %s was sent again; notes %v", moved(), rep.Notes)
	}
}

// TestReplayLeaderMovesNotIdempotent: the same move under kcat's producer,
// whose batches are not idempotent: the partition is not sent again
// (it could be appended twice), the report shows NOT_LEADER_OR_FOLLOWER
// and says why, and the other partitions' records all land.
func TestReplayLeaderMovesNotIdempotent(t *testing.T) {
	const path = "../testdata/pcaps/kcat_produce_lz4.pcap"
	want := producedRecords(t, path)
	topics := topicsOf(want)
	target := spreadTarget(t, []string{"produce-lz4"})
	moved := moveOnce(t, target, 1, nil)
	r := loadCapture(t, path, Options{Broker: target.ListenAddrs()[0], APIs: []int16{0, 3, 18}})
	rep, err := r.Run(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if moved() == "" {
		t.Fatal("no partition was moved")
	}
	var produce APIStat
	for _, s := range rep.APIs {
		if s.API == "Produce" {
			produce = s
		}
	}
	if produce.ReplayedErrors["NOT_LEADER_OR_FOLLOWER"] != 1 {
		t.Errorf("Produce replayed errors %v, want one NOT_LEADER_OR_FOLLOWER", produce.ReplayedErrors)
	}
	explained := false
	for _, n := range rep.Notes {
		explained = explained || strings.Contains(n, "not idempotent")
	}
	if !explained {
		t.Errorf("no note explains the error: %v", rep.Notes)
	}
	got := consumeAll(t, target.ListenAddrs()[0], topics)
	short := 0
	for tp, w := range want {
		g := got[tp]
		if fmt.Sprintf("%s[%d]", tp.topic, tp.partition) == moved() {
			if len(g) >= len(w) || !slices.Equal(g, w[:len(g)]) && !isSubsequence(g, w) {
				t.Errorf("%s: %d of %d records, want fewer, in order", moved(), len(g), len(w))
			}
			short++
			continue
		}
		if !slices.Equal(g, w) {
			t.Errorf("%s[%d]: %d records, %d captured", tp.topic, tp.partition, len(g), len(w))
		}
	}
	if short != 1 {
		t.Errorf("moved partition %s not among the captured ones", moved())
	}
}

// isSubsequence reports whether a's records all appear in b, in order.
func isSubsequence(a, b []rec) bool {
	i := 0
	for _, r := range b {
		if i < len(a) && a[i] == r {
			i++
		}
	}
	return i == len(a)
}
