package replay

import (
	"testing"

	"github.com/kdissect/kdissect/codec"
)

// TestRewriteBatches: an idempotent batch gets the target's producer id
// and epoch, sequences renumbered from the first captured one, and a
// CRC-32C that matches; the input is not modified.
func TestRewriteBatches(t *testing.T) {
	st := newState(nil)
	captured := pidEpoch{id: 7000, epoch: 3}
	st.learnProducer(captured, pidEpoch{id: 12, epoch: 0})
	batch := func(seq int32) []byte {
		b := codec.RecordBatch{Attributes: int16(codec.CompressionNone), ProducerId: captured.id, ProducerEpoch: captured.epoch, BaseSequence: seq,
			Records: []codec.Record{{Key: []byte("k"), Value: []byte("v")}, {OffsetDelta: 1, Value: []byte("w")}}, LastOffsetDelta: 1}
		return b.AppendTo(nil)
	}
	raw := append(batch(40), batch(42)...)
	orig := append([]byte(nil), raw...)
	out, missing := st.rewriteBatches(raw, "t", 0)
	if missing != nil {
		t.Fatalf("missing producer %+v", missing)
	}
	if string(raw) != string(orig) {
		t.Error("input modified")
	}
	set := codec.DecodeRecordSet(out, codec.RecordDecodeOptions{})
	if len(set.Entries) != 2 || len(set.Notes) > 0 {
		t.Fatalf("entries %d, notes %v", len(set.Entries), set.Notes)
	}
	for i, e := range set.Entries {
		b := e.Batch
		if !b.CrcValid || b.ProducerId != 12 || b.ProducerEpoch != 0 || b.BaseSequence != int32(2*i) || len(b.Records) != 2 {
			t.Errorf("batch %d: crc valid %v, producer %d/%d, sequence %d, %d records", i, b.CrcValid, b.ProducerId, b.ProducerEpoch, b.BaseSequence, len(b.Records))
		}
	}
	// An unknown producer is reported, not guessed.
	other := codec.RecordBatch{ProducerId: 99, ProducerEpoch: 0, Records: []codec.Record{{Value: []byte("x")}}}
	if _, missing := st.rewriteBatches(other.AppendTo(nil), "t", 0); missing == nil || missing.id != 99 {
		t.Errorf("unknown producer: missing = %+v", missing)
	}
}

// TestGroupRewrite: member ids and generations learnt from a JoinGroup
// answer are put in a later SyncGroup.
func TestGroupRewrite(t *testing.T) {
	st := newState(nil)
	st.learnGroup("g", &codec.JoinGroupResponse{MemberId: "old-1", GenerationId: 5, Leader: "old-1"},
		&codec.JoinGroupResponse{MemberId: "new-1", GenerationId: 1, Leader: "new-1"})
	req := &codec.SyncGroupRequest{GroupId: "g", MemberId: "old-1", GenerationId: 5,
		Assignments: []codec.SyncGroupRequestAssignment{{MemberId: "old-1"}, {MemberId: "stranger"}}}
	st.groupRewrite(req, "g")
	if req.MemberId != "new-1" || req.GenerationId != 1 || req.Assignments[0].MemberId != "new-1" || req.Assignments[1].MemberId != "stranger" {
		t.Errorf("rewritten: %+v", req)
	}
}

