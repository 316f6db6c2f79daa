package dissect

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
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
// which otherwise come out as from the capture without the copy; an
// identical copy says nothing. A copy of a response whose exchange was
// emitted already, or of a request older than the window, is not
// compared: its bytes are no longer held.
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
		{"response emitted, changed", 4, flip(pkts[4], 24, 10), nil, 0},
		{"request past the window, changed", 12, flip(pkts[7], len(req(4)), 10), nil, 0},
		{"request at the window's end, changed", 12, flip(pkts[9], len(req(6)), 10), map[int32]int{6: 1}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			damaged := slices.Insert(slices.Clone(pkts), tc.after+1, tc.copy)
			r := run(damaged)
			if st := r.d.Stats(); st.RetransmittedDifferingBytes != tc.bytes || (st.RetransmittedDiffering > 0) != (tc.bytes > 0) {
				t.Errorf("RetransmittedDiffering %d (%d bytes), want %d bytes", st.RetransmittedDiffering, st.RetransmittedDifferingBytes, tc.bytes)
			}
			origOf := func(f *Frame) *Frame {
				if f == nil {
					return nil
				}
				g := *f
				for _, p := range []*int64{&g.Packet, &g.LastPacket} {
					if *p > int64(tc.after) {
						*p--
					}
				}
				return &g
			}
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
// every exchange of a long connection is emitted, none is kept (the
// consumer may hand emitted frames back to Options.FramePool), and while
// requests wait, at most recentFrames a direction are.
func TestRetransmissionWindowBounded(t *testing.T) {
	clock := testClock()
	c := newConn(t, ethernet, 40000, 9092, &clock)
	r := newStreamRun(t, Options{})
	r.feed(c.handshake()...)
	kept := func() (n int) {
		for cn := range r.s.conns {
			for d := range cn.recent {
				for _, e := range cn.recent[d] {
					if e.sl != nil {
						n++
						if e.sl.ex.Request == nil || !slices.Contains(r.s.ord.h, e.sl) {
							t.Errorf("%s kept, not held", describe(e.sl.ex))
						}
					}
				}
			}
		}
		return n
	}
	for corr := int32(1); corr <= 200; corr++ {
		r.feed(c.send(true, reqFrame(opaqueKey, 1, corr, "cl", filler(50, byte(corr))))...)
		if corr%50 == 0 {
			if n := kept(); n != recentFrames {
				t.Errorf("%d frames kept with 50 requests waiting, want %d", n, recentFrames)
			}
			for k := corr - 49; k <= corr; k++ {
				r.feed(c.send(false, respFrame(k, filler(10, byte(k))))...)
			}
			if n := kept(); n != 0 {
				t.Errorf("%d frames kept with every exchange emitted", n)
			}
		}
	}
	r.close()
	if len(r.got) != 200 {
		t.Errorf("%d exchanges", len(r.got))
	}
}
