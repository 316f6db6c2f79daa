package dissect

import (
	"bytes"
	"slices"
	"testing"
	"time"
)

// These tests hold TCP reassembly to the receiver's rules and to what a
// hole is: bytes of known position and length, handed to the framer as
// such, never guessed and never waited for longer than needed.

// A segment lost inside a request: once the broker is seen to have
// acknowledged the missing bytes (they will not be sent again) and the
// grace has passed, the hole is given up, well before the reorder window:
// the request keeps its size with the lost bytes as a hole at their
// offset, its exchange comes out, and the next request follows without a
// resynchronisation.
func TestAckedHoleGivenUpEarly(t *testing.T) {
	clock := testClock()
	c := newConn(t, ethernet, 40000, 9092, &clock)
	r := newStreamRun(t, Options{ReorderWindow: time.Minute})
	r.feed(c.handshake()...)
	req := reqFrame(opaqueKey, 1, 1, "cl", filler(300, 1))
	segs := c.send(true, req, 100, 100)
	r.feed(segs[0], segs[2]) // segs[1] is lost
	r.feed(c.send(false, respFrame(1, filler(20, 2)))...)
	if len(r.got) != 0 {
		t.Fatalf("%d exchanges before the grace passed", len(r.got))
	}
	clock = clock.Add(ackedHoleGrace)
	next := reqFrame(opaqueKey, 1, 2, "cl", filler(50, 3))
	r.feed(c.send(true, next)...)
	r.feed(c.send(false, respFrame(2, nil))...)
	r.feed(c.packet(true, fACK, nil)) // the last response held until then
	if len(r.got) != 2 {
		t.Fatalf("%d exchanges after the grace, want 2 (the reorder window is a minute)", len(r.got))
	}
	e := r.got[0]
	want := []Hole{{Offset: 96, Length: 100, Cause: HoleNotCaptured}}
	if e.Request == nil || int(e.Request.Size) != len(req)-4 || !slices.Equal(e.Request.Holes, want) ||
		!bytes.Equal(e.Request.Bytes[:96], req[4:100]) || !bytes.Equal(e.Request.Bytes[196:], req[200:]) || e.Response == nil {
		t.Errorf("%s holes %v", describe(e), e.Request.Holes)
	}
	if n := r.got[1]; len(n.Notes) != 0 || n.Response == nil {
		t.Errorf("next exchange: %s", describe(n))
	}
	r.close()
	if st := r.d.Stats(); st.Holes != 1 || st.HoleBytes != 100 {
		t.Errorf("Holes %d HoleBytes %d", st.Holes, st.HoleBytes)
	}
}

// A segment the capture wrote after later ones (as captures taken on
// several queues do) fills its hole if it comes within the grace, even
// after the receiver acknowledged it: nothing is lost.
func TestLateSegmentWithinGrace(t *testing.T) {
	clock := testClock()
	c := newConn(t, ethernet, 40000, 9092, &clock)
	r := newStreamRun(t, Options{})
	r.feed(c.handshake()...)
	req := reqFrame(opaqueKey, 1, 1, "cl", filler(300, 1))
	segs := c.send(true, req, 100, 100)
	resp := c.send(false, respFrame(1, nil))
	r.feed(segs[0], segs[2])
	r.feed(resp...) // acknowledges segs[1]
	r.feed(segs[1])
	r.close()
	if len(r.got) != 1 || !bytes.Equal(r.got[0].Request.Bytes, req[4:]) || len(r.got[0].Request.Holes) != 0 || len(r.got[0].Notes) != 0 {
		t.Fatalf("%d exchanges: %s", len(r.got), describe(r.got[0]))
	}
	if st := r.d.Stats(); st.Holes != 0 || st.Reordered != 1 {
		t.Errorf("Holes %d Reordered %d", st.Holes, st.Reordered)
	}
}

// Packets cut by the snap length are holes known at once: nothing waits,
// each exchange comes out at its response (when the client acknowledges
// it), with the cut bytes as holes.
func TestSnapHolesDoNotWait(t *testing.T) {
	clock := testClock()
	c := newConn(t, ethernet, 40000, 9092, &clock)
	r := newStreamRun(t, Options{})
	r.feed(c.handshake()...)
	for k := range int32(20) {
		req := reqFrame(opaqueKey, 1, k, "cl", filler(400, byte(k)))
		for _, p := range c.send(true, req, 200) {
			p.ci.Length = len(p.data)
			p.data = p.data[:54+30] // Ethernet, IPv4, TCP: 30 bytes of payload
			p.ci.CaptureLength = len(p.data)
			r.feed(p)
		}
		r.feed(c.send(false, respFrame(k, filler(10, 1)))...)
		r.feed(c.packet(true, fACK, nil))
		if len(r.got) != int(k)+1 {
			t.Fatalf("request %d: %d exchanges out at its response", k, len(r.got))
		}
		e := r.got[k]
		want := []Hole{{Offset: 26, Length: 170, Cause: HoleSnapLength}, {Offset: 226, Length: len(req) - 4 - 226, Cause: HoleSnapLength}}
		if e.CorrelationID != k || !slices.Equal(e.Request.Holes, want) || !bytes.Equal(e.Request.Bytes[196:226], req[200:230]) {
			t.Fatalf("%s holes %v", describe(e), e.Request.Holes)
		}
	}
	r.close()
	reqLen := len(reqFrame(opaqueKey, 1, 0, "cl", filler(400, 0)))
	if st := r.d.Stats(); st.SnapTruncated != 40 || st.SnapBytes != int64(20*(reqLen-2*30)) || st.Holes != 0 {
		t.Errorf("SnapTruncated %d SnapBytes %d Holes %d", st.SnapTruncated, st.SnapBytes, st.Holes)
	}
}

