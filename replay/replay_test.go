package replay

import (
	"fmt"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kdissect/kdissect/client"
	"github.com/kdissect/kdissect/codec"
)

// TestReplayKcatProduce replays kcat's captures (one per compression
// codec: a producer writing 60 keyed records with headers to 3
// partitions, then a consumer reading them back) to an empty broker, and
// reads the broker back: the same records in the same order in every
// partition, none lost, none duplicated.
func TestReplayKcatProduce(t *testing.T) {
	for _, codecName := range []string{"none", "gzip", "snappy", "lz4", "zstd"} {
		t.Run(codecName, func(t *testing.T) {
			path := "../testdata/pcaps/kcat_produce_" + codecName + ".pcap"
			want := producedRecords(t, path)
			target := newTarget(t)
			r := loadCapture(t, path, Options{Broker: target.ListenAddrs()[0]})
			rep, err := r.Run(testCtx(t))
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Complete() {
				t.Errorf("report not complete: %+v failures %v", rep.Total, rep.Failures)
			}
			if rep.Total.Records != 60 {
				t.Errorf("records sent = %d, want 60", rep.Total.Records)
			}
			got := consumeAll(t, target.ListenAddrs()[0], map[string]int32{"produce-" + codecName: 3})
			sameRecords(t, got, want)
			for _, s := range rep.APIs {
				if len(s.ReplayedErrors) > 0 {
					t.Errorf("%s: replayed errors %v", s.API, s.ReplayedErrors)
				}
			}
		})
	}
}

