//go:build libpcap

package capfilter

import (
	"errors"
	"fmt"

	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcap"
	"golang.org/x/net/bpf"
)

// Parse parses a capture filter expression. This build (libpcap tag)
// compiles the subset described in the package documentation itself, with
// the same results as libpcap, and hands any other expression to libpcap,
// which takes its full syntax. Such an expression must compile for
// Ethernet, which is checked at once so that a mistake is reported before
// any packet is read. An empty expression matches every packet.
func Parse(expr string) (*Filter, error) {
	f, err := ParseSubset(expr)
	if err == nil || !errors.Is(err, ErrUnsupported) {
		return f, err
	}
	if _, perr := pcap.CompileBPFFilter(layers.LinkTypeEthernet, AcceptLength, expr); perr != nil {
		return nil, fmt.Errorf("filter %q: %v (libpcap)", expr, perr)
	}
	return &Filter{expr: expr, external: func(link layers.LinkType) ([]bpf.Instruction, error) {
		return compileLibpcap(expr, link)
	}}, nil
}

// compileLibpcap compiles expr for a link type with libpcap.
func compileLibpcap(expr string, link layers.LinkType) ([]bpf.Instruction, error) {
	prog, err := pcap.CompileBPFFilter(link, AcceptLength, expr)
	if err != nil {
		return nil, fmt.Errorf("filter %q on link type %s: %v (libpcap)", expr, link, err)
	}
	raw := make([]bpf.RawInstruction, len(prog))
	for i, ins := range prog {
		raw[i] = bpf.RawInstruction{Op: ins.Code, Jt: ins.Jt, Jf: ins.Jf, K: ins.K}
	}
	insns, _ := bpf.Disassemble(raw) // what does not disassemble stays a RawInstruction, which still assembles
	return insns, nil
}
