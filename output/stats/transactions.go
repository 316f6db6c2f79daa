package stats

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// Bounds of the transactions view: producers (rows of the producers
// table, and producer ids remembered for their transactional id), the
// transactions listed one by one (the first ones; the others are counted
// in their producer's row and in TransactionsNotListed), and the
// topic-partitions one transaction lists.
const (
	MaxProducers          = 10000
	MaxTransactionsListed = 1000
	maxTxnPartitions      = 64
)

// ProducerTxns is one producer's row: a transactional id, or a producer
// id without one (an idempotent producer, or a transactional one whose
// InitProducerId the capture lacks).
type ProducerTxns struct {
	TransactionalId *string // nil: known by ProducerId only
	ProducerId      int64   // the latest seen, -1 when none
	ProducerEpoch   int16
	Epochs          int64 // distinct epochs InitProducerId gave (epoch bumps, fencing)
	Inits           int64 // InitProducerId exchanges
	// Transactions by how they ended: EndTxn COMMIT or ABORT answered
	// without error; Failed, ended by an error that fences the producer
	// (PRODUCER_FENCED, INVALID_PRODUCER_EPOCH) or aborted by the
	// coordinator when InitProducerId came while it was open; Open, still
	// open at the end of the capture.
	Committed, Aborted, Failed, Open int64
	ProduceBatches, ProduceRecords   int64 // transactional batches in Produce requests
	EndTxnLatency                    Histogram
	Errors                           map[string]int64 // error names in the responses of its requests
	Sequences                        map[dissect.SequenceKind]int64
}

// Transaction is one transaction as the capture shows it: from the first
// request that adds to it (AddPartitionsToTxn, AddOffsetsToTxn,
// TxnOffsetCommit or a transactional Produce batch) to its EndTxn.
type Transaction struct {
	TransactionalId *string
	ProducerId      int64
	ProducerEpoch   int16
	Start, End      time.Time // End zero while open
	Partitions      []string  // "topic-partition", at most maxTxnPartitions
	MorePartitions  int       // beyond those
	Groups          []string  // consumer groups of AddOffsetsToTxn and TxnOffsetCommit
	Batches         int64     // transactional Produce batches
	Records         int64
	OffsetCommits   int64 // TxnOffsetCommit requests
	// Result is "committed", "aborted", "open" (at the end of the
	// capture), "failed: ERROR" (EndTxn or a request refused by a fencing
	// error) or "aborted by InitProducerId" (the coordinator ends a
	// transaction open when its producer starts again), or EndNotCaptured
	// (counted as none of these).
	Result        string
	EndTxnLatency time.Duration // -1 without an EndTxn answered
	Errors        []string      // error names its requests were answered with
}

// FetchedTransactions counts, per topic-partition, the records Fetch
// responses returned by what a consumer makes of them
// (codec.MarkTransactions).
type FetchedTransactions struct {
	Topic     string
	Partition int32
	codec.FetchTransactions
}

// SequenceStats counts the sequence anomalies of idempotent producers'
// batches per topic-partition (dissect.SequenceAnomaly).
type SequenceStats struct {
	Topic                                 string
	Partition                             int32
	Gaps, Duplicates, Behind, NewEpochOff int64
}

// TransactionsReport is the transactions view.
type TransactionsReport struct {
	Producers             []*ProducerTxns // by transactional id, then producer id
	Transactions          []*Transaction  // in order of start, at most MaxTransactionsListed
	TransactionsNotListed int64
	ProducersNotTracked   int64                  // requests of producers beyond MaxProducers, not counted
	Fetched               []*FetchedTransactions // by topic, partition
	Sequences             []*SequenceStats       // by topic, partition
}

// Empty reports whether the capture showed nothing of transactions,
// transactional or control batches, or sequence anomalies.
func (r *TransactionsReport) Empty() bool {
	return r == nil || len(r.Producers) == 0 && len(r.Fetched) == 0 && len(r.Sequences) == 0
}

// transactions follows producers across exchanges, in capture order.
type transactions struct {
	producers map[string]*producerState // by transactional id, or "pid:N"
	byPid     map[int64]string          // producer id → key in producers
	listed    []*Transaction
	notListed int64
	untracked int64
	fetched   map[tpKey]*FetchedTransactions
	seqs      map[tpKey]*SequenceStats
}

type producerState struct {
	row      *ProducerTxns
	cur      *Transaction // open, nil when none
	last     *Transaction // the last one ended
	maxEpoch int16        // the newest epoch the coordinator gave
	epochs   map[int16]bool
}

