//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// txnTopic is the topic of TestLiveTransactions, two partitions.
const txnTopic = "txn-live"

// txnScenario is what TestLiveTransactions made franz-go do, and what its
// consumers returned.
type txnScenario struct {
	committed, aborted map[string]bool // values by fate
	// Per consumer, what franz-go returned: "partition/offset" → value.
	readCommitted, readUncommitted map[string]string
	fenceErr                       error // the fenced producer's EndTxn
}

// runTxnScenario drives the cluster at addr with franz-go: a plain
// (idempotent) producer; two transactional producers whose commits and
// aborts interleave; a producer fenced by a new one with its
// transactional id; then a consumer at read_committed and one at
// read_uncommitted, each reading the topic from the start until it has
// every record it is to get.
func runTxnScenario(t *testing.T, addr string) *txnScenario {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangCap)
	defer cancel()
	s := &txnScenario{committed: map[string]bool{}, aborted: map[string]bool{}}
	client := func(id string, opts ...kgo.Opt) *kgo.Client {
		t.Helper()
		opts = append([]kgo.Opt{kgo.SeedBrokers(addr), kgo.ClientID(id), kgo.DefaultProduceTopic(txnTopic),
			kgo.RecordPartitioner(kgo.ManualPartitioner())}, opts...)
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cl.Close)
		return cl
	}
	records := func(prefix string, n int) []*kgo.Record {
		var rs []*kgo.Record
		for i := range n {
			rs = append(rs, &kgo.Record{Partition: int32(i % 2), Value: fmt.Appendf(nil, "%s-%d", prefix, i)})
		}
		return rs
	}
	produce := func(cl *kgo.Client, prefix string, n int) []string {
		t.Helper()
		rs := records(prefix, n)
		if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
			t.Fatalf("produce %s: %v", prefix, err)
		}
		var vs []string
		for _, r := range rs {
			vs = append(vs, string(r.Value))
		}
		return vs
	}
	begin := func(cl *kgo.Client) {
		t.Helper()
		if err := cl.BeginTransaction(); err != nil {
			t.Fatalf("begin: %v", err)
		}
	}
	end := func(cl *kgo.Client, commit bool, vs []string) {
		t.Helper()
		try := kgo.TryAbort
		if commit {
			try = kgo.TryCommit
		}
		if err := cl.EndTransaction(ctx, try); err != nil {
			t.Fatalf("end (commit %v): %v", commit, err)
		}
		for _, v := range vs {
			if commit {
				s.committed[v] = true
			} else {
				s.aborted[v] = true
			}
		}
	}

	plain := client("txn-live-plain")
	for _, v := range produce(plain, "plain", 2) {
		s.committed[v] = true
	}
	plain.Close()

	txnOpts := []kgo.Opt{kgo.TransactionTimeout(10 * time.Second)}
	a := client("txn-live-a", append(txnOpts, kgo.TransactionalID("txn-live-a"))...)
	b := client("txn-live-b", append(txnOpts, kgo.TransactionalID("txn-live-b"))...)
	begin(a)
	a1 := produce(a, "a1", 3)
	begin(b)
	b1 := produce(b, "b1", 2)
	end(a, true, a1)
	end(b, false, b1)
	begin(a)
	end(a, false, produce(a, "a2", 2))
	begin(b)
	end(b, true, produce(b, "b2", 3))
	b.Close()

	// Fencing: a second client with a's transactional id bumps the
	// epoch while a's transaction is open; the coordinator aborts it and
	// a's EndTxn is refused.
	begin(a)
	a3 := produce(a, "a3", 1)
	a2 := client("txn-live-a2", append(txnOpts, kgo.TransactionalID("txn-live-a"))...)
	begin(a2)
	a4 := produce(a2, "a4", 2)
	s.fenceErr = a.EndTransaction(ctx, kgo.TryCommit)
	if s.fenceErr == nil {
		t.Fatal("the fenced producer committed")
	}
	for _, v := range a3 {
		s.aborted[v] = true
	}
	a.Close()
	end(a2, true, a4)
	a2.Close()

	consume := func(id string, committed bool, want int) map[string]string {
		t.Helper()
		iso := kgo.ReadUncommitted()
		if committed {
			iso = kgo.ReadCommitted()
		}
		cl := client(id, kgo.ConsumeTopics(txnTopic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(iso))
		got := map[string]string{}
		for len(got) < want && ctx.Err() == nil {
			fs := cl.PollFetches(ctx)
			fs.EachError(func(topic string, p int32, err error) {
				if ctx.Err() == nil {
					t.Errorf("%s: fetch %s[%d]: %v", id, topic, p, err)
				}
			})
			fs.EachRecord(func(r *kgo.Record) { got[fmt.Sprintf("%d/%d", r.Partition, r.Offset)] = string(r.Value) })
		}
		if len(got) != want {
			t.Fatalf("%s: consumed %d records, want %d: %v", id, len(got), want, got)
		}
		cl.Close()
		return got
	}
	s.readCommitted = consume("txn-live-rc", true, len(s.committed))
	s.readUncommitted = consume("txn-live-ru", false, len(s.committed)+len(s.aborted))
	return s
}

