package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/output/render"
)

// longValuesBatch returns a zstd record batch of n records whose values
// are longValue(i, size): a few KB that decompress to n times size.
func longValuesBatch(n, size int) []byte {
	b := codec.RecordBatch{Attributes: int16(codec.CompressionZstd), ProducerId: -1, ProducerEpoch: -1, BaseSequence: -1, LastOffsetDelta: int32(n - 1)}
	for i := range n {
		b.Records = append(b.Records, codec.Record{OffsetDelta: int32(i), Key: fmt.Appendf(nil, "k%d", i), Value: longValue(i, size)})
	}
	return b.AppendTo(nil)
}

// longValue is the value of record i of longValuesBatch: size bytes of
// repeated text.
func longValue(i, size int) []byte {
	word := fmt.Appendf(nil, "value %d of kdissect; ", i)
	return bytes.Repeat(word, size/len(word)+1)[:size]
}

// peakRSSEnv names the file the command run by TestMain writes its peak
// resident set size to, in bytes.
const peakRSSEnv = "KDISSECT_TEST_PEAK_RSS"

// runMeasured runs the command as a process (see TestMain) with args, its
// standard output into the file stdout, and returns its peak resident set
// size in bytes. The process reports its own (VmHWM): the kernel's
// ru_maxrss of a child counts the memory it was started from, and Go
// starts it sharing the test process's (vfork), so it said the test's own
// peak (480 MB for 20 values of 1 MB, after the test had held the 50 MB
// value).
func runMeasured(t *testing.T, stdout string, args ...string) int64 {
	t.Helper()
	out, err := os.Create(stdout)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	peak := filepath.Join(t.TempDir(), "peak-rss")
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), "KDISSECT_TEST_MAIN=1", peakRSSEnv+"="+peak)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, stderr.Bytes())
	}
	b, err := os.ReadFile(peak)
	if err != nil {
		t.Skipf("the command reported no peak RSS (no /proc/self/status?): %v", err)
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		t.Fatalf("peak RSS %q: %v", b, err)
	}
	return n
}

// writePeakRSS writes the process's peak resident set size in bytes
// (VmHWM of /proc/self/status) to path; nothing where there is no /proc.
func writePeakRSS(path string) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for line := range strings.Lines(string(status)) {
		kb, ok := strings.CutPrefix(line, "VmHWM:")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(kb), " kB"), 10, 64)
		if err == nil {
			_ = os.WriteFile(path, strconv.AppendInt(nil, n<<10, 10), 0o644)
		}
		return
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// TestParquetLongValues (issue 26): a Produce of one 50 MB value, and one
// of 20 values of 1 MB, zstd-compressed into a few KB. Both Parquet files
// (read --format parquet -w, --parquet-records) are no larger than the
// JSON Lines, which hold each value once: parquet-go wrote each long value
// uncompressed six times, in the page and column chunk statistics of its
// column (300 MB per file for the 50 MB value, at 1.6 GB peak RSS). The
// records read back whole, the peak RSS stays under 300 MB for the 50 MB
// value (242-243 MB in 10 runs on 2 loaded cores: three copies of it
// alive at once, the decompressed batch and two in parquet-go while the
// records file takes it, then the JSON body and two in parquet-go; it was
// 288-390 MB with five) and under 256 MB for the 20 values (139-143 MB),
// and DuckDB reads the files.
func TestParquetLongValues(t *testing.T) {
	if testing.Short() {
		t.Skip("decompresses 50 MB")
	}
	for _, tc := range []struct {
		name    string
		n, size int
		maxRSS  int64 // bytes
	}{
		{"one value of 50 MB", 1, 50_000_000, 300_000_000},
		{"20 values of 1 MB", 20, 1_000_000, 256_000_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, _ := hostileCapture(t, "long", longValuesBatch(tc.n, tc.size))
			dir := t.TempDir()
			jsonl, xs, rs := filepath.Join(dir, "x.jsonl"), filepath.Join(dir, "x.parquet"), filepath.Join(dir, "records.parquet")
			runMeasured(t, jsonl, "read", path, "--format", "json")
			rss := runMeasured(t, filepath.Join(dir, "stdout"), "read", path, "--format", "parquet", "-w", xs, "--parquet-records", rs)
			js := fileSize(t, jsonl)
			if js < int64(tc.n*tc.size) {
				t.Fatalf("JSON Lines of %d bytes: the values were not decoded", js)
			}
			for _, f := range []string{xs, rs} {
				if n := fileSize(t, f); n > js {
					t.Errorf("%s: %d bytes, the JSON Lines %d", filepath.Base(f), n, js)
				}
			}
			t.Logf("JSON Lines %d bytes, exchanges %d, records %d; peak RSS of the Parquet export %d MB", js, fileSize(t, xs), fileSize(t, rs), rss/1_000_000)
			if rss > tc.maxRSS {
				t.Errorf("peak RSS %d MB, bound %d MB", rss/1_000_000, tc.maxRSS/1_000_000)
			}

			rows, err := parquet.ReadFile[render.RecordRow](rs)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != tc.n {
				t.Fatalf("%d records, want %d", len(rows), tc.n)
			}
			for i, r := range rows {
				if !bytes.Equal(r.Value, longValue(i, tc.size)) {
					t.Errorf("record %d: value of %d bytes, not the one produced", i, len(r.Value))
				}
			}

			node, err := exec.LookPath("node")
			if err != nil {
				t.Skip("node not installed: DuckDB not run")
			}
			if _, err := os.Stat(filepath.Join(duckdbDir, "node_modules", "@duckdb", "node-api")); err != nil {
				t.Skipf("@duckdb/node-api not installed: %v", err)
			}
			cmd := exec.Command(node, "summary.mjs", xs)
			cmd.Dir = duckdbDir
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("duckdb: %v", err)
			}
			var got duckdbSummary
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("duckdb output %q: %v", out, err)
			}
			if got.Exchanges != 1 || got.Records != int64(tc.n) || got.WithRequest != 1 || got.Produce != 1 {
				t.Errorf("DuckDB reads %+v, want one Produce of %d records with its body", got, tc.n)
			}
		})
	}
}
