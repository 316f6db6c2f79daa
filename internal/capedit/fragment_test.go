package capedit_test

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/ip4defrag"
	"github.com/gopacket/gopacket/layers"

	"github.com/kdissect/kdissect/internal/capedit"
)

// Fragment splits real IPv4 packets into fragments of at most the size
// asked, in 8-byte units, that gopacket's own IPv4 defragmenter puts back
// into the packets' IP payloads; every other packet is written unchanged.
func TestFragmentRoundTrip(t *testing.T) {
	src, err := os.ReadFile("../../testdata/pcaps/kcat_produce_lz4.pcap")
	if err != nil {
		t.Fatal(err)
	}
	const size = 300
	var out bytes.Buffer
	res, err := capedit.Rewrite(&out, bytes.NewReader(src), capedit.Options{Fragment: size})
	if err != nil {
		t.Fatal(err)
	}
	in, got := readCapture(t, src), readCapture(t, out.Bytes())
	if res.Fragmented == 0 || res.Written != len(in.packets) || len(got.packets) != len(in.packets)-res.Fragmented+res.Fragments {
		t.Fatalf("result %+v: %d packets in, %d out", res, len(in.packets), len(got.packets))
	}
	payload := func(p packet) (*layers.IPv4, []byte) {
		ip, _ := gopacket.NewPacket(p.data, p.link, gopacket.Default).Layer(layers.LayerTypeIPv4).(*layers.IPv4)
		if ip == nil {
			t.Fatalf("not IPv4: %v", p)
		}
		return ip, ip.Payload
	}
	defrag := ip4defrag.NewIPv4Defragmenter()
	k := 0
	for _, p := range got.packets {
		ip, b := payload(p)
		if ip.Flags&layers.IPv4MoreFragments != 0 && (len(b) > size || len(b)%8 != 0) {
			t.Errorf("a fragment of %d bytes", len(b))
		}
		whole, err := defrag.DefragIPv4WithTimestamp(ip, p.ci.Timestamp)
		if err != nil {
			t.Fatal(err)
		}
		if whole == nil {
			continue
		}
		if orig, want := payload(in.packets[k]); !bytes.Equal(whole.Payload, want) || whole.Id != ip.Id || !p.ci.Timestamp.Equal(in.packets[k].ci.Timestamp) ||
			whole == ip && !bytes.Equal(p.data, in.packets[k].data) || whole != ip && orig.Length <= 20+size {
			t.Errorf("packet %d: reassembled %d bytes, want %d", k, len(whole.Payload), len(want))
		}
		k++
	}
	if k != len(in.packets) {
		t.Errorf("%d packets reassembled, want %d", k, len(in.packets))
	}
	// Not fragmentable: a fragment already, a cut packet, not IP.
	frags, _ := capedit.Fragment(layers.LinkTypeEthernet, in.packets[10].data, 64, 1)
	whole := in.packets[10].data
	for _, p := range [][]byte{frags[1], whole[:len(whole)-1], {0, 1, 2}} {
		if _, err := capedit.Fragment(layers.LinkTypeEthernet, p, 64, 1); !errors.Is(err, capedit.ErrNotFragmentable) {
			t.Errorf("%d bytes: error %v", len(p), err)
		}
	}
}
