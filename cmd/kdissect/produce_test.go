package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kdissect/kdissect/client"
	"github.com/kdissect/kdissect/codec"
)

// fetchAll reads every message of topic[partition] through the client.
func fetchAll(t *testing.T, addr, topic string, partition int32) []client.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangCap)
	defer cancel()
	cl, err := client.New(ctx, client.Config{Brokers: []string{addr}})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	co := client.NewConsumer(cl, client.ConsumerConfig{MaxWait: 10 * time.Millisecond})
	var out []client.Message
	for off := int64(0); ; {
		fr, err := co.Fetch(ctx, topic, partition, off)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fr.Messages...)
		if fr.NextOffset >= fr.HighWatermark {
			return out
		}
		off = fr.NextOffset
	}
}

// TestProduceCommand: lines from stdin become messages: -K splits key and
// value, -H adds headers, -z compresses, -p picks the partition.
func TestProduceCommand(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(3, "p"))
	addr := c.ListenAddrs()[0]
	for _, comp := range []string{"none", "gzip", "snappy", "lz4", "zstd"} {
		in := "k1:v1\nk2:with:colons\nnokey\n:empty key\n\n"
		code, out, errs := runClientCmd(t, in, "produce", "-b", addr, "-t", "p", "-p", "1", "-K", ":", "-z", comp, "-H", "src=cli", "-H", "z="+comp)
		if code != 0 || out != "" || errs != "" {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", comp, code, out, errs)
		}
	}
	// The empty line is no message, as with kcat.
	msgs := fetchAll(t, addr, "p", 1)
	if len(msgs) != 20 {
		t.Fatalf("%d messages", len(msgs))
	}
	want := []struct {
		key   []byte
		value string
	}{{[]byte("k1"), "v1"}, {[]byte("k2"), "with:colons"}, {nil, "nokey"}, {[]byte(""), "empty key"}}
	for i, m := range msgs {
		w := want[i%4]
		comp := []codec.Compression{codec.CompressionNone, codec.CompressionGzip, codec.CompressionSnappy, codec.CompressionLZ4, codec.CompressionZstd}[i/4]
		if (m.Key == nil) != (w.key == nil) || string(m.Key) != string(w.key) || string(m.Value) != w.value || m.Compression != comp {
			t.Errorf("[%d]: key %q value %q %s, want %q %q %s", i, m.Key, m.Value, m.Compression, w.key, w.value, comp)
		}
		if len(m.Headers) != 2 || m.Headers[0].Key != "src" || string(m.Headers[0].Value) != "cli" || string(m.Headers[1].Value) != comp.String() {
			t.Errorf("[%d]: headers %v", i, m.Headers)
		}
	}
}

// TestProduceByKeyCommand: without -p, keyed lines go to the partition
// murmur2 picks; -K, --key and -D work; --idempotent and --acks 0 produce.
func TestProduceByKeyCommand(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(4, "bk"))
	addr := c.ListenAddrs()[0]
	var in strings.Builder
	for i := range 30 {
		in.WriteString("key" + string(rune('a'+i%26)) + string(rune('0'+i/26)) + "=v\n")
	}
	if code, _, errs := runClientCmd(t, in.String(), "produce", "-b", addr, "-t", "bk", "-K", "=", "--idempotent"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	total := 0
	for p := range int32(4) {
		for _, m := range fetchAll(t, addr, "bk", p) {
			total++
			if client.KeyPartition(m.Key, 4) != p {
				t.Errorf("key %s in partition %d", m.Key, p)
			}
		}
	}
	if total != 30 {
		t.Errorf("%d messages", total)
	}
	if code, _, errs := runClientCmd(t, "a|b|c", "produce", "-b", addr, "-t", "bk", "-p", "3", "-D", "|", "--key", "same", "--acks", "0"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got []string
	deadline := time.Now().Add(hangCap)
	for len(got) < 3 && time.Now().Before(deadline) {
		got = got[:0]
		for _, m := range fetchAll(t, addr, "bk", 3) {
			if string(m.Key) == "same" {
				got = append(got, string(m.Value))
			}
		}
	}
	if strings.Join(got, ",") != "a,b,c" {
		t.Errorf("-D | --key same: %v", got)
	}
}

// TestProduceDelimiterEscapes: -K and -D take kcat's escapes, so
// -K '\t' splits at a tab and -D '\x3b' at a semicolon; a bad escape is
// a usage error.
func TestProduceDelimiterEscapes(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(1, "esc"))
	addr := c.ListenAddrs()[0]
	if code, _, errs := runClientCmd(t, "x1\tval1\n", "produce", "-b", addr, "-t", "esc", "-p", "0", "-K", `\t`); code != 0 {
		t.Fatalf("-K \\t: exit %d: %s", code, errs)
	}
	if code, _, errs := runClientCmd(t, "a;b;c", "produce", "-b", addr, "-t", "esc", "-p", "0", "-D", `\x3b`); code != 0 {
		t.Fatalf("-D \\x3b: exit %d: %s", code, errs)
	}
	var got []string
	for _, m := range fetchAll(t, addr, "esc", 0) {
		got = append(got, fmt.Sprintf("%q=%q", m.Key, m.Value))
	}
	if want := `"x1"="val1" ""="a" ""="b" ""="c"`; strings.Join(got, " ") != want {
		t.Errorf("messages %s, want %s", strings.Join(got, " "), want)
	}
	if code, _, errs := runClientCmd(t, "a", "produce", "-b", addr, "-t", "esc", "-D", `\xZ`); code != 2 || !strings.Contains(errs, "two hex digits") {
		t.Errorf("-D \\xZ: exit %d, stderr %q", code, errs)
	}
}

// produce's flags land in ProduceOptions: -k "" is a key given (empty, not
// null), -l takes exactly one FILE.
func TestProduceOptions(t *testing.T) {
	o, err := parseOnly(t, newProduceCmd, "-b", "h:9092", "-t", "t", "-p", "2", "-k", "", "-K", ":", "-H", "a=1", "-H", "b=2",
		"-z", "zstd", "--acks", "1", "--idempotent", "-Z", "-l", "msgs.txt")
	if err != nil {
		t.Fatal(err)
	}
	if o.topic != "t" || o.partition != 2 || !o.keyGiven || o.fixedKey != "" || o.keyDelim != ":" || !slices.Equal(o.headers, []string{"a=1", "b=2"}) ||
		o.comp != "zstd" || o.acks != 1 || !o.idempotent || !o.nullEmpty || !o.lineMode || !slices.Equal(o.files, []string{"msgs.txt"}) || o.msgDelim != "\n" {
		t.Errorf("options %+v", o)
	}
	o, err = parseOnly(t, newProduceCmd, "-b", "h:9092", "-t", "t", "a.bin", "b.bin")
	if err != nil || o.keyGiven || o.partition != -1 || o.acks != -1 || o.comp != "none" || !slices.Equal(o.files, []string{"a.bin", "b.bin"}) {
		t.Errorf("defaults: %+v, %v", o, err)
	}
	if o, err := parseOnly(t, newProduceCmd, "-b", "h:9092", "-t", "t", "-l"); o != nil || err == nil || err.Error() != "-l reads exactly one FILE, got 0" {
		t.Errorf("-l without a FILE: %v", err)
	}
}