// TestGroupLearnsOwnMemberOnly: a JoinGroup answer to the leader lists
// the members in the coordinator's order and names the leader the
// target elected; neither is paired with the capture's, so each member
// keeps its own id (learnt from its own answer) and a SyncGroup's
// assignments and a LeaveGroup name the right members.
func TestGroupLearnsOwnMemberOnly(t *testing.T) {
	st := newState(nil)
	// Each member's MEMBER_ID_REQUIRED answer.
	st.learnGroup("g", &codec.JoinGroupResponse{ErrorCode: 79, MemberId: "capA", GenerationId: -1},
		&codec.JoinGroupResponse{ErrorCode: 79, MemberId: "tgtA", GenerationId: -1})
	st.learnGroup("g", &codec.JoinGroupResponse{ErrorCode: 79, MemberId: "capB", GenerationId: -1},
		&codec.JoinGroupResponse{ErrorCode: 79, MemberId: "tgtB", GenerationId: -1})
	// The leader's answer: captured leader A lists A, B; the target
	// elected B and lists B, A.
	st.learnGroup("g",
		&codec.JoinGroupResponse{MemberId: "capA", GenerationId: 2, Leader: "capA",
			Members: []codec.JoinGroupResponseMember{{MemberId: "capA"}, {MemberId: "capB"}}},
		&codec.JoinGroupResponse{MemberId: "tgtA", GenerationId: 7, Leader: "tgtB",
			Members: []codec.JoinGroupResponseMember{{MemberId: "tgtB"}, {MemberId: "tgtA"}}})
	req := &codec.SyncGroupRequest{GroupId: "g", MemberId: "capA", GenerationId: 2,
		Assignments: []codec.SyncGroupRequestAssignment{{MemberId: "capA"}, {MemberId: "capB"}}}
	st.groupRewrite(req, "g")
	if req.MemberId != "tgtA" || req.GenerationId != 7 || req.Assignments[0].MemberId != "tgtA" || req.Assignments[1].MemberId != "tgtB" {
		t.Errorf("rewritten: %+v", req)
	}
	leave := &codec.LeaveGroupRequest{GroupId: "g", Members: []codec.LeaveGroupRequestMemberIdentity{{MemberId: "capB"}}}
	st.groupRewrite(leave, "g")
	if leave.Members[0].MemberId != "tgtB" {
		t.Errorf("LeaveGroup names %q, want tgtB", leave.Members[0].MemberId)
	}
}

// TestTopicRewrite: names through the topic map, captured topic IDs to
// the target's, names filled in for a lower version.
func TestTopicRewrite(t *testing.T) {
	st := newState(map[string]string{"a": "b"})
	capID, tgtID := codec.UUID{1}, codec.UUID{2}
	st.learnCapturedTopics([]codec.TopicPartitions{{Topic: "a", TopicID: capID}})
	st.setTargetID("b", tgtID)
	req := &codec.ProduceRequest{TopicData: []codec.ProduceRequestTopicProduceData{{TopicId: capID}, {Name: "a"}}}
	if notes := st.topicRewrite(req, true, nil); len(notes) > 0 {
		t.Errorf("notes %v", notes)
	}
	if td := req.TopicData; td[0].TopicId != tgtID || td[0].Name != "b" || td[1].Name != "b" {
		t.Errorf("rewritten: %+v", td)
	}
}

// TestSequenceOverWhatIsSent: a producer's batches of 5, 3 and 4 records
// (captured base sequences 0, 5, 8) with the middle one left out are
// sent as 0 and 5; a captured batch sent again keeps its sequence; each
// partition and producer epoch counts on its own.
func TestSequenceOverWhatIsSent(t *testing.T) {
	s := newState(nil)
	k := seqKey{producer: pidEpoch{7, 0}, topic: "t", partition: 1}
	if got := s.sequence(k, 0, 5); got != 0 {
		t.Errorf("first batch: %d", got)
	}
	if got := s.sequence(k, 8, 4); got != 5 {
		t.Errorf("third batch after leaving out the second: %d, want 5", got)
	}
	if got := s.sequence(k, 8, 4); got != 5 {
		t.Errorf("third batch sent again: %d, want 5", got)
	}
	if got := s.sequence(k, 12, 1); got != 9 {
		t.Errorf("fourth batch: %d, want 9", got)
	}
	other := k
	other.partition = 2
	if got := s.sequence(other, 3, 1); got != 0 {
		t.Errorf("another partition: %d, want 0", got)
	}
	bumped := k
	bumped.producer.epoch = 1
	if got := s.sequence(bumped, 0, 1); got != 0 {
		t.Errorf("a new epoch: %d, want 0", got)
	}
}
