package main

import (
	"bytes"
	"encoding/json"
	"io"
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
		if code != 2 || !strings.Contains(stderr, "would destroy the input") {
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

// TestOutputIsNotAnInputInEveryForm: the file on standard input (read
// -), a hard link to the capture, a key log read (--tls-keylog or
// SSLKEYLOGFILE) and replay's appended key log are inputs too: each is
// refused with exit 2, and the input is left as it was.
func TestOutputIsNotAnInputInEveryForm(t *testing.T) {
	orig, err := os.ReadFile("../../testdata/pcaps/kcat_produce_gzip.pcap")
	if err != nil {
		t.Fatal(err)
	}
	keyLines := []byte("CLIENT_RANDOM " + strings.Repeat("ab", 32) + " " + strings.Repeat("cd", 48) + "\n")
	dir := t.TempDir()
	in, keys, hard := filepath.Join(dir, "in.pcap"), filepath.Join(dir, "keys.log"), filepath.Join(dir, "hard.pcap")
	for _, c := range []struct {
		args  []string
		stdin bool   // in on standard input
		env   string // SSLKEYLOGFILE
		input string // the file that must be left as it was
	}{
		{args: []string{"read", "-", "-w", in}, stdin: true, input: in},
		{args: []string{"read", "-q", "-r", "-", "--format", "parquet", "-w", in}, stdin: true, input: in},
		{args: []string{"report", "-", "-o", in}, stdin: true, input: in},
		{args: []string{"read", "-w", hard, in}, input: in},
		{args: []string{"report", hard, "-o", in}, input: in},
		{args: []string{"read", "--tls-keylog", keys, "-w", keys, in}, input: keys},
		{args: []string{"read", "--tls-keylog", keys, "--format", "parquet", "-w", filepath.Join(dir, "x.parquet"), "--parquet-records", keys, in}, input: keys},
		{args: []string{"read", "-w", keys, in}, env: keys, input: keys},
		{args: []string{"report", in, "--tls-keylog", keys, "-o", keys}, input: keys},
		{args: []string{"live", "-i", "kdissect-none0", "--tls-keylog", keys, "-w", keys}, input: keys},
		{args: []string{"replay", in, "--broker", "127.0.0.1:1", "--tls-keylog-out", hard}, input: in},
		{args: []string{"replay", in, "--tls-keylog", keys, "--broker", "127.0.0.1:1", "--tls-keylog-out", keys}, input: keys},
		// produce's messages: the keys appended would be produced.
		{args: []string{"produce", "-b", "127.0.0.1:1", "-t", "x", "-l", in, "--tls-keylog", hard}, input: in},
		{args: []string{"produce", "-b", "127.0.0.1:1", "-t", "x", in, "--tls-keylog", in}, input: in},
		{args: []string{"produce", "-b", "127.0.0.1:1", "-t", "x", "--tls-keylog", in}, stdin: true, input: in},
	} {
		os.Remove(hard)
		if err := os.WriteFile(in, orig, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(in, hard); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(keys, keyLines, 0o600); err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(c.input)
		t.Setenv("SSLKEYLOGFILE", c.env)
		stdin := io.Reader(strings.NewReader(""))
		if c.stdin {
			f, err := os.Open(in)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			stdin = f
		}
		var stdout, stderr bytes.Buffer
		code := run(c.args, stdin, &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), "would destroy") {
			t.Errorf("%q: exit %d, stderr %q; want 2 and a refusal", c.args, code, stderr.String())
		}
		if got, _ := os.ReadFile(c.input); !bytes.Equal(got, want) {
			t.Errorf("%q: the input %s was changed (%d bytes, was %d)", c.args, filepath.Base(c.input), len(got), len(want))
		}
		if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
			t.Errorf("%q: left %v", c.args, left)
		}
	}
	// Standard input that is not the output is no reason to refuse.
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stderr bytes.Buffer
	if code := run([]string{"read", "-q", "-", "-w", filepath.Join(dir, "out.pcapng")}, f, io.Discard, &stderr); code != 0 {
		t.Errorf("read - -w out.pcapng: exit %d: %s", code, stderr.String())
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
