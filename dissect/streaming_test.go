package dissect

import (
	"encoding/binary"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"
)

// streamRun hands packets to a Session one at a time and records when each
// exchange comes out.
type streamRun struct {
	t   testing.TB
	d   *Dissector
	s   *Session
	got []*Exchange
	at  []int // packets handed over when got[i] was emitted
	n   int
}

func newStreamRun(t testing.TB, opts Options) *streamRun {
	r := &streamRun{t: t, d: New(opts)}
	r.s = r.d.NewSession(func(e *Exchange) {
		r.got = append(r.got, e)
		r.at = append(r.at, r.n)
	})
	return r
}

func (r *streamRun) feed(pkts ...synthPacket) {
	for _, p := range pkts {
		r.n++
		r.s.Packet(layers.LinkTypeEthernet, p.data, p.ci)
	}
}

// close ends the session and checks the invariants of any output: capture
// order, every exchange once.
func (r *streamRun) close() {
	r.s.Close()
	r.t.Helper()
	for i := 1; i < len(r.got); i++ {
		a, b := r.got[i-1], r.got[i]
		if a.Order() > b.Order() || a.Order() == b.Order() && a.Stream > b.Stream {
			r.t.Errorf("exchange %d (%s) before exchange %d (%s): not capture order", i-1, describe(a), i, describe(b))
		}
	}
	if r.d.stats.Exchanges != int64(len(r.got)) {
		r.t.Errorf("Stats.Exchanges %d, %d emitted", r.d.stats.Exchanges, len(r.got))
	}
}

// produceFrame is a Produce v7 request whose Acks the framer can read
// (codec.ProduceAcks): TransactionalId null, then Acks.
func produceFrame(corr int32, acks int16, value []byte) []byte {
	body := binary.BigEndian.AppendUint16(nil, 0xffff) // TransactionalId: null
	body = binary.BigEndian.AppendUint16(body, uint16(acks))
	return reqFrame(0, 7, corr, "producer", append(body, value...))
}

// A long capture streams: each exchange comes out as soon as the client
// acknowledges its response (held until then for a retransmitted copy:
// retransmit.go), and the session holds only the exchanges in flight.
func TestStreamingEmitsAsItGoes(t *testing.T) {
	const conns, rounds = 8, 1250 // 10 000 exchanges
	clock := testClock()
	var cs []*tcpConn
	var pkts []synthPacket
	for i := range conns {
		c := newConn(t, ethernet, uint16(40000+i), 9092, &clock)
		cs = append(cs, c)
		pkts = append(pkts, c.handshake()...)
	}
	r := newStreamRun(t, Options{})
	r.feed(pkts...)
	maxBuffered, maxLag := 0, 0
	for k := range rounds {
		// Every connection sends a request, then the broker answers them
		// in the same order: requests are pipelined across connections.
		var respAt []int
		for i, c := range cs {
			r.feed(c.send(true, reqFrame(3, 9, int32(k), fmt.Sprint("c", i), filler(300, byte(k))), 200)...)
		}
		for _, c := range cs {
			r.feed(c.send(false, respFrame(int32(k), filler(100, 1)))...)
			r.feed(c.packet(true, fACK, nil))
			respAt = append(respAt, r.n)
			maxBuffered = max(maxBuffered, r.s.Buffered())
		}
		if len(r.got) != (k+1)*conns {
			t.Fatalf("round %d: %d exchanges emitted, want %d", k, len(r.got), (k+1)*conns)
		}
		for i := range conns {
			maxLag = max(maxLag, r.at[k*conns+i]-respAt[i])
		}
	}
	if r.at[0] != len(pkts)+2*conns+2 {
		t.Errorf("first exchange emitted after %d packets, want at the acknowledgment of its response, packet %d", r.at[0], len(pkts)+2*conns+2)
	}
	r.close()
	if len(r.got) != conns*rounds || maxLag != 0 || maxBuffered > conns {
		t.Errorf("%d exchanges, emitted up to %d packets after their response was acknowledged, up to %d held", len(r.got), maxLag, maxBuffered)
	}
	for _, e := range r.got {
		if e.Response == nil || len(e.Notes) > 0 {
			t.Fatalf("%s", describe(e))
		}
	}
}

