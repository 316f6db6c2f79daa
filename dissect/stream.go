package dissect

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/reassembly"
)

// Reassembly buffer bounds. Out-of-order data waits in 1900-byte pages for
// the bytes before it; past these limits reassembly gives up waiting and
// reports the missing bytes as skipped (a gap). 4096 pages is about 7.4 MiB
// per connection, more than a TCP window, so a late retransmission still
// arrives in time; the total bounds memory across many broken connections.
// Options.ReorderWindow bounds the wait in capture time.
const (
	maxPagesPerConn = 4096
	maxPagesTotal   = 65536
)

const (
	// ctxSlabSize is how many packet contexts one allocation holds.
	ctxSlabSize = 256
	// invalidSeq is reassembly's nextSeq for a direction not started yet.
	invalidSeq = reassembly.Sequence(-1)
	// maxHeldSegs bounds the held segments tracked per direction; beyond,
	// new ones merge into the last (which only delays emission).
	maxHeldSegs = 1024
)

// pktCtx is the reassembly.AssemblerContext of one packet. Reassembly keeps
// it with every byte it buffers, and ScatterGather.CaptureInfo(offset)
// returns its CaptureInfo, whose AncillaryData[0] points back to it: that is
// how a frame learns the packet of its first byte.
//
// Its CaptureInfo.Timestamp is the session clock (the newest capture time
// so far), not the packet's own time: reassembly flushes and closes by
// those timestamps, and the clock never goes backwards, so "older than T"
// means "before some packet" even when the capture's timestamps do not.
// The packet's own time is in ref.
type pktCtx struct {
	ci   gopacket.CaptureInfo
	ref  pktRef
	self [1]any
}

func (c *pktCtx) GetCaptureInfo() gopacket.CaptureInfo { return c.ci }

// newCtx returns the context of packet idx. Contexts are cut from slabs so a
// packet costs no allocation of its own; a slab lives while reassembly holds
// any of its contexts.
func (s *Session) newCtx(ts time.Time, idx int64, clock time.Time) *pktCtx {
	if len(s.slab) == 0 {
		s.slab = make([]pktCtx, ctxSlabSize)
	}
	c := &s.slab[0]
	s.slab = s.slab[1:]
	c.ref = pktRef{index: idx, time: ts.UnixNano(), seq: s.cur.TCP.Seq, ack: s.cur.TCP.Ack, tcp: true, ackOK: s.cur.TCP.ACK}
	c.ci.Timestamp = clock
	c.self[0] = c
	c.ci.AncillaryData = c.self[:]
	return c
}

// flowKey names a TCP connection whichever way its packets go.
type flowKey struct{ a, b netip.AddrPort }

func flowKeyOf(x, y netip.AddrPort) flowKey {
	if x.Compare(y) > 0 {
		x, y = y, x
	}
	return flowKey{x, y}
}

// heldList tracks the segments of one direction that reassembly queued
// behind a hole, to know the smallest packet index whose bytes reassembly
// may still deliver. It follows reassembly's next expected sequence number:
// Accept tells it, and each delivery advances it; a segment ending at or
// before it was delivered (or overlapped, and dropped).
type heldList struct {
	next  reassembly.Sequence
	known bool
	segs  []heldSeg
}

type heldSeg struct {
	end   reassembly.Sequence // sequence number after its last byte
	pkt   int64               // packet index
	clock time.Time           // session clock when it arrived
}

// accept notes a segment reassembly is about to take: nextSeq is where the
// direction stands. A segment beyond it will be queued.
func (h *heldList) accept(nextSeq, seq reassembly.Sequence, n int, pkt int64, clock time.Time) {
	if nextSeq == invalidSeq {
		return // the first segment: reassembly starts there
	}
	h.next, h.known = nextSeq, true
	h.prune()
	if n == 0 || nextSeq.Difference(seq) <= 0 {
		return
	}
	end := seq.Add(n)
	if len(h.segs) >= maxHeldSegs {
		last := &h.segs[len(h.segs)-1]
		if last.end.Difference(end) > 0 {
			last.end = end
		}
		last.pkt = min(last.pkt, pkt)
		// The merged entry must outlive its newest bytes: a flush drops
		// entries by the time they arrived.
		if clock.After(last.clock) {
			last.clock = clock
		}
		return
	}
	h.segs = append(h.segs, heldSeg{end: end, pkt: pkt, clock: clock})
}

