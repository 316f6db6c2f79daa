package dissect

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// A retransmitted segment whose bytes differ from the first copy is noted
// on the frame it belongs to, whether the first copy was handed to the
// framer already (the frame still being collected) or waits out of order;
// the first copy is used either way, and an identical copy says nothing.
func TestRetransmissionDiffersNoted(t *testing.T) {
	changed := func(pkt synthPacket, n int) synthPacket {
		p := bytes.Clone(pkt.data)
		for i := range n {
			p[len(p)-1-2*i] ^= 0xff // payload bytes: the packet ends with them
		}
		return synthPacket{data: p, ci: pkt.ci}
	}
	req := reqFrame(opaqueKey, 1, 1, "cl", filler(300, 1))
	for _, tc := range []struct {
		name   string
		order  func(s []synthPacket) []synthPacket
		differ int
	}{
		{"held, same", func(s []synthPacket) []synthPacket { return []synthPacket{s[0], s[1], s[1], s[2]} }, 0},
		{"held, changed", func(s []synthPacket) []synthPacket { return []synthPacket{s[0], s[1], changed(s[1], 3), s[2]} }, 3},
		{"held, partly overlapping", func(s []synthPacket) []synthPacket { return []synthPacket{s[0], s[1], changed(s[0], 2), s[2]} }, 2},
		{"queued, same", func(s []synthPacket) []synthPacket { return []synthPacket{s[0], s[2], s[2], s[1]} }, 0},
		{"queued, changed", func(s []synthPacket) []synthPacket { return []synthPacket{s[0], s[2], changed(s[2], 4), s[1]} }, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := testClock()
			c := newConn(t, ethernet, 40000, 9092, &clock)
			r := newStreamRun(t, Options{})
			r.feed(c.handshake()...)
			r.feed(tc.order(c.send(true, req, 100, 100))...)
			r.feed(c.send(false, respFrame(1, filler(20, 2)))...)
			r.close()
			if len(r.got) != 1 {
				t.Fatalf("%d exchanges", len(r.got))
			}
			e := r.got[0]
			if e.Request == nil || !bytes.Equal(e.Request.Bytes, req[4:]) || e.Response == nil {
				t.Fatalf("%s: not the first copies", describe(e))
			}
			i := slices.IndexFunc(e.Notes, func(n Note) bool { return strings.Contains(n.Text, "differs from the first copy") })
			st := r.d.Stats()
			if tc.differ == 0 {
				if i >= 0 || st.RetransmittedDiffering != 0 {
					t.Errorf("notes %q, RetransmittedDiffering %d", e.Notes, st.RetransmittedDiffering)
				}
				return
			}
			if i < 0 || !strings.Contains(e.Notes[i].Text, fmt.Sprintf(": %d of ", tc.differ)) || st.RetransmittedDiffering != 1 || st.RetransmittedDifferingBytes != int64(tc.differ) {
				t.Errorf("notes %q, RetransmittedDiffering %d (%d bytes), want %d bytes", e.Notes, st.RetransmittedDiffering, st.RetransmittedDifferingBytes, tc.differ)
			}
		})
	}
}