func producerKey(txnID *string, pid int64) string {
	if txnID != nil {
		return *txnID
	}
	return fmt.Sprintf("pid:%d", pid)
}

// producer returns the state of the producer with txnID (nil: known by
// pid only), making it; nil beyond MaxProducers.
func (t *transactions) producer(txnID *string, pid int64) *producerState {
	if txnID == nil && pid >= 0 {
		if k, ok := t.byPid[pid]; ok {
			return t.producers[k]
		}
	}
	k := producerKey(txnID, pid)
	p := t.producers[k]
	if p == nil {
		if len(t.producers) >= MaxProducers {
			t.untracked++
			return nil
		}
		row := &ProducerTxns{ProducerId: pid, ProducerEpoch: -1, Errors: map[string]int64{}, Sequences: map[dissect.SequenceKind]int64{}}
		if txnID != nil {
			id := *txnID
			row.TransactionalId = &id
		}
		p = &producerState{row: row, epochs: map[int16]bool{}}
		t.producers[k] = p
	}
	if pid >= 0 && len(t.byPid) < MaxProducers {
		t.byPid[pid] = k
	}
	return p
}

// open returns the transaction a request of p at epoch belongs to: the
// open one, or one begun at time at. A request at an epoch older than
// the coordinator's newest is a fenced producer's: it belongs to its last
// transaction of that epoch, if any (nil otherwise), never to the newer
// producer's.
func (t *transactions) open(p *producerState, pid int64, epoch int16, at time.Time) *Transaction {
	if epoch >= 0 && epoch < p.maxEpoch {
		switch {
		case p.cur != nil && p.cur.ProducerEpoch == epoch:
			return p.cur
		case p.last != nil && p.last.ProducerEpoch == epoch:
			return p.last
		}
		return nil
	}
	if p.cur == nil {
		p.cur = &Transaction{TransactionalId: p.row.TransactionalId, ProducerId: pid, ProducerEpoch: epoch, Start: at, EndTxnLatency: -1}
		if len(t.listed) < MaxTransactionsListed {
			t.listed = append(t.listed, p.cur)
		} else {
			t.notListed++
		}
	}
	return p.cur
}

// EndNotCaptured is the Result of a transaction whose EndTxn was answered
// but whose Committed field the capture does not hold (a snap length cut
// the request): it ended, committed or aborted.
const EndNotCaptured = "ended (Committed not captured)"

// lost says which of fields, the first top-level fields of m in wire
// order, the capture did not hold: m's NotCaptured names them, or a field
// where the structure was lost comes at or before them. Their values are
// the decoder's defaults (0, false, ""), not the wire's, and must not be
// taken for what the client sent. nil when m was captured whole.
func lost(m codec.Message, fields ...string) map[string]bool {
	nc := m.NotCaptured()
	if len(nc) == 0 {
		return nil
	}
	l := map[string]bool{}
	for _, n := range nc {
		top, _, _ := strings.Cut(n.Path, ".")
		top, _, _ = strings.Cut(top, "[")
		i := slices.Index(fields, top)
		switch {
		case i < 0:
			// A later field (fields are a prefix of the message's).
		case n.Stop:
			for _, f := range fields[i:] {
				l[f] = true
			}
		default:
			l[top] = true
		}
	}
	return l
}

// lostEntry is lost for the fields of entry i of the list named list, a
// top-level field of m: fields are the entry's first fields in wire
// order. A structure lost in an earlier entry loses them all.
func lostEntry(m codec.Message, list string, i int, fields ...string) map[string]bool {
	nc := m.NotCaptured()
	if len(nc) == 0 {
		return nil
	}
	l := map[string]bool{}
	for _, n := range nc {
		rest, ok := strings.CutPrefix(n.Path, list+"[")
		if !ok {
			continue // another field: one lost before the list leaves it empty
		}
		idx, after, ok := strings.Cut(rest, "]")
		k, err := strconv.Atoi(idx)
		if !ok || err != nil {
			continue
		}
		field, _, _ := strings.Cut(strings.TrimPrefix(after, "."), ".")
		field, _, _ = strings.Cut(field, "[")
		j := slices.Index(fields, field)
		switch {
		case k < i && n.Stop:
			j = 0
		case k != i || j < 0:
			continue
		case !n.Stop:
			l[field] = true
			continue
		}
		for _, f := range fields[j:] {
			l[f] = true
		}
	}
	return l
}

// capturedID returns a request's ProducerId and ProducerEpoch, -1 for
// those the capture does not hold (lost).
func capturedID(l map[string]bool, pid int64, epoch int16) (int64, int16) {
	if l["ProducerId"] {
		pid = -1
	}
	if l["ProducerEpoch"] {
		epoch = -1
	}
	return pid, epoch
}

