//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kdissect/kdissect/client"
)

// needKcat skips the test when kcat is not on PATH (.ci/run installs it).
func needKcat(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("kcat"); err != nil {
		t.Skip("kcat not on PATH")
	}
}

// kcatFast keeps kcat -C from idling half a second in its first fetch.
var kcatFast = []string{"-X", "fetch.wait.max.ms=10"}

// kcatRecordsFormat prints what a kcat-compatible reader sees of each
// record, lengths first so that null and empty differ.
const kcatRecordsFormat = `%p|%o|%K:%k|%S:%s|%h\n`

// produceBoth runs each argument list after "kcat -P -b addr -t theirs -p
// 0" and after "kdissect produce -b addr -t ours -p 0" with the same
// input, then returns what kcat reads back of each topic.
func produceBoth(t *testing.T, addr, in string, argLists [][]string) (ours, theirs string) {
	t.Helper()
	for _, args := range argLists {
		kcatOn(t, in, append([]string{"-P", "-b", addr, "-t", "theirs", "-p", "0"}, args...)...)
		code, _, errs := runClientCmd(t, in, append([]string{"produce", "-b", addr, "-t", "ours", "-p", "0"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
	}
	read := func(topic string) string {
		return kcatOn(t, "", append(kcatFast, "-C", "-b", addr, "-t", topic, "-o", "beginning", "-e", "-q", "-f", kcatRecordsFormat)...)
	}
	return read("ours"), read("theirs")
}

// TestProduceKcatKeys: -k is kcat's fixed key, -K its key delimiter, a key
// found by -K wins over -k and -Z makes empty keys and values null, as
// kcat -P does: kcat reads back what each kcat command line wrote and
// what the same kdissect command line wrote, byte for byte alike.
func TestProduceKcatKeys(t *testing.T) {
	needKcat(t)
	c := startCluster(t, kfake.SeedTopics(1, "ours", "theirs"))
	addr := c.ListenAddrs()[0]
	in := "a:1\nnodelim\n:emptykey\nemptyvalue:\n"
	ours, theirs := produceBoth(t, addr, in, [][]string{
		{"-k", "fixed"},
		{"-K", ":"},
		{"-K", ":", "-k", "fixed"},
		{"-K", ":", "-Z"},
		{"-K", ":", "-Z", "-k", "fixed"},
	})
	if ours != theirs {
		t.Errorf("kcat reads what we wrote as\n%s\nand what kcat wrote as\n%s", ours, theirs)
	}
	// The -k line of each case: a fixed key on a line kcat kept whole.
	if want := "0|0|5:fixed|3:a:1|\n"; len(ours) < len(want) || ours[:len(want)] != want {
		t.Errorf("first record %q, want %q", ours, want)
	}
}

// TestProduceFiles: FILE arguments are one message each, -l FILE splits
// one file by -D, as kcat -P does; kcat reads both alike.
func TestProduceFiles(t *testing.T) {
	needKcat(t)
	c := startCluster(t, kfake.SeedTopics(1, "ours", "theirs"))
	addr := c.ListenAddrs()[0]
	dir := t.TempDir()
	f1, f2 := filepath.Join(dir, "one"), filepath.Join(dir, "two")
	if err := os.WriteFile(f1, []byte("line 1\nline 2\n\nk:v\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f2, []byte("whole\x00binary"), 0o600); err != nil {
		t.Fatal(err)
	}
	ours, theirs := produceBoth(t, addr, "", [][]string{{f1, f2}, {"-l", f1}, {"-l", "-K", ":", f1}})
	if ours != theirs {
		t.Errorf("kcat reads what we wrote as\n%q\nand what kcat wrote as\n%q", ours, theirs)
	}
	if want := "0|0|-1:|19:line 1\nline 2\n\nk:v\n|\n0|1|-1:|12:whole\x00binary|\n0|2|-1:|6:line 1|\n"; len(ours) < len(want) || ours[:len(want)] != want {
		t.Errorf("records %q, want them to start %q", ours, want)
	}
	if code, _, errs := runClientCmd(t, "", "produce", "-b", addr, "-t", "ours", "-l", filepath.Join(dir, "missing")); code != exitInput || errs == "" {
		t.Errorf("-l missing: exit %d, stderr %q", code, errs)
	}
}

// kcatSeeded starts a two-broker cluster whose topic "m" (2 partitions)
// kcat filled with awkward records: null, empty and binary keys and
// values, JSON-hostile bytes, headers with null values.
func kcatSeeded(t *testing.T) string {
	t.Helper()
	needKcat(t)
	c := startCluster(t, kfake.NumBrokers(2), kfake.SeedTopics(2, "m"))
	addr := c.ListenAddrs()[0]
	in := "k1|v1\nnokey\n|emptykey\nnull value|\n" +
		"a\"b\\c/d\x01\x1f\x7f\xc3\xa9\xff\t\r\x08\x0c|\x00bin\x02ary\n"
	kcatOn(t, in, "-P", "-b", addr, "-t", "m", "-p", "0", "-K", "|", "-Z", "-H", "h1=x\"y", "-H", "nullh", "-H", "h1=again")
	kcatOn(t, "plain\nother\n", "-P", "-b", addr, "-t", "m", "-p", "1")
	return addr
}

// TestConsumeKcatFormats: -f, -K, -D, -Z and -J print what kcat -C prints
// with the same flags, byte for byte, on the same topic.
func TestConsumeKcatFormats(t *testing.T) {
	addr := kcatSeeded(t)
	for _, args := range [][]string{
		{"-f", kcatRecordsFormat},
		{"-f", `%t %p %o %T [%h] %R|%k|%s\n`},
		{"-f", `\x41\t\065%%\r\x7e%S\x4142\65\0x41\q\n`},
		{"-f", `%k=%s;`, "-Z"},
		{},
		{"-K", "::"},
		{"-K", `\t`, "-D", "|", "-Z"},
		{"-J"},
		{"-J", "-D", `\n\n`},
		{"-J", "-p", "1"},
		{"-p", "0", "-o", "2", "-c", "2"},
		{"-p", "0", "-o", "-1"},
	} {
		for _, p := range []string{"0", "1"} {
			if slices.Contains(args, "-p") && p == "1" {
				continue
			}
			common := []string{"-b", addr, "-t", "m", "-e", "-q"}
			if !slices.Contains(args, "-p") {
				common = append(common, "-p", p) // one partition: kcat's order across partitions varies
			}
			theirs := kcatOn(t, "", append(append(append([]string{"-C", "-o", "beginning"}, kcatFast...), common...), args...)...)
			code, ours, errs := runClientCmd(t, "", append(append([]string{"consume"}, common...), args...)...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, errs)
			}
			if ours != theirs {
				t.Errorf("%v -p %s: we print\n%q\nkcat prints\n%q", args, p, ours, theirs)
			}
			if theirs == "" {
				t.Errorf("%v: kcat printed nothing", args)
			}
		}
	}
}

// TestConsumeQueryKcat: -Q prints the offsets kcat -Q prints, as text and
// with -J (kcat ends that object without a newline; ours is a line).
func TestConsumeQueryKcat(t *testing.T) {
	needKcat(t)
	c := startCluster(t, kfake.SeedTopics(3, "qa"), kfake.SeedTopics(1, "qb"))
	addr := c.ListenAddrs()[0]
	t0 := time.UnixMilli(1700000000000)
	var recs []client.Record
	for range 5 {
		recs = append(recs, client.Record{Value: []byte("x")})
	}
	seed(t, addr, "qa", 1, t0, recs...)
	seed(t, addr, "qa", 2, t0, recs[:3]...)
	seed(t, addr, "qb", 0, t0, recs[:2]...)
	ms := func(d time.Duration) string { return strconv.FormatInt(t0.Add(d).UnixMilli(), 10) }
	var args []string
	for _, q := range []string{"qb:0:-1", "qa:1:" + ms(2500*time.Millisecond), "qa:0:-2", "qa:2:" + ms(time.Hour)} {
		args = append(args, "-t", q)
	}
	theirs := kcatOn(t, "", append([]string{"-Q", "-b", addr}, args...)...)
	code, ours, errs := runClientCmd(t, "", append([]string{"consume", "-Q", "-b", addr}, args...)...)
	if code != 0 || ours != theirs {
		t.Errorf("-Q: exit %d, we print\n%s\nkcat prints\n%s\n%s", code, ours, theirs, errs)
	}
	if want := "qa [0] offset 0\nqa [1] offset 3\nqa [2] offset -1\nqb [0] offset 2\n"; theirs != want {
		t.Errorf("kcat -Q printed %q", theirs)
	}
	theirs = kcatOn(t, "", append([]string{"-Q", "-J", "-b", addr}, args...)...)
	code, ours, errs = runClientCmd(t, "", append([]string{"consume", "-Q", "-J", "-b", addr}, args...)...)
	if code != 0 || ours != theirs+"\n" {
		t.Errorf("-Q -J: exit %d, we print\n%s\nkcat prints\n%s\n%s", code, ours, theirs, errs)
	}
	for _, bad := range [][]string{{"-t", "qa"}, {"-t", "qa:x:1"}, {"-t", "qa:0:1", "-t", "qa:0:2"}, {}} {
		if code, _, errs := runClientCmd(t, "", append([]string{"consume", "-Q", "-b", addr}, bad...)...); code != exitUsage || errs == "" {
			t.Errorf("-Q %v: exit %d, stderr %q", bad, code, errs)
		}
	}
}

// TestConsumeTimeRange: -o s@MS starts and -o e@MS stops where kcat's do.
func TestConsumeTimeRange(t *testing.T) {
	needKcat(t)
	c := startCluster(t, kfake.SeedTopics(1, "tr"))
	addr := c.ListenAddrs()[0]
	t0 := time.UnixMilli(1700000000000)
	var recs []client.Record
	for i := range 6 {
		recs = append(recs, client.Record{Value: []byte{byte('a' + i)}})
	}
	seed(t, addr, "tr", 0, t0, recs...)
	ms := func(d time.Duration) string { return strconv.FormatInt(t0.Add(d).UnixMilli(), 10) }
	for _, o := range [][]string{
		{"-o", "s@" + ms(1500*time.Millisecond)},
		{"-o", "s@" + ms(time.Second), "-o", "e@" + ms(4*time.Second)},
		{"-o", "e@" + ms(2500*time.Millisecond)},
	} {
		theirs := kcatOn(t, "", append(append([]string{"-C", "-b", addr, "-t", "tr", "-p", "0", "-e", "-q"}, kcatFast...), o...)...)
		code, ours, errs := runClientCmd(t, "", append([]string{"consume", "-b", addr, "-t", "tr", "-p", "0", "-e", "-q"}, o...)...)
		if code != 0 || ours != theirs || theirs == "" {
			t.Errorf("%v: exit %d, we print %q, kcat %q (%s)", o, code, ours, theirs, errs)
		}
	}
}

// TestBrokerJSONKcat: broker -J prints kcat -L -J's object (kcat ends it
// without a newline; ours is a line), for all topics, one topic, and a
// topic the cluster does not have; --format json is the same.
func TestBrokerJSONKcat(t *testing.T) {
	needKcat(t)
	c := startCluster(t, kfake.NumBrokers(3), kfake.SeedTopics(3, "orders"))
	for i, addr := range c.ListenAddrs()[:2] {
		for _, args := range [][]string{{}, {"-t", "orders"}, {"-t", "missing"}} {
			theirs := kcatOn(t, "", append([]string{"-L", "-J", "-b", addr}, args...)...)
			flag := []string{"-J"}
			if i == 1 {
				flag = []string{"--format", "json"}
			}
			code, ours, errs := runClientCmd(t, "", append(append([]string{"broker", "-b", addr}, flag...), args...)...)
			if code != 0 || ours != theirs+"\n" {
				t.Errorf("%s %v: exit %d, we print\n%s\nkcat prints\n%s\n%s", addr, args, code, ours, theirs, errs)
			}
		}
	}
	if !strings.Contains(kcatOn(t, "", "-L", "-J", "-b", c.ListenAddrs()[0], "-t", "missing"), `"error":"Broker: Unknown topic or partition"`) {
		t.Error("kcat reports no error for a missing topic")
	}
}
