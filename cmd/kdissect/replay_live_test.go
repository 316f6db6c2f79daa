//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/dissect/live"
	"github.com/kdissect/kdissect/replay"
)

// mustLiveCapture skips the test when this process may not capture on
// lo, except as root (CI), where a capture that cannot open fails it.
func mustLiveCapture(t *testing.T) {
	t.Helper()
	h, err := live.Open(live.Options{Interface: "lo"})
	switch {
	case err == nil:
		h.Close()
	case os.Geteuid() == 0:
		t.Fatalf("live capture on lo as root: %v", err)
	case errors.Is(err, live.ErrPermission), errors.Is(err, live.ErrUnsupported):
		t.Skipf("live replay test skipped: %v", err)
	default:
		t.Fatal(err)
	}
}

// kcatOn runs kcat with args and stdin, bounded, and returns its output.
func kcatOn(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangCap)
	defer cancel()
	cmd := exec.CommandContext(ctx, "kcat", args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("kcat %v: %v\n%s", args, err, errb.String())
	}
	return out.String()
}

// liveRecords reads every record of a topic with kcat, by partition in
// offset order, as "key value headers" lines.
func liveRecords(t *testing.T, addr, topic string) map[string][]string {
	t.Helper()
	out := kcatOn(t, "", "-b", addr, "-C", "-t", topic, "-o", "beginning", "-e", "-q", "-f", "%p\t%k\t%s\t%h\n")
	recs := map[string][]string{}
	for line := range strings.Lines(out) {
		p, rest, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "\t")
		if !ok {
			t.Fatalf("kcat line %q", line)
		}
		recs[p] = append(recs[p], rest)
	}
	return recs
}

func portOf(t *testing.T, addr string) string {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// liveCodecs are the compressions kcat produces with.
var liveCodecs = []string{"none", "gzip", "snappy", "lz4", "zstd"}

// captureLiveTraffic starts broker A, captures lo with kdissect live -w
// while kcat produces 30 keyed records with headers per codec (keys
// spread them over the 3 partitions) and consumes them back, and while
// franz-go's idempotent producer sends 3 rounds of 12 keyed records to
// "live-idem"; then stops the capture and returns A's address and the
// capture's path.
func captureLiveTraffic(t *testing.T) (addrA, pcap string) {
	t.Helper()
	a := startCluster(t, kfake.NumBrokers(1), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(3))
	addrA = a.ListenAddrs()[0]
	pcap = filepath.Join(t.TempDir(), "live.pcap")
	run := startLive(t, "live", "-i", "lo", "-p", portOf(t, addrA), "-w", pcap, "--format", "json")
	for _, c := range liveCodecs {
		var in strings.Builder
		for i := range 30 {
			fmt.Fprintf(&in, "k%d\tvalue %s %d\n", i, c, i)
		}
		kcatOn(t, in.String(), "-b", addrA, "-P", "-t", "live-"+c, "-K", "\t", "-H", "h=v", "-H", "codec="+c, "-z", c, "-X", "linger.ms=50")
		if got := liveRecords(t, addrA, "live-"+c); len(got) < 2 {
			t.Fatalf("live-%s: records in %d partitions, want several", c, len(got))
		}
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrA), kgo.DefaultProduceTopic("live-idem"), kgo.ClientID("live-idem"), kgo.AllowAutoTopicCreation(),
		kgo.ProducerLinger(50*time.Millisecond)) // a round in one Produce request, however loaded the machine
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangCap)
	defer cancel()
	for round := range 3 {
		var recs []*kgo.Record
		for i := range 12 {
			recs = append(recs, &kgo.Record{Key: fmt.Appendf(nil, "k%d", i), Value: fmt.Appendf(nil, "round %d record %d", round, i),
				Headers: []kgo.RecordHeader{{Key: "round", Value: fmt.Append(nil, round)}}})
		}
		if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			cl.Close()
			t.Fatalf("franz-go produce: %v", err)
		}
	}
	cl.Close()
	if err := run.wait(t, true); err != nil {
		t.Fatalf("kdissect live: %v\n%s", err, run.stderr)
	}
	if !strings.Contains(run.stderr.String(), " 0 dropped by the kernel") {
		t.Errorf("the capture dropped packets:\n%s", run.stderr)
	}
	return addrA, pcap
}

