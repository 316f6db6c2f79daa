package dissect

import (
	"encoding/binary"
	"testing"

	"github.com/gopacket/gopacket/layers"
	"github.com/kdissect/kdissect/codec"
)

// A Produce request at a negative ApiVersion (v-1) has no layout that says
// where its Acks is: whatever bytes sit where a Produce v0-v2 would have
// it, it is a request the broker answers, and pairs with its response,
// one row, as the README says of negative versions. Produce v7 with Acks=0
// on the same connection still expects no response. (tshark 4 reads Acks
// 0 there and shows each request and response apart, "Response missing".)
func TestNegativeVersionProducePaired(t *testing.T) {
	for _, tc := range []struct {
		name string
		body []byte
	}{
		// Acks 0 where Produce v0-v2 reads it.
		{"acks-0-at-v0-offset", binary.BigEndian.AppendUint32([]byte{0, 0}, 30000)},
		// A Produce v3+ body with an empty TransactionalId: its length
		// (0) is read as Acks.
		{"empty-transactional-id", append([]byte{0, 0, 0xff, 0xff}, binary.BigEndian.AppendUint32(nil, 30000)...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := testClock()
			c := newConn(t, ethernet, 40000, 9092, &clock)
			pkts := c.handshake()
			pkts = append(pkts, c.send(true, reqFrame(codec.ApiKeyProduce, -1, 1, "cl", tc.body))...)
			pkts = append(pkts, c.send(false, respFrame(1, filler(12, 3)))...)
			pkts = append(pkts, c.send(true, produceFrame(2, 0, filler(20, 4)))...)
			pkts = append(pkts, c.send(true, reqFrame(codec.ApiKeyProduce, -1, 3, "cl", tc.body))...)
			pkts = append(pkts, c.send(false, respFrame(3, filler(12, 5)))...)
			pkts = append(pkts, c.close()...)
			capture := writePcap(t, layers.LinkTypeEthernet, pkts)
			got, err := readAll(t, New(Options{}), capture)
			if err != nil {
				t.Fatal(err)
			}
			want := []seen{
				{0, codec.ApiKeyProduce, 1, true, true, -1},
				{0, codec.ApiKeyProduce, 2, true, false, -1},
				{0, codec.ApiKeyProduce, 3, true, true, -1},
			}
			sameSeen(t, "kdissect", seenOf(t, got), want)
			for _, e := range got {
				want := ResponseSeen
				if e.CorrelationID == 2 {
					want = NoResponseExpected
				}
				if e.NoResponse != want {
					t.Errorf("%s: NoResponse %v, want %v", describe(e), e.NoResponse, want)
				}
			}
		})
	}
}
