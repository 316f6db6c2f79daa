package dissect

import (
	"container/list"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/gopacket/gopacket/layers"
)

// IP reassembly: the fragments of an IPv4 or IPv6 datagram that carries
// TCP are held until the datagram is whole, then the datagram is
// dissected as a packet of its own. It follows what a Linux receiver does
// (net/ipv4/ip_fragment.c, net/ipv6/reassembly.c), which is what the
// broker or client saw:
//
//   - a datagram is the fragments of one (source, destination,
//     identification), and for IPv4 protocol (RFC 791, RFC 8200);
//   - a copy of bytes held already is ignored; a fragment that overlaps
//     others without being such a copy, or contradicts where the last
//     fragment said the datagram ends, drops the whole datagram (RFC 5722;
//     Linux does the same for IPv4);
//   - a non-final IPv4 fragment counts in whole 8-byte units; a non-final
//     IPv6 fragment of another length, or a fragment reaching past 65 535
//     bytes, is discarded by itself (RFC 8200);
//   - a datagram still incomplete fragTimeout after its first fragment
//     (capture time) is given up, and so is the oldest when the limits on
//     fragments pending are reached.
//
// gopacket's ip4defrag is not used: it keeps the caller's layers.IPv4
// (the decoder reuses its layers, so each fragment would need a copy of
// the layer and its bytes), bounds neither the datagrams pending nor
// their bytes (only a scan of them all by time frees them), refuses a
// fragment the snap length cut (and drops its datagram), says why it
// dropped one only in an error string, and does not do IPv6, which needs
// the same rules anyway.

// Reassembly bounds: Linux's defaults for the time and the bytes.
const (
	fragTimeout       = 30 * time.Second // ipfrag_time
	maxFragBytes      = 4 << 20          // ipfrag_high_thresh: bytes held, all datagrams
	maxFragDatagrams  = 1024             // datagrams pending at once
	maxFragsPerDgram  = 256              // fragments of one datagram (64 KiB in 256-byte fragments)
	fragOverhead      = 64               // what a held fragment costs besides its bytes, against maxFragBytes
	maxIPDatagram     = 65535            // IPv4 total length, IPv6 payload length
	maxIPv6ExtHeaders = 16               // extension headers looked through before the fragment header
)

// fragDrop says why fragments were given up.
type fragDrop uint8

const (
	fragTimedOut   fragDrop = iota // incomplete after fragTimeout
	fragEnded                      // incomplete at the end of the capture
	fragOverlap                    // overlapping or contradicting fragments
	fragOverLimits                 // beyond the limits on fragments pending
	fragInvalid                    // a fragment no datagram can hold
	numFragDrops
)

func (r fragDrop) String() string {
	switch r {
	case fragTimedOut:
		return fmt.Sprintf("incomplete after %v", fragTimeout)
	case fragEnded:
		return "incomplete at the end of the capture"
	case fragOverlap:
		return "overlapping or contradicting"
	case fragOverLimits:
		return fmt.Sprintf("beyond the limits on fragments pending (%d datagrams, %s)", maxFragDatagrams, sizeString(maxFragBytes))
	}
	return "invalid"
}

// fragKey identifies the datagram a fragment belongs to.
type fragKey struct {
	src, dst netip.Addr
	id       uint32
	proto    uint8 // IPv4 only: IPv6 does not key on it
}

// ipFragment is one fragment, as its IP header says, its bytes pointing
// into the packet.
type ipFragment struct {
	key  fragKey
	v6   bool
	ip   []byte // the packet from its IP header on, as captured
	hdr  int    // where the fragment's payload starts: after the IPv4 header, or the IPv6 fragment header
	nh   int    // IPv6: offset of the byte naming the header after the unfragmentable part
	next byte   // IPv6: the header that begins the fragmentable part
	// start and end are the payload bytes the fragment covers, as its
	// header declares them; data is those captured, shorter when the
	// snap length cut the packet.
	start, end int
	more       bool
	data       []byte
}

