package dissect

import (
	"slices"
	"time"

	"github.com/gopacket/gopacket/layers"
)

// TCP reassembly: each direction of a connection is put back in sequence
// order and handed to its framer one segment at a time, as bytes and as
// holes. A hole is a run of the stream whose position and length TCP
// says, but whose bytes the capture lacks:
//
//   - bytes beyond the snap length: the packet's original length says how
//     many were cut, so the hole is known as soon as the packet is seen;
//   - segments not captured: the sequence numbers after them say where
//     they were. Out-of-order data waits for them (a retransmission, or a
//     packet the capture wrote late) until the receiver is seen to have
//     acknowledged the missing bytes (they will not be sent again) and
//     ackedHolePackets more packets of the connection came (or
//     ackedHoleGrace passed), or Options.ReorderWindow of capture
//     time, or the bytes waiting exceed maxQueuedPerConn; then they are
//     given up.
//
// Each segment handed over is one packet's payload (or the part of it not
// seen before), so the framer knows the packet of every byte without
// looking it up. Retransmitted bytes are dropped: the first copy seen is
// kept (a copy that differs is noted: retransmit.go). SYN, FIN and RST follow the receiver's rules (RFC 793, RFC 5961):
// a SYN on a synchronised direction carries no data, a RST counts only at
// the next expected sequence number, a FIN ends the direction once the
// data before it is in.

// Reassembly bounds. Out-of-order data is copied while it waits; past
// these bounds the oldest hole of the direction is given up.
const (
	maxQueuedPerConn = 8 << 20
	maxQueuedTotal   = 128 << 20
	maxQueuedSegs    = 4096
	// ackedHolePackets and ackedHoleGrace are how long a hole the
	// receiver acknowledged still waits, in packets of its connection and
	// in capture time, whichever comes first: packets captured on several
	// queues reach the file a little out of order, by a few packets; a
	// lost packet makes every segment after it wait (and be copied) for
	// that long.
	ackedHolePackets = 16
	ackedHoleGrace   = 20 * time.Millisecond
)

// tcpHalf is the reassembly state of one direction of a connection.
type tcpHalf struct {
	started bool
	closed  bool   // ended: FIN or RST reached, or closed by a flush
	next    uint32 // sequence number of the next byte to hand over
	pos     int64  // its stream offset (moved with next)
	fin     bool   // a FIN was seen ahead of next, ending the stream at finSeq
	finSeq  uint32
	// The direction's initial sequence number: its SYN's, or the one
	// before its first byte seen when the capture missed the SYN. A SYN
	// with another one is a new connection on the 4-tuple.
	isn uint32
	// midStream: the direction started without its SYN (picked up
	// mid-stream).
	midStream bool
	// held are the segments of a direction not started whose first
	// packet had no SYN, in capture order, while its SYN may still come
	// (before_syn.go). Their bytes count in queued.
	held     []segment
	heldPkts int64 // the connection's packet count at the first

	queue    []segment // segments beyond next, in sequence order
	queued   int       // their captured bytes
	minIdx   int64     // the smallest packet index in queue, when minValid
	minValid bool

	// The highest acknowledgment of this direction's bytes the other side
	// sent, and the capture time it was first seen beyond next (when
	// ackedAt is not zero).
	acked    uint32
	ackOK    bool
	ackedAt  time.Time
	ackedPkt int64 // the connection's packet count then (conn.pkts)
}

// segment is a TCP segment waiting for the bytes before it.
type segment struct {
	seq     uint32
	data    []byte // the captured payload (a copy)
	missing int    // bytes after data that the snap length cut
	fin     bool
	rst     bool // held only (before_syn.go): the queue keeps no RST
	ref     pktRef
	clock   time.Time // session clock when it arrived
}

func (s *segment) end() uint32 { return s.seq + uint32(len(s.data)+s.missing) }

// seqDiff is b - a in sequence space.
func seqDiff(a, b uint32) int32 { return int32(b - a) }

