package dissect

import (
	"bytes"
	"fmt"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/kdissect/kdissect/internal/capgen"
)

// flood hands to s n one-packet flows to broker, each from its own
// spoofed client address and without a handshake (capgen.WriteFlood),
// 10 µs apart from start; it returns the capture time of the last.
func flood(t *testing.T, s *Session, n int, broker netip.AddrPort, start time.Time) time.Time {
	const step = 10 * time.Microsecond
	var b bytes.Buffer
	if err := capgen.WriteFlood(&b, n, broker, start, step); err != nil {
		t.Fatal(err)
	}
	eachPacket(t, b.Bytes(), func(data []byte, ci gopacket.CaptureInfo, link layers.LinkType) { s.Packet(link, data, ci) })
	return start.Add(time.Duration(n-1) * step)
}

// handshakes opens n connections to port 9092, from ports 40000 on, with
// their handshakes.
func (r *streamRun) handshakes(n int, clock *time.Time) []*tcpConn {
	var cs []*tcpConn
	for i := range n {
		c := newConn(r.t, ethernet, uint16(40000+i), 9092, clock)
		cs = append(cs, c)
		r.feed(c.handshake()...)
	}
	return cs
}

// exchangeValues is what an exchange says, but for what depends on the
// traffic around it: its stream number, packet indices and times.
func exchangeValues(t *testing.T, ex *Exchange) string {
	t.Helper()
	NewDecoder(DecodeOptions{}).Decode(ex)
	latency, _ := ex.Latency()
	var b strings.Builder
	fmt.Fprintf(&b, "%v→%v key %d v%d corr %d latency %v no-response %v notes %q", ex.Client, ex.Broker, ex.APIKey, ex.APIVersion, ex.CorrelationID, latency, ex.NoResponse, ex.Notes)
	if ex.ClientID != nil {
		fmt.Fprintf(&b, " client %q", *ex.ClientID)
	}
	for _, f := range []*Frame{ex.Request, ex.Response} {
		if f != nil {
			fmt.Fprintf(&b, " frame %x holes %v", f.Bytes, f.Holes)
		}
	}
	return b.String()
}

// TestFloodDoesNotStarveHandshakes: 100 001 one-packet flows without a
// handshake, from spoofed addresses, fill the connection table; a real
// capture (kcat producing, three connections each opening with a SYN)
// 1 s or 60 s later (within the idle timeout, when the flows are still
// open) is dissected as it is alone. Its connections evict a flow each
// (but one that takes the place a closed one left), as the 100 001st flow
// evicts the first; that is counted and said.
func TestFloodDoesNotStarveHandshakes(t *testing.T) {
	if testing.Short() {
		t.Skip("100 001 flows")
	}
	capture := readTestCapture(t, "kcat_produce_lz4.pcap")
	clean := New(Options{})
	var want []*Exchange
	if err := clean.ReadCapture(bytes.NewReader(capture), func(ex *Exchange) { want = append(want, ex) }); err != nil {
		t.Fatal(err)
	}
	// Each connection open at once in the capture alone evicts a flow
	// (kcat's three open one after the other).
	realConns, realOpen := clean.Stats().Connections, clean.Stats().PeakOpenConnections
	if len(want) == 0 || realOpen == 0 {
		t.Fatalf("%d exchanges, %d connections open at once in the clean capture", len(want), realOpen)
	}
	broker := want[0].Broker
	n := DefaultMaxConnections + 1
	for _, delay := range []time.Duration{time.Second, time.Minute} {
		t.Run(delay.String(), func(t *testing.T) {
			d := New(Options{})
			var got []*Exchange
			s := d.NewSession(func(ex *Exchange) { got = append(got, ex) })
			last := flood(t, s, n, broker, testClock())
			var first time.Time
			eachPacket(t, capture, func(data []byte, ci gopacket.CaptureInfo, link layers.LinkType) {
				if first.IsZero() {
					first = ci.Timestamp
				}
				ci.Timestamp = last.Add(delay + ci.Timestamp.Sub(first))
				s.Packet(link, data, ci)
			})
			s.Close()
			if len(got) != len(want) {
				t.Fatalf("%d exchanges, want %d as in the capture alone", len(got), len(want))
			}
			for i := range want {
				if g, w := exchangeValues(t, got[i]), exchangeValues(t, want[i]); g != w {
					t.Errorf("exchange %d:\n got %s\nwant %s", i, g, w)
				}
				if !reflect.DeepEqual(got[i].Decoded.Request, want[i].Decoded.Request) || !reflect.DeepEqual(got[i].Decoded.Response, want[i].Decoded.Response) {
					t.Errorf("exchange %d decodes otherwise than in the capture alone", i)
				}
			}
			st := d.Stats()
			if st.ConnEvicted != int64(1+realOpen) || st.ConnLimit != 0 || st.Connections != n+realConns {
				t.Errorf("evicted %d, want %d; refused packets %d, want 0; connections %d, want %d", st.ConnEvicted, 1+realOpen, st.ConnLimit, st.Connections, n+realConns)
			}
			if !slices.ContainsFunc(st.Problems, func(p string) bool { return strings.Contains(p, "evicted") }) {
				t.Errorf("problems %q do not say connections were evicted", st.Problems)
			}
			if st.PeakOpenConnections != DefaultMaxConnections {
				t.Errorf("peak open connections %d, want %d", st.PeakOpenConnections, DefaultMaxConnections)
			}
		})
	}
}

