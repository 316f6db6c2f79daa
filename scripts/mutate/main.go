// Command mutate is mutation testing for codec/ and dissect/: it copies the
// repository to a temporary directory, applies typical bugs (mutants) one
// at a time to the copy, runs the mutated package's tests, and reports the
// mutants the tests did not notice (survivors).
//
//	go run ./scripts/mutate                 # the default sample, from the repository root
//	go run ./scripts/mutate -n 0            # every candidate mutant (slow)
//	go run ./scripts/mutate -list           # the mutants, not run
//	go run ./scripts/mutate -match framer.go:986   # one of them
//
// Mutants (each one change on one line):
//
//   - boundary: a comparison < ↔ <=, > ↔ >= in hand-written code;
//   - drop-check: an "if ...err != nil {" made never true;
//   - off-by-one: a "+ 1" or "- 1" term dropped;
//   - swap-fields: two consecutive fields of one type swapped in a
//     generated decoder and its encoder (codec/*_gen.go) alike, so that the
//     bytes still round-trip and only the names are wrong.
//
// Each mutant's package is tested in passes, each run only if the mutant
// survived the one before: a quick one (-failfast, the slowest tests
// skipped), the whole package suite, then the tests of every package that
// imports it (with -deps; the command's own tests catch what a package's
// miss). A mutant that does not compile is reported apart and not scored;
// one whose package's tests time out (-timeout, per pass) counts as
// killed, while a timeout of the importers' pass counts as a survivor (a
// loaded machine must not make kills). A survivor reviewed as equivalent
// (equivalent.go: it changes nothing a test could see) is reported with
// its reason and left out of the score.
// The repository is never changed: the copy is removed at the end. The
// copy sits beside a link to ../shared, so the tests see what they would
// in the repository.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"
)

// mutant is one bug: edits to lines of one file.
type mutant struct {
	op, file, desc string
	edits          []edit
}

// edit replaces line (1-based) old by new.
type edit struct {
	line     int
	old, new string
}

func (m mutant) String() string {
	return fmt.Sprintf("%s %s:%d: %s", m.op, m.file, m.edits[0].line, m.desc)
}

// oneLine is a mutant of one line.
func oneLine(op, file string, line int, old, new string) mutant {
	return mutant{op: op, file: file, desc: strings.TrimSpace(old) + "  →  " + strings.TrimSpace(new), edits: []edit{{line, old, new}}}
}

// handWritten are the files the boundary, drop-check and off-by-one
// mutants go to: the wire reader and writer, records, gaps, the framer and
// the TCP stages.
var handWritten = []string{
	"codec/reader.go", "codec/writer.go", "codec/gaps.go", "codec/record_batch.go", "codec/record_set.go",
	"codec/records.go", "codec/message_set.go", "codec/tagged.go", "codec/decode_support.go", "codec/header.go",
	"codec/compression.go",
	"dissect/framer.go", "dissect/reassembly.go", "dissect/matcher.go", "dissect/stream.go", "dissect/orderer.go",
}

// slowTests are skipped in the quick pass (each takes seconds; the full
// pass runs them).
const slowTests = "TestGappedFramesInterior|TestGappedFramesPcaps|TestGappedRecordSetEverywhere|TestGappedFramesCut|TestCutEveryFrameAtEveryOffset|TestReusedFourTuple|TestResponsesOutOfOrder"

var (
	reCompare  = regexp.MustCompile(` (<|<=|>|>=) `)
	reErrCheck = regexp.MustCompile(`^(\s*)if (.*\berr != nil.*) \{$`)
	reOffByOne = regexp.MustCompile(` [+-] 1\b`)
	reRead     = regexp.MustCompile(`^\s*s\.(\w+) = r\.(\w+)\(\)$`)
	reAppend   = regexp.MustCompile(`^\s*dst = (Append\w+)\(dst, s\.(\w+)\)$`)
	reFunc     = regexp.MustCompile(`^func \(s \*(\w+)\) (readFrom|appendTo)\(`)
)

