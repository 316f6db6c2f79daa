package capfilter

import (
	"fmt"

	"github.com/gopacket/gopacket/layers"
)

// netKind is how a link layer says which network protocol follows.
type netKind uint8

const (
	netEtherType netKind = iota + 1 // a 16-bit EtherType at typeOff (Ethernet, Linux SLL, SLL2)
	netFamily                       // a 32-bit address family first (BSD Null and Loop)
	netVersion                      // none: the IP version nibble of the first byte (raw IP)
	netOnlyIPv4                     // every packet is IPv4 (LINKTYPE_IPV4)
	netOnlyIPv6                     // every packet is IPv6 (LINKTYPE_IPV6)
)

// layout is where the headers a filter reads start in a packet of one
// link type. Offsets are in bytes from the start of the packet.
type layout struct {
	name    string
	kind    netKind
	typeOff uint32 // netEtherType: offset of the EtherType
	netOff  uint32 // offset of the IPv4/IPv6 (or ARP) header
	vlan    bool   // 802.1Q tags can follow the link header (Ethernet)
	arp     bool   // ARP and RARP share the EtherType space, so host matches their addresses, as libpcap does
}

// Link types gopacket has no name for: DLT_RAW on some BSDs, where the
// packet is a bare IPv4 or IPv6 header as with LINKTYPE_RAW (101). The
// dissector reads the same ones.
const (
	linkTypeRawBSD12 layers.LinkType = 12
	linkTypeRawBSD14 layers.LinkType = 14
)

// layoutFor returns the layout of a link type: the ones the dissector
// decodes.
func layoutFor(link layers.LinkType) (layout, error) {
	switch link {
	case layers.LinkTypeEthernet:
		return layout{name: "Ethernet", kind: netEtherType, typeOff: 12, netOff: 14, vlan: true, arp: true}, nil
	case layers.LinkTypeLinuxSLL:
		// packet type, ARPHRD, address length, 8-byte address, protocol.
		return layout{name: "Linux cooked v1", kind: netEtherType, typeOff: 14, netOff: 16, arp: true}, nil
	case layers.LinkTypeLinuxSLL2:
		// protocol, reserved, interface index, ARPHRD, packet type, address
		// length, 8-byte address.
		return layout{name: "Linux cooked v2", kind: netEtherType, typeOff: 0, netOff: 20, arp: true}, nil
	case layers.LinkTypeNull, layers.LinkTypeLoop:
		return layout{name: "BSD loopback", kind: netFamily, netOff: 4}, nil
	case layers.LinkTypeRaw, linkTypeRawBSD12, linkTypeRawBSD14:
		return layout{name: "Raw IP", kind: netVersion}, nil
	case layers.LinkTypeIPv4:
		return layout{name: "Raw IPv4", kind: netOnlyIPv4}, nil
	case layers.LinkTypeIPv6:
		return layout{name: "Raw IPv6", kind: netOnlyIPv6}, nil
	}
	return layout{}, fmt.Errorf("link type %s (%d) is not supported by the filter compiler (it takes Ethernet, Linux SLL and SLL2, BSD loopback and raw IP)", link, int(link))
}

// shifted returns the layout seen after depth 802.1Q tags.
func (l layout) shifted(depth int) layout {
	l.typeOff += 4 * uint32(depth)
	l.netOff += 4 * uint32(depth)
	return l
}

// EtherTypes and address families.
const (
	etherTypeIPv4 = 0x0800
	etherTypeIPv6 = 0x86dd
	etherTypeARP  = 0x0806
	etherTypeRARP = 0x8035

	afInet = 2
)

// afInet6 are the values of AF_INET6 on the systems that write BSD
// loopback captures: Linux, NetBSD/OpenBSD, FreeBSD, Darwin.
var afInet6 = []uint32{10, 24, 28, 30}

// vlanTPIDs are the EtherTypes libpcap takes for a VLAN tag: 802.1Q,
// 802.1ad and the old QinQ value.
var vlanTPIDs = []uint32{0x8100, 0x88a8, 0x9100}

// bswap32 reverses the bytes of v.
func bswap32(v uint32) uint32 {
	return v>>24 | (v>>8)&0xff00 | (v<<8)&0xff0000 | v<<24
}

// families returns the family values to accept in either byte order: the
// Null header is in the byte order of the machine that wrote the capture,
// which the filter cannot know, and the dissector takes both.
func families(vs ...uint32) []uint32 {
	var out []uint32
	for _, v := range vs {
		out = append(out, v, bswap32(v))
	}
	return out
}

// isIPv4 tests that the network header is IPv4.
func (l layout) isIPv4() *bexpr {
	switch l.kind {
	case netEtherType:
		return eq(2, l.typeOff, etherTypeIPv4)
	case netFamily:
		return eq(4, 0, families(afInet)...)
	case netVersion:
		return masked(1, 0, 0xf0, 0x40)
	case netOnlyIPv4:
		return bTrue
	}
	return bFalse
}

// isIPv6 tests that the network header is IPv6.
func (l layout) isIPv6() *bexpr {
	switch l.kind {
	case netEtherType:
		return eq(2, l.typeOff, etherTypeIPv6)
	case netFamily:
		return eq(4, 0, families(afInet6...)...)
	case netVersion:
		return masked(1, 0, 0xf0, 0x60)
	case netOnlyIPv6:
		return bTrue
	}
	return bFalse
}

// isARP tests that the network header is ARP or RARP.
func (l layout) isARP() *bexpr {
	if !l.arp {
		return bFalse
	}
	return eq(2, l.typeOff, etherTypeARP, etherTypeRARP)
}
