package capedit_test

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/kdissect/kdissect/internal/capedit"
	"github.com/kdissect/kdissect/internal/capgen"
)

// packet is one packet as pcapgo reads it from a file.
type packet struct {
	link layers.LinkType
	ci   gopacket.CaptureInfo
	data []byte
}

func (p packet) String() string {
	return fmt.Sprintf("%v %s caplen %d len %d", p.link, p.ci.Timestamp.Format(time.RFC3339Nano), p.ci.CaptureLength, p.ci.Length)
}

// capture is a whole file as pcapgo reads it.
type capture struct {
	pcapng  bool
	nano    bool // classic pcap: nanosecond timestamps
	snaplen uint32
	packets []packet
}

// readCapture reads a plain capture file: a pcapng with pcapgo, every
// packet whatever its interface's link type; a classic pcap with readPcap.
func readCapture(t *testing.T, b []byte) capture {
	t.Helper()
	if !bytes.HasPrefix(b, []byte{0x0a, 0x0d, 0x0d, 0x0a}) {
		c, err := readPcap(b)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := capture{pcapng: true}
	r, err := pcapgo.NewNgReader(bytes.NewReader(b), pcapgo.NgReaderOptions{WantMixedLinkType: true})
	if err != nil {
		t.Fatal(err)
	}
	for {
		data, ci, err := r.ReadPacketData()
		if err == io.EOF {
			return c
		}
		if err != nil {
			t.Fatalf("packet %d: %v", len(c.packets), err)
		}
		link := ci.AncillaryData[0].(layers.LinkType)
		ci.AncillaryData, ci.InterfaceIndex = nil, 0
		c.packets = append(c.packets, packet{link, ci, data})
	}
}

// readPcap reads a classic pcap file, written here rather than taken from
// pcapgo, which refuses records whose captured length exceeds the original
// length (go-sniffer's captures have them; editcap keeps them).
func readPcap(b []byte) (capture, error) {
	var c capture
	if len(b) < 24 {
		return c, fmt.Errorf("file header: %d bytes", len(b))
	}
	var order binary.ByteOrder
	switch binary.LittleEndian.Uint32(b) {
	case 0xa1b2c3d4, 0xa1b23c4d:
		order = binary.LittleEndian
	case 0xd4c3b2a1, 0x4d3cb2a1:
		order = binary.BigEndian
	default:
		return c, fmt.Errorf("magic % x", b[:4])
	}
	c.nano = order.Uint32(b) == 0xa1b23c4d
	c.snaplen = order.Uint32(b[16:])
	link := layers.LinkType(order.Uint32(b[20:]))
	for b = b[24:]; len(b) > 0; {
		if len(b) < 16 {
			return c, fmt.Errorf("packet %d: record header cut short", len(c.packets))
		}
		sec, frac, capLen, origLen := order.Uint32(b), order.Uint32(b[4:]), int(order.Uint32(b[8:])), int(order.Uint32(b[12:]))
		if len(b) < 16+capLen {
			return c, fmt.Errorf("packet %d: data cut short", len(c.packets))
		}
		if !c.nano {
			frac *= 1000
		}
		ci := gopacket.CaptureInfo{Timestamp: time.Unix(int64(sec), int64(frac)), CaptureLength: capLen, Length: origLen}
		c.packets = append(c.packets, packet{link, ci, b[16 : 16+capLen]})
		b = b[16+capLen:]
	}
	return c, nil
}

// captures returns the project's captures and, when ../shared is there,
// the public ones.
func captures(t *testing.T) []string {
	t.Helper()
	own, _ := filepath.Glob("../../testdata/pcaps/*.pcap*")
	if len(own) == 0 {
		t.Fatal("no captures in testdata/pcaps")
	}
	// The tests read the captures with pcapgo too, which reads no gzip
	// (TestGzip covers it).
	own = slices.DeleteFunc(own, func(f string) bool { return strings.HasSuffix(f, ".gz") })
	public, _ := filepath.Glob("../../../shared/pcaps-public/*.pcap*")
	if len(public) == 0 {
		t.Log("public captures not available: only the project's captures are used")
	}
	return append(own, public...)
}

func rewrite(t *testing.T, in []byte, opts capedit.Options) ([]byte, capedit.Result) {
	t.Helper()
	var out bytes.Buffer
	res, err := capedit.Rewrite(&out, bytes.NewReader(in), opts)
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), res
}

