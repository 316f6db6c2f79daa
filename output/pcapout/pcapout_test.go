package pcapout

import (
	"bytes"
	"io"
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/kdissect/kdissect/dissect"
)

// tcpPacket builds an Ethernet/IPv4/TCP packet from src to dst with payload.
func tcpPacket(t *testing.T, src, dst netip.AddrPort, payload []byte) []byte {
	t.Helper()
	eth := &layers.Ethernet{SrcMAC: make([]byte, 6), DstMAC: make([]byte, 6), EthernetType: layers.EthernetTypeIPv4}
	ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: src.Addr().AsSlice(), DstIP: dst.Addr().AsSlice()}
	tcp := &layers.TCP{SrcPort: layers.TCPPort(src.Port()), DstPort: layers.TCPPort(dst.Port()), ACK: true, PSH: true, Window: 1000}
	tcp.SetNetworkLayerForChecksum(ip)
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, eth, ip, tcp, gopacket.Payload(payload)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestSpoolBounded: packets are written as the exchanges decide them, so
// with exchanges all along the spool never holds more than the packets
// of the exchange waiting; the packets of exchanges not written, and of
// other connections, are left out; the comments go on the first packets.
func TestSpoolBounded(t *testing.T) {
	client := netip.MustParseAddrPort("10.0.0.1:40000")
	other := netip.MustParseAddrPort("10.0.0.2:40000")
	broker := netip.MustParseAddrPort("10.0.0.9:9092")
	var out bytes.Buffer
	dir := t.TempDir()
	w, err := New(&out, dir, false)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1700000000, 123456789)
	const exchanges = 10000
	maxSpool := int64(0)
	var want [][]byte
	n := int64(0)
	for i := range exchanges {
		// An exchange: request, a packet of another connection, response.
		req := tcpPacket(t, client, broker, bytes.Repeat([]byte{byte(i)}, 100))
		noise := tcpPacket(t, other, broker, []byte("x"))
		resp := tcpPacket(t, broker, client, bytes.Repeat([]byte{byte(i)}, 50))
		first := n
		for _, p := range [][]byte{req, noise, resp} {
			ci := gopacket.CaptureInfo{Timestamp: t0.Add(time.Duration(n) * time.Millisecond), CaptureLength: len(p), Length: len(p) + 7}
			if err := w.Packet(n, layers.LinkTypeEthernet, p, ci, nil); err != nil {
				t.Fatal(err)
			}
			n++
			maxSpool = max(maxSpool, w.wpos)
		}
		ex := &dissect.Exchange{Client: client, Broker: broker,
			Request:  &dissect.Frame{Packet: first, LastPacket: first},
			Response: &dissect.Frame{Packet: first + 2, LastPacket: first + 2}}
		keep := i%2 == 0
		w.Exchange(ex, keep, "c")
		if keep {
			want = append(want, req, resp)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// Unbounded it would reach 10000 × 3 packets (4 MiB).
	if maxSpool > 2*compactAfter+4*(recHeader+200) {
		t.Errorf("the spool reached %d bytes: it keeps more than the exchange waiting", maxSpool)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("spool left behind: %v", left)
	}
	r, err := pcapgo.NewNgReader(&out, pcapgo.DefaultNgReaderOptions)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		data, ci, opts, err := r.ReadPacketDataWithOptions()
		if err == io.EOF {
			if i != len(want) {
				t.Fatalf("%d packets written, want %d", i, len(want))
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if i >= len(want) || !bytes.Equal(data, want[i]) || ci.Length != len(data)+7 {
			t.Fatalf("packet %d differs (length %d, captured %d)", i, ci.Length, len(data))
		}
		if len(opts.Comments) != 1 || opts.Comments[0] != "c" {
			t.Fatalf("packet %d: comments %q", i, opts.Comments)
		}
		// Exchange 2k: packets 6k and 6k+2 of the input, 1 ms apart.
		in := int64(i/2*6 + i%2*2)
		if !ci.Timestamp.Equal(t0.Add(time.Duration(in) * time.Millisecond)) {
			t.Fatalf("packet %d at %v, want %v", i, ci.Timestamp, t0.Add(time.Duration(in)*time.Millisecond))
		}
	}
}