// openCaptured opens (or finds) the transaction a request names, reading
// of its TransactionalId, ProducerId and ProducerEpoch only what the
// capture holds (l, from lost or lostEntry, by those names). nil, nil when
// the capture does not say whose it is, or its producer is not tracked.
func (t *transactions) openCaptured(l map[string]bool, id string, pid int64, epoch int16, at time.Time) (*producerState, *Transaction) {
	if l["TransactionalId"] {
		return nil, nil
	}
	pid, epoch = capturedID(l, pid, epoch)
	p := t.producer(&id, pid)
	if p == nil {
		return nil, nil
	}
	return p, t.open(p, pid, epoch, at)
}

// end closes p's open transaction with result.
func (p *producerState) end(result string, at time.Time) {
	tx := p.cur
	if tx == nil {
		return
	}
	tx.Result, tx.End = result, at
	p.last = tx
	switch result {
	case "committed":
		p.row.Committed++
	case "aborted":
		p.row.Aborted++
	case EndNotCaptured:
	default:
		p.row.Failed++
	}
	p.cur = nil
}

func (tx *Transaction) addPartition(topic string, partition int32) {
	if tx == nil {
		return
	}
	s := fmt.Sprintf("%s-%d", topic, partition)
	if slices.Contains(tx.Partitions, s) {
		return
	}
	if len(tx.Partitions) >= maxTxnPartitions {
		tx.MorePartitions++
		return
	}
	tx.Partitions = append(tx.Partitions, s)
}

func (tx *Transaction) addGroup(g string) {
	if tx != nil && !slices.Contains(tx.Groups, g) && len(tx.Groups) < maxTxnPartitions {
		tx.Groups = append(tx.Groups, g)
	}
}

// fencing reports the errors after which a producer's transaction cannot
// go on: the coordinator has a newer epoch.
func fencing(code int16) bool {
	return code == errProducerFenced || code == errInvalidProducerEpoch
}

// Kafka's error codes the view treats apart.
const (
	errInvalidProducerEpoch int16 = 47
	errProducerFenced       int16 = 90
)

// errorsTo ties the errors of ex's response to p and, when not nil, to
// its transaction tx; it reports the first fencing error, 0 when none.
func errorsTo(p *producerState, tx *Transaction, dec *dissect.Decoded) (fenced int16) {
	for _, e := range dec.Errors {
		name := codec.ErrorName(e.Code)
		p.row.Errors[name]++
		if tx != nil && !slices.Contains(tx.Errors, name) {
			tx.Errors = append(tx.Errors, name)
		}
		if fenced == 0 && fencing(e.Code) {
			fenced = e.Code
		}
	}
	return fenced
}

