package dissect

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// This file damages the project's real captures (testdata/pcaps: kcat
// and franz-go traffic) the way real captures are damaged, and checks the
// exchanges recovered against those of the undamaged original: every
// exchange the damage does not touch is recovered exactly (same bytes,
// times, CorrelationIds, notes, capture order); the touched ones carry
// notes (or are recovered exactly); no exchange is invented: every frame
// is a frame of the original stream, or the start of one cut short.

// capPacket is a packet of a capture, with what the damage needs to know.
type capPacket struct {
	data []byte
	ci   gopacket.CaptureInfo
	link layers.LinkType
	orig int // index in the original capture
	// origLen is the packet's original length when the capture cut it
	// (snap length); 0: len(data).
	origLen int

	tcp      bool
	src, dst netip.AddrPort
	seq      uint32
	payload  int
	ip       []byte // the IP datagram
	v6       bool
}

func loadCapture(t *testing.T, path string) []capPacket {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pr, err := NewPacketReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []capPacket
	for i := 0; ; i++ {
		data, ci, link, err := pr.Next()
		if err != nil {
			break
		}
		p := capPacket{data: bytes.Clone(data), ci: ci, link: link, orig: i}
		pkt := gopacket.NewPacket(p.data, link, gopacket.NoCopy)
		if tl, ok := pkt.Layer(layers.LayerTypeTCP).(*layers.TCP); ok {
			p.tcp = true
			p.seq, p.payload = tl.Seq, len(tl.Payload)
			switch ip := pkt.NetworkLayer().(type) {
			case *layers.IPv4:
				p.src = netip.AddrPortFrom(netip.AddrFrom4([4]byte(ip.SrcIP.To4())), uint16(tl.SrcPort))
				p.dst = netip.AddrPortFrom(netip.AddrFrom4([4]byte(ip.DstIP.To4())), uint16(tl.DstPort))
				p.ip = append(slices.Clone(ip.Contents), ip.Payload...)
			case *layers.IPv6:
				p.v6 = true
				p.src = netip.AddrPortFrom(netip.AddrFrom16([16]byte(ip.SrcIP)), uint16(tl.SrcPort))
				p.dst = netip.AddrPortFrom(netip.AddrFrom16([16]byte(ip.DstIP)), uint16(tl.DstPort))
				p.ip = append(slices.Clone(ip.Contents), ip.Payload...)
			}
		}
		out = append(out, p)
	}
	return out
}

