package dissect

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/internal/capedit"
)

// Fragmented captures are made from whole ones by capedit.Fragment, which
// shares no code with the reassembly it tests; tshark, which reassembles
// IP fragments, checks the fragments too.

// fragConversation is one connection carrying requests of about 3000 bytes
// (Metadata v4 naming 160 topics) and their responses (the topics and
// their partitions), and a small ApiVersions exchange between them, each
// frame in one TCP segment as on a loopback interface: packets that a
// 1500-byte MTU fragments.
func fragConversation(t testing.TB, v linkVariant, clock *time.Time) ([]synthPacket, []exchangeSpec) {
	return fragConversationOn(t, v, 9092, clock)
}

func fragConversationOn(t testing.TB, v linkVariant, port uint16, clock *time.Time) ([]synthPacket, []exchangeSpec) {
	c := newConn(t, v, 40000, port, clock)
	pkts := c.handshake()
	var specs []exchangeSpec
	exchange := func(key, ver int16, corr int32, req, resp codec.Message) {
		rq, rs := requestFrame(key, ver, corr, req), responseFrame(key, ver, corr, resp)
		pkts = append(pkts, c.send(true, cat(sizePrefix(rq.Bytes), rq.Bytes))...)
		pkts = append(pkts, c.send(false, cat(sizePrefix(rs.Bytes), rs.Bytes))...)
		specs = append(specs, exchangeSpec{key: key, ver: ver, corr: corr, clientID: "test", req: rq.Bytes, resp: rs.Bytes})
	}
	for corr := int32(1); corr <= 2; corr++ {
		req, resp := new(codec.MetadataRequest), new(codec.MetadataResponse)
		req.SetDefaults()
		resp.SetDefaults()
		for i := range 160 {
			name := fmt.Sprintf("orders-topic-%04d", i+int(corr)*1000)
			req.Topics = append(req.Topics, codec.MetadataRequestTopic{Name: &name})
			resp.Topics = append(resp.Topics, codec.MetadataResponseTopic{Name: &name, Partitions: []codec.MetadataResponsePartition{{PartitionIndex: int32(i % 3)}}})
		}
		exchange(3, 4, corr, req, resp)
		if corr == 1 {
			av, avr := new(codec.ApiVersionsRequest), new(codec.ApiVersionsResponse)
			av.SetDefaults()
			avr.SetDefaults()
			exchange(18, 0, 7, av, avr)
		}
	}
	return append(pkts, c.close()...), specs
}

func sizePrefix(b []byte) []byte {
	return []byte{byte(len(b) >> 24), byte(len(b) >> 16), byte(len(b) >> 8), byte(len(b))}
}

// fragOrder arranges the fragments of one packet as they reach the file.
type fragOrder struct {
	name    string
	arrange func(frags []synthPacket) []synthPacket
}

var fragOrders = []fragOrder{
	{"in order", func(f []synthPacket) []synthPacket { return f }},
	{"reversed", func(f []synthPacket) []synthPacket { f = slices.Clone(f); slices.Reverse(f); return f }},
	{"last first", func(f []synthPacket) []synthPacket { return append([]synthPacket{f[len(f)-1]}, f[:len(f)-1]...) }},
	// A capture on several interfaces sees every packet twice: one copy
	// comes after the datagram is whole.
	{"each twice", func(f []synthPacket) []synthPacket {
		var out []synthPacket
		for _, p := range f {
			out = append(out, p, p)
		}
		return out
	}},
	{"second repeated", func(f []synthPacket) []synthPacket { return append([]synthPacket{f[0], f[1], f[1]}, f[2:]...) }},
}

// fragmented is a capture split into fragments.
type fragmented struct {
	pkts []synthPacket
	// completes maps the index of each packet of the whole capture to
	// the index of the fragment that completes it (itself when whole).
	completes map[int64]int64
	datagrams int // packets split
	fragments int // fragments they became, copies not counted
}

// fragmentAll splits every packet whose IP payload is over size bytes.
func fragmentAll(t testing.TB, v linkVariant, pkts []synthPacket, size int, order fragOrder) fragmented {
	t.Helper()
	out := fragmented{completes: map[int64]int64{}}
	for i, p := range pkts {
		frags, err := capedit.Fragment(v.link, p.data, size, uint32(i+1))
		if err != nil {
			t.Fatalf("packet %d: %v", i, err)
		}
		if len(frags) == 1 {
			out.completes[int64(i)] = int64(len(out.pkts))
			out.pkts = append(out.pkts, p)
			continue
		}
		out.datagrams++
		out.fragments += len(frags)
		var fs []synthPacket
		for _, f := range frags {
			fs = append(fs, synthPacket{data: f, ci: p.ci})
			fs[len(fs)-1].ci.CaptureLength, fs[len(fs)-1].ci.Length = len(f), len(f)
		}
		// The datagram is whole at the first copy of its last fragment to come.
		seen := map[string]bool{}
		for _, f := range order.arrange(fs) {
			if !seen[string(f.data)] {
				seen[string(f.data)] = true
				out.completes[int64(i)] = int64(len(out.pkts))
			}
			out.pkts = append(out.pkts, f)
		}
	}
	return out
}

// checkFragmented dissects the whole and the fragmented capture: the
// exchanges must be those of the whole one, decoded as fully, numbered by
// the fragment that completed each frame, with every fragment reassembled.
func checkFragmented(t *testing.T, link linkVariant, whole []synthPacket, fr fragmented, want []exchangeSpec) []*Exchange {
	return checkFragmentedWith(t, Options{}, link, whole, fr, want)
}