// minQueued returns the smallest packet index of the segments waiting, or
// noLow.
func (h *tcpHalf) minQueued() int64 {
	if len(h.queue) == 0 && len(h.held) == 0 {
		return noLow
	}
	if !h.minValid {
		h.minIdx = noLow
		for i := range h.queue {
			h.minIdx = min(h.minIdx, h.queue[i].ref.index)
		}
		if len(h.held) > 0 {
			h.minIdx = min(h.minIdx, h.held[0].ref.index) // capture order
		}
		h.minValid = true
	}
	return h.minIdx
}

// segment reassembles the TCP segment s.cur of the connection, sent in
// direction dir.
func (c *conn) segment(dir frameDir, tcp *layers.TCP, missing int, ref pktRef) {
	s := c.s
	c.touch()
	c.seen = s.clock
	c.pkts++
	// The packet is compared with the frames held for it, and ends
	// their hold: they are emitted after it (retransmit.go).
	c.hold[dir].on = false
	defer c.giveUpAckedByCount()
	if tcp.ACK {
		c.acknowledged(dir.other(), tcp.Ack)
	}
	if tcp.RST {
		c.rst[dir] = true
	}
	h := &c.tcp[dir]
	if len(c.tcp[dir.other()].held) > 0 && !tcp.SYN && (!h.started || h.midStream) {
		// Neither direction begins with a SYN: the connection began
		// before the capture, and no SYN will come for the other.
		c.release(dir.other())
	}
	if c.beforeSYN(dir, tcp, missing, ref) { // before_syn.go
		return
	}
	if tcp.SYN && (!tcp.ACK || dir == toClient) && h.started && tcp.Seq != h.isn {
		s.reused(c, dir, tcp, missing, ref)
		return
	}
	c.take(dir, segment{seq: tcp.Seq, data: tcp.Payload, missing: missing, fin: tcp.FIN, rst: tcp.RST, ref: ref, clock: s.clock}, tcp.SYN)
}

// take reassembles segment sg of direction dir (syn: it carries a SYN).
func (c *conn) take(dir frameDir, sg segment, syn bool) {
	h := &c.tcp[dir]
	if h.closed || c.done {
		return
	}
	seq := sg.seq
	switch {
	case !h.started:
		if syn {
			seq++ // the SYN takes a sequence number; data follows it
		}
		h.isn = seq - 1
		h.started, h.next, h.midStream = true, seq, !syn
		c.framer(dir, !syn) // a direction that starts without a SYN was picked up mid-stream
	case syn:
		return // a SYN on a synchronised direction: not stream data (RFC 5961)
	}
	n := len(sg.data) + sg.missing
	if n == 0 && !sg.fin && !sg.rst {
		return // an acknowledgment alone
	}
	d := seqDiff(h.next, seq)
	if sg.rst {
		if d == 0 {
			// The connection is aborted: neither side sends on it
			// any more (RFC 793 3.4), so it ends whole, and its
			// 4-tuple is free for the next connection.
			c.endHalf(dir, true)
			c.endHalf(dir.other(), false)
		}
		return // anywhere else the receiver drops it (RFC 5961)
	}
	if d > 0 {
		if n > 0 || sg.fin {
			sg.seq = seq
			c.enqueue(dir, sg)
		}
		return
	}
	if d < 0 && len(sg.data) > 0 {
		c.retransmitted(dir, seq, sg.data) // retransmit.go
	}
	if end := seq + uint32(n); seqDiff(h.next, end) < 0 || seqDiff(h.next, end) == 0 && !sg.fin {
		c.s.d.stats.Retransmitted++ // nothing new
		return
	}
	c.hand(dir, sg.data, sg.missing, int(-d), sg.ref)
	if sg.fin {
		c.endHalf(dir, true)
		return
	}
	c.drain(dir)
}

