package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/internal/capedit"
)

// This file holds tshark's Kafka dissector as an independent oracle: every
// exchange tshark sees must be one kdissect sees, with the same ApiKey and
// ApiVersion, both sides decoded, the topics and partitions tshark names
// among ours, the same non-zero error codes, and the same record count where
// tshark decodes record batches. It is the Go counterpart of
// ../shared/tools/tshark_compare.py (which TestTsharkCompareTool also runs
// when it is present), stricter on partitions and records.
//
// tshark 4.0 is not the oracle where it cannot decode: flexible versions it
// does not know (Produce v9+, Fetch v12+, ...), which it flags "Unsupported"
// or "Malformed"; magic 0 and 1 message sets, whose key and value it
// misreads (see testdata/pcaps/README.md); and ApiKeys Kafka does not
// define. There the test checks only what tshark's header decoding gives
// (ApiKey, ApiVersion, CorrelationId) and that kdissect decodes the frame
// fully or notes why not.

type tsharkRow struct {
	apiKey, version    int
	hasKey, hasVersion bool
	req, resp          bool
	topics             map[string]bool
	partitions         map[string]bool // "topic/partition"
	errors             []int
	records            int
	batches            bool // tshark decoded v2 record batches
	unreliable         bool
	unknownKey         bool
}

type oursRow struct {
	apiKey, version int
	req, resp       bool
	topics          map[string]bool
	partitions      map[string]bool
	errors          []int
	records         int
	notes           []string
}

type rowKey struct {
	clientPort, corr, seq int
}

// walkJSON collects the values of key anywhere under v.
func walkJSON(v any, key string, out *[]any) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if k == key {
				if l, ok := val.([]any); ok {
					*out = append(*out, l...)
				} else {
					*out = append(*out, val)
				}
			} else {
				walkJSON(val, key, out)
			}
		}
	case []any:
		for _, val := range x {
			walkJSON(val, key, out)
		}
	}
}

func atoi(v any) int {
	n, _ := strconv.Atoi(fmt.Sprint(v))
	return n
}

// countRecords counts v2 records in a tshark PDU: "Record" objects under
// "Record Batch" (tshark names each record so).
func countRecords(pdu any) (n int, batches bool) {
	var bs []any
	walkJSON(pdu, "Record Batch", &bs)
	for _, b := range bs {
		var rs []any
		walkJSON(b, "Record", &rs)
		n += len(rs)
		batches = true
	}
	return n, batches
}

// partitionsUnder returns "topic/partition" for every partition tshark
// nests under a topic.
func partitionsUnder(pdu any, out map[string]bool) {
	var walk func(v any, topic string)
	walk = func(v any, topic string) {
		switch x := v.(type) {
		case map[string]any:
			if t, ok := x["kafka.topic_name"].(string); ok && t != "[ Null ]" {
				topic = t
			}
			if p, ok := x["kafka.partition_id"]; ok && topic != "" {
				if _, isList := p.([]any); !isList {
					out[topic+"/"+fmt.Sprint(p)] = true
				}
			}
			for _, val := range x {
				walk(val, topic)
			}
		case []any:
			for _, val := range x {
				walk(val, topic)
			}
		}
	}
	walk(pdu, "")
}