// Handshake-less flows do not evict connections that showed more: a
// handshake, packets both ways. Those keep their exchanges whole, the
// flows' packets are refused, counted and said.
func TestFloodKeepsHandshakedConnections(t *testing.T) {
	clock := testClock()
	r := newStreamRun(t, Options{MaxConnections: 4})
	cs := r.handshakes(4, &clock)
	for _, c := range cs {
		r.feed(c.send(true, reqFrame(18, 3, 1, "x", nil))...)
		r.feed(c.send(false, respFrame(1, nil))...)
	}
	flood(t, r.s, 100, cs[0].broker, clock)
	clock = clock.Add(time.Second)
	for _, c := range cs {
		r.feed(c.send(true, reqFrame(18, 3, 2, "x", nil))...)
		r.feed(c.send(false, respFrame(2, nil))...)
	}
	r.close()
	st := r.d.Stats()
	if len(r.got) != 8 || st.ConnEvicted != 0 || st.ConnLimit != 100 {
		t.Errorf("%d exchanges, want 8; evicted %d, refused packets %d, want 0 and 100", len(r.got), st.ConnEvicted, st.ConnLimit)
	}
	for _, e := range r.got {
		if e.Response == nil || len(e.Notes) > 0 {
			t.Errorf("%s", describe(e))
		}
	}
	if !slices.ContainsFunc(st.Problems, func(p string) bool { return strings.Contains(p, "not dissected") }) {
		t.Errorf("problems %q do not say packets were refused", st.Problems)
	}
}

