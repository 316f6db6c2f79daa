package codec

import "fmt"

// The "consumer" protocol of classic consumer groups: what a member puts
// in JoinGroup's Protocols[].Metadata, and what the leader puts in
// SyncGroup's Assignments[].Assignment (Kafka's message definitions
// ConsumerProtocolSubscription.json and ConsumerProtocolAssignment.json,
// KIP-62, KIP-429, KIP-792, KIP-881). Each starts with its int16 version;
// neither is flexible.

// ConsumerProtocolType is JoinGroup's ProtocolType for consumer groups.
const ConsumerProtocolType = "consumer"

// ConsumerProtocolSubscription is a member's subscription, versions 0-3.
type ConsumerProtocolSubscription struct {
	Version  int16
	Topics   []string
	UserData []byte // nullable
	// OwnedPartitions (v1+) are the partitions the member holds now.
	OwnedPartitions []ConsumerProtocolTopicPartitions
	GenerationId    int32   // v2+; -1 when unknown
	RackId          *string // v3+; nullable
}

// ConsumerProtocolTopicPartitions is a topic and some of its partitions.
type ConsumerProtocolTopicPartitions struct {
	Topic      string
	Partitions []int32
}

// ConsumerProtocolAssignment is a member's assignment, versions 0-3 (all
// alike on the wire).
type ConsumerProtocolAssignment struct {
	Version            int16
	AssignedPartitions []ConsumerProtocolTopicPartitions
	UserData           []byte // nullable
}

// AppendTo appends the subscription at s.Version.
func (s *ConsumerProtocolSubscription) AppendTo(dst []byte) []byte {
	dst = AppendInt16(dst, s.Version)
	dst = AppendInt32(dst, int32(len(s.Topics)))
	for _, t := range s.Topics {
		dst = AppendString(dst, t)
	}
	dst = AppendNullableBytes(dst, s.UserData)
	if s.Version >= 1 {
		dst = appendTopicPartitions(dst, s.OwnedPartitions)
	}
	if s.Version >= 2 {
		dst = AppendInt32(dst, s.GenerationId)
	}
	if s.Version >= 3 {
		dst = AppendNullableString(dst, s.RackId)
	}
	return dst
}

// ReadConsumerProtocolSubscription decodes a subscription. Fields of a
// version newer than 3 that follow are left unread, as Kafka's own
// parser does (newer versions only append fields). The error says what
// is malformed.
func ReadConsumerProtocolSubscription(b []byte) (*ConsumerProtocolSubscription, error) {
	r := NewReader(b)
	s := &ConsumerProtocolSubscription{Version: r.Int16(), GenerationId: -1}
	if s.Version < 0 {
		return nil, fmt.Errorf("consumer protocol subscription: version %d", s.Version)
	}
	n := r.ArrayLen()
	for range max(n, 0) {
		s.Topics = append(s.Topics, r.String())
	}
	s.UserData = r.NullableBytes()
	if s.Version >= 1 {
		s.OwnedPartitions = readTopicPartitions(r)
	}
	if s.Version >= 2 {
		s.GenerationId = r.Int32()
	}
	if s.Version >= 3 {
		s.RackId = r.NullableString()
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("consumer protocol subscription v%d: %w", s.Version, err)
	}
	return s, nil
}

// AppendTo appends the assignment at a.Version.
func (a *ConsumerProtocolAssignment) AppendTo(dst []byte) []byte {
	dst = AppendInt16(dst, a.Version)
	dst = appendTopicPartitions(dst, a.AssignedPartitions)
	return AppendNullableBytes(dst, a.UserData)
}

// ReadConsumerProtocolAssignment decodes an assignment. An empty one
// (a member the leader gave nothing, as some leaders send it) is an
// assignment of nothing.
func ReadConsumerProtocolAssignment(b []byte) (*ConsumerProtocolAssignment, error) {
	if len(b) == 0 {
		return &ConsumerProtocolAssignment{}, nil
	}
	r := NewReader(b)
	a := &ConsumerProtocolAssignment{Version: r.Int16()}
	if a.Version < 0 {
		return nil, fmt.Errorf("consumer protocol assignment: version %d", a.Version)
	}
	a.AssignedPartitions = readTopicPartitions(r)
	a.UserData = r.NullableBytes()
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("consumer protocol assignment v%d: %w", a.Version, err)
	}
	return a, nil
}

func appendTopicPartitions(dst []byte, tps []ConsumerProtocolTopicPartitions) []byte {
	dst = AppendInt32(dst, int32(len(tps)))
	for _, tp := range tps {
		dst = AppendString(dst, tp.Topic)
		dst = AppendInt32(dst, int32(len(tp.Partitions)))
		for _, p := range tp.Partitions {
			dst = AppendInt32(dst, p)
		}
	}
	return dst
}

func readTopicPartitions(r *Reader) []ConsumerProtocolTopicPartitions {
	n := r.ArrayLen()
	var out []ConsumerProtocolTopicPartitions
	for range max(n, 0) {
		tp := ConsumerProtocolTopicPartitions{Topic: r.String()}
		m := r.ArrayLen()
		for range max(m, 0) {
			tp.Partitions = append(tp.Partitions, r.Int32())
		}
		if r.Err() != nil {
			return out
		}
		out = append(out, tp)
	}
	return out
}
