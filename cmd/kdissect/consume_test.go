package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kdissect/kdissect/client"
)

// seed produces values to topic[partition] with the given timestamp start.
func seed(t *testing.T, addr, topic string, partition int32, t0 time.Time, recs ...client.Record) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangCap)
	defer cancel()
	cl, err := client.New(ctx, client.Config{Brokers: []string{addr}})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	p, _ := client.NewProducer(cl, client.ProducerConfig{})
	for i, r := range recs {
		r.Timestamp = t0.Add(time.Duration(i) * time.Second)
		if _, err := p.Produce(ctx, topic, partition, r); err != nil {
			t.Fatal(err)
		}
	}
}

// TestConsumeJSON: --format json prints one object a line with the
// documented keys; binary bytes as {"base64"}; -e exits at the end of
// every partition and reports it on stderr.
func TestConsumeJSON(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(2, "cj"))
	addr := c.ListenAddrs()[0]
	t0 := time.UnixMilli(1700000000000)
	seed(t, addr, "cj", 0, t0,
		client.Record{Key: []byte("k"), Value: []byte("text"), Headers: []client.Header{{Key: "h", Value: []byte("v")}}},
		client.Record{Key: nil, Value: []byte{0, 1, 0xff}})
	seed(t, addr, "cj", 1, t0, client.Record{Value: []byte("p1")})
	code, out, errs := runClientCmd(t, "", "consume", "-b", addr, "-t", "cj", "-e", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Count(errs, "Reached end of topic cj") != 2 {
		t.Errorf("stderr %q", errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	var objs []map[string]any
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		objs = append(objs, m)
	}
	got := fmt.Sprint(objs)
	for _, want := range []string{
		"map[headers:[map[key:h value:v]] key:k offset:0 partition:0 timestamp:1.7e+12 topic:cj value:text]",
		"map[headers:[] key:<nil> offset:1 partition:0 timestamp:1.700000001e+12 topic:cj value:map[base64:AAH/]]",
		"map[headers:[] key:<nil> offset:0 partition:1",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %s:\n%s", want, got)
		}
	}
}

// TestConsumeOffsetsAndCount: -o beginning/end/N/-N/s@MS, -c and -K text.
func TestConsumeOffsetsAndCount(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(1, "co"))
	addr := c.ListenAddrs()[0]
	t0 := time.UnixMilli(1700000000000)
	var recs []client.Record
	for i := range 5 {
		recs = append(recs, client.Record{Key: []byte{byte('a' + i)}, Value: []byte{byte('0' + i)}})
	}
	seed(t, addr, "co", 0, t0, recs...)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", "beginning"}, "0\n1\n2\n3\n4\n"},
		{[]string{"-o", "end"}, ""},
		{[]string{"-o", "3"}, "3\n4\n"},
		{[]string{"-o", "-2"}, "3\n4\n"},
		{[]string{"-o", "-99"}, "0\n1\n2\n3\n4\n"},
		{[]string{"-o", fmt.Sprintf("s@%d", t0.Add(2500*time.Millisecond).UnixMilli())}, "3\n4\n"},
		{[]string{"-o", "1", "-K", "="}, "b=1\nc=2\nd=3\ne=4\n"},
		{[]string{"-c", "2"}, "0\n1\n"},
		{[]string{"-p", "0", "-o", "4", "-q"}, "4\n"},
	} {
		args := append([]string{"consume", "-b", addr, "-t", "co", "-e", "-q"}, tc.args...)
		code, out, errs := runClientCmd(t, "", args...)
		if code != 0 || out != tc.want {
			t.Errorf("%v: exit %d, output %q, want %q (stderr %q)", tc.args, code, out, tc.want, errs)
		}
	}
	// -c without -e returns once the count is reached, though it would
	// otherwise wait for more.
	done := make(chan string, 1)
	go func() {
		_, out, _ := runClientCmd(t, "", "consume", "-b", addr, "-t", "co", "-c", "5")
		done <- out
	}()
	select {
	case out := <-done:
		if out != "0\n1\n2\n3\n4\n" {
			t.Errorf("-c 5: %q", out)
		}
	case <-time.After(hangCap):
		t.Fatalf("-c 5 did not return in %v", hangCap)
	}
}

// TestProduceThenConsume: the two commands round-trip binary-safe text
// through the broker.
func TestProduceThenConsume(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(1, "rt"))
	addr := c.ListenAddrs()[0]
	in := "alpha\nbeta gamma\n\tdelta\n"
	if code, _, errs := runClientCmd(t, in, "produce", "-b", addr, "-t", "rt", "-z", "zstd"); code != 0 {
		t.Fatalf("produce: exit %d: %s", code, errs)
	}
	code, out, errs := runClientCmd(t, "", "consume", "-b", addr, "-t", "rt", "-e", "-q")
	if code != 0 || out != in {
		t.Errorf("consume: exit %d, %q, stderr %q", code, out, errs)
	}
}

