package stats

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// TestTransactionsAddPartitionsV4Lost: an AddPartitionsToTxn v4 request
// (a broker verifying two transactions) whose second transaction's
// ProducerId and ProducerEpoch fell in a hole opens that transaction with
// the producer id and epoch unknown (-1), not the zeros in the hole, and
// still adds its captured partitions; the first is untouched.
func TestTransactionsAddPartitionsV4Lost(t *testing.T) {
	const version = 4
	req := &codec.AddPartitionsToTxnRequest{Transactions: []codec.AddPartitionsToTxnRequestAddPartitionsToTxnTransaction{
		{TransactionalId: "app-1", ProducerId: 4000, ProducerEpoch: 3, Topics: []codec.AddPartitionsToTxnRequestAddPartitionsToTxnTopic{{Name: "orders", Partitions: []int32{0}}}},
		{TransactionalId: "app-2", ProducerId: 5000, ProducerEpoch: 7, Topics: []codec.AddPartitionsToTxnRequestAddPartitionsToTxnTopic{{Name: "payments", Partitions: []int32{1, 2}}}},
	}}
	id := "broker-1"
	hdr := codec.RequestHeader{RequestApiKey: req.APIKey(), RequestApiVersion: version, CorrelationId: 1, ClientId: &id}
	frame := req.AppendTo(hdr.AppendTo(nil, codec.RequestHeaderVersion(req.APIKey(), version)), version)
	pidAt := bytes.Index(frame, binary.BigEndian.AppendUint64(nil, 5000))
	if pidAt < 0 {
		t.Fatal("ProducerId 5000 not in the frame")
	}
	clear(frame[pidAt : pidAt+10]) // ProducerId and ProducerEpoch
	ex := &dissect.Exchange{APIKey: req.APIKey(), APIVersion: version, CorrelationID: 1,
		Request: &dissect.Frame{Bytes: frame, Size: int32(len(frame)), Holes: []dissect.Hole{{Offset: pidAt, Length: 10, Cause: dissect.HoleNotCaptured}}}}
	dissect.NewDecoder(dissect.DecodeOptions{}).DecodeFrames(ex)
	if ex.Decoded == nil || ex.Decoded.Request == nil {
		t.Fatalf("the request does not decode: %v", ex.Notes)
	}
	c := New()
	c.Add(ex)
	got := map[string]*Transaction{}
	for _, tx := range c.Report().Transactions.Transactions {
		got[*tx.TransactionalId] = tx
	}
	if tx := got["app-1"]; tx == nil || tx.ProducerId != 4000 || tx.ProducerEpoch != 3 || len(tx.Partitions) != 1 {
		t.Errorf("app-1: %+v, want producer 4000/3 and orders-0", tx)
	}
	if tx := got["app-2"]; tx == nil || tx.ProducerId != -1 || tx.ProducerEpoch != -1 || len(tx.Partitions) != 2 {
		t.Errorf("app-2: %+v, want producer -1/-1 (not captured) and payments-1, payments-2", tx)
	}
}
