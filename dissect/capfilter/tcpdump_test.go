package capfilter

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/kdissect/kdissect/dissect"
)

// Capture directories: the project's own, and the public captures shared
// beside the repository (used when present).
const (
	projectPcaps = "../../testdata/pcaps"
	publicPcaps  = "../../../shared/pcaps-public"
)

// diffExprs are the expressions the differential test runs through both
// tcpdump and the built-in compiler.
var diffExprs = []string{
	"", "tcp", "udp", "sctp", "ip", "ip6", "not ip", "!ip6", "ip or ip6", "ip and ip6",
	"port 9092", "tcp port 9092", "udp port 9092", "sctp port 9092", "port 9093", "port 53", "port 1",
	"src port 9092", "dst port 9092", "src or dst port 9092", "src and dst port 9092", "dst or src port 40000",
	"tcp src port 9092", "udp dst port 9093", "not port 9092", "not tcp port 9092", "! port 9092 and ! port 9093",
	"portrange 9092-9093", "portrange 9093-9092", "portrange 1-1024", "tcp portrange 40000-65535",
	"src portrange 9000-9100", "dst portrange 0-9092", "udp src portrange 50-60",
	"port 9092 or 9093", "port 9092 or 9093 or 53", "port (9092 or 9093)", "port (9092 and 40000)", "port (not 9092)",
	"port 9092 and host 10.0.0.1", "port 9092 and host 127.0.0.1", "tcp and port 9092 and host 127.0.0.1",
	"host 10.0.0.1", "host 10.0.0.2", "host 127.0.0.1", "host 192.168.1.1", "ip host 10.0.0.1",
	"src host 10.0.0.1", "dst host 10.0.0.1", "src and dst host 10.0.0.1", "src or dst host 10.0.0.2",
	"src 10.0.0.1", "dst 10.1.2.3", "host 10.0.0.1 and not 10.0.0.2", "host 10.0.0.1 or 10.0.0.2",
	"host (10.0.0.1 or 192.168.1.1)", "host (10.0.0.1 and not 10.0.0.2)", "not host 10.0.0.1 or 10.0.0.2",
	"host 10.1", "host 10", "host 127.0.0.1 and port 9092", "host 2001:db8::2", "host ::1", "host fe80::1",
	"ip6 host ::1", "src host fe80::1", "dst host 2001:db8::2", "host ::1 or host 127.0.0.1",
	"net 10.0.0.0/8", "net 10.0.0.0/24", "net 10.1.0.0/16", "net 10.0.0.0 mask 255.255.255.0", "net 10.0.0.0 mask 255.0.255.0",
	"net 10", "net 10.1", "net 127", "net 0.0.0.0/0", "src net 10.0.0.0/8", "dst net 192.168.0.0/16",
	"ip net 10.0.0.0/8", "src and dst net 10.0.0.0/8", "net 2001:db8::/32", "net fe80::/10", "net ::/0",
	"ip6 net 2001:db8::/64", "dst net 2001:db8::/33", "net ::1/128", "net 2001:db8::/127",
	"tcp or udp and host 10.0.0.2", "tcp and (port 9093 or src host fe80::1)", "(tcp or udp) and not port 53",
	"not (tcp and port 9092)", "ip && !tcp || udp", "ip6 and (tcp or sctp) and dst port 9092",
	"not tcp and not udp", "tcp and not src port 9092 and not dst port 9092",
	"vlan", "vlan 100", "vlan 200", "vlan 300", "vlan 5", "not vlan", "vlan and tcp", "vlan 100 and port 9092",
	"vlan and vlan", "vlan and vlan 300", "vlan 200 and vlan 300 and host 10.0.0.5", "vlan and vlan and port 9092",
	"not vlan and tcp", "tcp and not vlan", "vlan 100 or port 9092", "port 9092 or vlan 100", "vlan or ip6",
	"(vlan 100 and host 10.0.0.1) or (vlan and vlan 300)", "vlan 0x64", "vlan 0144",
}

