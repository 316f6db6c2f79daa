package dissect

import (
	"fmt"
	"strings"

	"github.com/kdissect/kdissect/codec"
)

// Isolation levels of a Fetch request (KIP-98), as Kafka names them.
const (
	IsolationUnknown         int8 = -1 // the request was not captured or is older than v4
	IsolationReadUncommitted int8 = 0
	IsolationReadCommitted   int8 = 1
)

// IsolationName returns "read_uncommitted", "read_committed" or "unknown".
func IsolationName(level int8) string {
	switch level {
	case IsolationReadUncommitted:
		return "read_uncommitted"
	case IsolationReadCommitted:
		return "read_committed"
	}
	return "unknown"
}

// PartitionTransactions is what one partition of a Fetch response returned,
// by transaction (codec.MarkTransactions): counts of complete records, the
// marking of each transactional batch by BaseOffset, and the isolation
// level the request asked (the marking reads the response as an answer to
// it).
type PartitionTransactions struct {
	Topic     string // resolved from the topic ID where known
	TopicID   codec.UUID
	Partition int32
	Isolation int8 // IsolationReadCommitted, IsolationReadUncommitted or IsolationUnknown
	codec.FetchTransactions
	// States holds the marking of each transactional data batch, by its
	// BaseOffset; nil when the partition returned none.
	States map[int64]codec.TransactionState
}

// markFetchTransactions marks the transactional batches of a Fetch
// response, fills dec.Transactions and dec.RecordsAborted, and notes
// where a response contradicts itself.
func markFetchTransactions(ex *Exchange, dec *Decoded, names map[codec.UUID]string) {
	resp, ok := dec.Response.(*codec.FetchResponse)
	if !ok || ex.APIKey != codec.ApiKeyFetch {
		return
	}
	isolation := IsolationUnknown
	if req, ok := dec.Request.(*codec.FetchRequest); ok && ex.APIVersion >= 4 {
		isolation = req.IsolationLevel
	}
	nc := resp.NotCaptured()
	for i := range resp.Responses {
		t := &resp.Responses[i]
		topic := t.Topic
		if topic == "" && !t.TopicId.IsZero() {
			topic = names[t.TopicId]
		}
		for j := range t.Partitions {
			p := &t.Partitions[j]
			set := p.Records.Set
			if set == nil {
				continue
			}
			// Without the request, a list of aborted transactions says
			// the broker answered read_committed (it sends none
			// otherwise).
			readCommitted := isolation == IsolationReadCommitted || isolation == IsolationUnknown && p.AbortedTransactions != nil
			lastStable := p.LastStableOffset
			at := fmt.Sprintf("Responses[%d].Partitions[%d].", i, j)
			if ex.APIVersion < 4 || notCaptured(nc, at+"LastStableOffset") {
				lastStable = -1 // unknown: no contradiction with it is noted
			}
			var ft codec.FetchTransactions
			if notCaptured(nc, at+"AbortedTransactions") {
				var known []codec.FetchResponseAbortedTransaction
				for k, a := range p.AbortedTransactions {
					if !notCaptured(nc, fmt.Sprintf("%sAbortedTransactions[%d]", at, k)) {
						known = append(known, a)
					}
				}
				ft = codec.MarkTransactionsListLost(set, known, readCommitted)
			} else {
				ft = codec.MarkTransactions(set, p.AbortedTransactions, lastStable, readCommitted)
			}
			pt := PartitionTransactions{Topic: topic, TopicID: t.TopicId, Partition: p.PartitionIndex, Isolation: isolation, FetchTransactions: ft}
			for _, e := range set.Entries {
				if b := e.Batch; b != nil && b.Transaction != codec.TxnNone {
					if pt.States == nil {
						pt.States = map[int64]codec.TransactionState{}
					}
					pt.States[b.BaseOffset] = b.Transaction
				}
			}
			dec.RecordsAborted += ft.Aborted
			dec.Transactions = append(dec.Transactions, pt)
			for i, n := range ft.Notes {
				ex.AddNote(recordNoteKind(ft.NoteKinds[i]), fmt.Sprintf("records of %s: %s", recordsWhere(codec.RecordsRef{Topic: topic, TopicID: t.TopicId, Partition: p.PartitionIndex}), n))
			}
		}
	}
}

// notCaptured reports whether the field at path (or a part of it: an
// entry of a list, a field of an entry) fell in a hole.
func notCaptured(nc []codec.NotCaptured, path string) bool {
	for _, n := range nc {
		if n.Path == path || strings.HasPrefix(n.Path, path) && (n.Path[len(path)] == '[' || n.Path[len(path)] == '.') {
			return true
		}
	}
	return false
}