// fetchView is what kdissect's JSON says of one consumer's Fetch
// responses: "partition/offset" → value of the records a read_committed
// consumer is given (non-control batches not marked aborted or
// undecided), of all non-control records, and of those marked aborted.
type fetchView struct {
	readCommitted, all, aborted map[string]string
	recordsAborted              int // the exchanges' records_aborted, summed
	isolation                   map[float64]bool
}

func viewFetches(t *testing.T, exs []jsonExchange, raw []map[string]any, clientID string) fetchView {
	t.Helper()
	v := fetchView{readCommitted: map[string]string{}, all: map[string]string{}, aborted: map[string]string{}, isolation: map[float64]bool{}}
	for i, ex := range exs {
		if ex.API != "Fetch" || ex.ClientID == nil || *ex.ClientID != clientID {
			continue
		}
		for _, n := range ex.Notes {
			if strings.Contains(n, "read_committed") {
				t.Errorf("%s Fetch: %s", clientID, n)
			}
		}
		var req struct{ IsolationLevel float64 }
		if err := json.Unmarshal(ex.Request, &req); err == nil {
			v.isolation[req.IsolationLevel] = true
		}
		v.recordsAborted += int(raw[i]["records_aborted"].(float64))
		var resp struct {
			Responses []struct {
				Partitions []struct {
					PartitionIndex int
					Records        []struct {
						IsControl   bool
						Transaction string
						Records     []struct {
							Offset int64
							Value  json.RawMessage // control records' values are base64 objects
						}
					}
				}
			}
		}
		if err := json.Unmarshal(ex.Response, &resp); err != nil {
			t.Fatalf("Fetch response: %v", err)
		}
		for _, tr := range resp.Responses {
			for _, p := range tr.Partitions {
				for _, b := range p.Records {
					if b.IsControl {
						continue
					}
					for _, r := range b.Records {
						var value string
						if err := json.Unmarshal(r.Value, &value); err != nil {
							t.Fatalf("record value %s: %v", r.Value, err)
						}
						k := fmt.Sprintf("%d/%d", p.PartitionIndex, r.Offset)
						v.all[k] = value
						switch b.Transaction {
						case "aborted":
							v.aborted[k] = value
						case "", "committed":
							v.readCommitted[k] = value
						}
					}
				}
			}
		}
	}
	return v
}

func valueSet(m map[string]string) map[string]bool {
	s := map[string]bool{}
	for _, v := range m {
		s[v] = true
	}
	return s
}

