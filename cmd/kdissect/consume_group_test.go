package main

import (
	"context"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

// sortedLines returns the lines of out as numbers, sorted.
func sortedLines(t *testing.T, out string) []int {
	t.Helper()
	var n []int
	for _, l := range strings.Fields(out) {
		v, err := strconv.Atoi(l)
		if err != nil {
			t.Fatalf("line %q", l)
		}
		n = append(n, v)
	}
	slices.Sort(n)
	return n
}

func upTo(from, to int) []int {
	var n []int
	for i := from; i <= to; i++ {
		n = append(n, i)
	}
	return n
}

// consume -G: a group member reads every partition, commits what it
// printed, so that the group's next member (ours, then kcat's
// librdkafka) reads only what came after; two members at once share the
// partitions without reading a message twice.
func TestConsumeGroup(t *testing.T) {
	c := startCluster(t, kfake.NumBrokers(2), kfake.SeedTopics(4, "gt"))
	b := c.ListenAddrs()[0]
	produceLines := func(from, to int) {
		t.Helper()
		var in strings.Builder
		for i := from; i <= to; i++ {
			in.WriteString(strconv.Itoa(i) + "\n")
		}
		if code, _, errs := runClientCmd(t, in.String(), "produce", "-b", b, "-t", "gt"); code != 0 {
			t.Fatalf("produce: %s", errs)
		}
	}
	produceLines(1, 30)
	code, out, errs := runClientCmd(t, "", "consume", "-b", b, "-G", "g1", "gt", "-e")
	if code != 0 || !slices.Equal(sortedLines(t, out), upTo(1, 30)) || !strings.Contains(errs, "assigned gt [0 1 2 3]") {
		t.Fatalf("first member: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// Committed: the next member of the group reads nothing.
	if code, out, errs = runClientCmd(t, "", "consume", "-b", b, "-G", "g1", "gt", "-e"); code != 0 || out != "" {
		t.Fatalf("second member: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if code, out, _ = runClientCmd(t, "", "consume", "-b", b, "-G", "g2", "-t", "gt", "-e", "-o", "end"); code != 0 || out != "" {
		t.Errorf("a new group at -o end: exit %d, stdout %q", code, out)
	}

	// Two members at once: every message once, between them.
	produceLines(31, 70)
	var wg sync.WaitGroup
	outs := make([]string, 2)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, outs[i], _ = runClientCmd(t, "", "consume", "-b", b, "-G", "g1", "gt", "-c", "20", "-q")
		}()
		time.Sleep(200 * time.Millisecond)
	}
	wg.Wait()
	if got := sortedLines(t, outs[0]+outs[1]); !slices.Equal(got, upTo(31, 70)) {
		t.Errorf("two members read %v, want 31-70 once each", got)
	}

	// kcat, a member of the same group, starts where ours committed.
	if _, err := exec.LookPath("kcat"); err != nil {
		t.Skip("kcat not installed")
	}
	produceLines(71, 75)
	ctx, cancel := context.WithTimeout(context.Background(), hangCap)
	defer cancel()
	kout, err := exec.CommandContext(ctx, "kcat", "-b", b, "-G", "g1", "gt", "-e", "-q", "-X", "fetch.wait.max.ms=10").Output()
	if err != nil {
		t.Fatalf("kcat -G: %v", err)
	}
	if got := sortedLines(t, string(kout)); !slices.Equal(got, upTo(71, 75)) {
		t.Errorf("kcat -G in the group read %v, want 71-75", got)
	}
}
