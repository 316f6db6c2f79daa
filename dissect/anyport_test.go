package dissect

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/gopacket/gopacket/layers"

	"github.com/kdissect/kdissect/codec"
)

// metadataResponse encodes a Metadata v1 response naming brokers.
func metadataResponse(corr int32, brokers ...netip.AddrPort) []byte {
	m := &codec.MetadataResponse{}
	m.SetDefaults()
	for i, b := range brokers {
		m.Brokers = append(m.Brokers, codec.MetadataResponseBroker{NodeId: int32(i + 1), Host: b.Addr().String(), Port: int32(b.Port())})
	}
	return respFrame(corr, m.AppendTo(nil, 1))
}

// findCoordinatorResponse encodes a FindCoordinator v1 response.
func findCoordinatorResponse(corr int32, host string, port int32) []byte {
	m := &codec.FindCoordinatorResponse{}
	m.SetDefaults()
	m.NodeId, m.Host, m.Port = 3, host, port
	return respFrame(corr, m.AppendTo(nil, 1))
}

// exchangeOn returns one request/response pair on c.
func exchangeOn(c *tcpConn, key, ver int16, corr int32) []synthPacket {
	pkts := c.send(true, reqFrame(key, ver, corr, "any-client", filler(20, byte(corr))))
	return append(pkts, c.send(false, respFrame(corr, filler(20, 3)))...)
}

func streamsOf(got []*Exchange) map[uint16]int {
	m := map[uint16]int{}
	for _, e := range got {
		m[e.Broker.Port()]++
	}
	return m
}

// With AnyPort, Kafka is recognised on any port by the client's first
// bytes; other protocols are left alone; and once a server is recognised,
// every connection to it is Kafka, even one picked up mid-stream.
func TestAnyPort(t *testing.T) {
	clock := testClock()
	kafka := newConn(t, ethernet, 40000, 19092, &clock)
	http := newConn(t, ethernet, 40001, 8080, &clock)
	smtp := newConn(t, ethernet, 40002, 25, &clock)
	mid := newConn(t, ethernet, 40003, 29092, &clock)
	again := newConn(t, ethernet, 40004, 19092, &clock)
	var pkts []synthPacket
	pkts = append(pkts, kafka.handshake()...)
	pkts = append(pkts, http.handshake()...)
	pkts = append(pkts, smtp.handshake()...)
	pkts = append(pkts, smtp.send(false, []byte("220 mail.example.com ESMTP\r\n"))...)
	pkts = append(pkts, smtp.send(true, []byte("EHLO x\r\n"))...)
	pkts = append(pkts, exchangeOn(kafka, 18, 3, 1)...)
	pkts = append(pkts, http.send(true, []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))...)
	pkts = append(pkts, http.send(false, []byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))...)
	pkts = append(pkts, exchangeOn(mid, opaqueKey, 9, 40)...)                          // no handshake captured: see opaqueKey
	pkts = append(pkts, again.send(true, reqFrame(3, 9, 8, "any-client", nil)[5:])...) // mid-frame
	pkts = append(pkts, again.send(false, respFrame(8, nil)[3:])...)
	// Found by scanning: of an ApiKey the codec does not know, so that its
	// filler body is not judged.
	pkts = append(pkts, exchangeOn(again, 96, 3, 9)...)
	pkts = append(pkts, exchangeOn(kafka, 3, 9, 2)...)
	d := New(Options{AnyPort: true})
	got, err := readAll(t, d, writePcap(t, layers.LinkTypeEthernet, pkts))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range got {
		if e.Request == nil || e.Response == nil || e.Broker.Port() == 8080 || e.Broker.Port() == 25 || e.Client.Port() <= e.Broker.Port() {
			t.Errorf("%s: %v → %v", describe(e), e.Client, e.Broker)
		}
	}
	if s := streamsOf(got); len(got) != 4 || s[19092] != 3 || s[29092] != 1 {
		for _, e := range got {
			t.Log(describe(e))
		}
		t.Errorf("exchanges by broker port %v", s)
	}
	st := d.Stats()
	// HTTP: handshake + 2 packets; SMTP: handshake + 2.
	if st.DetectedConnections != 2 || st.LearnedBrokers != 2 || st.OtherPorts != 10 || st.Connections != 3 {
		t.Errorf("stats %+v", st)
	}
	// Port 0 in Ports means the same.
	d = New(Options{Ports: []uint16{0}})
	if got, _ := readAll(t, d, writePcap(t, layers.LinkTypeEthernet, pkts)); len(got) != 4 {
		t.Errorf("Ports [0]: %d exchanges", len(got))
	}
	// Without AnyPort only 9092 is Kafka.
	if got, _ := readAll(t, New(Options{}), writePcap(t, layers.LinkTypeEthernet, pkts)); len(got) != 0 {
		t.Errorf("without AnyPort: %d exchanges", len(got))
	}
}

