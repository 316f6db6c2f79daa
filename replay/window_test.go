package replay

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kdissect/kdissect/dissect"
)

func unix(s int64) time.Time { return time.Unix(1700000000+s, 0) }

// TestReplayWindowConcurrencyOne replays captures of several connections
// (kcat's producer and consumers; franz-go's idempotent producer and its
// consumer) one connection at a time through a window of two requests,
// one per connection: the window is always full of one connection's
// requests while another's wait, and the replay must still end with
// every request sent and answered and the same records on the target
// (connections with nothing to send are closed for others, and say so).
func TestReplayWindowConcurrencyOne(t *testing.T) {
	for _, path := range []string{"../testdata/pcaps/kcat_produce_lz4.pcap", "../testdata/pcaps/franz_idempotent.pcap"} {
		t.Run(path[strings.LastIndex(path, "/")+1:], func(t *testing.T) {
			want := producedRecords(t, path)
			target := newTarget(t)
			r := loadCapture(t, path, Options{Broker: target.ListenAddrs()[0], Speed: 0, Concurrency: 1, Window: Window{Requests: 2, ConnRequests: 1, Bytes: 1, ConnBytes: 1}})
			rep, err := r.Run(testCtx(t))
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Complete() {
				t.Fatalf("report not complete: %+v failures %v", rep.Total, rep.Failures)
			}
			topics := map[string]int32{}
			for tp := range want {
				topics[tp.topic] = 3
			}
			sameRecords(t, consumeAll(t, target.ListenAddrs()[0], topics), want)
			evicted := false
			for _, n := range rep.Notes {
				evicted = evicted || strings.Contains(n, "was closed to let another start")
			}
			if !evicted {
				t.Errorf("no connection was closed for another with --concurrency 1; notes %q", rep.Notes)
			}
		})
	}
}

// TestPendingOrder holds the causal order's rules: a request waits for a
// request of another connection handed over before it and completed in
// the capture before it was sent, never for one handed over after it
// (whatever the times say) nor for its own connection's.
func TestPendingOrder(t *testing.T) {
	var o pendingOrder
	mk := func(index, stream int, req, resp int64) *item {
		it := &item{index: index, stream: stream, reqTime: unix(req), respTime: unix(resp)}
		it.dep = depTime(it)
		return it
	}
	a := mk(0, 0, 1, 2) // answered at 2
	b := mk(1, 1, 3, 4) // sent at 3: after a's answer
	c := mk(2, 0, 3, 5) // a's connection, sent at 3
	d := mk(3, 2, 0, 1) // handed over last, times before everything
	for _, it := range []*item{a, b, c, d} {
		o.insert(it)
	}
	if !o.blocked(b) {
		t.Error("b is not held back by a, answered before b was sent")
	}
	if o.blocked(a) || o.blocked(c) {
		t.Error("a or c held back: a is the oldest; c waits only for its own connection's a")
	}
	if o.blocked(d) {
		t.Error("d held back by requests handed over before it")
	}
	o.remove(a)
	if o.blocked(b) {
		t.Error("b still held back once a is done")
	}
	if len(o.items) != 3 {
		t.Errorf("%d items held, want 3", len(o.items))
	}
}

// TestReplayBrokerDisconnects replays to a broker that closes the
// connection on every request after its fifth: the replay ends, the
// requests refused are failures in the report (not a hang or a panic),
// and the window never held Add back for ever.
func TestReplayBrokerDisconnects(t *testing.T) {
	target := newTarget(t)
	var mu sync.Mutex
	n := 0
	target.Control(func(kmsg.Request) (kmsg.Response, error, bool) {
		target.KeepControl()
		mu.Lock()
		defer mu.Unlock()
		if n++; n > 5 {
			return nil, errors.New("going away"), true
		}
		return nil, nil, false
	})
	r := loadCapture(t, "../testdata/pcaps/franz_idempotent.pcap", Options{Broker: target.ListenAddrs()[0], Concurrency: 1, Window: Window{Requests: 2}})
	rep, err := r.Run(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Complete() || rep.Total.Failed == 0 || len(rep.Failures) == 0 {
		t.Fatalf("complete although the broker hung up: %+v", rep.Total)
	}
	if rep.Total.Sent+sum(rep.Total.Skipped) < rep.Total.Captured-rep.Total.Failed {
		t.Errorf("requests unaccounted for: %+v", rep.Total)
	}
}

// TestReplayCancelWhileWindowFull cancels a replay paced a thousand
// times slower than captured, its window of one request full (the
// request held waits for its time): the runner stops waiting, Add
// fails, and Run returns the context's error with a report in which the
// requests not sent are failures.
func TestReplayCancelWhileWindowFull(t *testing.T) {
	target := newTarget(t)
	ctx, cancel := context.WithCancel(testCtx(t))
	r := loadCapture(t, "../testdata/pcaps/kcat_produce_gzip.pcap", Options{Broker: target.ListenAddrs()[0], Speed: 0.001, Window: Window{Requests: 1}})
	added := 0
	rep, err := r.r.Run(ctx, func(add func(*dissect.Exchange) error) error {
		return readCapture(r.path, func(ex *dissect.Exchange) error {
			if added++; added == 3 {
				cancel() // the second request is held, waiting for its time
			}
			return add(ex)
		})
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if rep == nil || rep.Total.Failed == 0 || rep.Complete() {
		t.Fatalf("report %+v", rep)
	}
	for _, f := range rep.Failures {
		if !strings.Contains(f.Error, "the replay ended first") && !strings.Contains(f.Error, "context canceled") {
			t.Errorf("failure %+v", f)
		}
	}
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
