package dissect

import (
	"strings"
	"testing"

	"github.com/kdissect/kdissect/codec"
)

// seqBatch is one batch of a hand-built Produce request.
type seqBatch struct {
	partition int32
	pid       int64
	epoch     int16
	seq       int32
	n         int
}

func produceWith(batches ...seqBatch) *codec.ProduceRequest {
	p := new(codec.ProduceRequest)
	p.SetDefaults()
	p.Acks = -1
	t := codec.ProduceRequestTopicProduceData{Name: "orders"}
	for _, sb := range batches {
		b := codec.RecordBatch{ProducerId: sb.pid, ProducerEpoch: sb.epoch, BaseSequence: sb.seq, LastOffsetDelta: int32(sb.n - 1)}
		for i := range sb.n {
			b.Records = append(b.Records, codec.Record{OffsetDelta: int32(i), Value: []byte("v")})
		}
		t.PartitionData = append(t.PartitionData, codec.ProduceRequestPartitionProduceData{Index: sb.partition, Records: codec.Records{Raw: b.AppendTo(nil)}})
	}
	p.TopicData = []codec.ProduceRequestTopicProduceData{t}
	return p
}

// TestSequenceAnomalies: hand-built Produce requests of idempotent
// producers, in order; each request's anomalies as the Decoder finds
// them, and the notes that say them.
func TestSequenceAnomalies(t *testing.T) {
	steps := []struct {
		batches []seqBatch
		want    string // kinds, one per anomaly
		note    string // in a note, when want is not empty
	}{
		{[]seqBatch{{0, 7, 0, 0, 3}, {1, 7, 0, 0, 2}}, "", ""},
		{[]seqBatch{{0, 7, 0, 3, 2}, {1, 7, 0, 2, 1}}, "", ""},
		// Sent again: the last batch of partition 0.
		{[]seqBatch{{0, 7, 0, 3, 2}}, "duplicate", "idempotent producer 7 epoch 0 on orders-0: BaseSequence 3, expected 5: duplicate of a recent batch"},
		// Partition 1 expects 3: 5 and 6 skip two.
		{[]seqBatch{{1, 7, 0, 5, 2}}, "gap", "BaseSequence 5, expected 3: sequence gap, 3 to 4 not seen (the broker answers OUT_OF_ORDER_SEQUENCE_NUMBER)"},
		// Behind, not a recent batch's start.
		{[]seqBatch{{0, 7, 0, 1, 1}}, "behind", "BaseSequence 1, expected 5: behind"},
		// A new epoch starts at 0; another producer on the same
		// partition, and one without a producer id, are apart.
		{[]seqBatch{{0, 7, 1, 0, 1}, {0, 8, 0, 40, 1}, {0, -1, -1, -1, 1}}, "", ""},
		{[]seqBatch{{0, 7, 2, 4, 1}, {0, 8, 0, 41, 1}}, "new epoch", "first batch of a new epoch, not at sequence 0"},
	}
	d := NewDecoder(DecodeOptions{})
	for i, st := range steps {
		corr := int32(i + 1)
		ex := &Exchange{APIKey: 0, APIVersion: 9, CorrelationID: corr, Request: requestFrame(0, 9, corr, produceWith(st.batches...)),
			Response: responseFrame(0, 9, corr, func() codec.Message { r := new(codec.ProduceResponse); r.SetDefaults(); return r }())}
		d.Decode(ex)
		var kinds []string
		for _, a := range ex.Decoded.SequenceAnomalies {
			kinds = append(kinds, a.Kind.String())
		}
		if got := strings.Join(kinds, ","); got != st.want {
			t.Errorf("step %d: anomalies %q, want %q (notes %q)", i, got, st.want, ex.Notes)
		}
		if st.note != "" && !strings.Contains(strings.Join(NoteTexts(ex.Notes), "\n"), st.note) {
			t.Errorf("step %d: notes %q lack %q", i, ex.Notes, st.note)
		}
		if st.want == "" && len(ex.Notes) > 0 {
			t.Errorf("step %d: notes %q", i, ex.Notes)
		}
	}
	if d.SequencesUntracked() != 0 {
		t.Errorf("%d batches untracked", d.SequencesUntracked())
	}
}

// TestSequenceWrap: the sequence after MaxInt32 is 0, as Kafka counts.
func TestSequenceWrap(t *testing.T) {
	for _, c := range []struct{ seq, n, want int32 }{{0, 3, 3}, {2147483646, 1, 2147483647}, {2147483646, 2, 0}, {2147483647, 5, 4}} {
		if got := nextSequence(c.seq, c.n); got != c.want {
			t.Errorf("nextSequence(%d, %d) = %d, want %d", c.seq, c.n, got, c.want)
		}
	}
}
