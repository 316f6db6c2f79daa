package dissect

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"

	"github.com/kdissect/kdissect/codec"
)

// Real Kafka frames for the connection tests, so that tshark decodes the
// same captures: Heartbeat v0 and JoinGroup v0, whose responses carry the
// error codes a rebalance produces.
func heartbeatRequest(corr int32) []byte {
	m := &codec.HeartbeatRequest{GroupId: "g", GenerationId: 7, MemberId: "m-1"}
	return reqFrame(codec.ApiKeyHeartbeat, 0, corr, "c", m.AppendTo(nil, 0))
}

func heartbeatResponse(corr int32, code int16) []byte {
	m := &codec.HeartbeatResponse{ErrorCode: code}
	return respFrame(corr, m.AppendTo(nil, 0))
}

// Kafka error codes the tests expect to survive.
const (
	errUnknownMemberID     = 25
	errRebalanceInProgress = 27
)

// seen is what the tests compare of an exchange, with tshark's reading.
type seen struct {
	stream    int
	key       int16
	corr      int32
	req, resp bool
	errCode   int16 // the response's ErrorCode; -1: none read
}

func (s seen) String() string {
	return fmt.Sprintf("stream %d key %d corr %d req %v resp %v error %d", s.stream, s.key, s.corr, s.req, s.resp, s.errCode)
}

func seenOf(t *testing.T, got []*Exchange) []seen {
	t.Helper()
	var out []seen
	for _, e := range got {
		s := seen{stream: e.Stream, key: e.APIKey, corr: e.CorrelationID, req: e.Request != nil, resp: e.Response != nil, errCode: -1}
		if e.Response != nil && e.APIKey == codec.ApiKeyHeartbeat {
			var m codec.HeartbeatResponse
			r := codec.NewReader(e.Response.Bytes[4:])
			if m.ReadFrom(r, e.APIVersion); r.Err() != nil {
				t.Fatalf("%s: %v", describe(e), r.Err())
			}
			s.errCode = m.ErrorCode
		}
		out = append(out, s)
	}
	return out
}