// A retransmitted copy of bytes of frames already handed over whole is
// compared with them while their exchanges are held (retransmit.go's
// window: the last recentFrames frames of the direction): a differing
// copy right after a whole request, or of its size prefix, or of two
// requests sent in one segment, is noted on each exchange it touches,
// which otherwise come out as from the capture without the copy; so is
// a differing copy right after a whole response, whose exchange is held
// for it (it would be emitted at once); an identical copy says nothing.
// A copy of a request older than the window is not compared: its bytes
// are no longer held.
func TestRetransmittedWholeFrameDiffers(t *testing.T) {
	// flip returns a copy of pkt whose payload bytes at the given offsets
	// are changed.
	flip := func(pkt synthPacket, payload int, at ...int) synthPacket {
		p := bytes.Clone(pkt.data)
		for _, k := range at {
			p[len(p)-payload+k] ^= 0xff
		}
		return synthPacket{data: p, ci: pkt.ci}
	}
	clock := testClock()
	c := newConn(t, ethernet, 40000, 9092, &clock)
	req := func(corr int32) []byte { return reqFrame(opaqueKey, 1, corr, "cl", filler(40+int(corr), byte(corr))) }
	pkts := c.handshake()
	pkts = append(pkts, c.send(true, req(1))...) // 3
	pkts = append(pkts, c.send(false, respFrame(1, filler(20, 2)))...)
	pair := append(req(2), req(3)...)
	pkts = append(pkts, c.send(true, pair)...) // 5: two requests in one segment
	pkts = append(pkts, c.send(false, append(respFrame(2, filler(8, 3)), respFrame(3, filler(9, 4))...))...)
	for corr := int32(4); corr <= 9; corr++ { // 7-12: waiting, past the window at the end
		pkts = append(pkts, c.send(true, req(corr))...)
	}
	for corr := int32(4); corr <= 9; corr++ {
		pkts = append(pkts, c.send(false, respFrame(corr, filler(8, byte(corr))))...)
	}
	pkts = append(pkts, c.close()...)
	run := func(pkts []synthPacket) *streamRun {
		r := newStreamRun(t, Options{})
		r.feed(pkts...)
		r.close()
		return r
	}
	clean := run(pkts)
	if len(clean.got) != 9 {
		t.Fatalf("clean: %d exchanges", len(clean.got))
	}
	for _, tc := range []struct {
		name   string
		after  int         // the copy is written after this packet
		copy   synthPacket // the copy
		differ map[int32]int
		bytes  int64 // Stats.RetransmittedDifferingBytes
	}{
		{"request, same", 3, pkts[3], nil, 0},
		{"request, changed", 3, flip(pkts[3], len(req(1)), 10, 20, 30), map[int32]int{1: 3}, 3},
		{"request, size prefix changed", 3, flip(pkts[3], len(req(1)), 3), map[int32]int{1: 1}, 1},
		{"two requests, both changed", 5, flip(pkts[5], len(pair), 12, len(req(2))+12), map[int32]int{2: 1, 3: 1}, 2},
		{"response, changed", 4, flip(pkts[4], 24, 10), map[int32]int{1: 1}, 1},
		{"request past the window, changed", 12, flip(pkts[7], len(req(4)), 10), nil, 0},
		{"request at the window's end, changed", 12, flip(pkts[9], len(req(6)), 10), map[int32]int{6: 1}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			damaged := slices.Insert(slices.Clone(pkts), tc.after+1, tc.copy)
			r := run(damaged)
			if st := r.d.Stats(); st.RetransmittedDifferingBytes != tc.bytes || (st.RetransmittedDiffering > 0) != (tc.bytes > 0) {
				t.Errorf("RetransmittedDiffering %d (%d bytes), want %d bytes", st.RetransmittedDiffering, st.RetransmittedDifferingBytes, tc.bytes)
			}
			origOf := insertedAfter(int64(tc.after))
			if len(r.got) != len(clean.got) {
				t.Fatalf("%d exchanges, want %d", len(r.got), len(clean.got))
			}
			for i, ce := range clean.got {
				e := r.got[i]
				want := *ce
				if n, ok := tc.differ[ce.CorrelationID]; ok {
					note := slices.IndexFunc(e.Notes, func(s Note) bool { return strings.Contains(s.Text, "differs from the first copy") })
					if note < 0 || !strings.Contains(e.Notes[note].Text, fmt.Sprintf(": %d of ", n)) {
						t.Errorf("%s: want a note of %d differing bytes", describe(e), n)
						continue
					}
					want.Notes = append(slices.Clone(ce.Notes), e.Notes[note])
				}
				if !sameExchange(&want, e, origOf) {
					t.Errorf("%s, want %s", describe(e), describe(&want))
				}
			}
		})
	}
}

