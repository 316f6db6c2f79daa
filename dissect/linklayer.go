package dissect

import (
	"net/netip"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// Link types gopacket has no name for. Both are DLT_RAW on some BSDs: the
// packet starts with an IPv4 or IPv6 header, as with LINKTYPE_RAW (101).
const (
	linkTypeRawBSD12 layers.LinkType = 12
	linkTypeRawBSD14 layers.LinkType = 14
)

// packetKind says what the link-layer decoder made of a packet.
type packetKind uint8

const (
	kindTCP         packetKind = iota // a TCP segment: see tcpPacket
	kindNotTCP                        // IP but not TCP, or not IP at all (ARP, ...)
	kindFragment                      // an IPv4 or IPv6 fragment: see Session.fragment
	kindUnsupported                   // a link type we do not decode
	kindMalformed                     // the headers do not decode
)

// tcpPacket is a decoded TCP segment. TCP points into the decoder and is
// overwritten by the next decode; its Payload points into the packet data.
type tcpPacket struct {
	NetFlow  gopacket.Flow
	Src, Dst netip.AddrPort
	TCP      *layers.TCP
	// Missing is how many bytes of TCP payload the capture cut off at its
	// snap length: the IP header declares more than was captured.
	Missing int
}

// linkDecoder decodes link layer → IPv4/IPv6 → TCP with preallocated layers
// (gopacket.DecodingLayerParser), so a packet costs no allocation. One
// parser per first layer shares the same layer structs.
type linkDecoder struct {
	eth   layers.Ethernet
	dot1q layers.Dot1Q
	sll   layers.LinuxSLL
	sll2  layers.LinuxSLL2
	lo    layers.Loopback
	ip4   layers.IPv4
	ip6   layers.IPv6
	ext   ipv6Extension
	frag6 layers.IPv6Fragment
	tcp   layers.TCP

	ethP, sllP, sll2P, loP, ip4P, ip6P *gopacket.DecodingLayerParser
	decoded                            []gopacket.LayerType
}

// ipv6Extension skips IPv6 routing and destination-options headers. Unlike
// layers.IPv6ExtensionSkipper it does not claim the fragment header, which
// layers.IPv6Fragment decodes so that a fragment is not read as TCP.
// (Hop-by-hop options are handled inside layers.IPv6.)
type ipv6Extension struct{ layers.IPv6ExtensionSkipper }

func (*ipv6Extension) CanDecode() gopacket.LayerClass {
	return gopacket.NewLayerClass([]gopacket.LayerType{layers.LayerTypeIPv6Routing, layers.LayerTypeIPv6Destination})
}

func newLinkDecoder() *linkDecoder {
	d := &linkDecoder{decoded: make([]gopacket.LayerType, 0, 8)}
	all := []gopacket.DecodingLayer{&d.eth, &d.dot1q, &d.sll, &d.sll2, &d.lo, &d.ip4, &d.ip6, &d.ext, &d.frag6, &d.tcp}
	// A sparse container finds a layer's decoder by indexing a slice, where
	// the default one looks it up in a map, once per layer of every packet.
	dlc := gopacket.DecodingLayerContainer(gopacket.DecodingLayerSparse(nil))
	for _, l := range all {
		dlc = dlc.Put(l)
	}
	mk := func(first gopacket.LayerType) *gopacket.DecodingLayerParser {
		p := gopacket.NewDecodingLayerParser(first)
		p.SetDecodingLayerContainer(dlc)
		// Decoding stops at the TCP payload (or at a layer we do not need);
		// that is not an error.
		p.IgnoreUnsupported = true
		return p
	}
	d.ethP = mk(layers.LayerTypeEthernet)
	d.sllP = mk(layers.LayerTypeLinuxSLL)
	d.sll2P = mk(layers.LayerTypeLinuxSLL2)
	d.loP = mk(layers.LayerTypeLoopback)
	d.ip4P = mk(layers.LayerTypeIPv4)
	d.ip6P = mk(layers.LayerTypeIPv6)
	return d
}

// parser returns the parser for a link type, or nil if we do not decode it.
func (d *linkDecoder) parser(link layers.LinkType, data []byte) *gopacket.DecodingLayerParser {
	switch link {
	case layers.LinkTypeEthernet:
		return d.ethP
	case layers.LinkTypeLinuxSLL:
		return d.sllP
	case layers.LinkTypeLinuxSLL2:
		return d.sll2P
	case layers.LinkTypeNull, layers.LinkTypeLoop:
		// Null carries the address family in host byte order, Loop in
		// network byte order; layers.Loopback accepts both, and maps the
		// BSD IPv6 values (24, 28, 30) as well as Linux's 10.
		return d.loP
	case layers.LinkTypeIPv4:
		return d.ip4P
	case layers.LinkTypeIPv6:
		return d.ip6P
	case layers.LinkTypeRaw, linkTypeRawBSD12, linkTypeRawBSD14:
		if len(data) > 0 {
			switch data[0] >> 4 {
			case 4:
				return d.ip4P
			case 6:
				return d.ip6P
			}
		}
		return d.ip4P // fails to decode and is counted as malformed
	}
	return nil
}

// decode decodes one packet. When it returns kindTCP, out describes the
// segment until the next call.
func (d *linkDecoder) decode(link layers.LinkType, data []byte, out *tcpPacket) packetKind {
	p := d.parser(link, data)
	if p == nil {
		return kindUnsupported
	}
	err := p.DecodeLayers(data, &d.decoded)
	var v4, v6, tcp, frag bool
	for _, t := range d.decoded {
		switch t {
		case layers.LayerTypeIPv4:
			v4 = true
			frag = d.ip4.Flags&layers.IPv4MoreFragments != 0 || d.ip4.FragOffset != 0
		case layers.LayerTypeIPv6:
			v6 = true
		case layers.LayerTypeIPv6Fragment:
			frag = d.frag6.FragmentOffset != 0 || d.frag6.MoreFragments
		case layers.LayerTypeTCP:
			tcp = true
		}
	}
	switch {
	case frag:
		return kindFragment
	case err != nil:
		return kindMalformed
	case !tcp:
		if (v4 || v6) && d.ipPayloadProto() == layers.IPProtocolTCP {
			// The TCP header was cut off (snap length): nothing to use.
			return kindMalformed
		}
		return kindNotTCP
	}
	out.TCP = &d.tcp
	out.Missing = 0
	segLen := len(d.tcp.Contents) + len(d.tcp.Payload)
	if v4 {
		src, dst := netip.AddrFrom4([4]byte(d.ip4.SrcIP)), netip.AddrFrom4([4]byte(d.ip4.DstIP))
		out.Src = netip.AddrPortFrom(src, uint16(d.tcp.SrcPort))
		out.Dst = netip.AddrPortFrom(dst, uint16(d.tcp.DstPort))
		out.NetFlow = d.ip4.NetworkFlow()
		if declared := int(d.ip4.Length) - int(d.ip4.IHL)*4; declared > segLen {
			out.Missing = declared - segLen
		}
	} else {
		src, dst := netip.AddrFrom16([16]byte(d.ip6.SrcIP)), netip.AddrFrom16([16]byte(d.ip6.DstIP))
		out.Src = netip.AddrPortFrom(src, uint16(d.tcp.SrcPort))
		out.Dst = netip.AddrPortFrom(dst, uint16(d.tcp.DstPort))
		out.NetFlow = d.ip6.NetworkFlow()
		if p.Truncated && d.ip6.Length != 0 {
			// ip6.Length covers the extension headers; ip6.Payload is what
			// was captured after the hop-by-hop header, and TCP comes last,
			// so every byte missing is TCP payload.
			captured := len(d.ip6.Payload)
			if d.ip6.HopByHop != nil {
				captured += d.ip6.HopByHop.ActualLength
			}
			if declared := int(d.ip6.Length); declared > captured {
				out.Missing = declared - captured
			}
		}
	}
	return kindTCP
}

// ipPayloadProto returns the protocol the last IP header names.
func (d *linkDecoder) ipPayloadProto() layers.IPProtocol {
	for i := len(d.decoded) - 1; i >= 0; i-- {
		switch d.decoded[i] {
		case layers.LayerTypeIPv4:
			return d.ip4.Protocol
		case layers.LayerTypeIPv6:
			if d.ip6.HopByHop != nil {
				return d.ip6.HopByHop.NextHeader
			}
			return d.ip6.NextHeader
		case layers.LayerTypeIPv6Routing, layers.LayerTypeIPv6Destination:
			return d.ext.NextHeader
		}
	}
	return 0
}

// ipPacket returns the IP packet of the packet just decoded, from its IP
// header on (trailing link-layer padding included), and whether it is
// IPv6: the payload of the layer before IP, or the whole packet for raw IP.
func (d *linkDecoder) ipPacket(data []byte) ([]byte, bool) {
	for i, t := range d.decoded {
		if t != layers.LayerTypeIPv4 && t != layers.LayerTypeIPv6 {
			continue
		}
		v6 := t == layers.LayerTypeIPv6
		if i == 0 {
			return data, v6
		}
		switch d.decoded[i-1] {
		case layers.LayerTypeEthernet:
			return d.eth.Payload, v6
		case layers.LayerTypeDot1Q:
			return d.dot1q.Payload, v6
		case layers.LayerTypeLinuxSLL:
			return d.sll.Payload, v6
		case layers.LayerTypeLinuxSLL2:
			return d.sll2.Payload, v6
		case layers.LayerTypeLoopback:
			return d.lo.Payload, v6
		}
		return nil, v6
	}
	return nil, false
}