// tsharkSeen reads a capture with tshark: one seen per request, and one
// per response tshark could not pair. ok is false when tshark is absent.
func tsharkSeen(t *testing.T, capture []byte) (out []seen, ok bool) {
	t.Helper()
	if _, err := exec.LookPath("tshark"); err != nil {
		return nil, false
	}
	path := filepath.Join(t.TempDir(), "c.pcap")
	if err := os.WriteFile(path, capture, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("tshark", "-r", path, "-n", "-d", "tcp.port==9092,kafka", "-Y", "kafka",
		"-T", "fields", "-E", "separator=|", "-e", "tcp.stream", "-e", "kafka.correlation_id",
		"-e", "kafka.request_key", "-e", "kafka.response_key", "-e", "kafka.response_frame",
		"-e", "kafka.request_frame", "-e", "kafka.error")
	outb, err := cmd.Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	type respRow struct {
		s        seen
		reqFrame string
	}
	var resps []respRow
	for line := range strings.Lines(string(outb)) {
		f := strings.Split(strings.TrimRight(line, "\n"), "|")
		if len(f) < 7 {
			t.Fatalf("tshark line %q", line)
		}
		stream, _ := strconv.Atoi(f[0])
		corr, _ := strconv.Atoi(f[1])
		if f[2] != "" {
			key, _ := strconv.Atoi(f[2])
			out = append(out, seen{stream: stream, key: int16(key), corr: int32(corr), req: true, errCode: -1})
			continue
		}
		key, _ := strconv.Atoi(f[3])
		code := int16(-1)
		if f[6] != "" {
			c, _ := strconv.Atoi(strings.Split(f[6], ",")[0])
			code = int16(c)
		}
		resps = append(resps, respRow{seen{stream: stream, key: int16(key), corr: int32(corr), resp: true, errCode: code}, f[5]})
	}
	// tshark pairs by CorrelationId within the TCP stream; pair its rows
	// the same way.
	for _, r := range resps {
		i := slices.IndexFunc(out, func(s seen) bool {
			return s.req && !s.resp && s.stream == r.s.stream && s.corr == r.s.corr && r.reqFrame != ""
		})
		if i < 0 {
			out = append(out, r.s)
			continue
		}
		out[i].resp, out[i].errCode = true, r.s.errCode
	}
	return out, true
}

// sortSeen orders by stream, then CorrelationId, which both tools agree on.
func sortSeen(s []seen) []seen {
	s = slices.Clone(s)
	slices.SortStableFunc(s, func(a, b seen) int {
		if a.stream != b.stream {
			return a.stream - b.stream
		}
		return int(a.corr - b.corr)
	})
	return s
}

func sameSeen(t *testing.T, what string, got, want []seen) {
	t.Helper()
	if !slices.Equal(sortSeen(got), sortSeen(want)) {
		t.Errorf("%s:\n got  %v\n want %v", what, sortSeen(got), sortSeen(want))
	}
}

// reconnect returns a new connection on the same 4-tuple as c, with new
// initial sequence numbers.
func reconnect(c *tcpConn) *tcpConn {
	n := *c
	n.cseq, n.bseq = c.cseq+7_000_000, c.bseq+9_000_000
	return &n
}

// A client that reconnects from the same port: after an RST, after a close
// of which the capture saw one FIN, after no close at all, and after a
// full close. The new connection's SYN (a new initial sequence number)
// ends the old one: every exchange of both is found, with its error code,
// as tshark finds them.
func TestReusedFourTuple(t *testing.T) {
	for _, tc := range []struct {
		name  string
		close func(c *tcpConn) []synthPacket
		// the old connection's request left unanswered, and why
		pending bool
		// the new SYN was not captured: its SYN-ACK tells
		noSYN bool
	}{
		{"rst", func(c *tcpConn) []synthPacket { return []synthPacket{c.packet(true, fRST|fACK, nil)} }, false, false},
		{"rst-from-broker", func(c *tcpConn) []synthPacket { return []synthPacket{c.packet(false, fRST|fACK, nil)} }, false, false},
		{"one-fin", func(c *tcpConn) []synthPacket { return []synthPacket{c.packet(true, fFIN|fACK, nil)} }, false, false},
		{"no-close", func(c *tcpConn) []synthPacket { return nil }, false, false},
		{"no-close-pending", func(c *tcpConn) []synthPacket { return c.send(true, heartbeatRequest(3)) }, true, false},
		{"full-close", func(c *tcpConn) []synthPacket { return c.close() }, false, false},
		{"no-close-syn-lost", func(c *tcpConn) []synthPacket { return nil }, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := testClock()
			old := newConn(t, ethernet, 40000, 9092, &clock)
			var pkts []synthPacket
			pkts = append(pkts, old.handshake()...)
			for corr := int32(1); corr <= 2; corr++ {
				pkts = append(pkts, old.send(true, heartbeatRequest(corr))...)
				pkts = append(pkts, old.send(false, heartbeatResponse(corr, errRebalanceInProgress))...)
			}
			pkts = append(pkts, tc.close(old)...)
			clock = clock.Add(2 * time.Second)
			fresh := reconnect(old)
			syn := fresh.packet(true, fSYN, nil)
			if !tc.noSYN {
				pkts = append(pkts, syn)
			}
			pkts = append(pkts, fresh.packet(false, fSYN|fACK, nil), fresh.packet(true, fACK, nil))
			pkts = append(pkts, syn) // a retransmitted SYN: the same connection still
			for corr := int32(1); corr <= 2; corr++ {
				pkts = append(pkts, fresh.send(true, heartbeatRequest(corr))...)
				pkts = append(pkts, fresh.send(false, heartbeatResponse(corr, errUnknownMemberID))...)
			}
			pkts = append(pkts, fresh.close()...)
			capture := writePcap(t, layers.LinkTypeEthernet, pkts)

			d := New(Options{})
			got, err := readAll(t, d, capture)
			if err != nil {
				t.Fatal(err)
			}
			want := []seen{
				{0, codec.ApiKeyHeartbeat, 1, true, true, errRebalanceInProgress},
				{0, codec.ApiKeyHeartbeat, 2, true, true, errRebalanceInProgress},
				{1, codec.ApiKeyHeartbeat, 1, true, true, errUnknownMemberID},
				{1, codec.ApiKeyHeartbeat, 2, true, true, errUnknownMemberID},
			}
			if tc.pending {
				want = slices.Insert(want, 2, seen{0, codec.ApiKeyHeartbeat, 3, true, false, -1})
			}
			sameSeen(t, "kdissect", seenOf(t, got), want)
			for _, e := range got {
				switch {
				case e.Stream == 0 && e.CorrelationID == 3:
					if e.NoResponse != ConnectionClosed || !slices.ContainsFunc(e.Notes, func(n Note) bool { return strings.Contains(n.Text, "new connection on the same ports") }) {
						t.Errorf("unanswered request of the old connection: %s (reason %v)", describe(e), e.NoResponse)
					}
				case len(e.Notes) > 0:
					t.Errorf("unexpected notes: %s", describe(e))
				}
			}
			// A connection still open when the SYN came is one a new
			// connection ended (an RST ends a connection whole).
			wantReused := int64(1)
			if tc.name == "rst" || tc.name == "rst-from-broker" || tc.name == "full-close" {
				wantReused = 0
			}
			if st := d.Stats(); st.Connections != 2 || st.ReusedPorts != wantReused {
				t.Errorf("connections %d, want 2; reused ports %d, want %d", st.Connections, st.ReusedPorts, wantReused)
			}
			if ts, ok := tsharkSeen(t, capture); ok {
				sameSeen(t, "tshark", ts, want)
			}
		})
	}
}

