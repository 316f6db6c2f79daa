package dissect

import (
	"fmt"

	"github.com/gopacket/gopacket/layers"
)

// When the connections open reach Options.MaxConnections, a new one takes
// the place of the open connection with the least evidence of being a
// real conversation, if that one has no more evidence than the newcomer:
// anyone who can reach a broker port can send one packet from each of
// 100 000 spoofed addresses, without a handshake, and such flows must not
// keep a connection that opens with a SYN out of the table. Among equals
// the connection silent longest goes. A newcomer with less evidence than
// every connection open is refused (Stats.ConnLimit): a table full of
// handshaked connections keeps their exchanges whole, and takes new ones
// as they close or go idle (Options.IdleTimeout), rather than cutting
// conversations short to start others it would cut short in turn.
//
// evidence ranks what a connection showed, the most telling bit highest:
// a spoofed source completes no handshake (it never sees the broker's
// SYN-ACK) and gets no packet back, while a SYN is the start of every
// connection captured whole. A frame framed whole (a request whose header
// parsed) is the weakest sign: one packet can carry one.
type evidence uint8

const (
	evFrame     evidence = 1 << iota // a request framed whole
	evSYN                            // a SYN or SYN-ACK seen: the connection began in the capture
	evBothWays                       // packets seen both ways
	evHandshake                      // the client acknowledged the broker's SYN-ACK
	evRanks     = 1 << iota
)

// connTable holds the open connections by evidence, least recently seen
// first within each rank: finding the connection to evict takes at most
// evRanks looks, and every packet moves its connection in O(1). The
// lists' nodes are in one slice, reused, rather than in the conn struct:
// a connection then takes 8 bytes more, within its allocation's size
// class, and the table 16 bytes a connection open at once (1.6 MB for
// 100 000).
type connTable struct {
	byRank [evRanks]struct{ head, tail int32 } // node numbers, 0 for none
	nodes  []connNode                          // nodes[0] unused
	free   int32                               // the first free node, 0 for none, chained by next
}

// connNode is a connection's place in its rank's list.
type connNode struct {
	c          *conn
	prev, next int32
}

// connEntry is what a connection showed, and its node in the table (0
// when not in it).
type connEntry struct {
	rank  evidence
	state uint8 // entrySYN, entrySYNACK
	node  int32
}

const (
	entrySYN    = 1 << iota // the client's SYN was seen
	entrySYNACK             // then the broker's SYN-ACK, whose sequence number is c.tcp[toClient].isn
)

// add puts a new connection in the table, with the evidence of its first
// packet.
func (t *connTable) add(c *conn, rank evidence) {
	n := t.free
	if n != 0 {
		t.free = t.nodes[n].next
	} else {
		if len(t.nodes) == 0 {
			t.nodes = append(t.nodes, connNode{})
		}
		n = int32(len(t.nodes))
		t.nodes = append(t.nodes, connNode{})
	}
	t.nodes[n].c = c
	c.entry.rank, c.entry.node = rank, n
	t.link(n, rank)
}

// link puts node n at the back of rank's list.
func (t *connTable) link(n int32, rank evidence) {
	l, nd := &t.byRank[rank], &t.nodes[n]
	nd.prev, nd.next = l.tail, 0
	if l.tail != 0 {
		t.nodes[l.tail].next = n
	} else {
		l.head = n
	}
	l.tail = n
}

// unlink takes node n out of rank's list.
func (t *connTable) unlink(n int32, rank evidence) {
	l, nd := &t.byRank[rank], &t.nodes[n]
	if nd.prev != 0 {
		t.nodes[nd.prev].next = nd.next
	} else {
		l.head = nd.next
	}
	if nd.next != 0 {
		t.nodes[nd.next].prev = nd.prev
	} else {
		l.tail = nd.prev
	}
}

// remove takes a connection that ended out of the table.
func (t *connTable) remove(c *conn) {
	n := c.entry.node
	if n == 0 {
		return
	}
	t.unlink(n, c.entry.rank)
	t.nodes[n] = connNode{next: t.free}
	t.free = n
	c.entry.node = 0
}

// victim returns the connection to evict for a newcomer with evidence
// rank: the least recently seen of the lowest rank, if that rank is at
// most the newcomer's; nil when every open connection showed more.
func (t *connTable) victim(rank evidence) *conn {
	for r := range rank + 1 {
		if n := t.byRank[r].head; n != 0 {
			return t.nodes[n].c
		}
	}
	return nil
}

// packetEvidence is the evidence a connection's first packet gives.
func packetEvidence(tcp *layers.TCP) evidence {
	if tcp.SYN {
		return evSYN
	}
	return 0
}

// saw updates what connection c showed after one of its packets, which
// reassembly took (fromClient says which way it went), and moves it to
// the back of its rank: the most recently seen.
func (t *connTable) saw(c *conn, fromClient bool, tcp *layers.TCP) {
	e := &c.entry
	if e.node == 0 {
		return
	}
	rank := e.rank
	switch {
	case tcp.SYN && fromClient && !tcp.ACK:
		e.state |= entrySYN
	case tcp.SYN && !fromClient && tcp.ACK && e.state&entrySYN != 0:
		e.state |= entrySYNACK
	case fromClient && !tcp.SYN && tcp.ACK && e.state&entrySYNACK != 0 && rank&evHandshake == 0:
		// The ACK must be for what the broker sent: a blind spoofer
		// would have to guess the SYN-ACK's sequence number.
		if h := &c.tcp[toClient]; seqDiff(h.isn+1, tcp.Ack) >= 0 && seqDiff(tcp.Ack, h.next) >= 0 {
			rank |= evHandshake
		}
	}
	if tcp.SYN {
		rank |= evSYN
	}
	if c.tcp[toBroker].started && c.tcp[toClient].started {
		rank |= evBothWays
	}
	if c.nCorr > 0 {
		rank |= evFrame
	}
	if rank == e.rank && t.byRank[rank].tail == e.node {
		return // the most recently seen of its rank already
	}
	t.unlink(e.node, e.rank)
	e.rank = rank
	t.link(e.node, rank)
}

// makeRoom evicts an open connection for a newcomer whose first packet
// gives evidence rank, when the table is full, and reports whether there
// is room now. An evicted connection ends as an idle one does (its
// requests waiting get a note; its stream number is kept if it comes
// back); Stats.ConnEvicted counts them, Stats.ConnLimit the packets of
// newcomers refused.
func (s *Session) makeRoom(rank evidence) bool {
	if s.open < s.d.lim.connections {
		return true
	}
	st := &s.d.stats
	v := s.table.victim(rank)
	if v == nil {
		st.ConnLimit++
		s.problem(fmt.Sprintf("more than %d connections open at once: packets of new ones not dissected, every one open showing more evidence of being real (a handshake, packets both ways, a SYN)", s.d.lim.connections))
		return false
	}
	st.ConnEvicted++
	s.problem(fmt.Sprintf("more than %d connections open at once: evicted those with the least evidence of being real (no handshake, one way only, no frame), silent longest first", s.d.lim.connections))
	why := s.closing
	s.closing = ConnectionEvicted
	v.flushAll()
	v.complete()
	s.closing = why
	return s.open < s.d.lim.connections
}
