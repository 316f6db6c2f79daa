package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/kdissect/kdissect/output/render"
)

// duckdbDir holds the npm package of DuckDB (tools/duckdb/package.json;
// npm install there, as .ci/run does) and the script that reads a Parquet
// file with it.
const duckdbDir = "../../tools/duckdb"

// duckdbSummary is what tools/duckdb/summary.mjs prints of a Parquet file.
type duckdbSummary struct {
	Exchanges       int64            `json:"exchanges"`
	Records         int64            `json:"records"`
	LatencyUSSum    int64            `json:"latency_us_sum"`
	WithLatency     int64            `json:"with_latency"`
	Notes           int64            `json:"notes"`
	RequestBytes    int64            `json:"request_bytes"`
	ResponseBytes   int64            `json:"response_bytes"`
	FirstTSMicros   int64            `json:"first_ts_us"`
	LastTSMicros    int64            `json:"last_ts_us"`
	WithRequest     int64            `json:"with_request"`
	WithResponse    int64            `json:"with_response"`
	Errors          map[string]int64 `json:"errors"`
	APIs            map[string]int64 `json:"apis"`
	TopicPartitions map[string]int64 `json:"topic_partitions"`
	Produce         int64            `json:"produce"`
	ProduceAcksSum  *int64           `json:"produce_acks_sum"`
	TSType          *string          `json:"ts_type"`
}

// summarizeJSON computes from JSON lines what summary.mjs computes with
// SQL from the Parquet file.
func summarizeJSON(t *testing.T, lines []map[string]any) duckdbSummary {
	t.Helper()
	s := duckdbSummary{Errors: map[string]int64{}, APIs: map[string]int64{}, TopicPartitions: map[string]int64{}}
	num := func(v any) int64 {
		f, _ := v.(float64)
		return int64(f)
	}
	var acks int64
	for i, l := range lines {
		s.Exchanges++
		s.Records += num(l["records"])
		if l["latency_us"] != nil {
			s.LatencyUSSum += num(l["latency_us"])
			s.WithLatency++
		}
		s.Notes += int64(len(l["notes"].([]any)))
		s.RequestBytes += num(l["request_size"])
		s.ResponseBytes += num(l["response_size"])
		if l["request"] != nil {
			s.WithRequest++
		}
		if l["response"] != nil {
			s.WithResponse++
		}
		ts, err := time.Parse(time.RFC3339Nano, l["ts"].(string))
		if err != nil {
			t.Fatalf("line %d: ts: %v", i, err)
		}
		if us := ts.UnixMicro(); s.FirstTSMicros == 0 || us < s.FirstTSMicros {
			s.FirstTSMicros = us
		}
		s.LastTSMicros = max(s.LastTSMicros, ts.UnixMicro())
		for _, e := range l["errors"].([]any) {
			s.Errors[e.(map[string]any)["name"].(string)]++
		}
		api, _ := l["api"].(string)
		s.APIs[api]++
		for _, tp := range l["topics"].([]any) {
			tp := tp.(map[string]any)
			topic, _ := tp["topic"].(string)
			s.TopicPartitions[topic] += int64(len(tp["partitions"].([]any)))
		}
		if api == "Produce" && l["request"] != nil {
			s.Produce++
			acks += num(l["request"].(map[string]any)["Acks"])
		}
	}
	if s.Produce > 0 {
		s.ProduceAcksSum = &acks
	}
	return s
}

