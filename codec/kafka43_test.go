package codec

import (
	"bytes"
	"reflect"
	"testing"
)

// Versions and names from Kafka 4.3.0's message definitions that franz-go's
// kmsg v1.15.1 does not have, so the kmsg differential cannot hold them:
// golden bytes written field by field from the definitions
// (shared/kafka-protocol-4.3/message), decoded and re-encoded.

// TestInitProducerIdV6 holds InitProducerId v6 (KIP-939, two-phase commit;
// unstable in 4.3.0) to InitProducerIdRequest.json and
// InitProducerIdResponse.json.
func TestInitProducerIdV6(t *testing.T) {
	for _, c := range []struct {
		name string
		body []byte
		want Message
	}{
		{"request", []byte{
			0x04, 't', 'x', '1', // TransactionalId: compact nullable string "tx1" (length+1)
			0x00, 0x00, 0xea, 0x60, // TransactionTimeoutMs: int32 60000
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xe8, // ProducerId: int64 1000 (v3+)
			0x00, 0x05, // ProducerEpoch: int16 5 (v3+)
			0x01, // Enable2Pc: bool true (v6+)
			0x01, // KeepPreparedTxn: bool true (v6+)
			0x00, // tagged fields: none (flexible from v2)
		}, &InitProducerIdRequest{TransactionalId: goldenStr("tx1"), TransactionTimeoutMs: 60000, ProducerId: 1000, ProducerEpoch: 5, Enable2Pc: true, KeepPreparedTxn: true}},
		{"response", []byte{
			0x00, 0x00, 0x00, 0x00, // ThrottleTimeMs: int32 0
			0x00, 0x00, // ErrorCode: int16 0 (NONE)
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xe8, // ProducerId: int64 1000
			0x00, 0x06, // ProducerEpoch: int16 6
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xe7, // OngoingTxnProducerId: int64 999 (v6+)
			0x00, 0x02, // OngoingTxnProducerEpoch: int16 2 (v6+)
			0x00, // tagged fields: none
		}, &InitProducerIdResponse{ProducerId: 1000, ProducerEpoch: 6, OngoingTxnProducerId: 999, OngoingTxnProducerEpoch: 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := reflect.New(reflect.TypeOf(c.want).Elem()).Interface().(Message)
			warn, err := Decode(got, c.body, 6)
			if err != nil || len(warn) > 0 {
				t.Fatalf("decode v6: %v, warnings %q", err, warn)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("decoded %+v, want %+v", got, c.want)
			}
			if b := c.want.AppendTo(nil, 6); !bytes.Equal(b, c.body) {
				t.Errorf("encoded % x, want % x", b, c.body)
			}
			// v5 has none of the v6 fields: the same value is 2 (request)
			// or 10 (response) bytes shorter.
			if n := len(c.want.AppendTo(nil, 5)); n >= len(c.body) {
				t.Errorf("v5 encoding %d bytes, not shorter than v6's %d", n, len(c.body))
			}
		})
	}
}

// TestListConfigResourcesNamed: key 74 carries Kafka 4.3.0's name
// (KIP-1142), and its Kafka 4.0 name still finds it.
func TestListConfigResourcesNamed(t *testing.T) {
	if got := APIName(74); got != "ListConfigResources" {
		t.Errorf("APIName(74) = %q", got)
	}
	for _, name := range []string{"ListConfigResources", "listconfigresources", "ListClientMetricsResources"} {
		if k, ok := APIKeyByName(name); !ok || k != 74 {
			t.Errorf("APIKeyByName(%q) = %d, %v; want 74", name, k, ok)
		}
	}
	if k, ok := APIKeyByName("Fetch"); !ok || k != 1 {
		t.Errorf("APIKeyByName(Fetch) = %d, %v", k, ok)
	}
	if _, ok := APIKeyByName("NoSuchApi"); ok {
		t.Error("APIKeyByName found NoSuchApi")
	}
}