func runTshark(t *testing.T, path string, port int) map[rowKey]*tsharkRow {
	t.Helper()
	out, err := exec.Command("tshark", "-r", path, "-d", fmt.Sprintf("tcp.port==%d,kafka", port),
		"-Y", "kafka", "-T", "json", "--no-duplicate-keys").Output()
	if err != nil {
		t.Fatalf("tshark on %s: %v", path, err)
	}
	var pkts []struct {
		Source struct {
			Layers map[string]any `json:"layers"`
		} `json:"_source"`
	}
	if len(bytes.TrimSpace(out)) > 0 {
		if err := json.Unmarshal(out, &pkts); err != nil {
			t.Fatalf("tshark JSON: %v", err)
		}
	}
	rows := map[rowKey]*tsharkRow{}
	seq := map[[2]int]int{}
	for _, p := range pkts {
		L := p.Source.Layers
		tcp, _ := L["tcp"].(map[string]any)
		sport, dport := atoi(tcp["tcp.srcport"]), atoi(tcp["tcp.dstport"])
		var pdus []any
		if l, ok := L["kafka"].([]any); ok {
			pdus = l
		} else {
			pdus = []any{L["kafka"]}
		}
		_, malformed := L["_ws.malformed"]
		for _, pdu := range pdus {
			k, ok := pdu.(map[string]any)
			if !ok || k["kafka.correlation_id"] == nil {
				continue
			}
			blob, _ := json.Marshal(k)
			s := string(blob)
			unreliable := malformed
			for _, w := range []string{"unsupported_api_version", "kafka.request_missing", "Malformed", "Invalid string length",
				"Invalid array length", "does not end at the pdu", "does not match content", "Unsupported "} {
				unreliable = unreliable || strings.Contains(s, w)
			}
			corr := atoi(k["kafka.correlation_id"])
			_, hasRespKey := k["kafka.response_key"]
			_, hasReqFrame := k["kafka.request_frame"]
			isResp := hasRespKey || hasReqFrame || sport == port
			cport := sport
			if isResp {
				cport = dport
			}
			id := [2]int{cport, corr}
			if !isResp {
				seq[id]++
			}
			key := rowKey{cport, corr, max(seq[id], 1)}
			r := rows[key]
			if r == nil {
				r = &tsharkRow{topics: map[string]bool{}, partitions: map[string]bool{}}
				rows[key] = r
			}
			r.unreliable = r.unreliable || unreliable
			ak, ok := k["kafka.api_key"]
			if !ok {
				ak, ok = k["kafka.response_key"]
			}
			if ok {
				r.apiKey, r.hasKey = atoi(ak), true
				// tshark's expert note on a key it does not know; an ApiVersions
				// response listing such keys is not one.
				if strings.Contains(s, fmt.Sprintf("Unknown %d API key", r.apiKey)) {
					r.unknownKey, r.unreliable = true, true
				}
			}
			for _, vk := range []string{"kafka.api_version", "kafka.request.version", "kafka.response.version"} {
				if v, ok := k[vk]; ok {
					r.version, r.hasVersion = atoi(v), true
					break
				}
			}
			if isResp {
				r.resp = true
			} else {
				r.req = true
			}
			var names []any
			walkJSON(k, "kafka.topic_name", &names)
			for _, n := range names {
				if s := fmt.Sprint(n); s != "[ Null ]" {
					r.topics[s] = true
				}
			}
			partitionsUnder(k, r.partitions)
			if isResp {
				var errs []any
				walkJSON(k, "kafka.error", &errs)
				for _, e := range errs {
					if n := atoi(e); n != 0 {
						r.errors = append(r.errors, n)
					}
				}
			}
			n, b := countRecords(k)
			r.records += n
			r.batches = r.batches || b
		}
	}
	return rows
}

// runOurs runs `kdissect read --format json` in-process.
func runOurs(t *testing.T, path string, port int) (map[rowKey]*oursRow, []byte) {
	t.Helper()
	var out bytes.Buffer
	cmd := newReadCmd()
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"-p", strconv.Itoa(port), "--format", "json", path})
	if err := cmd.Execute(); err != nil {
		t.Fatalf("kdissect read %s: %v", path, err)
	}
	rows := map[rowKey]*oursRow{}
	seq := map[[2]int]int{}
	sc := bufio.NewScanner(bytes.NewReader(out.Bytes()))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var x struct {
			Client        string          `json:"client"`
			APIKey        *int            `json:"api_key"`
			APIVersion    *int            `json:"api_version"`
			CorrelationID int             `json:"correlation_id"`
			Request       json.RawMessage `json:"request"`
			Response      json.RawMessage `json:"response"`
			Topics        []struct {
				Topic      *string `json:"topic"`
				Partitions []int   `json:"partitions"`
			} `json:"topics"`
			Errors []struct {
				Code int `json:"code"`
			} `json:"errors"`
			Records int      `json:"records"`
			Notes   []string `json:"notes"`
		}
		if err := json.Unmarshal(sc.Bytes(), &x); err != nil {
			t.Fatalf("our JSON line %q: %v", sc.Text(), err)
		}
		cport := atoi(x.Client[strings.LastIndex(x.Client, ":")+1:])
		id := [2]int{cport, x.CorrelationID}
		seq[id]++
		r := &oursRow{apiKey: -1, version: -1, topics: map[string]bool{}, partitions: map[string]bool{},
			req: string(x.Request) != "null", resp: string(x.Response) != "null", records: x.Records, notes: x.Notes}
		if x.APIKey != nil {
			r.apiKey = *x.APIKey
		}
		if x.APIVersion != nil {
			r.version = *x.APIVersion
		}
		for _, tp := range x.Topics {
			if tp.Topic == nil {
				continue
			}
			r.topics[*tp.Topic] = true
			for _, p := range tp.Partitions {
				r.partitions[fmt.Sprintf("%s/%d", *tp.Topic, p)] = true
			}
		}
		for _, e := range x.Errors {
			r.errors = append(r.errors, e.Code)
		}
		rows[rowKey{cport, x.CorrelationID, seq[id]}] = r
	}
	return rows, out.Bytes()
}