// Without the handshake, a client whose port is below the broker's (as in
// deepflow's captures: client 30120, broker 36333) is told from the
// broker by the response echoing its request's CorrelationId; a response
// never makes its sender the client.
func TestAnyPortLowClientPort(t *testing.T) {
	clock := testClock()
	low := newConn(t, ethernet, 30120, 36333, &clock)
	var pkts []synthPacket
	// An ApiKey the codec does not know: mid-stream, a known one's filler
	// body would be judged.
	pkts = append(pkts, exchangeOn(low, opaqueKey, 7, 120)...)
	pkts = append(pkts, exchangeOn(low, opaqueKey, 4, 121)...)
	got, err := readAll(t, New(Options{AnyPort: true}), writePcap(t, layers.LinkTypeEthernet, pkts))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d exchanges, want 2", len(got))
	}
	for i, e := range got {
		if e.Request == nil || e.Response == nil || e.Client != low.client || e.Broker != low.broker || e.CorrelationID != int32(120+i) {
			t.Errorf("exchange %d: %s: %v → %v", i, describe(e), e.Client, e.Broker)
		}
	}
}

// Brokers named in Metadata and FindCoordinator responses join the broker
// set: connections to them are dissected without naming their ports, also
// the one opened before the Metadata response, replayed from its backlog.
func TestLearnedBrokers(t *testing.T) {
	clock := testClock()
	host := netip.MustParseAddr("10.0.0.9")
	boot := newConn(t, ethernet, 40000, 9092, &clock)
	early := newConn(t, ethernet, 40001, 9093, &clock)
	later := newConn(t, ethernet, 40002, 9094, &clock)
	coord := newConn(t, ethernet, 40003, 9095, &clock)
	var pkts []synthPacket
	pkts = append(pkts, boot.handshake()...)
	pkts = append(pkts, boot.send(true, reqFrame(3, 1, 1, "c", []byte{0xff, 0xff, 0xff, 0xff}))...)
	// A connection to 9093 opens before the response names its broker.
	pkts = append(pkts, early.handshake()...)
	pkts = append(pkts, exchangeOn(early, 18, 3, 1)...)
	pkts = append(pkts, boot.send(false, metadataResponse(1,
		netip.AddrPortFrom(host, 9092), netip.AddrPortFrom(host, 9093), netip.AddrPortFrom(host, 9094)))...)
	pkts = append(pkts, exchangeOn(early, 3, 9, 2)...)
	pkts = append(pkts, later.handshake()...)
	pkts = append(pkts, exchangeOn(later, 18, 3, 1)...)
	pkts = append(pkts, boot.send(true, reqFrame(10, 1, 2, "c", []byte{0, 1, 'g', 0}))...)
	pkts = append(pkts, boot.send(false, findCoordinatorResponse(2, "10.0.0.9", 9095))...)
	pkts = append(pkts, coord.handshake()...)
	pkts = append(pkts, exchangeOn(coord, 11, 5, 1)...)
	d := New(Options{})
	got, err := readAll(t, d, writePcap(t, layers.LinkTypeEthernet, pkts))
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint16]int{9092: 2, 9093: 2, 9094: 1, 9095: 1}
	if s := streamsOf(got); len(got) != 6 || s[9092] != want[9092] || s[9093] != want[9093] || s[9094] != want[9094] || s[9095] != want[9095] {
		for _, e := range got {
			t.Log(describe(e))
		}
		t.Errorf("exchanges by broker port %v, want %v", s, want)
	}
	for _, e := range got {
		if e.Request == nil || e.Response == nil || len(e.Notes) > 0 {
			t.Errorf("%s", describe(e))
		}
	}
	st := d.Stats()
	// 9093, 9094, 9095 (9092 is known); the 9093 connection's handshake
	// and first exchange replayed.
	if st.LearnedBrokers != 3 || st.Replayed != 5 || st.OtherPorts != 0 || st.Skipped != 0 || st.KafkaPackets != st.Packets {
		t.Errorf("stats %+v", st)
	}
}

