package client

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kdissect/kdissect/codec"
)

// TestBootstrapList: New skips bootstrap addresses that refuse and uses
// the first that answers; a comma-separated list and a host name work too.
func TestBootstrapList(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.NumBrokers(2), kfake.SeedTopics(1, "b"))
	ctx := testCtx(t)
	live := c.ListenAddrs()[1]
	_, port, _ := net.SplitHostPort(live)
	for _, brokers := range [][]string{
		{freeAddr(t), live},
		{freeAddr(t) + "," + live},
		{"localhost:" + port},
	} {
		cl, err := New(ctx, Config{Brokers: brokers})
		if err != nil {
			t.Fatalf("%v: %v", brokers, err)
		}
		md, err := cl.Metadata(ctx)
		if err != nil || len(md.Brokers) != 2 || len(md.Topics) != 1 {
			t.Errorf("%v: %v %+v", brokers, err, md)
		}
		cl.Close()
	}
	_, err := New(ctx, Config{Brokers: []string{freeAddr(t), freeAddr(t)}})
	if !errors.Is(err, ErrCannotConnect) || !strings.Contains(err.Error(), "none of 2 brokers") {
		t.Errorf("two dead addresses: %v", err)
	}
}

// TestIPv6: a cluster listening on [::1] is reached by its bracketed
// address, and the brokers it advertises (host "::1") too.
func TestIPv6(t *testing.T) {
	noLeaks(t)
	if ln, err := net.Listen("tcp6", "[::1]:0"); err != nil {
		t.Skipf("no IPv6 loopback: %v", err)
	} else {
		ln.Close()
	}
	c := newCluster(t, kfake.NumBrokers(2), kfake.SeedTopics(2, "six"), kfake.ListenFn(func(_, addr string) (net.Listener, error) {
		_, port, _ := net.SplitHostPort(addr)
		return net.Listen("tcp6", net.JoinHostPort("::1", port))
	}))
	ctx := testCtx(t)
	addr := c.ListenAddrs()[0]
	if !strings.HasPrefix(addr, "[::1]:") {
		t.Fatalf("listen address %s", addr)
	}
	cl, err := New(ctx, Config{Brokers: []string{addr}})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	p, _ := NewProducer(cl, ProducerConfig{})
	for part := range int32(2) {
		if _, err := p.Produce(ctx, "six", part, Record{Value: []byte("v6")}); err != nil {
			t.Fatal(err)
		}
	}
	md, _ := cl.Metadata(ctx)
	for _, b := range md.Brokers {
		if !strings.HasPrefix(b.Addr(), "[::1]:") {
			t.Errorf("broker address %s", b.Addr())
		}
	}
}

// TestMetadata: all topics, named topics, an unknown topic's error in the
// result, and every Metadata version kfake serves.
func TestMetadata(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.NumBrokers(3), kfake.SeedTopics(4, "m1"), kfake.SeedTopics(2, "m2"))
	ctx := testCtx(t)
	for v := int16(0); v <= 13; v++ {
		cl := newClient(t, c, func(cfg *Config) { cfg.MaxVersions = map[int16]int16{3: v} })
		md, err := cl.Metadata(ctx)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		if v == 0 {
			// Kafka answers an empty v0 topic list with every topic;
			// kfake answers it with none. Ask by name instead.
			if md, err = cl.Metadata(ctx, "m1", "m2"); err != nil {
				t.Fatal(err)
			}
		}
		if md.Version != v || len(md.Brokers) != 3 || len(md.Topics) != 2 || md.Topics[0].Name != "m1" || len(md.Topics[0].Partitions) != 4 {
			t.Fatalf("v%d: %+v", v, md)
		}
		for _, p := range md.Topics[0].Partitions {
			if p.Leader < 0 || len(p.Replicas) != 3 || len(p.ISR) != 3 {
				t.Errorf("v%d: partition %+v", v, p)
			}
		}
		if v >= 10 && md.Topics[0].ID.IsZero() {
			t.Errorf("v%d: no topic ID", v)
		}
		if v >= 2 && md.ClusterID == "" {
			t.Errorf("v%d: no cluster ID", v)
		}
		md, err = cl.Metadata(ctx, "m2", "nosuch")
		if err != nil {
			t.Fatal(err)
		}
		if len(md.Topics) != 2 || md.Topics[0].Name != "m2" || !errors.Is(md.Topics[1].Err, ErrUnknownTopicOrPartition) {
			t.Errorf("v%d named: %+v", v, md.Topics)
		}
		cl.Close()
	}
}