// delivered notes that reassembly handed over n bytes after skipping skip
// (-1: an unknown number).
func (h *heldList) delivered(skip, n int) {
	if !h.known {
		return
	}
	if skip < 0 {
		h.known = false
		return
	}
	h.next = h.next.Add(skip + n)
	h.prune()
}

func (h *heldList) prune() {
	k := 0
	for _, s := range h.segs {
		if h.next.Difference(s.end) > 0 {
			h.segs[k] = s
			k++
		}
	}
	clear(h.segs[k:])
	h.segs = h.segs[:k]
}

// flushedBefore drops segments that arrived before t: a flush with that
// threshold delivered them (or gave them up).
func (h *heldList) flushedBefore(t time.Time) bool {
	k := 0
	for _, s := range h.segs {
		if !s.clock.Before(t) {
			h.segs[k] = s
			k++
		}
	}
	changed := k != len(h.segs)
	clear(h.segs[k:])
	h.segs = h.segs[:k]
	return changed
}

func (h *heldList) min() int64 {
	low := int64(noLow)
	for _, s := range h.segs {
		low = min(low, s.pkt)
	}
	return low
}

// closedConn remembers a connection after it ended: a FIN/RST-closed one
// so that its last ACKs and retransmissions do not open a new stream (a
// new SYN does), an idle-flushed one so that, when it wakes up, it keeps
// its stream number.
type closedConn struct {
	stream int
	idle   bool
	clock  time.Time
}

// How long a closed connection is remembered, in capture time: TIME_WAIT's
// length for a closed one, long enough for a Kafka client's idle
// connection to wake up (brokers close them after 10 minutes) for an idle
// one.
const (
	closedMemory  = time.Minute
	dormantMemory = 30 * time.Minute
)

type closedEntry struct {
	key   flowKey
	clock time.Time
}

// streamFactory makes a tcpStream for every new connection reassembly sees.
type streamFactory struct{ s *Session }

// New returns the stream of a new connection, or nil to leave it out: a
// connection closed moments ago (the packet is a straggler) or one beyond
// Options.MaxConnections.
func (f streamFactory) New(netFlow, tcpFlow gopacket.Flow, tcp *layers.TCP, ac reassembly.AssemblerContext) reassembly.Stream {
	s := f.s
	st := &s.d.stats
	src, dst := s.cur.Src, s.cur.Dst // the packet being assembled
	key := flowKeyOf(src, dst)
	stream := -1
	if cl, ok := s.closed[key]; ok {
		switch {
		case tcp.SYN:
			delete(s.closed, key) // the 4-tuple is reused
		case cl.idle:
			delete(s.closed, key)
			stream = cl.stream // it woke up
		default:
			st.AfterClose++
			return nil
		}
	}
	if s.open >= s.d.lim.connections {
		st.ConnLimit++
		s.problem(fmt.Sprintf("more than %d connections open at once: packets of the others not dissected", s.d.lim.connections))
		return nil
	}
	srcK, dstK := s.brokers.has(src), s.brokers.has(dst)
	var dstIsBroker bool
	switch {
	case dstK && !srcK:
		dstIsBroker = true
	case srcK && !dstK:
		dstIsBroker = false
	case tcp.SYN:
		// Both ends on Kafka ports: the SYN goes to the broker, the
		// SYN-ACK comes from it.
		dstIsBroker = !tcp.ACK
	default:
		dstIsBroker = dst.Port() <= src.Port()
	}
	if stream < 0 {
		stream = s.d.nextStream
		s.d.nextStream++
		st.Connections++
	}
	client, broker := dst, src
	if dstIsBroker {
		client, broker = src, dst
	}
	c := newKafkaConn(s, stream, client, broker)
	s.conns[c] = struct{}{}
	s.open++
	s.d.stats.PeakOpenConnections = max(s.d.stats.PeakOpenConnections, s.open)
	return &tcpStream{c: c, key: key, firstToBroker: dstIsBroker}
}

// connDone forgets a connection that ended.
func (s *Session) connDone(c *conn) {
	if _, ok := s.conns[c]; !ok {
		return
	}
	delete(s.conns, c)
	s.open--
	s.lows.set(&c.blocker, noLow)
}

// remember keeps a closed connection's 4-tuple for a while.
func (s *Session) remember(key flowKey, stream int, idle bool) {
	if s.ending {
		return
	}
	s.closed[key] = closedConn{stream: stream, idle: idle, clock: s.clock}
	q := &s.closedQ
	if idle {
		q = &s.dormantQ
	}
	*q = append(*q, closedEntry{key, s.clock})
	if len(*q) > s.d.lim.connections {
		s.forget(q) // bounded like the connections themselves
	}
}

