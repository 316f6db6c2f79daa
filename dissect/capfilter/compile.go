package capfilter

import (
	"encoding/binary"
	"fmt"

	"golang.org/x/net/bpf"
)

// bexpr is a boolean formula over packet tests: what a primitive means
// for one link type, before code generation.
type bexpr struct {
	op   bop
	l, r *bexpr // opAnd, opOr: both; opNot: l
	t    test   // opTest
}

type bop uint8

const (
	opTrue bop = iota + 1
	opFalse
	opAnd
	opOr
	opNot
	opTest
)

var (
	bTrue  = &bexpr{op: opTrue}
	bFalse = &bexpr{op: opFalse}
)

// test loads a field of the packet and compares it.
type test struct {
	size uint8  // field size: 1, 2 or 4 bytes, big-endian
	off  uint32 // offset from the start of the packet, or past the IPv4 header for indirect
	// indirect loads relative to the end of the IPv4 header that starts at
	// ipOff: its length comes from the header itself (IHL), as BPF's
	// "ldxb 4*([ipOff]&0xf)" computes it.
	indirect bool
	ipOff    uint32
	mask     uint32 // ANDed with the field before comparing; 0 for none
	cond     bpf.JumpTest
	// vals are compared with JumpEqual: the test holds if any is equal.
	// The other conditions take one.
	vals []uint32
}

func and(a, b *bexpr) *bexpr {
	switch {
	case a.op == opFalse || b.op == opFalse:
		return bFalse
	case a.op == opTrue:
		return b
	case b.op == opTrue:
		return a
	}
	return &bexpr{op: opAnd, l: a, r: b}
}

func or(a, b *bexpr) *bexpr {
	switch {
	case a.op == opTrue || b.op == opTrue:
		return bTrue
	case a.op == opFalse:
		return b
	case b.op == opFalse:
		return a
	}
	return &bexpr{op: opOr, l: a, r: b}
}

func not(a *bexpr) *bexpr {
	switch a.op {
	case opTrue:
		return bFalse
	case opFalse:
		return bTrue
	case opNot:
		return a.l
	}
	return &bexpr{op: opNot, l: a}
}

func ands(xs ...*bexpr) *bexpr {
	r := bTrue
	for _, x := range xs {
		r = and(r, x)
	}
	return r
}

func leaf(t test) *bexpr { return &bexpr{op: opTest, t: t} }

// eq tests that the size-byte field at off equals one of vals.
func eq(size uint8, off uint32, vals ...uint32) *bexpr {
	return leaf(test{size: size, off: off, cond: bpf.JumpEqual, vals: vals})
}

// masked tests that the field at off, ANDed with mask, equals val.
func masked(size uint8, off, mask, val uint32) *bexpr {
	if mask == 0 {
		return bool2expr(val == 0)
	}
	if full := uint32(0xffffffff) >> (32 - 8*uint32(size)); mask == full {
		mask = 0
	}
	return leaf(test{size: size, off: off, mask: mask, cond: bpf.JumpEqual, vals: []uint32{val}})
}

func bool2expr(b bool) *bexpr {
	if b {
		return bTrue
	}
	return bFalse
}

// compile turns the syntax tree into a formula for one link layout.
func compileNode(n node, l layout) (*bexpr, error) {
	switch n := n.(type) {
	case nil:
		return bTrue, nil
	case *andNode:
		a, err := compileNode(n.l, l)
		if err != nil {
			return nil, err
		}
		b, err := compileNode(n.r, l)
		if err != nil {
			return nil, err
		}
		return and(a, b), nil
	case *orNode:
		a, err := compileNode(n.l, l)
		if err != nil {
			return nil, err
		}
		b, err := compileNode(n.r, l)
		if err != nil {
			return nil, err
		}
		return or(a, b), nil
	case *notNode:
		a, err := compileNode(n.x, l)
		if err != nil {
			return nil, err
		}
		return not(a), nil
	case *primNode:
		return compilePrim(n, l)
	}
	return nil, fmt.Errorf("capfilter: unknown node %T", n)
}

