package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kdissect/kdissect/replay"
)

const replayCapture = "../../testdata/pcaps/kcat_produce_zstd.pcap"

// TestReplayCommandJSON: replay to an empty broker at --speed max, JSON
// report: every request sent and answered, 60 records, exit 0.
func TestReplayCommandJSON(t *testing.T) {
	c := startCluster(t, kfake.NumBrokers(1), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(3))
	code, out, errs := runClientCmd(t, "", "replay", replayCapture, "--broker", c.ListenAddrs()[0], "--speed", "max", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var rep replay.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if rep.Total.Sent != 20 || rep.Total.Answered != 20 || rep.Total.Records != 60 || rep.Total.Accepted != 60 || rep.Total.Failed != 0 {
		t.Errorf("total %+v", rep.Total)
	}
	if rep.Total.ReplayedLatency.P50 == nil || rep.Total.CapturedLatency.P99 == nil {
		t.Errorf("latency missing: %+v %+v", rep.Total.CapturedLatency, rep.Total.ReplayedLatency)
	}
}

// A target that refuses every Produce (--map-topic to a topic it lacks,
// and it creates none): exit 3, no record accepted, the refusals named.
func TestReplayCommandRefused(t *testing.T) {
	c := startCluster(t, kfake.NumBrokers(1), kfake.DefaultNumPartitions(3))
	code, out, errs := runClientCmd(t, "", "replay", replayCapture, "-b", c.ListenAddrs()[0], "--speed", "max",
		"--api", "Produce", "--map-topic", "produce-zstd=missing", "--format", "json")
	if code != exitIncomplete || !strings.Contains(errs, "errors the capture did not have") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var rep replay.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if rep.Total.Sent == 0 || rep.Total.Records != 60 || rep.Total.Accepted != 0 || rep.Total.NewErrors != rep.Total.Sent ||
		rep.Total.ReplayedErrors["UNKNOWN_TOPIC_OR_PARTITION"] == 0 {
		t.Errorf("total %+v", rep.Total)
	}
}

// TestReplayCommandTable: the table, with --map-topic and --api.
func TestReplayCommandTable(t *testing.T) {
	c := startCluster(t, kfake.NumBrokers(1), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(3))
	code, out, errs := runClientCmd(t, "", "replay", replayCapture, "-b", c.ListenAddrs()[0], "--speed", "max",
		"--api", "Produce", "--api", "Metadata", "--map-topic", "produce-zstd=copy")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q\n%s", code, errs, out)
	}
	for _, want := range []string{"│ Produce ", "│ total ", "skipped: ", "not selected"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The records went to the renamed topic.
	cl := c.ListenAddrs()[0]
	code, out, _ = runClientCmd(t, "", "broker", "-b", cl)
	if code != 0 || !strings.Contains(out, "│ copy ") || strings.Contains(out, "produce-zstd") {
		t.Errorf("topics on the target after --map-topic:\n%s", out)
	}
}

// TestReplayCommandSmallWindow: one connection at a time through a
// window of one request: every request sent and answered, exit 0, and
// the note that idle connections were closed for others.
func TestReplayCommandSmallWindow(t *testing.T) {
	c := startCluster(t, kfake.NumBrokers(1), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(3))
	code, out, errs := runClientCmd(t, "", "replay", replayCapture, "-b", c.ListenAddrs()[0], "--speed", "max", "--format", "json",
		"--concurrency", "1", "--window-requests", "1", "--window-bytes", "1", "--window-conn-requests", "1", "--window-conn-bytes", "1", "--max-plan", "5")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var rep replay.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if rep.Total.Sent != 20 || rep.Total.Answered != 20 || rep.Total.Records != 60 {
		t.Errorf("total %+v", rep.Total)
	}
	if len(rep.Plan) != 5 || rep.PlanOmitted != 15 {
		t.Errorf("plan: %d entries, %d omitted; want 5 and 15", len(rep.Plan), rep.PlanOmitted)
	}
	if !strings.Contains(strings.Join(rep.Notes, "\n"), "closed to let another start") {
		t.Errorf("notes %q", rep.Notes)
	}
}

// TestReplayCommandDryRun: no broker contacted (it sees no request), the
// plan listed, exit 0.
func TestReplayCommandDryRun(t *testing.T) {
	c := startCluster(t, kfake.NumBrokers(1))
	seen := 0
	c.Control(func(kmsg.Request) (kmsg.Response, error, bool) { seen++; return nil, nil, false })
	code, out, errs := runClientCmd(t, "", "replay", replayCapture, "-b", c.ListenAddrs()[0], "--dry-run", "--read-only")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if !strings.Contains(out, "nothing was sent") || !strings.Contains(out, "read-only") || !strings.Contains(out, "│ send ") ||
		!strings.Contains(out, "captured version") || !strings.Contains(out, "versions are the captured ones") {
		t.Errorf("dry-run output:\n%s", out)
	}
	c.Close()
	if seen != 0 {
		t.Errorf("the broker got %d requests in a dry run", seen)
	}
}

// TestReplayCommandIncomplete: captured versions the broker refuses
// (--keep-versions against Kafka 2.0's versions) exit 3.
func TestReplayCommandIncomplete(t *testing.T) {
	c := startCluster(t, kfake.NumBrokers(1), kfake.AllowAutoTopicCreation(), kfake.MaxVersions(kversion.V2_0_0()))
	code, out, errs := runClientCmd(t, "", "replay", replayCapture, "-b", c.ListenAddrs()[0], "--speed", "max", "--keep-versions", "--api", "Produce")
	if code != exitIncomplete || !strings.Contains(errs, "replay incomplete") {
		t.Errorf("exit %d, stderr %q\n%s", code, errs, out)
	}
}

// TestReplayCommandUsage: bad flags exit 2, an unreachable target 1.
func TestReplayCommandUsage(t *testing.T) {
	for _, args := range [][]string{
		{"replay", replayCapture},
		{"replay", replayCapture, "-b", "127.0.0.1:1", "--speed", "0"},
		{"replay", replayCapture, "-b", "127.0.0.1:1", "--map-topic", "nope"},
		{"replay", replayCapture, "-b", "127.0.0.1:1", "--format", "xml"},
		{"replay", replayCapture, "-b", "127.0.0.1:1", "--window-requests", "0"},
		{"replay", replayCapture, "-b", "127.0.0.1:1", "--window-conn-bytes", "-1"},
		{"replay", replayCapture, "-b", "127.0.0.1:1", "--max-plan", "-1"},
		{"replay", replayCapture, "-b", "127.0.0.1:1", "--speed", "NaN"},
		{"replay", replayCapture, "-b", "127.0.0.1:1", "--speed", "Inf"},
		{"replay", replayCapture, "-b", "127.0.0.1:1", "--speed", "-inf"},
		{"replay", replayCapture, "-b", "127.0.0.1:1", "--map-topic", "a=b=c"},
		{"replay", replayCapture, "-b", "127.0.0.1:1", "--map-topic", "a=no/slash"},
		{"replay", replayCapture, "-b", "127.0.0.1:1", "--map-topic", "a=.."},
		{"replay", replayCapture, "-b", "127.0.0.1:1", "--map-topic", "a=" + strings.Repeat("x", 250)},
	} {
		if code, _, errs := runClientCmd(t, "", args...); code != exitUsage {
			t.Errorf("%q: exit %d, want 2 (%s)", args, code, errs)
		}
	}
	if code, _, errs := runClientCmd(t, "", "replay", replayCapture, "-b", deadAddr(t)); code != exitInput {
		t.Errorf("unreachable target: exit %d, want 1 (%s)", code, errs)
	}
}

// TestReplayCommandUnmatchedSelection: --api, --stream and --topic
// values the capture lacks, and --map-topic names it never names, each
// get a warning naming the flag; the exit
// status is unchanged (0: what was selected was sent and answered), and
// values that select something get none.
func TestReplayCommandUnmatchedSelection(t *testing.T) {
	c := startCluster(t, kfake.NumBrokers(1), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(3))
	code, out, errs := runClientCmd(t, "", "replay", replayCapture, "-b", c.ListenAddrs()[0], "--speed", "max",
		"--api", "Metadata", "--api", "JoinGroup", "--stream", "0", "--stream", "99", "--topic", "produce-zstd", "--topic", "no-such-topic",
		"--map-topic", "nosuch=x", "--map-topic", "produce-zstd=produce-zstd-copy")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q\n%s", code, errs, out)
	}
	for _, w := range []string{"--api JoinGroup selects nothing", "--stream 99 selects nothing", "--topic no-such-topic selects nothing", "--map-topic nosuch=... renames nothing"} {
		if !strings.Contains(errs, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errs)
		}
	}
	for _, w := range []string{"--api Metadata", "--stream 0 ", "--topic produce-zstd", "--map-topic produce-zstd"} {
		if strings.Contains(errs, w) {
			t.Errorf("stderr warns of %q, which selects something:\n%s", w, errs)
		}
	}
	// A selection of nothing at all: warned of, still exit 0.
	code, _, errs = runClientCmd(t, "", "replay", replayCapture, "-b", c.ListenAddrs()[0], "--speed", "max", "--topic", "absent")
	if code != 0 || !strings.Contains(errs, "--topic absent selects nothing") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// TestReplayCommandTransactionsConcurrency: franz-go's transactions (28
