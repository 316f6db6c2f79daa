package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestOutputIsNotAnInput: an output flag naming one of the inputs (by
// another name, or through a link) is a usage error found before any
// output is opened: the capture is left as it was.
func TestOutputIsNotAnInput(t *testing.T) {
	orig, err := os.ReadFile("../../testdata/pcaps/kcat_produce_gzip.pcap")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.pcap")
	link := filepath.Join(dir, "link.pcap")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"read", "-w", in, in},
		{"read", "-w", link, in},
		{"read", "-w", filepath.Join(dir, ".", "in.pcap"), "-r", in},
		{"read", "--format", "parquet", "-w", in, in},
		{"read", "--format", "parquet", "-w", filepath.Join(dir, "x.parquet"), "--parquet-records", in, in},
		{"report", in, "-o", in},
	} {
		if err := os.WriteFile(in, orig, 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, "would destroy the capture") {
			t.Errorf("%q: exit %d, stderr %q; want 2 and a refusal", args, code, stderr)
		}
		if got, _ := os.ReadFile(in); !bytes.Equal(got, orig) {
			t.Errorf("%q: the input was changed (%d bytes, was %d)", args, len(got), len(orig))
		}
	}
	// An output that is not an input is written.
	if code, _, stderr := runCLI(t, "read", "-w", filepath.Join(dir, "out.pcapng"), in); code != 0 {
		t.Errorf("read -w out.pcapng: exit %d: %s", code, stderr)
	}
}

// TestWriteCount: -c counts as an exchange filter for -w: the file holds
// the first N exchanges (read back, they come first and whole), not the
// whole capture.
func TestWriteCount(t *testing.T) {
	src := "../../testdata/pcaps/franz_groups.pcap"
	out := filepath.Join(t.TempDir(), "c2.pcapng")
	code, want, stderr := runCLI(t, "read", "--format", "json", "-c", "2", "-w", out, src)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, got, stderr := runCLI(t, "read", "--format", "json", out)
	if code != 0 {
		t.Fatalf("read back: exit %d: %s", code, stderr)
	}
	wantLines, gotLines := strings.Split(strings.TrimSpace(want), "\n"), strings.Split(strings.TrimSpace(got), "\n")
	_, all, _ := runCLI(t, "read", "--format", "json", src)
	if len(wantLines) != 2 || len(gotLines) < 2 || len(gotLines) >= strings.Count(all, "\n") {
		t.Fatalf("-c 2: %d lines shown, %d read back of %d in the capture", len(wantLines), len(gotLines), strings.Count(all, "\n"))
	}
	parse := func(lines []string) []map[string]any {
		var ms []map[string]any
		for _, l := range lines {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatal(err)
			}
			ms = append(ms, m)
		}
		return withoutNumbers(ms) // write_test.go
	}
	w, g := parse(wantLines), parse(gotLines[:2])
	if !reflect.DeepEqual(w, g) {
		t.Errorf("the first 2 exchanges read back differ from those shown:\n%v\n%v", g, w)
	}
}

// TestWriteAgainKeepsOneComment: a file read -w wrote, written again,
// carries each packet's kdissect comment once (made anew), and the same
// packets.
func TestWriteAgainKeepsOneComment(t *testing.T) {
	dir := t.TempDir()
	once, twice := filepath.Join(dir, "once.pcapng"), filepath.Join(dir, "twice.pcapng")
	if code, _, stderr := runCLI(t, "read", "-w", once, "../../testdata/pcaps/franz_groups.pcap"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "read", "-w", twice, once); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	a, b := packetsOf(t, once), packetsOf(t, twice)
	if len(a) != len(b) {
		t.Fatalf("%d packets written again, %d before", len(b), len(a))
	}
	commented := 0
	for i := range a {
		if !reflect.DeepEqual(a[i].comments, b[i].comments) {
			t.Errorf("packet %d: comments %q, first written %q", i+1, b[i].comments, a[i].comments)
		}
		commented += len(a[i].comments)
	}
	if commented == 0 {
		t.Fatal("no comments written")
	}
}

// TestFlagsThatDoNotApply: a flag that only means something with another
// is a usage error without it, not silently ignored.
func TestFlagsThatDoNotApply(t *testing.T) {
	c := "../../testdata/pcaps/kcat_produce_gzip.pcap"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"read", "--format", "json", "-e", "api", c}, "-e and --no-header go with --format fields or csv"},
		{[]string{"read", "--no-header", c}, "-e and --no-header go with --format fields or csv"},
		{[]string{"read", "--metrics-linger", "3s", c}, "--metrics-linger goes with --metrics"},
		{[]string{"read", "--metrics", "nonsense", c}, `--metrics "nonsense": want host:port`},
		{[]string{"live", "-i", "lo", "--metrics", "127.0.0.1:99999"}, `--metrics "127.0.0.1:99999": bad port`},
		{[]string{"read", "-q", "--format", "csv", "-e", "api", c}, "-q shows nothing"},
	} {
		code, _, stderr := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	if code, _, stderr := runCLI(t, "read", "--format", "csv", "-e", "api", "--no-header", c); code != 0 {
		t.Errorf("csv -e --no-header: exit %d: %s", code, stderr)
	}
}