// acknowledged notes an acknowledgment of direction dir's bytes up to ack.
func (c *conn) acknowledged(dir frameDir, ack uint32) {
	h := &c.tcp[dir]
	if !h.ackOK || seqDiff(h.acked, ack) > 0 {
		h.acked, h.ackOK = ack, true
	}
	c.holdAcked(dir, ack)
	if h.started && len(h.queue) > 0 && h.ackedAt.IsZero() && seqDiff(h.next, h.acked) > 0 {
		// The receiver has the bytes at next, which the capture lacks:
		// they will not be sent again.
		c.ackedNow(dir)
	}
}

// ackedNow notes that the hole before the first segment waiting in
// direction dir was acknowledged by the receiver.
func (c *conn) ackedNow(dir frameDir) {
	h := &c.tcp[dir]
	h.ackedAt, h.ackedPkt = c.s.clock, c.pkts
	c.s.acked = append(c.s.acked, ackedHole{c, dir, h.ackedAt})
}

// giveUpAckedByCount gives up the holes acknowledged ackedHolePackets
// packets of the connection ago.
func (c *conn) giveUpAckedByCount() {
	for d := range c.tcp {
		h := &c.tcp[d]
		for !c.done && !h.closed && len(h.queue) > 0 && !h.ackedAt.IsZero() && c.pkts-h.ackedPkt >= ackedHolePackets {
			h.ackedAt = time.Time{}
			c.giveUpHole(frameDir(d))
		}
	}
}

// hand gives the framer a segment's bytes after skip bytes already handed
// over: its captured payload, then the hole the snap length left.
func (c *conn) hand(dir frameDir, data []byte, missing, skip int, ref pktRef) {
	h := &c.tcp[dir]
	if skip >= len(data) {
		missing -= skip - len(data)
		data = nil
	} else {
		data = data[skip:]
	}
	if !c.tlsChecked && len(data) > 0 {
		c.tlsChecked = true
		c.maybeTLS(dir, data, ref)
	}
	c.s.loc.ref = ref
	if t := c.tls; t != nil {
		if len(data) > 0 {
			t.feed(dir, data)
		}
		if missing > 0 {
			t.hole(dir, int64(missing), HoleSnapLength)
		}
	} else {
		fr := c.fr[dir]
		if len(data) > 0 {
			fr.feed(data, &c.s.loc)
		}
		if missing > 0 {
			fr.hole(int64(missing), HoleSnapLength)
		}
	}
	if missing > 0 {
		c.s.d.stats.SnapBytes += int64(missing)
	}
	h.next += uint32(len(data) + missing)
	h.pos += int64(len(data) + missing)
}

// enqueue keeps a segment beyond the next expected byte.
func (c *conn) enqueue(dir frameDir, sg segment) {
	h := &c.tcp[dir]
	s := c.s
	i, found := slices.BinarySearchFunc(h.queue, sg.seq, func(q segment, seq uint32) int { return int(seqDiff(seq, q.seq)) })
	if found && h.queue[i].end() == sg.end() && h.queue[i].fin == sg.fin {
		s.d.stats.Retransmitted++ // a copy of a segment waiting
		if d := countDiff(h.queue[i].data, sg.data); d > 0 {
			c.differingCopy(dir, d, min(len(h.queue[i].data), len(sg.data)))
		}
		return
	}
	sg.data = s.keep(sg.data)
	h.queue = slices.Insert(h.queue, i, sg)
	h.queued += len(sg.data)
	s.queued += len(sg.data)
	if h.minValid {
		h.minIdx = min(h.minIdx, sg.ref.index)
	}
	if sg.fin {
		h.fin, h.finSeq = true, sg.end()
	}
	for len(h.queue) > 0 && (h.queued > maxQueuedPerConn || len(h.queue) > maxQueuedSegs || s.queued > maxQueuedTotal) {
		c.giveUpHole(dir)
	}
}