// TestTCPDumpDifferential runs every expression of diffExprs through
// tcpdump (libpcap's compiler and interpreter) and through Parse and
// Matcher, over the project's captures and synthetic captures of every
// supported link type, and compares the packets each selects.
func TestTCPDumpDifferential(t *testing.T) {
	tcpdump, err := exec.LookPath("tcpdump")
	if err != nil {
		t.Skip("tcpdump not installed (.ci/run installs it): no differential against libpcap")
	}
	dir := t.TempDir()
	var captures []string
	for _, link := range []layers.LinkType{eth, layers.LinkTypeLinuxSLL, layers.LinkTypeLinuxSLL2, layers.LinkTypeNull,
		layers.LinkTypeLoop, layers.LinkTypeRaw, layers.LinkTypeIPv4, layers.LinkTypeIPv6} {
		path := filepath.Join(dir, fmt.Sprintf("synthetic-%d.pcap", link))
		writeCapture(t, path, link, synthetic(link, 600))
		captures = append(captures, path)
	}
	// The project's captures, merged by link type to spare tcpdump runs.
	merged := map[layers.LinkType][]capturedPacket{}
	for _, pattern := range []string{projectPcaps + "/*.pcap*", publicPcaps + "/*.pcap*"} {
		files, _ := filepath.Glob(pattern)
		if len(files) == 0 {
			t.Logf("no captures at %s: the merged packets leave them out", pattern)
		}
		for _, f := range files {
			for _, p := range readCapture(t, f) {
				merged[p.link] = append(merged[p.link], p)
			}
		}
	}
	if len(merged[eth]) == 0 {
		t.Fatalf("no project captures found in %s", projectPcaps)
	}
	for link, pkts := range merged {
		path := filepath.Join(dir, fmt.Sprintf("project-%d.pcap", link))
		writeCapture(t, path, link, pkts)
		captures = append(captures, path)
	}

	for _, capture := range captures {
		t.Run(filepath.Base(capture), func(t *testing.T) {
			t.Parallel()
			diffCapture(t, tcpdump, capture, diffExprs)
		})
	}
}

// truncExprs are single primitives: their programs load the same fields in
// the same order as libpcap's, optimized or not, so a packet cut anywhere
// must be decided alike.
var truncExprs = []string{
	"ip", "ip6", "tcp", "udp", "sctp", "port 9092", "tcp port 9092", "udp src port 53", "portrange 9092-9093",
	"dst portrange 1-1024", "host 10.0.0.1", "src host 10.0.0.1", "dst 10.0.0.2", "ip host 10.0.0.2", "net 10.0.0.0/8",
	"host 2001:db8::2", "src net 2001:db8::/32", "vlan", "vlan 100", "vlan 300",
}

// TestTCPDumpTruncated compares with tcpdump on packets cut at every
// length inside their headers.
func TestTCPDumpTruncated(t *testing.T) {
	tcpdump, err := exec.LookPath("tcpdump")
	if err != nil {
		t.Skip("tcpdump not installed (.ci/run installs it): no differential against libpcap")
	}
	dir := t.TempDir()
	for _, link := range []layers.LinkType{eth, layers.LinkTypeLinuxSLL2, layers.LinkTypeNull, layers.LinkTypeRaw} {
		var cut []capturedPacket
		for _, p := range synthetic(link, 150) {
			for n := 1; n < min(len(p.data), 100); n++ {
				q := p
				q.data = p.data[:n]
				q.ci.Timestamp = p.ci.Timestamp.Add(time.Duration(n) * time.Microsecond)
				q.ci.CaptureLength = n
				q.desc = fmt.Sprintf("%s cut to %d bytes", p.desc, n)
				cut = append(cut, q)
			}
		}
		path := filepath.Join(dir, fmt.Sprintf("truncated-%d.pcap", link))
		writeCapture(t, path, link, cut)
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			diffCapture(t, tcpdump, path, truncExprs)
		})
	}
}

