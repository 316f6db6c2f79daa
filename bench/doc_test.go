// Package bench holds the benchmark scripts and their tools; this test
// keeps the figures the documentation quotes to what bench/run.sh wrote.
package bench

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

const (
	begin = "<!-- bench/run.sh: begin -->"
	end   = "<!-- bench/run.sh: end -->"
)

// speedFigure matches a speed a person might type: "41×", "7.4x
// faster", "254 MB/s", "2 GB/s".
var speedFigure = regexp.MustCompile(`\b\d+(\.\d+)?\s*(×|x faster|[MG]B/s)`)

// block returns the text of doc's one marked block and doc without it.
func block(t *testing.T, name string) (inside, outside string) {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if strings.Count(s, begin) != 1 || strings.Count(s, end) != 1 {
		t.Fatalf("%s: want exactly one %q … %q block", name, begin, end)
	}
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if j < i {
		t.Fatalf("%s: the block's end comes before its beginning", name)
	}
	return s[i+len(begin) : j], s[:i] + s[j+len(end):]
}

// stamp is the line bench/run.sh writes with each table.
var stamp = regexp.MustCompile("Written by `[^`]*bench/run.sh[^`]*` at commit [0-9a-f]{7,}\\S* on \\d{4}-\\d{2}-\\d{2}, on \\d+ cores")

// TestReadmeFiguresFromBench holds the README to the rule that no speed
// figure is typed by hand: every one is inside the block bench/run.sh
// writes, and that block says which command, commit and date gave it.
// docs/performance.md's block is held to the same stamp.
func TestReadmeFiguresFromBench(t *testing.T) {
	inside, outside := block(t, "../README.md")
	if m := speedFigure.FindAllString(outside, -1); m != nil {
		t.Errorf("README.md quotes speed figures outside bench/run.sh's block: %q", m)
	}
	if !stamp.MatchString(inside) || !speedFigure.MatchString(inside) {
		t.Errorf("README.md's block holds no figures stamped by bench/run.sh:\n%s", inside)
	}
	inside, _ = block(t, "../docs/performance.md")
	if !stamp.MatchString(inside) || !speedFigure.MatchString(inside) {
		t.Errorf("docs/performance.md's block holds no figures stamped by bench/run.sh:\n%s", inside)
	}
}
