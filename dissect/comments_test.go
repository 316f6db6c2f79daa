package dissect

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/pcapgo"
)

// commentedCapture rewrites a classic pcap as pcapng with the comments
// given by 0-based packet number, as Wireshark writes them (opt_comment
// of the Enhanced Packet Block, one option per comment).
func commentedCapture(t *testing.T, src string, comments map[int][]string) []byte {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := pcapgo.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w, err := pcapgo.NewNgWriter(&out, r.LinkType())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		data, ci, err := r.ReadPacketData()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ci.InterfaceIndex = 0
		if err := w.WritePacketWithOptions(ci, data, pcapgo.NgPacketOptions{Comments: comments[i]}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestPacketComments puts comments on packets of a real capture: on
// packets that carry a request, a response, a frame several packets
// carry, and on a handshake packet; each exchange gets the comments of
// its own packets, in order, and no other.
func TestPacketComments(t *testing.T) {
	const src = "../testdata/pcaps/kcat_metadata_offsets.pcap"
	plain := readExchanges(t, src)
	if len(plain) < 3 {
		t.Fatalf("%d exchanges", len(plain))
	}
	comments := map[int][]string{0: {"handshake"}} // the SYN: no exchange's
	want := map[int][]string{}
	for i, ex := range plain {
		if ex.Request == nil || ex.Response == nil || i > 3 {
			continue
		}
		rq, rs := int(ex.Request.FilePacket), int(ex.Response.LastFilePacket)
		comments[rq] = append(comments[rq], "req "+strconv.Itoa(i))
		comments[rs] = append(comments[rs], "resp "+strconv.Itoa(i), "second line")
		want[i] = []string{"req " + strconv.Itoa(i), "resp " + strconv.Itoa(i), "second line"}
	}
	path := filepath.Join(t.TempDir(), "commented.pcapng")
	if err := os.WriteFile(path, commentedCapture(t, src, comments), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("tshark"); err == nil {
		// tshark reads the same comments on the same frames.
		out, err := exec.Command("tshark", "-r", path, "-Y", "frame.comment", "-T", "fields", "-e", "frame.number").Output()
		if err != nil {
			t.Fatal(err)
		}
		var got, exp []int
		for _, l := range strings.Fields(string(out)) {
			n, _ := strconv.Atoi(l)
			got = append(got, n-1)
		}
		for n := range comments {
			exp = append(exp, n)
		}
		slices.Sort(exp)
		if !slices.Equal(got, exp) {
			t.Fatalf("tshark finds comments on packets %v, want %v", got, exp)
		}
	}
	got := readExchanges(t, path)
	if len(got) != len(plain) {
		t.Fatalf("%d exchanges, the pcap has %d", len(got), len(plain))
	}
	for i, ex := range got {
		if !slices.Equal(ex.PacketComments, want[i]) {
			t.Errorf("exchange %d (%s): comments %q, want %q", i, ex.Request.Time, ex.PacketComments, want[i])
		}
		ex.PacketComments = nil
	}
}

// TestPacketCommentsSpanning: a comment on a middle packet of a request
// that many packets carry belongs to it; on a packet of the other
// direction in between (an ACK), to no exchange.
func TestPacketCommentsSpanning(t *testing.T) {
	src := filepath.Join(t.TempDir(), "mtu.pcap")
	b, err := os.ReadFile("../testdata/pcaps/kcat_mtu.pcap.gz")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	plain := readExchanges(t, src)
	var big *Exchange
	for _, ex := range plain {
		if ex.Request != nil && ex.Request.LastFilePacket-ex.Request.FilePacket > 20 {
			big = ex
			break
		}
	}
	if big == nil {
		t.Fatal("no request of more than 20 packets")
	}
	// Which packets in its span go the other way: read them with pcapgo.
	first, last := int(big.Request.FilePacket), int(big.Request.LastFilePacket)
	f, _ := os.Open(src)
	defer f.Close()
	r, err := pcapgo.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	comments := map[int][]string{}
	mid, ack := -1, -1
	for i := 0; i <= last; i++ {
		data, _, err := r.ReadPacketData()
		if err != nil {
			t.Fatal(err)
		}
		if i <= first || i == last {
			continue
		}
		p := gopacket.NewPacket(data, r.LinkType(), gopacket.Default)
		tl := p.TransportLayer()
		if tl == nil {
			continue
		}
		fromClient := tl.TransportFlow().Src().String() == strconv.Itoa(int(big.Client.Port()))
		if fromClient && mid < 0 && len(tl.LayerPayload()) > 0 {
			mid = i
		}
		if !fromClient && ack < 0 {
			ack = i
		}
	}
	if mid < 0 || ack < 0 {
		t.Fatalf("no middle packet (%d) or ACK (%d) in packets %d-%d", mid, ack, first, last)
	}
	comments[mid] = []string{"middle"}
	comments[ack] = []string{"ack"}
	path := filepath.Join(t.TempDir(), "mtu.pcapng")
	if err := os.WriteFile(path, commentedCapture(t, src, comments), 0o644); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ex := range readExchanges(t, path) {
		if len(ex.PacketComments) == 0 {
			continue
		}
		n++
		if ex.Request == nil || ex.Request.Packet != big.Request.Packet || !slices.Equal(ex.PacketComments, []string{"middle"}) {
			t.Errorf("exchange of packet %d: comments %q", ex.Order(), ex.PacketComments)
		}
	}
	if n != 1 {
		t.Errorf("%d exchanges with comments, want 1", n)
	}
}

func readExchanges(t *testing.T, path string) []*Exchange {
	t.Helper()
	var exs []*Exchange
	if err := New(Options{}).ReadFile(path, func(ex *Exchange) { exs = append(exs, ex) }); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return exs
}
