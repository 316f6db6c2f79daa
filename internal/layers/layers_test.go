package layers

import (
	"os"
	"os/exec"
	"path"
	"strings"
	"testing"
)

// graph runs scripts/imports.sh: each package of the module with the
// module's packages it imports, paths relative to the module.
func graph(t *testing.T) (lines []string, imports map[string][]string) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command("bash", "../../scripts/imports.sh").Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("scripts/imports.sh: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	imports = map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, deps, ok := strings.Cut(l, " ->")
		if !ok {
			t.Fatalf("scripts/imports.sh: line %q", l)
		}
		lines = append(lines, l)
		imports[pkg] = strings.Fields(deps)
	}
	if len(imports) < 10 {
		t.Fatalf("scripts/imports.sh listed %d packages", len(imports))
	}
	return lines, imports
}

// rule forbids the packages matching from to import the packages matching
// any of to, except those in allow. Patterns are path.Match patterns;
// "x/..." matches x and everything below it, "..." every package.
type rule struct {
	why        string
	from, to   []string
	exceptFrom []string // importers the rule does not bind
	allow      []string // imports the rule allows
}

// forbids reports whether r forbids pkg to import dep.
func (r rule) forbids(pkg, dep string) bool {
	return dep != pkg && match(r.from, pkg) && !match(r.exceptFrom, pkg) && match(r.to, dep) && !match(r.allow, dep)
}

func match(patterns []string, pkg string) bool {
	for _, p := range patterns {
		if p == "..." {
			return true
		}
		if base, ok := strings.CutSuffix(p, "/..."); ok {
			if pkg == base || strings.HasPrefix(pkg, base+"/") {
				return true
			}
			continue
		}
		if ok, _ := path.Match(p, pkg); ok {
			return true
		}
	}
	return false
}

// outputs are the packages that consume exchanges (views, statistics,
// exports, filters); the core of dissect must not know them.
var outputs = []string{"output/..."}

// testOnly are helpers for tests, benchmarks and scripts.
var testOnly = []string{"internal/testcap", "internal/tlstest", "internal/kfakebroker", "internal/franzclient", "internal/capgen", "internal/capedit", "bench/...", "scripts/..."}

var rules = []rule{
	{why: "codec is the wire format and imports nothing of ours but its schema",
		from: []string{"codec/..."}, to: []string{"..."}, allow: []string{"codec/schema"}},
	{why: "client speaks the protocol through codec alone",
		from: []string{"client/..."}, to: []string{"..."}, allow: []string{"codec", "codec/..."}},
	{why: "dissect's core (capture to exchanges) knows nothing of what consumes exchanges, nor of the client",
		from: []string{"dissect/..."},
		to:   append([]string{"client/...", "replay/...", "cmd/..."}, outputs...)},
	{why: "replay reads exchanges and sends through client; it knows no output",
		from: []string{"replay/..."}, to: outputs},
	{why: "of the outputs only the sink speaks to a broker (output/kcat prints what the client fetched, in kcat's formats)",
		from: outputs, exceptFrom: []string{"output/sink", "output/kcat"}, to: []string{"client/..."}},
	{why: "the pipeline knows the outputs only as taps (output.Tap), and the exchange filters",
		from: []string{"output/pipeline"}, to: outputs, allow: []string{"output", "output/filter"}},
	{why: "nothing imports a command",
		from: []string{"..."}, to: []string{"cmd/..."}},
	{why: "replay is used by the CLI only",
		from: []string{"..."}, exceptFrom: []string{"cmd/kdissect", "replay/..."}, to: []string{"replay/..."}},
	{why: "the schema is the generator's input: the rest reads the codec's generated field metadata (codec.FieldInfo), not the schema at run time",
		from: []string{"..."}, exceptFrom: []string{"codec/internal/gen", "codec/schema"}, to: []string{"codec/schema"}},
	{why: "the product does not link test helpers",
		from: []string{"codec/...", "client/...", "dissect/...", "output/...", "replay/...", "cmd/...", "internal/ordered", "internal/histogram", "internal/outfile"}, to: testOnly},
}

// TestImportRules holds every package's imports to the rules.
func TestImportRules(t *testing.T) {
	_, imports := graph(t)
	for pkg, deps := range imports {
		for _, dep := range deps {
			for _, r := range rules {
				if r.forbids(pkg, dep) {
					t.Errorf("%s imports %s: %s", pkg, dep, r.why)
				}
			}
		}
	}
}

// TestRulesCatchBackwardImport checks the check: imports that run
// backwards are each caught by a rule.
func TestRulesCatchBackwardImport(t *testing.T) {
	for _, c := range [][2]string{
		{"codec", "dissect"}, {"client", "dissect"}, {"dissect", "output/render"},
		{"dissect", "client"}, {"output/render", "cmd/kdissect"}, {"output/stats", "internal/testcap"},
		{"output/render", "replay"}, {"dissect/live", "output/stats"}, {"replay", "output/stats"},
		{"output/render", "client"}, {"output/render", "codec/schema"}, {"replay", "codec/schema"}, {"output/pipeline", "output/render"},
	} {
		caught := false
		for _, r := range rules {
			caught = caught || r.forbids(c[0], c[1])
		}
		if !caught {
			t.Errorf("%s importing %s is not caught", c[0], c[1])
		}
	}
}

// TestArchitectureDocGraph holds the graph quoted in docs/architecture.md
// (the fenced block after "<!-- imports.sh -->") to the graph as it is.
func TestArchitectureDocGraph(t *testing.T) {
	lines, _ := graph(t)
	b, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "<!-- imports.sh -->\n```\n")
	if !ok {
		t.Fatal("docs/architecture.md: no \"<!-- imports.sh -->\" block")
	}
	quoted, _, ok := strings.Cut(after, "```")
	if !ok {
		t.Fatal("docs/architecture.md: the imports block is not closed")
	}
	want := strings.Join(lines, "\n") + "\n"
	if quoted != want {
		t.Errorf("docs/architecture.md quotes another import graph than scripts/imports.sh prints; replace the block with:\n%s", want)
	}
}
