package capedit

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/gopacket/gopacket/layers"
)

// ErrNotFragmentable is wrapped by the error Fragment returns for a packet
// it cannot split: not IPv4 or IPv6 on a link type it knows, a fragment
// already, cut by the snap length, or headers that do not add up.
var ErrNotFragmentable = errors.New("packet cannot be fragmented")

// Fragment splits an IPv4 or IPv6 packet (with its link-layer header, as
// captured) into IP fragments carrying at most size bytes of the IP
// payload each (size rounded down to a multiple of 8, at least 8), in
// offset order, each with the packet's link-layer header. An IPv4 packet
// is split as a router on a smaller MTU would, with its Don't Fragment
// flag cleared and id as its identification (the low 16 bits), every
// header option copied into every fragment; an IPv6 packet as its sender
// would, with a fragment header of identification id after the IPv6
// header and any hop-by-hop and routing headers. A packet whose IP payload
// is at most size bytes is returned alone, unchanged. The packet must be
// captured whole; the fragments are new slices.
func Fragment(link layers.LinkType, data []byte, size int, id uint32) ([][]byte, error) {
	off, ok := ipOffset(link, data)
	if !ok {
		return nil, fmt.Errorf("link type %v: %w", link, ErrNotFragmentable)
	}
	size = max(8, size&^7)
	lh, ip := data[:off], data[off:]
	var hdr, total int
	var v6 bool
	switch {
	case len(ip) >= 20 && ip[0]>>4 == 4:
		hdr, total = int(ip[0]&0x0f)*4, int(binary.BigEndian.Uint16(ip[2:4]))
		if binary.BigEndian.Uint16(ip[6:8])&0x3fff != 0 {
			return nil, fmt.Errorf("an IPv4 fragment already: %w", ErrNotFragmentable)
		}
	case len(ip) >= 40 && ip[0]>>4 == 6:
		v6, total = true, 40+int(binary.BigEndian.Uint16(ip[4:6]))
		// The unfragmentable part ends after hop-by-hop and routing headers.
		nh, at := 6, 40
		for (ip[nh] == byte(layers.IPProtocolIPv6HopByHop) || ip[nh] == byte(layers.IPProtocolIPv6Routing)) && at+8 <= len(ip) {
			nh, at = at, at+(int(ip[at+1])+1)*8
		}
		if ip[nh] == byte(layers.IPProtocolIPv6Fragment) {
			return nil, fmt.Errorf("an IPv6 fragment already: %w", ErrNotFragmentable)
		}
		hdr = at
	default:
		return nil, fmt.Errorf("not IPv4 or IPv6: %w", ErrNotFragmentable)
	}
	if hdr < 20 || total < hdr || total > len(ip) || v6 && total == 40 {
		return nil, fmt.Errorf("IP lengths %d and %d in a packet of %d bytes: %w", hdr, total, len(ip), ErrNotFragmentable)
	}
	payload := ip[hdr:total]
	if len(payload) <= size {
		return [][]byte{data}, nil
	}
	var out [][]byte
	for start := 0; start < len(payload); start += size {
		chunk := payload[start:min(start+size, len(payload))]
		more := start+size < len(payload)
		if v6 {
			out = append(out, fragment6(lh, ip[:hdr], chunk, start, more, id))
		} else {
			out = append(out, fragment4(lh, ip[:hdr], chunk, start, more, uint16(id)))
		}
	}
	return out, nil
}

func fragment4(lh, hdr, chunk []byte, start int, more bool, id uint16) []byte {
	p := make([]byte, 0, len(lh)+len(hdr)+len(chunk))
	p = append(append(append(p, lh...), hdr...), chunk...)
	h := p[len(lh) : len(lh)+len(hdr)]
	binary.BigEndian.PutUint16(h[2:4], uint16(len(hdr)+len(chunk)))
	binary.BigEndian.PutUint16(h[4:6], id)
	fo := uint16(start / 8)
	if more {
		fo |= 0x2000
	}
	binary.BigEndian.PutUint16(h[6:8], fo)
	binary.BigEndian.PutUint16(h[10:12], 0)
	binary.BigEndian.PutUint16(h[10:12], ipv4Checksum(h))
	return p
}

// fragment6 builds an IPv6 fragment: the unfragmentable part (hdr), whose
// last next-header field is made to name the fragment header, then the
// fragment header and the chunk.
func fragment6(lh, hdr, chunk []byte, start int, more bool, id uint32) []byte {
	p := make([]byte, 0, len(lh)+len(hdr)+8+len(chunk))
	p = append(append(p, lh...), hdr...)
	h := p[len(lh):]
	nh := 6
	for at := 40; at < len(hdr); at += (int(hdr[at+1]) + 1) * 8 {
		nh = at
	}
	next := h[nh]
	h[nh] = byte(layers.IPProtocolIPv6Fragment)
	binary.BigEndian.PutUint16(h[4:6], uint16(len(hdr)-40+8+len(chunk)))
	fo := uint16(start/8) << 3
	if more {
		fo |= 1
	}
	fh := []byte{next, 0, byte(fo >> 8), byte(fo), byte(id >> 24), byte(id >> 16), byte(id >> 8), byte(id)}
	return append(append(p, fh...), chunk...)
}

func ipv4Checksum(h []byte) uint16 {
	var sum uint32
	for i := 0; i+1 < len(h); i += 2 {
		sum += uint32(binary.BigEndian.Uint16(h[i:]))
	}
	for sum > 0xffff {
		sum = sum&0xffff + sum>>16
	}
	return ^uint16(sum)
}

// ipOffset returns where the IP header starts in a packet of the link
// type: after an Ethernet header and its 802.1Q/802.1ad tags, a Linux
// cooked header (v1 or v2), a BSD loopback header, or at once for raw IP.
func ipOffset(link layers.LinkType, data []byte) (int, bool) {
	off := 0
	switch link {
	case layers.LinkTypeEthernet:
		off = 14
		for n := 0; n < 2 && len(data) >= off+4; n++ {
			if t := layers.EthernetType(binary.BigEndian.Uint16(data[off-2:])); t != layers.EthernetTypeDot1Q && t != layers.EthernetTypeQinQ {
				break
			}
			off += 4
		}
	case layers.LinkTypeLinuxSLL:
		off = 16
	case layers.LinkTypeLinuxSLL2:
		off = 20
	case layers.LinkTypeNull, layers.LinkTypeLoop:
		off = 4
	case layers.LinkTypeRaw, layers.LinkTypeIPv4, layers.LinkTypeIPv6, 12, 14:
	default:
		return 0, false
	}
	return off, len(data) > off
}