// TestReplayLiveCapture is issue 7's end-to-end check: kcat producing
// (every codec, keys, several partitions) and consuming, and franz-go's
// idempotent producer, against broker A, captured live on lo while it
// happens; the capture replayed with kdissect replay to an empty
// three-broker B (partitions led by different brokers); B read back with
// kcat. Every partition of every topic holds on B what it holds on A:
// the same records (key, value, headers), in the same order, none lost,
// none duplicated. Then the capture is replayed to an empty C without
// the franz-go producer's second Produce request: its sequences are
// renumbered over what is sent, so C takes the third request (no
// OUT_OF_ORDER_SEQUENCE_NUMBER) and holds rounds 0 and 2.
func TestReplayLiveCapture(t *testing.T) {
	mustLiveCapture(t)
	addrA, pcap := captureLiveTraffic(t)
	topics := []string{"live-idem"}
	for _, c := range liveCodecs {
		topics = append(topics, "live-"+c)
	}

	b := startCluster(t, kfake.NumBrokers(3), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(3))
	addrB := b.ListenAddrs()[0]
	code, out, errs := runClientCmd(t, "", "replay", pcap, "-p", portOf(t, addrA), "-b", addrB, "--speed", "max", "--format", "json")
	if code != 0 {
		t.Fatalf("replay: exit %d, stderr %q\n%s", code, errs, out)
	}
	var rep replay.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Total.Records != 5*30+3*12 {
		t.Errorf("records sent %d, want %d", rep.Total.Records, 5*30+3*12)
	}
	for _, s := range rep.APIs {
		if s.API == "Produce" && len(s.ReplayedErrors) > 0 {
			t.Errorf("Produce: replayed errors %v", s.ReplayedErrors)
		}
	}
	for _, topic := range topics {
		want, got := liveRecords(t, addrA, topic), liveRecords(t, addrB, topic)
		if len(want) < 2 {
			t.Errorf("%s: A holds records in %d partitions, want several", topic, len(want))
		}
		for p, w := range want {
			if g := got[p]; !slices.Equal(g, w) {
				t.Errorf("%s[%s]: B holds %d records, A %d:\nB %q\nA %q", topic, p, len(g), len(w), g, w)
			}
		}
		for p, g := range got {
			if _, ok := want[p]; !ok {
				t.Errorf("%s[%s]: B holds %d records, A none", topic, p, len(g))
			}
		}
	}

	// Without the idempotent producer's second Produce.
	c := startCluster(t, kfake.NumBrokers(1), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(3))
	r, err := replay.New(replay.Options{Broker: c.ListenAddrs()[0]})
	if err != nil {
		t.Fatal(err)
	}
	var port uint16
	fmt.Sscan(portOf(t, addrA), &port)
	d := dissect.New(dissect.Options{Ports: []uint16{port}})
	dec := dissect.NewDecoder(dissect.DecodeOptions{})
	produces := 0
	rep2, err := r.Run(testCtxLive(t), func(add func(*dissect.Exchange) error) error {
		var addErr error
		err := d.ReadFile(pcap, func(ex *dissect.Exchange) {
			dec.Decode(ex)
			if ex.APIKey == 0 && ex.ClientID != nil && *ex.ClientID == "live-idem" {
				if produces++; produces == 2 {
					return
				}
			}
			if addErr == nil {
				addErr = add(ex)
			}
		})
		if addErr != nil {
			return addErr
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if produces != 3 {
		t.Fatalf("the franz-go producer sent %d Produce requests, want 3 (one per round)", produces)
	}
	for _, s := range rep2.APIs {
		if s.API == "Produce" && len(s.ReplayedErrors) > 0 {
			t.Errorf("Produce without the second round: replayed errors %v", s.ReplayedErrors)
		}
	}
	want := liveRecords(t, addrA, "live-idem")
	for p := range want {
		want[p] = slices.DeleteFunc(want[p], func(s string) bool { return strings.HasSuffix(s, "\tround=1") })
	}
	got := liveRecords(t, c.ListenAddrs()[0], "live-idem")
	for p, w := range want {
		if g := got[p]; !slices.Equal(g, w) {
			t.Errorf("live-idem[%s] without round 1: C holds %q, want %q", p, g, w)
		}
	}
}

func testCtxLive(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), hangCap)
	t.Cleanup(cancel)
	return ctx
}