// add follows one decoded exchange.
func (t *transactions) add(ex *dissect.Exchange) {
	dec := ex.Decoded
	if dec == nil || ex.SASLToken {
		return
	}
	if t.producers == nil {
		t.producers, t.byPid = map[string]*producerState{}, map[int64]string{}
		t.fetched, t.seqs = map[tpKey]*FetchedTransactions{}, map[tpKey]*SequenceStats{}
	}
	at := time.Time{}
	if ex.Request != nil {
		at = ex.Request.Time
	}
	t.addFetched(dec)
	t.addSequences(dec)
	switch req := dec.Request.(type) {
	case *codec.InitProducerIdRequest:
		resp, _ := dec.Response.(*codec.InitProducerIdResponse)
		pid := int64(-1)
		if resp != nil && resp.ErrorCode == 0 {
			pid = resp.ProducerId
		}
		if req.TransactionalId == nil && pid < 0 {
			return // an idempotent producer refused: nothing to tie it to
		}
		p := t.producer(req.TransactionalId, pid)
		if p == nil {
			return
		}
		p.row.Inits++
		if p.cur != nil && resp != nil && resp.ErrorCode == 0 {
			// The coordinator aborts a transaction still open
			// when its producer starts again (epoch bump).
			p.end("aborted by InitProducerId", at)
		}
		errorsTo(p, p.cur, dec)
		if pid >= 0 {
			p.maxEpoch = max(p.maxEpoch, resp.ProducerEpoch)
			p.row.ProducerId, p.row.ProducerEpoch = pid, resp.ProducerEpoch
			if !p.epochs[resp.ProducerEpoch] {
				p.epochs[resp.ProducerEpoch] = true
				p.row.Epochs++
			}
		}
	case *codec.AddPartitionsToTxnRequest:
		if ex.APIVersion < 4 {
			l := map[string]bool{} // by the names of v4's fields
			for f, v := range lost(req, "V3AndBelowTransactionalId", "V3AndBelowProducerId", "V3AndBelowProducerEpoch", "V3AndBelowTopics") {
				l[strings.TrimPrefix(f, "V3AndBelow")] = v
			}
			p, tx := t.openCaptured(l, req.V3AndBelowTransactionalId, req.V3AndBelowProducerId, req.V3AndBelowProducerEpoch, at)
			if p == nil {
				return
			}
			for _, tp := range req.V3AndBelowTopics { // those captured
				for _, part := range tp.Partitions {
					tx.addPartition(tp.Name, part)
				}
			}
			t.fenced(p, tx, errorsTo(p, tx, dec), at)
			return
		}
		for i, r := range req.Transactions { // v4+: brokers verifying, several transactions
			l := lostEntry(req, "Transactions", i, "TransactionalId", "ProducerId", "ProducerEpoch", "VerifyOnly", "Topics")
			p, tx := t.openCaptured(l, r.TransactionalId, r.ProducerId, r.ProducerEpoch, at)
			if p == nil {
				continue // whose it is, the capture does not say, or not tracked
			}
			for _, tp := range r.Topics {
				for _, part := range tp.Partitions {
					tx.addPartition(tp.Name, part)
				}
			}
		}
	case *codec.AddOffsetsToTxnRequest:
		l := lost(req, "TransactionalId", "ProducerId", "ProducerEpoch", "GroupId")
		p, tx := t.openCaptured(l, req.TransactionalId, req.ProducerId, req.ProducerEpoch, at)
		if p == nil {
			return // whose it is, the capture does not say, or not tracked
		}
		if !l["GroupId"] {
			tx.addGroup(req.GroupId)
		}
		t.fenced(p, tx, errorsTo(p, tx, dec), at)
	case *codec.TxnOffsetCommitRequest:
		l := lost(req, "TransactionalId", "GroupId", "ProducerId", "ProducerEpoch")
		p, tx := t.openCaptured(l, req.TransactionalId, req.ProducerId, req.ProducerEpoch, at)
		if p == nil {
			return // whose it is, the capture does not say, or not tracked
		}
		if !l["GroupId"] {
			tx.addGroup(req.GroupId)
		}
		if tx != nil {
			tx.OffsetCommits++
		}
		t.fenced(p, tx, errorsTo(p, tx, dec), at)
	case *codec.EndTxnRequest:
		l := lost(req, "TransactionalId", "ProducerId", "ProducerEpoch", "Committed")
		p, tx := t.openCaptured(l, req.TransactionalId, req.ProducerId, req.ProducerEpoch, at) // begun before the capture, or empty
		if p == nil {
			return // whose it is, the capture does not say, or not tracked
		}
		resp, _ := dec.Response.(*codec.EndTxnResponse)
		if resp == nil {
			return // no answer: still open
		}
		fenced := errorsTo(p, tx, dec)
		if ex.APIVersion >= 5 && resp.ErrorCode == 0 && resp.ProducerEpoch >= 0 {
			// KIP-890: the coordinator bumps the epoch at each end.
			p.row.ProducerEpoch = resp.ProducerEpoch
			p.maxEpoch = max(p.maxEpoch, resp.ProducerEpoch)
		}
		if lat, ok := ex.Latency(); ok {
			if tx != nil {
				tx.EndTxnLatency = lat
			}
			p.row.EndTxnLatency.Add(lat.Microseconds())
		}
		switch {
		case tx == nil || tx != p.cur:
			// A fenced producer's: its transaction has ended.
		case resp.ErrorCode == 0 && l["Committed"]:
			p.end(EndNotCaptured, at) // the snap length cut it: not a false
		case resp.ErrorCode == 0 && req.Committed:
			p.end("committed", at)
		case resp.ErrorCode == 0:
			p.end("aborted", at)
		case fenced != 0:
			t.fenced(p, tx, fenced, at)
		}
		// Other errors (CONCURRENT_TRANSACTIONS, ...) are retried:
		// the transaction stays open.
	case *codec.ProduceRequest:
		t.addProduce(ex, req, dec, at)
	}
}

// fenced ends p's open transaction tx when code is a fencing error.
func (t *transactions) fenced(p *producerState, tx *Transaction, code int16, at time.Time) {
	if code != 0 && tx != nil && tx == p.cur {
		p.end("failed: "+codec.ErrorName(code), at)
	}
}