// expireClosed forgets the closed connections remembered long enough.
func (s *Session) expireClosed() {
	for _, e := range []struct {
		q   *[]closedEntry
		ttl time.Duration
	}{{&s.closedQ, closedMemory}, {&s.dormantQ, dormantMemory}} {
		for len(*e.q) > 0 && s.clock.Sub((*e.q)[0].clock) >= e.ttl {
			s.forget(e.q)
		}
	}
}

// forget drops the oldest entry of q (entries are in clock order), unless
// the 4-tuple was remembered again since.
func (s *Session) forget(q *[]closedEntry) {
	e := (*q)[0]
	(*q)[0] = closedEntry{}
	*q = (*q)[1:]
	if cl, ok := s.closed[e.key]; ok && cl.clock.Equal(e.clock) {
		delete(s.closed, e.key)
	}
}

// tcpStream receives one connection's reassembled bytes from reassembly.
type tcpStream struct {
	c   *conn
	key flowKey
	// firstToBroker says whether the connection's first packet went
	// client→broker; reassembly's TCPDirClientToServer is that direction.
	firstToBroker bool
	sg            reassembly.ScatterGather // during ReassembledSG, for at
	cur           pktRef                   // the packet being assembled
}

func (t *tcpStream) dir(d reassembly.TCPFlowDirection) frameDir {
	if (d == reassembly.TCPDirClientToServer) == t.firstToBroker {
		return toBroker
	}
	return toClient
}

// Accept takes every packet. A direction whose first packet is not a SYN
// was picked up mid-stream: reassembly is told to start there anyway, and
// its framer starts by looking for a frame boundary. A segment beyond the
// next expected byte will be queued: it is tracked until delivered.
func (t *tcpStream) Accept(tcp *layers.TCP, ci gopacket.CaptureInfo, dir reassembly.TCPFlowDirection, nextSeq reassembly.Sequence, start *bool, ac reassembly.AssemblerContext) bool {
	c := t.c
	d := t.dir(dir)
	if nextSeq == invalidSeq {
		c.framer(d, !tcp.SYN)
		*start = true
	}
	if tcp.RST {
		c.rst[d] = true
	}
	if !c.done && !c.ended[d] && !tcp.RST {
		if pc, ok := ac.(*pktCtx); ok {
			c.held[d].accept(nextSeq, reassembly.Sequence(tcp.Seq), len(tcp.Payload), pc.ref.index, pc.ci.Timestamp)
		}
	}
	c.touch()
	return true
}

func (t *tcpStream) ReassembledSG(sg reassembly.ScatterGather, ac reassembly.AssemblerContext) {
	c := t.c
	if c.done {
		return
	}
	d, _, end, skip := sg.Info()
	dir := t.dir(d)
	n, _ := sg.Lengths()
	c.held[dir].delivered(skip, n)
	c.touch()
	if !c.ended[dir] {
		fr := c.framer(dir, true)
		if skip > 0 || (skip < 0 && fr.pos > 0) {
			fr.gap(int64(skip))
		}
		if n > 0 {
			if pc, ok := ac.(*pktCtx); ok {
				t.cur = pc.ref
			}
			t.sg = sg
			fr.feed(sg.Fetch(n), t)
			t.sg = nil
		}
	}
	if end && !c.ended[dir] {
		c.directionEnded(dir)
	}
}

// at returns the packet that carried byte off of the chunk being framed.
func (t *tcpStream) at(off int) pktRef {
	ci := t.sg.CaptureInfo(off)
	if len(ci.AncillaryData) > 0 {
		if c, ok := ci.AncillaryData[0].(*pktCtx); ok {
			return c.ref
		}
	}
	return t.cur
}

// ReassemblyComplete ends the connection once both directions closed (FIN,
// RST, an idle flush or the end of the capture) and lets reassembly forget
// it. Its 4-tuple is remembered for a while (Session.remember).
func (t *tcpStream) ReassemblyComplete(ac reassembly.AssemblerContext) bool {
	c := t.c
	if c.done {
		return true
	}
	why := c.s.closing
	if why == ResponseSeen {
		why = ConnectionClosed // inside assembly: a FIN or RST
	}
	c.finish(why)
	idle := why == ConnectionIdle && !c.ended[toBroker] && !c.ended[toClient]
	c.s.remember(t.key, c.stream, idle)
	return true
}
