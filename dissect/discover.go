package dissect

import (
	"bytes"
	"encoding/binary"
	"net/netip"
	"slices"
	"time"

	"github.com/gopacket/gopacket/layers"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect/tlsdecrypt"
)

// This file finds Kafka connections beyond the configured broker ports.
//
// Brokers are learned: the hosts and ports that Metadata, FindCoordinator
// and DescribeCluster responses name (when the host is an IP literal, or
// localhost) join the broker set, so connections to the other brokers of
// the cluster are dissected without naming their ports. With
// Options.AnyPort, a connection on any port whose client opens with a
// plausible Kafka request is Kafka too, and its server joins the set.
//
// A connection seen before its broker was known is held as "unknown": its
// first packets (Options.BacklogPackets, BacklogBytes; BacklogTotalBytes
// over all of them) are kept, so that when its broker is learned they are
// replayed into reassembly and the connection is dissected from its start.
// Replay never breaks the output order: a kept packet that could start a
// frame is replayed only if it comes after the last exchange emitted
// (Session's frontier); older ones are dropped, and reassembly reports the
// hole. With AnyPort, a connection whose detection is pending holds the
// output back (it is a blocker) for at most Options.ReorderWindow, so
// detection by a second packet still comes in order.

// maxLearnedBrokers bounds the learned broker set.
const maxLearnedBrokers = 10000

// brokerSet says which ends of TCP connections are brokers.
type brokerSet struct {
	ports   []uint16
	learned map[netip.AddrPort]struct{}
}

func (b *brokerSet) has(ap netip.AddrPort) bool {
	if slices.Contains(b.ports, ap.Port()) {
		return true
	}
	if len(b.learned) == 0 {
		return false
	}
	_, ok := b.learned[unmap(ap)]
	return ok
}

// add adds a broker and reports whether it is new.
func (b *brokerSet) add(ap netip.AddrPort) bool {
	ap = unmap(ap)
	if b.has(ap) || len(b.learned) >= maxLearnedBrokers {
		return false
	}
	if b.learned == nil {
		b.learned = make(map[netip.AddrPort]struct{})
	}
	b.learned[ap] = struct{}{}
	return true
}

func unmap(ap netip.AddrPort) netip.AddrPort {
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
}

// learnFrom adds the brokers a complete Metadata, FindCoordinator or
// DescribeCluster exchange names. The response is decoded here, once more
// than by the Decoder, because the broker set must grow before the packets
// that follow are dispatched.
func (s *Session) learnFrom(ex *Exchange) {
	f := ex.Response
	if f == nil || f.Oversized || len(f.Bytes) != int(f.Size) {
		return
	}
	api, ok := codec.LookupAPI(ex.APIKey)
	if !ok || !api.SupportsVersion(ex.APIVersion) {
		return
	}
	r := codec.NewReader(f.Bytes)
	var hdr codec.ResponseHeader
	hdr.ReadFrom(r, codec.ResponseHeaderVersion(ex.APIKey, ex.APIVersion))
	body := api.NewResponse()
	body.ReadFrom(r, ex.APIVersion)
	if r.Err() != nil {
		return
	}
	learn := func(host string, port int32) {
		ex.NamedBrokers = append(ex.NamedBrokers, BrokerName{Host: host, Port: port})
		s.learnHost(host, port)
	}
	switch b := body.(type) {
	case *codec.MetadataResponse:
		for _, br := range b.Brokers {
			learn(br.Host, br.Port)
		}
	case *codec.FindCoordinatorResponse:
		if ex.APIVersion < 4 {
			if b.ErrorCode == 0 {
				learn(b.Host, b.Port)
			}
		}
		for _, co := range b.Coordinators {
			if co.ErrorCode == 0 {
				learn(co.Host, co.Port)
			}
		}
	case *codec.DescribeClusterResponse:
		for _, br := range b.Brokers {
			learn(br.Host, br.Port)
		}
	}
	if f := s.d.opts.BrokersNamed; f != nil && len(ex.NamedBrokers) > 0 {
		f(ex.NamedBrokers)
	}
}