// pipelined sends requests 1..n on c at once, then the responses in the
// order given, each with its error code.
func pipelined(c *tcpConn, order []int32, codes map[int32]int16) []synthPacket {
	var pkts []synthPacket
	for corr := int32(1); corr <= int32(len(order)); corr++ {
		pkts = append(pkts, c.send(true, heartbeatRequest(corr))...)
	}
	for _, corr := range order {
		pkts = append(pkts, c.send(false, heartbeatResponse(corr, codes[corr]))...)
	}
	return pkts
}

// Responses out of order (a proxy between client and broker, a broker
// answering late): each pairs with its request by CorrelationId within the
// connection, its error code kept, and the order anomaly noted, as tshark
// pairs them.
func TestResponsesOutOfOrder(t *testing.T) {
	codes := map[int32]int16{1: errUnknownMemberID, 2: errRebalanceInProgress, 3: 0, 4: errRebalanceInProgress}
	for _, order := range [][]int32{{2, 1, 3, 4}, {4, 3, 2, 1}, {1, 3, 2, 4}, {2, 3, 4, 1}} {
		t.Run(fmt.Sprint(order), func(t *testing.T) {
			clock := testClock()
			c := newConn(t, ethernet, 40000, 9092, &clock)
			pkts := c.handshake()
			pkts = append(pkts, pipelined(c, order, codes)...)
			pkts = append(pkts, c.close()...)
			capture := writePcap(t, layers.LinkTypeEthernet, pkts)
			d := New(Options{})
			got, err := readAll(t, d, capture)
			if err != nil {
				t.Fatal(err)
			}
			var want []seen
			for corr := int32(1); corr <= 4; corr++ {
				want = append(want, seen{0, codec.ApiKeyHeartbeat, corr, true, true, codes[corr]})
			}
			sameSeen(t, "kdissect", seenOf(t, got), want)
			for _, e := range got {
				// Out of order: answered after a request sent later,
				// or before one sent earlier.
				at := slices.Index(order, e.CorrelationID)
				late := slices.ContainsFunc(order[:at], func(x int32) bool { return x > e.CorrelationID }) ||
					slices.ContainsFunc(order[at+1:], func(x int32) bool { return x < e.CorrelationID })
				noted := slices.ContainsFunc(e.Notes, func(n Note) bool { return strings.Contains(n.Text, "out of order") })
				if late != noted || len(e.Notes) > 1 {
					t.Errorf("%s: out of order %v", describe(e), late)
				}
				if e.NoResponse != ResponseSeen {
					t.Errorf("%s: NoResponse %v", describe(e), e.NoResponse)
				}
			}
			if ts, ok := tsharkSeen(t, capture); ok {
				sameSeen(t, "tshark", ts, want)
			}
		})
	}
}

// A request whose response never comes while later ones are answered, no
// byte of the broker's stream lost: it waits (its answer may come late)
// and ends unanswered when the connection does; the later exchanges are
// all paired.
func TestResponseOvertakenNeverComes(t *testing.T) {
	clock := testClock()
	c := newConn(t, ethernet, 40000, 9092, &clock)
	pkts := c.handshake()
	for corr := int32(1); corr <= 3; corr++ {
		pkts = append(pkts, c.send(true, heartbeatRequest(corr))...)
	}
	pkts = append(pkts, c.send(false, heartbeatResponse(2, 0))...)
	pkts = append(pkts, c.send(false, heartbeatResponse(3, errRebalanceInProgress))...)
	pkts = append(pkts, c.close()...)
	got, err := readAll(t, New(Options{}), writePcap(t, layers.LinkTypeEthernet, pkts))
	if err != nil {
		t.Fatal(err)
	}
	want := []seen{
		{0, codec.ApiKeyHeartbeat, 1, true, false, -1},
		{0, codec.ApiKeyHeartbeat, 2, true, true, 0},
		{0, codec.ApiKeyHeartbeat, 3, true, true, errRebalanceInProgress},
	}
	sameSeen(t, "kdissect", seenOf(t, got), want)
	if len(got) == 3 && got[0].NoResponse != ConnectionClosed {
		t.Errorf("%s: NoResponse %v, want %v", describe(got[0]), got[0].NoResponse, ConnectionClosed)
	}
}