// TestRetryThenSuccess: NOT_LEADER_OR_FOLLOWER twice, then success: the
// produce is retried (after a backoff and a metadata refresh each time)
// and succeeds on the third attempt.
func TestRetryThenSuccess(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.NumBrokers(3), kfake.SeedTopics(1, "r"))
	cl := newClient(t, c, func(cfg *Config) { cfg.RetryBackoff = 50 * time.Millisecond })
	ctx := testCtx(t)
	var metadataCalls atomic.Int32
	c.ControlKey(int16(kmsg.Metadata), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		metadataCalls.Add(1)
		return nil, nil, false
	})
	h := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: "r", Err: kerr.NotLeaderForPartition, Count: 2})
	p, _ := NewProducer(cl, ProducerConfig{})
	start := time.Now()
	res, err := p.Produce(ctx, "r", 0, Record{Value: []byte("x")})
	if err != nil {
		t.Fatal(err)
	}
	if h.Hits() != 2 || res.BaseOffset != 0 {
		t.Errorf("fault hits %d, offset %d", h.Hits(), res.BaseOffset)
	}
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Errorf("two backoffs took only %v", d)
	}
	if n := metadataCalls.Load(); n < 3 {
		t.Errorf("%d metadata requests, want the first and a refresh per retry", n)
	}
}

// TestRetryLimit: more failures than attempts: exactly MaxAttempts produce
// requests are sent and the last error is returned, as an *Error about the
// topic-partition.
func TestRetryLimit(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.SeedTopics(1, "lim"))
	ctx := testCtx(t)
	for _, attempts := range []int{0, 1, 2} {
		h := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: "lim", Err: kerr.NotLeaderForPartition, Count: -1})
		cl := newClient(t, c, func(cfg *Config) { cfg.RetryBackoff = 10 * time.Millisecond; cfg.MaxAttempts = attempts })
		p, _ := NewProducer(cl, ProducerConfig{})
		_, err := p.Produce(ctx, "lim", 0, Record{Value: []byte("x")})
		var ke *Error
		if !errors.As(err, &ke) || ke.Code() != 6 || ke.Topic != "lim" || ke.Partition != 0 {
			t.Errorf("got %v", err)
		}
		want := attempts
		if want == 0 {
			want = DefaultMaxAttempts
		}
		if h.Hits() != want {
			t.Errorf("MaxAttempts %d: %d produce requests, want %d", attempts, h.Hits(), want)
		}
		h.Remove()
		cl.Close()
	}
}

// TestNoRetryOnFatal: an error that is not retriable (MESSAGE_TOO_LARGE)
// is returned after one attempt.
func TestNoRetryOnFatal(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.SeedTopics(1, "f"))
	h := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: "f", Err: kerr.MessageTooLarge, Count: -1})
	cl := newClient(t, c, nil)
	p, _ := NewProducer(cl, ProducerConfig{})
	_, err := p.Produce(testCtx(t), "f", 0, Record{Value: []byte("x")})
	if !errors.Is(err, ErrMessageTooLarge) || h.Hits() != 1 {
		t.Errorf("%v after %d attempts", err, h.Hits())
	}
}

// TestLeaderMove: a partition moved to another broker: the next produce
// hits the old leader, gets NOT_LEADER_OR_FOLLOWER, refreshes metadata and
// lands on the new leader; fetch follows too.
func TestLeaderMove(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.NumBrokers(3), kfake.SeedTopics(1, "mv"))
	cl := newClient(t, c, func(cfg *Config) { cfg.RetryBackoff = 10 * time.Millisecond })
	ctx := testCtx(t)
	p, _ := NewProducer(cl, ProducerConfig{})
	co := NewConsumer(cl, ConsumerConfig{MaxWait: 10 * time.Millisecond})
	for i := range 6 {
		old := c.LeaderFor("mv", 0)
		if _, err := p.Produce(ctx, "mv", 0, Record{Value: []byte{byte(i)}}); err != nil {
			t.Fatalf("produce %d: %v", i, err)
		}
		if err := c.MoveTopicPartition("mv", 0, (old+1)%3); err != nil {
			t.Fatal(err)
		}
	}
	fr, err := co.Fetch(ctx, "mv", 0, 0)
	if err != nil || len(fr.Messages) != 6 {
		t.Fatalf("fetch after moves: %v %+v", err, fr)
	}
	cl.mu.Lock()
	cached := cl.meta.topics["mv"].Partitions[0].Leader
	cl.mu.Unlock()
	if cached != c.LeaderFor("mv", 0) {
		t.Errorf("cached leader %d, cluster says %d", cached, c.LeaderFor("mv", 0))
	}
}

