package replay

import (
	"slices"
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

// TestRolesRewrite: the fields the generated walkers give a role are
// rewritten whatever their Go type: a list of topic names, a nullable
// name (null stays null), both producer id and epoch pairs of
// AddPartitionsToTxn (v3 and below, and v4+ per transaction); a
// Metadata answer's nullable name is learnt with its ID.
func TestRolesRewrite(t *testing.T) {
	st := newState(map[string]string{"a": "b"})
	del := &codec.DeleteTopicsRequest{TopicNames: []string{"a", "c"}}
	st.topicRewrite(del, false, nil)
	if !slices.Equal(del.TopicNames, []string{"b", "c"}) {
		t.Errorf("DeleteTopics names %v, want [b c]", del.TopicNames)
	}
	a := "a"
	md := &codec.MetadataRequest{Topics: []codec.MetadataRequestTopic{{Name: &a}, {Name: nil}}}
	st.topicRewrite(md, false, nil)
	if md.Topics[0].Name == nil || *md.Topics[0].Name != "b" || md.Topics[1].Name != nil || a != "a" {
		t.Errorf("Metadata names %v %v (a is now %q)", md.Topics[0].Name, md.Topics[1].Name, a)
	}

	st.learnProducer(pidEpoch{10, 1}, pidEpoch{20, 2})
	st.learnProducer(pidEpoch{11, 0}, pidEpoch{21, 3})
	add := &codec.AddPartitionsToTxnRequest{V3AndBelowProducerId: 10, V3AndBelowProducerEpoch: 1,
		Transactions: []codec.AddPartitionsToTxnRequestAddPartitionsToTxnTransaction{{ProducerId: 11, ProducerEpoch: 0}, {ProducerId: 12, ProducerEpoch: 0}}}
	st.producerRewrite(add)
	if add.V3AndBelowProducerId != 20 || add.V3AndBelowProducerEpoch != 2 {
		t.Errorf("v3 producer %d/%d, want 20/2", add.V3AndBelowProducerId, add.V3AndBelowProducerEpoch)
	}
	if tx := add.Transactions; tx[0].ProducerId != 21 || tx[0].ProducerEpoch != 3 || tx[1].ProducerId != 12 {
		t.Errorf("v4 producers %+v", tx)
	}

	name, id := "b", codec.UUID{9}
	st.learnTargetTopics(&codec.MetadataResponse{Topics: []codec.MetadataResponseTopic{{Name: &name, TopicId: id}, {Name: nil, TopicId: codec.UUID{8}}}})
	if got, ok := st.targetID("b"); !ok || got != id || st.targetName(id) != "b" || st.targetName(codec.UUID{8}) != "" {
		t.Errorf("learnt b → %v %v; %v → %q", got, ok, id, st.targetName(id))
	}
}

// TestRoutingKeys: the group and transactional id a request is routed by
// are its own fields with those roles, a nullable id included; those of
// the structs inside are not.
func TestRoutingKeys(t *testing.T) {
	var r *Replayer
	txn := "tx"
	if got := r.txnOf(&codec.ProduceRequest{TransactionalId: &txn}); got != "tx" {
		t.Errorf("Produce TransactionalId %q, want tx", got)
	}
	if got := r.txnOf(&codec.ProduceRequest{}); got != "" {
		t.Errorf("Produce without TransactionalId: %q", got)
	}
	if got := r.txnOf(&codec.EndTxnRequest{TransactionalId: "e"}); got != "e" {
		t.Errorf("EndTxn TransactionalId %q, want e", got)
	}
	if got := r.groupOf(&codec.SyncGroupRequest{GroupId: "g"}); got != "g" {
		t.Errorf("SyncGroup GroupId %q, want g", got)
	}
	if got := r.groupOf(&codec.OffsetFetchRequest{Groups: []codec.OffsetFetchRequestGroup{{GroupId: "inner"}}}); got != "" {
		t.Errorf("OffsetFetch v8 routed by a group inside: %q", got)
	}
}
