package dissect

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// pcapRecord returns a classic pcap record (nanosecond file) holding data,
// with origLen as its original length.
func pcapRecord(order binary.ByteOrder, data []byte, origLen int) []byte {
	h := make([]byte, 16)
	order.PutUint32(h[0:], 1700000000)
	order.PutUint32(h[8:], uint32(len(data)))
	order.PutUint32(h[12:], uint32(origLen))
	return cat(h, data)
}

// recordOffsets returns where each record of a classic pcap file starts,
// and the file's length.
func recordOffsets(t *testing.T, capture []byte) []int {
	t.Helper()
	var offs []int
	for off := 24; off < len(capture); {
		offs = append(offs, off)
		off += 16 + int(binary.LittleEndian.Uint32(capture[off+8:]))
	}
	return offs
}

func TestCompressedCaptures(t *testing.T) {
	plain, err := os.ReadFile(filepath.Join("..", "testdata", "pcaps", "franz_groups.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := readAll(t, New(Options{}), plain)
	if err != nil || len(want) < 10 {
		t.Fatalf("plain capture: %d exchanges, %v", len(want), err)
	}
	for _, c := range []struct {
		name string
		enc  func(w io.Writer) io.WriteCloser
	}{
		{"gzip", func(w io.Writer) io.WriteCloser { return gzip.NewWriter(w) }},
		{"zstd", func(w io.Writer) io.WriteCloser {
			zw, err := zstd.NewWriter(w)
			if err != nil {
				t.Fatal(err)
			}
			return zw
		}},
		{"xz", func(w io.Writer) io.WriteCloser {
			zw, err := xz.NewWriter(w)
			if err != nil {
				t.Fatal(err)
			}
			return zw
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var z bytes.Buffer
			zw := c.enc(&z)
			zw.Write(plain)
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
			got, err := readAll(t, New(Options{}), z.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d exchanges, want %d", len(got), len(want))
			}
			for i := range want {
				if describe(got[i]) != describe(want[i]) {
					t.Errorf("exchange %d: %s, want %s", i, describe(got[i]), describe(want[i]))
				}
			}

			// A compressed file cut short: damage, in decompressed bytes,
			// naming the compression.
			_, err = readAll(t, New(Options{}), z.Bytes()[:z.Len()*2/3])
			var de *DamageError
			if !errors.Is(err, ErrCaptureDamaged) || !errors.As(err, &de) || de.Compression != c.name {
				t.Fatalf("cut: err = %v", err)
			}
			if !strings.Contains(err.Error(), c.name+"-decompressed byte") {
				t.Errorf("error %q does not say the offset is in decompressed bytes", err)
			}
		})
	}
}

// The exchanges before the cut of a cut gzip file are kept.
func TestGzipCapture(t *testing.T) {
	capture, specs, _ := simpleCapture(t, ethernet, 3)
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(capture)
	zw.Close()
	got, err := readAll(t, New(Options{}), z.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	checkExchanges(t, got, specs, false)
	got, err = readAll(t, New(Options{}), z.Bytes()[:z.Len()*2/3])
	if !errors.Is(err, ErrCaptureDamaged) {
		t.Fatalf("err = %v", err)
	}
	if len(got) == 0 {
		t.Errorf("nothing emitted before the damage")
	}
}

// A compressed file that asks for more memory than the bounds is refused
// at its header, not trusted with the allocation.
func TestCompressedCaptureBounds(t *testing.T) {
	capture, _, _ := simpleCapture(t, ethernet, 3)
	var z bytes.Buffer
	zw, err := xz.WriterConfig{DictCap: 256 << 20}.NewWriter(&z)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(capture)
	zw.Close()
	_, err = readAll(t, New(Options{}), z.Bytes())
	if !errors.Is(err, errXzDict) {
		t.Errorf("xz with a 256 MiB dictionary: err = %v", err)
	}
	z.Reset()
	ze, err := zstd.NewWriter(&z, zstd.WithWindowSize(256<<20), zstd.WithSingleSegment(false))
	if err != nil {
		t.Fatal(err)
	}
	ze.Write(capture)
	ze.Close()
	// The encoder fits the window to the content; the frame header says
	// 256 MiB all the same (RFC 8878 3.1.1.1.2: Exponent 18, Mantissa 0:
	// 2^(10+18)) in its Window_Descriptor, after the magic and the Frame
	// Header Descriptor (single segment off).
	if zb := z.Bytes(); zb[4]&0x20 != 0 {
		t.Fatal("zstd wrote a single-segment frame: no window descriptor")
	} else {
		zb[5] = 18 << 3
	}
	if _, err = readAll(t, New(Options{}), z.Bytes()); !errors.Is(err, ErrCaptureDamaged) || !strings.Contains(err.Error(), "window") {
		t.Errorf("zstd with a 256 MiB window: err = %v", err)
	}
}

// Big-endian and microsecond pcap files read the same.
func TestPcapVariants(t *testing.T) {
	clock := time.Unix(1700000000, 123456000)
	c := newConn(t, ethernet, 40000, 9092, &clock)
	specs, reqs, resps := conversation(2, 1)
	var pkts []synthPacket
	for i := range reqs {
		pkts = append(pkts, c.send(true, reqs[i])...)
		pkts = append(pkts, c.send(false, resps[i])...)
	}
	// Microsecond little-endian via pcapgo.
	var buf bytes.Buffer
	w := pcapgo.NewWriter(&buf)
	w.WriteFileHeader(65535, layers.LinkTypeEthernet)
	for _, p := range pkts {
		w.WritePacket(p.ci, p.data)
	}
	got, err := readAll(t, New(Options{}), buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	checkExchanges(t, got, specs, false)
	if !got[0].Request.Time.Equal(pkts[0].ci.Timestamp) {
		t.Errorf("time %v, want %v", got[0].Request.Time, pkts[0].ci.Timestamp)
	}
	// Big-endian nanosecond, written by hand.
	be := make([]byte, 24)
	binary.BigEndian.PutUint32(be[0:], pcapMagicNano)
	binary.BigEndian.PutUint16(be[4:], 2)
	binary.BigEndian.PutUint16(be[6:], 4)
	binary.BigEndian.PutUint32(be[16:], 65535)
	binary.BigEndian.PutUint32(be[20:], uint32(layers.LinkTypeEthernet))
	for _, p := range pkts {
		be = append(be, pcapRecord(binary.BigEndian, p.data, len(p.data))...)
	}
	got, err = readAll(t, New(Options{}), be)
	if err != nil {
		t.Fatal(err)
	}
	checkExchanges(t, got, specs, false)
}

// Records whose original length is below their captured length (the
// go-sniffer quirk) are read, not rejected.
func TestOrigLenBelowCapLen(t *testing.T) {
	capture, specs, _ := simpleCapture(t, linkVariants[4] /* sll */, 3)
	for _, off := range recordOffsets(t, capture) {
		incl := binary.LittleEndian.Uint32(capture[off+8:])
		binary.LittleEndian.PutUint32(capture[off+12:], incl-16)
	}
	d := New(Options{})
	got, err := readAll(t, d, capture)
	if err != nil {
		t.Fatal(err)
	}
	checkExchanges(t, got, specs, false)
	if st := d.Stats(); st.PatchedRecords != st.Packets || st.Packets == 0 {
		t.Errorf("patched %d of %d", st.PatchedRecords, st.Packets)
	}
}

// A pcapng file with two interfaces of different link types and timestamp
// resolutions.
func TestPcapngMixedInterfaces(t *testing.T) {
	clock := time.Unix(1700000000, 987654321)
	a := newConn(t, ethernet, 40000, 9092, &clock)
	b := newConn(t, linkVariants[6] /* sll2-ipv6 */, 40001, 9092, &clock)
	specs, reqs, resps := conversation(4, 1)
	var buf bytes.Buffer
	w, err := pcapgo.NewNgWriterInterface(&buf, pcapgo.NgInterface{LinkType: layers.LinkTypeEthernet, TimestampResolution: 6}, pcapgo.NgWriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	id, err := w.AddInterface(pcapgo.NgInterface{LinkType: layers.LinkTypeLinuxSLL2, TimestampResolution: 9})
	if err != nil {
		t.Fatal(err)
	}
	var first time.Time
	for i := range reqs {
		c, iface := a, 0
		if i%2 == 1 {
			c, iface = b, id
		}
		for _, p := range append(c.send(true, reqs[i], 3), c.send(false, resps[i])...) {
			p.ci.InterfaceIndex = iface
			if first.IsZero() {
				first = p.ci.Timestamp
			}
			if err := w.WritePacket(p.ci, p.data); err != nil {
				t.Fatal(err)
			}
		}
	}
	w.Flush()
	got, err := readAll(t, New(Options{}), buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	checkExchanges(t, got, specs, false)
	for i, e := range got {
		if (e.Stream == 1) != (i%2 == 1) || e.Client.Addr().Is6() != (i%2 == 1) {
			t.Errorf("exchange %d on stream %d from %v", i, e.Stream, e.Client)
		}
	}
	// (pcapgo's writer stores nanoseconds whatever the resolution asked
	// for; ndpi_kafka.pcapng covers a real microsecond interface.)
	if !got[0].Request.Time.Equal(first) {
		t.Errorf("time %v, want %v", got[0].Request.Time, first)
	}
}

// A capture cut at any byte: every exchange before the damage is emitted,
// exactly as if the capture had ended with the last whole packet, and the
// error says where.
func TestTruncatedCapture(t *testing.T) {
	capture, _, _ := simpleCapture(t, ethernet, 4)
	offs := recordOffsets(t, capture)
	for cut := 0; cut < len(capture); cut++ {
		// The whole packets before the cut.
		whole := 0
		for i, off := range offs {
			end := len(capture)
			if i+1 < len(offs) {
				end = offs[i+1]
			}
			if end <= cut {
				whole = i + 1
			}
			_ = off
		}
		got, err := readAll(t, New(Options{}), capture[:cut])
		switch {
		case cut == 0:
			if !errors.Is(err, ErrNotCapture) {
				t.Fatalf("cut 0: err = %v", err)
			}
			continue
		case cut < 4:
			if !errors.Is(err, ErrNotCapture) {
				t.Fatalf("cut %d: err = %v", cut, err)
			}
			continue
		case cut == 24 || (whole > 0 && cut == offs[whole-1]+16+int(binary.LittleEndian.Uint32(capture[offs[whole-1]+8:]))):
			if err != nil {
				t.Fatalf("cut %d at a record boundary: err = %v", cut, err)
			}
		default:
			var de *DamageError
			if !errors.Is(err, ErrCaptureDamaged) || !errors.As(err, &de) {
				t.Fatalf("cut %d: err = %v", cut, err)
			}
			wantOff := int64(0)
			if cut >= 24 {
				wantOff = int64(offs[whole])
			}
			if de.Offset != wantOff || de.Packets != int64(whole) || !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("cut %d: %v (want offset %d after %d packets)", cut, err, wantOff, whole)
			}
		}
		ref := writePcapPrefix(t, capture, offs, whole)
		want, err := readAll(t, New(Options{}), ref)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("cut %d: %d exchanges, want %d", cut, len(got), len(want))
		}
		for i := range got {
			if describe(got[i]) != describe(want[i]) {
				t.Fatalf("cut %d: exchange %d: %s, want %s", cut, i, describe(got[i]), describe(want[i]))
			}
		}
	}
}

// writePcapPrefix returns the capture's header and first n records.
func writePcapPrefix(t *testing.T, capture []byte, offs []int, n int) []byte {
	if n == len(offs) {
		return capture
	}
	return capture[:offs[n]]
}

// A pcapng file cut or damaged part way.
func TestDamagedPcapng(t *testing.T) {
	capture, _, _ := simpleCapture(t, ethernet, 3)
	// Rewrite as pcapng.
	r, err := pcapgo.NewReader(bytes.NewReader(capture))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := pcapgo.NewNgWriter(&buf, layers.LinkTypeEthernet)
	if err != nil {
		t.Fatal(err)
	}
	for {
		data, ci, err := r.ReadPacketData()
		if err != nil {
			break
		}
		w.WritePacket(ci, data)
	}
	w.Flush()
	ng := buf.Bytes()
	whole, err := readAll(t, New(Options{}), ng)
	if err != nil || len(whole) != 3 {
		t.Fatalf("%d exchanges, err %v", len(whole), err)
	}
	// Block offsets.
	var offs []int
	for off := 0; off < len(ng); off += int(binary.LittleEndian.Uint32(ng[off+4:])) {
		offs = append(offs, off)
	}
	last := offs[len(offs)-1]
	t.Run("cut", func(t *testing.T) {
		for cut := offs[2]; cut < len(ng); cut += 7 {
			got, err := readAll(t, New(Options{}), ng[:cut])
			atBoundary := false
			for _, o := range offs {
				atBoundary = atBoundary || o == cut
			}
			if atBoundary {
				if err != nil {
					t.Fatalf("cut %d: %v", cut, err)
				}
				continue
			}
			if !errors.Is(err, ErrCaptureDamaged) {
				t.Fatalf("cut %d: err = %v", cut, err)
			}
			if cut > last && len(got) != 3 {
				t.Fatalf("cut %d in the last block: %d exchanges", cut, len(got))
			}
		}
	})
	t.Run("bad block length", func(t *testing.T) {
		bad := bytes.Clone(ng)
		binary.LittleEndian.PutUint32(bad[last+4:], 13) // not a multiple of 4
		got, err := readAll(t, New(Options{}), bad)
		var de *DamageError
		if !errors.As(err, &de) || de.Offset != int64(last) || !strings.Contains(err.Error(), "bad block length 13") {
			t.Fatalf("err = %v", err)
		}
		if len(got) != 3 {
			t.Errorf("%d exchanges", len(got))
		}
	})
	t.Run("trailer mismatch", func(t *testing.T) {
		bad := bytes.Clone(ng)
		binary.LittleEndian.PutUint32(bad[len(bad)-4:], 4096)
		_, err := readAll(t, New(Options{}), bad)
		var de *DamageError
		if !errors.As(err, &de) || de.Offset != int64(last) || !strings.Contains(err.Error(), "trailer says 4096") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("captured length beyond block", func(t *testing.T) {
		bad := bytes.Clone(ng)
		binary.LittleEndian.PutUint32(bad[last+20:], 100000)
		_, err := readAll(t, New(Options{}), bad)
		if !errors.Is(err, ErrCaptureDamaged) || !strings.Contains(err.Error(), "claims 100000 captured bytes") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestNotACapture(t *testing.T) {
	for name, in := range map[string][]byte{
		"empty":    nil,
		"short":    {0xd4, 0xc3},
		"text":     []byte("<html>hello</html>"),
		"gzip-txt": gzipped([]byte("just some text, not a capture")),
		"gzip-nil": gzipped(nil),
	} {
		_, err := readAll(t, New(Options{}), in)
		if !errors.Is(err, ErrNotCapture) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	// A damaged pcap header.
	capture, _, _ := simpleCapture(t, ethernet, 1)
	bad := bytes.Clone(capture)
	bad[4] = 9 // major version
	if _, err := readAll(t, New(Options{}), bad); !errors.Is(err, ErrCaptureDamaged) {
		t.Errorf("bad version: err = %v", err)
	}
	// A record longer than any snap length.
	bad = bytes.Clone(capture)
	binary.LittleEndian.PutUint32(bad[24+8:], 1<<30)
	if _, err := readAll(t, New(Options{}), bad); !errors.Is(err, ErrCaptureDamaged) || !strings.Contains(err.Error(), "at byte 24 ") {
		t.Errorf("huge record: err = %v", err)
	}
	// ReadFile with a missing file.
	if err := New(Options{}).ReadFile("/nonexistent/x.pcap", nil); err == nil {
		t.Errorf("no error for a missing file")
	}
}

func gzipped(b []byte) []byte {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b)
	zw.Close()
	return z.Bytes()
}

// The Session API dissects packets handed over one by one.
func TestSession(t *testing.T) {
	clock := time.Unix(1700000000, 0)
	c := newConn(t, ethernet, 40000, 9092, &clock)
	specs, reqs, resps := conversation(3, 1)
	d := New(Options{})
	var got []*Exchange
	s := d.NewSession(func(e *Exchange) { got = append(got, e) })
	for i := range reqs {
		pkts := append(c.send(true, reqs[i]), c.send(false, resps[i])...)
		for _, p := range append(pkts, c.packet(true, fACK, nil)) {
			s.Packet(layers.LinkTypeEthernet, p.data, gopacket.CaptureInfo{Timestamp: p.ci.Timestamp})
		}
		// Each exchange comes out as soon as its response is in and
		// acknowledged (held until then for a retransmitted copy).
		if len(got) != i+1 {
			t.Errorf("after exchange %d: %d emitted", i, len(got))
		}
	}
	s.Close()
	checkExchanges(t, got, specs, false)
}