func writeCapture(t *testing.T, pkts []capPacket) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := pcapgo.NewNgWriter(&buf, pkts[0].link)
	if err != nil {
		t.Fatal(err)
	}
	ifaces := map[layers.LinkType]int{pkts[0].link: 0}
	for _, p := range pkts {
		id, ok := ifaces[p.link]
		if !ok {
			if id, err = w.AddInterface(pcapgo.NgInterface{LinkType: p.link, SnapLength: 262144}); err != nil {
				t.Fatal(err)
			}
			ifaces[p.link] = id
		}
		ci := p.ci
		ci.InterfaceIndex = id
		ci.CaptureLength, ci.Length = len(p.data), max(len(p.data), p.origLen)
		if err := w.WritePacket(ci, p.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// origFrame is a frame of the original capture, found by walking each
// direction's stream.
type origFrame struct {
	dir   [2]netip.AddrPort // src, dst
	start int64             // stream offset of its size prefix
	end   int64
	bytes []byte // without the size prefix
	pkts  []int  // original packets carrying its bytes
	first int    // packet of its first byte
	// offs holds, for each packet of pkts, the stream offset of its first
	// payload byte and of the byte after its last.
	offs [][2]int64
}

// originalFrames cuts each direction of each connection of a clean
// capture into frames. It reports false when the capture is not clean
// enough to know (retransmissions, holes).
func originalFrames(pkts []capPacket) ([]origFrame, bool) {
	type seg struct {
		off int64
		p   *capPacket
	}
	streams := map[[2]netip.AddrPort][]seg{}
	next := map[[2]netip.AddrPort]uint32{}
	var order [][2]netip.AddrPort
	for i := range pkts {
		p := &pkts[i]
		if !p.tcp || p.payload == 0 {
			continue
		}
		k := [2]netip.AddrPort{p.src, p.dst}
		ss, ok := streams[k]
		if !ok {
			order = append(order, k)
			next[k] = p.seq
		}
		if p.seq != next[k] {
			return nil, false
		}
		off := int64(0)
		if len(ss) > 0 {
			off = ss[len(ss)-1].off + int64(ss[len(ss)-1].p.payload)
		}
		streams[k] = append(ss, seg{off, p})
		next[k] = p.seq + uint32(p.payload)
	}
	var frames []origFrame
	for _, k := range order {
		ss := streams[k]
		var stream []byte
		for _, s := range ss {
			stream = append(stream, s.p.ip[len(s.p.ip)-s.p.payload:]...)
		}
		for off := int64(0); off+4 <= int64(len(stream)); {
			size := int64(binary.BigEndian.Uint32(stream[off:]))
			end := off + 4 + size
			if end > int64(len(stream)) {
				return nil, false
			}
			f := origFrame{dir: k, start: off, end: end, bytes: stream[off+4 : end]}
			for _, s := range ss {
				if s.off < end && s.off+int64(s.p.payload) > off {
					f.pkts = append(f.pkts, s.p.orig)
					f.offs = append(f.offs, [2]int64{s.off, s.off + int64(s.p.payload)})
				}
			}
			f.first = f.pkts[0]
			frames = append(frames, f)
			off = end
		}
	}
	return frames, true
}

// damageCheck compares the exchanges of a damaged capture with those of
// the original. touched says which original packets the damage touched
// (whose frames may differ); origOf maps a damaged capture's packet index
// to the original's.
type damageCheck struct {
	t      *testing.T
	name   string
	frames []origFrame
	ref    []*Exchange
	// addr maps an original address to the damaged capture's (IPv6).
	addr func(netip.AddrPort) netip.AddrPort
	// wantHoles, if set, says which holes a recovered original frame must
	// have.
	wantHoles func(*origFrame) []Hole
}

// sameOutsideHoles reports whether frame f is the original frame o, where
// f was captured: the same size, the same bytes outside its holes.
func sameOutsideHoles(o []byte, f *Frame) bool {
	if int(f.Size) != len(o) || len(f.Bytes) > len(o) {
		return false
	}
	at := 0
	for _, h := range f.Holes {
		if h.Offset < at || h.End() > len(o) || !bytes.Equal(f.Bytes[at:min(h.Offset, len(f.Bytes))], o[at:min(h.Offset, len(f.Bytes))]) {
			return false
		}
		at = h.End()
	}
	if at < len(f.Bytes) {
		return bytes.Equal(f.Bytes[at:], o[at:len(f.Bytes)])
	}
	return at >= len(f.Bytes) && (len(f.Holes) > 0 || len(f.Bytes) == len(o))
}

func (dc *damageCheck) frameOf(f *Frame, src, dst netip.AddrPort) *origFrame {
	return findFrame(dc.frames, f, src, dst)
}

// findFrame returns the original frame that f, whole, is, or nil.
func findFrame(frames []origFrame, f *Frame, src, dst netip.AddrPort) *origFrame {
	for i := range frames {
		o := &frames[i]
		if o.dir == [2]netip.AddrPort{src, dst} && o.first == int(f.Packet) && bytes.Equal(o.bytes, f.Bytes) {
			return o
		}
	}
	return nil
}

// frameSide is a frame of an exchange and the direction it flowed in.
type frameSide struct {
	f        *Frame
	src, dst netip.AddrPort
}

// origIndex returns the index of the original frame that f is where it
// was captured (sameOutsideHoles), or -1.
func origIndex(frames []origFrame, f frameSide) int {
	return slices.IndexFunc(frames, func(o origFrame) bool {
		return o.dir == [2]netip.AddrPort{f.src, f.dst} && sameOutsideHoles(o.bytes, f.f)
	})
}

// sides returns the frames of an exchange, request first.
func sides(e *Exchange) []frameSide {
	var out []frameSide
	if e.Request != nil {
		out = append(out, frameSide{e.Request, e.Client, e.Broker})
	}
	if e.Response != nil {
		out = append(out, frameSide{e.Response, e.Broker, e.Client})
	}
	return out
}

// check runs it: touchedFrame says whether the damage touched an original
// frame.
func (dc *damageCheck) check(damaged []capPacket, touchedFrame func(*origFrame) bool) {
	t := dc.t
	t.Helper()
	d := New(Options{})
	got, err := readAll(t, d, writeCapture(t, damaged))
	if err != nil {
		t.Fatalf("%s: %v", dc.name, err)
	}
	origOf := func(f *Frame) *Frame {
		if f == nil {
			return nil
		}
		g := *f
		g.Packet = int64(damaged[f.Packet].orig)
		return &g
	}
	type id struct {
		client, broker netip.AddrPort
		corr           int32
		req, resp      int64
	}
	key := func(e *Exchange, client, broker netip.AddrPort, req, resp *Frame) id {
		k := id{client: client, broker: broker, corr: e.CorrelationID, req: -1, resp: -1}
		if req != nil {
			k.req = req.Packet
		}
		if resp != nil {
			k.resp = resp.Packet
		}
		return k
	}
	byID := map[id]*Exchange{}
	for _, e := range got {
		byID[key(e, e.Client, e.Broker, origOf(e.Request), origOf(e.Response))] = e
	}
	exact := map[*Exchange]bool{}
	touched := 0
	for _, r := range dc.ref {
		isTouched := false
		for _, f := range sides(r) {
			o := dc.frameOf(f.f, f.src, f.dst)
			if o == nil {
				t.Fatalf("%s: reference frame not found: %s", dc.name, describe(r))
			}
			isTouched = isTouched || touchedFrame(o)
		}
		e := byID[key(r, dc.addr(r.Client), dc.addr(r.Broker), r.Request, r.Response)]
		if e != nil && sameExchange(r, e, origOf) {
			exact[e] = true
			continue
		}
		if !isTouched {
			t.Errorf("%s: untouched exchange not recovered exactly: %s", dc.name, describe(r))
			if e != nil {
				t.Logf("got %s", describe(e))
			}
			continue
		}
		touched++
	}
	for _, e := range got {
		if exact[e] {
			continue
		}
		if len(e.Notes) == 0 {
			t.Errorf("%s: exchange without notes differs from the original: %s", dc.name, describe(e))
		}
		// No exchange is invented: its frames are original frames, with
		// holes where the damage took bytes.
		for _, f := range sides(e) {
			var match *origFrame
			for i := range dc.frames {
				o := &dc.frames[i]
				if dc.addr(o.dir[0]) == f.src && dc.addr(o.dir[1]) == f.dst && sameOutsideHoles(o.bytes, f.f) {
					match = o
					break
				}
			}
			if match == nil {
				t.Errorf("%s: invented frame (%d of %d bytes, holes %v): %s", dc.name, len(f.f.Bytes), f.f.Size, f.f.Holes, describe(e))
				continue
			}
			if dc.wantHoles != nil {
				if want := dc.wantHoles(match); !slices.Equal(f.f.Holes, want) {
					t.Errorf("%s: holes %v, want %v: %s", dc.name, f.f.Holes, want, describe(e))
				}
			}
		}
	}
	checkExchangeInvariants(t, got, DefaultMaxFrameSize)
	if testing.Verbose() {
		t.Logf("%s: %d exchanges, %d touched by the damage, %d recovered exactly", dc.name, len(got), touched, len(exact))
	}
}

// sameExchange compares everything but the addresses and stream number
// (the damage may change them).
func sameExchange(r, e *Exchange, origOf func(*Frame) *Frame) bool {
	sameFrame := func(a, b *Frame) bool {
		if a == nil || b == nil {
			return a == b
		}
		return bytes.Equal(a.Bytes, b.Bytes) && a.Size == b.Size && a.Time.Equal(b.Time) && a.EndTime.Equal(b.EndTime) && a.Packet == b.Packet
	}
	return r.APIKey == e.APIKey && r.APIVersion == e.APIVersion && r.CorrelationID == e.CorrelationID &&
		(r.ClientID == nil) == (e.ClientID == nil) && (r.ClientID == nil || *r.ClientID == *e.ClientID) &&
		sameFrame(r.Request, origOf(e.Request)) && sameFrame(r.Response, origOf(e.Response)) &&
		slices.Equal(r.Notes, e.Notes) && r.NoResponse == e.NoResponse
}

func realCaptures(t *testing.T) []string {
	files, _ := filepath.Glob("../testdata/pcaps/*.pcap")
	if len(files) == 0 {
		t.Skip("no captures in testdata/pcaps")
	}
	return files
}

// resegment cuts every TCP payload into segments of 100 to maxSeg bytes,
// as a network with a smaller MSS would have carried it: the same bytes,
// sequence numbers adjusted, the same capture time. The copies renumber
// the packets: they are the original from then on.
func resegment(pkts []capPacket, rng *rand.Rand, maxSeg int) []capPacket {
	var out []capPacket
	for _, p := range pkts {
		if !p.tcp || p.payload <= maxSeg || p.v6 {
			p.orig = len(out)
			out = append(out, p)
			continue
		}
		link := p.data[:len(p.data)-len(p.ip)]
		ihl := int(p.ip[0]&0x0f) * 4
		thl := int(p.ip[ihl+12]>>4) * 4
		payload := p.ip[len(p.ip)-p.payload:]
		for off := 0; off < len(payload); {
			n := min(len(payload)-off, 100+rng.IntN(maxSeg-99))
			ip := cat(p.ip[:ihl+thl], payload[off:off+n])
			binary.BigEndian.PutUint16(ip[2:], uint16(len(ip)))
			binary.BigEndian.PutUint32(ip[ihl+4:], p.seq+uint32(off))
			q := p
			q.ip, q.seq, q.payload = ip, p.seq+uint32(off), n
			q.data = cat(link, ip)
			q.orig = len(out)
			out = append(out, q)
			off += n
		}
	}
	return out
}

// damageVariants are the captures the damage tests start from: the real
// capture, and the same traffic re-segmented (so that damage cuts frames
// in the middle).
func damageVariants(t *testing.T, file string, f func(t *testing.T, pkts []capPacket, dc *damageCheck)) {
	t.Run("as captured", func(t *testing.T) {
		pkts, dc := setupDamage(t, loadCapture(t, file))
		f(t, pkts, dc)
	})
	for _, maxSeg := range []int{300, 120} {
		t.Run(fmt.Sprintf("resegmented %d", maxSeg), func(t *testing.T) {
			pkts, dc := setupDamage(t, resegment(loadCapture(t, file), rand.New(rand.NewPCG(5, uint64(maxSeg))), maxSeg))
			f(t, pkts, dc)
		})
	}
}

// setupDamage frames a capture and dissects it undamaged.
func setupDamage(t *testing.T, pkts []capPacket) ([]capPacket, *damageCheck) {
	frames, ok := originalFrames(pkts)
	if !ok {
		t.Skip("not a clean capture")
	}
	var orig []capPacket
	for i := range pkts {
		orig = append(orig, pkts[i])
	}
	ref, err := readAll(t, New(Options{}), writeCapture(t, orig))
	if err != nil {
		t.Fatal(err)
	}
	return pkts, &damageCheck{t: t, frames: frames, ref: ref, addr: func(a netip.AddrPort) netip.AddrPort { return a }}
}

// payloadPackets returns the indices of the packets carrying TCP payload.
func payloadPackets(pkts []capPacket) []int {
	var out []int
	for i, p := range pkts {
		if p.tcp && p.payload > 0 {
			out = append(out, i)
		}
	}
	return out
}

// A segment lost: the frames it carried are cut or lost, the frame after
// it in its direction carries the resynchronisation note; all else is
// exact.
func TestDamageDroppedSegment(t *testing.T) {
	for _, file := range realCaptures(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			damageVariants(t, file, func(t *testing.T, pkts []capPacket, dc *damageCheck) {
				rng := rand.New(rand.NewPCG(11, uint64(len(pkts))))
				payload := payloadPackets(pkts)
				for range 6 {
					drop := payload[rng.IntN(len(payload))]
					dropped := pkts[drop]
					dc.name = fmt.Sprintf("drop packet %d", drop)
					damaged := slices.Delete(slices.Clone(pkts), drop, drop+1)
					// The frames carried by the dropped packet, and the first
					// frame after it in its direction.
					var after *origFrame
					for i := range dc.frames {
						o := &dc.frames[i]
						if o.dir == [2]netip.AddrPort{dropped.src, dropped.dst} && o.first > drop && !slices.Contains(o.pkts, drop) {
							if after == nil || o.start < after.start {
								after = o
							}
						}
					}
					// A frame the dropped packet carried a part of, whose size
					// prefix is elsewhere, is recovered with exactly that part
					// as a hole.
					dc.wantHoles = func(o *origFrame) []Hole {
						i := slices.Index(o.pkts, drop)
						if i < 0 || o.dir != [2]netip.AddrPort{dropped.src, dropped.dst} {
							return nil
						}
						from, to := max(o.offs[i][0], o.start+4)-o.start-4, min(o.offs[i][1], o.end)-o.start-4
						return []Hole{{Offset: int(from), Length: int(to - from), Cause: HoleNotCaptured}}
					}
					dc.check(damaged, func(o *origFrame) bool { return slices.Contains(o.pkts, drop) || o == after })
					dc.wantHoles = nil
				}
			})
		})
	}
}