// LearnBroker makes the session dissect the connections of a broker at
// ap from now on (and those of it held while unknown), as if a response
// had named it: for a caller that resolved a host name a response named
// (Exchange.NamedBrokers), which a capture cannot.
func (s *Session) LearnBroker(ap netip.AddrPort) {
	s.learnBroker(ap)
	s.maintain()
}

// learnHost learns a broker by host and port; a host name other than
// localhost cannot be resolved from the capture and is left out.
func (s *Session) learnHost(host string, port int32) {
	if port <= 0 || port > 65535 {
		return
	}
	var addrs []netip.Addr
	if host == "localhost" {
		addrs = []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.IPv6Loopback()}
	} else if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	}
	for _, a := range addrs {
		s.learnBroker(netip.AddrPortFrom(a.WithZone(""), uint16(port)))
	}
}

// learnBroker adds a broker; connections to it held as unknown are
// replayed (after the current packet, in Session.maintain).
func (s *Session) learnBroker(ap netip.AddrPort) {
	if !ap.IsValid() || ap.Port() == 0 || !s.brokers.add(ap) {
		return
	}
	s.d.stats.LearnedBrokers++
	t := s.unknown
	if t == nil {
		return
	}
	ap = unmap(ap)
	for u := t.head; u != nil; {
		next := u.next
		if unmap(u.key.a) == ap || unmap(u.key.b) == ap {
			t.remove(u)
			s.lows.set(&u.blocker, noLow)
			if !u.notKafka {
				u.broker = ap
				s.promote = append(s.promote, u)
			}
		}
		u = next
	}
}

// unknownConn is a TCP connection not (yet) known to be Kafka.
type unknownConn struct {
	blocker    // AnyPort: the first kept packet with payload, while detection is pending
	key        flowKey
	prev, next *unknownConn // in the table's recency list
	seen       time.Time    // session clock at its latest packet

	pkts    []backlogPkt
	bytes   int
	full    bool           // the backlog limit was reached: later packets are not kept
	notKept int            // packets with payload not kept, the backlog being full
	broker  netip.AddrPort // its broker, once learned

	notKafka bool // detection said no: its packets are dropped at once
	kafka    bool // detection said yes (without AnyPort: kept for learning)
	client   netip.AddrPort
	isn      uint32
	haveISN  bool
	payloads int // payload packets judged mid-stream
	// reqFrom and reqCorr: without the handshake, the first side whose
	// payload opened like a request, and its CorrelationId, awaiting a
	// response from the other side that echoes it.
	reqFrom netip.AddrPort
	reqCorr int32
	since   time.Time // session clock at its first kept payload packet
}

// backlogPkt is a packet kept for replay.
type backlogPkt struct {
	link    layers.LinkType
	data    []byte
	ts      time.Time // its capture time
	clock   time.Time // the session clock then
	idx     int64
	src     uint16 // its capture and number there (Session.src, num)
	num     uint32
	payload bool
}

// unknownTable holds the unknown connections, least recently seen first.
type unknownTable struct {
	lim        limits
	m          map[flowKey]*unknownConn
	head, tail *unknownConn
	bytes      int
}

func (t *unknownTable) pushBack(u *unknownConn) {
	u.prev, u.next = t.tail, nil
	if t.tail != nil {
		t.tail.next = u
	} else {
		t.head = u
	}
	t.tail = u
}

func (t *unknownTable) unlink(u *unknownConn) {
	if u.prev != nil {
		u.prev.next = u.next
	} else {
		t.head = u.next
	}
	if u.next != nil {
		u.next.prev = u.prev
	} else {
		t.tail = u.prev
	}
	u.prev, u.next = nil, nil
}

// remove takes u out of the table; its backlog stays with it (for a
// replay) but no longer counts against the table's limit.
func (t *unknownTable) remove(u *unknownConn) {
	t.unlink(u)
	delete(t.m, u.key)
	t.bytes -= u.bytes
	u.bytes = 0
}

func (t *unknownTable) dropBacklog(u *unknownConn) {
	t.bytes -= u.bytes
	u.bytes = 0
	u.pkts = nil
	u.full = true
}

