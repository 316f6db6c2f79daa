package dissect

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// This file builds synthetic captures from known Kafka frames: a tcpConn
// turns stream bytes into TCP segments, a link variant wraps them, and
// pcapgo writes the file.

// reqFrame returns a request frame with its size prefix: header v1
// (ApiKey, ApiVersion, CorrelationId, ClientId) and body.
func reqFrame(key, ver int16, corr int32, clientID string, body []byte) []byte {
	var b []byte
	b = binary.BigEndian.AppendUint32(b, 0) // size, set below
	b = binary.BigEndian.AppendUint16(b, uint16(key))
	b = binary.BigEndian.AppendUint16(b, uint16(ver))
	b = binary.BigEndian.AppendUint32(b, uint32(corr))
	b = binary.BigEndian.AppendUint16(b, uint16(len(clientID)))
	b = append(b, clientID...)
	b = append(b, body...)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

// opaqueKey is an ApiKey the codec does not know. A frame found by
// scanning (a connection picked up without its handshake, a gap) is
// confirmed by decoding its body when the codec knows its API; tests whose
// bodies are filler use opaqueKey (and opaqueKey-1...) for such frames.
const opaqueKey int16 = 99

// respFrame returns a response frame with its size prefix.
func respFrame(corr int32, body []byte) []byte {
	var b []byte
	b = binary.BigEndian.AppendUint32(b, uint32(4+len(body)))
	b = binary.BigEndian.AppendUint32(b, uint32(corr))
	return append(b, body...)
}

// filler returns n bytes of deterministic, non-zero filler that never looks
// like a plausible frame start (every byte is 0xA0..0xAF, so no size prefix
// in it is below 2^31).
func filler(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = 0xa0 | (byte(i)+seed)&0x0f
	}
	return b
}

// linkVariant wraps an IP packet in a link-layer header.
type linkVariant struct {
	name string
	link layers.LinkType
	ipv6 bool
	wrap func(ip []byte, v6 bool) []byte
}

func ethHeader(typ layers.EthernetType) []byte {
	h := []byte{0, 1, 2, 3, 4, 5, 0, 6, 7, 8, 9, 10, 0, 0}
	binary.BigEndian.PutUint16(h[12:], uint16(typ))
	return h
}