func compilePrim(p *primNode, l layout) (*bexpr, error) {
	if p.depth > 0 || p.kind == primVLAN {
		if !l.vlan {
			return nil, fmt.Errorf("%s: no VLAN support for %s", p.text, l.name)
		}
		l = l.shifted(p.depth)
	}
	switch p.kind {
	case primVLAN:
		x := eq(2, l.typeOff, vlanTPIDs...)
		if p.vlanID >= 0 {
			x = and(x, masked(2, l.typeOff+2, 0x0fff, uint32(p.vlanID)))
		}
		return x, nil
	case primProto:
		switch p.proto {
		case protoIP:
			return l.isIPv4(), nil
		case protoIP6:
			return l.isIPv6(), nil
		}
		return or(ipv4Proto(l, p.proto.number()), ipv6ProtoFrag(l, p.proto.number())), nil
	case primAddr:
		return compileAddr(p, l), nil
	case primPort:
		return compilePort(p, l), nil
	}
	return nil, fmt.Errorf("capfilter: unknown primitive kind %d", p.kind)
}

// ipv4Proto tests for IPv4 carrying one of the protocols.
func ipv4Proto(l layout, protos ...uint32) *bexpr {
	return and(l.isIPv4(), eq(1, l.netOff+9, protos...))
}

// ipv6ProtoFrag tests for IPv6 carrying proto, directly or after a
// fragment header: what libpcap's "ip6 proto" (hence "tcp") means.
// Other extension headers are not followed.
func ipv6ProtoFrag(l layout, proto uint32) *bexpr {
	nh := l.netOff + 6
	return and(l.isIPv6(), or(eq(1, nh, proto), and(eq(1, nh, ipprotoFrag), eq(1, l.netOff+40, proto))))
}

// compileAddr compiles host and net. An IPv4 address without a protocol
// qualifier also matches ARP and RARP sender and target addresses, on the
// link types that carry them, as in libpcap.
func compileAddr(p *primNode, l layout) *bexpr {
	if len(p.addr) == 16 {
		return and(l.isIPv6(), byDir(p.dir, addrMatch(p, l.netOff+8), addrMatch(p, l.netOff+24)))
	}
	x := and(l.isIPv4(), byDir(p.dir, addrMatch(p, l.netOff+12), addrMatch(p, l.netOff+16)))
	if p.proto == protoNone {
		// ARP for IPv4 over Ethernet: sender protocol address at 14,
		// target at 24.
		x = or(x, and(l.isARP(), byDir(p.dir, addrMatch(p, l.netOff+14), addrMatch(p, l.netOff+24))))
	}
	return x
}

// addrMatch tests that the address at off, under the primitive's mask,
// is its address, one 32-bit word at a time.
func addrMatch(p *primNode, off uint32) *bexpr {
	x := bTrue
	for i := 0; i < len(p.addr); i += 4 {
		a := binary.BigEndian.Uint32(p.addr[i:])
		m := binary.BigEndian.Uint32(p.mask[i:])
		x = and(x, masked(4, off+uint32(i), m, a&m))
	}
	return x
}

// byDir combines the source and destination tests of a primitive.
func byDir(d dir, src, dst *bexpr) *bexpr {
	switch d {
	case dirSrc:
		return src
	case dirDst:
		return dst
	case dirBoth:
		return and(src, dst)
	}
	return or(src, dst)
}

// compilePort compiles port and portrange. Without a protocol qualifier
// a port is TCP, UDP or SCTP, as in libpcap. As in libpcap, the IPv6
// next header is not followed through extension headers, and IPv4
// fragments after the first never match: they carry no port.
func compilePort(p *primNode, l layout) *bexpr {
	protos := []uint32{ipprotoSCTP, ipprotoTCP, ipprotoUDP}
	if p.proto != protoNone {
		protos = []uint32{p.proto.number()}
	}
	portTest := func(t test) *bexpr {
		if p.lo == p.hi {
			t.cond, t.vals = bpf.JumpEqual, []uint32{uint32(p.lo)}
			return leaf(t)
		}
		ge, gt := t, t
		ge.cond, ge.vals = bpf.JumpGreaterOrEqual, []uint32{uint32(p.lo)}
		gt.cond, gt.vals = bpf.JumpGreaterThan, []uint32{uint32(p.hi)}
		return and(leaf(ge), not(leaf(gt)))
	}
	v6 := ands(l.isIPv6(), eq(1, l.netOff+6, protos...), byDir(p.dir,
		portTest(test{size: 2, off: l.netOff + 40}),
		portTest(test{size: 2, off: l.netOff + 42})))
	v4 := ands(ipv4Proto(l, protos...),
		not(leaf(test{size: 2, off: l.netOff + 6, cond: bpf.JumpBitsSet, vals: []uint32{0x1fff}})),
		byDir(p.dir,
			portTest(test{size: 2, off: l.netOff, indirect: true, ipOff: l.netOff}),
			portTest(test{size: 2, off: l.netOff + 2, indirect: true, ipOff: l.netOff})))
	return or(v6, v4)
}
