// Package capfilter compiles tcpdump-style capture filter expressions
// ("tcp port 9092 and host 10.0.0.1") to classic BPF, in pure Go: the
// same program filters packets in the kernel during a live capture
// (SO_ATTACH_FILTER) and in user space for capture files (bpf.VM).
//
// The built-in compiler takes the subset of libpcap's syntax a Kafka user
// needs (see Subset) with libpcap's meaning, which tests hold it to by
// running tcpdump over the same packets:
//
//   - host H, src host H, dst host H: IPv4 or IPv6 addresses (no names);
//     without ip/ip6 an IPv4 host also matches ARP and RARP addresses; a
//     partial IPv4 address ("host 10.1") is a network, as in libpcap.
//   - net N/LEN, net N mask M, net N with a partial IPv4 address: the
//     same, under a mask.
//   - port P, portrange A-B, with src/dst: TCP, UDP or SCTP unless
//     qualified with tcp, udp or sctp. IPv4 fragments after the first do
//     not match (they carry no port); IPv6 extension headers are not
//     followed.
//   - ip, ip6, tcp, udp, sctp on their own; tcp, udp and sctp also
//     match after an IPv6 fragment header.
//   - vlan [ID] on Ethernet: an 802.1Q, 802.1ad or 0x9100 tag; every
//     primitive written after it looks inside the tag.
//   - and/&&, or/|| (equal precedence, left to right), not/!, parentheses,
//     and libpcap's inherited qualifiers: "port 9092 or 9093",
//     "host 10.0.0.1 and not 10.0.0.2", "port (9092 or 9093)".
//
// Deliberate differences from libpcap:
//
//   - On BSD loopback (Null/Loop) captures the address family is accepted
//     in either byte order and with Linux's AF_INET6 (10) besides the BSD
//     values (24, 28, 30), as the dissector decodes them; libpcap takes the
//     BSD values in the capture's byte order.
//   - The program is not optimized. A load past the end of a packet
//     rejects it in both, but libpcap's optimizer drops loads it can prove
//     redundant, so for a packet cut short inside the headers a filter
//     reads (a snap length under about 60 bytes) the two can disagree.
//
// Anything else is an *Error that names the unsupported part and wraps
// ErrUnsupported. Built with the libpcap tag (cgo), Parse hands such
// expressions to libpcap instead, which takes its full syntax.
package capfilter

import (
	"fmt"
	"strings"

	"github.com/gopacket/gopacket/layers"
	"golang.org/x/net/bpf"
)

// Filter is a parsed capture filter expression, ready to compile for any
// link type. It holds no mutable state and may be shared.
type Filter struct {
	expr string
	root node // nil: an empty expression, which matches everything
	vlan bool // the expression has a vlan primitive
	// external compiles expressions the built-in compiler does not
	// take (the libpcap build); nil otherwise.
	external func(layers.LinkType) ([]bpf.Instruction, error)
}

// ParseSubset parses expr with the built-in compiler only, whatever the
// build. An empty expression matches every packet.
func ParseSubset(expr string) (*Filter, error) {
	root, err := parse(expr)
	if err != nil {
		return nil, err
	}
	return &Filter{expr: expr, root: root, vlan: hasVLAN(root)}, nil
}

func hasVLAN(n node) bool {
	switch n := n.(type) {
	case *andNode:
		return hasVLAN(n.l) || hasVLAN(n.r)
	case *orNode:
		return hasVLAN(n.l) || hasVLAN(n.r)
	case *notNode:
		return hasVLAN(n.x)
	case *primNode:
		return n.kind == primVLAN
	}
	return false
}

// String returns the expression as given.
func (f *Filter) String() string { return f.expr }

// MatchesAll reports whether the expression is empty: every packet matches.
func (f *Filter) MatchesAll() bool {
	return f.external == nil && f.root == nil
}

// UsesVLAN reports whether the expression has a vlan primitive. Such a
// program reads 802.1Q tags in the packet data, where a Linux packet
// socket does not put them (the kernel hands the tag over beside the
// packet), so a live capture runs it in user space on the packet with its
// tag put back.
func (f *Filter) UsesVLAN() bool { return f.vlan }

// Compile returns the classic BPF program for packets of the given link
// type: it returns AcceptLength for a packet the expression matches and 0
// for any other. The error says when the link type is not supported or the
// expression cannot apply to it (vlan on a link without VLAN tags).
func (f *Filter) Compile(link layers.LinkType) ([]bpf.Instruction, error) {
	if f.external != nil {
		return f.external(link)
	}
	l, err := layoutFor(link)
	if err != nil {
		return nil, fmt.Errorf("filter %q: %w", f.expr, err)
	}
	x, err := compileNode(f.root, l)
	if err != nil {
		return nil, fmt.Errorf("filter %q: %w", f.expr, err)
	}
	return generate(x), nil
}

// Matcher runs a Filter over packets in user space, compiling it for each
// link type the first time it sees one: a pcapng file can mix link types.
// It is not safe for concurrent use.
type Matcher struct {
	f     *Filter
	progs map[layers.LinkType]compiled
}

type compiled struct {
	vm  *bpf.VM
	err error
}

// NewMatcher returns a Matcher for f.
func NewMatcher(f *Filter) *Matcher {
	return &Matcher{f: f, progs: make(map[layers.LinkType]compiled)}
}

// Match reports whether f accepts the packet data of the given link type.
// When the filter cannot be compiled for the link type, the packet does
// not match and the error says why; it is the same error for every packet
// of that link type, so a caller can report it once.
func (m *Matcher) Match(link layers.LinkType, data []byte) (bool, error) {
	c, ok := m.progs[link]
	if !ok {
		prog, err := m.f.Compile(link)
		if err == nil {
			c.vm, err = bpf.NewVM(prog)
		}
		c.err = err
		m.progs[link] = c
	}
	if c.err != nil {
		return false, c.err
	}
	n, err := c.vm.Run(data)
	if err != nil {
		return false, fmt.Errorf("filter %q: %w", m.f.expr, err)
	}
	return n > 0, nil
}

// Disassemble formats a program one instruction per line, numbered as
// tcpdump -d numbers them, for debugging and tests.
func Disassemble(prog []bpf.Instruction) string {
	var b strings.Builder
	for i, ins := range prog {
		fmt.Fprintf(&b, "(%03d) %v\n", i, ins)
	}
	return b.String()
}