func subset(a, b map[string]bool) []string {
	var missing []string
	for k := range a {
		if !b[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	return missing
}

func sortedInts(a []int) string {
	b := append([]int(nil), a...)
	sort.Ints(b)
	return fmt.Sprint(b)
}

type oracleCapture struct {
	path string
	port int
}

func oracleCaptures(t *testing.T) []oracleCapture {
	var cs []oracleCapture
	own, _ := filepath.Glob("../../testdata/pcaps/*.pcap*")
	for _, p := range own {
		cs = append(cs, oracleCapture{p, 9092})
	}
	if len(own) == 0 {
		t.Fatal("no captures in testdata/pcaps")
	}
	cs = append(cs, fragmentedCaptures(t)...)
	tsv, err := os.ReadFile("../../../shared/pcaps-public/ports.tsv")
	if err != nil {
		t.Logf("public captures not available (%v): only the project's captures are compared", err)
		return cs
	}
	for _, line := range strings.Split(strings.TrimSpace(string(tsv)), "\n") {
		name, port, _ := strings.Cut(line, "\t")
		cs = append(cs, oracleCapture{filepath.Join("../../../shared/pcaps-public", name), atoi(port)})
	}
	return cs
}

// fragmentedCaptures writes copies of a few of the project's captures
// whose packets are split into IP fragments of at most 512 bytes (as a
// path with a small MTU would), for both dissectors to reassemble.
func fragmentedCaptures(t *testing.T) []oracleCapture {
	var cs []oracleCapture
	dir := t.TempDir()
	for _, name := range []string{"kcat_produce_lz4.pcap", "franz_admin.pcap", "kcat_sll2_any.pcap"} {
		src, err := os.ReadFile(filepath.Join("../../testdata/pcaps", name))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		res, err := capedit.Rewrite(&buf, bytes.NewReader(src), capedit.Options{Fragment: 512})
		if err != nil || res.Fragmented == 0 {
			t.Fatalf("%s: %d packets fragmented: %v", name, res.Fragmented, err)
		}
		path := filepath.Join(dir, "fragmented-"+name)
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		cs = append(cs, oracleCapture{path, 9092})
	}
	return cs
}

func TestTsharkOracle(t *testing.T) {
	if _, err := exec.LookPath("tshark"); err != nil {
		t.Skip("tshark is not installed (.ci/run installs it)")
	}
	for _, c := range oracleCaptures(t) {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			t.Parallel()
			theirs := runTshark(t, c.path, c.port)
			ours, _ := runOurs(t, c.path, c.port)
			if len(theirs) == 0 {
				t.Fatal("tshark saw no Kafka exchange")
			}
			var keys []rowKey
			for k := range theirs {
				keys = append(keys, k)
			}
			sort.Slice(keys, func(i, j int) bool {
				a, b := keys[i], keys[j]
				return a.clientPort < b.clientPort || a.clientPort == b.clientPort && (a.corr < b.corr || a.corr == b.corr && a.seq < b.seq)
			})
			checkedRecords := 0
			for _, k := range keys {
				tr, or := theirs[k], ours[k]
				where := fmt.Sprintf("client port %d corr %d #%d", k.clientPort, k.corr, k.seq)
				if or == nil {
					t.Errorf("%s: tshark sees an exchange kdissect does not", where)
					continue
				}
				if tr.hasKey && or.apiKey != tr.apiKey {
					t.Errorf("%s: api_key %d, tshark %d", where, or.apiKey, tr.apiKey)
				}
				if tr.hasVersion && or.version != tr.version {
					t.Errorf("%s: api_version %d, tshark %d", where, or.version, tr.version)
				}
				if tr.unknownKey {
					// tshark 4.0 stops at the keys of Kafka 3.3; ours go on. A
					// key the codec knows must be decoded; one Kafka does not
					// define (no one can decode it) must be noted.
					if _, known := codec.LookupAPI(int16(tr.apiKey)); known {
						if tr.req && !or.req || tr.resp && !or.resp {
							t.Errorf("%s: ApiKey %d (unknown to tshark) not decoded: %v", where, tr.apiKey, or.notes)
						}
					} else if !strings.Contains(strings.Join(or.notes, ";"), "unknown API key") {
						t.Errorf("%s: unknown ApiKey %d without a note: %v", where, tr.apiKey, or.notes)
					}
					continue
				}
				if tr.req && !or.req && !tr.unreliable {
					t.Errorf("%s: tshark decodes the request, kdissect does not: %v", where, or.notes)
				}
				if tr.resp && !or.resp && !tr.unreliable {
					t.Errorf("%s: tshark decodes the response, kdissect does not: %v", where, or.notes)
				}
				if tr.unreliable {
					// tshark is not the oracle here (see the file comment); we must decode what was captured or say why.
					if (tr.req && !or.req || tr.resp && !or.resp) && len(or.notes) == 0 {
						t.Errorf("%s: a side is not decoded and there is no note", where)
					}
					continue
				}
				if len(tr.topics) > 0 {
					if m := subset(tr.topics, or.topics); len(m) > 0 {
						t.Errorf("%s: topics lack %v", where, m)
					}
					if m := subset(tr.partitions, or.partitions); len(m) > 0 {
						t.Errorf("%s: partitions lack %v", where, m)
					}
					if sortedInts(tr.errors) != sortedInts(or.errors) {
						t.Errorf("%s: errors %v, tshark %v", where, sortedInts(or.errors), sortedInts(tr.errors))
					}
				}
				if tr.batches {
					checkedRecords++
					if tr.records != or.records {
						t.Errorf("%s: %d records, tshark %d", where, or.records, tr.records)
					}
				}
			}
			t.Logf("%d tshark exchanges matched, %d record counts compared", len(keys), checkedRecords)
		})
	}
}

