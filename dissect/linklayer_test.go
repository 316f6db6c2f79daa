package dissect

import (
	"encoding/binary"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// tcpBytes returns a serialized 20-byte TCP header and payload.
func tcpBytes(t *testing.T, payload []byte) []byte {
	t.Helper()
	buf := gopacket.NewSerializeBuffer()
	tcp := &layers.TCP{SrcPort: 40000, DstPort: 9092, Seq: 1, ACK: true, Window: 1000}
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true}, tcp, gopacket.Payload(payload)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// ipv6Bytes returns an IPv6 header with the given next header and payload
// length, from 2001:db8::1 to 2001:db8::9.
func ipv6Bytes(next byte, payloadLen int) []byte {
	h := make([]byte, 40)
	h[0] = 0x60
	binary.BigEndian.PutUint16(h[4:], uint16(payloadLen))
	h[6] = next
	h[7] = 64
	copy(h[8:], []byte{0x20, 0x01, 0x0d, 0xb8, 15: 1})
	copy(h[24:], []byte{0x20, 0x01, 0x0d, 0xb8, 15: 9})
	return h
}

func TestLinkDecoder(t *testing.T) {
	seg := tcpBytes(t, []byte("kafka bytes"))
	padN := []byte{1, 4, 0, 0, 0, 0} // PadN option: 6 bytes of padding
	cases := []struct {
		name    string
		data    []byte
		want    packetKind
		missing int
	}{
		{"ipv6 + hop-by-hop + tcp", cat(ipv6Bytes(0, 8+len(seg)), []byte{6, 0}, padN, seg), kindTCP, 0},
		{"ipv6 + destination options + tcp", cat(ipv6Bytes(60, 8+len(seg)), []byte{6, 0}, padN, seg), kindTCP, 0},
		{"ipv6 + routing + tcp", cat(ipv6Bytes(43, 8+len(seg)), []byte{6, 0, 0, 0, 0, 0, 0, 0}, seg), kindTCP, 0},
		{"ipv6 atomic fragment + tcp", cat(ipv6Bytes(44, 8+len(seg)), []byte{6, 0, 0, 0, 0, 0, 0, 1}, seg), kindTCP, 0},
		{"ipv6 first fragment", cat(ipv6Bytes(44, 8+len(seg)), []byte{6, 0, 0, 1, 0, 0, 0, 1}, seg), kindFragment, 0},
		{"ipv6 later fragment", cat(ipv6Bytes(44, 8+len(seg)), []byte{6, 0, 0, 8, 0, 0, 0, 1}, seg), kindFragment, 0},
		{"ipv6 cut by the snap length", cat(ipv6Bytes(6, len(seg)+100), seg), kindTCP, 100},
		{"ipv6 + hop-by-hop, cut", cat(ipv6Bytes(0, 8+len(seg)+50), []byte{6, 0}, padN, seg), kindTCP, 50},
		{"ipv6 udp", cat(ipv6Bytes(17, 8), []byte{0, 53, 0, 53, 0, 8, 0, 0}), kindNotTCP, 0},
		{"ipv6 header only", ipv6Bytes(6, 20)[:30], kindMalformed, 0},
		{"ipv6 tcp header cut", cat(ipv6Bytes(6, len(seg)), seg[:10]), kindMalformed, 0},
	}
	d := newLinkDecoder()
	for _, tc := range cases {
		var out tcpPacket
		got := d.decode(layers.LinkTypeIPv6, tc.data, &out)
		if got != tc.want {
			t.Errorf("%s: kind %d, want %d", tc.name, got, tc.want)
			continue
		}
		if got != kindTCP {
			continue
		}
		if out.Missing != tc.missing || string(out.TCP.Payload) != "kafka bytes" || out.Src.String() != "[2001:db8::1]:40000" || out.Dst.String() != "[2001:db8::9]:9092" {
			t.Errorf("%s: missing %d payload %q %v → %v", tc.name, out.Missing, out.TCP.Payload, out.Src, out.Dst)
		}
	}
	// IPv4 cut by the snap length, and with bytes after the IP packet.
	ip4 := func(total int) []byte {
		h := []byte{0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 9}
		binary.BigEndian.PutUint16(h[2:], uint16(total))
		return h
	}
	var out tcpPacket
	if k := d.decode(layers.LinkTypeIPv4, cat(ip4(20+len(seg)+30), seg), &out); k != kindTCP || out.Missing != 30 {
		t.Errorf("ipv4 cut: kind %d missing %d", k, out.Missing)
	}
	if k := d.decode(layers.LinkTypeIPv4, cat(ip4(20+len(seg)), seg, []byte{1, 2, 3}), &out); k != kindTCP || out.Missing != 0 || string(out.TCP.Payload) != "kafka bytes" {
		t.Errorf("ipv4 with trailer: kind %d payload %q", k, out.TCP.Payload)
	}
	if k := d.decode(layers.LinkType(147), seg, &out); k != kindUnsupported {
		t.Errorf("unknown link type: kind %d", k)
	}
	if k := d.decode(layers.LinkTypeRaw, []byte{0x55, 1, 2}, &out); k != kindMalformed {
		t.Errorf("raw IP of version 5: kind %d", k)
	}
	if k := d.decode(layers.LinkTypeNull, []byte{2, 0}, &out); k != kindMalformed {
		t.Errorf("short loopback header: kind %d", k)
	}
}