// diffCapture runs each expression through tcpdump and through Parse and
// Matcher over one capture and compares the packets they select.
func diffCapture(t *testing.T, tcpdump, capture string, exprs []string) {
	in := readCapture(t, capture)
	if descs, err := os.ReadFile(capture + ".txt"); err == nil {
		for i, d := range strings.Split(string(descs), "\n") {
			if i < len(in) {
				in[i].desc = d
			}
		}
	}
	out := filepath.Join(t.TempDir(), "out.pcap")
	for _, expr := range exprs {
		var stderr bytes.Buffer
		cmd := exec.Command(tcpdump, "-r", capture, "-w", out, expr)
		cmd.Stderr = &stderr
		runErr := cmd.Run()
		var theirs []capturedPacket
		switch {
		case runErr == nil:
			theirs = readCapture(t, out)
		case strings.Contains(stderr.String(), "rejects all packets"):
			// libpcap refuses a program that rejects everything (ip6 on a
			// raw IPv4 link); ours just rejects.
		default:
			f, err := Parse(expr)
			if err == nil {
				_, err = f.Compile(in[0].link)
			}
			if err == nil {
				t.Errorf("%q: tcpdump failed (%v: %s) but the built-in compiler took it", expr, runErr, strings.TrimSpace(stderr.String()))
			}
			continue
		}
		f, err := Parse(expr)
		if err != nil {
			t.Errorf("%q: %v", expr, err)
			continue
		}
		m := NewMatcher(f)
		var ours []capturedPacket
		for _, p := range in {
			ok, err := m.Match(p.link, p.data)
			if err != nil {
				t.Fatalf("%q: %v", expr, err)
			}
			if ok {
				ours = append(ours, p)
			}
		}
		if i, ok := sameSelection(ours, theirs); !ok {
			prog, _ := f.Compile(in[0].link)
			libpcap, _ := exec.Command(tcpdump, "-d", "-r", capture, expr).Output()
			t.Errorf("%q: tcpdump selects %d packets, we select %d; first difference at selected packet %d: %s\nours:\n%s\nlibpcap:\n%s",
				expr, len(theirs), len(ours), i, describeDiff(in, ours, theirs, i), Disassemble(prog), libpcap)
		}
	}
}

// capturedPacket is a packet read from or written to a capture file.
type capturedPacket struct {
	ci   gopacket.CaptureInfo
	link layers.LinkType
	data []byte
	desc string // what the synthetic packet is, for messages
}

// samePacket compares packets as tcpdump writes them: with microsecond
// timestamps.
func samePacket(a, b capturedPacket) bool {
	return a.ci.Timestamp.Truncate(time.Microsecond).Equal(b.ci.Timestamp.Truncate(time.Microsecond)) && bytes.Equal(a.data, b.data)
}

func sameSelection(a, b []capturedPacket) (int, bool) {
	for i := range min(len(a), len(b)) {
		if !samePacket(a[i], b[i]) {
			return i, false
		}
	}
	return min(len(a), len(b)), len(a) == len(b)
}

func describeDiff(in, ours, theirs []capturedPacket, i int) string {
	find := func(sel []capturedPacket) string {
		if i >= len(sel) {
			return "none"
		}
		for _, p := range in {
			if samePacket(p, sel[i]) {
				if p.desc != "" {
					return p.desc
				}
				return fmt.Sprintf("% x", p.data[:min(len(p.data), 64)])
			}
		}
		return "?"
	}
	return fmt.Sprintf("ours %s, tcpdump's %s", find(ours), find(theirs))
}

