package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/internal/capedit"
)

var update = flag.Bool("update", false, "rewrite the golden files of the views in testdata/golden")

const pcaps = "../../testdata/pcaps/"

// goldenCases are the views checked against golden files: every format on
// small real captures, with filters to keep the long views short.
var goldenCases = []struct {
	name string
	args []string
	snap int // read a copy of the capture (the last argument) cut to this snap length
}{
	{"summary_metadata_offsets", []string{"read", pcaps + "kcat_metadata_offsets.pcap"}, 0},
	{"summary_group", []string{"read", pcaps + "kcat_group.pcap"}, 0},
	{"json_metadata_offsets", []string{"read", "--format", "json", pcaps + "kcat_metadata_offsets.pcap"}, 0},
	{"detail_metadata_offsets", []string{"read", "--format", "detail", pcaps + "kcat_metadata_offsets.pcap"}, 0},
	{"detail_lz4_fetch", []string{"read", "--format", "detail", "--api", "Fetch", "-c", "1", pcaps + "kcat_produce_lz4.pcap"}, 0},
	{"detail_group_errors", []string{"read", "--format", "detail", "--errors", pcaps + "kcat_group.pcap"}, 0},
	{"detail_transactions_control", []string{"read", "--format", "detail", "--api", "Fetch", "--topic", "txn-out", "--stream", "26", "-c", "1", pcaps + "franz_transactions.pcap"}, 0},
	{"hexdump_lz4_produce", []string{"read", "--format", "hexdump", "--api", "Produce", "-c", "1", pcaps + "kcat_produce_lz4.pcap"}, 0},
	{"hexdump_legacy_gzip_wrapper", []string{"read", "--format", "hexdump", "--api", "Produce", "--topic", "m1-gzip", "-c", "1", pcaps + "kcat_legacy_msgset.pcap"}, 0},
	{"hexdump_list_offsets", []string{"read", "--format", "hexdump", "--api", "ListOffsets", pcaps + "kcat_metadata_offsets.pcap"}, 0},
	{"detail_snap256_lz4", []string{"read", "--format", "detail", "-c", "3", pcaps + "kcat_produce_lz4.pcap"}, 256},
	{"hexdump_snap256_lz4_produce", []string{"read", "--format", "hexdump", "--api", "Produce", "-c", "1", pcaps + "kcat_produce_lz4.pcap"}, 256},
	{"stats_group", []string{"stats", pcaps + "kcat_group.pcap"}, 0},
	{"stats_transactions", []string{"stats", pcaps + "franz_transactions.pcap"}, 0},
	{"stats_lz4_json", []string{"stats", "--format", "json", pcaps + "kcat_produce_lz4.pcap"}, 0},
	{"stats_interval_transactions", []string{"stats", "--interval", "500ms", pcaps + "franz_transactions.pcap"}, 0},
}

// TestGoldenViews checks each view against its golden file in
// testdata/golden; -update rewrites them (look at the diff before
// committing: they must be right, not just stable). Output to a buffer
// has no colour and no progress bar, and no width depends on a terminal.
func TestGoldenViews(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			if c.snap > 0 {
				c.args = append([]string(nil), c.args...)
				c.args[len(c.args)-1] = snapped(t, c.args[len(c.args)-1], c.snap)
			}
			code, out, errs := runCLI(t, c.args...)
			if code != 0 || errs != "" {
				t.Fatalf("exit %d, stderr %q", code, errs)
			}
			path := filepath.Join("testdata", "golden", c.name+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/kdissect -run TestGoldenViews -update)", err)
			}
			if out != string(want) {
				t.Errorf("output differs from %s (run with -update, and review the diff):\n%s", path, firstDiff(string(want), out))
			}
			// Frame buffers go back to the pool as each exchange is output;
			// poisoned there, they must change nothing of what is shown.
			_, poisoned, _ := runCLI(t, append(c.args, "--debug-poison-frames")...)
			if poisoned != string(want) {
				t.Errorf("with --debug-poison-frames, output differs from %s:\n%s", path, firstDiff(string(want), poisoned))
			}
		})
	}
}

// snapped writes a copy of the capture at path with every packet cut to
// snap bytes (internal/capedit) and returns its path.
func snapped(t *testing.T, path string, snap int) string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := capedit.Rewrite(&buf, bytes.NewReader(src), capedit.Options{Snap: snap}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(path), ".pcap")+"_snap"+strconv.Itoa(snap)+".pcap")
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// firstDiff shows the first line where two texts differ.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n  want " + wl + "\n  got  " + gl
		}
	}
	return "(same lines)"
}

// jsonLines runs a command writing JSON Lines and parses them.
func jsonLines(t *testing.T, args ...string) []map[string]any {
	t.Helper()
	code, out, errs := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errs)
	}
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, m)
	}
	return lines
}

