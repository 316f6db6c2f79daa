package replay

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/client"
)

// TestReplayTransactionsLowConcurrency replays franz-go's transactional
// producers and consumer group sessions (28 captured connections) with
// --concurrency 1 and 2: fewer slots than connections, so runners are
// stopped and restarted. The causal order must still hold across
// connections without a runner (a transaction's Produce before its
// EndTxn, a member's JoinGroup before its LeaveGroup): the target's
// committed records in txn-out (read_committed) equal the default
// concurrency's, no fencing or transaction state error is replayed, and
// every request is answered.
func TestReplayTransactionsLowConcurrency(t *testing.T) {
	const path = "../testdata/pcaps/franz_transactions.pcap"
	committed := func(t *testing.T, conc int) (map[topicPartition][]rec, *Report) {
		target := newTarget(t)
		r := loadCapture(t, path, Options{Broker: target.ListenAddrs()[0], Concurrency: conc})
		rep, err := r.Run(testCtx(t))
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Complete() {
			t.Errorf("--concurrency %d: report not complete: %+v failures %v", conc, rep.Total, rep.Failures)
		}
		for _, s := range rep.APIs {
			for _, e := range []string{"INVALID_PRODUCER_EPOCH", "INVALID_TXN_STATE", "PRODUCER_FENCED", "UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION"} {
				if n := s.ReplayedErrors[e]; n > s.CapturedErrors[e] {
					t.Errorf("--concurrency %d: %s replayed %s×%d, captured ×%d", conc, s.API, e, n, s.CapturedErrors[e])
				}
			}
		}
		return consumeWith(t, target.ListenAddrs()[0], map[string]int32{"txn-out": 3}, client.ConsumerConfig{IsolationLevel: client.ReadCommitted}), rep
	}
	want, _ := committed(t, 0)
	n := 0
	for _, rs := range want {
		n += len(rs)
	}
	if n == 0 {
		t.Fatal("the default concurrency committed no record to txn-out")
	}
	for _, conc := range []int{1, 2} {
		t.Run(fmt.Sprint(conc), func(t *testing.T) {
			got, rep := committed(t, conc)
			sameRecords(t, got, want)
			if !slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.Contains(n, "was closed to let another start") }) {
				t.Errorf("no connection was closed for another with --concurrency %d; notes %q", conc, rep.Notes)
			}
		})
	}
}
