package dissect

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/codec"
)

// fetchTxnExchange returns a read_committed Fetch v11 exchange whose
// response lists producer 7's transaction (from offset 0) and producer
// 9's (from offset 100) as aborted and holds two transactional batches
// without markers: producer 7's at offsets 0-1, producer 8's at 2-4. The
// LastStableOffset is lastStable. holeAt(resp) gives the bytes of the
// response frame to lose (offset, length), or none.
func fetchTxnExchange(t *testing.T, lastStable int64, holeAt func(frame []byte) (int, int)) *Exchange {
	t.Helper()
	const version = 11
	batch := func(pid int64, base int64, n int) []byte {
		b := codec.RecordBatch{BaseOffset: base, Attributes: 0x10, LastOffsetDelta: int32(n - 1), // transactional
			BaseTimestamp: 1764460800000, MaxTimestamp: 1764460800000, ProducerId: pid, ProducerEpoch: 0, BaseSequence: 0}
		for i := range n {
			b.Records = append(b.Records, codec.Record{OffsetDelta: int32(i), Value: []byte("v")})
		}
		return b.AppendTo(nil)
	}
	raw := append(batch(7, 0, 2), batch(8, 2, 3)...)
	resp := &codec.FetchResponse{Responses: []codec.FetchResponseFetchableTopicResponse{{Topic: "orders",
		Partitions: []codec.FetchResponsePartitionData{{HighWatermark: 5, LastStableOffset: lastStable, PreferredReadReplica: -1,
			AbortedTransactions: []codec.FetchResponseAbortedTransaction{{ProducerId: 7, FirstOffset: 0}, {ProducerId: 9, FirstOffset: 100}},
			Records:             codec.Records{Raw: raw}}}}}}
	req := &codec.FetchRequest{ReplicaId: -1, MaxWaitMs: 500, MinBytes: 1, MaxBytes: 52428800, IsolationLevel: 1,
		Topics: []codec.FetchRequestFetchTopic{{Topic: "orders", Partitions: []codec.FetchRequestFetchPartition{{PartitionMaxBytes: 1048576}}}}}
	id := "cli"
	hdr := codec.RequestHeader{RequestApiKey: req.APIKey(), RequestApiVersion: version, CorrelationId: 3, ClientId: &id}
	reqFrame := req.AppendTo(hdr.AppendTo(nil, codec.RequestHeaderVersion(req.APIKey(), version)), version)
	rh := codec.ResponseHeader{CorrelationId: 3}
	respFrame := resp.AppendTo(rh.AppendTo(nil, codec.ResponseHeaderVersion(req.APIKey(), version)), version)
	ex := &Exchange{APIKey: req.APIKey(), APIVersion: version, CorrelationID: 3,
		Request:  &Frame{Bytes: reqFrame, Size: int32(len(reqFrame))},
		Response: &Frame{Bytes: respFrame, Size: int32(len(respFrame))}}
	if holeAt != nil {
		off, n := holeAt(respFrame)
		clear(respFrame[off : off+n])
		ex.Response.Holes = []Hole{{Offset: off, Length: n, Cause: HoleNotCaptured}}
	}
	NewDecoder(DecodeOptions{}).DecodeFrames(ex)
	if ex.Decoded == nil || ex.Decoded.Response == nil || len(ex.Decoded.Transactions) != 1 {
		t.Fatalf("Fetch response does not decode to one partition: %v", ex.Notes)
	}
	return ex
}

// index8 finds the big-endian int64s a then b in frame.
func index8(t *testing.T, frame []byte, a, b int64) int {
	t.Helper()
	want := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, uint64(a)), uint64(b))
	i := bytes.Index(frame, want)
	if i < 0 || bytes.Index(frame[i+1:], want) >= 0 {
		t.Fatalf("%x is not once in the frame", want)
	}
	return i
}

// TestFetchTransactionsListLost: with producer 7's aborted transaction
// listed, its batch is aborted and producer 8's committed (the broker
// vouches for a read_committed answer). When the capture lost an entry
// of AbortedTransactions (producer 9's) while the records after it were
// captured, the entry that was captured still aborts producer 7's batch,
// but producer 8's is not taken as committed (the lost entry might abort
// it): it is undecided, kept from the read_committed count, and a note
// says why. Reading the zeroed entry as data marked it committed.
func TestFetchTransactionsListLost(t *testing.T) {
	clean := fetchTxnExchange(t, 5, nil)
	ct := clean.Decoded.Transactions[0]
	if ct.States[0] != codec.TxnAborted || ct.States[2] != codec.TxnCommitted || clean.Decoded.RecordsAborted != 2 || ct.ReadCommitted != 3 {
		t.Fatalf("clean: states %v, %d aborted, %d to read_committed; want aborted, committed, 2, 3", ct.States, clean.Decoded.RecordsAborted, ct.ReadCommitted)
	}
	lost := fetchTxnExchange(t, 5, func(f []byte) (int, int) { return index8(t, f, 9, 100), 16 })
	if !strings.Contains(lost.Decoded.Response.(codec.Message).NotCaptured()[0].Path, "AbortedTransactions[1]") {
		t.Fatalf("the hole is not in AbortedTransactions[1]: %+v", lost.Decoded.Response.(codec.Message).NotCaptured())
	}
	lt := lost.Decoded.Transactions[0]
	if lost.Decoded.Records != 5 {
		t.Fatalf("%d records decoded after the hole, want 5", lost.Decoded.Records)
	}
	if lt.States[0] != codec.TxnAborted || lt.States[2] != codec.TxnUndecided || lost.Decoded.RecordsAborted != 2 || lt.Undecided != 3 || lt.ReadCommitted != 0 {
		t.Errorf("list lost: states %v, %d aborted, %d undecided, %d to read_committed; want aborted (by the captured entry), undecided, 2, 3, 0", lt.States, lost.Decoded.RecordsAborted, lt.Undecided, lt.ReadCommitted)
	}
	if !strings.Contains(strings.Join(NoteTexts(lost.Notes), "\n"), "AbortedTransactions not captured whole") {
		t.Errorf("no note says the list was lost: %q", lost.Notes)
	}
}

// TestFetchTransactionsLastStableLost: a LastStableOffset of 3 below
// producer 8's batch (offsets 2-4) is a contradiction the marking notes;
// when the capture lost the LastStableOffset, its zeroed bytes are not
// read as 0 (which would note a contradiction that is not there) and the
// list, captured, still decides.
func TestFetchTransactionsLastStableLost(t *testing.T) {
	past := fetchTxnExchange(t, 3, nil)
	if !strings.Contains(strings.Join(NoteTexts(past.Notes), "\n"), "LastStableOffset 3") {
		t.Fatalf("a batch past the LastStableOffset is not noted: %q", past.Notes)
	}
	lost := fetchTxnExchange(t, 5, func(f []byte) (int, int) { return index8(t, f, 5, 5) + 8, 8 }) // HighWatermark 5, LastStableOffset 5
	if nc := lost.Decoded.Response.(codec.Message).NotCaptured(); len(nc) != 1 || !strings.HasSuffix(nc[0].Path, "LastStableOffset") {
		t.Fatalf("the hole is not the LastStableOffset: %+v", nc)
	}
	lt := lost.Decoded.Transactions[0]
	if lt.States[0] != codec.TxnAborted || lt.States[2] != codec.TxnCommitted || strings.Contains(strings.Join(NoteTexts(lost.Notes), "\n"), "at or past its LastStableOffset") {
		t.Errorf("LastStableOffset lost: states %v, notes %q; want aborted, committed, no LastStableOffset note", lt.States, lost.Notes)
	}
}
