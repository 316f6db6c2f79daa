package dissect

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"
)

var ethernet = linkVariants[0]

// Every link layer we decode, over IPv4 and IPv6, gives the same exchanges
// with the right addresses.
func TestLinkTypes(t *testing.T) {
	for _, v := range linkVariants {
		t.Run(v.name, func(t *testing.T) {
			capture, specs, c := simpleCapture(t, v, 4)
			d := New(Options{})
			got, err := readAll(t, d, capture)
			if err != nil {
				t.Fatal(err)
			}
			checkExchanges(t, got, specs, false)
			for _, e := range got {
				if e.Client != c.client || e.Broker != c.broker {
					t.Errorf("addresses %v → %v, want %v → %v", e.Client, e.Broker, c.client, c.broker)
				}
				if e.Stream != 0 {
					t.Errorf("stream %d, want 0", e.Stream)
				}
			}
			st := d.Stats()
			if st.Skipped != 0 || st.Connections != 1 || st.KafkaPackets != st.Packets {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

// A stream cut into segments at every boundary, one byte at a time, and at
// random sizes frames the same.
func TestSegmentation(t *testing.T) {
	specs, reqs, resps := conversation(3, 7)
	reqStream, respStream := bytes.Join(reqs, nil), bytes.Join(resps, nil)
	run := func(t *testing.T, reqSizes, respSizes []int) {
		t.Helper()
		clock := time.Unix(1700000000, 0)
		c := newConn(t, ethernet, 40000, 9092, &clock)
		pkts := c.handshake()
		pkts = append(pkts, c.send(true, reqStream, reqSizes...)...)
		pkts = append(pkts, c.send(false, respStream, respSizes...)...)
		got, err := readAll(t, New(Options{}), writePcap(t, layers.LinkTypeEthernet, pkts))
		if err != nil {
			t.Fatal(err)
		}
		checkExchanges(t, got, specs, false)
	}
	// One split at every offset of each stream.
	for k := 1; k < len(reqStream); k++ {
		run(t, []int{k}, []int{len(respStream) - k%len(respStream)})
	}
	// Every byte its own segment.
	ones := func(n int) []int {
		s := make([]int, n)
		for i := range s {
			s[i] = 1
		}
		return s
	}
	run(t, ones(len(reqStream)), ones(len(respStream)))
	// Random segmentations.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		var rs, ps []int
		for range 10 {
			rs = append(rs, 1+rng.IntN(20))
			ps = append(ps, 1+rng.IntN(20))
		}
		run(t, rs, ps)
	}
}

// Out-of-order and duplicated segments are reordered and deduplicated: each
// frame is decoded once and exactly.
func TestReorderAndDuplicates(t *testing.T) {
	specs, reqs, resps := conversation(6, 100)
	for seed := range uint64(30) {
		clock := time.Unix(1700000000, 0)
		c := newConn(t, ethernet, 40000, 9092, &clock)
		pkts := c.handshake()
		rng := rand.New(rand.NewPCG(seed, 99))
		var reqSegs, respSegs []synthPacket
		sizes := []int{5, 3, 17, 2, 11, 40, 1, 9, 13, 6, 30, 4}
		reqSegs = c.send(true, bytes.Join(reqs, nil), sizes...)
		respSegs = c.send(false, bytes.Join(resps, nil), sizes...)
		// Shuffle within each direction, then duplicate some.
		rng.Shuffle(len(reqSegs), func(i, j int) { reqSegs[i], reqSegs[j] = reqSegs[j], reqSegs[i] })
		rng.Shuffle(len(respSegs), func(i, j int) { respSegs[i], respSegs[j] = respSegs[j], respSegs[i] })
		for i := 0; i < len(reqSegs); i += 3 {
			reqSegs = slices.Insert(reqSegs, i, reqSegs[i])
		}
		for i := 1; i < len(respSegs); i += 4 {
			respSegs = slices.Insert(respSegs, i, respSegs[i])
		}
		pkts = append(pkts, reqSegs...)
		pkts = append(pkts, respSegs...)
		pkts = append(pkts, c.close()...)
		d := New(Options{})
		got, err := readAll(t, d, writePcap(t, layers.LinkTypeEthernet, pkts))
		if err != nil {
			t.Fatal(err)
		}
		// Exchanges come in capture order of each request's first byte,
		// which the shuffle changed: compare in CorrelationId order.
		if !slices.IsSortedFunc(got, func(a, b *Exchange) int { return cmp.Compare(a.Order(), b.Order()) }) {
			t.Errorf("seed %d: not in capture order", seed)
		}
		slices.SortFunc(got, func(a, b *Exchange) int { return cmp.Compare(a.CorrelationID, b.CorrelationID) })
		checkExchanges(t, got, specs, false)
		if st := d.Stats(); st.Frames != 12 {
			t.Errorf("seed %d: %d frames, want 12", seed, st.Frames)
		}
	}
}

// A segment missing from the capture inside a frame: the frame keeps its
// size, with the missing bytes as a hole at their offset, and the framer
// keeps its position: the next frame starts where the size said, with no
// resynchronisation, and every exchange the hole does not touch is
// recovered exactly.
func TestGapResync(t *testing.T) {
	specs, reqs, resps := conversation(6, 1)
	for _, dir := range []string{"request", "response"} {
		t.Run(dir, func(t *testing.T) {
			clock := time.Unix(1700000000, 0)
			c := newConn(t, ethernet, 40000, 9092, &clock)
			pkts := c.handshake()
			for i := range reqs {
				rq := c.send(true, reqs[i], 16, 10)
				rs := c.send(false, resps[i], 16, 10)
				if i == 2 {
					// Lose the middle segment of exchange 2 in one direction.
					if dir == "request" {
						rq = slices.Delete(rq, 1, 2)
					} else {
						rs = slices.Delete(rs, 1, 2)
					}
				}
				pkts = append(pkts, rq...)
				pkts = append(pkts, rs...)
			}
			pkts = append(pkts, c.close()...)
			got, err := readAll(t, New(Options{}), writePcap(t, layers.LinkTypeEthernet, pkts))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 6 {
				for _, e := range got {
					t.Log(describe(e))
				}
				t.Fatalf("got %d exchanges, want 6", len(got))
			}
			for i, e := range got {
				if i == 2 || i == 3 {
					continue
				}
				checkExchanges(t, []*Exchange{e}, specs[i:i+1], false)
			}
			// Exchange 2: the frame with the hole, its bytes around it
			// exact, and a note.
			e2 := got[2]
			cut, orig := e2.Request, specs[2].req
			if dir == "response" {
				cut, orig = e2.Response, specs[2].resp
			}
			want := []Hole{{Offset: 12, Length: 10, Cause: HoleNotCaptured}}
			if e2.CorrelationID != 3 || cut == nil || int(cut.Size) != len(orig) || !slices.Equal(cut.Holes, want) ||
				!bytes.Equal(cut.Bytes[:12], orig[:12]) || !bytes.Equal(cut.Bytes[22:], orig[22:]) ||
				!hasNote(e2, "10 of the frame's") || !hasNote(e2, "bytes 16-26") {
				t.Errorf("exchange 2: %s holes %v", describe(e2), cut.Holes)
			}
			// Exchange 3: untouched, without a note: no resynchronisation.
			checkExchanges(t, got[3:4], specs[3:4], false)
			if len(got[3].Notes) != 0 {
				t.Errorf("exchange 3 notes %q", got[3].Notes)
			}
		})
	}
}

// A gap inside a frame that is skipped by its length costs nothing.
func TestGapInsideSkippedFrame(t *testing.T) {
	specs, reqs, resps := conversation(2, 1)
	big := reqFrame(0, 3, 50, "big", filler(3000, 1))
	clock := time.Unix(1700000000, 0)
	c := newConn(t, ethernet, 40000, 9092, &clock)
	pkts := c.handshake()
	pkts = append(pkts, c.send(true, reqs[0])...)
	pkts = append(pkts, c.send(false, resps[0])...)
	segs := c.send(true, big, 1000, 1000)
	pkts = append(pkts, segs[0], segs[2]) // the middle 1000 bytes are lost
	pkts = append(pkts, c.send(true, reqs[1])...)
	pkts = append(pkts, c.send(false, resps[1])...)
	got, err := readAll(t, New(Options{MaxFrameSize: 2000}), writePcap(t, layers.LinkTypeEthernet, pkts))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("got %d exchanges", len(got))
	}
	checkExchanges(t, []*Exchange{got[0], got[2]}, specs, false)
	// Only the bytes before the hole are kept: they are the frame's start.
	// The broker answered the next request, so this response was lost.
	if e := got[1]; e.CorrelationID != 50 || !hasNote(e, "frame of 3013 bytes exceeds the 2000-byte limit; skipped") ||
		e.NoResponse != ResponseLost || len(e.Notes) != 2 || !bytes.Equal(e.Request.Bytes, big[4:1000]) {
		t.Errorf("skipped frame: %s", describe(got[1]))
	}
}

// A connection picked up mid-stream, in the middle of a frame or exactly at
// a frame boundary.
func TestMidStream(t *testing.T) {
	specs, reqs, resps := conversation(4, 20)
	build := func(dropReqBytes, dropRespBytes int) []byte {
		clock := time.Unix(1700000000, 0)
		c := newConn(t, ethernet, 40000, 9092, &clock)
		// No handshake: start with the tail of the first pair.
		pkts := c.send(true, reqs[0][dropReqBytes:])
		pkts = append(pkts, c.send(false, resps[0][dropRespBytes:])...)
		for i := 1; i < len(reqs); i++ {
			pkts = append(pkts, c.send(true, reqs[i])...)
			pkts = append(pkts, c.send(false, resps[i])...)
		}
		return writePcap(t, layers.LinkTypeEthernet, pkts)
	}
	t.Run("boundary", func(t *testing.T) {
		got, err := readAll(t, New(Options{}), build(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		checkExchanges(t, got, specs, false)
	})
	t.Run("mid-frame", func(t *testing.T) {
		got, err := readAll(t, New(Options{}), build(9, 5))
		if err != nil {
			t.Fatal(err)
		}
		checkExchanges(t, got, specs[1:], true)
		for i, e := range got {
			if i == 0 {
				if len(e.Notes) != 2 || !hasNote(e, "client→broker stream before the first frame boundary skipped") || !hasNote(e, "broker→client stream before") {
					t.Errorf("first exchange notes %q", e.Notes)
				}
			} else if len(e.Notes) > 0 {
				t.Errorf("exchange %d notes %q", i, e.Notes)
			}
		}
	})
}

// Only one direction captured.
func TestOneDirection(t *testing.T) {
	specs, reqs, resps := conversation(3, 1)
	for _, clientSide := range []bool{true, false} {
		clock := time.Unix(1700000000, 0)
		c := newConn(t, ethernet, 40000, 9092, &clock)
		var pkts []synthPacket
		for i := range reqs {
			if clientSide {
				pkts = append(pkts, c.send(true, reqs[i])...)
			} else {
				pkts = append(pkts, c.send(false, resps[i])...)
			}
		}
		got, err := readAll(t, New(Options{}), writePcap(t, layers.LinkTypeEthernet, pkts))
		if err != nil {
			t.Fatal(err)
		}
		want := slices.Clone(specs)
		for i := range want {
			if clientSide {
				want[i].resp = nil
			} else {
				want[i].req = nil
			}
		}
		checkExchanges(t, got, want, true)
		for _, e := range got {
			if !clientSide && (e.APIKey != -1 || e.APIVersion != -1 || len(e.Notes) != 1 || !hasNote(e, "response without a captured request")) {
				t.Errorf("orphan response: %s", describe(e))
			}
			if clientSide && (e.NoResponse != CaptureEnded || len(e.Notes) != 1 || e.Notes[0].Text != "capture ended before the response") {
				t.Errorf("request without response: %s", describe(e))
			}
		}
	}
}

// Pipelined requests with the same CorrelationId: a response completes the
// oldest one waiting.
func TestDuplicateCorrelationIDs(t *testing.T) {
	clock := time.Unix(1700000000, 0)
	c := newConn(t, ethernet, 40000, 9092, &clock)
	r1 := reqFrame(3, 1, 5, "a", []byte("first"))
	r2 := reqFrame(3, 1, 5, "a", []byte("second"))
	p1, p2 := respFrame(5, []byte("one")), respFrame(5, []byte("two"))
	pkts := c.handshake()
	pkts = append(pkts, c.send(true, cat(r1, r2))...)
	pkts = append(pkts, c.send(false, p1)...)
	pkts = append(pkts, c.send(false, p2)...)
	got, err := readAll(t, New(Options{}), writePcap(t, layers.LinkTypeEthernet, pkts))
	if err != nil {
		t.Fatal(err)
	}
	checkExchanges(t, got, []exchangeSpec{
		{key: 3, ver: 1, corr: 5, clientID: "a", req: r1[4:], resp: p1[4:]},
		{key: 3, ver: 1, corr: 5, clientID: "a", req: r2[4:], resp: p2[4:]},
	}, false)
}

// Exchanges come out in the order their requests were captured, across
// connections, even when a response arrives much later.
func TestCaptureOrderAcrossConnections(t *testing.T) {
	clock := time.Unix(1700000000, 0)
	a := newConn(t, ethernet, 40000, 9092, &clock)
	b := newConn(t, ethernet, 40001, 9092, &clock)
	ra, pa := reqFrame(1, 13, 100, "x", nil), respFrame(100, nil)
	rb1, pb1 := reqFrame(8, 8, 101, "x", nil), respFrame(101, nil)
	rb2, pb2 := reqFrame(12, 4, 102, "x", nil), respFrame(102, nil)
	pkts := cat2(a.handshake(), b.handshake())
	pkts = append(pkts, a.send(true, ra)...)
	pkts = append(pkts, b.send(true, rb1)...)
	pkts = append(pkts, b.send(true, rb2)...)
	pkts = append(pkts, b.send(false, cat(pb1, pb2))...) // both responses in one segment
	pkts = append(pkts, a.send(false, pa)...)
	got, err := readAll(t, New(Options{}), writePcap(t, layers.LinkTypeEthernet, pkts))
	if err != nil {
		t.Fatal(err)
	}
	checkExchanges(t, got, []exchangeSpec{
		{key: 1, ver: 13, corr: 100, clientID: "x", req: ra[4:], resp: pa[4:]},
		{key: 8, ver: 8, corr: 101, clientID: "x", req: rb1[4:], resp: pb1[4:]},
		{key: 12, ver: 4, corr: 102, clientID: "x", req: rb2[4:], resp: pb2[4:]},
	}, false)
	if got[0].Stream != 0 || got[1].Stream != 1 || got[2].Stream != 1 {
		t.Errorf("streams %d %d %d", got[0].Stream, got[1].Stream, got[2].Stream)
	}
	if l, ok := got[0].Latency(); !ok || l != 4*time.Millisecond {
		t.Errorf("latency %v %v", l, ok)
	}
}

// Timestamps that go backwards change nothing but a note of each
// negative latency.
func TestTimestampsBackwards(t *testing.T) {
	capture, specs, _ := func() ([]byte, []exchangeSpec, *tcpConn) {
		clock := time.Unix(1700000000, 0)
		c := newConn(t, ethernet, 40000, 9092, &clock)
		specs, reqs, resps := conversation(4, 1)
		var pkts []synthPacket
		for i := range reqs {
			pkts = append(pkts, c.send(true, reqs[i], 7)...)
			pkts = append(pkts, c.send(false, resps[i], 7)...)
		}
		for i := range pkts {
			pkts[i].ci.Timestamp = time.Unix(1700000000, 0).Add(-time.Duration(i) * time.Second)
		}
		return writePcap(t, layers.LinkTypeEthernet, pkts), specs, c
	}()
	got, err := readAll(t, New(Options{}), capture)
	if err != nil {
		t.Fatal(err)
	}
	checkExchanges(t, got, specs, true)
	if l, ok := got[0].Latency(); !ok || l >= 0 {
		t.Errorf("latency %v: want negative (the capture's clock went backwards)", l)
	}
	for _, e := range got {
		if len(e.Notes) != 1 || !hasNote(e, "response captured 2s before its request") {
			t.Errorf("%s: want the note of the negative latency alone", describe(e))
		}
	}
}

// Which end is the broker.
func TestBrokerSide(t *testing.T) {
	// An ApiKey the codec does not know: without a SYN the first frame is
	// found by scanning, which checks the body of a known one.
	req, resp := reqFrame(opaqueKey, 3, 1, "c", nil), respFrame(1, nil)
	cases := []struct {
		name                   string
		ports                  []uint16
		clientPort, brokerPort uint16
		syn                    bool
		wantBrokerPort         uint16
		wantExchanges          int
	}{
		{"default port", nil, 50000, 9092, false, 9092, 1},
		{"other port", []uint16{36333}, 50000, 36333, false, 36333, 1},
		{"not a broker port", []uint16{9093}, 50000, 9092, false, 0, 0},
		{"both ports, SYN to the higher", []uint16{9092, 9093}, 9092, 9093, true, 9093, 1},
		{"both ports, no SYN: the lower", []uint16{9092, 9093}, 9093, 9092, false, 9092, 1},
		{"both ports, no SYN, client lower", []uint16{9092, 9093}, 9092, 9093, false, 9092, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clock := time.Unix(1700000000, 0)
			c := newConn(t, ethernet, tc.clientPort, tc.brokerPort, &clock)
			var pkts []synthPacket
			if tc.syn {
				pkts = c.handshake()
			}
			pkts = append(pkts, c.send(true, req)...)
			pkts = append(pkts, c.send(false, resp)...)
			d := New(Options{Ports: tc.ports})
			got, err := readAll(t, d, writePcap(t, layers.LinkTypeEthernet, pkts))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.wantExchanges {
				t.Fatalf("got %d exchanges, want %d", len(got), tc.wantExchanges)
			}
			if tc.wantExchanges == 0 {
				if st := d.Stats(); st.OtherPorts != int64(len(pkts)) || st.Connections != 0 {
					t.Errorf("stats %+v", st)
				}
				return
			}
			e := got[0]
			if e.Broker.Port() != tc.wantBrokerPort {
				t.Errorf("broker %v, want port %d", e.Broker, tc.wantBrokerPort)
			}
			if tc.wantBrokerPort == tc.brokerPort {
				// The real client sent a request and got a response.
				if e.Request == nil || e.Response == nil || len(e.Notes) > 0 {
					t.Errorf("%s", describe(e))
				}
			}
		})
	}
}

// One Dissector reading several captures numbers streams on.
func TestStreamsContinueAcrossFiles(t *testing.T) {
	d := New(Options{})
	capture, _, _ := simpleCapture(t, ethernet, 2)
	for file := range 3 {
		got, err := readAll(t, d, capture)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range got {
			if e.Stream != file {
				t.Errorf("file %d: stream %d", file, e.Stream)
			}
		}
	}
	if st := d.Stats(); st.Connections != 3 || st.Exchanges != 6 {
		t.Errorf("stats %+v", st)
	}
}

// Packets cut by the snap length: the lost bytes become a gap.
func TestSnapLength(t *testing.T) {
	specs, reqs, resps := conversation(4, 1)
	clock := time.Unix(1700000000, 0)
	c := newConn(t, ethernet, 40000, 9092, &clock)
	pkts := c.handshake()
	for i := range reqs {
		rq := c.send(true, reqs[i])
		if i == 1 {
			// Captured with a snap length that cuts 5 bytes of payload.
			p := &rq[0]
			p.data = p.data[:len(p.data)-5]
			p.ci.CaptureLength = len(p.data)
		}
		pkts = append(pkts, rq...)
		pkts = append(pkts, c.send(false, resps[i])...)
	}
	d := New(Options{})
	got, err := readAll(t, d, writePcap(t, layers.LinkTypeEthernet, pkts))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("got %d exchanges", len(got))
	}
	checkExchanges(t, []*Exchange{got[0], got[2], got[3]}, []exchangeSpec{specs[0], specs[2], specs[3]}, false)
	if len(got[0].Notes)+len(got[2].Notes)+len(got[3].Notes) != 0 {
		t.Errorf("notes on untouched exchanges: the framer must step over the cut bytes")
	}
	n := len(specs[1].req)
	if e := got[1]; e.Request == nil || len(e.Request.Bytes) != n-5 || int(e.Request.Size) != n ||
		!slices.Equal(e.Request.Holes, []Hole{{Offset: n - 5, Length: 5, Cause: HoleSnapLength}}) ||
		!hasNote(e, "5 of the frame's") || !hasNote(e, "beyond the snap length") || e.Response == nil {
		t.Errorf("cut exchange: %s", describe(e))
	}
	if st := d.Stats(); st.SnapTruncated != 1 || st.SnapBytes != 5 {
		t.Errorf("SnapTruncated %d, SnapBytes %d", st.SnapTruncated, st.SnapBytes)
	}
}

// Bytes captured after the IP packet (Ethernet padding, trailers) are not
// stream data.
func TestTrailerTrimmed(t *testing.T) {
	clock := time.Unix(1700000000, 0)
	c := newConn(t, ethernet, 40000, 9092, &clock)
	specs, reqs, resps := conversation(3, 1)
	var pkts []synthPacket
	for i := range reqs {
		for _, p := range append(c.send(true, reqs[i]), c.send(false, resps[i])...) {
			p.data = append(p.data, 0, 0, 0, 0xff, 0xfe, 0xfd)
			p.ci.CaptureLength, p.ci.Length = len(p.data), len(p.data)
			pkts = append(pkts, p)
		}
	}
	got, err := readAll(t, New(Options{}), writePcap(t, layers.LinkTypeEthernet, pkts))
	if err != nil {
		t.Fatal(err)
	}
	checkExchanges(t, got, specs, false)
}

// Non-TCP packets, fragments, unknown link types and garbage are counted
// and skipped.
func TestSkippedPackets(t *testing.T) {
	capture, specs, _ := simpleCapture(t, ethernet, 2)
	var extra []synthPacket
	arp := cat(ethHeader(layers.EthernetTypeARP), make([]byte, 28))
	udp := cat(ethHeader(layers.EthernetTypeIPv4), []byte{0x45, 0, 0, 28, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 9, 0, 53, 0, 53, 0, 8, 0, 0})
	frag := cat(ethHeader(layers.EthernetTypeIPv4), []byte{0x45, 0, 0, 28, 0, 1, 0x20, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 9}, make([]byte, 8))
	garbage := cat(ethHeader(layers.EthernetTypeIPv4), []byte{0x45, 0, 0})
	for _, b := range [][]byte{arp, udp, frag, garbage} {
		extra = append(extra, synthPacket{data: b})
	}
	// Append the extra packets as pcap records.
	var recs []byte
	for _, p := range extra {
		recs = append(recs, pcapRecord(binary.LittleEndian, p.data, len(p.data))...)
	}
	// simpleCapture writes nanosecond little-endian records: same layout.
	got, err := readAll(t, New(Options{}), cat(capture, recs))
	if err != nil {
		t.Fatal(err)
	}
	checkExchanges(t, got, specs, false)
	d := New(Options{})
	if _, err := readAll(t, d, cat(capture, recs)); err != nil {
		t.Fatal(err)
	}
	st := d.Stats()
	if st.NotTCP != 2 || st.Fragments != 1 || st.Malformed != 1 || st.Skipped != 4 {
		t.Errorf("stats %+v", st)
	}
}

// Two requests per connection, a size prefix of about 2 GB: noted, skipped
// without allocating it, and the rest of the capture still decodes.
func TestLyingSizePrefix(t *testing.T) {
	for _, size := range []uint32{0x7fffffff, 0x80000000, 0xffffffff, 3} {
		clock := time.Unix(1700000000, 0)
		c := newConn(t, ethernet, 40000, 9092, &clock)
		c2 := newConn(t, ethernet, 40001, 9092, &clock)
		specs, reqs, resps := conversation(2, 1)
		lie := []byte{byte(size >> 24), byte(size >> 16), byte(size >> 8), byte(size), 0, 3, 0, 1, 0, 0, 0, 77}
		pkts := c.send(true, cat(reqs[0], lie, filler(5000, 3)))
		pkts = append(pkts, c.send(false, resps[0])...)
		pkts = append(pkts, c2.send(true, reqs[1])...)
		pkts = append(pkts, c2.send(false, resps[1])...)
		capture := writePcap(t, layers.LinkTypeEthernet, pkts)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		d := New(Options{})
		got, err := readAll(t, d, capture)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
			t.Errorf("size %#x: allocated %d bytes", size, alloc)
		}
		if int32(size) < 8 {
			// Not a plausible size: the stream is lost from there, no frame
			// follows to carry a note, so the loss is counted and described.
			if len(got) != 2 {
				t.Fatalf("size %#x: got %d exchanges", size, len(got))
			}
			checkExchanges(t, got, specs, false)
			st := d.Stats()
			if st.LostBytes != int64(len(lie)+5000) || len(st.Problems) != 1 || !strings.Contains(st.Problems[0], "implausible frame size") {
				t.Errorf("size %#x: lost %d, problems %q", size, st.LostBytes, st.Problems)
			}
			continue
		}
		if len(got) != 3 {
			for _, e := range got {
				t.Log(describe(e))
			}
			t.Fatalf("size %#x: got %d exchanges", size, len(got))
		}
		checkExchanges(t, []*Exchange{got[0], got[2]}, specs, false)
		e := got[1]
		if e.CorrelationID != 77 || !hasNote(e, "exceeds the 100 MiB limit; skipped") || !hasNote(e, "truncated frame: got 5008 of") || len(e.Request.Bytes) != 4096 {
			t.Errorf("size %#x: %s", size, describe(e))
		}
	}
}

func hasNote(e *Exchange, substr string) bool {
	for _, n := range e.Notes {
		if strings.Contains(n.Text, substr) {
			return true
		}
	}
	return false
}

var _ = errors.Is

// After a gap, reassembly holds the rest of the direction back and hands
// it over in one piece; frames found again in it must still get the time
// and packet of their own first byte, not of the piece's first packet
// (a tentative frame given up and rescanned once lost that).
func TestTimesAfterGap(t *testing.T) {
	// Metadata v0 requests {ClientId "mx", no topics} and their empty
	// responses, one segment each, a second apart; the first half of
	// request 2 (its size prefix and header) is lost. Its second half
	// holds a plausible frame start that a tentative frame is built on
	// and then given up.
	const n = 6
	var reqs, resps [][]byte
	for i := int32(1); i <= n; i++ {
		reqs = append(reqs, reqFrame(3, 0, i, "mx", []byte{0, 0, 0, 0}))
		resps = append(resps, respFrame(i, make([]byte, 8)))
	}
	clock := time.Unix(1700000000, 0)
	c := newConn(t, ethernet, 40000, 9092, &clock)
	pkts := c.handshake()
	for i := range reqs {
		clock = clock.Add(time.Second)
		var rq []synthPacket
		if i == 1 {
			rq = c.send(true, reqs[i], 10)[1:]
		} else {
			rq = c.send(true, reqs[i])
		}
		pkts = append(pkts, rq...)
		clock = clock.Add(time.Second)
		pkts = append(pkts, c.send(false, resps[i])...)
	}
	pkts = append(pkts, c.close()...)
	got, err := readAll(t, New(Options{}), writePcap(t, layers.LinkTypeEthernet, pkts))
	if err != nil {
		t.Fatal(err)
	}
	var last time.Time
	seen := 0
	for _, e := range got {
		if e.Request == nil {
			continue // the response of the cut request
		}
		seen++
		lat, ok := e.Latency()
		if !ok || lat < time.Second || lat > time.Second+10*time.Millisecond {
			t.Errorf("corr %d: latency %v, want about 1s", e.CorrelationID, lat)
		}
		if !e.Request.Time.After(last) {
			t.Errorf("corr %d: request time %v not after the previous one %v", e.CorrelationID, e.Request.Time, last)
		}
		last = e.Request.Time
		for _, note := range e.Notes {
			if strings.Contains(note.Text, "skipping") && !strings.Contains(note.Text, "skipping 10 bytes") {
				t.Errorf("corr %d: %q; the 10 bytes after the gap were skipped", e.CorrelationID, note)
			}
		}
	}
	if seen != n-1 {
		t.Errorf("%d requests recovered, want %d", seen, n-1)
	}
}

func cat2[T any](a, b []T) []T { return append(append([]T(nil), a...), b...) }