// drain hands over the segments waiting that the stream has reached.
func (c *conn) drain(dir frameDir) {
	h := &c.tcp[dir]
	k := 0
	for k < len(h.queue) && !h.closed && seqDiff(h.next, h.queue[k].seq) <= 0 {
		sg := &h.queue[k]
		k++
		if e := seqDiff(h.next, sg.end()); e > 0 {
			c.hand(dir, sg.data, sg.missing, int(seqDiff(sg.seq, h.next)), sg.ref)
		}
	}
	if k > 0 {
		for i := range h.queue[:k] {
			h.queued -= len(h.queue[i].data)
			c.s.queued -= len(h.queue[i].data)
		}
		clear(h.queue[:k])
		h.queue = h.queue[k:]
		if len(h.queue) == 0 {
			h.queue = nil
		}
		h.minValid = false
		h.ackedAt = time.Time{}
		c.s.d.stats.Reordered += int64(k)
	}
	if h.fin && !h.closed && seqDiff(h.next, h.finSeq) <= 0 {
		c.endHalf(dir, true)
		return
	}
	if len(h.queue) > 0 && h.ackOK && seqDiff(h.next, h.acked) > 0 {
		c.ackedNow(dir) // the next hole was acknowledged already
	}
}

// giveUpHole gives up the hole before the first segment waiting: its bytes
// are a hole for the framer, and the segments after it are handed over.
func (c *conn) giveUpHole(dir frameDir) {
	h := &c.tcp[dir]
	if len(h.queue) == 0 {
		return
	}
	if gap := seqDiff(h.next, h.queue[0].seq); gap > 0 {
		if c.tls != nil {
			c.tls.hole(dir, int64(gap), HoleNotCaptured)
		} else {
			c.fr[dir].hole(int64(gap), HoleNotCaptured)
		}
		h.next = h.queue[0].seq
		h.pos += int64(gap)
		c.s.d.stats.Holes++
		c.s.d.stats.HoleBytes += int64(gap)
	}
	c.drain(dir)
}

// flushHalf gives up the holes of direction dir before segments that
// arrived before older, and reports whether it did.
func (c *conn) flushHalf(dir frameDir, older time.Time) bool {
	h := &c.tcp[dir]
	released := h.heldSince(older)
	if released {
		c.release(dir) // its SYN did not come within the window
	}
	last := -1 // the last segment waiting since before older
	for i := range h.queue {
		if h.queue[i].clock.Before(older) {
			last = i
		}
	}
	if last < 0 {
		return released
	}
	end := h.queue[last].end()
	for !h.closed && len(h.queue) > 0 && seqDiff(h.next, end) > 0 {
		c.giveUpHole(dir)
	}
	return true
}

// flushAll hands over everything waiting, holes and all.
func (c *conn) flushAll() {
	c.releaseHeld()
	for d := range c.tcp {
		for h := &c.tcp[d]; !h.closed && len(h.queue) > 0; {
			c.giveUpHole(frameDir(d))
		}
	}
}

// endHalf ends direction dir: by its FIN or RST (fin), or by a flush.
// The connection ends once both directions have.
func (c *conn) endHalf(dir frameDir, fin bool) {
	h := &c.tcp[dir]
	if len(h.held) > 0 {
		c.release(dir) // picked up mid-stream after all
	}
	if h.closed {
		return
	}
	h.closed = true
	for i := range h.queue {
		c.s.queued -= len(h.queue[i].data)
	}
	h.queue, h.queued, h.minValid = nil, 0, false
	if fin && !c.ended[dir] {
		c.directionEnded(dir)
	}
	if c.tcp[dir.other()].closed {
		c.complete()
	}
}

func (d frameDir) other() frameDir { return 1 - d }

// queueArena is the size of the chunks out-of-order segments are copied
// into: one allocation for many segments (a lost packet makes every
// segment after it wait for a while).
const queueArena = 256 << 10

// keep copies b for a segment that waits, into the session's arena.
func (s *Session) keep(b []byte) []byte {
	if len(b) > queueArena/4 {
		return append([]byte(nil), b...)
	}
	if cap(s.arena)-len(s.arena) < len(b) {
		s.arena = make([]byte, 0, queueArena)
	}
	n := len(s.arena)
	s.arena = append(s.arena, b...)
	return s.arena[n:len(s.arena):len(s.arena)]
}