// parseFragment reads the fragment an IPv4 or IPv6 packet (ip, from its
// header on) holds; false when the headers contradict themselves.
func parseFragment(ip []byte, v6 bool) (ipFragment, bool) {
	f := ipFragment{v6: v6, ip: ip}
	var total int // the packet's end, as its header declares it
	if !v6 {
		if len(ip) < 20 {
			return f, false
		}
		f.hdr, total = int(ip[0]&0x0f)*4, int(binary.BigEndian.Uint16(ip[2:4]))
		if f.hdr < 20 || total < f.hdr || len(ip) < f.hdr {
			return f, false
		}
		fo := binary.BigEndian.Uint16(ip[6:8])
		f.more, f.start = fo&0x2000 != 0, int(fo&0x1fff)*8
		f.key = fragKey{src: netip.AddrFrom4([4]byte(ip[12:16])), dst: netip.AddrFrom4([4]byte(ip[16:20])), id: uint32(binary.BigEndian.Uint16(ip[4:6])), proto: ip[9]}
	} else {
		if len(ip) < 40 {
			return f, false
		}
		total = 40 + int(binary.BigEndian.Uint16(ip[4:6]))
		if total == 40 {
			return f, false // a jumbogram has no fragment header (RFC 2675)
		}
		// The unfragmentable part: hop-by-hop, routing and destination
		// options headers, up to the fragment header.
		end := min(len(ip), total)
		f.nh, f.hdr = 6, 40
		for n := 0; ip[f.nh] != byte(layers.IPProtocolIPv6Fragment); n++ {
			switch ip[f.nh] {
			case byte(layers.IPProtocolIPv6HopByHop), byte(layers.IPProtocolIPv6Routing), byte(layers.IPProtocolIPv6Destination):
			default:
				return f, false
			}
			if n == maxIPv6ExtHeaders || f.hdr+8 > end {
				return f, false
			}
			f.nh, f.hdr = f.hdr, f.hdr+(int(ip[f.hdr+1])+1)*8
		}
		if f.hdr+8 > end {
			return f, false
		}
		fh := ip[f.hdr : f.hdr+8]
		fo := binary.BigEndian.Uint16(fh[2:4])
		f.next, f.more, f.start = fh[0], fo&1 != 0, int(fo>>3)*8
		f.key = fragKey{src: netip.AddrFrom16([16]byte(ip[8:24])), dst: netip.AddrFrom16([16]byte(ip[24:40])), id: binary.BigEndian.Uint32(fh[4:8])}
		f.hdr += 8
	}
	f.data = ip[f.hdr:min(len(ip), total)]
	f.end = f.start + total - f.hdr
	return f, true
}

// carriesTCP says whether the fragment's datagram can hold TCP: the only
// ones reassembled.
func (f *ipFragment) carriesTCP() bool {
	if !f.v6 {
		return f.key.proto == uint8(layers.IPProtocolTCP)
	}
	return f.next == byte(layers.IPProtocolTCP) || f.next == byte(layers.IPProtocolIPv6Destination)
}

// datagram is a datagram being reassembled, or just reassembled (done).
type datagram struct {
	key    fragKey
	order  *list.Element // in defragger.order
	since  time.Time     // session clock at its first fragment
	head   []byte        // the unfragmentable part, from the fragment at offset 0
	nh     int           // IPv6: where head names the next header
	next6  byte          // IPv6: the header after it
	pieces []fragPiece
	total  int  // its payload length, from the last fragment; -1 until then
	have   int  // payload bytes the pieces cover
	held   int  // bytes it counts against maxFragBytes
	ports  bool // the fragment at offset 0 showed the TCP ports
	kafka  bool // and one end of them is a broker
	// done says the datagram was reassembled: it is kept, without its
	// bytes, for fragTimeout more (since: when), so that a copy of one of
	// its fragments captured after it (a capture on several interfaces
	// sees each packet twice) is not taken for a new datagram that never
	// completes.
	done bool
}

