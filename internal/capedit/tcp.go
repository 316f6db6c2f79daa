package capedit

import (
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// tcpDecoder finds the TCP payload length of a packet, with preallocated
// layers (gopacket.DecodingLayerParser): no allocation per packet.
type tcpDecoder struct {
	eth   layers.Ethernet
	dot1q layers.Dot1Q
	sll   layers.LinuxSLL
	sll2  layers.LinuxSLL2
	lo    layers.Loopback
	ip4   layers.IPv4
	ip6   layers.IPv6
	tcp   layers.TCP

	parsers map[gopacket.LayerType]*gopacket.DecodingLayerParser
	decoded []gopacket.LayerType
}

func newTCPDecoder() *tcpDecoder {
	d := &tcpDecoder{decoded: make([]gopacket.LayerType, 0, 8), parsers: map[gopacket.LayerType]*gopacket.DecodingLayerParser{}}
	all := []gopacket.DecodingLayer{&d.eth, &d.dot1q, &d.sll, &d.sll2, &d.lo, &d.ip4, &d.ip6, &d.tcp}
	for _, first := range []gopacket.LayerType{layers.LayerTypeEthernet, layers.LayerTypeLinuxSLL, layers.LayerTypeLinuxSLL2,
		layers.LayerTypeLoopback, layers.LayerTypeIPv4, layers.LayerTypeIPv6} {
		p := gopacket.NewDecodingLayerParser(first, all...)
		// Decoding stops at the TCP payload, or at a layer not listed
		// (ARP, UDP, an IPv4 fragment); neither is an error here.
		p.IgnoreUnsupported = true
		d.parsers[first] = p
	}
	return d
}

// firstLayer returns the layer a packet of the link type starts with, or 0
// for a link type the decoder does not know.
func firstLayer(link layers.LinkType, data []byte) gopacket.LayerType {
	switch link {
	case layers.LinkTypeEthernet:
		return layers.LayerTypeEthernet
	case layers.LinkTypeLinuxSLL:
		return layers.LayerTypeLinuxSLL
	case layers.LinkTypeLinuxSLL2:
		return layers.LayerTypeLinuxSLL2
	case layers.LinkTypeNull, layers.LinkTypeLoop:
		return layers.LayerTypeLoopback
	case layers.LinkTypeIPv4:
		return layers.LayerTypeIPv4
	case layers.LinkTypeIPv6:
		return layers.LayerTypeIPv6
	case layers.LinkTypeRaw, 12, 14: // 12 and 14: DLT_RAW on some BSDs
		if len(data) > 0 && data[0]>>4 == 6 {
			return layers.LayerTypeIPv6
		}
		return layers.LayerTypeIPv4
	}
	return 0
}

// payload returns the TCP payload length of the packet, in bytes, as its
// IP and TCP headers declare it (bytes a snap length cut off count), and
// whether the packet is a TCP segment that decodes: Ethernet (with 802.1Q
// tags), Linux cooked v1 and v2, BSD loopback or raw IP, then IPv4 (not a
// fragment) or IPv6 (no extension header but hop-by-hop), then TCP.
func (d *tcpDecoder) payload(link layers.LinkType, data []byte) (int, bool) {
	first := firstLayer(link, data)
	p := d.parsers[first]
	if p == nil {
		return 0, false
	}
	if err := p.DecodeLayers(data, &d.decoded); err != nil {
		return 0, false
	}
	var v4, v6, tcp bool
	for _, t := range d.decoded {
		switch t {
		case layers.LayerTypeIPv4:
			v4 = true
		case layers.LayerTypeIPv6:
			v6 = true
		case layers.LayerTypeTCP:
			tcp = true
		}
	}
	if !tcp {
		return 0, false
	}
	captured := len(d.tcp.Payload)
	header := int(d.tcp.DataOffset) * 4
	switch {
	case v4 && d.ip4.Length != 0: // 0: a TSO super-packet, length unknown
		return max(int(d.ip4.Length)-int(d.ip4.IHL)*4-header, captured), true
	case v6 && d.ip6.Length != 0: // 0: a jumbogram
		declared := int(d.ip6.Length) - header
		if d.ip6.HopByHop != nil {
			declared -= d.ip6.HopByHop.ActualLength
		}
		return max(declared, captured), true
	}
	return captured, true
}