// A connection picked up without its handshake, seen one way only, makes
// room for one that opens with a SYN: its request waiting completes with
// a note saying why, and when it comes back (once there is room) it keeps
// its stream number.
func TestEvictedConnectionNoted(t *testing.T) {
	clock := testClock()
	r := newStreamRun(t, Options{MaxConnections: 2})
	oneWay := newConn(t, ethernet, 40000, 9092, &clock)
	r.feed(oneWay.send(true, reqFrame(opaqueKey, 3, 7, "x", nil))...)
	full := newConn(t, ethernet, 40001, 9092, &clock)
	r.feed(full.handshake()...)
	r.feed(full.send(true, reqFrame(18, 3, 1, "x", nil))...)
	r.feed(full.send(false, respFrame(1, nil))...)
	syn := newConn(t, ethernet, 40002, 9092, &clock)
	r.feed(syn.handshake()...)
	r.feed(syn.send(true, reqFrame(18, 3, 1, "x", nil))...)
	r.feed(syn.send(false, respFrame(1, nil))...)
	r.feed(full.close()...)
	r.feed(oneWay.send(true, reqFrame(opaqueKey, 3, 8, "x", nil))...)
	r.feed(oneWay.send(false, respFrame(8, nil))...)
	r.close()
	st := r.d.Stats()
	if st.ConnEvicted != 1 || st.ConnLimit != 0 {
		t.Errorf("evicted %d, refused packets %d, want 1 and 0", st.ConnEvicted, st.ConnLimit)
	}
	var evicted, back *Exchange
	for _, e := range r.got {
		switch {
		case e.Stream == 0 && e.CorrelationID == 7:
			evicted = e
		case e.CorrelationID == 8:
			back = e
		}
	}
	if evicted == nil || evicted.NoResponse != ConnectionEvicted || !slices.ContainsFunc(evicted.Notes, func(n Note) bool { return n.Kind == NoteNoResponse && strings.Contains(n.Text, "evicted") }) {
		for _, e := range r.got {
			t.Log(describe(e))
		}
		t.Fatalf("no exchange of the evicted connection with its note")
	}
	if back == nil || back.Stream != 0 || back.Response == nil {
		t.Errorf("the evicted connection back: %v", back)
	}
}

// The evidence a connection shows: a SYN, then packets both ways, then
// the client's ACK of the broker's SYN-ACK; an ACK of a sequence number
// the broker did not send (a blind spoofer's guess) completes nothing.
// Among flows of equal evidence, the one silent longest is evicted.
func TestConnectionEvidence(t *testing.T) {
	clock := testClock()
	r := newStreamRun(t, Options{MaxConnections: 2})
	rank := func(c *tcpConn) evidence {
		t.Helper()
		k := r.s.flows[flowKeyOf(c.client, c.broker)]
		if k == nil {
			return 255
		}
		return k.entry.rank
	}
	c := newConn(t, ethernet, 40000, 9092, &clock)
	steps := []struct {
		p    synthPacket
		want evidence
	}{
		{c.packet(true, fSYN, nil), evSYN},
		{c.packet(false, fSYN|fACK, nil), evSYN | evBothWays},
		{c.raw(c.client, c.broker, c.cseq, c.bseq+1000, fACK, nil), evSYN | evBothWays}, // acknowledges what was not sent
		{c.packet(true, fACK, nil), evSYN | evBothWays | evHandshake},
	}
	for i, s := range steps {
		r.feed(s.p)
		if got := rank(c); got != s.want {
			t.Errorf("after packet %d: evidence %04b, want %04b", i, got, s.want)
		}
	}
	r.feed(c.send(true, reqFrame(18, 3, 1, "x", nil))...)
	if got, want := rank(c), evSYN|evBothWays|evHandshake|evFrame; got != want {
		t.Errorf("after a request: evidence %04b, want %04b", got, want)
	}
	r.feed(c.close()...)

	a, b, n := newConn(t, ethernet, 41000, 9092, &clock), newConn(t, ethernet, 41001, 9092, &clock), newConn(t, ethernet, 41002, 9092, &clock)
	r.feed(a.packet(true, fACK|fPSH, []byte{0, 0}), b.packet(true, fACK|fPSH, []byte{0, 0}), a.packet(true, fACK|fPSH, []byte{1, 0}))
	r.feed(n.packet(true, fACK|fPSH, []byte{0, 0}))
	if rank(a) != 0 || rank(n) != 0 || rank(b) != 255 || r.d.Stats().ConnEvicted != 1 {
		t.Errorf("evidence of a %d, b %d, the newcomer %d (255: not open); evicted %d: want b, silent longest, evicted", rank(a), rank(b), rank(n), r.d.Stats().ConnEvicted)
	}
	r.close()
}
