package render

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/output/stats"
)

// txnIDText is a producer's transactional id quoted, or "(none)".
func txnIDText(id *string) string {
	if id == nil {
		return "(none)"
	}
	return strconv.Quote(*id)
}

// sortedErrors is "NAME ×N" per error, by name.
func sortedErrors(m map[string]int64) string {
	var parts []string
	for name, n := range m {
		parts = append(parts, fmt.Sprintf("%s ×%d", name, n))
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

// writeTransactionsTables writes the transactions view: producers, the
// transactions one by one, the records Fetch responses returned by
// transaction, and idempotent producers' sequence anomalies; nothing when
// the capture shows none.
func writeTransactionsTables(w io.Writer, r *stats.TransactionsReport) error {
	if r.Empty() {
		return nil
	}
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	var rows [][]string
	for _, p := range r.Producers {
		lat := []string{"-", "-"}
		if h := &p.EndTxnLatency; h.Count() > 0 {
			lat = []string{usLatency(h.Percentile(50)), usLatency(h.Max())}
		}
		var seq []string
		for _, k := range []dissect.SequenceKind{dissect.SequenceGap, dissect.SequenceDuplicate, dissect.SequenceBehind, dissect.SequenceNewEpoch} {
			if n := p.Sequences[k]; n > 0 {
				seq = append(seq, fmt.Sprintf("%s ×%d", k, n))
			}
		}
		rows = append(rows, append([]string{sanitize(txnIDText(p.TransactionalId)), i64(p.ProducerId), strconv.Itoa(int(p.ProducerEpoch)), i64(p.Inits),
			i64(p.Committed), i64(p.Aborted), i64(p.Failed), i64(p.Open), i64(p.ProduceBatches), i64(p.ProduceRecords)},
			append(lat, strings.Join(seq, ", "), sortedErrors(p.Errors))...))
	}
	title := "Transactions by producer"
	if r.ProducersNotTracked > 0 {
		title += fmt.Sprintf(" (%d requests of producers beyond the first %d not counted)", r.ProducersNotTracked, stats.MaxProducers)
	}
	if err := statsTable(w, title, []string{"transactional id", "producer id", "epoch", "inits", "committed", "aborted", "failed", "open",
		"batches", "records", "EndTxn p50", "EndTxn max", "sequences", "errors"}, rows); err != nil {
		return err
	}

	rows = rows[:0]
	for i, tx := range r.Transactions {
		parts := strings.Join(tx.Partitions, " ")
		if tx.MorePartitions > 0 {
			parts += fmt.Sprintf(" and %d more", tx.MorePartitions)
		}
		lat := "-"
		if tx.EndTxnLatency >= 0 {
			lat = formatLatency(tx.EndTxnLatency)
		}
		rows = append(rows, []string{strconv.Itoa(i + 1), sanitize(txnIDText(tx.TransactionalId)), fmt.Sprintf("%d/%d", tx.ProducerId, tx.ProducerEpoch),
			tx.Start.UTC().Format(tsFormat), sanitize(parts), sanitize(strings.Join(tx.Groups, " ")), i64(tx.Batches), i64(tx.Records), i64(tx.OffsetCommits),
			tx.Result, lat, strings.Join(tx.Errors, ", ")})
	}
	title = "Transactions"
	if r.TransactionsNotListed > 0 {
		title += fmt.Sprintf(" (the first %d; %d more counted by producer above)", stats.MaxTransactionsListed, r.TransactionsNotListed)
	}
	if err := statsTable(w, title, []string{"#", "transactional id", "producer/epoch", "start", "partitions", "groups", "batches", "records",
		"offset commits", "end", "EndTxn latency", "errors"}, rows); err != nil {
		return err
	}

	rows = rows[:0]
	for _, f := range r.Fetched {
		rows = append(rows, []string{sanitize(f.Topic), strconv.Itoa(int(f.Partition)), strconv.Itoa(f.Plain), strconv.Itoa(f.Committed),
			strconv.Itoa(f.Aborted), strconv.Itoa(f.Undecided), strconv.Itoa(f.Control), strconv.Itoa(f.ReadCommitted)})
	}
	if err := statsTable(w, "Fetched records by transaction", []string{"topic", "partition", "not transactional", "committed", "aborted",
		"undecided", "control", "read_committed given"}, rows); err != nil {
		return err
	}

	rows = rows[:0]
	for _, s := range r.Sequences {
		rows = append(rows, []string{sanitize(s.Topic), strconv.Itoa(int(s.Partition)), i64(s.Gaps), i64(s.Duplicates), i64(s.Behind), i64(s.NewEpochOff)})
	}
	return statsTable(w, "Idempotent producers' sequences (Produce batches out of order)", []string{"topic", "partition", "gaps", "duplicates",
		"behind", "new epoch not at 0"}, rows)
}

// The JSON form of the transactions view ("transactions" in the stats
// object); latencies in microseconds, times RFC 3339.
type transactionsJSON struct {
	Producers             []producerTxnsJSON `json:"producers"`
	Transactions          []transactionJSON  `json:"transactions"`
	TransactionsNotListed int64              `json:"transactions_not_listed"`
	ProducersNotTracked   int64              `json:"producers_not_tracked"`
	Fetched               []fetchedTxnJSON   `json:"fetched"`
	Sequences             []sequenceJSON     `json:"sequences"`
}

type producerTxnsJSON struct {
	TransactionalId *string          `json:"transactional_id"`
	ProducerId      int64            `json:"producer_id"`
	ProducerEpoch   int16            `json:"producer_epoch"`
	Epochs          int64            `json:"epochs"`
	Inits           int64            `json:"inits"`
	Committed       int64            `json:"committed"`
	Aborted         int64            `json:"aborted"`
	Failed          int64            `json:"failed"`
	Open            int64            `json:"open"`
	ProduceBatches  int64            `json:"produce_batches"`
	ProduceRecords  int64            `json:"produce_records"`
	EndTxnLatency   latencyJSON      `json:"end_txn_latency_us"`
	Sequences       map[string]int64 `json:"sequences"`
	Errors          map[string]int64 `json:"errors"`
}

type transactionJSON struct {
	TransactionalId *string  `json:"transactional_id"`
	ProducerId      int64    `json:"producer_id"`
	ProducerEpoch   int16    `json:"producer_epoch"`
	Start           string   `json:"start"`
	End             *string  `json:"end"`
	Partitions      []string `json:"partitions"`
	MorePartitions  int      `json:"more_partitions"`
	Groups          []string `json:"groups"`
	Batches         int64    `json:"batches"`
	Records         int64    `json:"records"`
	OffsetCommits   int64    `json:"offset_commits"`
	Result          string   `json:"result"`
	EndTxnLatencyUs *int64   `json:"end_txn_latency_us"`
	Errors          []string `json:"errors"`
}

type fetchedTxnJSON struct {
	Topic         string `json:"topic"`
	Partition     int32  `json:"partition"`
	Plain         int    `json:"not_transactional"`
	Committed     int    `json:"committed"`
	Aborted       int    `json:"aborted"`
	Undecided     int    `json:"undecided"`
	Control       int    `json:"control"`
	ReadCommitted int    `json:"read_committed"`
}

type sequenceJSON struct {
	Topic       string `json:"topic"`
	Partition   int32  `json:"partition"`
	Gaps        int64  `json:"gaps"`
	Duplicates  int64  `json:"duplicates"`
	Behind      int64  `json:"behind"`
	NewEpochOff int64  `json:"new_epoch_not_at_0"`
}

func toTransactionsJSON(r *stats.TransactionsReport) transactionsJSON {
	out := transactionsJSON{Producers: []producerTxnsJSON{}, Transactions: []transactionJSON{}, Fetched: []fetchedTxnJSON{}, Sequences: []sequenceJSON{}}
	if r == nil {
		return out
	}
	out.TransactionsNotListed, out.ProducersNotTracked = r.TransactionsNotListed, r.ProducersNotTracked
	for _, p := range r.Producers {
		pj := producerTxnsJSON{TransactionalId: p.TransactionalId, ProducerId: p.ProducerId, ProducerEpoch: p.ProducerEpoch, Epochs: p.Epochs, Inits: p.Inits,
			Committed: p.Committed, Aborted: p.Aborted, Failed: p.Failed, Open: p.Open, ProduceBatches: p.ProduceBatches, ProduceRecords: p.ProduceRecords,
			EndTxnLatency: toTrafficJSON(&stats.Traffic{Latency: p.EndTxnLatency}, false).Latency, Sequences: map[string]int64{}, Errors: p.Errors}
		for k, n := range p.Sequences {
			pj.Sequences[k.String()] = n
		}
		out.Producers = append(out.Producers, pj)
	}
	for _, tx := range r.Transactions {
		tj := transactionJSON{TransactionalId: tx.TransactionalId, ProducerId: tx.ProducerId, ProducerEpoch: tx.ProducerEpoch,
			Start: tx.Start.UTC().Format(tsFormat), Partitions: tx.Partitions, MorePartitions: tx.MorePartitions, Groups: tx.Groups,
			Batches: tx.Batches, Records: tx.Records, OffsetCommits: tx.OffsetCommits, Result: tx.Result, Errors: tx.Errors}
		if !tx.End.IsZero() {
			e := tx.End.UTC().Format(tsFormat)
			tj.End = &e
		}
		if tx.EndTxnLatency >= 0 {
			us := tx.EndTxnLatency.Microseconds()
			tj.EndTxnLatencyUs = &us
		}
		if tj.Partitions == nil {
			tj.Partitions = []string{}
		}
		if tj.Groups == nil {
			tj.Groups = []string{}
		}
		if tj.Errors == nil {
			tj.Errors = []string{}
		}
		out.Transactions = append(out.Transactions, tj)
	}
	for _, f := range r.Fetched {
		out.Fetched = append(out.Fetched, fetchedTxnJSON{f.Topic, f.Partition, f.Plain, f.Committed, f.Aborted, f.Undecided, f.Control, f.ReadCommitted})
	}
	for _, s := range r.Sequences {
		out.Sequences = append(out.Sequences, sequenceJSON{s.Topic, s.Partition, s.Gaps, s.Duplicates, s.Behind, s.NewEpochOff})
	}
	return out
}