// A long-poll Fetch answered late still comes out first, in request
// order: what was captured after it waits for its response, and then
// comes out at once (when the client acknowledges the response).
func TestLongPollFetchKeepsOrder(t *testing.T) {
	clock := testClock()
	a := newConn(t, ethernet, 40000, 9092, &clock)
	b := newConn(t, ethernet, 40001, 9092, &clock)
	r := newStreamRun(t, Options{})
	r.feed(a.handshake()...)
	r.feed(b.handshake()...)
	r.feed(a.send(true, reqFrame(1, 11, 7, "consumer", filler(50, 1)))...)
	for k := range 100 {
		r.feed(b.send(true, reqFrame(3, 9, int32(k), "admin", nil))...)
		r.feed(b.send(false, respFrame(int32(k), filler(20, 2)))...)
	}
	if len(r.got) != 0 {
		t.Fatalf("%d exchanges emitted before the Fetch was answered", len(r.got))
	}
	clock = clock.Add(500 * time.Millisecond)
	r.feed(a.send(false, respFrame(7, filler(4000, 3)), 1460, 1460)...)
	r.feed(a.packet(true, fACK, nil))
	if len(r.got) != 101 {
		t.Fatalf("%d exchanges emitted once the Fetch was answered, want 101", len(r.got))
	}
	r.close()
	if e := r.got[0]; e.APIKey != 1 || e.Response == nil || len(e.Response.Bytes) != 4004 {
		t.Errorf("first: %s", describe(e))
	}
	if l, _ := r.got[0].Latency(); l < 500*time.Millisecond {
		t.Errorf("Fetch latency %v", l)
	}
}

// Produce with Acks=0 never waits: it is complete when framed (and comes
// out when the broker acknowledges it), and the responses to the other
// requests do not make its response look lost.
func TestAcksZeroNeverPending(t *testing.T) {
	clock := testClock()
	c := newConn(t, ethernet, 40000, 9092, &clock)
	r := newStreamRun(t, Options{})
	r.feed(c.handshake()...)
	for k := range int32(5) {
		r.feed(c.send(true, produceFrame(k, 0, filler(200, 1)))...)
		r.feed(c.packet(false, fACK, nil))
		if len(r.got) != int(k)+1 {
			t.Fatalf("Acks=0 Produce %d not emitted when framed and acknowledged", k)
		}
	}
	r.feed(c.send(true, produceFrame(5, 1, filler(200, 1)))...)
	r.feed(c.send(true, reqFrame(3, 9, 6, "p", nil))...)
	r.feed(c.send(false, cat(respFrame(5, filler(30, 1)), respFrame(6, filler(30, 2))))...)
	r.close()
	if len(r.got) != 7 {
		t.Fatalf("%d exchanges", len(r.got))
	}
	for i, e := range r.got {
		switch {
		case i < 5 && (e.Response != nil || e.NoResponse != NoResponseExpected || len(e.Notes) > 0):
			t.Errorf("Acks=0: %s", describe(e))
		case i >= 5 && (e.Response == nil || len(e.Notes) > 0):
			t.Errorf("answered: %s", describe(e))
		}
	}
}

