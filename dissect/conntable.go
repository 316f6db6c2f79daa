package dissect

import (
	"container/list"
	"fmt"

	"github.com/gopacket/gopacket/layers"
)

// When the connections open reach Options.MaxConnections, a new one takes
// the place of the open connection with the least evidence of being a
// real conversation, if that one has no more evidence than the newcomer:
// anyone who can reach a broker port can send one packet from each of
// 100 000 spoofed addresses, without a handshake, and such flows must not
// keep a connection that opens with a SYN out of the table. Among equals
// the connection silent longest goes.
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
// evRanks looks, and every packet moves its connection in O(1).
type connTable struct {
	byRank [evRanks]list.List
}

// connEntry is a connection's place in the table and what it showed.
type connEntry struct {
	el   *list.Element
	rank evidence
	// synAck says the broker's SYN-ACK was seen after the client's SYN,
	// with initial sequence number brokerISN.
	syn       bool
	synAck    bool
	brokerISN uint32
}

// add puts a new connection in the table, with the evidence of its first
// packet.
func (t *connTable) add(c *conn, rank evidence) {
	c.entry.rank = rank
	c.entry.el = t.byRank[rank].PushBack(c)
}

// remove takes a connection that ended out of the table.
func (t *connTable) remove(c *conn) {
	if c.entry.el != nil {
		t.byRank[c.entry.rank].Remove(c.entry.el)
		c.entry.el = nil
	}
}

// victim returns the connection to evict for a newcomer with evidence
// rank: the least recently seen of the lowest rank, if that rank is at
// most the newcomer's; nil when every open connection showed more.
func (t *connTable) victim(rank evidence) *conn {
	for r := range rank + 1 {
		if e := t.byRank[r].Front(); e != nil {
			return e.Value.(*conn)
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

// saw updates what connection c showed after one of its packets
// (fromClient says which way it went) and moves it to the back of its
// rank: the most recently seen.
func (t *connTable) saw(c *conn, fromClient bool, tcp *layers.TCP) {
	e := &c.entry
	if e.el == nil {
		return
	}
	switch {
	case tcp.SYN && fromClient && !tcp.ACK:
		e.syn = true
	case tcp.SYN && !fromClient && tcp.ACK && e.syn:
		e.synAck, e.brokerISN = true, tcp.Seq
	case fromClient && !tcp.SYN && tcp.ACK && e.synAck && e.rank&evHandshake == 0:
		// The ACK must be for what the broker sent: a blind spoofer
		// would have to guess the SYN-ACK's sequence number.
		if seqDiff(e.brokerISN+1, tcp.Ack) >= 0 && seqDiff(tcp.Ack, c.tcp[toClient].next) >= 0 {
			e.rank |= evHandshake
		}
	}
	rank := e.rank
	if tcp.SYN {
		rank |= evSYN
	}
	if c.tcp[toBroker].started && c.tcp[toClient].started {
		rank |= evBothWays
	}
	if c.nCorr > 0 {
		rank |= evFrame
	}
	if rank == e.rank {
		t.byRank[rank].MoveToBack(e.el)
		return
	}
	t.byRank[e.rank].Remove(e.el)
	e.rank = rank
	e.el = t.byRank[rank].PushBack(c)
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
		s.problem(fmt.Sprintf("more than %d connections open at once: packets of new ones with no more evidence of being real than those open (a handshake, packets both ways, a frame) not dissected", s.d.lim.connections))
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
