package stats

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// collect reads a capture of port 9092 with the stats' decode options
// (records counted, not decoded) into a Collector.
func collect(t *testing.T, path string) *Report {
	t.Helper()
	d := dissect.New(dissect.Options{Ports: []uint16{9092}})
	dec := dissect.NewDecoder(dissect.DecodeOptions{Records: codec.RecordDecodeOptions{CountOnly: true}})
	c := New()
	if err := d.ReadFile(path, func(ex *dissect.Exchange) {
		dec.Decode(ex)
		c.Add(ex)
	}); err != nil {
		t.Fatal(err)
	}
	return c.Report()
}

// TestTransactionsFranz: the transactions view of franz_transactions.pcap,
// whose scenario (internal/franzclient -scenario transactions) is known:
// sessions a and c commit one transaction each (9 and 3 records, with
// their consumed offsets), producer b aborts 3 records then commits 3, d
// aborts 3; the read_committed consumer at the end fetches txn-out and is
// given the 15 committed records.
func TestTransactionsFranz(t *testing.T) {
	r := collect(t, "../../testdata/pcaps/franz_transactions.pcap").Transactions
	got := map[string]string{}
	for _, p := range r.Producers {
		if p.TransactionalId == nil {
			continue
		}
		got[*p.TransactionalId] = fmt.Sprintf("committed %d aborted %d failed %d open %d records %d inits %d", p.Committed, p.Aborted, p.Failed, p.Open, p.ProduceRecords, p.Inits)
	}
	want := map[string]string{
		"franz-txn-a": "committed 1 aborted 0 failed 0 open 0 records 9 inits 1",
		"franz-txn-b": "committed 1 aborted 1 failed 0 open 0 records 6 inits 1",
		"franz-txn-c": "committed 1 aborted 0 failed 0 open 0 records 3 inits 1",
		"franz-txn-d": "committed 0 aborted 1 failed 0 open 0 records 3 inits 1",
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: %s, want %s", id, got[id], w)
		}
	}
	var results []string
	for _, tx := range r.Transactions {
		results = append(results, fmt.Sprintf("%s:%s:%d", *tx.TransactionalId, tx.Result, tx.Records))
		if tx.EndTxnLatency < 0 {
			t.Errorf("transaction of %s without EndTxn latency", *tx.TransactionalId)
		}
	}
	if s := strings.Join(results, " "); s != "franz-txn-a:committed:9 franz-txn-b:aborted:3 franz-txn-b:committed:3 franz-txn-d:aborted:3 franz-txn-c:committed:3" {
		t.Errorf("transactions %s", s)
	}
	var committed, aborted, given, undecided int
	for _, f := range r.Fetched {
		if f.Topic != "txn-out" {
			t.Errorf("fetched transactional records of %s-%d", f.Topic, f.Partition)
		}
		committed += f.Committed
		aborted += f.Aborted
		given += f.ReadCommitted
		undecided += f.Undecided
	}
	if committed != 15 || aborted != 6 || given != 15 || undecided != 0 {
		t.Errorf("txn-out fetched: %d committed, %d aborted, %d undecided, %d given at read_committed; want 15, 6, 0, 15", committed, aborted, undecided, given)
	}
	if len(r.Sequences) != 0 {
		t.Errorf("sequence anomalies in a clean capture: %+v", r.Sequences[0])
	}
}