// A kept packet captured before exchanges already emitted is not
// replayed: the output stays in capture order, and the loss is a gap.
func TestBacklogNotReplayedOutOfOrder(t *testing.T) {
	clock := testClock()
	host := netip.MustParseAddr("10.0.0.9")
	boot := newConn(t, ethernet, 40000, 9092, &clock)
	early := newConn(t, ethernet, 40001, 9093, &clock)
	pkts := boot.handshake()
	pkts = append(pkts, early.handshake()...)
	pkts = append(pkts, exchangeOn(early, 18, 3, 1)...)
	pkts = append(pkts, exchangeOn(boot, 18, 3, 1)...) // emitted at once
	pkts = append(pkts, boot.send(true, reqFrame(3, 1, 2, "c", []byte{0xff, 0xff, 0xff, 0xff}))...)
	pkts = append(pkts, boot.send(false, metadataResponse(2, netip.AddrPortFrom(host, 9093)))...)
	pkts = append(pkts, exchangeOn(early, 97, 9, 2)...) // found after the hole: see TestAnyPort
	d := New(Options{})
	got, err := readAll(t, d, writePcap(t, layers.LinkTypeEthernet, pkts))
	if err != nil {
		t.Fatal(err)
	}
	st := d.Stats()
	if st.BacklogDropped != 2 || st.Replayed != 3 || st.KafkaPackets != st.Packets-2 {
		t.Errorf("stats %+v", st)
	}
	// The exchange after the dropped packets is recovered, after a gap.
	last := got[len(got)-1]
	if len(got) != 3 || last.Broker.Port() != 9093 || last.CorrelationID != 2 || !hasNote(last, "gap in the capture") {
		for _, e := range got {
			t.Log(describe(e))
		}
		t.Errorf("%d exchanges", len(got))
	}
}

// Unknown connections are bounded: backlogs by size, the table by
// MaxConnections, and idle entries expire.
func TestBacklogBounded(t *testing.T) {
	clock := testClock()
	r := newStreamRun(t, Options{BacklogTotalBytes: 64 << 10, MaxConnections: 50})
	for i := range 200 {
		c := newConn(t, ethernet, uint16(30000+i), 7000, &clock)
		r.feed(c.handshake()...)
		r.feed(c.send(true, filler(3000, 1), 1460, 1460)...)
	}
	tb := r.s.unknown
	if len(tb.m) > 50 || tb.bytes > 64<<10 {
		t.Errorf("%d unknown connections, %d bytes kept", len(tb.m), tb.bytes)
	}
	r.close()
}

// Options.BrokersNamed hears the brokers a Metadata response names at the
// packet that brings the response, before its exchange is emitted (which
// waits for the client's acknowledgment: retransmit.go), so that a live
// capture can widen its kernel filter before the client connects to them.
func TestBrokersNamedAtTheResponse(t *testing.T) {
	clock := testClock()
	host := netip.MustParseAddr("10.0.0.9")
	c := newConn(t, ethernet, 40000, 9092, &clock)
	var named [][]BrokerName
	r := newStreamRun(t, Options{BrokersNamed: func(b []BrokerName) {
		named = append(named, slices.Clone(b))
	}})
	r.feed(c.handshake()...)
	r.feed(c.send(true, reqFrame(3, 1, 1, "c", []byte{0xff, 0xff, 0xff, 0xff}))...)
	r.feed(c.send(false, metadataResponse(1, netip.AddrPortFrom(host, 9092), netip.AddrPortFrom(host, 9093)))...)
	emittedThen := len(r.got)
	r.feed(c.packet(true, fACK, nil))
	r.close()
	want := []BrokerName{{Host: "10.0.0.9", Port: 9092}, {Host: "10.0.0.9", Port: 9093}}
	if len(named) != 1 || !slices.Equal(named[0], want) || emittedThen != 0 {
		t.Fatalf("named %v with %d exchanges emitted, want %v once, before the exchange", named, emittedThen, want)
	}
	if len(r.got) != 1 || !slices.Equal(r.got[0].NamedBrokers, want) {
		t.Errorf("%d exchanges; NamedBrokers %v", len(r.got), r.got[0].NamedBrokers)
	}
}