// Why a request got no response is said, and known as soon as it can be.
func TestNoResponseReasons(t *testing.T) {
	t.Run("lost", func(t *testing.T) {
		// The broker answered request 2; Kafka answers in order, so the
		// response to request 1 was sent and not captured.
		clock := testClock()
		c := newConn(t, ethernet, 40000, 9092, &clock)
		r := newStreamRun(t, Options{})
		r.feed(c.send(true, cat(reqFrame(opaqueKey, 9, 1, "a", nil), reqFrame(opaqueKey, 9, 2, "a", nil)))...)
		r.feed(c.send(false, respFrame(2, nil))...)
		r.feed(c.packet(true, fACK, nil))
		if len(r.got) != 2 {
			t.Fatalf("%d emitted at the response to the later request", len(r.got))
		}
		r.close()
		if e := r.got[0]; e.NoResponse != ResponseLost || len(e.Notes) != 1 || r.got[1].Response == nil {
			t.Errorf("%s; %s", describe(e), describe(r.got[1]))
		}
	})
	t.Run("closed", func(t *testing.T) {
		clock := testClock()
		c := newConn(t, ethernet, 40000, 9092, &clock)
		r := newStreamRun(t, Options{})
		r.feed(c.handshake()...)
		r.feed(c.send(true, reqFrame(opaqueKey, 9, 1, "a", nil))...)
		r.feed(c.packet(false, fFIN|fACK, nil)) // the broker closes
		if len(r.got) != 1 {
			t.Fatalf("not emitted when the broker closed")
		}
		r.close()
		if e := r.got[0]; e.NoResponse != ConnectionClosed || e.Notes[0].Text != "connection closed before the response" {
			t.Errorf("%s", describe(e))
		}
	})
	t.Run("idle", func(t *testing.T) {
		clock := testClock()
		c := newConn(t, ethernet, 40000, 9092, &clock)
		other := newConn(t, ethernet, 40001, 9092, &clock)
		r := newStreamRun(t, Options{IdleTimeout: time.Minute})
		r.feed(c.send(true, reqFrame(opaqueKey, 9, 1, "a", nil))...)
		for k := range 100 { // 100 s of other traffic
			clock = clock.Add(time.Second)
			r.feed(other.send(true, reqFrame(opaqueKey-1, 3, int32(k), "b", nil))...)
			r.feed(other.send(false, respFrame(int32(k), nil))...)
		}
		if len(r.got) < 50 {
			t.Fatalf("only %d emitted: the idle connection held them", len(r.got))
		}
		r.close()
		if e := r.got[0]; e.NoResponse != ConnectionIdle || e.Notes[0].Text != "connection idle for 1m0s of capture time: flushed before the response" {
			t.Errorf("%s", describe(e))
		}
	})
	t.Run("capture ended", func(t *testing.T) {
		clock := testClock()
		c := newConn(t, ethernet, 40000, 9092, &clock)
		r := newStreamRun(t, Options{})
		r.feed(c.send(true, reqFrame(opaqueKey, 9, 1, "a", nil))...)
		r.close()
		if e := r.got[0]; e.NoResponse != CaptureEnded || e.Notes[0].Text != "capture ended before the response" {
			t.Errorf("%s", describe(e))
		}
	})
	t.Run("too many pending", func(t *testing.T) {
		clock := testClock()
		c := newConn(t, ethernet, 40000, 9092, &clock)
		r := newStreamRun(t, Options{MaxPendingRequests: 3})
		for k := range int32(5) {
			r.feed(c.send(true, reqFrame(opaqueKey, 9, k, "a", nil))...)
		}
		if len(r.got) != 2 {
			t.Errorf("%d emitted; want the 2 given up", len(r.got))
		}
		r.feed(c.send(false, respFrame(2, nil))...)
		r.close()
		for i, e := range r.got {
			want := []NoResponseReason{ResponseGaveUp, ResponseGaveUp, ResponseSeen, CaptureEnded, CaptureEnded}[i]
			if e.NoResponse != want || (e.Response != nil) != (i == 2) {
				t.Errorf("exchange %d: %v, want %v: %s", i, e.NoResponse, want, describe(e))
			}
		}
		if st := r.d.Stats(); len(st.Problems) != 1 {
			t.Errorf("problems %q", st.Problems)
		}
	})
	t.Run("buffer limit", func(t *testing.T) {
		// A request never answered on a live connection holds what was
		// captured after it, up to MaxBufferedBytes; then it is given up.
		clock := testClock()
		a := newConn(t, ethernet, 40000, 9092, &clock)
		b := newConn(t, ethernet, 40001, 9092, &clock)
		r := newStreamRun(t, Options{MaxBufferedBytes: 64 << 10})
		r.feed(a.send(true, reqFrame(opaqueKey, 9, 1, "a", nil))...)
		for k := range 100 {
			r.feed(b.send(true, reqFrame(opaqueKey, 9, int32(k), "b", filler(1000, 1)))...)
			r.feed(b.send(false, respFrame(int32(k), filler(1000, 2)))...)
		}
		if len(r.got) < 50 || r.s.Buffered() > 40 {
			t.Errorf("%d emitted, %d held", len(r.got), r.s.Buffered())
		}
		r.feed(a.send(false, respFrame(1, nil))...) // too late
		r.close()
		if e := r.got[0]; e.NoResponse != ResponseGaveUp || e.Response != nil || !hasNote(e, "later exchanges were held behind it") {
			t.Errorf("%s", describe(e))
		}
		if e := r.got[len(r.got)-1]; e.Request != nil || !hasNote(e, "response without a captured request") {
			t.Errorf("late response: %s", describe(e))
		}
	})
}

