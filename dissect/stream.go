package dissect

import (
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
const (
	maxPagesPerConn = 4096
	maxPagesTotal   = 65536
)

const (
	// ctxSlabSize is how many packet contexts one allocation holds.
	ctxSlabSize = 256
	// invalidSeq is reassembly's nextSeq for a direction not started yet.
	invalidSeq = reassembly.Sequence(-1)
)

// pktCtx is the reassembly.AssemblerContext of one packet. Reassembly keeps
// it with every byte it buffers, and ScatterGather.CaptureInfo(offset)
// returns its CaptureInfo, whose AncillaryData[0] points back to it: that is
// how a frame learns the packet of its first byte.
type pktCtx struct {
	ci   gopacket.CaptureInfo
	ref  pktRef
	self [1]any
}

func (c *pktCtx) GetCaptureInfo() gopacket.CaptureInfo { return c.ci }

// newCtx returns the context of packet idx. Contexts are cut from slabs so a
// packet costs no allocation of its own; a slab lives while reassembly holds
// any of its contexts.
func (s *Session) newCtx(ts time.Time, idx int64) *pktCtx {
	if len(s.slab) == 0 {
		s.slab = make([]pktCtx, ctxSlabSize)
	}
	c := &s.slab[0]
	s.slab = s.slab[1:]
	c.ref = pktRef{index: idx, time: ts}
	c.ci.Timestamp = ts
	c.self[0] = c
	c.ci.AncillaryData = c.self[:]
	return c
}

// streamFactory makes a tcpStream for every new connection reassembly sees.
type streamFactory struct{ s *Session }

func (f streamFactory) New(netFlow, tcpFlow gopacket.Flow, tcp *layers.TCP, ac reassembly.AssemblerContext) reassembly.Stream {
	s := f.s
	src, dst := s.cur.Src, s.cur.Dst // the packet being assembled
	srcK, dstK := s.d.isKafkaPort(src.Port()), s.d.isKafkaPort(dst.Port())
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
	c := &conn{stream: s.d.nextStream, s: s, outstanding: make(map[int32]int)}
	s.d.nextStream++
	s.d.stats.Connections++
	if dstIsBroker {
		c.client, c.broker = src, dst
	} else {
		c.client, c.broker = dst, src
	}
	s.conns = append(s.conns, c)
	return &tcpStream{c: c, firstToBroker: dstIsBroker}
}

// tcpStream receives one connection's reassembled bytes from reassembly.
type tcpStream struct {
	c *conn
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
// its framer starts by looking for a frame boundary.
func (t *tcpStream) Accept(tcp *layers.TCP, ci gopacket.CaptureInfo, dir reassembly.TCPFlowDirection, nextSeq reassembly.Sequence, start *bool, ac reassembly.AssemblerContext) bool {
	if nextSeq == invalidSeq {
		t.c.framer(t.dir(dir), !tcp.SYN)
		*start = true
	}
	return true
}

func (t *tcpStream) ReassembledSG(sg reassembly.ScatterGather, ac reassembly.AssemblerContext) {
	if t.c.done {
		return
	}
	d, _, _, skip := sg.Info()
	fr := t.c.framer(t.dir(d), true)
	if skip > 0 || (skip < 0 && fr.pos > 0) {
		fr.gap(int64(skip))
	}
	n, _ := sg.Lengths()
	if n == 0 {
		return
	}
	if c, ok := ac.(*pktCtx); ok {
		t.cur = c.ref
	}
	t.sg = sg
	fr.feed(sg.Fetch(n), t)
	t.sg = nil
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
// RST, or the end of the capture). It keeps the connection in reassembly's
// pool, so stray packets after the close (the last ACK) do not open a new
// stream; a new SYN on the same addresses still does.
func (t *tcpStream) ReassemblyComplete(ac reassembly.AssemblerContext) bool {
	t.c.finish()
	return false
}
