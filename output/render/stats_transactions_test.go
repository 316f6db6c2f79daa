package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/output/stats"
)

// txnReport is the stats of franz_transactions.pcap, read as kdissect
// stats reads it (records counted, not decoded).
func txnReport(t *testing.T) *stats.Report {
	t.Helper()
	d := dissect.New(dissect.Options{Ports: []uint16{9092}})
	dec := dissect.NewDecoder(dissect.DecodeOptions{Records: codec.RecordDecodeOptions{CountOnly: true}})
	c := stats.New()
	if err := d.ReadFile("../../testdata/pcaps/franz_transactions.pcap", func(ex *dissect.Exchange) {
		dec.Decode(ex)
		c.Add(ex)
	}); err != nil {
		t.Fatal(err)
	}
	return c.Report()
}

// TestStatsTransactionsViews: the table and the JSON of the transactions
// view say the same of franz_transactions.pcap; a capture without
// transactions has no such tables and an empty "transactions" object.
func TestStatsTransactionsViews(t *testing.T) {
	r := txnReport(t)
	var tbl, js bytes.Buffer
	if err := WriteStatsTables(&tbl, r, StatsInfo{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteStatsJSON(&js, r, StatsInfo{}); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Transactions transactionsJSON `json:"transactions"`
	}
	if err := json.Unmarshal(js.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	text := tbl.String()
	for _, h := range []string{"Transactions by producer", "\nTransactions\n", "Fetched records by transaction"} {
		if !strings.Contains(text, h) {
			t.Errorf("table lacks %q", h)
		}
	}
	if len(out.Transactions.Transactions) != 5 {
		t.Fatalf("%d transactions in JSON, want 5", len(out.Transactions.Transactions))
	}
	// Each transaction's row in the table: its start time and its end.
	for _, tx := range out.Transactions.Transactions {
		found := false
		for line := range strings.Lines(text) {
			if strings.Contains(line, tx.Start) && strings.Contains(line, " "+tx.Result+" ") && strings.Contains(line, *tx.TransactionalId) {
				found = true
			}
		}
		if !found {
			t.Errorf("no table row for %s %s %s", *tx.TransactionalId, tx.Start, tx.Result)
		}
	}
	committed := 0
	for _, f := range out.Transactions.Fetched {
		committed += f.Committed
	}
	if committed != 15 {
		t.Errorf("JSON fetched committed %d, want 15", committed)
	}

	empty := stats.New().Report()
	tbl.Reset()
	js.Reset()
	WriteStatsTables(&tbl, empty, StatsInfo{})
	WriteStatsJSON(&js, empty, StatsInfo{})
	if strings.Contains(tbl.String(), "Transactions") || !strings.Contains(js.String(), `"transactions": {`) {
		t.Errorf("empty report:\n%s\n%s", tbl.String(), js.String())
	}
}