// unknownPacket handles the current packet (s.cur) of a connection with
// no end in the broker set: it is skipped (counted in Stats.OtherPorts)
// unless detection makes it Kafka, and kept for a later replay.
func (s *Session) unknownPacket(link layers.LinkType, data []byte, ts time.Time, idx int64) {
	st := &s.d.stats
	st.Skipped++
	st.OtherPorts++
	t := s.unknown
	if t == nil {
		return
	}
	p := &s.cur
	key := flowKeyOf(p.Src, p.Dst)
	u := t.m[key]
	if u == nil {
		if len(t.m) >= s.d.lim.connections {
			s.dropUnknown(t.head)
		}
		u = &unknownConn{blocker: blocker{low: noLow, idx: -1}, key: key}
		t.m[key] = u
		t.pushBack(u)
	} else {
		t.unlink(u)
		t.pushBack(u)
	}
	u.seen = s.clock
	if u.notKafka {
		return
	}
	payload := len(p.TCP.Payload) > 0
	if !u.kafka {
		switch v, broker := u.detect(p, s.d.opts.ValidRequest, s.d.maxFrame); v {
		case implausible:
			u.notKafka = true
			t.dropBacklog(u)
			s.lows.set(&u.blocker, noLow)
			return
		case plausible:
			u.kafka = true
			if s.anyPort {
				// Keep this packet whatever the limits: it is replayed with
				// the rest once the broker joins the set, below.
				u.keep(t, link, data, ts, s.clock, idx, s.src, s.num, payload, true)
				st.DetectedConnections++
				s.learnBroker(broker)
				return
			}
		}
	}
	if u.keep(t, link, data, ts, s.clock, idx, s.src, s.num, payload, false) && payload && s.anyPort && !u.kafka && u.low == noLow {
		u.since = s.clock
		s.lows.set(&u.blocker, idx)
	}
}

// keep adds a packet to the backlog within the limits (or beyond them,
// when force), and reports whether it was kept. Once a connection's
// backlog is full it keeps no more (a replay must not skip packets in the
// middle); once all backlogs together are full, new packets are not kept
// until old backlogs expire with their connections.
func (u *unknownConn) keep(t *unknownTable, link layers.LinkType, data []byte, ts, clock time.Time, idx int64, src uint16, num uint32, payload, force bool) bool {
	lim := &t.lim
	if !force && (u.full || len(u.pkts) >= lim.backlogPackets || u.bytes+len(data) > lim.backlogBytes || t.bytes+len(data) > lim.backlogTotal) {
		u.full = true
		if payload {
			u.notKept++
		}
		return false
	}
	u.pkts = append(u.pkts, backlogPkt{link: link, data: bytes.Clone(data), ts: ts, clock: clock, idx: idx, src: src, num: num, payload: payload})
	u.bytes += len(data)
	t.bytes += len(data)
	return true
}

func (s *Session) dropUnknown(u *unknownConn) {
	if u == nil {
		return
	}
	s.unknown.remove(u)
	u.pkts = nil
	s.lows.set(&u.blocker, noLow)
}

