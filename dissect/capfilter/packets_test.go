package capfilter

import (
	"encoding/binary"
	"fmt"
	"net"
	"strings"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// fragKind says whether a test packet is an IP fragment.
type fragKind uint8

const (
	notFrag   fragKind = iota
	fragFirst          // offset 0, more fragments: carries the transport header
	fragLater          // offset > 0: no transport header
)

// tag is an 802.1Q/802.1ad tag of a test packet.
type tag struct {
	tpid layers.EthernetType
	id   uint16
}

// pkt describes a test packet. The network and transport layers are built
// with gopacket's serializers; link headers gopacket cannot serialize
// (Linux SLL and SLL2, SCTP) are written by hand.
type pkt struct {
	link     layers.LinkType
	tags     []tag // Ethernet only, outermost first
	arp      bool  // an ARP request from src for dst instead of IP
	src, dst string
	proto    layers.IPProtocol // TCP, UDP, SCTP, ICMPv4
	sport    uint16
	dport    uint16
	frag     fragKind
	ipOpts   bool // IPv4 with 8 bytes of options, so the transport header is not at a fixed offset
	keep     int  // bytes captured (snap length); 0 keeps all
}

func (p pkt) v6() bool { return strings.Contains(p.src, ":") }

func (p pkt) String() string {
	var b strings.Builder
	for _, t := range p.tags {
		fmt.Fprintf(&b, "%v:%d/", t.tpid, t.id)
	}
	switch {
	case p.arp:
		fmt.Fprintf(&b, "ARP %s>%s", p.src, p.dst)
	default:
		fmt.Fprintf(&b, "%v %s:%d>%s:%d", p.proto, p.src, p.sport, p.dst, p.dport)
	}
	if p.frag != notFrag {
		fmt.Fprintf(&b, " frag%d", p.frag)
	}
	if p.ipOpts {
		b.WriteString(" opts")
	}
	if p.keep > 0 {
		fmt.Fprintf(&b, " keep%d", p.keep)
	}
	return b.String()
}

func mustSerialize(ls ...gopacket.SerializableLayer) []byte {
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true}, ls...); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// transport returns the transport header and a small payload.
func (p pkt) transport() []byte {
	payload := gopacket.Payload("kafka\x00\x00\x00\x10")
	switch p.proto {
	case layers.IPProtocolTCP:
		return mustSerialize(&layers.TCP{SrcPort: layers.TCPPort(p.sport), DstPort: layers.TCPPort(p.dport), Seq: 1, ACK: true, PSH: true, Window: 512}, payload)
	case layers.IPProtocolUDP:
		return mustSerialize(&layers.UDP{SrcPort: layers.UDPPort(p.sport), DstPort: layers.UDPPort(p.dport)}, payload)
	case layers.IPProtocolSCTP:
		// Common header: ports, verification tag, checksum; then a chunk.
		h := binary.BigEndian.AppendUint16(nil, p.sport)
		h = binary.BigEndian.AppendUint16(h, p.dport)
		h = append(h, 0, 0, 0, 1, 0, 0, 0, 0)
		return append(h, 0, 0, 0, 4) // an empty DATA chunk header
	default: // ICMP echo request
		return []byte{8, 0, 0, 0, 0, 1, 0, 1}
	}
}

