package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// runCmd runs the command line and returns its exit status and output.
func runCmd(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	rc := run(args, strings.NewReader(""), &out, &errOut)
	return rc, out.String(), errOut.String()
}

// A typo gets the command it may be; the bare command names every
// command; --version says which build this is.
func TestRootCommand(t *testing.T) {
	rc, _, stderr := runCmd("raed", "x.pcap")
	if rc != exitUsage || !strings.Contains(stderr, `unknown command "raed"; did you mean read?`) {
		t.Errorf("raed: rc %d, stderr %q", rc, stderr)
	}
	rc, _, stderr = runCmd("stat")
	if rc != exitUsage || !strings.Contains(stderr, "did you mean stats?") {
		t.Errorf("stat: rc %d, stderr %q", rc, stderr)
	}
	rc, _, stderr = runCmd()
	for _, name := range []string{"read", "live", "stats", "decode", "apis", "replay", "broker", "produce", "consume", "man"} {
		if rc != exitUsage || !strings.Contains(stderr, name+",") && !strings.HasSuffix(strings.TrimSpace(stderr), name) {
			t.Errorf("bare command: rc %d, %q not named in %q", rc, name, stderr)
		}
	}
	rc, stdout, _ := runCmd("--version")
	if rc != exitOK || !strings.HasPrefix(stdout, "kdissect ") || !strings.Contains(stdout, runtime.Version()) {
		t.Errorf("--version: rc %d, %q", rc, stdout)
	}
}

// A binary built from a checkout says its revision, as git has it.
func TestVersionRevision(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skip("not a git checkout:", err)
	}
	top, _ := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if st, err := os.Stat(filepath.Join(strings.TrimSpace(string(top)), ".git")); err != nil || !st.IsDir() {
		t.Skip("a git worktree (.git is a file): the go command stamps no revision there")
	}
	bin := filepath.Join(t.TempDir(), "kdissect")
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".")
	build.Env = append(os.Environ(), "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "revision " + strings.TrimSpace(string(head)); !strings.Contains(string(out), want) {
		t.Errorf("--version %q: want %q", out, want)
	}
}

// man writes a page per command, each naming its command.
func TestManPages(t *testing.T) {
	dir := t.TempDir()
	if rc, _, stderr := runCmd("man", dir); rc != exitOK {
		t.Fatalf("man: rc %d: %s", rc, stderr)
	}
	for _, name := range []string{"kdissect.1", "kdissect-read.1", "kdissect-stats.1", "kdissect-replay.1", "kdissect-consume.1"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		cmd := strings.TrimSuffix(name, ".1")
		if !bytes.Contains(b, []byte(".TH \"KDISSECT\"")) || !bytes.Contains(b, []byte(cmd)) {
			t.Errorf("%s does not look like the page of %s:\n%.300s", name, cmd, b)
		}
	}
	if rc, _, errs := runCmd("man", filepath.Join(dir, "new", "man1")); rc != exitOK {
		t.Errorf("man into a directory to make: rc %d %s", rc, errs)
	} else if _, err := os.Stat(filepath.Join(dir, "new", "man1", "kdissect.1")); err != nil {
		t.Error(err)
	}
	if rc, _, _ := runCmd("man", filepath.Join(dir, "kdissect.1")); rc != exitInput {
		t.Errorf("man into a file: rc %d", rc)
	}
}

// Flag values complete: formats, API names by prefix, interfaces.
func TestFlagCompletion(t *testing.T) {
	complete := func(args ...string) []string {
		_, out, _ := runCmd(append([]string{"__complete"}, args...)...)
		var vals []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if !strings.HasPrefix(l, ":") {
				vals = append(vals, l)
			}
		}
		return vals
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"read", "--format", ""}, []string{"summary", "detail", "hexdump", "json", "fields", "csv", "parquet"}},
		{[]string{"apis", "--format", ""}, []string{"table", "json"}},
		{[]string{"read", "--api", "Produ"}, []string{"Produce"}},
		{[]string{"stats", "--api", "sasl"}, []string{"SaslHandshake", "SaslAuthenticate"}},
	} {
		if got := complete(tc.args...); !slices.Equal(got, tc.want) {
			t.Errorf("complete %q: %q, want %q", tc.args, got, tc.want)
		}
	}
	if got := complete("live", "-i", ""); !slices.Contains(got, "lo") || !slices.Contains(got, "any") {
		t.Errorf("complete live -i: %q, want lo and any among them", got)
	}
}

// -r FILE reads a capture as naming it does, in read, stats and replay's
// dry run, as tcpdump -r and tshark -r do.
func TestReadFlag(t *testing.T) {
	const f = "../../testdata/pcaps/kcat_produce_lz4.pcap"
	for _, cmd := range [][]string{{"read", "--format", "json"}, {"stats", "--format", "json"}, {"replay", "--dry-run", "-b", "127.0.0.1:1", "--format", "json"}} {
		rc1, named, _ := runCmd(append(slices.Clone(cmd), f)...)
		rc2, flagged, errs := runCmd(append(slices.Clone(cmd), "-r", f)...)
		took := regexp.MustCompile(`"duration_us":\d+`) // replay's report says how long it took
		named, flagged = took.ReplaceAllString(named, ""), took.ReplaceAllString(flagged, "")
		if rc1 != exitOK || rc2 != exitOK || named != flagged || named == "" {
			t.Errorf("%s -r: exit %d and %d, same output %v: %s", cmd[0], rc1, rc2, named == flagged, errs)
		}
	}
	if rc, _, errs := runCmd("read"); rc != exitUsage || !strings.Contains(errs, "a capture is needed: FILE..., -r FILE, or - for standard input") {
		t.Errorf("read without a capture: exit %d, %q", rc, errs)
	}
}
