//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
)

// needKcat skips the test when kcat is not on PATH (.ci/run installs it).
func needKcat(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("kcat"); err != nil {
		t.Skip("kcat not on PATH")
	}
}

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
		return kcatOn(t, "", "-C", "-b", addr, "-t", topic, "-o", "beginning", "-e", "-q", "-f", kcatRecordsFormat)
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