// TestReplayFranzIdempotent replays an idempotent franz-go producer
// (InitProducerId, Produce v13 naming topics by ID, every codec) to an
// empty broker: the topics get new IDs and the producer a new id from
// the target, and the records arrive once each, in order.
func TestReplayFranzIdempotent(t *testing.T) {
	const path = "../testdata/pcaps/franz_idempotent.pcap"
	want := producedRecords(t, path)
	target := newTarget(t)
	r := loadCapture(t, path, Options{Broker: target.ListenAddrs()[0]})
	rep, err := r.Run(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Complete() {
		t.Errorf("report not complete: %+v failures %v", rep.Total, rep.Failures)
	}
	topics := map[string]int32{}
	for tp := range want {
		topics[tp.topic] = 3
	}
	if len(topics) != 5 {
		t.Errorf("captured topics %v, want the 5 idem-* topics", topics)
	}
	got := consumeAll(t, target.ListenAddrs()[0], topics)
	sameRecords(t, got, want)
	for _, s := range rep.APIs {
		if s.API == "Produce" || s.API == "InitProducerId" || s.API == "Fetch" {
			if len(s.ReplayedErrors) > 0 {
				t.Errorf("%s: replayed errors %v", s.API, s.ReplayedErrors)
			}
			if s.Sent == 0 || s.Sent != s.Answered {
				t.Errorf("%s: sent %d, answered %d", s.API, s.Sent, s.Answered)
			}
		}
	}
	if rep.Total.Records != 150 {
		t.Errorf("records sent = %d, want 150 (5 topics × 30)", rep.Total.Records)
	}
}

// TestReplayDowngrade replays kcat's capture (Produce v7, Fetch v11,
// ApiVersions v3) to a broker limited to Kafka 2.0's versions (Produce
// v6, Fetch v8, ApiVersions v2): the requests are sent at the versions
// it has, the report says which were downgraded and which fields the
// lower versions cannot carry, and the records arrive all the same.
func TestReplayDowngrade(t *testing.T) {
	const path = "../testdata/pcaps/kcat_produce_lz4.pcap"
	want := producedRecords(t, path)
	target := newTarget(t, kfake.MaxVersions(kversion.V2_0_0()))
	r := loadCapture(t, path, Options{Broker: target.ListenAddrs()[0]})
	rep, err := r.Run(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Complete() {
		t.Errorf("report not complete: %+v failures %v", rep.Total, rep.Failures)
	}
	sameRecords(t, consumeAll(t, target.ListenAddrs()[0], map[string]int32{"produce-lz4": 3}), want)
	got := map[string]Downgrade{}
	for _, d := range rep.Downgrades {
		got[fmt.Sprintf("%s v%d→v%d", d.API, d.From, d.To)] = d
	}
	for _, w := range []string{"Produce v7→v6", "Fetch v11→v8", "ApiVersions v3→v2"} {
		if _, ok := got[w]; !ok {
			t.Errorf("no downgrade %s in the report; it has %v", w, rep.Downgrades)
		}
	}
	if d := got["ApiVersions v3→v2"]; !slices.Contains(d.Lost, "ClientSoftwareName") {
		t.Errorf("ApiVersions v3→v2 lost %v, want ClientSoftwareName among them", d.Lost)
	}
	// kcat's Fetch v11 leaves RackId empty and CurrentLeaderEpoch -1:
	// v8 loses nothing of it.
	if d := got["Fetch v11→v8"]; len(d.Lost) != 0 {
		t.Errorf("Fetch v11→v8 lost %v, want nothing", d.Lost)
	}
	for _, s := range rep.APIs {
		if (s.API == "Produce" || s.API == "Fetch") && s.Downgraded != s.Sent {
			t.Errorf("%s: %d downgraded of %d sent", s.API, s.Downgraded, s.Sent)
		}
	}
}

// TestReplayKeepVersions sends the captured versions to the limited
// broker: it refuses them, and the report is not complete.
func TestReplayKeepVersions(t *testing.T) {
	target := newTarget(t, kfake.MaxVersions(kversion.V2_0_0()))
	r := loadCapture(t, "../testdata/pcaps/kcat_produce_none.pcap", Options{Broker: target.ListenAddrs()[0], KeepVersions: true, APIs: []int16{0}})
	rep, err := r.Run(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Downgrades) != 0 {
		t.Errorf("downgrades with KeepVersions: %v", rep.Downgrades)
	}
	if rep.Complete() {
		t.Errorf("complete although the broker cannot take Produce v7: %+v", rep.Total)
	}
}

// TestReplayDryRun sends nothing: the broker sees no request, and the
// plan lists every captured request.
func TestReplayDryRun(t *testing.T) {
	target := newTarget(t)
	log := watchRequests(target)
	r := loadCapture(t, "../testdata/pcaps/kcat_produce_gzip.pcap", Options{Broker: target.ListenAddrs()[0], DryRun: true})
	rep, err := r.Run(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if n := log.total(); n != 0 {
		t.Errorf("the broker got %d requests in a dry run", n)
	}
	if rep.Total.Sent != 0 || !rep.Complete() {
		t.Errorf("dry run: %+v", rep.Total)
	}
	sends := 0
	for _, e := range rep.Plan {
		if e.Action == "send" {
			sends++
		}
	}
	if sends == 0 || len(rep.Plan) != rep.Total.Captured {
		t.Errorf("plan: %d entries, %d to send; %d captured", len(rep.Plan), sends, rep.Total.Captured)
	}
}

// TestReplayReadOnly replays captures full of writes with ReadOnly: the
// broker gets none of them, and the reads still go.
func TestReplayReadOnly(t *testing.T) {
	for _, path := range []string{"../testdata/pcaps/franz_admin.pcap", "../testdata/pcaps/kcat_produce_snappy.pcap", "../testdata/pcaps/kcat_legacy_msgset.pcap"} {
		target := newTarget(t)
		log := watchRequests(target)
		r := loadCapture(t, path, Options{Broker: target.ListenAddrs()[0], ReadOnly: true})
		rep, err := r.Run(testCtx(t))
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []int16{0, 19, 20, 21, 33} { // Produce, CreateTopics, DeleteTopics, DeleteRecords, AlterConfigs
			if n := log.count(k); n != 0 {
				t.Errorf("%s: the broker got %d %s requests", path, n, codec.APIName(k))
			}
		}
		if rep.Total.Skipped[skipReadOnly] == 0 || rep.Total.Sent == 0 {
			t.Errorf("%s: %+v", path, rep.Total)
		}
		if n := log.count(3); n == 0 {
			t.Errorf("%s: no Metadata request replayed", path)
		}
		if names := targetTopics(t, target.ListenAddrs()[0]); len(names) > 0 {
			t.Errorf("%s: read-only replay created topics %v", path, names)
		}
	}
}

// targetTopics lists the topics of the cluster at addr, as a Metadata
// request for all topics answers.
func targetTopics(t *testing.T, addr string) []string {
	t.Helper()
	ctx := testCtx(t)
	cl, err := client.New(ctx, client.Config{Brokers: []string{addr}})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	md, err := cl.Metadata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tp := range md.Topics {
		names = append(names, tp.Name)
	}
	return names
}