// TestConsumePartitionFlags: a partition named twice is read once, as
// kcat does; a negative one is a usage error.
func TestConsumePartitionFlags(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(2, "cp"))
	addr := c.ListenAddrs()[0]
	seed(t, addr, "cp", 1, time.Now(), client.Record{Value: []byte("one")}, client.Record{Value: []byte("two")})
	code, out, errs := runClientCmd(t, "", "consume", "-b", addr, "-t", "cp", "-p", "1", "-p", "1", "-e", "-q")
	if code != 0 || out != "one\ntwo\n" {
		t.Errorf("-p 1 -p 1: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if code, _, errs := runClientCmd(t, "", "consume", "-b", addr, "-t", "cp", "-p", "-1", "-e"); code != 2 || !strings.Contains(errs, "-p -1: want a partition number") {
		t.Errorf("-p -1: exit %d, stderr %q", code, errs)
	}
}

// consume's flags land in ConsumeOptions, which flags were given among
// them; -G takes its topics as arguments, which are refused without it.
func TestConsumeOptions(t *testing.T) {
	o, err := parseOnly(t, newConsumeCmd, "-b", "h:9092", "-t", "t", "-p", "1", "-p", "2,3", "-o", "end", "-o", "e@5", "-e", "-c", "3",
		"-f", `%k %s\n`, "-q", "--read-committed", "-Z", "-D", `\r`)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.topics, []string{"t"}) || !slices.Equal(o.partitions, []int32{1, 2, 3}) || !slices.Equal(o.offsets, []string{"end", "e@5"}) ||
		!o.exitAtEnd || o.count != 3 || o.kcatFormat != `%k %s\n` || !o.fmtGiven || o.keyDelimGiven || !o.quiet || !o.readCommitted ||
		!o.printNull || o.msgDelim != `\r` || o.format != "text" || o.group != "" || len(o.args) != 0 || o.IO.out != io.Discard {
		t.Errorf("options %+v", o)
	}
	if start, stop, err := o.startAndStop(); err != nil || start.kind != "end" || stop != 5 {
		t.Errorf("-o end -o e@5: %+v, %d, %v", start, stop, err)
	}
	if _, err := o.output(); err != nil {
		t.Errorf("-f: %v", err)
	}
	o, err = parseOnly(t, newConsumeCmd, "-b", "h:9092", "-G", "g", "t1", "t2", "-J", "-K", ":")
	if err != nil || o.group != "g" || !slices.Equal(o.args, []string{"t1", "t2"}) || !o.envelope || !o.keyDelimGiven || o.fmtGiven {
		t.Errorf("-G: %+v, %v", o, err)
	}
	o, err = parseOnly(t, newConsumeCmd, "-b", "h:9092", "-t", "t", "-f", "%s", "-J")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.output(); err == nil || err.Error() != "-f and -J exclude each other" {
		t.Errorf("-f and -J: %v", err)
	}
	if o, err := parseOnly(t, newConsumeCmd, "-b", "h:9092", "t1"); o != nil || err == nil || !strings.Contains(err.Error(), "topics are arguments with -G GROUP") {
		t.Errorf("a topic argument without -G: %v", err)
	}
}

// The errors of -f, -X and -F the libraries (output/kcat, client) give
// are printed as one line in the command's words, as before they moved
// there: no ": " added between the flag and the library's words.
func TestClientFlagErrorLines(t *testing.T) {
	props := filepath.Join(t.TempDir(), "bad.properties")
	if err := os.WriteFile(props, []byte("a=b\nbad line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-f", "abc%"}, `kdissect: -f "abc%": a % at the end of the format (%% prints one)`},
		{[]string{"-f", "%x"}, "kdissect: -f: unknown token %x: want %s (value),"},
		{[]string{"-X", "nope"}, `kdissect: -X "nope": want property=value`},
		{[]string{"-F", props}, "kdissect: -F " + props + " line 2: want property=value"},
		{[]string{"-X", "socket.timeout.ms=-1"}, "kdissect: property socket.timeout.ms: want a positive number of milliseconds"},
	} {
		code, _, errs := runClientCmd(t, "", append([]string{"consume", "-b", "127.0.0.1:1", "-t", "t"}, c.args...)...)
		if code != exitUsage || !strings.HasPrefix(errs, c.want) {
			t.Errorf("%q: exit %d, stderr %q, want %q", c.args, code, errs, c.want)
		}
	}
}