// TestProduceNotRetriedBlindly: a Produce whose answer never comes (kfake
// drops it unanswered) is sent once by a plain producer, which reports
// ErrNoAcknowledgement; an idempotent producer retries it and succeeds.
// REQUEST_TIMED_OUT (the broker may have written) likewise.
func TestProduceNotRetriedBlindly(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.SeedTopics(1, "nb"))
	ctx := testCtx(t)
	var produces atomic.Int32
	var drop atomic.Int32
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		produces.Add(1)
		if drop.Load() > 0 {
			drop.Add(-1)
			return nil, nil, true // swallowed: no answer
		}
		return nil, nil, false
	})
	for _, idem := range []bool{false, true} {
		produces.Store(0)
		drop.Store(1)
		cl := newClient(t, c, func(cfg *Config) {
			cfg.RequestTimeout = 200 * time.Millisecond
			cfg.RetryBackoff = 10 * time.Millisecond
		})
		p, _ := NewProducer(cl, ProducerConfig{Idempotent: idem})
		_, err := p.Produce(ctx, "nb", 0, Record{Value: []byte("once")})
		if idem {
			if err != nil || produces.Load() != 2 {
				t.Errorf("idempotent: %v after %d requests", err, produces.Load())
			}
		} else if !errors.Is(err, ErrNoAcknowledgement) || !errors.Is(err, ErrTimeout) || produces.Load() != 1 {
			t.Errorf("plain: %v after %d requests", err, produces.Load())
		}
		cl.Close()
	}
	for _, idem := range []bool{false, true} {
		h := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: "nb", Err: kerr.RequestTimedOut, Count: 1})
		cl := newClient(t, c, func(cfg *Config) { cfg.RetryBackoff = 10 * time.Millisecond })
		p, _ := NewProducer(cl, ProducerConfig{Idempotent: idem})
		_, err := p.Produce(ctx, "nb", 0, Record{Value: []byte("rto")})
		if idem && err != nil || !idem && !errors.Is(err, ErrRequestTimedOut) || h.Hits() != 1 {
			t.Errorf("REQUEST_TIMED_OUT idempotent=%v: %v", idem, err)
		}
		h.Remove()
		cl.Close()
	}
}

// TestIdempotentRetryNoDuplicate: the first Produce of an idempotent
// producer is held by the broker past the client's timeout and then
// written; the retry carries the same sequence, so the partition holds the
// record once.
func TestIdempotentRetryNoDuplicate(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.SeedTopics(1, "dup"))
	ctx := testCtx(t)
	var produces atomic.Int32
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if produces.Add(1) == 1 {
			c.SleepControl(func() { time.Sleep(300 * time.Millisecond) })
		}
		return nil, nil, false
	})
	cl := newClient(t, c, func(cfg *Config) {
		cfg.RequestTimeout = 150 * time.Millisecond
		cfg.RetryBackoff = 400 * time.Millisecond
	})
	p, _ := NewProducer(cl, ProducerConfig{Idempotent: true})
	if _, err := p.Produce(ctx, "dup", 0, Record{Value: []byte("one")}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Produce(ctx, "dup", 0, Record{Value: []byte("two")}); err != nil {
		t.Fatal(err)
	}
	fr, err := NewConsumer(cl, ConsumerConfig{MaxWait: 10 * time.Millisecond}).Fetch(ctx, "dup", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var vals []string
	for _, m := range fr.Messages {
		vals = append(vals, string(m.Value))
	}
	if strings.Join(vals, ",") != "one,two" || produces.Load() < 2 {
		t.Errorf("partition holds %v after %d produce requests", vals, produces.Load())
	}
}

// TestBrokerClosesConnection: kfake closes the connection instead of
// answering. A Metadata request is retried on a new connection and
// succeeds; a plain Produce is not retried (it may have been written).
func TestBrokerClosesConnection(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.SeedTopics(1, "cl"))
	ctx := testCtx(t)
	cl := newClient(t, c, func(cfg *Config) { cfg.RetryBackoff = 10 * time.Millisecond })
	kill := func(key kmsg.Key) *atomic.Int32 {
		var n atomic.Int32
		c.ControlKey(int16(key), func(kmsg.Request) (kmsg.Response, error, bool) {
			n.Add(1)
			return nil, errors.New("cut"), true
		})
		return &n
	}
	n := kill(kmsg.Metadata)
	if _, err := cl.Metadata(ctx, "cl"); err != nil || n.Load() != 1 {
		t.Errorf("metadata: %v (%d cut)", err, n.Load())
	}
	n = kill(kmsg.Produce)
	p, _ := NewProducer(cl, ProducerConfig{})
	start := time.Now()
	_, err := p.Produce(ctx, "cl", 0, Record{Value: []byte("x")})
	if !errors.Is(err, ErrNoAcknowledgement) || !errors.Is(err, ErrCannotReceive) || n.Load() != 1 {
		t.Errorf("produce: %v (%d cut)", err, n.Load())
	}
	if time.Since(start) > time.Second {
		t.Errorf("took %v: a closed connection must not wait for the timeout", time.Since(start))
	}
	// The client reconnects for the next request.
	if _, err := p.Produce(ctx, "cl", 0, Record{Value: []byte("y")}); err != nil {
		t.Error(err)
	}
}

