package dissect

import (
	"slices"
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"

	"github.com/kdissect/kdissect/codec"
)

// A broker's packet written before the SYN of its 4-tuple's next
// connection: its bytes belong to that connection only when the SYN-ACK
// places them in its stream, within the reorder window, with no FIN or
// RST among them. Otherwise they end an earlier connection (a port
// reused), seen from the broker's side only: the response stands alone
// there, and the new connection is dissected whole. Crafted: an old
// connection of which the capture has one response (CorrelationId 7),
// then a new one on the same ports (two Heartbeats, closed).
func TestBrokerBytesBeforeSYN(t *testing.T) {
	for _, tc := range []struct {
		name string
		// gap is the capture time between the old response and the
		// new SYN.
		gap time.Duration
		// fin: the old response is followed by the broker's FIN.
		fin bool
		// inside: the new connection's initial sequence numbers place
		// the old response in its streams (its bytes after the
		// broker's SYN-ACK, its acknowledgment after the client's SYN).
		inside bool
	}{
		{name: "before-the-isn", gap: time.Millisecond},
		{name: "after-a-fin", gap: time.Millisecond, fin: true, inside: true},
		{name: "beyond-the-reorder-window", gap: DefaultReorderWindow + time.Second, inside: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := testClock()
			old := newConn(t, ethernet, 40000, 9092, &clock)
			fresh := reconnect(old)
			if tc.inside {
				fresh.bseq, fresh.cseq = old.bseq-1000, old.cseq-1000
			}
			pkts := old.send(false, heartbeatResponse(7, errRebalanceInProgress))
			if tc.fin {
				pkts = append(pkts, old.packet(false, fFIN|fACK, nil))
			}
			clock = clock.Add(tc.gap)
			pkts = append(pkts, fresh.handshake()...)
			for corr := int32(1); corr <= 2; corr++ {
				pkts = append(pkts, fresh.send(true, heartbeatRequest(corr))...)
				pkts = append(pkts, fresh.send(false, heartbeatResponse(corr, errUnknownMemberID))...)
			}
			pkts = append(pkts, fresh.close()...)
			d := New(Options{})
			got, err := readAll(t, d, writePcap(t, layers.LinkTypeEthernet, pkts))
			if err != nil {
				t.Fatal(err)
			}
			sameSeen(t, "kdissect", seenOf(t, got), []seen{
				{0, -1, 7, false, true, -1},
				{1, codec.ApiKeyHeartbeat, 1, true, true, errUnknownMemberID},
				{1, codec.ApiKeyHeartbeat, 2, true, true, errUnknownMemberID},
			})
			for _, e := range got {
				if e.Stream == 0 && !hasNote(e, "response without a captured request") || e.Stream == 1 && len(e.Notes) > 0 {
					t.Errorf("notes: %s", describe(e))
				}
			}
			if st := d.Stats(); st.Connections != 2 || st.ReusedPorts != 1 {
				t.Errorf("connections %d, reused ports %d; want 2, 1", st.Connections, st.ReusedPorts)
			}
		})
	}
}

// A response written before its connection's SYN, whose request the
// capture lost: it stands alone in its connection (no other request
// takes it), and the rest of the connection is dissected as without the
// move.
func TestResponseBeforeSYNRequestLost(t *testing.T) {
	clock := testClock()
	c := newConn(t, ethernet, 40000, 9092, &clock)
	var pkts []synthPacket
	pkts = append(pkts, c.handshake()...)
	var resp2 synthPacket
	for corr := int32(1); corr <= 3; corr++ {
		req := c.send(true, heartbeatRequest(corr))
		if corr != 2 {
			pkts = append(pkts, req...) // request 2 not captured
		}
		resp := c.send(false, heartbeatResponse(corr, errUnknownMemberID))
		if corr == 2 {
			resp2 = resp[0]
			continue
		}
		pkts = append(pkts, resp...)
	}
	pkts = append(pkts, c.close()...)
	clean, err := readAll(t, New(Options{}), writePcap(t, layers.LinkTypeEthernet, slices.Insert(slices.Clone(pkts), 5, resp2)))
	if err != nil {
		t.Fatal(err)
	}
	resp2.ci.Timestamp = pkts[0].ci.Timestamp.Add(-time.Microsecond)
	d := New(Options{})
	got, err := readAll(t, d, writePcap(t, layers.LinkTypeEthernet, append([]synthPacket{resp2}, pkts...)))
	if err != nil {
		t.Fatal(err)
	}
	want := []seen{
		{0, codec.ApiKeyHeartbeat, 1, true, true, errUnknownMemberID},
		{0, -1, 2, false, true, -1},
		{0, codec.ApiKeyHeartbeat, 3, true, true, errUnknownMemberID},
	}
	sameSeen(t, "clean", seenOf(t, clean), want)
	sameSeen(t, "moved", seenOf(t, got), want)
	if st := d.Stats(); st.Connections != 1 || st.ReusedPorts != 0 {
		t.Errorf("connections %d, reused ports %d; want 1, 0", st.Connections, st.ReusedPorts)
	}
	// The same notes as without the move, the same bytes.
	for _, c := range clean {
		i := slices.IndexFunc(got, func(e *Exchange) bool { return e.CorrelationID == c.CorrelationID })
		if e := got[i]; !slices.Equal(e.Notes, c.Notes) || string(e.Response.Bytes) != string(c.Response.Bytes) {
			t.Errorf("%s, want %s", describe(e), describe(c))
		}
	}
}