// TestReadExchangeFilters checks each filter flag against the same
// selection made in the test from the unfiltered JSON Lines, and -c.
func TestReadExchangeFilters(t *testing.T) {
	for _, capture := range []string{pcaps + "franz_groups.pcap", pcaps + "franz_transactions.pcap", pcaps + "kcat_group.pcap"} {
		all := jsonLines(t, "read", "--format", "json", capture)
		hasTopic := func(ex map[string]any, name string) bool {
			for _, tp := range ex["topics"].([]any) {
				if tp.(map[string]any)["topic"] == name {
					return true
				}
			}
			return false
		}
		cases := []struct {
			flags []string
			keep  func(map[string]any) bool
		}{
			{[]string{"--api", "Fetch"}, func(ex map[string]any) bool { return ex["api"] == "Fetch" }},
			{[]string{"--api", "JoinGroup,SyncGroup"}, func(ex map[string]any) bool { return ex["api"] == "JoinGroup" || ex["api"] == "SyncGroup" }},
			{[]string{"--api", "12"}, func(ex map[string]any) bool { return ex["api"] == "Heartbeat" }},
			{[]string{"--errors"}, func(ex map[string]any) bool { return len(ex["errors"].([]any)) > 0 }},
			{[]string{"--stream", "4"}, func(ex map[string]any) bool { return ex["stream"] == 4.0 }},
			{[]string{"--client-id", "rdkafka"}, func(ex map[string]any) bool { return ex["client_id"] == "rdkafka" }},
			{[]string{"--client-id", "kdissect-groups-classic-1"}, func(ex map[string]any) bool { return ex["client_id"] == "kdissect-groups-classic-1" }},
			{[]string{"--topic", "grp"}, func(ex map[string]any) bool { return hasTopic(ex, "grp") }},
			{[]string{"--topic", "txn-in", "--api", "Produce"}, func(ex map[string]any) bool { return hasTopic(ex, "txn-in") && ex["api"] == "Produce" }},
			{[]string{"--min-latency", "100ms"}, func(ex map[string]any) bool {
				lat, ok := ex["latency_us"].(float64)
				return ok && lat >= 100000
			}},
		}
		for _, c := range cases {
			var want []map[string]any
			for _, ex := range all {
				if c.keep(ex) {
					want = append(want, ex)
				}
			}
			got := jsonLines(t, append(append([]string{"read", "--format", "json"}, c.flags...), capture)...)
			if !sameExchanges(got, want) {
				t.Errorf("%s %v: %d exchanges, want %d", filepath.Base(capture), c.flags, len(got), len(want))
			}
			if len(want) > 1 {
				got = jsonLines(t, append(append([]string{"read", "--format", "json", "-c", "1"}, c.flags...), capture)...)
				if !sameExchanges(got, want[:1]) {
					t.Errorf("%s %v -c 1: %d exchanges, want the first", filepath.Base(capture), c.flags, len(got))
				}
			}
		}
		got := jsonLines(t, "read", "--format", "json", "-c", "3", capture)
		if !sameExchanges(got, all[:3]) {
			t.Errorf("%s -c 3: %d exchanges, want the first 3", filepath.Base(capture), len(got))
		}
	}
}

// sameExchanges compares exchanges by stream and correlation id.
func sameExchanges(a, b []map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i]["stream"] != b[i]["stream"] || a[i]["correlation_id"] != b[i]["correlation_id"] || a[i]["ts"] != b[i]["ts"] {
			return false
		}
	}
	return true
}

// TestFilterUsageErrors checks that bad filter flags are usage errors.
func TestFilterUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"read", "--api", "Nope", lz4Capture},
		{"read", "-c", "-1", lz4Capture},
		{"read", "--min-latency", "-1s", lz4Capture},
		{"read", "--min-latency", "soon", lz4Capture},
		{"read", "--stream", "-1", lz4Capture},
		{"read", "--format", "xml", lz4Capture},
		{"stats", "--format", "summary", lz4Capture},
		{"stats", "--api", "Nope", lz4Capture},
	} {
		if code, _, errs := runCLI(t, args...); code != exitUsage || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want %d and a message", args, code, errs, exitUsage)
		}
	}
}

// TestStatsFilters checks that stats aggregates only what the filters pass.
func TestStatsFilters(t *testing.T) {
	code, out, errs := runCLI(t, "stats", "--format", "json", "--api", "Produce", "--api", "Fetch", pcaps+"kcat_produce_gzip.pcap")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var st statsOut
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.APIs) != 2 || st.APIs[0].API != "Produce" || st.APIs[1].API != "Fetch" {
		t.Errorf("APIs %+v, want Produce and Fetch", st.APIs)
	}
	code, out, _ = runCLI(t, "stats", "--format", "json", "-c", "2", pcaps+"kcat_produce_gzip.pcap")
	if code != 0 || !strings.Contains(out, `"exchanges": 2,`) {
		t.Errorf("-c 2: exit %d\n%s", code, out)
	}
}
