package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/internal/capgen"
)

// render decodes a capture and writes it as JSON Lines.
func renderJSON(t *testing.T, path string, port uint16) []map[string]any {
	t.Helper()
	var buf bytes.Buffer
	out := NewJSONLines(&buf, false)
	d := dissect.New(dissect.Options{Ports: []uint16{port}})
	dec := dissect.NewDecoder(dissect.DecodeOptions{})
	if err := d.ReadFile(path, func(ex *dissect.Exchange) {
		dec.Decode(ex)
		if err := out.Write(ex); err != nil {
			t.Fatal(err)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := out.Flush(); err != nil {
		t.Fatal(err)
	}
	var lines []map[string]any
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %d is not JSON: %v\n%s", len(lines)+1, err, sc.Bytes())
		}
		lines = append(lines, m)
	}
	return lines
}

// contract is DESIGN.md's table of keys: each key and the JSON types it may take.
var contract = map[string][]string{
	"ts": {"string"}, "stream": {"number"}, "client": {"string"}, "broker": {"string"},
	"api_key": {"number", "null"}, "api": {"string", "null"}, "api_version": {"number", "null"},
	"correlation_id": {"number"}, "client_id": {"string", "null"}, "request": {"object", "null"},
	"response": {"object", "null"}, "latency_us": {"number", "null"}, "topics": {"array"},
	"request_size": {"number", "null"}, "response_size": {"number", "null"}, // extensions of the contract
	"errors": {"array"}, "notes": {"array"},
	// Null when none was captured and some were not (issue 26).
	"records": {"number", "null"}, "records_aborted": {"number", "null"}, // issue 19: of records, those in aborted transactions
	"request_packets": {"array", "null"}, "response_packets": {"array", "null"}, // issue 16
}

// optional are the keys written only when true (issue 26), and their type.
var optional = map[string]string{"records_not_captured": "bool", "errors_not_captured": "bool"}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "?"
}

func checkContract(t *testing.T, where string, m map[string]any) {
	t.Helper()
	keys := len(m)
	for k, types := range optional {
		if v, ok := m[k]; ok {
			keys--
			if got := jsonType(v); got != types {
				t.Errorf("%s: %q is %s, want %s", where, k, got, types)
			}
		}
	}
	if keys != len(contract) {
		t.Errorf("%s: %d keys, want the %d of the contract", where, keys, len(contract))
	}
	for k, types := range contract {
		v, ok := m[k]
		if !ok {
			t.Errorf("%s: key %q missing", where, k)
			continue
		}
		if got := jsonType(v); !strings.Contains(strings.Join(types, ","), got) {
			t.Errorf("%s: %q is %s, want %v", where, k, got, types)
		}
	}
	if ts, ok := m["ts"].(string); ok {
		if _, err := time.Parse(time.RFC3339Nano, ts); err != nil || !strings.HasSuffix(ts, "Z") || len(ts) != len("2006-01-02T15:04:05.000000000Z") {
			t.Errorf("%s: ts %q is not RFC 3339 UTC with nanoseconds", where, ts)
		}
	}
	for _, tp := range m["topics"].([]any) {
		o, ok := tp.(map[string]any)
		if !ok || jsonType(o["partitions"]) != "array" {
			t.Errorf("%s: topic entry %v", where, tp)
		}
	}
	for _, e := range m["errors"].([]any) {
		o, ok := e.(map[string]any)
		if !ok || jsonType(o["code"]) != "number" || jsonType(o["name"]) != "string" || o["code"].(float64) == 0 {
			t.Errorf("%s: error entry %v", where, e)
		}
	}
}

func TestJSONContractOnCaptures(t *testing.T) {
	for _, path := range []string{"../../testdata/pcaps/kcat_group.pcap", "../../testdata/pcaps/kcat_produce_zstd.pcap", "../../testdata/pcaps/kcat_legacy_msgset.pcap"} {
		lines := renderJSON(t, path, 9092)
		if len(lines) < 9 {
			t.Fatalf("%s: %d lines", path, len(lines))
		}
		records := 0
		for i, m := range lines {
			checkContract(t, fmt.Sprintf("%s line %d", path, i+1), m)
			records += int(m["records"].(float64))
		}
		if records == 0 {
			t.Errorf("%s: no records counted", path)
		}
	}
}