func checkFragmentedWith(t *testing.T, opts Options, link linkVariant, whole []synthPacket, fr fragmented, want []exchangeSpec) []*Exchange {
	t.Helper()
	ref, err := readAll(t, New(opts), writePcap(t, link.link, whole))
	if err != nil {
		t.Fatal(err)
	}
	checkExchanges(t, ref, want, false)
	d := New(opts)
	got, err := readAll(t, d, writePcap(t, link.link, fr.pkts))
	if err != nil {
		t.Fatal(err)
	}
	checkExchanges(t, got, want, false)
	dec := NewDecoder(DecodeOptions{})
	for i, ex := range got {
		dec.Decode(ex)
		if ex.Decoded.Request == nil || ex.Decoded.Response == nil || len(ex.Notes) > 0 {
			t.Errorf("exchange %d: decoded request %v response %v, notes %q", i, ex.Decoded.Request != nil, ex.Decoded.Response != nil, ex.Notes)
		}
		for _, side := range [][2]*Frame{{ref[i].Request, ex.Request}, {ref[i].Response, ex.Response}} {
			if w, g := side[0], side[1]; g.Packet != fr.completes[w.Packet] || !g.Time.Equal(w.Time) {
				t.Errorf("exchange %d: frame in packet %d at %v, want packet %d (whole: %d) at %v", i, g.Packet, g.Time, fr.completes[w.Packet], w.Packet, w.Time)
			}
		}
	}
	st := d.Stats()
	if st.Reassembled != int64(fr.datagrams) || st.FragmentsReassembled != int64(fr.fragments) || st.FragmentsDropped != 0 ||
		len(st.Problems) != 0 || st.Packets != int64(len(fr.pkts)) || st.TCPPackets+st.Skipped != st.Packets || st.Skipped != st.Fragments {
		t.Errorf("stats %+v; %d datagrams in %d fragments", st, fr.datagrams, fr.fragments)
	}
	return got
}

// A conversation whose large frames come in IP fragments, IPv4 and IPv6,
// on several link types, in several orders, gives the exchanges of the
// unfragmented capture.
func TestFragmentedConversation(t *testing.T) {
	for _, v := range linkVariants {
		for _, order := range fragOrders {
			t.Run(v.name+"/"+order.name, func(t *testing.T) {
				clock := testClock()
				pkts, want := fragConversation(t, v, &clock)
				fr := fragmentAll(t, v, pkts, 1480, order)
				if fr.datagrams != 4 || fr.fragments < 8 {
					t.Fatalf("%d packets fragmented into %d", fr.datagrams, fr.fragments)
				}
				checkFragmented(t, v, pkts, fr, want)
			})
		}
	}
}

// On a port found by detection (AnyPort), the datagrams reassembled wait
// in the backlog of the unknown connection and are replayed once it is
// recognised, as whole packets are.
func TestFragmentedAnyPort(t *testing.T) {
	for _, v := range []linkVariant{linkVariants[0], linkVariants[1]} {
		t.Run(v.name, func(t *testing.T) {
			clock := testClock()
			pkts, want := fragConversationOn(t, v, 19092, &clock)
			fr := fragmentAll(t, v, pkts, 1480, fragOrders[2])
			checkFragmentedWith(t, Options{AnyPort: true}, v, pkts, fr, want)
		})
	}
}

// Fragments the snap length cut: the datagram is reassembled, and its
// bytes from the first cut on are a hole of known length, beyond the snap
// length, as in a packet the snap length cut (a TCP segment can only lack
// bytes at its end: the bytes captured after the cut are dropped).
func TestSnappedFragments(t *testing.T) {
	const snap = 200
	for _, v := range []linkVariant{linkVariants[0], linkVariants[1]} {
		t.Run(v.name, func(t *testing.T) {
			clock := testClock()
			pkts, want := fragConversation(t, v, &clock)
			fr := fragmentAll(t, v, pkts, 1480, fragOrders[1])
			for i := range fr.pkts {
				if p := &fr.pkts[i]; len(p.data) > snap {
					p.data, p.ci.CaptureLength = p.data[:snap], snap
				}
			}
			d := New(Options{})
			got, err := readAll(t, d, writePcap(t, v.link, fr.pkts))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d exchanges, want %d", len(got), len(want))
			}
			// The first fragment holds the link, IP and TCP headers, the size
			// prefix, then the frame's first bytes.
			kept := snap - 14 - 20 - 20 - 4
			if v.ipv6 {
				kept = snap - 14 - 48 - 20 - 4
			}
			var missing int64
			for i, ex := range got {
				w := want[i]
				if ex.APIKey != w.key || ex.CorrelationID != w.corr || ex.Request == nil || ex.Response == nil {
					t.Fatalf("exchange %d: %s", i, describe(ex))
				}
				for _, side := range []struct {
					f    *Frame
					want []byte
				}{{ex.Request, w.req}, {ex.Response, w.resp}} {
					f, b := side.f, side.want
					var holes []Hole
					if len(b) > kept+100 { // fragmented
						holes = []Hole{{Offset: kept, Length: len(b) - kept, Cause: HoleSnapLength}}
						missing += int64(len(b) - kept)
					}
					if int(f.Size) != len(b) || !slices.Equal(f.Holes, holes) || !bytes.Equal(f.Bytes[:min(kept, len(b))], b[:min(kept, len(b))]) {
						t.Errorf("exchange %d: frame of %d bytes with holes %+v, want %d bytes with %+v", i, f.Size, f.Holes, len(b), holes)
					}
				}
			}
			st := d.Stats()
			if st.Reassembled != int64(fr.datagrams) || st.FragmentsDropped != 0 || st.SnapTruncated != int64(fr.datagrams) || st.SnapBytes != missing || missing == 0 {
				t.Errorf("stats %+v; %d datagrams, %d bytes cut", st, fr.datagrams, missing)
			}
		})
	}
}