// samePackets reports the first difference between two packet lists.
func samePackets(t *testing.T, want, got []packet) {
	t.Helper()
	if len(want) != len(got) {
		t.Errorf("%d packets, want %d", len(got), len(want))
	}
	for i := range min(len(want), len(got)) {
		w, g := want[i], got[i]
		if w.link != g.link || !w.ci.Timestamp.Equal(g.ci.Timestamp) || w.ci.CaptureLength != g.ci.CaptureLength ||
			w.ci.Length != g.ci.Length || !bytes.Equal(w.data, g.data) {
			t.Errorf("packet %d: got %v (data equal: %v), want %v", i, g, bytes.Equal(w.data, g.data), w)
			return
		}
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// With no edit the output holds the input's packets, link type and
// timestamp resolution; a little-endian classic pcap comes out byte for
// byte.
func TestRoundTrip(t *testing.T) {
	for _, path := range captures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			in := readFile(t, path)
			out, res := rewrite(t, in, capedit.Options{})
			want, got := readCapture(t, in), readCapture(t, out)
			if got.pcapng {
				t.Fatal("output is pcapng")
			}
			samePackets(t, want.packets, got.packets)
			if res.Read != len(want.packets) || res.Written != len(want.packets) || len(res.Dropped) != 0 || res.Snapped != 0 || res.Cut {
				t.Errorf("result %+v for %d packets", res, len(want.packets))
			}
			if !want.pcapng {
				if got.nano != want.nano || got.snaplen != want.snaplen || res.Nanosecond != want.nano {
					t.Errorf("nanosecond %v snaplen %d, want %v and %d", got.nano, got.snaplen, want.nano, want.snaplen)
				}
				if in[0] == 0xd4 || in[0] == 0x4d { // little-endian magic
					if !bytes.Equal(in, out) {
						t.Error("a little-endian pcap does not come out byte for byte")
					}
				}
			}
		})
	}
}

// ngBlock is one block of a hand-built little-endian pcapng file: an
// interface (Link set; TSResol the exponent of its decimal timestamp
// unit) or a packet on interface Intf at Time.
type ngBlock struct {
	Link    layers.LinkType
	TSResol uint8
	Intf    int
	Time    time.Time
	Data    []byte
}

// ngFile builds a pcapng file (pcapgo's writer always declares nanosecond
// interfaces): a section header, then the blocks.
func ngFile(blocks ...ngBlock) []byte {
	le := binary.LittleEndian
	b := le.AppendUint32(nil, 0x0a0d0d0a)
	b = le.AppendUint32(b, 28)
	b = le.AppendUint32(b, 0x1a2b3c4d)
	b = le.AppendUint16(b, 1)
	b = le.AppendUint16(b, 0)
	b = le.AppendUint64(b, ^uint64(0)) // section length unknown
	b = le.AppendUint32(b, 28)
	var units []uint64 // ticks per second of each interface
	for _, blk := range blocks {
		if blk.Data == nil {
			b = le.AppendUint32(b, 1) // interface description block
			b = le.AppendUint32(b, 32)
			b = le.AppendUint16(b, uint16(blk.Link))
			b = le.AppendUint16(b, 0)
			b = le.AppendUint32(b, 0)                       // snap length: none
			b = append(b, 9, 0, 1, 0, blk.TSResol, 0, 0, 0) // if_tsresol
			b = append(b, 0, 0, 0, 0)                       // opt_endofopt
			b = le.AppendUint32(b, 32)
			u := uint64(1)
			for range blk.TSResol {
				u *= 10
			}
			units = append(units, u)
			continue
		}
		padded := (len(blk.Data) + 3) &^ 3
		ts := uint64(blk.Time.Unix())*units[blk.Intf] + uint64(blk.Time.Nanosecond())*units[blk.Intf]/1e9
		b = le.AppendUint32(b, 6) // enhanced packet block
		b = le.AppendUint32(b, uint32(32+padded))
		b = le.AppendUint32(b, uint32(blk.Intf))
		b = le.AppendUint32(b, uint32(ts>>32))
		b = le.AppendUint32(b, uint32(ts))
		b = le.AppendUint32(b, uint32(len(blk.Data)))
		b = le.AppendUint32(b, uint32(len(blk.Data)))
		b = append(b, blk.Data...)
		b = append(b, make([]byte, padded-len(blk.Data))...)
		b = le.AppendUint32(b, uint32(32+padded))
	}
	return b
}

