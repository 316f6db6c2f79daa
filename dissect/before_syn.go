package dissect

import (
	"time"

	"github.com/gopacket/gopacket/layers"
)

// A packet written before its connection's SYN: a NIC that stamps its
// receive queues apart can put a response in the file, and in time,
// before the handshake of its own connection. Picked up mid-stream at
// once, the broker's direction would start at that packet's sequence
// number, and the SYN-ACK that comes next, with another initial sequence
// number, would look like a new connection on the 4-tuple: the early
// response would stand alone, and the rest of the connection be cut
// from it.
//
// So the broker's direction, when its first packet carries data and no
// SYN while the client's direction has not shown that the connection
// began before the capture (a packet of its own without a SYN), holds
// its segments back, in capture order, as a response framed before its
// request waits (conn.requestMayCome), and as long at most. Its SYN-ACK
// starts it then: when the held bytes lie in the stream the SYN-ACK
// begins (after it, within maxSYNAhead; no FIN or RST among them; their
// acknowledgments after the client's SYN) and came within
// Options.ReorderWindow, they are reassembled at their place, as any
// segment written early is; otherwise they end an earlier connection on
// the 4-tuple, picked up mid-stream, and the SYN-ACK starts a new one.
// Without a SYN-ACK, the direction is picked up mid-stream, from the
// held packets, as soon as the client's direction starts without a SYN,
// or after unbegunPackets packets of the connection,
// Options.ReorderWindow of capture time, as many bytes as reassembly
// queues (maxQueuedPerConn), or when the connection ends.
//
// The client's direction does not wait: requests held back would hold
// the output back while no response comes (a client's side captured
// alone); a request written before its SYN is picked up mid-stream.

// maxSYNAhead is how far after its direction's SYN a segment written
// before it may be: a quarter of the sequence space, more than a
// connection sends within any reorder window, while the bytes of an
// earlier connection on the 4-tuple fall outside it three times out of
// four (and a FIN or RST among them, or an acknowledgment outside the
// other direction's stream, tells most of the rest).
const maxSYNAhead = 1 << 30

// beforeSYN takes a packet of direction dir while the direction may still
// see its SYN, and reports whether it did: held back, or the SYN that
// starts the direction with the held bytes in place. The caller
// reassembles the packets it does not take.
func (c *conn) beforeSYN(dir frameDir, tcp *layers.TCP, missing int, ref pktRef) bool {
	h := &c.tcp[dir]
	if h.started || h.closed || c.done {
		return false
	}
	if len(h.held) == 0 {
		if dir != toClient || tcp.SYN || len(tcp.Payload)+missing == 0 || !c.synMayCome(dir) {
			return false
		}
		h.heldPkts = c.pkts
	}
	if tcp.SYN {
		if (!tcp.ACK || dir == toClient) && c.heldInStream(dir, tcp) {
			c.take(dir, segment{seq: tcp.Seq, data: tcp.Payload, missing: missing, fin: tcp.FIN, ref: ref, clock: c.s.clock}, true)
			c.release(dir)
			return true
		}
		c.release(dir) // then the SYN is a new connection's, or nonsense
		return false
	}
	s := c.s
	sg := segment{seq: tcp.Seq, data: s.keep(tcp.Payload), missing: missing, fin: tcp.FIN, rst: tcp.RST, ref: ref, clock: s.clock}
	h.held = append(h.held, sg)
	h.queued += len(sg.data)
	s.queued += len(sg.data)
	if h.minValid {
		h.minIdx = min(h.minIdx, ref.index)
	}
	if c.pkts-h.heldPkts >= unbegunPackets || h.queued > maxQueuedPerConn || len(h.held) > maxQueuedSegs || s.queued > maxQueuedTotal {
		c.release(dir)
	}
	return true
}

// synMayCome reports whether direction dir, not started, may still see
// its SYN: the other direction did not start without one.
func (c *conn) synMayCome(dir frameDir) bool {
	o := &c.tcp[dir.other()]
	return !(o.started && o.midStream) && len(o.held) == 0 && !c.s.ending
}

// heldInStream reports whether the bytes held in direction dir belong to
// the stream that SYN tcp begins: each segment after the SYN, within
// maxSYNAhead, none with a FIN or RST, none acknowledging bytes before
// the other direction's SYN when that one was seen, and the first held
// within Options.ReorderWindow.
func (c *conn) heldInStream(dir frameDir, tcp *layers.TCP) bool {
	h, o := &c.tcp[dir], &c.tcp[dir.other()]
	if c.s.clock.Sub(h.held[0].clock) >= c.s.d.lim.window {
		return false
	}
	for i := range h.held {
		sg := &h.held[i]
		if sg.fin || sg.rst {
			return false
		}
		if off := seqDiff(tcp.Seq+1, sg.seq); off < 0 || off > maxSYNAhead {
			return false
		}
		if sg.ref.ackOK && o.started && !o.midStream {
			if a := seqDiff(o.isn+1, sg.ref.ack); a < 0 || a > maxSYNAhead {
				return false
			}
		}
	}
	return true
}

// release reassembles the segments held in direction dir, in capture
// order: at their place after the direction's SYN, or, without it, from
// the first one, picked up mid-stream.
func (c *conn) release(dir frameDir) {
	h := &c.tcp[dir]
	held := h.held
	if len(held) == 0 {
		return
	}
	h.held, h.minValid = nil, false
	for i := range held {
		h.queued -= len(held[i].data)
		c.s.queued -= len(held[i].data)
	}
	for _, sg := range held {
		c.take(dir, sg, false)
	}
}

// releaseHeld releases both directions' held segments (the connection
// ends, or is flushed).
func (c *conn) releaseHeld() {
	for d := range c.tcp {
		c.release(frameDir(d))
	}
}

// heldSince reports whether direction dir holds segments since before
// older.
func (h *tcpHalf) heldSince(older time.Time) bool {
	return len(h.held) > 0 && h.held[0].clock.Before(older)
}