// network returns the network layer bytes and their EtherType.
func (p pkt) network() ([]byte, layers.EthernetType) {
	if p.arp {
		return mustSerialize(&layers.ARP{
			AddrType: layers.LinkTypeEthernet, Protocol: layers.EthernetTypeIPv4,
			HwAddressSize: 6, ProtAddressSize: 4, Operation: layers.ARPRequest,
			SourceHwAddress: net.HardwareAddr{2, 0, 0, 0, 0, 1}, SourceProtAddress: net.ParseIP(p.src).To4(),
			DstHwAddress: make(net.HardwareAddr, 6), DstProtAddress: net.ParseIP(p.dst).To4(),
		}), layers.EthernetTypeARP
	}
	body := p.transport()
	if p.frag == fragLater {
		// What follows the first fragment: bytes that would read as ports
		// 9092 > 9092 if a filter wrongly looked for a transport header.
		body = []byte{0x23, 0x84, 0x23, 0x84, 0, 0, 0, 0, 0, 0, 0, 0}
	}
	if p.v6() {
		ip := &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: p.proto, SrcIP: net.ParseIP(p.src), DstIP: net.ParseIP(p.dst)}
		if p.frag == notFrag {
			return mustSerialize(ip, gopacket.Payload(body)), layers.EthernetTypeIPv6
		}
		ip.NextHeader = layers.IPProtocolIPv6Fragment
		fh := &layers.IPv6Fragment{NextHeader: p.proto, MoreFragments: p.frag == fragFirst, Identification: 7}
		if p.frag == fragLater {
			fh.FragmentOffset = 100
		}
		return mustSerialize(ip, fh, gopacket.Payload(body)), layers.EthernetTypeIPv6
	}
	ip := &layers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: p.proto, SrcIP: net.ParseIP(p.src).To4(), DstIP: net.ParseIP(p.dst).To4(), Id: 7}
	switch p.frag {
	case fragFirst:
		ip.Flags = layers.IPv4MoreFragments
	case fragLater:
		ip.FragOffset = 100
	}
	if p.ipOpts {
		// Two NOPs and an end-of-options list padded to 8 bytes.
		ip.Options = []layers.IPv4Option{{OptionType: 1}, {OptionType: 1}, {OptionType: 1}, {OptionType: 1}, {OptionType: 1}, {OptionType: 1}, {OptionType: 1}, {OptionType: 0}}
	}
	return mustSerialize(ip, gopacket.Payload(body)), layers.EthernetTypeIPv4
}

// trailer returns how many bytes at the end of the packet no filter of
// the subset reads: everything after the ports (or the IP header of a
// later fragment, or the ICMP header).
func (p pkt) trailer() int {
	const payload = 9 // transport()'s payload
	switch {
	case p.arp:
		return 0
	case p.frag == fragLater:
		return 12
	case p.proto == layers.IPProtocolTCP:
		return 20 - 4 + payload
	case p.proto == layers.IPProtocolUDP:
		return 8 - 4 + payload
	case p.proto == layers.IPProtocolSCTP:
		return 16 - 4
	}
	return 8
}

// bytes returns the packet as captured on its link type.
func (p pkt) bytes() []byte {
	body, etype := p.network()
	var b []byte
	switch p.link {
	case layers.LinkTypeEthernet:
		var ls []gopacket.SerializableLayer
		eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2}, EthernetType: etype}
		ls = append(ls, eth)
		if len(p.tags) > 0 {
			eth.EthernetType = p.tags[0].tpid
			for i, t := range p.tags {
				next := etype
				if i+1 < len(p.tags) {
					next = p.tags[i+1].tpid
				}
				ls = append(ls, &layers.Dot1Q{VLANIdentifier: t.id, Priority: 3, Type: next})
			}
		}
		b = mustSerialize(append(ls, gopacket.Payload(body))...)
	case layers.LinkTypeLinuxSLL:
		// Packet type (host), ARPHRD_ETHER, address length, address
		// padded to 8 bytes, protocol.
		b = []byte{0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0}
		b = binary.BigEndian.AppendUint16(b, uint16(etype))
		b = append(b, body...)
	case layers.LinkTypeLinuxSLL2:
		// Protocol, reserved, interface index, ARPHRD_ETHER, packet type,
		// address length, address padded to 8 bytes.
		b = binary.BigEndian.AppendUint16(nil, uint16(etype))
		b = append(b, 0, 0, 0, 0, 0, 1, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0)
		b = append(b, body...)
	case layers.LinkTypeNull, layers.LinkTypeLoop:
		if etype == layers.EthernetTypeARP {
			panic("no ARP on BSD loopback")
		}
		af := uint32(2)
		if etype == layers.EthernetTypeIPv6 {
			// Darwin's AF_INET6. libpcap takes the BSD values (24, 28, 30)
			// in capture files; Linux never writes this link type.
			af = 30
		}
		// Null: the writing host's byte order, little-endian here (as the
		// pcap file); Loop: network byte order.
		if p.link == layers.LinkTypeNull {
			b = binary.LittleEndian.AppendUint32(nil, af)
		} else {
			b = binary.BigEndian.AppendUint32(nil, af)
		}
		b = append(b, body...)
	case layers.LinkTypeRaw, layers.LinkTypeIPv4, layers.LinkTypeIPv6:
		b = body
	default:
		panic(fmt.Sprintf("link type %v", p.link))
	}
	if p.keep > 0 && p.keep < len(b) {
		b = b[:p.keep]
	}
	return b
}