func main() {
	n := flag.Int("n", 6, "mutants per kind, sampled (0: all)")
	seed := flag.Uint64("seed", 1, "sampling seed")
	timeout := flag.Duration("timeout", 5*time.Minute, "time limit of one test pass")
	list := flag.Bool("list", false, "list the mutants without running them")
	match := flag.String("match", "", "only the sampled mutants whose description matches this regular expression")
	deps := flag.Bool("deps", true, "test a package's importers too, for the mutants its own tests miss")
	depsTimeout := flag.Duration("deps-timeout", 15*time.Minute, "time limit of the importers' pass")
	flag.Parse()
	root, err := os.Getwd()
	if err == nil {
		_, err = os.Stat(filepath.Join(root, "go.mod"))
	}
	if err != nil {
		fatal("run from the repository root: %v", err)
	}
	ms, err := candidates(root, *n, *seed)
	if err != nil {
		fatal("%v", err)
	}
	if *match != "" {
		re, err := regexp.Compile(*match)
		if err != nil {
			fatal("-match: %v", err)
		}
		ms = slices.DeleteFunc(ms, func(m mutant) bool { return !re.MatchString(m.String()) })
	}
	if *list {
		for _, m := range ms {
			fmt.Println(m)
		}
		return
	}
	if err := run(root, ms, *timeout, *deps, *depsTimeout); err != nil {
		fatal("%v", err)
	}
}

func fatal(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "mutate: "+format+"\n", args...)
	os.Exit(1)
}

// candidates lists the mutants of every kind, n of each sampled by seed.
func candidates(root string, n int, seed uint64) ([]mutant, error) {
	byOp := map[string][]mutant{}
	for _, f := range handWritten {
		lines, err := readLines(filepath.Join(root, f))
		if err != nil {
			return nil, err
		}
		for i, l := range lines {
			code := strings.TrimSpace(l)
			if strings.HasPrefix(code, "//") {
				continue
			}
			if c, _, ok := strings.Cut(l, "//"); ok {
				l = c // comments after code are not mutated
			}
			for _, loc := range reCompare.FindAllStringSubmatchIndex(l, -1) {
				flip := map[string]string{"<": "<=", "<=": "<", ">": ">=", ">=": ">"}[l[loc[2]:loc[3]]]
				byOp["boundary"] = append(byOp["boundary"], oneLine("boundary", f, i+1, lines[i], l[:loc[2]]+flip+lines[i][loc[3]:]))
			}
			if m := reErrCheck.FindStringSubmatch(l); m != nil {
				// "&& false" keeps err used, so that the mutant compiles.
				cond := m[2]
				init, c, ok := strings.Cut(cond, "; ")
				if ok {
					init, cond = init+"; ", c
				} else {
					init = ""
				}
				byOp["drop-check"] = append(byOp["drop-check"], oneLine("drop-check", f, i+1, lines[i], m[1]+"if "+init+"("+cond+") && false {"))
			}
			for _, loc := range reOffByOne.FindAllStringIndex(l, -1) {
				byOp["off-by-one"] = append(byOp["off-by-one"], oneLine("off-by-one", f, i+1, lines[i], lines[i][:loc[0]]+lines[i][loc[1]:]))
			}
		}
	}
	gens, err := filepath.Glob(filepath.Join(root, "codec", "*_gen.go"))
	if err != nil {
		return nil, err
	}
	sort.Strings(gens)
	for _, g := range gens {
		swaps, err := fieldSwaps(root, g)
		if err != nil {
			return nil, err
		}
		byOp["swap-fields"] = append(byOp["swap-fields"], swaps...)
	}
	var out []mutant
	for _, op := range []string{"boundary", "drop-check", "off-by-one", "swap-fields"} {
		ms := byOp[op]
		rng := rand.New(rand.NewPCG(seed, uint64(len(op))))
		rng.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
		if n > 0 && len(ms) > n {
			ms = ms[:n]
		}
		out = append(out, ms...)
	}
	return out, nil
}