// fragPiece is a fragment held: the payload bytes [start, end), of which
// data holds those captured (a copy).
type fragPiece struct {
	start, end int
	data       []byte
	sum        uint32 // CRC-32 of data: what a late copy is recognised by
}

// mayBeKafka says whether the datagram may have carried Kafka: its ports
// were a broker's, or it lacks the fragment that would say.
func (g *datagram) mayBeKafka() bool { return g.kafka || !g.ports }

// defragger holds the datagrams being reassembled; a Session makes one at
// its first fragment.
type defragger struct {
	m     map[fragKey]*datagram
	order list.List // of *datagram, in the order their first fragment came
	bytes int
	out   []byte // the last datagram reassembled; reused
	// lost counts, by reason, the fragments given up of datagrams that
	// may have carried Kafka (datagram.mayBeKafka), for Session.Close's
	// problem note.
	lost [numFragDrops]int64
}

// fragment handles the IP fragment the decoder just found in data. When it
// completes a datagram, it returns the datagram's kind (decoded into
// s.cur), link type and bytes, valid until the next fragment; otherwise
// kindFragment, and the fragment is held or given up (and counted).
//
// The fragment that completes a datagram stands for it: the datagram is
// dissected with that fragment's capture time and packet index, the last
// fragment to arrive (as tshark shows a reassembled datagram in the frame
// of its last fragment). So a request carried in fragments is ordered, and
// numbered (Frame.Packet), by the fragment that completed it.
func (s *Session) fragment(data []byte) (packetKind, layers.LinkType, []byte) {
	if s.frags == nil {
		s.frags = &defragger{m: make(map[fragKey]*datagram)}
	}
	d := s.frags
	ip, v6 := s.dec.ipPacket(data)
	f, ok := parseFragment(ip, v6)
	if !ok {
		s.dropFragments(1, true, fragInvalid)
		return kindFragment, 0, nil
	}
	if !f.carriesTCP() {
		return kindFragment, 0, nil // UDP and the like: never dissected
	}
	s.expireFragments()
	dg := d.m[f.key]
	if dg != nil && dg.done {
		if dg.copyOf(&f) {
			return kindFragment, 0, nil
		}
		d.remove(dg) // the identification is used again: a new datagram
		dg = nil
	}
	ports, kafka := s.fragmentPorts(&f)
	if dg != nil && dg.ports {
		ports, kafka = true, dg.kafka
	}
	if f.more && !f.v6 {
		f.end -= (f.end - f.start) % 8 // whole 8-byte units only
	}
	if f.end <= f.start || f.more && (f.end-f.start)%8 != 0 || f.lengthField() > maxIPDatagram {
		s.dropFragments(1, kafka || !ports, fragInvalid) // by itself
		return kindFragment, 0, nil
	}
	if dg == nil {
		if len(d.m) >= maxFragDatagrams {
			s.dropDatagram(d.oldest(), fragOverLimits)
		}
		dg = &datagram{key: f.key, since: s.clock, total: -1}
		d.m[f.key] = dg
		d.push(dg)
	}
	switch dg.insert(&f) {
	case insertDuplicate:
		return kindFragment, 0, nil
	case insertConflict:
		s.dropFragments(1, dg.mayBeKafka(), fragOverlap)
		s.dropDatagram(dg, fragOverlap)
		return kindFragment, 0, nil
	}
	if f.start == 0 {
		dg.ports, dg.kafka = ports, kafka
	}
	cost := len(f.data) + fragOverhead
	if f.start == 0 {
		cost += len(dg.head)
	}
	d.bytes += cost
	dg.held += cost
	if len(dg.pieces) > maxFragsPerDgram {
		s.dropDatagram(dg, fragOverLimits)
		return kindFragment, 0, nil
	}
	for d.bytes > maxFragBytes {
		s.dropDatagram(d.oldest(), fragOverLimits)
	}
	if d.m[f.key] != dg || dg.total < 0 || dg.have != dg.total {
		return kindFragment, 0, nil
	}
	out, link, ok := d.build(dg)
	if !ok {
		s.dropDatagram(dg, fragInvalid)
		return kindFragment, 0, nil
	}
	st := &s.d.stats
	st.Reassembled++
	st.FragmentsReassembled += int64(len(dg.pieces))
	d.finish(dg, s.clock)
	kind := s.dec.decode(link, out, &s.cur)
	if kind == kindFragment {
		kind = kindMalformed // a fragment inside a fragment
	}
	return kind, link, out
}

