package dissect

import (
	"net/netip"
	"time"

	"github.com/gopacket/gopacket/layers"
)

// flowKey names a TCP connection whichever way its packets go.
type flowKey struct{ a, b netip.AddrPort }

func flowKeyOf(x, y netip.AddrPort) flowKey {
	if x.Compare(y) > 0 {
		x, y = y, x
	}
	return flowKey{x, y}
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
// length for a closed one; for an idle one, as long as a Kafka client's
// idle connection can wake up: brokers close connections idle for
// connections.max.idle.ms, 10 minutes by default.
const (
	closedMemory  = time.Minute
	dormantMemory = 10 * time.Minute
)

type closedEntry struct {
	key   flowKey
	clock time.Time
}

// newConn starts dissecting the connection of the packet being assembled
// (s.cur), or returns nil to leave it out: a connection closed moments
// ago (the packet is a straggler) or one beyond Options.MaxConnections.
func (s *Session) newConn(key flowKey) *conn {
	st := &s.d.stats
	src, dst := s.cur.Src, s.cur.Dst
	tcp := s.cur.TCP
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
	rank := packetEvidence(tcp)
	if !s.makeRoom(rank) {
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
	c.key = key
	s.conns[c] = struct{}{}
	s.flows[key] = c
	s.table.add(c, rank)
	s.open++
	s.d.stats.PeakOpenConnections = max(s.d.stats.PeakOpenConnections, s.open)
	return c
}

// reused ends connection c, whose 4-tuple a new connection took: a SYN,
// or the broker's SYN-ACK, with a new initial sequence number (a client
// reconnecting from the same port after an RST, or after a close the
// capture did not see whole). The SYN starts the new connection. A SYN
// with the direction's own initial sequence number is a retransmission; a
// SYN-ACK from the client is nonsense (RFC 5961: ignored).
func (s *Session) reused(c *conn, dir frameDir, tcp *layers.TCP, missing int, ref pktRef) {
	s.d.stats.ReusedPorts++
	c.replaced = true
	c.complete()
	n := s.newConn(c.key)
	if n == nil {
		return
	}
	s.last = n
	if dir = toClient; s.cur.Src == n.client {
		dir = toBroker
	}
	n.segment(dir, tcp, missing, ref)
}

// connDone forgets a connection that ended.
func (s *Session) connDone(c *conn) {
	if _, ok := s.conns[c]; !ok {
		return
	}
	delete(s.conns, c)
	s.table.remove(c)
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

// complete ends the connection once both directions ended (FIN, RST,
// an idle flush or the end of the capture). Its 4-tuple is remembered for
// a while (Session.remember).
func (c *conn) complete() {
	if c.done {
		return
	}
	if c.releaseHeld(); c.done {
		return // a FIN or RST held ended it
	}
	s := c.s
	why := s.closing
	if why == ResponseSeen {
		why = ConnectionClosed // inside assembly: a FIN or RST
	}
	c.finish(why)
	if s.flows[c.key] == c {
		delete(s.flows, c.key)
	}
	if s.last == c {
		s.last = nil
	}
	// An evicted connection may be alive: if it comes back, it keeps
	// its stream number, as an idle one does.
	idle := (why == ConnectionIdle || why == ConnectionEvicted) && !c.ended[toBroker] && !c.ended[toClient]
	s.remember(c.key, c.stream, idle)
}