// A pcapng file with microsecond and nanosecond interfaces keeps its
// nanoseconds; one with microsecond interfaces only is written in
// microseconds; a nanosecond timestamp on an interface described after the
// first packet of a microsecond file is refused, not rounded.
func TestPcapngResolution(t *testing.T) {
	eth := layers.LinkTypeEthernet
	base := time.Unix(1700000000, 0)
	us := func(i int) time.Time { return base.Add(time.Duration(i) * time.Microsecond) }
	ns := func(i int) time.Time { return us(i).Add(123 * time.Nanosecond) }
	data := bytes.Repeat([]byte{1}, 61)
	for _, c := range []struct {
		name   string
		blocks []ngBlock
		nano   bool
		err    error
	}{
		{"µs", []ngBlock{{Link: eth, TSResol: 6}, {Time: us(1), Data: data}, {Time: us(2), Data: data}}, false, nil},
		{"ns", []ngBlock{{Link: eth, TSResol: 9}, {Time: ns(1), Data: data}}, true, nil},
		{"µs and ns", []ngBlock{{Link: eth, TSResol: 6}, {Link: eth, TSResol: 9}, {Time: us(1), Data: data}, {Intf: 1, Time: ns(2), Data: data}}, true, nil},
		{"ns interface after a packet, µs timestamp", []ngBlock{{Link: eth, TSResol: 6}, {Time: us(1), Data: data}, {Link: eth, TSResol: 9}, {Intf: 1, Time: us(2), Data: data}}, false, nil},
		{"ns interface after a packet", []ngBlock{{Link: eth, TSResol: 6}, {Time: us(1), Data: data}, {Link: eth, TSResol: 9}, {Intf: 1, Time: ns(2), Data: data}}, false, capedit.ErrTimestampPrecision},
	} {
		in := ngFile(c.blocks...)
		var out bytes.Buffer
		res, err := capedit.Rewrite(&out, bytes.NewReader(in), capedit.Options{})
		if !errors.Is(err, c.err) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.err)
			continue
		}
		if err != nil {
			continue
		}
		got := readCapture(t, out.Bytes())
		if res.Nanosecond != c.nano || got.nano != c.nano {
			t.Errorf("%s: nanosecond %v (file %v), want %v", c.name, res.Nanosecond, got.nano, c.nano)
		}
		samePackets(t, readCapture(t, in).packets, got.packets)
	}
}

