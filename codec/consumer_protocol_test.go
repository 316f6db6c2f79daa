package codec

import (
	"bytes"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// The consumer protocol's subscription and assignment, every version,
// byte for byte as kmsg encodes them, and read back as kmsg reads them.
func TestConsumerProtocolAgainstKmsg(t *testing.T) {
	rack := "rack-a"
	for v := int16(0); v <= 3; v++ {
		ours := &ConsumerProtocolSubscription{Version: v, Topics: []string{"orders", "payments"}, UserData: []byte{1, 2},
			OwnedPartitions: []ConsumerProtocolTopicPartitions{{Topic: "orders", Partitions: []int32{0, 3}}}, GenerationId: 7, RackId: &rack}
		km := kmsg.NewConsumerMemberMetadata()
		km.Version, km.Topics, km.UserData = v, ours.Topics, ours.UserData
		if v >= 1 {
			km.OwnedPartitions = []kmsg.ConsumerMemberMetadataOwnedPartition{{Topic: "orders", Partitions: []int32{0, 3}}}
		}
		if v >= 2 {
			km.Generation = 7
		}
		if v >= 3 {
			km.Rack = &rack
		}
		got, want := ours.AppendTo(nil), km.AppendTo(nil)
		if !bytes.Equal(got, want) {
			t.Errorf("subscription v%d:\n ours % x\n kmsg % x", v, got, want)
		}
		back, err := ReadConsumerProtocolSubscription(want)
		if err != nil {
			t.Fatalf("subscription v%d: %v", v, err)
		}
		if !bytes.Equal(back.AppendTo(nil), want) {
			t.Errorf("subscription v%d does not read back: %+v", v, back)
		}
	}
	a := &ConsumerProtocolAssignment{Version: 0, AssignedPartitions: []ConsumerProtocolTopicPartitions{{Topic: "orders", Partitions: []int32{1, 2}}, {Topic: "payments", Partitions: []int32{0}}}}
	km := kmsg.NewConsumerMemberAssignment()
	km.Topics = []kmsg.ConsumerMemberAssignmentTopic{{Topic: "orders", Partitions: []int32{1, 2}}, {Topic: "payments", Partitions: []int32{0}}}
	if got, want := a.AppendTo(nil), km.AppendTo(nil); !bytes.Equal(got, want) {
		t.Errorf("assignment:\n ours % x\n kmsg % x", got, want)
	}
	back, err := ReadConsumerProtocolAssignment(km.AppendTo(nil))
	if err != nil || len(back.AssignedPartitions) != 2 || back.AssignedPartitions[0].Partitions[1] != 2 {
		t.Errorf("assignment read back: %+v, %v", back, err)
	}
	// Damaged: a count larger than the bytes, a negative version.
	for _, b := range [][]byte{{0, 0, 0x7f, 0xff, 0xff, 0xff}, {0xff, 0xff}} {
		if _, err := ReadConsumerProtocolSubscription(b); err == nil {
			t.Errorf("subscription % x: no error", b)
		}
		if _, err := ReadConsumerProtocolAssignment(b); err == nil {
			t.Errorf("assignment % x: no error", b)
		}
	}
}