// The frames kept for comparison are those of exchanges still held: once
// every exchange of a long connection is emitted but the last, held for
// a copy of its response (retransmit.go), only that exchange's frames
// are kept (the consumer may hand emitted frames back to
// Options.FramePool), and while requests wait, at most recentFrames a
// direction are.
func TestRetransmissionWindowBounded(t *testing.T) {
	clock := testClock()
	c := newConn(t, ethernet, 40000, 9092, &clock)
	r := newStreamRun(t, Options{})
	r.feed(c.handshake()...)
	// kept counts the frames kept by direction, and returns the
	// exchanges they belong to.
	kept := func() (n [2]int, of map[*Exchange]bool) {
		of = map[*Exchange]bool{}
		for cn := range r.s.conns {
			for d := range cn.recent {
				for _, e := range cn.recent[d] {
					if e.sl != nil {
						n[d]++
						of[e.sl.ex] = true
						if e.sl.ex.Request == nil || !slices.Contains(r.s.ord.h, e.sl) {
							t.Errorf("%s kept, not held", describe(e.sl.ex))
						}
					}
				}
			}
		}
		return n, of
	}
	for corr := int32(1); corr <= 200; corr++ {
		r.feed(c.send(true, reqFrame(opaqueKey, 1, corr, "cl", filler(50, byte(corr))))...)
		if corr%50 == 0 {
			if n, _ := kept(); n[toBroker] != recentFrames || n[toClient] > 1 {
				t.Errorf("%v frames kept by direction with 50 requests waiting, want %d requests and at most one response", n, recentFrames)
			}
			for k := corr - 49; k <= corr; k++ {
				r.feed(c.send(false, respFrame(k, filler(10, byte(k))))...)
			}
			n, of := kept()
			if len(r.got) != int(corr)-1 || len(r.s.ord.h) != 1 {
				t.Fatalf("%d exchanges emitted and %d held after %d answered, want all but the last", len(r.got), len(r.s.ord.h), corr)
			}
			if last := r.s.ord.h[0].ex; n != [2]int{1, 1} || len(of) != 1 || !of[last] {
				t.Errorf("%v frames kept by direction with every exchange but %s emitted, want its two", n, describe(last))
			}
		}
	}
	r.close()
	if len(r.got) != 200 {
		t.Errorf("%d exchanges", len(r.got))
	}
}

// A retransmitted copy of a whole response, in real kcat traffic (the
// response to Produce 3, one packet of 64 bytes): a copy with bytes
// changed right after it is compared with the first copy and noted on
// the exchange (tshark 4.0 marks that copy "TCP Retransmission" only: its
// first copy was a whole PDU, so no reassembly overlaps it); the first
// copy is used, and every exchange is otherwise the clean capture's. An
// identical copy is a retransmission and says nothing. A copy after the
// client acknowledged the response, or after the broker's next packet
// (its next response), is not compared: the exchange was emitted then
// (retransmit.go), and counts as a retransmission only.
func TestRetransmittedResponseDiffers(t *testing.T) {
	pkts := loadCapture(t, kcatProduce)
	resp := pkts[kcatProduceResp3]
	if !resp.tcp || resp.payload != 64 {
		t.Fatalf("packet %d is not the response to Produce 3 (%d bytes of payload)", kcatProduceResp3, resp.payload)
	}
	changed := resp
	changed.data = bytes.Clone(resp.data)
	for _, k := range []int{20, 40} { // in the response's body
		changed.data[len(changed.data)-resp.payload+k] ^= 0xff
	}
	read := func(pkts []capPacket) ([]*Exchange, Stats) {
		d := New(Options{})
		got, err := readAll(t, d, writeCapture(t, pkts))
		if err != nil {
			t.Fatal(err)
		}
		return got, d.Stats()
	}
	clean, cleanSt := read(pkts)
	for _, tc := range []struct {
		name   string
		after  int       // the copy is written after this packet
		copy   capPacket // the copy
		differ int       // bytes that differ, noted on Produce 3 (0: no note)
	}{
		{"identical, right after", kcatProduceResp3, resp, 0},
		{"changed, right after", kcatProduceResp3, changed, 2},
		{"changed, after the client's acknowledgment", kcatProduceResp3 + 1, changed, 0},
		{"changed, after the broker's next response", kcatProduceResp4, changed, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cp := tc.copy
			cp.ci.Timestamp = pkts[tc.after].ci.Timestamp
			got, st := read(slices.Insert(slices.Clone(pkts), tc.after+1, cp))
			wantDiffering := int64(min(tc.differ, 1))
			if st.Retransmitted != cleanSt.Retransmitted+1 || st.RetransmittedDiffering != wantDiffering || st.RetransmittedDifferingBytes != int64(tc.differ) {
				t.Errorf("Retransmitted %d (clean %d), RetransmittedDiffering %d (%d bytes), want one more, %d (%d bytes)",
					st.Retransmitted, cleanSt.Retransmitted, st.RetransmittedDiffering, st.RetransmittedDifferingBytes, wantDiffering, tc.differ)
			}
			if len(got) != len(clean) {
				t.Fatalf("%d exchanges, want %d", len(got), len(clean))
			}
			for i, ce := range clean {
				want := *ce
				if ce.Stream == 0 && ce.CorrelationID == 3 && tc.differ > 0 {
					d := rtxDiff{}
					d.add(tc.differ, resp.payload)
					want.Notes = append(slices.Clone(ce.Notes), NewNote(NoteRetransmission, d.note()))
				}
				if !sameExchange(&want, got[i], insertedAfter(int64(tc.after))) {
					t.Errorf("%s, want %s", describe(got[i]), describe(&want))
				}
			}
		})
	}
}