// A pcapng file whose interfaces have different link types is refused.
func TestMixedLinkTypes(t *testing.T) {
	var ng bytes.Buffer
	w, err := pcapgo.NewNgWriterInterface(&ng, pcapgo.NgInterface{LinkType: layers.LinkTypeEthernet}, pcapgo.DefaultNgWriterOptions)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddInterface(pcapgo.NgInterface{LinkType: layers.LinkTypeLinuxSLL}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		ci := gopacket.CaptureInfo{Timestamp: time.Unix(1700000000, 0), CaptureLength: 60, Length: 60, InterfaceIndex: i / 2}
		if err := w.WritePacket(ci, make([]byte, 60)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res, err := capedit.Rewrite(&out, &ng, capedit.Options{})
	if !errors.Is(err, capedit.ErrMixedLinkTypes) || !strings.Contains(err.Error(), "packet 2") {
		t.Fatalf("error %v, want ErrMixedLinkTypes at packet 2", err)
	}
	if res.Written != 2 || len(readCapture(t, out.Bytes()).packets) != 2 {
		t.Errorf("result %+v: want the 2 packets before the refusal written", res)
	}
}

// Snap(n) writes what `editcap -s n` writes: the same packets, data,
// captured and original lengths, timestamps.
func TestSnapMatchesEditcap(t *testing.T) {
	editcap, err := exec.LookPath("editcap")
	if err != nil {
		t.Skip("editcap not installed")
	}
	paths := captures(t)
	if testing.Short() {
		paths = paths[:3]
	}
	dir := t.TempDir()
	for _, path := range paths {
		in := readFile(t, path)
		for _, n := range []int{54, 96, 128, 256, 1000} {
			t.Run(fmt.Sprintf("%s/%d", filepath.Base(path), n), func(t *testing.T) {
				out, res := rewrite(t, in, capedit.Options{Snap: n})
				// editcap writes pcapng unless told; the same resolution as ours.
				format := "pcap"
				if res.Nanosecond {
					format = "nsecpcap"
				}
				ref := filepath.Join(dir, "editcap.pcap")
				if b, err := exec.Command(editcap, "-F", format, "-s", fmt.Sprint(n), path, ref).CombinedOutput(); err != nil {
					t.Fatalf("editcap: %v: %s", err, b)
				}
				want, got := readCapture(t, readFile(t, ref)), readCapture(t, out)
				samePackets(t, want.packets, got.packets)
				// editcap declares a pcapng input's interface snap length.
				if got.snaplen != want.snaplen && !bytes.HasPrefix(in, []byte{0x0a, 0x0d, 0x0d, 0x0a}) {
					t.Errorf("snap length %d in the file header, editcap's %d", got.snaplen, want.snaplen)
				}
				var cut int
				for _, p := range readCapture(t, in).packets {
					if p.ci.CaptureLength > n {
						cut++
					}
				}
				if res.Snapped != cut {
					t.Errorf("Snapped %d, want %d", res.Snapped, cut)
				}
			})
		}
	}
}

// without returns the packets but the given indexes.
func without(ps []packet, drop []int) []packet {
	var out []packet
	for i, p := range ps {
		if !slices.Contains(drop, i) {
			out = append(out, p)
		}
	}
	return out
}

// DropIndexes removes exactly the packets named.
func TestDropIndexes(t *testing.T) {
	in := readFile(t, "../../testdata/pcaps/kcat_group.pcap")
	all := readCapture(t, in).packets
	last := len(all) - 1
	out, res := rewrite(t, in, capedit.Options{Drop: capedit.DropIndexes(last, 0, 7, 7, 8, last+5, -1)})
	want := []int{0, 7, 8, last}
	if !slices.Equal(res.Dropped, want) {
		t.Errorf("dropped %v, want %v", res.Dropped, want)
	}
	if res.Read != len(all) || res.Written != len(all)-len(want) {
		t.Errorf("result %+v for %d packets", res, len(all))
	}
	samePackets(t, without(all, want), readCapture(t, out).packets)
}

// RandomDrop follows its seed, drops about the fraction asked, and a
// larger fraction drops a superset.
func TestRandomDrop(t *testing.T) {
	in := readFile(t, "../../testdata/pcaps/kcat_metadata_offsets.pcap")
	all := readCapture(t, in).packets
	dropped := func(frac float64, seed int64) []int {
		out, res := rewrite(t, in, capedit.Options{Drop: capedit.RandomDrop(frac, seed, false)})
		samePackets(t, without(all, res.Dropped), readCapture(t, out).packets)
		return res.Dropped
	}
	a, b, c := dropped(0.3, 1), dropped(0.3, 1), dropped(0.3, 2)
	if !slices.Equal(a, b) {
		t.Errorf("seed 1 dropped %v, then %v", a, b)
	}
	if slices.Equal(a, c) {
		t.Errorf("seeds 1 and 2 dropped the same %v", a)
	}
	if n := len(a); n < len(all)/5 || n > len(all)*2/5 {
		t.Errorf("0.3 of %d packets dropped %d", len(all), n)
	}
	if d := dropped(0, 1); len(d) != 0 {
		t.Errorf("fraction 0 dropped %v", d)
	}
	if d := dropped(1, 1); len(d) != len(all) {
		t.Errorf("fraction 1 dropped %d of %d", len(d), len(all))
	}
	small := dropped(0.1, 1)
	for _, i := range small {
		if !slices.Contains(a, i) {
			t.Errorf("fraction 0.1 dropped packet %d, fraction 0.3 kept it", i)
		}
	}
}

// tcpPayload says whether gopacket finds TCP payload in a packet: the
// oracle for payloadOnly.
func tcpPayload(p packet) bool {
	pkt := gopacket.NewPacket(p.data, p.link, gopacket.Default)
	tcp, _ := pkt.Layer(layers.LayerTypeTCP).(*layers.TCP)
	return tcp != nil && len(tcp.Payload) > 0
}

// With payloadOnly only TCP segments with payload are dropped; at fraction
// 1 all of them are, on every link type of the captures, and also when an
// earlier snap length cut the payload off.
func TestRandomDropPayloadOnly(t *testing.T) {
	for _, path := range captures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			in := readFile(t, path)
			all := readCapture(t, in).packets
			var want []int
			for i, p := range all {
				if tcpPayload(p) {
					want = append(want, i)
				}
			}
			if len(want) == 0 {
				t.Fatal("no TCP payload in the capture")
			}
			out, res := rewrite(t, in, capedit.Options{Drop: capedit.RandomDrop(1, 1, true)})
			if !slices.Equal(res.Dropped, want) {
				t.Errorf("dropped %d packets, want the %d with TCP payload", len(res.Dropped), len(want))
			}
			samePackets(t, without(all, want), readCapture(t, out).packets)

			// The same choice on a copy cut to 96 bytes: the headers and
			// little or no payload.
			snapped, _ := rewrite(t, in, capedit.Options{Snap: 96})
			if _, res2 := rewrite(t, snapped, capedit.Options{Drop: capedit.RandomDrop(1, 1, true)}); !slices.Equal(res2.Dropped, want) {
				t.Errorf("on the snapped copy dropped %d packets, want %d", len(res2.Dropped), len(want))
			}

			_, half := rewrite(t, in, capedit.Options{Drop: capedit.RandomDrop(0.5, 7, true)})
			for _, i := range half.Dropped {
				if !slices.Contains(want, i) {
					t.Errorf("dropped packet %d, which has no TCP payload", i)
				}
			}
		})
	}
}