// captured connections) replayed with --concurrency 1 and 2 commit the
// same records to txn-out as the default concurrency (consume
// --read-committed), exit 0, and no request is fenced
// (INVALID_PRODUCER_EPOCH) or refused for its transaction's state
// (INVALID_TXN_STATE).
func TestReplayCommandTransactionsConcurrency(t *testing.T) {
	committed := func(t *testing.T, conc string) []string {
		c := startCluster(t, kfake.NumBrokers(1), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(3))
		code, out, errs := runClientCmd(t, "", "replay", "../../testdata/pcaps/franz_transactions.pcap", "-b", c.ListenAddrs()[0],
			"--speed", "max", "--format", "json", "--concurrency", conc)
		if code != 0 {
			t.Fatalf("--concurrency %s: exit %d, stderr %q", conc, code, errs)
		}
		var rep replay.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		for _, e := range []string{"INVALID_PRODUCER_EPOCH", "INVALID_TXN_STATE"} {
			if n := rep.Total.ReplayedErrors[e]; n > 0 {
				t.Errorf("--concurrency %s: replayed %s×%d", conc, e, n)
			}
		}
		code, out, errs = runClientCmd(t, "", "consume", "-b", c.ListenAddrs()[0], "-t", "txn-out", "--read-committed", "-e", "-q", "-K", "=")
		if code != 0 {
			t.Fatalf("consume: exit %d, stderr %q", code, errs)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		slices.Sort(lines)
		return lines
	}
	want := committed(t, "64")
	if len(want) == 0 || want[0] == "" {
		t.Fatal("the default concurrency committed nothing to txn-out")
	}
	for _, conc := range []string{"1", "2"} {
		if got := committed(t, conc); !slices.Equal(got, want) {
			t.Errorf("--concurrency %s: txn-out holds %d committed records %q, the default run %d %q", conc, len(got), got, len(want), want)
		}
	}
}

// replay's flags land in ReplayOptions: the captures, --broker (or -b)
// the target, its own flags turned into replay.Options without replaying.
func TestReplayOptions(t *testing.T) {
	o, err := parseOnly(t, newReplayCmd, "a.pcap", "b.pcapng", "--broker", "h1:9092,h2:9092", "--speed", "max", "--api", "Produce",
		"--api", "1", "--map-topic", "x=y", "--dry-run", "--format", "json", "--concurrency", "3", "--read-only", "--tls-keylog-out", "keys.log")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.args, []string{"a.pcap", "b.pcapng"}) || !slices.Equal(o.bf.brokers, []string{"h1:9092", "h2:9092"}) || o.cf.format != "json" ||
		!o.rf.dryRun || !o.rf.readOnly || o.bf.tlsKeyLog != "keys.log" || o.progress != nil {
		t.Errorf("options %+v", o)
	}
	ro, err := o.rf.options()
	if err != nil || ro.Speed != 0 || ro.Concurrency != 3 || !slices.Equal(ro.APIs, []int16{0, 1}) || ro.TopicMap["x"] != "y" || !ro.DryRun || !ro.ReadOnly ||
		ro.Window.Requests != replay.DefaultWindowRequests || ro.MaxPlan != replay.DefaultMaxPlan {
		t.Errorf("replay options %+v, %v", ro, err)
	}
	o, err = parseOnly(t, newReplayCmd, "c.pcap", "-b", "h3:9092")
	if err != nil || o.cf.format != "table" || o.rf.speed != "1" || o.rf.concurrency != replay.DefaultConcurrency || !slices.Equal(o.bf.brokers, []string{"h3:9092"}) {
		t.Errorf("defaults: %+v, %v", o, err)
	}
}
