package dissect

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// fragField rewrites an Ethernet IP fragment's offset (in bytes) and its
// more-fragments flag; a new slice.
func fragField(v6 bool, p []byte, start int, more bool) []byte {
	p = slices.Clone(p)
	if v6 {
		fo := uint16(start/8) << 3
		if more {
			fo |= 1
		}
		p[14+40+2], p[14+40+3] = byte(fo>>8), byte(fo)
		return p
	}
	fo := uint16(start / 8)
	if more {
		fo |= 0x2000
	}
	p[14+6], p[14+7] = byte(fo>>8), byte(fo)
	return p
}

// fragStart is an Ethernet IP fragment's offset, in bytes.
func fragStart(v6 bool, p []byte) int {
	if v6 {
		return int(uint16(p[14+40+2])<<8|uint16(p[14+40+3])) >> 3 * 8
	}
	return int(uint16(p[14+6]&0x1f)<<8|uint16(p[14+7])) * 8
}

// withData is p with other bytes, captured whole.
func withData(p synthPacket, data []byte) synthPacket {
	p.data, p.ci.CaptureLength, p.ci.Length = data, len(data), len(data)
	return p
}

// hostileCase damages the fragments of the last request.
type hostileCase struct {
	name string
	// damage returns the packets to write instead of f, the fragments of
	// the last request, in order.
	damage func(v6 bool, f []synthPacket) []synthPacket
	lost   int    // fragments given up
	why    string // what the note says of them
	whole  bool   // the request is reassembled all the same
}

var hostileCases = []hostileCase{
	// A copy of the second fragment 8 bytes further on comes first: the
	// second overlaps it without being a copy (RFC 5722). The datagram is
	// dropped, and the last fragment, after, begins one that never completes.
	{"overlap", func(v6 bool, f []synthPacket) []synthPacket {
		shifted := withData(f[1], fragField(v6, f[1].data, fragStart(v6, f[1].data)+8, true))
		return []synthPacket{f[0], shifted, f[1], f[2]}
	}, 4, "1 incomplete at the end of the capture, 3 overlapping or contradicting", false},
	// A second last fragment that ends the datagram before bytes held.
	{"two ends", func(v6 bool, f []synthPacket) []synthPacket {
		early := withData(f[1], fragField(v6, f[1].data, fragStart(v6, f[1].data), false))
		return []synthPacket{f[0], f[2], early, f[1]}
	}, 4, "1 incomplete at the end of the capture, 3 overlapping or contradicting", false},
	// The last fragment never comes.
	{"incomplete", func(v6 bool, f []synthPacket) []synthPacket { return f[:2] }, 2, "2 incomplete at the end of the capture", false},
	// The first fragment comes 31 s late: the others were given up.
	{"timed out", func(v6 bool, f []synthPacket) []synthPacket {
		late := f[0]
		late.ci.Timestamp = late.ci.Timestamp.Add(31 * time.Second)
		return []synthPacket{f[1], f[2], late}
	}, 3, "2 incomplete after 30s, 1 incomplete at the end of the capture", false},
	// A fragment claiming bytes past 65 535, and one of no bytes: each
	// discarded by itself, the datagram still reassembled.
	{"invalid", func(v6 bool, f []synthPacket) []synthPacket {
		far := withData(f[1], fragField(v6, f[1].data, 65528, true))
		empty := slices.Clone(f[0].data[:14+20])
		if v6 {
			empty = slices.Clone(f[0].data[:14+48])
			empty[14+4], empty[14+5] = 0, 8
		} else {
			empty[14+2], empty[14+3] = 0, 20
		}
		return append([]synthPacket{far, withData(f[0], empty)}, f...)
	}, 2, "2 invalid", true},
}

// Fragments that overlap, contradict each other, never complete or are
// invalid are given up and noted; the rest of the capture decodes as it
// would whole.
func TestHostileFragments(t *testing.T) {
	for _, v := range []linkVariant{linkVariants[0], linkVariants[1]} {
		for _, hc := range hostileCases {
			t.Run(v.name+"/"+hc.name, func(t *testing.T) {
				clock := testClock()
				pkts, want := fragConversation(t, v, &clock)
				fr := fragmentAll(t, v, pkts, 1480, fragOrders[0])
				// The last request: the last fragmented packet from the
				// client, in 3 fragments.
				last := -1
				for i, p := range fr.pkts {
					tcp := 14 + 20
					if v.ipv6 {
						tcp = 14 + 48
					}
					if len(p.data) > 1400 && fragStart(v.ipv6, p.data) == 0 && int(p.data[tcp])<<8|int(p.data[tcp+1]) == 40000 {
						last = i
					}
				}
				var capture []synthPacket
				capture = append(capture, fr.pkts[:last]...)
				capture = append(capture, hc.damage(v.ipv6, fr.pkts[last:last+3])...)
				capture = append(capture, fr.pkts[last+3:]...)
				d := New(Options{})
				got, err := readAll(t, d, writePcap(t, v.link, capture))
				if err != nil {
					t.Fatal(err)
				}
				if hc.whole {
					checkExchanges(t, got, want, false)
				} else {
					// The last request is lost: its response stands alone.
					checkExchanges(t, got[:2], want[:2], false)
					if len(got) != 3 || got[2].Request != nil || got[2].CorrelationID != 2 || len(got[2].Notes) == 0 {
						t.Errorf("last exchange %s", describe(got[len(got)-1]))
					}
				}
				st := d.Stats()
				note := fmt.Sprintf("%d IP fragments of TCP datagrams that may carry Kafka could not be reassembled (%s)", hc.lost, hc.why)
				var notes []string
				for _, p := range st.Problems {
					if strings.Contains(p, "IP fragments") {
						notes = append(notes, p)
					}
				}
				if len(notes) != 1 || !strings.HasPrefix(notes[0], note) {
					t.Errorf("problems %q, want %q", st.Problems, note)
				}
				if st.FragmentsDropped != int64(hc.lost) || st.TCPPackets+st.Skipped != st.Packets {
					t.Errorf("stats %+v", st)
				}
			})
		}
	}
}