// Limit ends the output after packet Limit-1; drops count among them.
func TestLimit(t *testing.T) {
	in := readFile(t, "../../testdata/pcaps/kcat_group.pcap")
	all := readCapture(t, in).packets
	out, res := rewrite(t, in, capedit.Options{Limit: 50, Drop: capedit.DropIndexes(3, 60)})
	if !res.Cut || res.Read != 50 || res.Written != 49 || !slices.Equal(res.Dropped, []int{3}) {
		t.Errorf("result %+v", res)
	}
	samePackets(t, without(all[:50], []int{3}), readCapture(t, out).packets)

	for _, limit := range []int{len(all), len(all) + 1} {
		if _, res := rewrite(t, in, capedit.Options{Limit: limit}); res.Cut || res.Read != len(all) {
			t.Errorf("limit %d of %d packets: result %+v", limit, len(all), res)
		}
	}
}

// A gzip-compressed capture reads as the plain one.
func TestGzip(t *testing.T) {
	for _, path := range []string{"../../testdata/pcaps/kcat_group.pcap", "../../../shared/pcaps-public/ndpi_kafka.pcapng"} {
		in, err := os.ReadFile(path)
		if err != nil {
			t.Log(err)
			continue
		}
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(in)
		zw.Close()
		plain, _ := rewrite(t, in, capedit.Options{Snap: 100})
		zipped, _ := rewrite(t, gz.Bytes(), capedit.Options{Snap: 100})
		if !bytes.Equal(plain, zipped) {
			t.Errorf("%s: gzip-compressed input rewritten differently", path)
		}
	}
}