// Responses whose capture timestamps are earlier than their requests'
// (two capture points, a clock step, a multi-queue NIC): written after
// their requests, or before them (files merged by time), they pair, with
// the negative latency kept and noted.
func TestResponseStampedEarly(t *testing.T) {
	for _, tc := range []struct {
		name  string
		first bool // the response is written before its request
	}{{"written-after", false}, {"written-before", true}} {
		t.Run(tc.name, func(t *testing.T) {
			clock := testClock()
			c := newConn(t, ethernet, 40000, 9092, &clock)
			pkts := c.handshake()
			for corr := int32(1); corr <= 3; corr++ {
				req := c.send(true, heartbeatRequest(corr))
				resp := c.send(false, heartbeatResponse(corr, errUnknownMemberID))
				for i := range resp {
					resp[i].ci.Timestamp = req[0].ci.Timestamp.Add(-time.Duration(corr) * 300 * time.Microsecond)
				}
				if tc.first && corr == 2 {
					pkts = append(pkts, resp...)
					pkts = append(pkts, req...)
					continue
				}
				pkts = append(pkts, req...)
				pkts = append(pkts, resp...)
			}
			pkts = append(pkts, c.close()...)
			capture := writePcap(t, layers.LinkTypeEthernet, pkts)
			got, err := readAll(t, New(Options{}), capture)
			if err != nil {
				t.Fatal(err)
			}
			var want []seen
			for corr := int32(1); corr <= 3; corr++ {
				want = append(want, seen{0, codec.ApiKeyHeartbeat, corr, true, true, errUnknownMemberID})
			}
			sameSeen(t, "kdissect", seenOf(t, got), want)
			for _, e := range got {
				lat, ok := e.Latency()
				if wantLat := -time.Duration(e.CorrelationID) * 300 * time.Microsecond; !ok || lat != wantLat {
					t.Errorf("%s: latency %v, want %v", describe(e), lat, wantLat)
				}
				if !slices.ContainsFunc(e.Notes, func(n Note) bool { return strings.Contains(n.Text, "before its request") }) {
					t.Errorf("%s: no note of the negative latency", describe(e))
				}
			}
			// tshark pairs a response only with a request in an
			// earlier frame: written before it, it stands alone there.
			if ts, ok := tsharkSeen(t, capture); ok && !tc.first {
				sameSeen(t, "tshark", ts, want)
			}
		})
	}
}

// An overtaken request waits overtakenWait for its response at most: a
// response of the connection after that gives it up, so the exchanges
// after it are not held for the life of the connection.
func TestOvertakenRequestGivenUp(t *testing.T) {
	clock := testClock()
	c := newConn(t, ethernet, 40000, 9092, &clock)
	pkts := c.handshake()
	for corr := int32(1); corr <= 2; corr++ {
		pkts = append(pkts, c.send(true, heartbeatRequest(corr))...)
	}
	pkts = append(pkts, c.send(false, heartbeatResponse(2, 0))...)
	clock = clock.Add(overtakenWait + time.Second)
	pkts = append(pkts, c.send(true, heartbeatRequest(3))...)
	pkts = append(pkts, c.send(false, heartbeatResponse(3, 0))...)
	pkts = append(pkts, c.packet(true, fACK, nil)) // the last response held until then
	r := newStreamRun(t, Options{IdleTimeout: time.Hour})
	r.feed(pkts...)
	// Before the connection ends, all three are out.
	if len(r.got) != 3 {
		for _, e := range r.got {
			t.Log(describe(e))
		}
		t.Fatalf("%d exchanges out before the end, want 3", len(r.got))
	}
	if e := r.got[0]; e.CorrelationID != 1 || e.Response != nil || e.NoResponse != ResponseLost ||
		!slices.ContainsFunc(e.Notes, func(n Note) bool { return strings.Contains(n.Text, "no response within 30s") }) {
		t.Errorf("overtaken request: %s", describe(e))
	}
	r.close()
}