// ip4Fragment is an Ethernet IPv4 fragment from 10.0.0.1 to 10.0.0.9.
func ip4Fragment(id uint16, start int, more bool, proto byte, payload []byte) []byte {
	h := []byte{0x45, 0, 0, 0, byte(id >> 8), byte(id), 0, 0, 64, proto, 0, 0, 10, 0, 0, 1, 10, 0, 0, 9}
	n := 20 + len(payload)
	h[2], h[3] = byte(n>>8), byte(n)
	fo := uint16(start / 8)
	if more {
		fo |= 0x2000
	}
	h[6], h[7] = byte(fo>>8), byte(fo)
	return cat(ethHeader(0x0800), h, payload)
}

// Endless first fragments, huge ones, a datagram of too many fragments:
// what is held stays within the limits, everything given up is counted
// and noted, and a conversation after them is reassembled.
func TestFragmentBounds(t *testing.T) {
	d := New(Options{})
	var got []*Exchange
	s := d.NewSession(func(e *Exchange) { got = append(got, e) })
	clock := testClock()
	n := 0
	feed := func(data []byte) {
		s.Packet(layers.LinkTypeEthernet, data, gopacket.CaptureInfo{Timestamp: clock, CaptureLength: len(data), Length: len(data)})
		n++
		if s.frags == nil {
			return
		}
		held := 0
		for _, g := range s.frags.m {
			held += g.held
			if len(g.pieces) > maxFragsPerDgram {
				t.Fatalf("packet %d: a datagram of %d fragments", n, len(g.pieces))
			}
		}
		if len(s.frags.m) > maxFragDatagrams || s.frags.bytes > maxFragBytes || held != s.frags.bytes || s.frags.order.Len() != len(s.frags.m) {
			t.Fatalf("packet %d: %d datagrams, %d bytes held (%d counted)", n, len(s.frags.m), held, s.frags.bytes)
		}
	}
	tcpHead := func(size int) []byte { // a TCP header to the broker, then filler
		return cat([]byte{0x9c, 0x41, 0x23, 0x84, 0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x18, 0xff, 0xff, 0, 0, 0, 0}, filler(size-20, 1))
	}
	for id := range 5000 {
		feed(ip4Fragment(uint16(id), 0, true, 6, tcpHead(1480)))
	}
	for id := range 100 {
		feed(ip4Fragment(uint16(10000+id), 8, true, 6, filler(60000, 2)))
	}
	for k := range 300 {
		feed(ip4Fragment(20000, 8+k*8, true, 6, filler(8, 3)))
	}
	for k := range 50 {
		feed(ip4Fragment(30000, k*8, true, 17, filler(8, 4))) // UDP: not held
	}
	pkts, want := fragConversation(t, linkVariants[0], &clock)
	fr := fragmentAll(t, linkVariants[0], pkts, 1480, fragOrders[1])
	for _, p := range fr.pkts {
		s.Packet(layers.LinkTypeEthernet, p.data, p.ci)
	}
	s.Close()
	checkExchanges(t, got, want, false)
	// Nothing held is reassembled: the 5000 first fragments and the 100
	// huge ones are given up for the limits or at the end, the datagram
	// of 300 fragments at its 257th, the 43 after begin another; the UDP
	// fragments are not held.
	st := d.Stats()
	if st.FragmentsDropped != 5400 || st.Fragments != int64(n+fr.fragments-fr.datagrams) || st.Reassembled != int64(fr.datagrams) {
		t.Errorf("%d fragments dropped, %d counted, %d datagrams reassembled", st.FragmentsDropped, st.Fragments, st.Reassembled)
	}
	note := "5400 IP fragments of TCP datagrams that may carry Kafka could not be reassembled ("
	if len(st.Problems) != 1 || !strings.HasPrefix(st.Problems[0], note) || !strings.Contains(st.Problems[0], "beyond the limits on fragments pending (1024 datagrams, 4 MiB)") {
		t.Errorf("problems %q, want %q", st.Problems, note)
	}
}
