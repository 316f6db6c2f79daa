package client

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	build := exec.Command(goCmd, "build", "-o", bin, "../internal/kfakebroker")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building kfakebroker: %v\n%s", err, out)
	}
	_, port, _ := net.SplitHostPort(freeAddr(t))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	cmd := exec.CommandContext(ctx, bin, "-legacy", "-port", port, "-brokers", "1", "-partitions", "1")
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

// TestLegacyBroker: Produce v0-v2 (message sets magic 0 and 1, each codec
// of that era) and Fetch v0-v3 against the project's legacy broker,
// negotiated through ApiVersions.
func TestLegacyBroker(t *testing.T) {
	noLeaks(t)
	addr := startLegacyBroker(t)
	tctx := testCtx(t)
	cl, err := New(tctx, Config{Brokers: []string{addr}, AllowAutoTopicCreation: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	cn, _ := cl.BrokerConn(tctx, -1)
	if v, _ := cn.Version(0); v != 2 {
		t.Fatalf("Produce negotiated v%d, want v2", v)
	}
	ts := time.UnixMilli(1600000000000)
	for pv := int16(0); pv <= 2; pv++ {
		for _, comp := range []codec.Compression{codec.CompressionNone, codec.CompressionGzip, codec.CompressionSnappy, codec.CompressionLZ4} {
			topic := fmt.Sprintf("legacy-v%d-%s", pv, comp)
			pcl, err := New(tctx, Config{Brokers: []string{addr}, AllowAutoTopicCreation: true, MaxVersions: map[int16]int16{0: pv, 1: pv + 1}})
			if err != nil {
				t.Fatal(err)
			}
			p, _ := NewProducer(pcl, ProducerConfig{Compression: comp})
			var recs []Record
			for i := range 3 {
				recs = append(recs, Record{Key: []byte{'k', byte('0' + i)}, Value: []byte(strings.Repeat("v", i)), Timestamp: ts})
			}
			for round := range 2 {
				res, err := p.Produce(tctx, topic, 0, recs...)
				if err != nil {
					t.Fatalf("%s: %v", topic, err)
				}
				if res.BaseOffset != int64(round*3) && !(comp != codec.CompressionNone && res.BaseOffset == int64(round*3+2)) {
					// A broker of that era answered a compressed set
					// with its wrapper's (last) offset.
					t.Errorf("%s round %d: BaseOffset %d", topic, round, res.BaseOffset)
				}
				if pv <= 1 && comp != codec.CompressionNone {
					break // a magic 0 wrapper keeps its inner offsets past the first set (see legacy.go)
				}
			}
			fr, err := NewConsumer(pcl, ConsumerConfig{MaxWait: 10 * time.Millisecond}).Fetch(tctx, topic, 0, 0)
			if err != nil {
				t.Fatalf("%s: fetch: %v", topic, err)
			}
			want := 6
			if pv <= 1 && comp != codec.CompressionNone {
				want = 3
			}
			if len(fr.Messages) != want {
				t.Fatalf("%s: %d messages, want %d", topic, len(fr.Messages), want)
			}
			for i, m := range fr.Messages {
				r := recs[i%3]
				wantMagic := int8(0)
				if pv == 2 {
					wantMagic = 1
				}
				if !m.Valid || m.Offset != int64(i) || string(m.Key) != string(r.Key) || string(m.Value) != string(r.Value) || m.Magic != wantMagic || m.Compression != comp {
					t.Errorf("%s[%d]: %+v", topic, i, m)
				}
				if wantMagic == 1 && !m.Timestamp.Equal(ts) {
					t.Errorf("%s[%d]: timestamp %v", topic, i, m.Timestamp)
				}
			}
			pcl.Close()
		}
	}
}

// TestKcatLegacyMessageSets: against the legacy broker kcat (librdkafka)
// produces magic 1 message sets (Produce v2), compressed with each codec,
// which we consume byte-exact; and kcat consumes byte-exact the magic 1
// sets we produce.
func TestKcatLegacyMessageSets(t *testing.T) {
	noLeaks(t)
	if _, err := exec.LookPath("kcat"); err != nil {
		t.Skip("kcat not on PATH")
	}
	addr := startLegacyBroker(t)
	ctx := testCtx(t)
	cl, err := New(ctx, Config{Brokers: []string{addr}, AllowAutoTopicCreation: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	// Compressible (see compressibleLines): the sets' codec is the one
	// asked for, however librdkafka groups the messages.
	lines := compressibleLines("k1:v1", "k2:"+strings.Repeat("x", 500), ":empty key")
	for _, comp := range []codec.Compression{codec.CompressionNone, codec.CompressionGzip, codec.CompressionSnappy, codec.CompressionLZ4} {
		for b, batching := range kcatBatchings {
			topic := fmt.Sprintf("kcat-legacy-%s-%d", comp, b)
			runKcat(t, []byte(strings.Join(lines, "\n")+"\n"), append([]string{"-P", "-b", addr, "-t", topic, "-p", "0", "-K", ":", "-z", comp.String()}, batching.args...)...)
			fr, err := NewConsumer(cl, ConsumerConfig{MaxWait: 10 * time.Millisecond}).Fetch(ctx, topic, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(fr.Messages) != len(lines) {
				t.Fatalf("%s (%s): %d messages", topic, batching.name, len(fr.Messages))
			}
			for i, m := range fr.Messages {
				k, v, _ := strings.Cut(lines[i], ":")
				if !m.Valid || m.Magic != 1 || m.Compression != comp || m.Offset != int64(i) || string(m.Key) != k || string(m.Value) != v {
					t.Errorf("%s[%d] (%s): %+v", topic, i, batching.name, m)
				}
			}
		}

		ours := "ours-legacy-" + comp.String()
		p, _ := NewProducer(cl, ProducerConfig{Compression: comp})
		recs := []Record{{Key: []byte{0, 0xff}, Value: []byte("a\nb")}, {Key: nil, Value: []byte("second")}, {Key: []byte("k"), Value: nil}}
		if _, err := p.Produce(ctx, ours, 0, recs...); err != nil {
			t.Fatal(err)
		}
		got := parseKcat(t, runKcat(t, nil, "-C", "-b", addr, "-t", ours, "-p", "0", "-o", "beginning", "-e", "-q", "-f", kcatFormat))
		if len(got) != len(recs) {
			t.Fatalf("%s: kcat read %d records", ours, len(got))
		}
		for i, r := range got {
			if r.offset != int64(i) || !sameBytes(r.key, recs[i].Key) || !sameBytes(r.value, recs[i].Value) {
				t.Errorf("%s[%d]: kcat read offset %d key %q value %q", ours, i, r.offset, r.key, r.value)
			}
		}
	}
}
