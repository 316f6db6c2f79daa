package dissect

import (
	"fmt"
	"math"

	"github.com/kdissect/kdissect/codec"
)

// MaxSequenceStreams is the most (producer id, topic-partition) pairs
// whose sequences a Decoder follows; the batches of pairs beyond it are not
// checked (Decoder.SequencesUntracked counts them), so memory stays bounded
// on a capture of many producers.
const MaxSequenceStreams = 10000

// sequenceWindow is how many of the last batches of a pair are kept to
// tell a batch sent again: Kafka's broker keeps five per producer and
// partition (ProducerStateEntry.NUM_BATCHES_TO_RETAIN), the most
// in-flight requests an idempotent producer may have.
const sequenceWindow = 5

// SequenceKind is what is wrong with a batch's BaseSequence.
type SequenceKind int8

const (
	// SequenceGap: the BaseSequence is past the one expected; the broker
	// answers such a batch OUT_OF_ORDER_SEQUENCE_NUMBER.
	SequenceGap SequenceKind = iota + 1
	// SequenceDuplicate: one of the last batches of the producer to the
	// partition started at the same BaseSequence: it is sent again (a
	// retry), which the broker acknowledges without appending
	// (DUPLICATE_SEQUENCE_NUMBER before KIP-360).
	SequenceDuplicate
	// SequenceBehind: before the one expected, and no recent batch
	// started there.
	SequenceBehind
	// SequenceNewEpoch: a new epoch whose first batch does not start at 0.
	SequenceNewEpoch
)

// String names the kind: "gap", "duplicate", "behind", "new epoch".
func (k SequenceKind) String() string {
	switch k {
	case SequenceGap:
		return "gap"
	case SequenceDuplicate:
		return "duplicate"
	case SequenceBehind:
		return "behind"
	case SequenceNewEpoch:
		return "new epoch"
	}
	return "?"
}

// SequenceAnomaly is a Produce batch of an idempotent producer whose
// BaseSequence does not follow the batches the capture showed before
// (KIP-98 idempotence: per producer id, epoch and partition, each batch
// starts at the sequence after the last one's last record).
type SequenceAnomaly struct {
	Topic         string
	Partition     int32
	ProducerId    int64
	ProducerEpoch int16
	BaseSequence  int32
	Expected      int32 // the sequence after the previous batch's last
	Kind          SequenceKind
}

// seqKey is one idempotent stream: a producer id to a topic-partition.
type seqKey struct {
	pid       int64
	topic     string
	partition int32
}

type seqState struct {
	epoch int16
	next  int32                 // expected BaseSequence
	last  [sequenceWindow]int32 // base sequences of the last batches, round robin
	n     int                   // batches seen
}

// sequences follows idempotent producers' sequences across exchanges.
type sequences struct {
	streams   map[seqKey]*seqState
	untracked int64
}

// nextSequence is seq advanced by n, wrapping past MaxInt32 to 0 as
// Kafka's DefaultRecordBatch.incrementSequence does.
func nextSequence(seq, n int32) int32 {
	if seq > math.MaxInt32-n {
		return n - (math.MaxInt32 - seq) - 1
	}
	return seq + n
}

// check follows the batches of a Produce request and notes those whose
// sequence does not follow.
func (s *sequences) check(ex *Exchange, dec *Decoded) {
	if ex.APIKey != codec.ApiKeyProduce || dec.Request == nil {
		return
	}
	if s.streams == nil {
		s.streams = map[seqKey]*seqState{}
	}
	for _, rr := range dec.RecordSets {
		if rr.Records.Set == nil {
			continue
		}
		for _, e := range rr.Records.Set.Entries {
			b := e.Batch
			if b == nil || b.ProducerId < 0 || b.BaseSequence < 0 || b.Gaps != nil || b.RecordCount <= 0 {
				continue
			}
			k := seqKey{b.ProducerId, rr.Topic, rr.Partition}
			st := s.streams[k]
			if st == nil {
				if len(s.streams) >= MaxSequenceStreams {
					s.untracked++
					continue
				}
				st = &seqState{epoch: b.ProducerEpoch, next: b.BaseSequence}
				s.streams[k] = st
			}
			kind := st.judge(b)
			if kind != 0 {
				a := SequenceAnomaly{Topic: rr.Topic, Partition: rr.Partition, ProducerId: b.ProducerId, ProducerEpoch: b.ProducerEpoch,
					BaseSequence: b.BaseSequence, Expected: st.next, Kind: kind}
				if kind == SequenceNewEpoch {
					a.Expected = 0
				}
				dec.SequenceAnomalies = append(dec.SequenceAnomalies, a)
				ex.AddNote(NoteSequence, a.note(recordsWhere(rr)))
			}
			if kind != SequenceDuplicate {
				if b.ProducerEpoch != st.epoch {
					st.epoch, st.n = b.ProducerEpoch, 0
				}
				st.next = nextSequence(b.BaseSequence, b.RecordCount)
			}
			st.last[st.n%sequenceWindow] = b.BaseSequence
			st.n++
		}
	}
}

// judge says what is wrong with b's sequence, 0 when nothing.
func (st *seqState) judge(b *codec.RecordBatch) SequenceKind {
	switch {
	case b.ProducerEpoch != st.epoch:
		if b.BaseSequence != 0 {
			return SequenceNewEpoch
		}
		return 0
	case b.BaseSequence == st.next:
		return 0
	}
	for i := range min(st.n, sequenceWindow) {
		if st.last[i] == b.BaseSequence {
			return SequenceDuplicate
		}
	}
	if b.BaseSequence > st.next {
		return SequenceGap
	}
	return SequenceBehind
}

// note says it for the exchange.
func (a SequenceAnomaly) note(where string) string {
	head := fmt.Sprintf("idempotent producer %d epoch %d on %s: BaseSequence %d", a.ProducerId, a.ProducerEpoch, where, a.BaseSequence)
	switch a.Kind {
	case SequenceGap:
		return fmt.Sprintf("%s, expected %d: sequence gap, %d to %d not seen (the broker answers OUT_OF_ORDER_SEQUENCE_NUMBER)", head, a.Expected, a.Expected, a.BaseSequence-1)
	case SequenceDuplicate:
		return fmt.Sprintf("%s, expected %d: duplicate of a recent batch (sent again)", head, a.Expected)
	case SequenceBehind:
		return fmt.Sprintf("%s, expected %d: behind, and no recent batch started there", head, a.Expected)
	}
	return head + ": first batch of a new epoch, not at sequence 0"
}