// After a hole in the client direction, reassembly holds the requests back
// while the responses flow: the responses wait for their requests, and
// every exchange is matched exactly when the retransmission arrives.
func TestResponsesBeforeRequests(t *testing.T) {
	specs, reqs, resps := conversation(4, 1)
	clock := testClock()
	c := newConn(t, ethernet, 40000, 9092, &clock)
	r := newStreamRun(t, Options{})
	r.feed(c.handshake()...)
	r.feed(c.send(true, reqs[0])...)
	r.feed(c.send(false, resps[0])...)
	late := c.send(true, reqs[1])      // lost, retransmitted below
	r.feed(c.send(true, reqs[2])...)   // queued behind the hole
	r.feed(c.send(false, resps[1])...) // framed before its request
	r.feed(c.send(false, resps[2])...) //
	r.feed(c.send(true, reqs[3])...)   //
	r.feed(c.send(false, resps[3])...) //
	if len(r.got) != 1 {
		t.Errorf("%d emitted while request 2 is missing", len(r.got))
	}
	r.feed(late...)
	r.feed(c.packet(true, fACK, nil)) // the client acknowledges the last response
	if len(r.got) != 4 {
		t.Errorf("%d emitted after the retransmission", len(r.got))
	}
	r.close()
	// Request 2's first byte is in the retransmission: it comes last.
	if e := r.got[3]; e.CorrelationID != 2 || e.Request.Packet != int64(r.n-2) {
		t.Errorf("last: %s", describe(e))
	}
	slices.SortFunc(r.got, func(a, b *Exchange) int { return int(a.CorrelationID - b.CorrelationID) })
	checkExchanges(t, r.got, specs, false)
}

// A hole never filled is given up after the reorder window of capture
// time: what follows it comes out then, not at the end of the capture.
func TestHoleGivenUpAfterWindow(t *testing.T) {
	_, reqs, resps := conversation(3, 1)
	clock := testClock()
	c := newConn(t, ethernet, 40000, 9092, &clock)
	other := newConn(t, ethernet, 40001, 9092, &clock)
	r := newStreamRun(t, Options{ReorderWindow: 2 * time.Second})
	r.feed(c.send(true, reqs[0])...)
	r.feed(c.send(false, resps[0])...)
	_ = c.send(true, reqs[1], 10) // lost for good
	r.feed(c.send(true, reqs[2])...)
	r.feed(c.send(false, resps[2])...)
	emitted := len(r.got)
	for k := range 10 {
		clock = clock.Add(time.Second)
		r.feed(other.send(true, reqFrame(opaqueKey, 3, int32(k), "b", nil))...)
		r.feed(other.send(false, respFrame(int32(k), nil))...)
	}
	if emitted != 1 || len(r.got) < 8 {
		t.Errorf("%d emitted before the window passed, %d after", emitted, len(r.got))
	}
	r.close()
	var resynced bool
	for _, e := range r.got {
		if e.Stream == 0 && e.CorrelationID == 3 {
			resynced = e.Request != nil && e.Response != nil && hasNote(e, "gap in the capture")
		}
	}
	if !resynced {
		for _, e := range r.got {
			t.Log(describe(e))
		}
		t.Error("the exchange after the hole is not recovered with a gap note")
	}
}

// Closed connections are freed, and their stragglers open no new stream;
// idle ones are flushed, and keep their stream number when they wake up.
func TestConnectionsFreed(t *testing.T) {
	clock := testClock()
	r := newStreamRun(t, Options{IdleTimeout: time.Minute})
	for i := range 1000 {
		c := newConn(t, ethernet, uint16(20000+i), 9092, &clock)
		r.feed(c.handshake()...)
		r.feed(c.send(true, reqFrame(18, 3, 1, "x", nil))...)
		r.feed(c.send(false, respFrame(1, nil))...)
		r.feed(c.close()...)
		r.feed(c.packet(true, fACK, nil)) // a straggler
		if i%2 == 0 {
			clock = clock.Add(time.Second)
		}
	}
	if r.s.open != 0 || len(r.s.conns) != 0 || len(r.s.closed) > 130 || r.d.stats.PeakOpenConnections != 1 {
		t.Errorf("open %d, conns %d, remembered %d, peak %d", r.s.open, len(r.s.conns), len(r.s.closed), r.d.stats.PeakOpenConnections)
	}
	// Two stragglers each: the last ACK of the close, and ours.
	if st := r.d.Stats(); st.Connections != 1000 || st.AfterClose != 2000 {
		t.Errorf("connections %d, after close %d", st.Connections, st.AfterClose)
	}
	// Connections that go silent, one a second.
	var silent []*tcpConn
	for i := range 300 {
		c := newConn(t, ethernet, uint16(30000+i), 9092, &clock)
		silent = append(silent, c)
		r.feed(c.send(true, reqFrame(18, 3, 1, "y", nil))...)
		r.feed(c.send(false, respFrame(1, nil))...)
		clock = clock.Add(time.Second)
	}
	if r.s.open > 62 {
		t.Errorf("%d connections open: idle ones not flushed", r.s.open)
	}
	// The first wakes up: same stream, no note. (Picked up again without
	// a handshake: see opaqueKey.)
	r.feed(silent[0].send(true, reqFrame(opaqueKey, 3, 2, "y", nil))...)
	r.feed(silent[0].send(false, respFrame(2, nil))...)
	r.close()
	last := r.got[len(r.got)-1]
	if last.Stream != 1000 || last.CorrelationID != 2 || len(last.Notes) > 0 || last.Response == nil {
		t.Errorf("woken connection: %s", describe(last))
	}
	if st := r.d.Stats(); st.Connections != 1300 {
		t.Errorf("%d connections", st.Connections)
	}
}