// TestJSONDetails checks values on captures whose content is known: the
// Produce of kcat_produce_zstd (60 records, keys and headers) and a
// response without a request, an error code and topic IDs in the public
// captures.
func TestJSONDetails(t *testing.T) {
	lines := renderJSON(t, "../../testdata/pcaps/kcat_produce_zstd.pcap", 9092)
	produced := 0
	for _, m := range lines {
		if m["api"] != "Produce" {
			continue
		}
		produced += int(m["records"].(float64))
		req := m["request"].(map[string]any)
		td := req["TopicData"].([]any)[0].(map[string]any)
		batch := td["PartitionData"].([]any)[0].(map[string]any)["Records"].([]any)[0].(map[string]any)
		if batch["Compression"] != "zstd" || batch["CrcValid"] != true || batch["Magic"].(float64) != 2 {
			t.Errorf("batch %v", batch)
		}
		rec := batch["Records"].([]any)[0].(map[string]any)
		if !strings.HasPrefix(rec["Key"].(string), "k") || !strings.HasPrefix(rec["Value"].(string), "rec-") {
			t.Errorf("record %v", rec)
		}
		hdrs := rec["Headers"].([]any)
		if len(hdrs) != 2 || hdrs[0].(map[string]any)["Key"] != "h" || hdrs[0].(map[string]any)["Value"] != "v" {
			t.Errorf("headers %v", hdrs)
		}
	}
	if produced != 60 {
		t.Errorf("Produce requests carry %d records, want 60", produced)
	}

	const shared = "../../../shared/pcaps-public/"
	if _, err := os.Stat(shared); err != nil {
		t.Skip("public captures not available")
	}
	// The Fetch v12 response's top-level ErrorCode 5120 is not a Kafka code.
	lines = renderJSON(t, shared+"deepflow_01-fetch-v12-unknown.pcap", 9092)
	if len(lines) != 1 {
		t.Fatalf("fetch-v12-unknown: %d lines", len(lines))
	}
	errs := lines[0]["errors"].([]any)
	if len(errs) != 1 || errs[0].(map[string]any)["code"].(float64) != 5120 || errs[0].(map[string]any)["name"] != "UNKNOWN_ERROR_CODE_5120" {
		t.Errorf("fetch-v12-unknown errors %v", errs)
	}
	// Responses whose request was not captured are lines with a null request.
	lines = renderJSON(t, shared+"ndpi_kafka.pcapng", 9092)
	orphans := map[float64]bool{}
	for _, m := range lines {
		checkContract(t, "ndpi", m)
		if m["request"] == nil && m["api_key"] == nil {
			orphans[m["correlation_id"].(float64)] = true
			if len(m["notes"].([]any)) == 0 {
				t.Errorf("orphan response %v has no note", m["correlation_id"])
			}
		}
	}
	for _, id := range []float64{131, 140, 141} {
		if !orphans[id] {
			t.Errorf("ndpi: response %v without request not reported", id)
		}
	}
}

// TestRenderLineEqualsWrite checks that a line rendered in parts
// (RenderLine, as read renders on every core) is byte for byte what Write
// gives, on every test capture and on a synthetic one whose Fetch
// responses render to lines of many parts, and that WriteLine, which
// recycles the parts, writes the lines intact one after another.
func TestRenderLineEqualsWrite(t *testing.T) {
	var exs []*dissect.Exchange
	for _, c := range testCaptures(t) {
		exs = append(exs, readExchanges(t, c)...)
	}
	var capture bytes.Buffer
	if _, err := capgen.Write(&capture, capgen.Config{Bytes: 4 << 20, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	dec := dissect.NewDecoder(dissect.DecodeOptions{})
	if err := dissect.New(dissect.Options{}).ReadCapture(&capture, func(ex *dissect.Exchange) {
		dec.Decode(ex)
		exs = append(exs, ex)
	}); err != nil {
		t.Fatal(err)
	}
	var want, got bytes.Buffer
	ref, parts := NewJSONLines(&want, false), NewJSONLines(&got, false)
	multi, longest := 0, 0
	for i, ex := range exs {
		if err := ref.Write(ex); err != nil {
			t.Fatal(err)
		}
		l := parts.RenderLine(ex)
		if len(l.parts) > 1 {
			multi++
		}
		longest = max(longest, l.Len())
		if err := parts.WriteLine(l); err != nil {
			t.Fatal(err)
		}
		if i%50 == 0 { // check as we go, so that a difference is found where it starts
			ref.Flush()
			parts.Flush()
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("after exchange %d, rendering in parts differs", i)
			}
		}
	}
	ref.Flush()
	parts.Flush()
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatal("rendering in parts differs")
	}
	t.Logf("%d exchanges, %d lines in several parts, longest %d bytes", len(exs), multi, longest)
	if multi == 0 {
		t.Error("no line was long enough to come in parts")
	}
}