// TestParquetDuckDB writes each test capture as Parquet (read --format
// parquet -w) and reads it back with DuckDB: counts and sums (exchanges,
// records, latency, bytes, errors by name, exchanges by API, partitions
// by topic, a field of the Produce bodies through DuckDB's JSON
// functions) equal those of read --format json.
func TestParquetDuckDB(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed: DuckDB's npm package (@duckdb/node-api) runs on it")
	}
	if _, err := os.Stat(filepath.Join(duckdbDir, "node_modules", "@duckdb", "node-api")); err != nil {
		t.Skipf("@duckdb/node-api not installed (npm install in %s, as .ci/run does): %v", duckdbDir, err)
	}
	captures, _ := filepath.Glob(pcapsDir + "*.pcap*")
	if len(captures) == 0 {
		t.Fatal("no captures in testdata/pcaps")
	}
	dir := t.TempDir()
	for _, c := range captures {
		t.Run(filepath.Base(c), func(t *testing.T) {
			pq := filepath.Join(dir, filepath.Base(c)+".parquet")
			code, _, errs := runCLI(t, "read", "--format", "parquet", "-w", pq, c)
			if code != 0 || errs != "" {
				t.Fatalf("read --format parquet: exit %d, stderr %q", code, errs)
			}
			want := summarizeJSON(t, readJSON(t, c))
			cmd := exec.Command(node, "summary.mjs", pq)
			cmd.Dir = duckdbDir
			out, err := cmd.Output()
			if err != nil {
				stderr := ""
				if ee, ok := err.(*exec.ExitError); ok {
					stderr = string(ee.Stderr)
				}
				t.Fatalf("duckdb: %v\n%s", err, stderr)
			}
			var got duckdbSummary
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("duckdb output %q: %v", out, err)
			}
			if got.TSType == nil || !strings.HasPrefix(*got.TSType, "TIMESTAMP") {
				t.Errorf("ts read by DuckDB as %v, want a timestamp", got.TSType)
			}
			got.TSType = nil
			if !reflect.DeepEqual(got, want) {
				gj, _ := json.Marshal(got)
				wj, _ := json.Marshal(want)
				t.Errorf("DuckDB on the Parquet file and the JSON lines differ:\nduckdb %s\njson   %s", gj, wj)
			}
			if want.Exchanges == 0 {
				t.Errorf("no exchanges: the comparison says nothing")
			}
		})
	}
}

// TestParquetFlagErrors: -w without --format parquet, and --format parquet
// without -w, are usage errors (exit 2) that say what is missing.
func TestParquetFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"read", "--format", "parquet", lz4Capture}, "needs -w FILE"},
		{[]string{"live", "-i", "lo", "--format", "parquet"}, "needs -w DIR"},
		{[]string{"live", "-i", "lo", "-C", "10"}, "-C and -G roll"},
	} {
		code, _, errs := runCLI(t, tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, errs, exitUsage, tc.want)
		}
	}
}

// TestParquetRecordsFile writes --parquet-records for each test capture
// and reads it back with parquet-go: the records per topic-partition are
// those stats counts (produced plus fetched), their sum the JSON Lines
// "records"; and a run that poisons each frame buffer once its exchange
// was written (--debug-poison-frames) writes the same keys and values, so
// no row points into a recycled frame.
func TestParquetRecordsFile(t *testing.T) {
	captures, _ := filepath.Glob(pcapsDir + "*.pcap*")
	dir := t.TempDir()
	for _, c := range captures {
		t.Run(filepath.Base(c), func(t *testing.T) {
			read := func(extra ...string) []render.RecordRow {
				t.Helper()
				recs := filepath.Join(dir, filepath.Base(c)+".records.parquet")
				args := append([]string{"read", "--format", "parquet", "-w", filepath.Join(dir, "x.parquet"), "--parquet-records", recs}, extra...)
				if code, _, errs := runCLI(t, append(args, c)...); code != 0 || errs != "" {
					t.Fatalf("read: exit %d, stderr %q", code, errs)
				}
				rows, err := parquet.ReadFile[render.RecordRow](recs)
				if err != nil {
					t.Fatal(err)
				}
				return rows
			}
			rows := read()
			got := map[string]int64{}
			for _, r := range rows {
				topic := ""
				switch {
				case r.Topic != nil:
					topic = *r.Topic
				case r.TopicID != nil:
					topic = "id:" + *r.TopicID
				}
				got[fmt.Sprintf("%s/%d", topic, r.Partition)]++
			}
			want := map[string]int64{}
			for _, p := range statsJSONOf(t, c)["partitions"].([]any) {
				p := p.(map[string]any)
				if n := int64(p["produced_records"].(float64) + p["fetched_records"].(float64)); n > 0 {
					want[fmt.Sprintf("%s/%d", p["topic"], int(p["partition"].(float64)))] = n
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("records per topic-partition: file %v, stats %v", got, want)
			}
			var jsonRecords int64
			for _, l := range readJSON(t, c) {
				jsonRecords += capturedRecords(l)
			}
			if int64(len(rows)) != jsonRecords {
				t.Errorf("%d rows, JSON lines count %d records", len(rows), jsonRecords)
			}
			poisoned := read("--debug-poison-frames")
			if len(poisoned) != len(rows) {
				t.Fatalf("with poisoned frames %d rows, without %d", len(poisoned), len(rows))
			}
			for i := range rows {
				if !bytes.Equal(rows[i].Key, poisoned[i].Key) || !bytes.Equal(rows[i].Value, poisoned[i].Value) {
					t.Fatalf("row %d: key/value %q/%.40q with poisoned frames, %q/%.40q without", i, poisoned[i].Key, poisoned[i].Value, rows[i].Key, rows[i].Value)
				}
			}
		})
	}
}