// synthetic returns n packets of mixed traffic on a link type: IPv4 and
// IPv6, TCP, UDP, SCTP and ICMP, first and later fragments, IPv4 options,
// VLAN tags on Ethernet, ARP where the link carries it, and packets cut
// short inside their headers. The choice is random with a fixed seed.
func synthetic(link layers.LinkType, n int) []capturedPacket {
	r := rand.New(rand.NewPCG(1, uint64(link)))
	v4 := []string{"10.0.0.1", "10.0.0.2", "10.0.0.5", "10.1.2.3", "192.168.1.1", "127.0.0.1"}
	v6 := []string{"fe80::1", "2001:db8::2", "2001:db8:8000::1", "::1", "2001:db8::1"}
	ports := []uint16{9092, 9093, 40000, 53, 1, 55, 1024, 65535}
	protos := []layers.IPProtocol{tcp, tcp, tcp, udp, udp, sctp, icmp}
	tagSets := [][]tag{nil, nil, {{layers.EthernetTypeDot1Q, 100}}, {{layers.EthernetTypeQinQ, 200}, {layers.EthernetTypeDot1Q, 300}},
		{{0x9100, 5}}, {{layers.EthernetTypeDot1Q, 100}, {layers.EthernetTypeDot1Q, 100}}}
	pick := func(s []string) string { return s[r.IntN(len(s))] }
	var out []capturedPacket
	for i := range n {
		p := pkt{link: link, proto: protos[r.IntN(len(protos))], sport: ports[r.IntN(len(ports))], dport: ports[r.IntN(len(ports))]}
		ipv6 := r.IntN(3) == 0
		switch link {
		case layers.LinkTypeIPv4:
			ipv6 = false
		case layers.LinkTypeIPv6:
			ipv6 = true
		}
		if ipv6 {
			p.src, p.dst = pick(v6), pick(v6)
		} else {
			p.src, p.dst = pick(v4), pick(v4)
			p.ipOpts = r.IntN(5) == 0
		}
		if r.IntN(6) == 0 {
			p.frag = fragKind(1 + r.IntN(2))
		}
		if link == eth {
			p.tags = tagSets[r.IntN(len(tagSets))]
		}
		if (link == eth || link == layers.LinkTypeLinuxSLL || link == layers.LinkTypeLinuxSLL2) && r.IntN(12) == 0 {
			p = pkt{link: link, arp: true, src: pick(v4), dst: pick(v4), tags: p.tags}
		}
		data := p.bytes()
		if cut := p.trailer(); cut > 0 && r.IntN(8) == 0 {
			// A snap length that keeps every header a filter reads. Cut
			// inside them, libpcap's optimizer may decide a packet before
			// the load that would reject it, which an unoptimized program
			// does not (TestTruncatedHeaders).
			p.keep = len(data) - 1 - r.IntN(cut)
			data = p.bytes()
		}
		ts := time.Unix(1700000000, 0).Add(time.Duration(i) * time.Millisecond)
		out = append(out, capturedPacket{
			ci:   gopacket.CaptureInfo{Timestamp: ts, CaptureLength: len(data), Length: len(data)},
			link: link, data: data, desc: p.String(),
		})
	}
	return out
}

func writeCapture(t *testing.T, path string, link layers.LinkType, pkts []capturedPacket) {
	t.Helper()
	var buf bytes.Buffer
	w := pcapgo.NewWriterNanos(&buf)
	if err := w.WriteFileHeader(262144, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range pkts {
		ci := p.ci
		ci.CaptureLength = len(p.data)
		ci.Length = max(ci.Length, len(p.data))
		if err := w.WritePacket(ci, p.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// What each synthetic packet is, one line per packet, for messages.
	var descs strings.Builder
	for _, p := range pkts {
		descs.WriteString(p.desc + "\n")
	}
	if err := os.WriteFile(path+".txt", []byte(descs.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readCapture reads a pcap or pcapng file whole, with the dissector's
// reader, which repairs what some writers get wrong.
func readCapture(t *testing.T, path string) []capturedPacket {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := dissect.NewPacketReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []capturedPacket
	for {
		data, ci, link, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		ci.AncillaryData = nil
		out = append(out, capturedPacket{ci: ci, link: link, data: slices.Clone(data)})
	}
}