// Retransmissions and overlapping segments bring nothing new; a RST or a
// FIN outside the window does not end the stream (RFC 5961); a SYN on a
// synchronised direction carries no data.
func TestReceiverRules(t *testing.T) {
	clock := testClock()
	c := newConn(t, ethernet, 40000, 9092, &clock)
	r := newStreamRun(t, Options{})
	r.feed(c.handshake()...)
	req := reqFrame(opaqueKey, 1, 1, "cl", filler(300, 1))
	start := c.cseq
	segs := c.send(true, req, 100, 100)
	r.feed(segs[0])
	r.feed(segs[0])                                                               // retransmitted
	r.feed(c.raw(c.client, c.broker, start+50, c.bseq, fACK, req[50:150]))        // overlaps both
	r.feed(c.raw(c.client, c.broker, start+5000, c.bseq, fRST, nil))              // out of window
	r.feed(c.raw(c.client, c.broker, start-10, c.bseq, fACK|fFIN, req[:10]))      // FIN before next
	r.feed(c.raw(c.client, c.broker, start+100, c.bseq, fSYN|fACK, filler(5, 9))) // SYN on a synchronised direction
	r.feed(segs[1], segs[2])
	r.feed(c.send(false, respFrame(1, nil))...)
	r.feed(c.close()...)
	r.close()
	if len(r.got) != 1 || !bytes.Equal(r.got[0].Request.Bytes, req[4:]) || len(r.got[0].Notes) != 0 || r.got[0].Response == nil {
		for _, e := range r.got {
			t.Log(describe(e))
		}
		t.Fatalf("%d exchanges", len(r.got))
	}
	if st := r.d.Stats(); st.Retransmitted < 2 {
		t.Errorf("Retransmitted %d", st.Retransmitted)
	}
}

// Out-of-order data waits within bounds: past maxQueuedSegs segments
// behind one hole, the hole is given up, whatever the time.
func TestQueueBounded(t *testing.T) {
	clock := testClock()
	c := newConn(t, ethernet, 40000, 9092, &clock)
	r := newStreamRun(t, Options{ReorderWindow: time.Hour})
	r.feed(c.handshake()...)
	_ = c.send(true, reqFrame(opaqueKey, 1, 1, "cl", nil)) // lost, never acknowledged
	for k := range int32(maxQueuedSegs + 10) {
		r.feed(c.raw(c.client, c.broker, c.cseq, 0, 0, reqFrame(opaqueKey, 1, 2+k, "cl", nil)))
		c.cseq += uint32(len(reqFrame(opaqueKey, 1, 2+k, "cl", nil)))
		if k%100 == 0 {
			r.feed(c.raw(c.broker, c.client, c.bseq, 0, 0, respFrame(2+k, nil)))
			c.bseq += 8
		}
	}
	if q := r.s.conns; len(q) != 1 {
		t.Fatalf("%d connections", len(q))
	}
	for cn := range r.s.conns {
		if h := &cn.tcp[toBroker]; len(h.queue) > maxQueuedSegs {
			t.Errorf("%d segments waiting", len(h.queue))
		}
	}
	if st := r.d.Stats(); st.Holes != 1 {
		t.Errorf("Holes %d, want the one given up", st.Holes)
	}
	r.close()
}

// A client that numbers its requests in steps (one counter for all its
// connections): a segment lost inside a request whose size was read costs
// that request its bytes and nothing else: no frame after it is skipped,
// whatever the CorrelationIds look like.
func TestHoleInsideFrameSkipsNothing(t *testing.T) {
	clock := testClock()
	c := newConn(t, ethernet, 40000, 9092, &clock)
	r := newStreamRun(t, Options{})
	r.feed(c.handshake()...)
	const n = 12
	for k := range int32(n) {
		corr := 7 + 1009*k
		segs := c.send(true, reqFrame(opaqueKey, 1, corr, "cl", filler(600, byte(k))), 300)
		switch k {
		case 3:
			segs = segs[1:] // its first 300 bytes lost: size prefix and header
		case 4:
			segs = segs[:1] // its last part lost: inside the frame
		}
		r.feed(segs...)
		r.feed(c.send(false, respFrame(corr, nil))...)
	}
	r.feed(c.close()...)
	r.close()
	found := map[int32]*Exchange{}
	for _, e := range r.got {
		if e.Request != nil {
			found[e.CorrelationID] = e
		}
	}
	for k := range int32(n) {
		corr := 7 + 1009*k
		e := found[corr]
		switch {
		case k == 3:
			continue // its header was lost: its response stands alone
		case e == nil:
			t.Errorf("request %d (CorrelationId %d) not found", k, corr)
		case k == 4 && (len(e.Request.Holes) != 1 || e.Request.Holes[0].Cause != HoleNotCaptured || e.Response == nil):
			t.Errorf("request 4: %s holes %v", describe(e), e.Request.Holes)
		case k != 4 && (len(e.Request.Holes) != 0 || e.Response == nil):
			t.Errorf("request %d: %s", k, describe(e))
		case k == 5 && len(e.Notes) != 0:
			t.Errorf("request 5, right after the hole: %s", describe(e))
		}
	}
}