func ipEtherType(v6 bool) layers.EthernetType {
	if v6 {
		return layers.EthernetTypeIPv6
	}
	return layers.EthernetTypeIPv4
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func vlanTag(id uint16, next layers.EthernetType) []byte {
	t := make([]byte, 4)
	binary.BigEndian.PutUint16(t, id)
	binary.BigEndian.PutUint16(t[2:], uint16(next))
	return t
}

func nullHeader(family uint32, order binary.ByteOrder) []byte {
	h := make([]byte, 4)
	order.PutUint32(h, family)
	return h
}

var linkVariants = []linkVariant{
	{name: "ethernet", link: layers.LinkTypeEthernet, wrap: func(ip []byte, v6 bool) []byte {
		return cat(ethHeader(ipEtherType(v6)), ip)
	}},
	{name: "ethernet-ipv6", link: layers.LinkTypeEthernet, ipv6: true, wrap: func(ip []byte, v6 bool) []byte {
		return cat(ethHeader(ipEtherType(v6)), ip)
	}},
	{name: "vlan", link: layers.LinkTypeEthernet, wrap: func(ip []byte, v6 bool) []byte {
		return cat(ethHeader(layers.EthernetTypeDot1Q), vlanTag(300, ipEtherType(v6)), ip)
	}},
	{name: "qinq", link: layers.LinkTypeEthernet, ipv6: true, wrap: func(ip []byte, v6 bool) []byte {
		return cat(ethHeader(layers.EthernetTypeQinQ), vlanTag(10, layers.EthernetTypeDot1Q), vlanTag(20, ipEtherType(v6)), ip)
	}},
	{name: "sll", link: layers.LinkTypeLinuxSLL, wrap: func(ip []byte, v6 bool) []byte {
		h := make([]byte, 16)
		binary.BigEndian.PutUint16(h[2:], 772) // ARPHRD_LOOPBACK
		binary.BigEndian.PutUint16(h[4:], 6)
		binary.BigEndian.PutUint16(h[14:], uint16(ipEtherType(v6)))
		return cat(h, ip)
	}},
	{name: "sll2", link: layers.LinkTypeLinuxSLL2, wrap: func(ip []byte, v6 bool) []byte {
		h := make([]byte, 20)
		binary.BigEndian.PutUint16(h[0:], uint16(ipEtherType(v6)))
		binary.BigEndian.PutUint32(h[4:], 1)   // interface index
		binary.BigEndian.PutUint16(h[8:], 772) // ARPHRD_LOOPBACK
		h[10] = 4                              // outgoing
		h[11] = 6
		return cat(h, ip)
	}},
	{name: "sll2-ipv6", link: layers.LinkTypeLinuxSLL2, ipv6: true, wrap: func(ip []byte, v6 bool) []byte {
		h := make([]byte, 20)
		binary.BigEndian.PutUint16(h[0:], uint16(ipEtherType(v6)))
		binary.BigEndian.PutUint16(h[8:], 772)
		return cat(h, ip)
	}},
	{name: "null-ipv4", link: layers.LinkTypeNull, wrap: func(ip []byte, v6 bool) []byte {
		return cat(nullHeader(2, binary.LittleEndian), ip)
	}},
	{name: "null-ipv6-24", link: layers.LinkTypeNull, ipv6: true, wrap: func(ip []byte, v6 bool) []byte {
		return cat(nullHeader(24, binary.LittleEndian), ip)
	}},
	{name: "null-ipv6-28", link: layers.LinkTypeNull, ipv6: true, wrap: func(ip []byte, v6 bool) []byte {
		return cat(nullHeader(28, binary.LittleEndian), ip)
	}},
	{name: "null-ipv6-30-bigendian", link: layers.LinkTypeNull, ipv6: true, wrap: func(ip []byte, v6 bool) []byte {
		return cat(nullHeader(30, binary.BigEndian), ip)
	}},
	{name: "loop-ipv4", link: layers.LinkTypeLoop, wrap: func(ip []byte, v6 bool) []byte {
		return cat(nullHeader(2, binary.BigEndian), ip)
	}},
	{name: "raw101-ipv4", link: layers.LinkTypeRaw, wrap: func(ip []byte, v6 bool) []byte { return ip }},
	{name: "raw101-ipv6", link: layers.LinkTypeRaw, ipv6: true, wrap: func(ip []byte, v6 bool) []byte { return ip }},
	{name: "raw12", link: linkTypeRawBSD12, wrap: func(ip []byte, v6 bool) []byte { return ip }},
	{name: "raw14-ipv6", link: linkTypeRawBSD14, ipv6: true, wrap: func(ip []byte, v6 bool) []byte { return ip }},
	{name: "ipv4-228", link: layers.LinkTypeIPv4, wrap: func(ip []byte, v6 bool) []byte { return ip }},
	{name: "ipv6-229", link: layers.LinkTypeIPv6, ipv6: true, wrap: func(ip []byte, v6 bool) []byte { return ip }},
}

// synthPacket is one packet of a synthetic capture.
type synthPacket struct {
	data []byte
	ci   gopacket.CaptureInfo
}

// tcpConn makes the TCP segments of one connection.
type tcpConn struct {
	t              testing.TB
	variant        linkVariant
	client, broker netip.AddrPort
	cseq, bseq     uint32
	clock          *time.Time
}

func newConn(t testing.TB, v linkVariant, clientPort, brokerPort uint16, clock *time.Time) *tcpConn {
	c := &tcpConn{t: t, variant: v, cseq: 1000, bseq: 5000000, clock: clock}
	if v.ipv6 {
		c.client = netip.AddrPortFrom(netip.MustParseAddr("2001:db8::1"), clientPort)
		c.broker = netip.AddrPortFrom(netip.MustParseAddr("2001:db8::9"), brokerPort)
	} else {
		c.client = netip.AddrPortFrom(netip.MustParseAddr("10.0.0.1"), clientPort)
		c.broker = netip.AddrPortFrom(netip.MustParseAddr("10.0.0.9"), brokerPort)
	}
	return c
}

// segment flags.
const (
	fSYN = 1 << iota
	fACK
	fFIN
	fRST
	fPSH
)

// packet builds one TCP segment; seq is taken from the direction's
// counter, which advances by the payload (and SYN/FIN).
func (c *tcpConn) packet(fromClient bool, flags int, payload []byte) synthPacket {
	seq := &c.bseq
	src, dst := c.broker, c.client
	ack := c.cseq
	if fromClient {
		seq, src, dst, ack = &c.cseq, c.client, c.broker, c.bseq
	}
	p := c.raw(src, dst, *seq, ack, flags, payload)
	*seq += uint32(len(payload))
	if flags&(fSYN|fFIN) != 0 {
		*seq++
	}
	return p
}

// raw builds a segment with explicit sequence numbers.
func (c *tcpConn) raw(src, dst netip.AddrPort, seq, ack uint32, flags int, payload []byte) synthPacket {
	tcp := &layers.TCP{
		SrcPort: layers.TCPPort(src.Port()), DstPort: layers.TCPPort(dst.Port()),
		Seq: seq, Ack: ack, Window: 65535,
		SYN: flags&fSYN != 0, ACK: flags&fACK != 0, FIN: flags&fFIN != 0, RST: flags&fRST != 0, PSH: flags&fPSH != 0,
	}
	var netLayer gopacket.SerializableLayer
	if c.variant.ipv6 {
		ip := &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolTCP,
			SrcIP: net.IP(src.Addr().AsSlice()), DstIP: net.IP(dst.Addr().AsSlice())}
		if err := tcp.SetNetworkLayerForChecksum(ip); err != nil {
			c.t.Fatal(err)
		}
		netLayer = ip
	} else {
		ip := &layers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: layers.IPProtocolTCP, Flags: layers.IPv4DontFragment,
			SrcIP: net.IP(src.Addr().AsSlice()), DstIP: net.IP(dst.Addr().AsSlice())}
		if err := tcp.SetNetworkLayerForChecksum(ip); err != nil {
			c.t.Fatal(err)
		}
		netLayer = ip
	}
	buf := gopacket.NewSerializeBuffer()
	opts := gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
	if err := gopacket.SerializeLayers(buf, opts, netLayer, tcp, gopacket.Payload(payload)); err != nil {
		c.t.Fatal(err)
	}
	data := c.variant.wrap(bytes.Clone(buf.Bytes()), c.variant.ipv6)
	*c.clock = c.clock.Add(time.Millisecond)
	return synthPacket{data: data, ci: gopacket.CaptureInfo{Timestamp: *c.clock, CaptureLength: len(data), Length: len(data)}}
}