// fragmentPorts says whether the fragment shows its datagram's TCP ports
// (it is the first, and TCP comes first in it), and whether one end is a
// broker.
func (s *Session) fragmentPorts(f *ipFragment) (ports, kafka bool) {
	if f.start != 0 || f.v6 && f.next != byte(layers.IPProtocolTCP) || len(f.data) < 4 {
		return false, false
	}
	src := netip.AddrPortFrom(f.key.src, binary.BigEndian.Uint16(f.data))
	dst := netip.AddrPortFrom(f.key.dst, binary.BigEndian.Uint16(f.data[2:]))
	return true, s.brokers.has(src) || s.brokers.has(dst)
}

// lengthField is the length the reassembled datagram's header declares,
// by this fragment's headers: IPv4's total length, or IPv6's payload
// length (the unfragmentable extension headers and the payload).
func (f *ipFragment) lengthField() int {
	if f.v6 {
		return f.hdr - 40 - 8 + f.end
	}
	return f.hdr + f.end
}

// copyOf says whether a fragment is a copy of one the datagram was made of.
func (g *datagram) copyOf(f *ipFragment) bool {
	i, found := slices.BinarySearchFunc(g.pieces, f.start, func(p fragPiece, at int) int { return p.start - at })
	if !found {
		return false
	}
	p := &g.pieces[i]
	end := f.end
	if f.more && !f.v6 {
		end -= (end - f.start) % 8
	}
	return p.end == end && p.sum == crc32.ChecksumIEEE(f.data[:min(len(f.data), end-f.start)])
}

// insertResult says what datagram.insert made of a fragment.
type insertResult uint8

const (
	insertHeld      insertResult = iota
	insertDuplicate              // its bytes are held already: ignored
	insertConflict               // it overlaps or contradicts the datagram: drop it all
)

// insert adds a fragment's bytes to the datagram, keeping the pieces
// sorted and disjoint.
func (g *datagram) insert(f *ipFragment) insertResult {
	start, end := f.start, f.end
	i, _ := slices.BinarySearchFunc(g.pieces, start, func(p fragPiece, at int) int {
		if p.end <= at {
			return -1
		}
		return 1
	})
	j := i
	for j < len(g.pieces) && g.pieces[j].start < end {
		j++
	}
	if i < j {
		// A copy lies within a run of contiguous pieces held.
		if g.pieces[i].start > start || g.pieces[j-1].end < end {
			return insertConflict
		}
		for k := i; k < j-1; k++ {
			if g.pieces[k].end != g.pieces[k+1].start {
				return insertConflict
			}
		}
		return insertDuplicate
	}
	// The last fragment says where the datagram ends: nothing may lie
	// beyond, and two last fragments must agree.
	highest := 0
	if len(g.pieces) > 0 {
		highest = g.pieces[len(g.pieces)-1].end
	}
	switch {
	case !f.more:
		if end < highest || g.total >= 0 && end != g.total {
			return insertConflict
		}
		g.total = end
	case g.total >= 0 && end > g.total:
		return insertConflict
	}
	if start == 0 {
		g.head = append([]byte(nil), f.ip[:f.hdr]...)
		g.nh, g.next6 = f.nh, f.next
		if f.v6 {
			g.head = g.head[:len(g.head)-8] // without the fragment header
		}
	}
	data := f.data[:min(len(f.data), end-start)]
	g.pieces = slices.Insert(g.pieces, i, fragPiece{start: start, end: end, data: append([]byte(nil), data...), sum: crc32.ChecksumIEEE(data)})
	g.have += end - start
	return insertHeld
}