// TestLiveTransactions captures franz-go's transactional traffic against
// kfake on lo and checks that what kdissect says a read_committed
// consumer is given equals what franz-go's read_committed consumer
// returned in the same run (record by record: partition, offset, value),
// that a read_uncommitted consumer is given every data record, that the
// records marked aborted are those of the aborted transactions, and what
// the stats' transactions view says of the producers.
func TestLiveTransactions(t *testing.T) {
	needLiveCapture(t)
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, txnTopic))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	addr := c.ListenAddrs()[0]
	port := addr[strings.LastIndexByte(addr, ':')+1:]
	pcap := filepath.Join(t.TempDir(), "txn.pcap")
	run := startLive(t, "live", "-i", "lo", "-p", port, "--format", "json", "-w", pcap)
	s := runTxnScenario(t, addr)
	if err := run.wait(t, true); err != nil {
		t.Fatalf("kdissect live: %v\n%s", err, run.stderr)
	}
	t.Logf("fenced producer's EndTxn: %v", s.fenceErr)

	code, out, errs := runCLI(t, "read", "-p", port, "--format", "json", pcap)
	if code != 0 {
		t.Fatalf("read: exit %d: %s", code, errs)
	}
	exs := parseExchanges(t, out)
	var raw []map[string]any
	for line := range strings.Lines(out) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		raw = append(raw, m)
	}

	rc := viewFetches(t, exs, raw, "txn-live-rc")
	if !maps.Equal(rc.readCommitted, s.readCommitted) {
		t.Errorf("kdissect: a read_committed consumer is given\n%v\nfranz-go's read_committed consumer returned\n%v", rc.readCommitted, s.readCommitted)
	}
	if got := valueSet(rc.readCommitted); !maps.Equal(got, s.committed) {
		t.Errorf("read_committed values %v, committed %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(s.committed)))
	}
	if got := valueSet(rc.aborted); !maps.Equal(got, s.aborted) {
		t.Errorf("read_committed fetches: marked aborted %v, aborted %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(s.aborted)))
	}
	if rc.recordsAborted < len(s.aborted) {
		t.Errorf("read_committed fetches: records_aborted %d, fewer than the %d aborted", rc.recordsAborted, len(s.aborted))
	}
	if !maps.Equal(rc.isolation, map[float64]bool{1: true}) {
		t.Errorf("read_committed consumer's IsolationLevel: %v", rc.isolation)
	}

	ru := viewFetches(t, exs, raw, "txn-live-ru")
	if !maps.Equal(ru.all, s.readUncommitted) {
		t.Errorf("kdissect: a read_uncommitted consumer is given\n%v\nfranz-go's read_uncommitted consumer returned\n%v", ru.all, s.readUncommitted)
	}
	// At read_uncommitted the broker sends no aborted transactions: the
	// markers decide.
	if got := valueSet(ru.aborted); !maps.Equal(got, s.aborted) {
		t.Errorf("read_uncommitted fetches: marked aborted %v, aborted %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(s.aborted)))
	}
	if !maps.Equal(ru.isolation, map[float64]bool{0: true}) {
		t.Errorf("read_uncommitted consumer's IsolationLevel: %v", ru.isolation)
	}
	t.Logf("%d exchanges; read_committed: %d records given, %d marked aborted; read_uncommitted: %d given",
		len(exs), len(rc.readCommitted), len(rc.aborted), len(ru.all))

	// The transactions view of the same capture.
	code, out, errs = runCLI(t, "stats", "-p", port, "--format", "json", pcap)
	if code != 0 {
		t.Fatalf("stats: exit %d: %s", code, errs)
	}
	var st struct {
		Transactions struct {
			Producers    []map[string]any `json:"producers"`
			Transactions []struct {
				TransactionalId *string  `json:"transactional_id"`
				Result          string   `json:"result"`
				Records         int      `json:"records"`
				Errors          []string `json:"errors"`
			} `json:"transactions"`
			Fetched []map[string]any `json:"fetched"`
		} `json:"transactions"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	byID := map[string]string{}
	for _, p := range st.Transactions.Producers {
		if id, ok := p["transactional_id"].(string); ok {
			byID[id] = fmt.Sprintf("committed %v aborted %v failed %v open %v", p["committed"], p["aborted"], p["failed"], p["open"])
		}
	}
	for id, want := range map[string]string{
		"txn-live-a": "committed 2 aborted 1 failed 1 open 0", // a1 and a4 (the new producer) committed, a2 aborted, a3 ended by the fencing
		"txn-live-b": "committed 1 aborted 1 failed 0 open 0",
	} {
		if byID[id] != want {
			t.Errorf("producer %s: %s, want %s", id, byID[id], want)
		}
	}
	var results []string
	for _, tx := range st.Transactions.Transactions {
		results = append(results, fmt.Sprintf("%s %s %d [%s]", *tx.TransactionalId, tx.Result, tx.Records, strings.Join(tx.Errors, ",")))
	}
	want := []string{
		"txn-live-a committed 3 []", "txn-live-b aborted 2 []", "txn-live-a aborted 2 []", "txn-live-b committed 3 []",
		"txn-live-a aborted by InitProducerId 1 [PRODUCER_FENCED]", "txn-live-a committed 2 []",
	}
	if !slices.Equal(results, want) {
		t.Errorf("transactions\n%s\nwant\n%s", strings.Join(results, "\n"), strings.Join(want, "\n"))
	}
	fetched := map[string]float64{}
	for _, f := range st.Transactions.Fetched {
		for _, k := range []string{"committed", "aborted", "undecided"} {
			fetched[k] += f[k].(float64)
		}
	}
	if fetched["aborted"] == 0 || fetched["committed"] == 0 || fetched["undecided"] != 0 {
		t.Errorf("fetched by transaction: %v", fetched)
	}
}