// addProduce counts the transactional batches of a Produce request in
// their producer's transaction, and ties the response's errors to the
// producers of the request's batches.
func (t *transactions) addProduce(ex *dissect.Exchange, req *codec.ProduceRequest, dec *dissect.Decoded, at time.Time) {
	var seen []*producerState
	txOf := map[*producerState]*Transaction{}
	for _, rr := range dec.RecordSets {
		if rr.Records.Set == nil {
			continue
		}
		for _, e := range rr.Records.Set.Entries {
			b := e.Batch
			if b == nil || b.ProducerId < 0 || b.Gaps != nil {
				continue
			}
			var txnID *string
			if b.IsTransactional() {
				txnID = req.TransactionalId
			}
			p := t.producer(txnID, b.ProducerId)
			if p == nil {
				continue
			}
			if !slices.Contains(seen, p) {
				seen = append(seen, p)
			}
			if !b.IsTransactional() {
				continue
			}
			tx := t.open(p, b.ProducerId, b.ProducerEpoch, at)
			if tx == nil {
				continue
			}
			txOf[p] = tx
			n := int64(b.RecordCount)
			tx.Batches++
			tx.Records += n
			tx.addPartition(rr.Topic, rr.Partition)
			p.row.ProduceBatches++
			p.row.ProduceRecords += n
		}
	}
	for _, p := range seen {
		tx := txOf[p]
		t.fenced(p, tx, errorsTo(p, tx, dec), at)
	}
	for _, a := range dec.SequenceAnomalies {
		if k, ok := t.byPid[a.ProducerId]; ok {
			t.producers[k].row.Sequences[a.Kind]++
		}
	}
}

// addFetched counts a Fetch response's records by transaction.
func (t *transactions) addFetched(dec *dissect.Decoded) {
	for _, pt := range dec.Transactions {
		k := tpKey{TopicName(pt.Topic, pt.TopicID), pt.Partition}
		f := t.fetched[k]
		if f == nil {
			if len(t.fetched) >= MaxRows {
				k = tpKey{Other, -1}
			}
			if f = t.fetched[k]; f == nil {
				f = &FetchedTransactions{Topic: k.topic, Partition: k.partition}
				t.fetched[k] = f
			}
		}
		f.Plain += pt.Plain
		f.Committed += pt.Committed
		f.Aborted += pt.Aborted
		f.Undecided += pt.Undecided
		f.Control += pt.Control
		f.ReadCommitted += pt.ReadCommitted
	}
}

// addSequences counts a Produce request's sequence anomalies.
func (t *transactions) addSequences(dec *dissect.Decoded) {
	for _, a := range dec.SequenceAnomalies {
		k := tpKey{a.Topic, a.Partition}
		s := t.seqs[k]
		if s == nil {
			if len(t.seqs) >= MaxRows {
				k = tpKey{Other, -1}
			}
			if s = t.seqs[k]; s == nil {
				s = &SequenceStats{Topic: k.topic, Partition: k.partition}
				t.seqs[k] = s
			}
		}
		switch a.Kind {
		case dissect.SequenceGap:
			s.Gaps++
		case dissect.SequenceDuplicate:
			s.Duplicates++
		case dissect.SequenceBehind:
			s.Behind++
		case dissect.SequenceNewEpoch:
			s.NewEpochOff++
		}
	}
}

// report returns the view so far; transactions still open are reported
// open (their producer's Open counts them).
func (t *transactions) report() *TransactionsReport {
	r := &TransactionsReport{Transactions: t.listed, TransactionsNotListed: t.notListed, ProducersNotTracked: t.untracked}
	for _, p := range t.producers {
		p.row.Open = 0
		if p.cur != nil {
			p.row.Open = 1
			p.cur.Result = "open"
		}
		r.Producers = append(r.Producers, p.row)
	}
	slices.SortFunc(r.Producers, func(a, b *ProducerTxns) int {
		return cmp.Or(cmp.Compare(idOrEmpty(a.TransactionalId), idOrEmpty(b.TransactionalId)), cmp.Compare(a.ProducerId, b.ProducerId))
	})
	for _, f := range t.fetched {
		if f.Committed+f.Aborted+f.Undecided+f.Control > 0 {
			r.Fetched = append(r.Fetched, f)
		}
	}
	slices.SortFunc(r.Fetched, func(a, b *FetchedTransactions) int {
		return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
	})
	for _, s := range t.seqs {
		r.Sequences = append(r.Sequences, s)
	}
	slices.SortFunc(r.Sequences, func(a, b *SequenceStats) int {
		return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
	})
	return r
}

func idOrEmpty(s *string) string {
	if s == nil {
		return "\uffff" // known by producer id only: last
	}
	return *s
}