// Beyond MaxConnections, new connections are not dissected until others
// close; that is counted and said once.
func TestMaxConnections(t *testing.T) {
	clock := testClock()
	r := newStreamRun(t, Options{MaxConnections: 2})
	cs := r.handshakes(3, &clock)
	for i, c := range cs {
		r.feed(c.send(true, reqFrame(18, 3, int32(i), "x", nil))...)
		r.feed(c.send(false, respFrame(int32(i), nil))...)
	}
	r.feed(cs[0].close()...)
	// Now it fits, picked up without its handshake (see opaqueKey).
	r.feed(cs[2].send(true, reqFrame(opaqueKey, 3, 9, "x", nil))...)
	r.feed(cs[2].send(false, respFrame(9, nil))...)
	r.close()
	st := r.d.Stats()
	if len(r.got) != 3 || st.ConnLimit != 5 || len(st.Problems) != 1 {
		for _, e := range r.got {
			t.Log(describe(e))
		}
		t.Errorf("%d exchanges, ConnLimit %d, problems %q", len(r.got), st.ConnLimit, st.Problems)
	}
	if e := r.got[2]; e.CorrelationID != 9 || e.Stream != 2 {
		t.Errorf("%s", describe(e))
	}
}

// Advance moves the clock of a live session without packets: a hole is
// given up and what waited behind it comes out.
func TestAdvance(t *testing.T) {
	_, reqs, resps := conversation(3, 1)
	clock := testClock()
	c := newConn(t, ethernet, 40000, 9092, &clock)
	r := newStreamRun(t, Options{})
	r.feed(c.send(true, reqs[0])...)
	_ = c.send(true, reqs[1], 10) // lost
	r.feed(c.send(true, reqs[2])...)
	r.feed(c.send(false, cat(resps[0], resps[1], resps[2]))...)
	r.feed(c.packet(true, fACK, nil))
	if len(r.got) != 1 {
		t.Fatalf("%d emitted", len(r.got))
	}
	r.s.Advance(clock.Add(time.Minute))
	if len(r.got) != 3 {
		t.Errorf("%d emitted after Advance", len(r.got))
	}
	r.close()
}

// Memory does not grow with the capture's length: the peak live heap of
// a 128 MB synthetic capture is that of a 16 MB one (BenchmarkPeakMemory
// compares 100 MB and 1 GB).
func TestMemoryDoesNotGrow(t *testing.T) {
	if testing.Short() {
		t.Skip("dissects 144 MB")
	}
	small, _, _, _ := peakMemory(t, 16<<20)
	big, _, n, st := peakMemory(t, 128<<20)
	t.Logf("peak live heap: %.2f MB (16 MB capture), %.2f MB (128 MB, %d exchanges, %d connections)",
		float64(small)/(1<<20), float64(big)/(1<<20), n, st.Connections)
	// A margin of 2 MiB for what a loaded machine's scheduling leaves
	// live at a sample (read-ahead batches of 256 KiB, 4 of them, and
	// their buffers not yet reused): a heap growing with the capture
	// would grow by far more for 8× the bytes.
	if float64(big) > 1.25*float64(small)+2<<20 {
		t.Errorf("peak live heap grew from %d to %d bytes", small, big)
	}
}
