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
			i := slices.IndexFunc(e.Notes, func(n string) bool { return strings.Contains(n, "differs from the first copy") })
			st := r.d.Stats()
			if tc.differ == 0 {
				if i >= 0 || st.RetransmittedDiffering != 0 {
					t.Errorf("notes %q, RetransmittedDiffering %d", e.Notes, st.RetransmittedDiffering)
				}
				return
			}
			if i < 0 || !strings.Contains(e.Notes[i], fmt.Sprintf(": %d of ", tc.differ)) || st.RetransmittedDiffering != 1 || st.RetransmittedDifferingBytes != int64(tc.differ) {
				t.Errorf("notes %q, RetransmittedDiffering %d (%d bytes), want %d bytes", e.Notes, st.RetransmittedDiffering, st.RetransmittedDifferingBytes, tc.differ)
			}
		})
	}
}