// fieldSwaps finds, in a generated file, consecutive fields of one struct
// read by the same Reader method (so of one type) and written by the same
// Append function, and returns the mutant swapping both their reads and
// their writes.
func fieldSwaps(root, path string) ([]mutant, error) {
	lines, err := readLines(path)
	if err != nil {
		return nil, err
	}
	rel, _ := filepath.Rel(root, path)
	type site struct {
		line      int
		field, fn string
	}
	reads, writes := map[string][]site{}, map[string]map[string]site{}
	var typ, fn string
	for i, l := range lines {
		if m := reFunc.FindStringSubmatch(l); m != nil {
			typ, fn = m[1], m[2]
			continue
		}
		if strings.HasPrefix(l, "func ") {
			typ, fn = "", ""
		}
		switch fn {
		case "readFrom":
			if m := reRead.FindStringSubmatch(l); m != nil {
				reads[typ] = append(reads[typ], site{i + 1, m[1], m[2]})
			}
		case "appendTo":
			if m := reAppend.FindStringSubmatch(l); m != nil {
				if writes[typ] == nil {
					writes[typ] = map[string]site{}
				}
				writes[typ][m[2]] = site{i + 1, m[2], m[1]}
			}
		}
	}
	var out []mutant
	types := make([]string, 0, len(reads))
	for t := range reads {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		rs := reads[t]
		for k := 0; k+1 < len(rs); k++ {
			a, b := rs[k], rs[k+1]
			wa, okA := writes[t][a.field]
			wb, okB := writes[t][b.field]
			// Each read must be written once, by the same function, and
			// the two must sit apart in the same order in both.
			if a.fn != b.fn || !okA || !okB || wa.fn != wb.fn || countField(lines, a.field, "= r.") != 1 || countField(lines, b.field, "= r.") != 1 {
				continue
			}
			swap := func(s site, from, to string) edit {
				old := lines[s.line-1]
				return edit{s.line, old, strings.Replace(old, from, to, 1)}
			}
			out = append(out, mutant{
				op: "swap-fields", file: rel,
				desc: fmt.Sprintf("%s: %s ↔ %s (%s) in readFrom and appendTo", t, a.field, b.field, a.fn),
				edits: []edit{
					swap(a, "s."+a.field+" =", "s."+b.field+" ="),
					swap(b, "s."+b.field+" =", "s."+a.field+" ="),
					swap(wa, "s."+a.field+")", "s."+b.field+")"),
					swap(wb, "s."+b.field+")", "s."+a.field+")"),
				},
			})
		}
	}
	return out, nil
}

// countField counts the lines assigning field from a Reader ("s.F = r.").
func countField(lines []string, field, _ string) int {
	n := 0
	for _, l := range lines {
		if m := reRead.FindStringSubmatch(l); m != nil && m[1] == field {
			n++
		}
	}
	return n
}

func readLines(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return strings.Split(string(b), "\n"), nil
}

// result is what the tests made of a mutant.
type result string

const (
	killed     result = "killed"
	timedOut   result = "killed (timeout)"
	byImporter result = "killed by importers"
	survived   result = "SURVIVED"
	equiv      result = "equivalent"
	stillborn  result = "does not compile"
)

// run copies the repository, tests each mutant in the copy and reports.
func run(root string, ms []mutant, timeout time.Duration, deps bool, depsTimeout time.Duration) error {
	tmp, err := os.MkdirTemp("", "kdissect-mutate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	repo := filepath.Join(tmp, "repo")
	if err := copyRepo(root, repo); err != nil {
		return err
	}
	if shared, err := filepath.Abs(filepath.Join(root, "..", "shared")); err == nil {
		if _, err := os.Stat(shared); err == nil {
			if err := os.Symlink(shared, filepath.Join(tmp, "shared")); err != nil {
				return err
			}
		}
	}
	var importers map[string][]string
	if deps {
		if importers, err = importersOf(repo); err != nil {
			return err
		}
	}
	count := map[result]int{}
	var survivors, equivalents []string
	start := time.Now()
	for i, m := range ms {
		t0 := time.Now()
		r, why, err := try(repo, m, timeout, depsTimeout, importers["./"+filepath.Dir(m.file)])
		if err != nil {
			return fmt.Errorf("%s: %w", m, err)
		}
		if r == survived {
			lines, err := readLines(filepath.Join(repo, m.file))
			if err != nil {
				return err
			}
			if rv, ok := equivalentOf(m, lines); ok {
				r = equiv
				equivalents = append(equivalents, m.String()+"\n    "+rv.why)
			} else {
				survivors = append(survivors, m.String())
			}
		}
		count[r]++
		if why != "" {
			why = ", " + why
		}
		fmt.Printf("[%d/%d] %-19s %s (%s%s)\n", i+1, len(ms), r, m, time.Since(t0).Round(time.Second), why)
	}
	kills := count[killed] + count[timedOut] + count[byImporter]
	scored := kills + count[survived]
	fmt.Printf("\n%d mutants in %s: %d killed (%d by timeout, %d by importers' tests), %d survived, %d equivalent (reviewed, not scored), %d do not compile (not scored)\n",
		len(ms), time.Since(start).Round(time.Second), kills, count[timedOut], count[byImporter], count[survived], count[equiv], count[stillborn])
	if scored > 0 {
		fmt.Printf("score: %.1f%% killed (%d of %d); %.1f%% survived\n", 100*float64(kills)/float64(scored), kills, scored, 100*float64(count[survived])/float64(scored))
	}
	for _, s := range survivors {
		fmt.Println("survivor:", s)
	}
	for _, s := range equivalents {
		fmt.Println("equivalent:", s)
	}
	return nil
}

// importersOf maps each package directory (./codec) to the directories of
// the packages that import it, directly or not, and have tests.
func importersOf(repo string) (map[string][]string, error) {
	cmd := exec.Command("go", "list", "-f", `{{if or .TestGoFiles .XTestGoFiles}}{{.Dir}}{{range .Deps}} {{.}}{{end}}{{end}}`, "./...")
	cmd.Dir = repo
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	mod, err := exec.Command("go", "list", "-m").Output()
	if err != nil {
		return nil, fmt.Errorf("go list -m: %w", err)
	}
	prefix := strings.TrimSpace(string(mod)) + "/"
	rel := func(dir string) string {
		r, err := filepath.Rel(repo, dir)
		if err != nil {
			return dir
		}
		return "./" + r
	}
	m := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		for _, d := range f[1:] {
			if strings.HasPrefix(d, prefix) {
				dep := "./" + strings.TrimPrefix(d, prefix)
				m[dep] = append(m[dep], rel(f[0]))
			}
		}
	}
	return m, nil
}

