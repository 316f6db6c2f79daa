package capfilter

import (
	"testing"

	"github.com/gopacket/gopacket/layers"
	"golang.org/x/net/bpf"
)

// FuzzParse checks that no expression panics the parser or the compiler,
// that every program compiled for every link type is valid classic BPF
// (it assembles and the VM takes it), and that it runs on packets
// without error.
func FuzzParse(f *testing.F) {
	for _, e := range diffExprs {
		f.Add(e)
	}
	for _, e := range []string{"tcp[13] & 2 != 0", "host (10.0.0.1 or not (10.0.0.2 and 10.0.0.3))", "((((tcp))))",
		"src or dst net 10 mask 255.0.0.0", "vlan 1 and vlan 2 and vlan 3 and vlan 4 and port 1", "not not ! ! ip6",
		"port 0x2384 or 00", "net 10.1.2/24", "host 0x0a000001", "portrange 0-65535", "port (1 or", "&&", "||", "!"} {
		f.Add(e)
	}
	links := []layers.LinkType{eth, layers.LinkTypeLinuxSLL, layers.LinkTypeLinuxSLL2, layers.LinkTypeNull,
		layers.LinkTypeLoop, layers.LinkTypeRaw, layers.LinkTypeIPv4, layers.LinkTypeIPv6}
	var pkts [][]byte
	for _, p := range ethPackets {
		pkts = append(pkts, p.bytes())
	}
	f.Fuzz(func(t *testing.T, expr string) {
		flt, err := ParseSubset(expr)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("Parse(%q) error %T, want *Error: %v", expr, err, err)
			}
			return
		}
		if flt.String() != expr {
			t.Fatalf("String() = %q, want %q", flt.String(), expr)
		}
		for _, link := range links {
			prog, err := flt.Compile(link)
			if err != nil {
				continue // vlan on a link without tags
			}
			if _, err := bpf.Assemble(prog); err != nil {
				t.Fatalf("%q on %v: %v\n%s", expr, link, err, Disassemble(prog))
			}
			vm, err := bpf.NewVM(prog)
			if err != nil {
				t.Fatalf("%q on %v: %v\n%s", expr, link, err, Disassemble(prog))
			}
			for _, p := range pkts {
				if _, err := vm.Run(p); err != nil {
					t.Fatalf("%q on %v: %v", expr, link, err)
				}
			}
		}
	})
}
