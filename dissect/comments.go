package dissect

import "net/netip"

// Comments of the input packets (pcapng opt_comment, written by Wireshark's
// "Packet Comment..." or editcap -a) are kept in Exchange.PacketComments
// of the exchanges whose frames those packets carried: a packet of the
// request's connection and direction from the request's first packet to
// its last, or of the response's.
const (
	// maxPendingComments bounds the commented packets a Session holds
	// until the exchanges that may use them are emitted; beyond it the
	// oldest are dropped (a capture commented on every packet of a
	// connection that carries no exchange for long).
	maxPendingComments = 4096
	// maxExchangeComments bounds the comments kept on one exchange.
	maxExchangeComments = 64
)

// packetComment is a commented packet of a broker's connection.
type packetComment struct {
	index    int64 // Session packet number
	src, dst netip.AddrPort
	texts    []string
}

// commentLog holds the commented packets not yet passed by the emitted
// exchanges, in packet order.
type commentLog struct {
	q []packetComment
}

// noteComments records the comments of the packet being dissected (s.cur,
// packet number idx) when it is a TCP segment of a broker's connection.
func (s *Session) noteComments(idx int64) {
	texts := s.comments.pending
	s.comments.pending = nil
	if len(texts) == 0 {
		return
	}
	l := &s.comments.log
	if len(l.q) >= maxPendingComments {
		l.q = l.q[1:]
	}
	l.q = append(l.q, packetComment{index: idx, src: s.cur.Src, dst: s.cur.Dst, texts: texts})
}

// attach gives ex the comments of the packets that carried its frames,
// and forgets those of packets before ex: exchanges are emitted in
// capture order, and a later one starts at or after its own first packet.
func (l *commentLog) attach(ex *Exchange) {
	if len(l.q) == 0 {
		return
	}
	if ex.Request != nil {
		ex.PacketComments = l.collect(ex.PacketComments, ex.Request, ex.Client, ex.Broker)
	}
	if ex.Response != nil {
		ex.PacketComments = l.collect(ex.PacketComments, ex.Response, ex.Broker, ex.Client)
	}
	i := 0
	for i < len(l.q) && l.q[i].index < ex.Order() {
		i++
	}
	if i == len(l.q) {
		l.q = l.q[:0]
	} else {
		l.q = l.q[i:]
	}
}

// collect appends the comments of the packets from src to dst that lie
// within f's first and last packets.
func (l *commentLog) collect(out []string, f *Frame, src, dst netip.AddrPort) []string {
	for _, c := range l.q {
		if c.index > f.LastPacket {
			break
		}
		if c.index < f.Packet || c.src != src || c.dst != dst {
			continue
		}
		for _, t := range c.texts {
			if len(out) < maxExchangeComments {
				out = append(out, t)
			}
		}
	}
	return out
}
