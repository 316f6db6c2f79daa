package render

import (
	"fmt"
	"strings"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// detailTxn gives the detail view the transaction marking of a Fetch
// response's records fields (dissect.Decoded.Transactions), which the
// view's own trace of the frame does not carry: the records fields come
// in wire order, as the marking does.
type detailTxn struct {
	parts []dissect.PartitionTransactions
	next  int                            // the records field to come
	cur   *dissect.PartitionTransactions // the one being written
}

func newDetailTxn(ex *dissect.Exchange, response bool) detailTxn {
	if !response || ex.Decoded == nil {
		return detailTxn{}
	}
	return detailTxn{parts: ex.Decoded.Transactions}
}

// field moves to the next records field and says what a consumer is given
// of it, "" when it holds no transactional or control batch.
func (t *detailTxn) field() string {
	t.cur = nil
	if t.next >= len(t.parts) {
		return ""
	}
	p := &t.parts[t.next]
	t.next++
	t.cur = p
	if p.Committed+p.Aborted+p.Undecided+p.Control == 0 {
		return ""
	}
	var parts []string
	for _, c := range []struct {
		n    int
		what string
	}{{p.Committed, "committed"}, {p.Aborted, "aborted"}, {p.Undecided, "undecided"}, {p.Plain, "not transactional"}, {p.Control, "control"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	total := p.Plain + p.Committed + p.Aborted + p.Undecided
	return fmt.Sprintf("Transactions: %s; a read_committed consumer is given %d of the %s, a read_uncommitted one all %d (asked: %s)",
		strings.Join(parts, ", "), p.ReadCommitted, plural(total, "data record"), total, dissect.IsolationName(p.Isolation))
}

// batch is what the heading of batch b adds: its transaction's marking.
func (t *detailTxn) batch(b *codec.RecordBatch) string {
	if t.cur == nil || !b.Captured("BaseOffset") {
		return ""
	}
	if s, ok := t.cur.States[b.BaseOffset]; ok {
		return " · transaction " + s.String()
	}
	return ""
}