// insertedAfter returns what sameExchange needs to compare a frame of a
// capture with a packet inserted after packet after with the frame of
// the capture without it: the packet indexes of the original.
func insertedAfter(after int64) func(*Frame) *Frame {
	return func(f *Frame) *Frame {
		if f == nil {
			return nil
		}
		g := *f
		for _, p := range []*int64{&g.Packet, &g.LastPacket} {
			if *p > after {
				*p--
			}
		}
		return &g
	}
}

// A complete exchange is held for a retransmitted copy of its last frame
// until the receiver acknowledges the frame, or the next packet of the
// frame's direction comes, or holdWait (the reorder window, if shorter)
// of capture time passed, whether that time comes from Advance or from
// the packets of another connection; a packet of the receiver that does
// not acknowledge the frame does not end the hold.
func TestRetransmitHoldEnds(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		// then feeds what follows the response; it returns the packets
		// after which the exchange must still be held, then the step
		// that ends the hold.
		then func(r *streamRun, c, other *tcpConn, clock *time.Time) (held []func(), ends func())
	}{
		{"the client acknowledges", Options{}, func(r *streamRun, c, other *tcpConn, clock *time.Time) ([]func(), func()) {
			return nil, func() { r.feed(c.packet(true, fACK, nil)) }
		}},
		{"the client sends without acknowledging, then the broker sends", Options{}, func(r *streamRun, c, other *tcpConn, clock *time.Time) ([]func(), func()) {
			stale := c.raw(c.client, c.broker, c.cseq, c.bseq-1, fACK, nil) // before the response's last byte
			return []func(){func() { r.feed(stale) }}, func() { r.feed(c.packet(false, fACK, nil)) }
		}},
		{"Advance past holdWait", Options{}, func(r *streamRun, c, other *tcpConn, clock *time.Time) ([]func(), func()) {
			at := *clock
			return []func(){func() { r.s.Advance(at.Add(holdWait - time.Millisecond)) }}, func() { r.s.Advance(at.Add(holdWait)) }
		}},
		{"another connection's packets past holdWait", Options{}, func(r *streamRun, c, other *tcpConn, clock *time.Time) ([]func(), func()) {
			at := *clock
			step := func() { r.feed(other.packet(true, fACK, nil)) }
			return []func(){func() { *clock = at.Add(holdWait - 2*time.Millisecond); step() }}, func() { *clock = at.Add(holdWait); step() }
		}},
		{"Advance past a shorter reorder window", Options{ReorderWindow: 100 * time.Millisecond}, func(r *streamRun, c, other *tcpConn, clock *time.Time) ([]func(), func()) {
			at := *clock
			return []func(){func() { r.s.Advance(at.Add(99 * time.Millisecond)) }}, func() { r.s.Advance(at.Add(100 * time.Millisecond)) }
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := testClock()
			c := newConn(t, ethernet, 40000, 9092, &clock)
			other := newConn(t, ethernet, 40001, 9092, &clock)
			r := newStreamRun(t, tc.opts)
			r.feed(c.handshake()...)
			r.feed(other.handshake()...)
			r.feed(c.send(true, reqFrame(opaqueKey, 1, 1, "cl", filler(40, 1)))...)
			r.feed(c.send(false, respFrame(1, filler(20, 2)))...)
			held, ends := tc.then(r, c, other, &clock)
			for i, step := range append([]func(){func() {}}, held...) {
				step()
				if len(r.got) != 0 {
					t.Fatalf("step %d: emitted while its response may still be retransmitted", i)
				}
			}
			ends()
			if len(r.got) != 1 || r.got[0].Response == nil {
				t.Fatalf("%d emitted when the hold ended", len(r.got))
			}
			r.close()
		})
	}
}