// TestTsharkCompareTool runs the shared comparison tool on every capture
// when it and python3 are present. Its only allowed complaint is about an
// ApiKey Kafka does not define, which no dissector can decode past its
// header.
func TestTsharkCompareTool(t *testing.T) {
	const tool = "../../../shared/tools/tshark_compare.py"
	if _, err := os.Stat(tool); err != nil {
		t.Skipf("%s not available", tool)
	}
	for _, bin := range []string{"tshark", "python3"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s is not installed", bin)
		}
	}
	allowed := map[string]string{
		"wswiki-kafka-testcases-v4_unsupported-version.pcapng": "mismatch (33810, 0, 1) request not decoded",
	}
	for _, c := range oracleCaptures(t) {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			t.Parallel()
			_, jsonl := runOurs(t, c.path, c.port)
			f := filepath.Join(t.TempDir(), "out.jsonl")
			if err := os.WriteFile(f, jsonl, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command("python3", tool, c.path, strconv.Itoa(c.port), f, "--show", "50").CombinedOutput()
			if problem := compareToolFailure(out, err); problem != "" {
				t.Fatalf("tshark_compare.py %s:\n%s", problem, out)
			}
			if err == nil {
				return
			}
			var bad []string
			for _, line := range strings.Split(string(out), "\n") {
				if strings.HasPrefix(line, "mismatch") || strings.HasPrefix(line, "missing") {
					if line != allowed[filepath.Base(c.path)] {
						bad = append(bad, line)
					}
				}
			}
			if len(bad) > 0 {
				t.Errorf("tshark_compare.py:\n%s", out)
			}
		})
	}
}

// compareToolFailure says what is wrong with a run of tshark_compare.py
// beyond mismatches: it exits 0 when all match and 1 when some do not,
// and ends either way with its "exchanges matched" summary. Anything else
// (a traceback, another exit status, no summary) is the tool failing, not
// a comparison, and must not pass for one.
func compareToolFailure(out []byte, err error) string {
	var exit *exec.ExitError
	switch {
	case err != nil && !errors.As(err, &exit):
		return fmt.Sprintf("did not run: %v", err)
	case err != nil && exit.ExitCode() != 1:
		return fmt.Sprintf("failed with exit status %d", exit.ExitCode())
	case bytes.Contains(out, []byte("Traceback (most recent call last)")):
		return "crashed"
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if !strings.HasPrefix(lines[len(lines)-1], "exchanges matched ") {
		return "ended without its summary"
	}
	return ""
}

// TestCompareToolFailure holds compareToolFailure to real python3 runs: a
// traceback, an unexpected status and a missing summary fail; a run with
// mismatches and its summary is a comparison.
func TestCompareToolFailure(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	for _, c := range []struct {
		script string
		fails  bool
	}{
		{`print("exchanges matched 3/3, field mismatches 0")`, false},
		{`import sys; print("mismatch (1, 0, 2) x"); print("exchanges matched 2/3, field mismatches 1"); sys.exit(1)`, false},
		{`print("tshark exchanges 3"); 1/0`, true},                                                                                    // a traceback, exit 1
		{`import sys; print("exchanges matched 3/3, field mismatches 0"); sys.exit(2)`, true},                                         // another status
		{`print("tshark exchanges 3")`, true},                                                                                         // no summary
		{`import sys; print("exchanges matched 3/3, field mismatches 0", file=sys.stderr); import os; os.kill(os.getpid(), 9)`, true}, // killed
	} {
		out, err := exec.Command("python3", "-c", c.script).CombinedOutput()
		if got := compareToolFailure(out, err); (got != "") != c.fails {
			t.Errorf("%s: compareToolFailure = %q, want failure %v", c.script, got, c.fails)
		}
	}
}
