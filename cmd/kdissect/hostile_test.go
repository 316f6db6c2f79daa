package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/internal/capgen"
)

// hostileCapture writes a capture of one Produce exchange whose request
// carries records, and returns its path and the request frame's size.
func hostileCapture(t *testing.T, name string, records []byte) (string, int) {
	t.Helper()
	req, resp, err := capgen.ProduceFrames(1, records)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := capgen.WriteExchanges(&buf, [][2][]byte{{req, resp}}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name+".pcap")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, len(req)
}

// viewCounts is what each view says a capture of one exchange holds.
type viewCounts map[string]int

// countViews runs every view on path with args and returns the records
// each counts and the size of each output.
func countViews(t *testing.T, path string, args ...string) (counts, sizes viewCounts) {
	t.Helper()
	counts, sizes = viewCounts{}, viewCounts{}
	out := func(cmd ...string) string {
		t.Helper()
		code, stdout, stderr := runCLI(t, append(append(cmd, args...), path)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", cmd, code, stderr)
		}
		return stdout
	}
	for _, format := range []string{"json", "detail", "hexdump", "summary"} {
		s := out("read", "--format", format)
		sizes[format] = len(s)
		switch format {
		case "json":
			var m map[string]any
			if err := json.Unmarshal([]byte(s), &m); err != nil {
				t.Fatal(err)
			}
			counts[format] = int(m["records"].(float64))
		case "detail":
			counts[format] = fieldCounts(t, s, regexp.MustCompile(`(?m)^\s+Records: (.*)$`))
		case "hexdump":
			counts[format] = fieldCounts(t, s, regexp.MustCompile(`(?m)Records: record set, [^:\n]*: (.*)$`))
		case "summary":
			counts[format] = summaryRecords(t, s)
		}
	}
	var st struct {
		Partitions []struct {
			Produced int `json:"produced_records"`
			Fetched  int `json:"fetched_records"`
		} `json:"partitions"`
	}
	if err := json.Unmarshal([]byte(out("stats", "--format", "json")), &st); err != nil {
		t.Fatal(err)
	}
	counts["stats"] = 0
	for _, p := range st.Partitions {
		counts["stats"] += p.Produced + p.Fetched
	}
	return counts, sizes
}

// fieldCounts sums the records of the lines re finds (what a records
// field holds: "1 batch, 3 records, ...").
func fieldCounts(t *testing.T, out string, re *regexp.Regexp) int {
	t.Helper()
	n, found := 0, false
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		for _, part := range strings.Split(m[1], ", ") {
			f := strings.Fields(part)
			if len(f) == 2 && (f[1] == "record" || f[1] == "records") {
				k, err := strconv.Atoi(f[0])
				if err != nil {
					t.Fatal(err)
				}
				n += k
				found = true
			}
		}
	}
	if !found {
		t.Fatalf("no records field says what it holds in:\n%.2000s", out)
	}
	return n
}

// summaryRecords reads the records column of a summary table of one row.
func summaryRecords(t *testing.T, out string) int {
	t.Helper()
	col := -1
	for _, l := range strings.Split(out, "\n") {
		cells := strings.Split(l, "│")
		if col < 0 {
			for i, c := range cells {
				if strings.TrimSpace(c) == "records" {
					col = i
				}
			}
			continue
		}
		if len(cells) > col {
			if n, err := strconv.Atoi(strings.TrimSpace(cells[col])); err == nil {
				return n
			}
		}
	}
	t.Fatalf("no records column in:\n%s", out)
	return 0
}

// TestHostileRecordBatches: a Produce request whose zstd batch
// decompresses to 256 MiB (four times the default budget) from about 50
// KB, with its true RecordCount or a lying one, and an uncompressed batch
// of 1 000 zero bytes claiming 100 000 records. The budget bounds every
// view as it bounds JSON: the detail view and the hexdump write a few
// hundred KB at most (the hexdump of the frame itself), not gigabytes;
// and every view (detail, hexdump, summary, JSON, stats) counts the same
// records: none.
func TestHostileRecordBatches(t *testing.T) {
	bomb, err := capgen.ZstdBomb(256<<20, -1)
	if err != nil {
		t.Fatal(err)
	}
	lying, err := capgen.ZstdBomb(256<<20, 100000)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		records []byte
	}{
		{"zstd bomb", bomb},
		{"zstd bomb, RecordCount 100000", lying},
		{"zero bytes, RecordCount 100000", capgen.ZeroBatch(1000, 100000)},
	} {
		t.Run(c.name, func(t *testing.T) {
			path, frame := hostileCapture(t, "hostile", c.records)
			counts, sizes := countViews(t, path)
			for view, n := range counts {
				if n != 0 {
					t.Errorf("%s counts %d records (%v)", view, n, counts)
				}
			}
			// The hexdump shows the frame's bytes, 8 a row (at most
			// 80 bytes of text); the rest is a few rows.
			if sizes["detail"] > 16<<10 || sizes["hexdump"] > 10*frame+64<<10 {
				t.Errorf("frame of %d bytes: detail %d bytes, hexdump %d bytes", frame, sizes["detail"], sizes["hexdump"])
			}
			t.Logf("frame %d bytes: outputs %v", frame, sizes)
		})
	}
}

// TestRecordBudgetBoundsViews: a batch of 30 000 minimal records (210 KB
// decompressed, about 3.6 MB decoded) under budgets from 1 to 4 MiB
// (--max-decompressed-size): every view decodes, shows and counts the
// records that fit, the same ones, and what the detail view and the
// hexdump write grows with the budget, not with what the records claim.
func TestRecordBudgetBoundsViews(t *testing.T) {
	path, frame := hostileCapture(t, "minimal", capgen.MinimalBatch(codec.CompressionZstd, 30000))
	prev := -1
	for _, budget := range []int{1 << 20, 2 << 20, 4 << 20} {
		counts, sizes := countViews(t, path, "--max-decompressed-size", strconv.Itoa(budget))
		for view, n := range counts {
			if n != counts["json"] {
				t.Fatalf("budget %d: %s counts %d records, JSON %d (%v)", budget, view, n, counts["json"], counts)
			}
		}
		n := counts["json"]
		if n <= prev || n > budget/100 {
			t.Errorf("budget %d: %d records decoded (%d with the budget before)", budget, n, prev)
		}
		prev = n
		if sizes["detail"] > budget || sizes["hexdump"] > 8*budget+10*frame {
			t.Errorf("budget %d: detail %d bytes, hexdump %d bytes", budget, sizes["detail"], sizes["hexdump"])
		}
		t.Logf("budget %d MiB: %d records, outputs %v", budget>>20, n, sizes)
	}
}