// copyRepo copies the files git tracks (as they are in the work tree).
func copyRepo(root, dst string) error {
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		return fmt.Errorf("git ls-files: %w", err)
	}
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		b, err := os.ReadFile(filepath.Join(root, f))
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted in the work tree
		}
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, f)), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, f), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// try applies m in repo, tests its package (then its importers, if any
// are given) and restores the file.
// The failing tests of a kill by importers are said in why, and run again
// first: a failure that does not repeat is no kill.
func try(repo string, m mutant, timeout, depsTimeout time.Duration, importers []string) (r result, why string, err error) {
	path := filepath.Join(repo, m.file)
	orig, err := os.ReadFile(path)
	if err != nil {
		return "", "", err
	}
	lines := strings.Split(string(orig), "\n")
	for _, e := range m.edits {
		if lines[e.line-1] != e.old {
			return "", "", fmt.Errorf("line %d is not what was listed", e.line)
		}
		lines[e.line-1] = e.new
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		return "", "", err
	}
	defer os.WriteFile(path, orig, 0o644)
	pkg := "./" + filepath.Dir(m.file)
	passes := [][]string{
		{"test", "-count=1", "-failfast", "-skip", slowTests, pkg},
		{"test", "-count=1", pkg},
	}
	if len(importers) > 0 {
		passes = append(passes, append([]string{"test", "-count=1", "-failfast"}, importers...))
	}
	for i, args := range passes {
		limit := timeout
		if i == 2 {
			limit = depsTimeout
		}
		out, err := goCmd(repo, limit, args...)
		switch {
		case errors.Is(err, context.DeadlineExceeded) && i == 2:
			return survived, "the importers' pass timed out", nil // no kill from a loaded machine
		case errors.Is(err, context.DeadlineExceeded):
			return timedOut, "", nil
		case err != nil && i == 2 && !bytes.Contains(out, []byte("[build failed]")):
			// A long suite on a loaded machine can fail by chance: the
			// failing tests are run again, and the kill stands only if
			// they fail again.
			failed := failedTests(out)
			if len(failed) == 0 {
				return byImporter, "(no test named: a panic or a build error)", nil
			}
			names := make([]string, len(failed))
			for k, f := range failed {
				names[k] = regexp.QuoteMeta(strings.SplitN(f, "/", 2)[0])
			}
			again := append([]string{"test", "-count=1", "-run", "^(" + strings.Join(names, "|") + ")$"}, importers...)
			if _, err := goCmd(repo, depsTimeout, again...); err == nil {
				return survived, "the importers' failure (" + strings.Join(failed, " ") + ") did not repeat", nil
			}
			return byImporter, strings.Join(failed, " "), nil
		case err != nil && (bytes.Contains(out, []byte("[build failed]")) || bytes.Contains(out, []byte("[setup failed]"))):
			return stillborn, "", nil
		case err != nil:
			return killed, "", nil
		}
	}
	return survived, "", nil
}

var reFail = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`)

// failedTests are the names go test printed as failing.
func failedTests(out []byte) []string {
	var names []string
	for _, m := range reFail.FindAllSubmatch(out, -1) {
		names = append(names, string(m[1]))
	}
	return names
}

// goCmd runs the go command in dir, killing its process group at timeout.
func goCmd(dir string, timeout time.Duration, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return out, context.DeadlineExceeded
	}
	return out, err
}