// detect judges a connection by its packets so far, the current one last:
// plausible (Kafka, with broker its server side), implausible (not Kafka)
// or needMore. A Kafka client speaks first, and its first bytes are a
// request: a size, a known ApiKey and ApiVersion, a non-negative
// CorrelationId and a printable ClientId. With the handshake captured, the
// first bytes are known (the SYN's sequence number); without it, the first
// few payload packets are tried: a request from one side answered by the
// other side with the same CorrelationId, or, sooner, a request from the
// side with the higher port (the client's ephemeral one, usually), since a
// response alone can look like a request.
func (u *unknownConn) detect(p *tcpPacket, valid func(int16, int16) bool, maxFrame int) (verdict, netip.AddrPort) {
	tcp := p.TCP
	switch {
	case tcp.SYN && !tcp.ACK:
		u.client, u.isn, u.haveISN = p.Src, tcp.Seq, true
		return needMore, netip.AddrPort{}
	case tcp.SYN:
		if !u.client.IsValid() {
			u.client = p.Dst
		}
		return needMore, netip.AddrPort{}
	case len(tcp.Payload) == 0:
		return needMore, netip.AddrPort{}
	}
	if u.client.IsValid() {
		if p.Src != u.client {
			return implausible, netip.AddrPort{} // the server spoke first
		}
		if u.haveISN && tcp.Seq != u.isn+1 {
			return needMore, netip.AddrPort{} // not its first bytes: wait for them
		}
		if tlsdecrypt.IsClientHello(tcp.Payload) {
			// TLS: Kafka or not, decided once decrypted (or shown as
			// one encrypted line without keys).
			return plausible, p.Dst
		}
		v := judgeOpening(tcp.Payload, valid, maxFrame)
		return v, p.Dst
	}
	u.payloads++
	if u.reqFrom.IsValid() && p.Src != u.reqFrom && len(tcp.Payload) >= 8 &&
		int32(binary.BigEndian.Uint32(tcp.Payload[4:8])) == u.reqCorr {
		return plausible, p.Src // the answer to the request seen
	}
	if judgeOpening(tcp.Payload, valid, maxFrame) == plausible {
		if p.Src.Port() > p.Dst.Port() {
			return plausible, p.Dst
		}
		if !u.reqFrom.IsValid() {
			u.reqFrom, u.reqCorr = p.Src, int32(binary.BigEndian.Uint32(tcp.Payload[8:12]))
		}
	}
	if u.payloads >= 8 {
		return implausible, netip.AddrPort{}
	}
	return needMore, netip.AddrPort{}
}

// judgeOpening decides whether b, the first bytes of a client's stream,
// start a Kafka request.
func judgeOpening(b []byte, valid func(int16, int16) bool, maxFrame int) verdict {
	if len(b) < 4+reqHeaderMin+2 {
		return needMore
	}
	size := int32(binary.BigEndian.Uint32(b))
	if size < reqHeaderMin || int(size) > maxFrame {
		return implausible
	}
	h := b[4:]
	if int32(binary.BigEndian.Uint32(h[4:8])) < 0 {
		return implausible
	}
	if v := judgeRequestHeader(h, int(size), valid); v != plausible {
		return v
	}
	key, ver := int16(binary.BigEndian.Uint16(h)), int16(binary.BigEndian.Uint16(h[2:]))
	if hasClientID(key, ver) {
		n := int(int16(binary.BigEndian.Uint16(h[8:10])))
		for _, c := range h[10:min(len(h), 10+max(n, 0))] {
			if c < 0x20 || c > 0x7e {
				return implausible
			}
		}
	}
	return plausible
}

// replay hands a promoted connection's kept packets to reassembly, in
// capture order. A packet that could start a frame at or before the
// frontier would make an exchange come out of order: it is dropped
// (reassembly sees a hole there).
func (s *Session) replay(u *unknownConn) {
	st := &s.d.stats
	front := s.ord.frontier()
	src, num := s.src, s.num
	defer func() { s.src, s.num = src, num }()
	dropped := int64(u.notKept)
	for _, p := range u.pkts {
		if p.payload && p.idx <= front {
			st.BacklogDropped++
			dropped++
			continue
		}
		if s.dec.decode(p.link, p.data, &s.cur) != kindTCP {
			continue // decoded as TCP when kept
		}
		st.Skipped--
		st.OtherPorts--
		st.Replayed++
		s.src, s.num = p.src, p.num
		s.assemble(p.ts, p.idx, p.clock)
	}
	u.pkts = nil
	if dropped > 0 {
		s.d.lateConnection(u, dropped)
	}
}

// expireUnknown forgets unknown connections idle for Options.IdleTimeout,
// and stops letting pending detections hold the output back after
// Options.ReorderWindow.
func (s *Session) expireUnknown() {
	t := s.unknown
	if t == nil {
		return
	}
	for t.head != nil && s.clock.Sub(t.head.seen) >= s.d.lim.idle {
		s.dropUnknown(t.head)
	}
	if !s.anyPort {
		return
	}
	for u := t.head; u != nil; u = u.next {
		if u.low != noLow && s.clock.Sub(u.since) >= s.d.lim.window {
			s.lows.set(&u.blocker, noLow)
		}
	}
}