// TestClientCorrelationMismatchNotRetried: a mismatch is fatal, even for a
// request that could be retried.
func TestClientCorrelationMismatchNotRetried(t *testing.T) {
	noLeaks(t)
	var requests atomic.Int32
	s := newRawServer(t, func(c net.Conn) {
		for {
			_, key, v, corr, err := readRequest(c)
			if err != nil {
				return
			}
			requests.Add(1)
			writeResponse(c, key, v, corr-1, (&codec.MetadataResponse{}).AppendTo(nil, v))
		}
	})
	cl, err := New(testCtx(t), Config{Brokers: []string{s.addr()}, NoVersionNegotiation: true, MaxVersions: map[int16]int16{3: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	_, err = cl.Metadata(testCtx(t))
	if !errors.Is(err, ErrCorrelationMismatch) || requests.Load() != 1 {
		t.Errorf("%v after %d requests", err, requests.Load())
	}
}

// TestClientRoundTripAndRequest: the raw path reaches a chosen broker with
// the request unchanged; Request uses the negotiated version; Close ends
// everything.
func TestClientRoundTripAndRequest(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.NumBrokers(3), kfake.SeedTopics(1, "rt"))
	cl := newClient(t, c, nil)
	ctx := testCtx(t)
	var nodes []int32
	c.ControlKey(int16(kmsg.ApiVersions), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		nodes = append(nodes, c.CurrentNode())
		return nil, nil, false
	})
	for _, node := range []int32{2, 1} {
		m, err := cl.RoundTrip(ctx, node, &codec.ApiVersionsRequest{}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.(*codec.ApiVersionsResponse).ApiKeys) == 0 {
			t.Error("empty ApiVersions")
		}
	}
	// Each broker connection negotiates once (one ApiVersions) and then
	// carries the raw request: nodes sees each twice.
	want := []int32{2, 2, 1, 1}
	if len(nodes) != 4 || nodes[0] != want[0] || nodes[1] != want[1] || nodes[2] != want[2] || nodes[3] != want[3] {
		t.Errorf("ApiVersions reached nodes %v, want %v", nodes, want)
	}
	if _, err := cl.RoundTrip(ctx, 7, &codec.ApiVersionsRequest{}, 0); !errors.Is(err, ErrLeaderNotFound) {
		t.Errorf("node 7: %v", err)
	}
	m, v, err := cl.Request(ctx, &codec.DescribeClusterRequest{})
	if err != nil || v < 1 || len(m.(*codec.DescribeClusterResponse).Brokers) != 3 {
		t.Errorf("Request: v%d %v", v, err)
	}
	cl.Close()
	if _, err := cl.Metadata(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
	if _, err := cl.RoundTrip(ctx, -1, &codec.ApiVersionsRequest{}, 0); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}

// TestContextDeadline: a context deadline shorter than the request timeout
// wins, and a retried request stops at it.
func TestContextDeadline(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.SeedTopics(1, "dl"))
	c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: "dl", Err: kerr.NotLeaderForPartition, Count: -1})
	cl := newClient(t, c, func(cfg *Config) { cfg.MaxAttempts = 100 })
	p, _ := NewProducer(cl, ProducerConfig{})
	ctx, cancel := context.WithTimeout(testCtx(t), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := p.Produce(ctx, "dl", 0, Record{Value: []byte("x")})
	// The deadline ends the retries during a backoff (the last error is
	// returned) or, on a slow machine, during a request.
	if !errors.Is(err, ErrNotLeaderOrFollower) && !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v with a 500ms deadline", d)
	}
}
