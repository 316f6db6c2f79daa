package replay

import (
	"maps"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
)

// TestReplayGroupsAndTransactions replays franz-go's consumer groups
// (classic and KIP-848, OffsetCommit v10 naming topics by ID) and
// transactions (TxnOffsetCommit v6 by ID) to empty one- and three-broker
// targets. The topics the captures create are created on the target (on
// its controller), so the topic IDs sent are the target's: no
// UNKNOWN_TOPIC_ID, and on one broker no error the captured answers of
// the same API did not have; on three brokers, where group, transaction
// and admin requests go to their coordinators and controller, no
// NOT_COORDINATOR or NOT_CONTROLLER either (DeleteGroups, whose one
// request names two groups, is split by coordinator: see keyRouted).
func TestReplayGroupsAndTransactions(t *testing.T) {
	for _, name := range []string{"franz_groups", "franz_transactions"} {
		for _, brokers := range []int{1, 3} {
			t.Run(name+"/"+string(rune('0'+brokers)), func(t *testing.T) {
				target := newTarget(t, kfake.NumBrokers(brokers))
				r := loadCapture(t, "../testdata/pcaps/"+name+".pcap", Options{Broker: target.ListenAddrs()[0]})
				rep, err := r.Run(testCtx(t))
				if err != nil {
					t.Fatal(err)
				}
				// franz_groups' classic group rebalances three times in
				// 600 ms and the target's coordinator lists members in its
				// own order: the replay still names each member as the
				// target knows it (see TestGroupLearnsOwnMemberOnly), so
				// every request completes and LeaveGroup, DeleteGroups and
				// OffsetDelete meet the capture's group state.
				if !rep.Complete() {
					t.Errorf("report not complete: %+v failures %v", rep.Total, rep.Failures)
				}
				for _, s := range rep.APIs {
					for e := range s.ReplayedErrors {
						switch {
						case e == "UNKNOWN_TOPIC_ID" || e == "NOT_CONTROLLER":
							t.Errorf("%s: replayed %s×%d", s.API, e, s.ReplayedErrors[e])
						case e == "NOT_COORDINATOR":
							t.Errorf("%s: replayed %s×%d", s.API, e, s.ReplayedErrors[e])
						case brokers == 1 && s.CapturedErrors[e] == 0:
							t.Errorf("%s: replayed %s×%d, captured errors %v", s.API, e, s.ReplayedErrors[e], slices.Sorted(maps.Keys(s.CapturedErrors)))
						}
					}
				}
				for _, api := range []string{"OffsetCommit", "TxnOffsetCommit"} {
					for _, s := range rep.APIs {
						if s.API == api && (s.Sent == 0 || s.Answered != s.Sent) {
							t.Errorf("%s: sent %d, answered %d", api, s.Sent, s.Answered)
						}
					}
				}
			})
		}
	}
}
