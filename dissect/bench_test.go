package dissect

import (
	"bytes"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/kdissect/kdissect/internal/capedit"
	"github.com/kdissect/kdissect/internal/capgen"
)

// Decoding one packet (link layer → IP → TCP) per link type.
func BenchmarkLinkDecode(b *testing.B) {
	for _, v := range linkVariants {
		b.Run(v.name, func(b *testing.B) {
			clock := time.Unix(1700000000, 0)
			c := newConn(b, v, 40000, 9092, &clock)
			p := c.packet(true, fACK|fPSH, reqFrame(0, 9, 1, "bench", filler(1000, 1)))
			d := newLinkDecoder()
			var out tcpPacket
			b.SetBytes(int64(len(p.data)))
			b.ReportAllocs()
			for b.Loop() {
				if d.decode(v.link, p.data, &out) != kindTCP {
					b.Fatal("not decoded")
				}
			}
		})
	}
}

// benchCapture builds a capture of conns connections, each with n
// request/response pairs of about 6 KB requests (cut into 1460-byte
// segments) and small responses, interleaved across connections.
func benchCapture(b *testing.B, conns, n int) []byte {
	clock := time.Unix(1700000000, 0)
	var cs []*tcpConn
	var pkts []synthPacket
	for i := range conns {
		c := newConn(b, linkVariants[0], uint16(40000+i), 9092, &clock)
		cs = append(cs, c)
		pkts = append(pkts, c.handshake()...)
	}
	for k := range n {
		for _, c := range cs {
			req := reqFrame(0, 9, int32(k), "bench-producer", filler(6000, byte(k)))
			pkts = append(pkts, c.send(true, req, 1460, 1460, 1460, 1460)...)
			pkts = append(pkts, c.send(false, respFrame(int32(k), filler(60, 1)))...)
		}
	}
	for _, c := range cs {
		pkts = append(pkts, c.close()...)
	}
	return writePcap(b, layers.LinkTypeEthernet, pkts)
}

// End to end: capture bytes → exchanges.
func BenchmarkReadCapture(b *testing.B) {
	capture := benchCapture(b, 8, 250)
	b.SetBytes(int64(len(capture)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if err := New(Options{}).ReadCapture(bytes.NewReader(capture), func(*Exchange) { n++ }); err != nil {
			b.Fatal(err)
		}
		if n != 2000 {
			b.Fatalf("%d exchanges", n)
		}
	}
}

// End to end on the same capture with every packet in IP fragments of
// 512 bytes (3 a segment): the cost of reassembling them.
func BenchmarkReadCaptureFragmented(b *testing.B) {
	var buf bytes.Buffer
	if _, err := capedit.Rewrite(&buf, bytes.NewReader(benchCapture(b, 8, 250)), capedit.Options{Fragment: 512}); err != nil {
		b.Fatal(err)
	}
	capture := buf.Bytes()
	b.SetBytes(int64(len(capture)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		d := New(Options{})
		if err := d.ReadCapture(bytes.NewReader(capture), func(*Exchange) { n++ }); err != nil {
			b.Fatal(err)
		}
		if st := d.Stats(); n != 2000 || st.Reassembled == 0 || st.FragmentsDropped != 0 {
			b.Fatalf("%d exchanges, stats %+v", n, st)
		}
	}
}

// Framing alone: a stream of 6 KB requests fed in 1460-byte chunks.
func BenchmarkFramer(b *testing.B) {
	var stream []byte
	for k := range 100 {
		stream = append(stream, reqFrame(0, 9, int32(k), "bench", filler(6000, byte(k)))...)
	}
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		s := &testSink{}
		f := newFramer(toBroker, DefaultMaxFrameSize, nil, s, false, nil)
		for rest := stream; len(rest) > 0; {
			n := min(1460, len(rest))
			f.feed(rest[:n], chunkLocator(0))
			rest = rest[n:]
		}
		f.finish(HoleCaptureEnded)
		if len(s.frames) != 100 {
			b.Fatal(len(s.frames))
		}
	}
}

// Packets to exchanges without reading a file: link layer, TCP reassembly,
// framing and matching, on a synthetic capture (package capgen) held as
// packets in memory. MB/s counts the packet bytes.
func BenchmarkSession(b *testing.B) {
	var buf bytes.Buffer
	res, err := capgen.Write(&buf, capgen.Config{Bytes: 16 << 20, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	type packet struct {
		data []byte
		ci   gopacket.CaptureInfo
		link layers.LinkType
	}
	var pkts []packet
	var size int64
	pr, err := NewPacketReader(&buf)
	if err != nil {
		b.Fatal(err)
	}
	for {
		data, ci, link, err := pr.Next()
		if err != nil {
			break
		}
		pkts = append(pkts, packet{bytes.Clone(data), ci, link})
		size += int64(len(data))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		s := New(Options{}).NewSession(func(*Exchange) { n++ })
		for _, p := range pkts {
			s.Packet(p.link, p.data, p.ci)
		}
		s.Close()
		if n != res.Exchanges {
			b.Fatalf("%d exchanges, want %d", n, res.Exchanges)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(pkts)), "ns/packet")
}
