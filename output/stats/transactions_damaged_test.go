package stats

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/kdissect/kdissect/internal/capedit"
)

// TestTransactionsDamaged: on damaged copies of franz_transactions.pcap
// (header-only snap lengths, segments lost) the transactions view states
// nothing the capture lacks: each transaction the clean capture shows has
// there its clean result, or is open (its EndTxn lost) or EndNotCaptured
// (its Committed field cut), and its producer id and epoch are the clean
// ones or -1, never the decoder's defaults taken for values.
func TestTransactionsDamaged(t *testing.T) {
	const src = "../../testdata/pcaps/franz_transactions.pcap"
	clean := collect(t, src).Transactions.Transactions
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		opts capedit.Options
	}{
		{"snap 128", capedit.Options{Snap: 128}},
		{"snap 96", capedit.Options{Snap: 96}},
		{"5% of segments lost", capedit.Options{Drop: capedit.RandomDrop(0.05, 1, true)}},
	} {
		path := filepath.Join(t.TempDir(), "damaged.pcap")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := capedit.Rewrite(f, bytes.NewReader(orig), c.opts); err != nil {
			t.Fatal(err)
		}
		f.Close()
		got := collect(t, path).Transactions.Transactions
		if len(got) > len(clean) {
			t.Errorf("%s: %d transactions, the clean capture has %d", c.name, len(got), len(clean))
		}
		for _, tx := range got {
			id := *tx.TransactionalId
			results := map[string]bool{"open": true, EndNotCaptured: true}
			ids := map[int64]bool{-1: true}
			epochs := map[int16]bool{-1: true}
			for _, ct := range clean {
				if *ct.TransactionalId == id {
					results[ct.Result], ids[ct.ProducerId], epochs[ct.ProducerEpoch] = true, true, true
				}
			}
			if len(ids) == 1 {
				t.Errorf("%s: transaction of %s the clean capture does not have", c.name, id)
				continue
			}
			if !results[tx.Result] {
				t.Errorf("%s: %s ended %q, not as in the clean capture", c.name, id, tx.Result)
			}
			if !ids[tx.ProducerId] || !epochs[tx.ProducerEpoch] {
				t.Errorf("%s: %s producer %d/%d, not the clean capture's", c.name, id, tx.ProducerId, tx.ProducerEpoch)
			}
		}
	}
}
