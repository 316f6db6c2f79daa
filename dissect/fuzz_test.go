package dissect

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/layers"
)

// checkExchangeInvariants checks what must hold of any exchange, whatever
// the input.
func checkExchangeInvariants(t *testing.T, got []*Exchange, maxFrame int) {
	t.Helper()
	for i, e := range got {
		if e.Request == nil && e.Response == nil {
			t.Fatalf("exchange %d has neither request nor response", i)
		}
		for _, f := range []*Frame{e.Request, e.Response} {
			if f == nil {
				continue
			}
			if f.Size < 0 || len(f.Bytes) > int(f.Size) || f.Packet < 0 {
				t.Fatalf("exchange %d: frame of %d/%d bytes, packet %d", i, len(f.Bytes), f.Size, f.Packet)
			}
			if int(f.Size) > maxFrame && len(f.Bytes) > oversizedKeep {
				t.Fatalf("exchange %d: kept %d bytes of an oversized frame", i, len(f.Bytes))
			}
			if len(f.Bytes) < int(f.Size) && len(e.Notes) == 0 {
				t.Fatalf("exchange %d: truncated frame without a note", i)
			}
		}
		if i > 0 && e.Order() < got[i-1].Order() {
			t.Fatalf("exchange %d out of order", i)
		}
		for _, n := range e.Notes {
			if n.Text == "" {
				t.Fatalf("exchange %d: empty note", i)
			}
		}
	}
}

// FuzzReadCapture: any bytes as a capture file. ReadCapture must not panic
// or hang, must return only its documented errors, and every exchange must
// be well formed.
func FuzzReadCapture(f *testing.F) {
	for _, v := range []linkVariant{linkVariants[0], linkVariants[2], linkVariants[6], linkVariants[8], linkVariants[13]} {
		capture, _, _ := simpleCapture(f, v, 2)
		f.Add(capture)
	}
	capture, _, _ := simpleCapture(f, linkVariants[0], 1)
	f.Add(gzipped(capture))
	// IP fragments of 32 bytes: IPv4 out of order, IPv6 each twice.
	for i, v := range []linkVariant{linkVariants[0], linkVariants[1]} {
		clock := testClock()
		c := newConn(f, v, 40000, 9092, &clock)
		_, reqs, resps := conversation(2, 1)
		pkts := c.handshake()
		for k := range reqs {
			pkts = append(pkts, c.send(true, reqs[k])...)
			pkts = append(pkts, c.send(false, resps[k])...)
		}
		f.Add(writePcap(f, v.link, fragmentAll(f, v, pkts, 32, fragOrders[1+i*2]).pkts))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const maxFrame = 1 << 12
		d := New(Options{Ports: []uint16{9092, 36333}, MaxFrameSize: maxFrame})
		var got []*Exchange
		err := d.ReadCapture(bytes.NewReader(data), func(e *Exchange) { got = append(got, e) })
		if err != nil && !errors.Is(err, ErrNotCapture) && !errors.Is(err, ErrCaptureDamaged) {
			t.Fatalf("undocumented error: %v", err)
		}
		checkExchangeInvariants(t, got, maxFrame)
		st := d.Stats()
		if st.Exchanges != int64(len(got)) || st.Packets < st.TCPPackets || st.TCPPackets < st.KafkaPackets {
			t.Fatalf("stats %+v", st)
		}
	})
}