// build writes the datagram's IP packet into d.out: the unfragmentable
// part of its first fragment, with its length and fragment fields set for
// a whole datagram, then the pieces. A piece the snap length cut ends the
// bytes: the rest is declared but not captured, like a packet the snap
// length cut, since a TCP segment can only lack bytes at its end (the
// bytes captured after the cut are dropped). false when the datagram would
// be too long.
func (d *defragger) build(g *datagram) ([]byte, layers.LinkType, bool) {
	v6 := g.key.src.Is6()
	n := len(g.head) + g.total
	if v6 && n-40 > maxIPDatagram || !v6 && n > maxIPDatagram {
		return nil, 0, false
	}
	out := append(d.out[:0], g.head...)
	for _, p := range g.pieces {
		out = append(out, p.data...)
		if len(p.data) < p.end-p.start {
			break
		}
	}
	d.out = out
	if v6 {
		binary.BigEndian.PutUint16(out[4:6], uint16(n-40))
		out[g.nh] = g.next6
		return out, layers.LinkTypeIPv6, true
	}
	binary.BigEndian.PutUint16(out[2:4], uint16(n))
	out[6] &= 0x40 // keep DF; no more fragments, offset 0
	out[7] = 0
	// The header checksum is left as it was: nothing checks it.
	return out, layers.LinkTypeIPv4, true
}

func (d *defragger) push(g *datagram) { g.order = d.order.PushBack(g) }

// oldest returns the datagram pending longest, or nil.
func (d *defragger) oldest() *datagram {
	if e := d.order.Front(); e != nil {
		return e.Value.(*datagram)
	}
	return nil
}

// finish keeps a datagram just reassembled as done, until fragTimeout
// after now.
func (d *defragger) finish(g *datagram, now time.Time) {
	for i := range g.pieces {
		g.pieces[i].data = nil
	}
	g.head = nil
	g.done, g.since = true, now
	d.bytes -= g.held
	g.held = len(g.pieces) * fragOverhead
	d.bytes += g.held
	d.order.MoveToBack(g.order)
}

// remove forgets a datagram, reassembled or given up.
func (d *defragger) remove(g *datagram) {
	d.order.Remove(g.order)
	d.bytes -= g.held
	delete(d.m, g.key)
}

// dropDatagram gives up a datagram and its fragments (a datagram done
// is just forgotten).
func (s *Session) dropDatagram(g *datagram, why fragDrop) {
	if g == nil {
		return
	}
	s.frags.remove(g)
	if !g.done {
		s.dropFragments(len(g.pieces), g.mayBeKafka(), why)
	}
}

func (s *Session) dropFragments(n int, kafka bool, why fragDrop) {
	s.d.stats.FragmentsDropped += int64(n)
	if kafka {
		s.frags.lost[why] += int64(n)
	}
}

// expireFragments gives up the datagrams incomplete for fragTimeout, and
// forgets those done for as long.
func (s *Session) expireFragments() {
	if s.frags == nil {
		return
	}
	for g := s.frags.oldest(); g != nil && s.clock.Sub(g.since) >= fragTimeout; g = s.frags.oldest() {
		s.dropDatagram(g, fragTimedOut)
	}
}

// endFragments gives up the datagrams still incomplete at the end of the
// capture, and notes the fragments lost that may have carried Kafka.
func (s *Session) endFragments() {
	if s.frags == nil {
		return
	}
	for g := s.frags.oldest(); g != nil; g = s.frags.oldest() {
		s.dropDatagram(g, fragEnded)
	}
	var n int64
	var why []string
	for r, k := range s.frags.lost {
		if k > 0 {
			n += k
			why = append(why, fmt.Sprintf("%d %v", k, fragDrop(r)))
		}
	}
	if n > 0 {
		s.problem(fmt.Sprintf("%d IP fragments of TCP datagrams that may carry Kafka could not be reassembled (%s): their bytes are missing from their TCP streams", n, strings.Join(why, ", ")))
	}
	s.frags = nil
}