// Segments swapped, within a direction or across directions, and
// segments duplicated: reassembly puts them right, and every exchange is
// recovered exactly (a swap may change which packet comes first, and so
// the order, as the capture says).
func TestDamageReorderedAndDuplicated(t *testing.T) {
	for _, file := range realCaptures(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			damageVariants(t, file, func(t *testing.T, pkts []capPacket, dc *damageCheck) {
				rng := rand.New(rand.NewPCG(12, uint64(len(pkts))))
				payload := payloadPackets(pkts)
				none := func(*origFrame) bool { return false }
				for range 4 {
					// Swap a payload packet with the next one of the same
					// direction, or with the very next packet.
					i := payload[rng.IntN(len(payload)-1)]
					j := i + 1
					if rng.IntN(2) == 0 {
						for k := i + 1; k < len(pkts); k++ {
							if pkts[k].tcp && pkts[k].payload > 0 && pkts[k].src == pkts[i].src && pkts[k].dst == pkts[i].dst {
								j = k
								break
							}
						}
					}
					damaged := slices.Clone(pkts)
					damaged[i], damaged[j] = damaged[j], damaged[i]
					dc.name = fmt.Sprintf("swap packets %d and %d", i, j)
					dc.check(damaged, none)
				}
				for range 4 {
					// A copy right after, or a few packets later (a
					// retransmission).
					i := payload[rng.IntN(len(payload))]
					at := min(i+1+rng.IntN(4), len(pkts))
					damaged := slices.Insert(slices.Clone(pkts), at, pkts[i])
					dc.name = fmt.Sprintf("duplicate packet %d at %d", i, at)
					dc.check(damaged, none)
				}
			})
		})
	}
}

