package replay

import (
	"bufio"
	"context"
	"maps"
	"net"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kdissect/kdissect/client"
	"github.com/kdissect/kdissect/codec"
)

// startLegacyBroker builds and runs internal/kfakebroker -legacy (kfake
// plus a message-set log serving Produce v0-v2 and Fetch v0-v3, and
// advertising no newer) on a loopback port, stopped with the test. It
// skips without the go command.
func startLegacyBroker(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds internal/kfakebroker")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build internal/kfakebroker")
	}
	bin := filepath.Join(t.TempDir(), "kfakebroker")
	if out, err := exec.Command(goCmd, "build", "-o", bin, "../internal/kfakebroker").CombinedOutput(); err != nil {
		t.Fatalf("building kfakebroker: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(l.Addr().String())
	l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	cmd := exec.CommandContext(ctx, bin, "-legacy", "-port", port, "-brokers", "1", "-partitions", "3")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait(); cancel() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("kfakebroker printed no address: %v", err)
	}
	return strings.TrimSpace(line)
}

// withoutHeaders returns recs with their headers dropped (message sets
// cannot carry them).
func withoutHeaders(m map[topicPartition][]rec) map[topicPartition][]rec {
	out := map[topicPartition][]rec{}
	for tp, rs := range m {
		for _, r := range rs {
			out[tp] = append(out[tp], rec{key: r.key, value: r.value})
		}
	}
	return out
}

// TestReplayRecordFormatUpgrade replays kcat's message sets (Produce
// v0-v2, magic 0 and 1, every codec of that era) to kfake, whose Produce
// starts at v3: the message sets are sent as record batches v2, every
// Produce is answered without error, the downgrade table says upgrade,
// and the target holds the captured records in order.
func TestReplayRecordFormatUpgrade(t *testing.T) {
	const path = "../testdata/pcaps/kcat_legacy_msgset.pcap"
	want := producedRecords(t, path)
	topics := map[string]int32{}
	for tp := range want {
		topics[tp.topic] = 3
	}
	// kfake creates no topic for Metadata v0-v3 (Kafka does, with
	// auto.create.topics.enable): the captured topics are made first.
	target := newTarget(t, kfake.SeedTopics(3, slices.Collect(maps.Keys(topics))...))
	r := loadCapture(t, path, Options{Broker: target.ListenAddrs()[0]})
	rep, err := r.Run(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Complete() {
		t.Errorf("report not complete: %+v failures %v", rep.Total, rep.Failures)
	}
	for _, s := range rep.APIs {
		if s.API == "Produce" && (len(s.ReplayedErrors) > 0 || s.Sent != 24 || s.Answered != 24) {
			t.Errorf("Produce: sent %d answered %d errors %v, want 24 answered without error", s.Sent, s.Answered, s.ReplayedErrors)
		}
	}
	ups := 0
	for _, d := range rep.Downgrades {
		if d.API == "Produce" {
			if d.Change != "upgrade" || d.To < 3 {
				t.Errorf("Produce v%d → v%d listed as %q, want an upgrade to v3+", d.From, d.To, d.Change)
			}
			ups += d.Requests
		}
	}
	if ups != 24 {
		t.Errorf("Produce upgrades listed: %d requests, want 24", ups)
	}
	sameRecords(t, consumeAll(t, target.ListenAddrs()[0], topics), want)
}

// TestReplayRecordFormatDowngrade replays kcat's lz4 record batches
// (Produce v7, with headers) to kfakebroker -legacy, which offers
// Produce v0-v2: the batches are sent as lz4 message sets of magic 1,
// the downgrade table lists the record headers as lost, and the target
// holds the captured keys and values in order.
func TestReplayRecordFormatDowngrade(t *testing.T) {
	const path = "../testdata/pcaps/kcat_produce_lz4.pcap"
	want := withoutHeaders(producedRecords(t, path))
	addr := startLegacyBroker(t)
	r := loadCapture(t, path, Options{Broker: addr})
	rep, err := r.Run(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Complete() {
		t.Errorf("report: %+v failures %v", rep.Total, rep.Failures)
	}
	for _, s := range rep.APIs {
		if s.API == "Produce" && (len(s.ReplayedErrors) > 0 || s.NewErrors > 0 || s.Sent != 6 || s.Answered != 6) {
			t.Errorf("Produce: sent %d answered %d errors %v, want 6 answered without error", s.Sent, s.Answered, s.ReplayedErrors)
		}
	}
	found := false
	for _, d := range rep.Downgrades {
		if d.API == "Produce" {
			found = true
			if d.Change != "downgrade" || d.To != 2 || !slices.Contains(d.Lost, lostRecordHeaders) {
				t.Errorf("Produce v%d → v%d %s lost %v, want a downgrade to v2 losing %s", d.From, d.To, d.Change, d.Lost, lostRecordHeaders)
			}
		}
	}
	if !found {
		t.Error("no Produce downgrade listed")
	}
	sameRecords(t, withoutHeaders(consumeLegacy(t, addr, "produce-lz4", 3)), want)
}

// consumeLegacy reads every record of topic's partitions from
// kfakebroker -legacy, whose message-set log ListOffsets does not see:
// from offset 0 until a Fetch returns nothing more.
func consumeLegacy(t *testing.T, addr, topic string, partitions int32) map[topicPartition][]rec {
	t.Helper()
	ctx := testCtx(t)
	cl, err := client.New(ctx, client.Config{Brokers: []string{addr}})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	cons := client.NewConsumer(cl, client.ConsumerConfig{})
	out := map[topicPartition][]rec{}
	for p := range partitions {
		for off := int64(0); ; {
			res, err := cons.Fetch(ctx, topic, p, off)
			if err != nil {
				t.Fatalf("%s[%d] at %d: %v", topic, p, off, err)
			}
			for _, m := range res.Messages {
				out[topicPartition{topic, p}] = append(out[topicPartition{topic, p}], recOf(m.Key, m.Value, ""))
			}
			if len(res.Messages) == 0 || res.NextOffset <= off {
				break
			}
			off = res.NextOffset
		}
	}
	return out
}

// TestConvertRecordsIdempotent: an idempotent batch cannot become a
// message set: the conversion fails and says why.
func TestConvertRecordsIdempotent(t *testing.T) {
	b := codec.RecordBatch{ProducerId: 7, ProducerEpoch: 0, BaseSequence: 0, Records: []codec.Record{{Key: []byte("k"), Value: []byte("v")}}}
	p := &codec.ProduceRequest{TopicData: []codec.ProduceRequestTopicProduceData{{Name: "t", PartitionData: []codec.ProduceRequestPartitionProduceData{{Index: 0, Records: codec.Records{Raw: b.AppendTo(nil)}}}}}}
	_, _, err := convertProduceRecords(p, 2)
	if err == nil || !strings.Contains(err.Error(), "idempotent") {
		t.Fatalf("error %v, want an idempotent batch refused", err)
	}
	// The same batch at v3 needs no conversion.
	if _, conv, err := convertProduceRecords(p, 3); err != nil || conv {
		t.Fatalf("v3: converted %v error %v, want neither", conv, err)
	}
}
