package codec

import (
	"cmp"
	"fmt"
	"slices"
)

// TransactionState is how the transaction of a transactional data batch
// ended, as the Fetch response that returned the batch tells it (KIP-98).
type TransactionState int8

const (
	// TxnNone: not a transactional data batch (a non-transactional batch,
	// a control batch, a legacy message), or not marked.
	TxnNone TransactionState = iota
	// TxnCommitted: a COMMIT marker of its producer follows it in the
	// response, or the response answers a read_committed Fetch and does
	// not list the batch's transaction as aborted (the broker returns
	// only decided transactions then: below the LastStableOffset).
	TxnCommitted
	// TxnAborted: its producer's aborted transaction listed in the
	// response's AbortedTransactions covers it (Kafka's consumer rule), or
	// an ABORT marker of its producer follows it in the response.
	TxnAborted
	// TxnUndecided: the response does not tell how its transaction ends:
	// no marker of its producer follows it and it is not listed aborted
	// (the transaction is open at the end of the response, or decided in
	// a part of the log not returned).
	TxnUndecided
)

// String returns "committed", "aborted", "undecided", or "" for TxnNone.
func (s TransactionState) String() string {
	switch s {
	case TxnCommitted:
		return "committed"
	case TxnAborted:
		return "aborted"
	case TxnUndecided:
		return "undecided"
	}
	return ""
}

// FetchTransactions is what MarkTransactions found in one records field
// of a Fetch response: complete records counted by batch, as
// RecordSet.Count counts them.
type FetchTransactions struct {
	Plain     int // records of non-transactional batches and legacy messages
	Committed int // records of data batches marked TxnCommitted
	Aborted   int // ... TxnAborted
	Undecided int // ... TxnUndecided
	Control   int // control records (transaction markers); never returned to a consumer
	// ReadCommitted is how many records a consumer at read_committed is
	// given: Plain and Committed. A consumer at read_uncommitted is given
	// every record but the control records.
	ReadCommitted int
	// Notes says where the response contradicts itself (a batch followed
	// by its producer's ABORT marker that AbortedTransactions does not
	// list, a read_committed answer past its LastStableOffset).
	Notes []string
	// NoteKinds holds the kind of each note: NoteKinds[i] is Notes[i]'s.
	NoteKinds []NoteKind
}

// note adds a note of kind.
func (ft *FetchTransactions) note(kind NoteKind, format string, args ...any) {
	ft.Notes = append(ft.Notes, fmt.Sprintf(format, args...))
	ft.NoteKinds = append(ft.NoteKinds, kind)
}

// MarkTransactions sets Transaction on every transactional data batch of
// set, one records field of a Fetch response partition, and counts the
// records by what a consumer makes of them. aborted is the partition's
// AbortedTransactions (nil when null), lastStable its LastStableOffset (-1
// when unknown), readCommitted whether the Fetch asked for read_committed
// (the request's IsolationLevel 1).
//
// The rules are those of Kafka's consumer (CompletedFetch in the Java
// client, which franz-go's kgo follows): the aborted transactions are
// taken in order of FirstOffset; before each batch with a producer id,
// those whose FirstOffset is at or before the batch's last offset make
// their producer aborted; an ABORT control batch of the producer ends
// that; a transactional data batch of an aborted producer is dropped, and
// control batches are never returned. A consumer at read_committed is
// given the rest. Beyond the consumer, which needs no more, a COMMIT or
// ABORT marker later in the same response decides the batches of its
// producer before it (TxnCommitted, TxnAborted), and batches that nothing
// decides are TxnUndecided, except in a read_committed answer below its
// LastStableOffset, where the broker vouches they are decided and the
// consumer takes them as committed.
//
// Batches with gaps whose header was not captured are left unmarked.
func MarkTransactions(set *RecordSet, aborted []FetchResponseAbortedTransaction, lastStable int64, readCommitted bool) FetchTransactions {
	return markTransactions(set, aborted, true, lastStable, readCommitted)
}

// MarkTransactionsListLost is MarkTransactions for a partition whose
// AbortedTransactions the capture did not hold whole (a hole in the
// list, while the records after it were captured); known are the entries
// that were captured. Each of them still aborts its producer's batches
// (an entry only ever adds aborted ones), but the lost ones may abort any
// other: no batch is taken as committed because a read_committed answer
// vouches for it, only the COMMIT and ABORT markers in the response decide
// the rest, and ReadCommitted counts only the records known to reach a
// read_committed consumer. A note says so.
func MarkTransactionsListLost(set *RecordSet, known []FetchResponseAbortedTransaction, readCommitted bool) FetchTransactions {
	ft := markTransactions(set, known, false, -1, readCommitted)
	if ft.Undecided > 0 {
		ft.note(NoteNotCaptured, "AbortedTransactions not captured whole: %d records of transactions neither its captured entries nor a marker in the response decide are left undecided", ft.Undecided)
	}
	return ft
}