// The capture starts late: connections are picked up mid-stream. What
// the cut touched, and the first frame after it in each direction, may
// differ (with notes); all else is exact.
func TestDamageMidStreamStart(t *testing.T) {
	for _, file := range realCaptures(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			damageVariants(t, file, func(t *testing.T, pkts []capPacket, dc *damageCheck) {
				rng := rand.New(rand.NewPCG(13, uint64(len(pkts))))
				for range 4 {
					k := 1 + rng.IntN(len(pkts)/2)
					damaged := slices.Clone(pkts[k:])
					dc.name = fmt.Sprintf("cut %d packets", k)
					firstAfter := map[[2]netip.AddrPort]*origFrame{}
					for i := range dc.frames {
						o := &dc.frames[i]
						if slices.Min(o.pkts) >= k {
							if f := firstAfter[o.dir]; f == nil || o.start < f.start {
								firstAfter[o.dir] = o
							}
						}
					}
					dc.check(damaged, func(o *origFrame) bool { return slices.Min(o.pkts) < k || firstAfter[o.dir] == o })
				}
			})
		})
	}
}

// The same traffic over other link layers and IPv6 gives the same
// exchanges.
func TestDamageReencapsulated(t *testing.T) {
	mapped := func(a netip.AddrPort) netip.AddrPort {
		b := a.Addr().As4()
		return netip.AddrPortFrom(netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 12: b[0], 13: b[1], 14: b[2], 15: b[3]}), a.Port())
	}
	eth := func(typ layers.EthernetType) []byte { return ethHeader(typ) }
	wraps := []struct {
		name string
		link layers.LinkType
		v6   bool
		wrap func(ip []byte, v6 bool) []byte
	}{
		{"vlan", layers.LinkTypeEthernet, false, func(ip []byte, v6 bool) []byte {
			return cat(eth(layers.EthernetTypeDot1Q), vlanTag(42, ipEtherType(v6)), ip)
		}},
		{"sll2", layers.LinkTypeLinuxSLL2, false, linkVariants[5].wrap},
		{"ipv6", layers.LinkTypeEthernet, true, func(ip []byte, v6 bool) []byte { return cat(eth(ipEtherType(v6)), ip) }},
		{"vlan-ipv6", layers.LinkTypeEthernet, true, func(ip []byte, v6 bool) []byte {
			return cat(eth(layers.EthernetTypeQinQ), vlanTag(7, layers.EthernetTypeDot1Q), vlanTag(42, ipEtherType(v6)), ip)
		}},
	}
	for _, file := range realCaptures(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			damageVariants(t, file, func(t *testing.T, pkts []capPacket, dc *damageCheck) {
				for _, w := range wraps {
					damaged := slices.Clone(pkts)
					for i := range damaged {
						p := &damaged[i]
						if p.ip == nil || p.v6 {
							t.Skip("not IPv4")
						}
						ip := p.ip
						if w.v6 {
							ip = ipv4to6(ip, mapped)
						}
						p.data, p.link = w.wrap(ip, w.v6), w.link
					}
					dc.name = w.name
					if w.v6 {
						dc.addr = mapped
					} else {
						dc.addr = func(a netip.AddrPort) netip.AddrPort { return a }
					}
					dc.check(damaged, func(*origFrame) bool { return false })
				}
			})
		})
	}
}

// ipv4to6 rewrites an IPv4 datagram carrying TCP as IPv6, with the
// addresses mapped (the TCP checksum is left as it was: it is not checked).
func ipv4to6(ip []byte, mapped func(netip.AddrPort) netip.AddrPort) []byte {
	ihl := int(ip[0]&0x0f) * 4
	total := int(binary.BigEndian.Uint16(ip[2:]))
	tcp := ip[ihl:min(total, len(ip))]
	src := mapped(netip.AddrPortFrom(netip.AddrFrom4([4]byte(ip[12:16])), 0)).Addr().As16()
	dst := mapped(netip.AddrPortFrom(netip.AddrFrom4([4]byte(ip[16:20])), 0)).Addr().As16()
	h := make([]byte, 40)
	h[0] = 0x60
	binary.BigEndian.PutUint16(h[4:], uint16(len(tcp)))
	h[6], h[7] = 6, 64
	copy(h[8:], src[:])
	copy(h[24:], dst[:])
	return cat(h, tcp)
}