// FuzzFramer: a byte stream fed to a framer in random chunks, with random
// gaps. The framer must not panic or hang; frames must be well formed; and
// when the stream never needed resynchronising, chunking must not change
// the frames at all.
func FuzzFramer(f *testing.F) {
	specs, reqs, resps := conversation(4, 1)
	_ = specs
	f.Add(bytes.Join(reqs, nil), uint64(1), uint8(0))
	f.Add(bytes.Join(resps, nil), uint64(2), uint8(1))
	f.Add(bytes.Join(reqs, nil)[7:], uint64(3), uint8(2))
	f.Add(bytes.Join(resps, nil)[3:], uint64(4), uint8(3|4))
	f.Add(cat(reqs[0], []byte{0x7f, 0xff, 0xff, 0xff, 0, 3, 0, 1}, filler(100, 1), reqs[1]), uint64(5), uint8(4))
	f.Add(cat([]byte{0, 0, 0, 2}, make([]byte, 40), reqs[2]), uint64(6), uint8(0x10))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64, flags uint8) {
		dir := frameDir(flags & 1)
		mid := flags&2 != 0
		gaps := flags&4 != 0
		maxFrame := 16 << (flags >> 4 & 7)
		pending := func(id int32) bool { return id%3 == 0 }
		rng := rand.New(rand.NewPCG(seed, uint64(flags)))

		s := &testSink{pending: pending}
		fr := newFramer(dir, maxFrame, nil, s, mid, nil)
		for rest, pkt := data, int64(0); len(rest) > 0; pkt++ {
			n := min(len(rest), 1+rng.IntN(64))
			if gaps && rng.IntN(4) == 0 {
				fr.hole(1+int64(rng.IntN(100)), HoleCause(rng.IntN(2)))
			}
			fr.feed(rest[:n], chunkLocator(pkt))
			rest = rest[n:]
		}
		fr.finish(HoleCaptureEnded)
		var total int
		for i, fm := range s.frames {
			if fm.Size < 0 || len(fm.Bytes) > int(fm.Size) || (int(fm.Size) > maxFrame && len(fm.Bytes) > oversizedKeep) {
				t.Fatalf("frame %d: %d/%d bytes", i, len(fm.Bytes), fm.Size)
			}
			if len(fm.Bytes) < int(fm.Size) && len(s.notes[i]) == 0 {
				t.Fatalf("frame %d truncated without a note", i)
			}
			total += len(fm.Bytes)
			for _, h := range fm.Holes {
				total -= min(h.End(), len(fm.Bytes)) - min(h.Offset, len(fm.Bytes))
			}
		}
		if total > len(data) {
			t.Fatalf("frames hold %d bytes of a %d-byte stream", total, len(data))
		}
		if gaps || mid {
			return
		}
		ref := &testSink{pending: pending}
		frameAll(dir, maxFrame, false, data, nil, ref)
		for _, ns := range ref.notes {
			if strings.Contains(strings.Join(ns, "|"), "resynchronised") {
				return // a frame start found by scanning may depend on where chunks end
			}
		}
		if ref.lostN > 0 && len(ref.lostWhy) > 0 && !strings.Contains(ref.lostWhy[0], "size prefix") {
			return
		}
		if err := sameFrames(ref, s); err != nil {
			t.Fatal(err)
		}
	})
}

// TestFuzzSeeds holds the committed seed corpora to what this test
// builds: the first 2 KiB of a few shared captures (not the whole files)
// and small synthetic ones. A seed missing or stale fails; `go generate
// ./dissect` (KDISSECT_WRITE_SEEDS=1) rewrites them.
//
//go:generate env KDISSECT_WRITE_SEEDS=1 go test -run ^TestFuzzSeeds$ .
func TestFuzzSeeds(t *testing.T) {
	rewrite := os.Getenv("KDISSECT_WRITE_SEEDS") == "1"
	var checked int
	write := func(target, name string, args ...any) {
		dir := filepath.Join("testdata", "fuzz", target)
		var b strings.Builder
		b.WriteString("go test fuzz v1\n")
		for _, a := range args {
			switch v := a.(type) {
			case []byte:
				fmt.Fprintf(&b, "[]byte(%q)\n", v)
			case uint64:
				fmt.Fprintf(&b, "uint64(%d)\n", v)
			case uint8:
				fmt.Fprintf(&b, "byte(%q)\n", v)
			}
		}
		path := filepath.Join(dir, name)
		checked++
		if !rewrite {
			if got, err := os.ReadFile(path); err != nil || string(got) != b.String() {
				t.Errorf("seed %s missing or stale (err %v); rewrite with go generate ./dissect", path, err)
			}
			return
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"go-sniffer_kafka.pcap", "ndpi_kafka.pcapng", "arkime_kafka.pcap", "deepflow_mixed-with-unsupported.pcap", "wswiki-kafka-testcases-v4_fetch.pcapng"} {
		b, err := os.ReadFile(filepath.Join(publicDir, name))
		if err != nil {
			if rewrite {
				t.Fatalf("cannot rewrite the seeds without %s: %v", name, err)
			}
			t.Logf("left out: the seed from %s (%v)", name, err)
			continue
		}
		write("FuzzReadCapture", strings.TrimSuffix(name, filepath.Ext(name))+"-head", b[:min(len(b), 2048)])
	}
	// Synthetic: gaps, mid-stream, reordering, over IPv6 SLL2.
	clock := testClock()
	c := newConn(t, linkVariants[6], 40000, 9092, &clock)
	_, reqs, resps := conversation(3, 1)
	pkts := c.send(true, reqs[0][5:], 3)
	pkts = append(pkts, c.send(false, resps[0], 5)...)
	segs := c.send(true, reqs[1], 10, 10)
	pkts = append(pkts, segs[2], segs[0])
	pkts = append(pkts, c.send(true, reqs[2])...)
	pkts = append(pkts, c.send(false, cat(resps[1], resps[2]))...)
	write("FuzzReadCapture", "synthetic-sll2-gap-midstream", writePcap(t, layers.LinkTypeLinuxSLL2, pkts))
	write("FuzzFramer", "pipelined-requests", bytes.Join(reqs, nil), uint64(7), uint8(0))
	write("FuzzFramer", "responses-midstream-gaps", bytes.Join(resps, nil)[2:], uint64(8), uint8(7))
	t.Logf("%d seeds checked", checked)
}
