package replay

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// TestReplayFetchSessions replays franz-go's consumer groups, whose
// consumers fetch in KIP-227 sessions (a full fetch opening a session,
// then incremental ones naming only what changed), to one- and
// three-broker targets: the target never answers a Fetch
// FETCH_SESSION_ID_NOT_FOUND or INVALID_FETCH_SESSION_EPOCH (it never
// saw the captured session ids), every Fetch is answered, and the
// report says the incremental fetches were sent as full ones.
func TestReplayFetchSessions(t *testing.T) {
	for _, brokers := range []int{1, 3} {
		t.Run(string(rune('0'+brokers)), func(t *testing.T) {
			target := newTarget(t, kfake.NumBrokers(brokers))
			r := loadCapture(t, "../testdata/pcaps/franz_groups.pcap", Options{Broker: target.ListenAddrs()[0]})
			rep, err := r.Run(testCtx(t))
			if err != nil {
				t.Fatal(err)
			}
			fetches := 0
			for _, s := range rep.APIs {
				if s.API != "Fetch" {
					continue
				}
				fetches = s.Sent
				if s.Answered != s.Sent {
					t.Errorf("Fetch: sent %d, answered %d", s.Sent, s.Answered)
				}
				for _, e := range []string{"FETCH_SESSION_ID_NOT_FOUND", "INVALID_FETCH_SESSION_EPOCH"} {
					if n := s.ReplayedErrors[e]; n > 0 {
						t.Errorf("Fetch: replayed %s×%d", e, n)
					}
				}
			}
			if fetches == 0 {
				t.Fatal("no Fetch replayed")
			}
			converted := false
			for _, n := range rep.Notes {
				converted = converted || strings.Contains(n, "incremental Fetch requests (KIP-227 fetch sessions) were sent as full fetches")
			}
			if !converted {
				t.Errorf("no note of incremental fetches sent as full ones: %q", rep.Notes)
			}
		})
	}
}

// TestFetchSessionUpdate holds a session's partitions to KIP-227: an
// incremental fetch adds or updates the partitions it names and removes
// its forgotten ones; the full fetch sent names them all, each with its
// latest position.
func TestFetchSessionUpdate(t *testing.T) {
	part := func(p int32, off int64) codec.FetchRequestFetchPartition {
		return codec.FetchRequestFetchPartition{Partition: p, FetchOffset: off}
	}
	var s fetchSession
	s.update(&codec.FetchRequest{Topics: []codec.FetchRequestFetchTopic{
		{Topic: "a", Partitions: []codec.FetchRequestFetchPartition{part(0, 0), part(1, 0)}},
		{Topic: "b", Partitions: []codec.FetchRequestFetchPartition{part(0, 0)}},
	}})
	s.update(&codec.FetchRequest{
		Topics:              []codec.FetchRequestFetchTopic{{Topic: "a", Partitions: []codec.FetchRequestFetchPartition{part(1, 7)}}, {Topic: "c", Partitions: []codec.FetchRequestFetchPartition{part(2, 3)}}},
		ForgottenTopicsData: []codec.FetchRequestForgottenTopic{{Topic: "b", Partitions: []int32{0}}},
	})
	var got []string
	for _, tp := range s.request() {
		for _, p := range tp.Partitions {
			got = append(got, tp.Topic+"["+string(rune('0'+p.Partition))+"]@"+string(rune('0'+p.FetchOffset)))
		}
	}
	if want := "a[0]@0 a[1]@7 c[2]@3"; strings.Join(got, " ") != want {
		t.Errorf("session partitions %q, want %q", strings.Join(got, " "), want)
	}
	if s.count() != 3 {
		t.Errorf("count %d, want 3", s.count())
	}
}

// TestFetchSessionsBounded opens more sessions than maxFetchSessions
// (full fetches whose captured answers name new session ids): the
// sessions remembered stay at the bound, the oldest forgotten, the
// newest kept.
func TestFetchSessionsBounded(t *testing.T) {
	f := newFetchSessions()
	broker := netip.MustParseAddrPort("10.0.0.1:9092")
	for i := range maxFetchSessions + 50 {
		req := &codec.FetchRequest{SessionId: 0, SessionEpoch: 0, Topics: []codec.FetchRequestFetchTopic{{Topic: "a", Partitions: []codec.FetchRequestFetchPartition{{Partition: 0}}}}}
		ex := &dissect.Exchange{Broker: broker, Decoded: &dissect.Decoded{Response: &codec.FetchResponse{SessionId: int32(i + 1)}}}
		f.capture(&item{key: 1, version: 12, req: req}, ex)
		if req.SessionId != 0 || req.SessionEpoch != -1 {
			t.Fatalf("full fetch sent with session %d epoch %d", req.SessionId, req.SessionEpoch)
		}
	}
	if len(f.m) != maxFetchSessions {
		t.Errorf("%d sessions remembered, want %d", len(f.m), maxFetchSessions)
	}
	if _, ok := f.m[sessionKey{broker, 1}]; ok {
		t.Error("the oldest session is still remembered")
	}
	if _, ok := f.m[sessionKey{broker, maxFetchSessions + 50}]; !ok {
		t.Error("the newest session was forgotten")
	}
}
