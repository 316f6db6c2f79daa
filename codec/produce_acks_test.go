package codec

import "testing"

func TestProduceAcks(t *testing.T) {
	tx := "tx"
	for _, v := range []int16{0, 2, 3, 8, 9, 11, 13} {
		for _, acks := range []int16{0, 1, -1} {
			m := &ProduceRequest{Acks: acks, TimeoutMs: 1500, TransactionalId: &tx}
			cid := "client"
			h := &RequestHeader{RequestApiKey: 0, RequestApiVersion: v, CorrelationId: 7, ClientId: &cid,
				UnknownTags: []TaggedField{{Tag: 5, Data: []byte{1, 2}}}}
			frame := m.AppendTo(h.AppendTo(nil, RequestHeaderVersion(0, v)), v)
			got, ok := ProduceAcks(frame)
			if !ok || got != acks {
				t.Errorf("v%d acks %d: got %d, %v", v, acks, got, ok)
			}
			if _, ok := ProduceAcks(frame[:9]); ok {
				t.Errorf("v%d: a cut frame gave acks", v)
			}
		}
	}
	if _, ok := ProduceAcks([]byte{0, 1, 0, 11, 0, 0, 0, 1, 0, 0, 0, 0}); ok {
		t.Error("a Fetch request gave acks")
	}
}