// TestTransactionsHandBuilt: a transaction fenced by a new InitProducerId
// of its transactional id; the fenced producer's EndTxn, refused
// PRODUCER_FENCED, tied to its own transaction, not to the new producer's,
// which is still open at the end; and the bounds on producers.
func TestTransactionsHandBuilt(t *testing.T) {
	c := New()
	id := "app-1"
	corr := int32(0)
	add := func(req, resp codec.Message, key int16) *dissect.Exchange {
		corr++
		ex := &dissect.Exchange{APIKey: key, CorrelationID: corr, Request: &dissect.Frame{}, Response: &dissect.Frame{},
			Decoded: &dissect.Decoded{Request: req, Response: resp}}
		if e, ok := resp.(*codec.EndTxnResponse); ok && e.ErrorCode != 0 {
			ex.Decoded.Errors = []codec.ErrorRef{{Code: e.ErrorCode, Partition: -1}}
		}
		c.Add(ex)
		return ex
	}
	init := func(pid int64, epoch int16) {
		add(&codec.InitProducerIdRequest{TransactionalId: &id}, &codec.InitProducerIdResponse{ProducerId: pid, ProducerEpoch: epoch}, 22)
	}
	addOffsets := func(epoch int16) {
		add(&codec.AddOffsetsToTxnRequest{TransactionalId: id, ProducerId: 5, ProducerEpoch: epoch, GroupId: "g"}, &codec.AddOffsetsToTxnResponse{}, 25)
	}
	init(5, 0)
	addOffsets(0)
	init(5, 1) // fences the open transaction
	addOffsets(1)
	add(&codec.EndTxnRequest{TransactionalId: id, ProducerId: 5, ProducerEpoch: 0, Committed: true}, &codec.EndTxnResponse{ErrorCode: 90}, 26)
	r := c.Report().Transactions
	var results []string
	for _, tx := range r.Transactions {
		results = append(results, fmt.Sprintf("%d:%s:%s", tx.ProducerEpoch, tx.Result, strings.Join(tx.Errors, ",")))
	}
	if s := strings.Join(results, " "); s != "0:aborted by InitProducerId:PRODUCER_FENCED 1:open:" {
		t.Errorf("transactions %s", s)
	}
	if len(r.Producers) != 1 {
		t.Fatalf("%d producers", len(r.Producers))
	}
	p := r.Producers[0]
	if p.Failed != 1 || p.Open != 1 || p.Epochs != 2 || p.ProducerEpoch != 1 || p.Errors["PRODUCER_FENCED"] != 1 {
		t.Errorf("producer row %+v", p)
	}

	// Beyond MaxProducers, producers are not tracked, and said so.
	c = New()
	for i := range MaxProducers + 3 {
		tid := fmt.Sprintf("t-%d", i)
		c.Add(&dissect.Exchange{APIKey: 22, Request: &dissect.Frame{}, Decoded: &dissect.Decoded{
			Request: &codec.InitProducerIdRequest{TransactionalId: &tid}, Response: &codec.InitProducerIdResponse{ProducerId: int64(i)}}})
	}
	if r := c.Report().Transactions; len(r.Producers) != MaxProducers || r.ProducersNotTracked != 3 {
		t.Errorf("%d producers, %d not tracked", len(r.Producers), r.ProducersNotTracked)
	}
}

// TestTransactionsSequences: the sequence anomalies the Decoder lists
// are counted per topic-partition and on their idempotent producer's row,
// with the error the broker answered.
func TestTransactionsSequences(t *testing.T) {
	c := New()
	c.Add(&dissect.Exchange{APIKey: 22, Request: &dissect.Frame{}, Decoded: &dissect.Decoded{
		Request: &codec.InitProducerIdRequest{}, Response: &codec.InitProducerIdResponse{ProducerId: 9}}})
	batch := &codec.RecordBatch{ProducerId: 9, BaseSequence: 7, RecordCount: 1}
	set := &codec.RecordSet{Entries: []codec.RecordEntry{{Batch: batch}}}
	for _, kind := range []dissect.SequenceKind{dissect.SequenceGap, dissect.SequenceDuplicate, dissect.SequenceGap} {
		c.Add(&dissect.Exchange{APIKey: 0, Request: &dissect.Frame{}, Decoded: &dissect.Decoded{
			Request:           &codec.ProduceRequest{},
			RecordSets:        []codec.RecordsRef{{Records: &codec.Records{Set: set}, Topic: "orders", Partition: 1}},
			Errors:            []codec.ErrorRef{{Code: 45, Topic: "orders", Partition: 1}},
			SequenceAnomalies: []dissect.SequenceAnomaly{{Topic: "orders", Partition: 1, ProducerId: 9, Kind: kind}},
		}})
	}
	r := c.Report().Transactions
	if len(r.Sequences) != 1 || r.Sequences[0].Gaps != 2 || r.Sequences[0].Duplicates != 1 {
		t.Fatalf("sequences %+v", r.Sequences)
	}
	if len(r.Producers) != 1 || r.Producers[0].Sequences[dissect.SequenceGap] != 2 || r.Producers[0].Errors["OUT_OF_ORDER_SEQUENCE_NUMBER"] != 3 {
		t.Errorf("producers %+v", r.Producers)
	}
}