// Input that is not a capture is refused; a capture cut inside a packet
// keeps the packets before the cut and says where.
func TestBadInput(t *testing.T) {
	for _, in := range []string{"", "abc", "not a capture at all"} {
		if _, err := capedit.Rewrite(io.Discard, strings.NewReader(in), capedit.Options{}); !errors.Is(err, capedit.ErrNotCapture) {
			t.Errorf("%q: error %v, want ErrNotCapture", in, err)
		}
	}
	in := readFile(t, "../../testdata/pcaps/kcat_group.pcap")
	all := readCapture(t, in).packets
	// The file header, the first 10 packets (16-byte record header and
	// data each), and half of the 11th packet's record.
	end := 24
	for _, p := range all[:10] {
		end += 16 + p.ci.CaptureLength
	}
	var out bytes.Buffer
	res, err := capedit.Rewrite(&out, bytes.NewReader(in[:end+20]), capedit.Options{})
	if err == nil || !strings.Contains(err.Error(), "packet 10") {
		t.Errorf("error %v, want one about packet 10", err)
	}
	if res.Written != 10 {
		t.Errorf("result %+v", res)
	}
	samePackets(t, all[:10], readCapture(t, out.Bytes()).packets)
}

// Memory does not grow with the capture: rewriting 8 MiB allocates far
// less than that.
func TestStreams(t *testing.T) {
	var in bytes.Buffer
	if _, err := capgen.Write(&in, capgen.Config{Bytes: 8 << 20, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := capedit.Rewrite(io.Discard, bytes.NewReader(in.Bytes()), capedit.Options{Snap: 200, Drop: capedit.RandomDrop(0.001, 1, true)})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("rewriting %d bytes (%d packets) allocated %d bytes", in.Len(), res.Read, alloc)
	}
}

// bigEndian returns a little-endian classic pcap file rewritten in
// big-endian byte order.
func bigEndian(t *testing.T, le []byte) []byte {
	t.Helper()
	be := slices.Clone(le)
	swap := func(b []byte) { slices.Reverse(b) }
	swap(be[0:4])
	swap(be[4:6])
	swap(be[6:8])
	for _, f := range [][2]int{{8, 12}, {12, 16}, {16, 20}, {20, 24}} {
		swap(be[f[0]:f[1]])
	}
	for off := 24; off < len(be); {
		capLen := int(binary.LittleEndian.Uint32(le[off+8:]))
		for f := off; f < off+16; f += 4 {
			swap(be[f : f+4])
		}
		off += 16 + capLen
	}
	return be
}

// A big-endian pcap is read as the little-endian one it was made from.
func TestBigEndian(t *testing.T) {
	for _, path := range []string{"../../testdata/pcaps/kcat_sll2_any.pcap", "../../../shared/pcaps-public/go-sniffer_kafka.pcap",
		"../../../shared/pcaps-public/deepflow_01-fetch-v12-unknown.pcap"} {
		le, err := os.ReadFile(path)
		if err != nil {
			t.Log(err)
			continue
		}
		be := bigEndian(t, le)
		if want, got := readCapture(t, le), readCapture(t, be); len(want.packets) != len(got.packets) || want.nano != got.nano {
			t.Fatalf("%s: the test's big-endian copy reads differently", path)
		}
		out, _ := rewrite(t, be, capedit.Options{})
		if !bytes.Equal(out, le) {
			t.Errorf("%s: the big-endian copy is not rewritten as the little-endian file", path)
		}
	}
}

// A capture without packets is rewritten as an empty capture of the same
// link type and resolution.
func TestEmpty(t *testing.T) {
	sll2 := readFile(t, "../../testdata/pcaps/kcat_sll2_any.pcap")[:24]
	nano := slices.Clone(sll2)
	binary.LittleEndian.PutUint32(nano, 0xa1b23c4d)
	for _, c := range []struct {
		name string
		in   []byte
		link layers.LinkType
		nano bool
	}{
		{"pcap", sll2, layers.LinkTypeLinuxSLL2, false},
		{"nanosecond pcap", nano, layers.LinkTypeLinuxSLL2, true},
		{"pcapng", ngFile(ngBlock{Link: layers.LinkTypeLinuxSLL, TSResol: 9}), layers.LinkTypeLinuxSLL, true},
	} {
		out, res := rewrite(t, c.in, capedit.Options{Snap: 100})
		got := readCapture(t, out)
		if res.Read != 0 || res.LinkType != c.link || res.Nanosecond != c.nano || got.nano != c.nano || len(got.packets) != 0 ||
			layers.LinkType(binary.LittleEndian.Uint32(out[20:])) != c.link || got.snaplen != 100 {
			t.Errorf("%s: result %+v, file %+v", c.name, res, got)
		}
	}
}
