package codec

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// txnLog builds the records field of a Fetch response partition, entry by
// entry.
type txnLog struct {
	raw  []byte
	next int64
}

// data appends a batch of n records of producer pid at the next offset,
// transactional or not.
func (l *txnLog) data(pid int64, txn bool, n int) *txnLog {
	b := RecordBatch{BaseOffset: l.next, LastOffsetDelta: int32(n - 1), ProducerId: pid, BaseSequence: -1,
		BaseTimestamp: 1700000000000, MaxTimestamp: 1700000000000}
	if pid >= 0 {
		b.BaseSequence = 0
	}
	if txn {
		b.Attributes |= batchTransactionalBit
	}
	for i := range n {
		b.Records = append(b.Records, Record{OffsetDelta: int32(i), Key: fmt.Appendf(nil, "p%d-o%d", pid, l.next+int64(i)), Value: []byte("v")})
	}
	l.raw = b.AppendTo(l.raw)
	l.next += int64(n)
	return l
}

// marker appends producer pid's COMMIT or ABORT control batch.
func (l *txnLog) marker(pid int64, t ControlType) *txnLog {
	b := RecordBatch{BaseOffset: l.next, ProducerId: pid, Attributes: batchTransactionalBit | batchControlBit,
		BaseTimestamp: 1700000000000, MaxTimestamp: 1700000000000,
		Records: []Record{{Key: []byte{0, 0, 0, byte(t)}, Value: []byte{0, 0, 0, 0, 0, 7}}}}
	l.raw = b.AppendTo(l.raw)
	l.next++
	return l
}

type abortedTxn = FetchResponseAbortedTransaction

// kgoReadCommitted is the offsets franz-go's consumer at read_committed
// returns of raw with that aborted list: the oracle.
func kgoReadCommitted(t *testing.T, raw []byte, aborted []abortedTxn, lastStable int64) []int64 {
	t.Helper()
	rp := kmsg.NewFetchResponseTopicPartition()
	rp.HighWatermark, rp.LastStableOffset, rp.RecordBatches = 1<<40, lastStable, raw
	for _, a := range aborted {
		at := kmsg.NewFetchResponseTopicPartitionAbortedTransaction()
		at.ProducerID, at.FirstOffset = a.ProducerId, a.FirstOffset
		rp.AbortedTransactions = append(rp.AbortedTransactions, at)
	}
	fp, _ := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{IsolationLevel: kgo.ReadCommitted(), Topic: "t"}, &rp, kgo.DefaultDecompressor(), nil)
	if fp.Err != nil {
		t.Fatalf("kgo: %v", fp.Err)
	}
	var offs []int64
	for _, r := range fp.Records {
		offs = append(offs, r.Offset)
	}
	return offs
}

// readCommittedOffsets is the offsets of the records MarkTransactions says
// a read_committed consumer is given: data batches not aborted by the
// list, which for an answer to read_committed are the plain and committed
// ones, and undecided ones only when a note says so.
func readCommittedOffsets(set *RecordSet) []int64 {
	var offs []int64
	for _, e := range set.Entries {
		b := e.Batch
		if b.IsControl() || b.Transaction == TxnAborted {
			continue
		}
		for _, r := range b.Records {
			offs = append(offs, r.Offset)
		}
	}
	return offs
}