func markTransactions(set *RecordSet, aborted []FetchResponseAbortedTransaction, listKnown bool, lastStable int64, readCommitted bool) FetchTransactions {
	var ft FetchTransactions
	if set == nil {
		return ft
	}
	queue := slices.Clone(aborted)
	slices.SortStableFunc(queue, func(a, b FetchResponseAbortedTransaction) int { return cmp.Compare(a.FirstOffset, b.FirstOffset) })
	active := map[int64]bool{}            // producers aborted by the list, as the consumer keeps them
	byList := map[*RecordBatch]bool{}     // batches the consumer drops by the list
	pending := map[int64][]*RecordBatch{} // data batches of each producer no marker has decided yet
	for _, e := range set.Entries {
		b := e.Batch
		if b == nil || !markable(b) {
			continue
		}
		last := b.BaseOffset + int64(b.LastOffsetDelta)
		if b.ProducerId >= 0 {
			for len(queue) > 0 && queue[0].FirstOffset <= last {
				active[queue[0].ProducerId] = true
				queue = queue[1:]
			}
		}
		switch {
		case b.IsControl():
			ct, ok := b.controlType()
			if !ok || ct != ControlAbort && ct != ControlCommit {
				continue
			}
			if ct == ControlAbort {
				delete(active, b.ProducerId)
			}
			for _, p := range pending[b.ProducerId] {
				switch {
				case byList[p]:
				case ct == ControlCommit:
					p.Transaction = TxnCommitted
				default:
					p.Transaction = TxnAborted
					if readCommitted {
						ft.note(NoteTransaction, "transactional batch at offset %d of producer %d is followed by its ABORT marker at offset %d, but AbortedTransactions does not list it: a read_committed consumer is given its records", p.BaseOffset, p.ProducerId, b.BaseOffset)
					}
				}
			}
			delete(pending, b.ProducerId)
		case !b.IsTransactional():
		case active[b.ProducerId]:
			b.Transaction = TxnAborted
			byList[b] = true
			pending[b.ProducerId] = append(pending[b.ProducerId], b)
		default:
			b.Transaction = TxnUndecided
			pending[b.ProducerId] = append(pending[b.ProducerId], b)
		}
	}
	// A read_committed answer is decided below its LastStableOffset
	// (committed unless the list aborts it: not without the list).
	for _, e := range set.Entries {
		b := e.Batch
		if b == nil || b.Transaction != TxnUndecided || !readCommitted || !listKnown {
			continue
		}
		if last := b.BaseOffset + int64(b.LastOffsetDelta); lastStable >= 0 && last >= lastStable {
			ft.note(NoteTransaction, "read_committed answer holds a transactional batch of producer %d at offsets %d-%d, at or past its LastStableOffset %d: a read_committed consumer is given its records undecided", b.ProducerId, b.BaseOffset, last, lastStable)
			continue
		}
		b.Transaction = TxnCommitted
	}
	for _, e := range set.Entries {
		n := e.count()
		b := e.Batch
		if b == nil {
			ft.Plain += n
			ft.ReadCommitted += n
			continue
		}
		if b.IsControl() && markable(b) {
			ft.Control += n
			continue
		}
		switch b.Transaction {
		case TxnNone:
			ft.Plain += n // unmarkable batches too: as the consumer would take them
		case TxnCommitted:
			ft.Committed += n
		case TxnAborted:
			ft.Aborted += n
		case TxnUndecided:
			ft.Undecided += n
		}
		// Kafka's consumer at read_committed drops what the list
		// aborts; of an answer to read_uncommitted, only what the
		// response shows committed would have reached it.
		if readCommitted && (listKnown && !byList[b] || !listKnown && (b.Transaction == TxnNone || b.Transaction == TxnCommitted)) ||
			!readCommitted && (b.Transaction == TxnNone || b.Transaction == TxnCommitted) {
			ft.ReadCommitted += n
		}
	}
	return ft
}

// markable reports whether the header fields the marking reads were
// captured.
func markable(b *RecordBatch) bool {
	return b.Captured("Attributes") && b.Captured("ProducerId") && b.Captured("LastOffsetDelta") && b.Captured("BaseOffset")
}

// controlType returns the type of a control batch's first record (a
// control batch holds one), as Kafka's consumer reads it.
func (b *RecordBatch) controlType() (ControlType, bool) {
	if len(b.Records) == 0 || b.Records[0].Control == nil {
		return 0, false
	}
	return b.Records[0].Control.Type, true
}