func (c *tcpConn) handshake() []synthPacket {
	return []synthPacket{
		c.packet(true, fSYN, nil),
		c.packet(false, fSYN|fACK, nil),
		c.packet(true, fACK, nil),
	}
}

func (c *tcpConn) close() []synthPacket {
	return []synthPacket{
		c.packet(true, fFIN|fACK, nil),
		c.packet(false, fFIN|fACK, nil),
		c.packet(true, fACK, nil),
	}
}

// send cuts b into segments at the given sizes (the last segment takes the
// rest) and returns them.
func (c *tcpConn) send(fromClient bool, b []byte, sizes ...int) []synthPacket {
	var out []synthPacket
	for _, n := range sizes {
		if n >= len(b) {
			break
		}
		out = append(out, c.packet(fromClient, fACK, b[:n]))
		b = b[n:]
	}
	if len(b) > 0 {
		out = append(out, c.packet(fromClient, fACK|fPSH, b))
	}
	return out
}

// writePcap writes packets as a classic pcap file.
func writePcap(t testing.TB, link layers.LinkType, pkts []synthPacket) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := pcapgo.NewWriterNanos(&buf)
	if err := w.WriteFileHeader(262144, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range pkts {
		if err := w.WritePacket(p.ci, p.data); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// exchangeSpec is what a test expects of an exchange.
type exchangeSpec struct {
	key, ver int16
	corr     int32
	clientID string
	req      []byte // request frame without size prefix; nil: no request
	resp     []byte // response frame without size prefix; nil: no response
}

// conversation returns n request/response pairs with distinct sizes and
// contents. Their bodies are filler, so their ApiKeys are ones the codec
// does not know (95-100): a frame start found by scanning is confirmed by
// decoding its body when the codec knows its API (see conn.bodyFits), and
// filler would not decode. (Real bodies are the damage tests' business.)
func conversation(n int, firstCorr int32) (specs []exchangeSpec, reqs, resps [][]byte) {
	for i := range n {
		corr := firstCorr + int32(i)
		key := int16(95 + i%6)
		ver := int16(i % 10)
		req := reqFrame(key, ver, corr, "client-"+fmt.Sprint(i%3), filler(20+i*7, byte(i)))
		resp := respFrame(corr, filler(10+i*13, byte(i+100)))
		specs = append(specs, exchangeSpec{key: key, ver: ver, corr: corr, clientID: "client-" + fmt.Sprint(i%3), req: req[4:], resp: resp[4:]})
		reqs = append(reqs, req)
		resps = append(resps, resp)
	}
	return
}

// readAll dissects a capture and returns its exchanges and error.
func readAll(t testing.TB, d *Dissector, capture []byte) ([]*Exchange, error) {
	t.Helper()
	var got []*Exchange
	err := d.ReadCapture(bytes.NewReader(capture), func(e *Exchange) { got = append(got, e) })
	return got, err
}

// checkExchanges compares exchanges with specs field by field.
func checkExchanges(t testing.TB, got []*Exchange, want []exchangeSpec, allowNotes bool) {
	t.Helper()
	wantCount(t, got, len(want), "")
	for i, w := range want {
		e := got[i]
		if w.req != nil {
			if e.Request == nil {
				t.Errorf("exchange %d: no request, want corr %d", i, w.corr)
				continue
			}
			if !bytes.Equal(e.Request.Bytes, w.req) || int(e.Request.Size) != len(w.req) {
				t.Errorf("exchange %d: request bytes differ (got %d of size %d, want %d)", i, len(e.Request.Bytes), e.Request.Size, len(w.req))
			}
			if e.APIKey != w.key || e.APIVersion != w.ver {
				t.Errorf("exchange %d: api %d v%d, want %d v%d", i, e.APIKey, e.APIVersion, w.key, w.ver)
			}
			if e.ClientID == nil || *e.ClientID != w.clientID {
				t.Errorf("exchange %d: client id %v, want %q", i, e.ClientID, w.clientID)
			}
		} else if e.Request != nil {
			t.Errorf("exchange %d: unexpected request", i)
		}
		if e.CorrelationID != w.corr {
			t.Errorf("exchange %d: corr %d, want %d", i, e.CorrelationID, w.corr)
		}
		if w.resp != nil {
			if e.Response == nil {
				t.Errorf("exchange %d (corr %d): no response", i, w.corr)
			} else if !bytes.Equal(e.Response.Bytes, w.resp) || int(e.Response.Size) != len(w.resp) {
				t.Errorf("exchange %d: response bytes differ", i)
			}
		} else if e.Response != nil {
			t.Errorf("exchange %d (corr %d): unexpected response", i, w.corr)
		}
		if !allowNotes && len(e.Notes) > 0 {
			t.Errorf("exchange %d (corr %d): unexpected notes %q", i, w.corr, e.Notes)
		}
	}
}

// wantCount stops the test, listing got, when it does not hold n
// exchanges (of what: "" or a name for them ending in a space).
func wantCount(t testing.TB, got []*Exchange, n int, what string) {
	t.Helper()
	if len(got) == n {
		return
	}
	for _, e := range got {
		t.Logf("got %s", describe(e))
	}
	t.Fatalf("got %d exchanges, want %s%d", len(got), what, n)
}

func describe(e *Exchange) string {
	s := fmt.Sprintf("stream %d key %d v%d corr %d", e.Stream, e.APIKey, e.APIVersion, e.CorrelationID)
	if e.Request != nil {
		s += fmt.Sprintf(" req[pkt %d, %d/%d]", e.Request.Packet, len(e.Request.Bytes), e.Request.Size)
	}
	if e.Response != nil {
		s += fmt.Sprintf(" resp[pkt %d, %d/%d]", e.Response.Packet, len(e.Response.Bytes), e.Response.Size)
	}
	return s + fmt.Sprintf(" notes %q", e.Notes)
}

// simpleCapture is a complete connection: handshake, pairs sent one after
// the other (request, then its response), close.
func simpleCapture(t testing.TB, v linkVariant, n int) ([]byte, []exchangeSpec, *tcpConn) {
	clock := time.Unix(1700000000, 0)
	c := newConn(t, v, 40000, 9092, &clock)
	specs, reqs, resps := conversation(n, 1)
	pkts := c.handshake()
	for i := range reqs {
		pkts = append(pkts, c.send(true, reqs[i])...)
		pkts = append(pkts, c.send(false, resps[i])...)
	}
	pkts = append(pkts, c.close()...)
	return writePcap(t, v.link, pkts), specs, c
}

func testClock() time.Time { return time.Unix(1700000000, 0) }