// TestMarkTransactions: hand-built Fetch answers, marked, counted, and what
// a read_committed consumer is given measured against franz-go's own
// fetch processing (kgo.ProcessFetchPartition).
func TestMarkTransactions(t *testing.T) {
	type want struct {
		states                                                  string // per data batch: c committed, a aborted, u undecided, - none
		plain, committed, aborted, undecided, control, readComm int
		notes                                                   int
	}
	cases := []struct {
		name          string
		log           *txnLog
		aborted       []abortedTxn
		lastStable    int64
		readCommitted bool
		want          want
	}{
		{
			// The case: producer 77's batch and its ABORT marker.
			name: "aborted", log: new(txnLog).data(77, true, 2).marker(77, ControlAbort),
			aborted: []abortedTxn{{ProducerId: 77, FirstOffset: 0}}, lastStable: 3, readCommitted: true,
			want: want{states: "a", aborted: 2, control: 1},
		},
		{
			// Commits and aborts interleaved across producers, with a
			// plain batch between.
			name:       "interleaved",
			log:        new(txnLog).data(1, true, 2).data(2, true, 3).data(-1, false, 1).marker(1, ControlCommit).data(2, true, 1).marker(2, ControlAbort).data(3, true, 2).marker(3, ControlCommit),
			aborted:    []abortedTxn{{ProducerId: 2, FirstOffset: 2}},
			lastStable: 100, readCommitted: true,
			want: want{states: "ca-ac", plain: 1, committed: 4, aborted: 4, control: 3, readComm: 5},
		},
		{
			// Another producer's ABORT marker does not end producer 1's
			// aborted transaction; producer 1's own does, and its next
			// transaction is committed.
			name:    "other producer's marker",
			log:     new(txnLog).data(1, true, 1).marker(2, ControlAbort).data(1, true, 1).marker(1, ControlAbort).data(1, true, 2).marker(1, ControlCommit),
			aborted: []abortedTxn{{ProducerId: 1, FirstOffset: 0}, {ProducerId: 2, FirstOffset: 0}}, lastStable: 100, readCommitted: true,
			want: want{states: "aac", committed: 2, aborted: 2, control: 3, readComm: 2},
		},
		{
			// An aborted transaction listed from an offset after the
			// batch does not abort it.
			name:    "listed later",
			log:     new(txnLog).data(5, true, 2).marker(5, ControlCommit).data(5, true, 1).marker(5, ControlAbort),
			aborted: []abortedTxn{{ProducerId: 5, FirstOffset: 3}}, lastStable: 100, readCommitted: true,
			want: want{states: "ca", committed: 2, aborted: 1, control: 2, readComm: 2},
		},
		{
			// A read_committed answer below the LastStableOffset, the
			// markers beyond it: committed, as the consumer takes it.
			name:    "decided below LSO",
			log:     new(txnLog).data(4, true, 3),
			aborted: nil, lastStable: 10, readCommitted: true,
			want: want{states: "c", committed: 3, readComm: 3},
		},
		{
			// Open at the end of a read_uncommitted answer.
			name:    "open",
			log:     new(txnLog).data(-1, false, 1).data(9, true, 2).data(8, true, 1).marker(8, ControlCommit),
			aborted: nil, lastStable: 1, readCommitted: false,
			want: want{states: "-uc", plain: 1, committed: 1, undecided: 2, control: 1, readComm: 2},
		},
		{
			// read_uncommitted: no list; the ABORT marker decides.
			name:    "aborted by marker",
			log:     new(txnLog).data(6, true, 2).marker(6, ControlAbort).data(7, true, 1).marker(7, ControlCommit),
			aborted: nil, lastStable: 5, readCommitted: false,
			want: want{states: "ac", committed: 1, aborted: 2, control: 2, readComm: 1},
		},
		{
			// A read_committed answer whose list misses an aborted
			// transaction: marked aborted, but the consumer takes it,
			// and a note says so.
			name:    "list misses an abort",
			log:     new(txnLog).data(3, true, 2).marker(3, ControlAbort),
			aborted: nil, lastStable: 10, readCommitted: true,
			want: want{states: "a", aborted: 2, control: 1, readComm: 2, notes: 1},
		},
		{
			// A read_committed answer past its LastStableOffset.
			name:    "past LSO",
			log:     new(txnLog).data(3, true, 2),
			aborted: nil, lastStable: 1, readCommitted: true,
			want: want{states: "u", undecided: 2, readComm: 2, notes: 1},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, countOnly := range []bool{false, true} {
				set := DecodeRecordSet(tc.log.raw, RecordDecodeOptions{CountOnly: countOnly})
				if len(set.Notes) > 0 {
					t.Fatalf("decode notes: %v", set.Notes)
				}
				ft := MarkTransactions(set, tc.aborted, tc.lastStable, tc.readCommitted)
				var states []byte
				for _, e := range set.Entries {
					if e.Batch.IsControl() {
						if countOnly && e.Batch.RecordsCounted {
							t.Errorf("control batch at %d taken at its header when counting", e.Batch.BaseOffset)
						}
						continue
					}
					states = append(states, map[TransactionState]byte{TxnNone: '-', TxnCommitted: 'c', TxnAborted: 'a', TxnUndecided: 'u'}[e.Batch.Transaction])
				}
				got := want{string(states), ft.Plain, ft.Committed, ft.Aborted, ft.Undecided, ft.Control, ft.ReadCommitted, len(ft.Notes)}
				if got != tc.want {
					t.Errorf("countOnly %v: got %+v, want %+v (notes %q)", countOnly, got, tc.want, ft.Notes)
				}
				if !tc.readCommitted {
					continue
				}
				oracle := kgoReadCommitted(t, tc.log.raw, tc.aborted, tc.lastStable)
				if len(oracle) != ft.ReadCommitted {
					t.Errorf("countOnly %v: ReadCommitted %d, kgo returns %d records %v", countOnly, ft.ReadCommitted, len(oracle), oracle)
				}
				if countOnly {
					continue
				}
				var given []int64
				if tc.want.notes == 0 {
					given = readCommittedOffsets(set)
				} else {
					// Where the response contradicts itself, the
					// consumer follows the list alone.
					for _, e := range set.Entries {
						if !e.Batch.IsControl() {
							for _, r := range e.Batch.Records {
								given = append(given, r.Offset)
							}
						}
					}
				}
				if !slices.Equal(given, oracle) {
					t.Errorf("read_committed offsets %v, kgo returns %v", given, oracle)
				}
			}
		})
	}
}

// TestMarkTransactionsJSON: the marking is in the batch's JSON, and a
// batch not marked has no Transaction key.
func TestMarkTransactionsJSON(t *testing.T) {
	l := new(txnLog).data(-1, false, 1).data(77, true, 1).marker(77, ControlAbort)
	set := DecodeRecordSet(l.raw, RecordDecodeOptions{})
	MarkTransactions(set, []abortedTxn{{ProducerId: 77, FirstOffset: 0}}, 3, true)
	w := NewJSONWriter(nil)
	set.WriteJSON(w)
	js := string(w.Bytes())
	for _, want := range []string{`"RecordCount":1,"Transaction":"aborted","Records"`} {
		if !strings.Contains(js, want) {
			t.Errorf("JSON lacks %s:\n%s", want, js)
		}
	}
	if n := strings.Count(js, `"Transaction"`); n != 1 {
		t.Errorf("%d Transaction keys, want 1 (the plain batch and the marker have none):\n%s", n, js)
	}
}
