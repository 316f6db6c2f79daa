package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/kdissect/kdissect/internal/capedit"
	"github.com/kdissect/kdissect/output/render"
)

// notCapturedCaptures are the real captures TestViewsNotCaptured cuts.
var notCapturedCaptures = []string{
	"kcat_produce_none.pcap", "kcat_produce_lz4.pcap", "kcat_legacy_msgset.pcap", "kcat_group.pcap",
	"franz_idempotent.pcap", "franz_transactions.pcap", "franz_groups.pcap", "franz_admin.pcap", "kcat_mtu.pcap.gz",
}

// exchangeLine is what TestViewsNotCaptured reads of a JSON line.
type exchangeLine struct {
	Stream        int               `json:"stream"`
	CorrelationID int32             `json:"correlation_id"`
	APIKey        *int              `json:"api_key"`
	Errors        []json.RawMessage `json:"errors"`
	ErrorsNC      bool              `json:"errors_not_captured"`
	Records       *int64            `json:"records"`
	RecordsNC     bool              `json:"records_not_captured"`
	Response      any               `json:"response"`
	Topics        []struct {
		Topic   *string `json:"topic"`
		TopicID string  `json:"topic_id"`
	} `json:"topics"`
}

func readLines(t *testing.T, path string) []exchangeLine {
	t.Helper()
	code, out, errs := runCLI(t, "read", "--format", "json", path)
	if code != 0 {
		t.Fatalf("read %s: exit %d: %s", path, code, errs)
	}
	var lines []exchangeLine
	for l := range strings.Lines(out) {
		var e exchangeLine
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		lines = append(lines, e)
	}
	return lines
}

type exchangeKey struct {
	stream, api int
	corr        int32
}

// lowerBound checks a count of the cut copy against the clean one: equal
// unless marked not captured; marked, null (nothing captured) or a number
// from 1 to the clean one, never 0. It reports whether it was marked.
func lowerBound(t *testing.T, what string, cut *int64, marked bool, clean int64) {
	t.Helper()
	switch {
	case !marked && (cut == nil || *cut != clean):
		t.Errorf("%s: %s, not marked not captured, the clean capture has %d", what, fmtCount(cut), clean)
	case marked && cut != nil && (*cut == 0 || *cut > clean):
		t.Errorf("%s: %d marked not captured, the clean capture has %d (a lower bound is 1 to it; nothing captured is null)", what, *cut, clean)
	}
}

// capturedRecords is a JSON line's records: the count captured, 0 for
// null (none captured).
func capturedRecords(m map[string]any) int64 {
	n, _ := m["records"].(float64)
	return int64(n)
}

func fmtCount(v *int64) string {
	if v == nil {
		return "null"
	}
	return strconv.FormatInt(*v, 10)
}

// errorCodePaths adds to out the paths of the error code fields of a
// JSON body (keys ending in ErrorCode), arrays by index.
func errorCodePaths(v any, path string, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, f := range x {
			if strings.HasSuffix(k, "ErrorCode") {
				out[path+"."+k] = true
			}
			errorCodePaths(f, path+"."+k, out)
		}
	case []any:
		for i, f := range x {
			errorCodePaths(f, path+"["+strconv.Itoa(i)+"]", out)
		}
	}
}

// cellOf is the table cell of a count as JSON has it: "?", "≥ N" or N.
func cellOf(v *int64, marked bool) string {
	switch {
	case v == nil:
		return "?"
	case marked:
		return "≥ " + strconv.FormatInt(*v, 10)
	}
	return strconv.FormatInt(*v, 10)
}

// Every view of a real capture cut to 128 bytes a packet (as `editcap
// -s 128`) agrees with the clean original: a value the cut copy held
// equals the clean one; one it did not hold is null in JSON and Parquet,
// "?" in tables, "≥ N" (N + *_not_captured) when held in part, never a 0
// that reads as exact.
func TestViewsNotCaptured(t *testing.T) {
	dir := t.TempDir()
	var marked struct{ records, recordsNull, errors, errorFieldsLost, partitions, tableCells int }
	for _, name := range notCapturedCaptures {
		src, err := os.ReadFile(filepath.Join("../../testdata/pcaps", name))
		if err != nil {
			t.Fatal(err)
		}
		clean := filepath.Join(dir, strings.TrimSuffix(name, ".gz"))
		rewriteTo(t, clean, src, capedit.Options{})
		cut := filepath.Join(dir, "cut-"+filepath.Base(clean))
		rewriteTo(t, cut, src, capedit.Options{Snap: 128})

		// JSON Lines, exchange by exchange.
		cleanLines, cutLines := readLines(t, clean), readLines(t, cut)
		errorsLost := false // an error code field of a response not captured
		byKey := map[exchangeKey]exchangeLine{}
		idToName := map[string]string{}
		for _, e := range cleanLines {
			if e.APIKey != nil {
				byKey[exchangeKey{e.Stream, *e.APIKey, e.CorrelationID}] = e
			}
			for _, tp := range e.Topics {
				if tp.Topic != nil && tp.TopicID != "" {
					idToName["id:"+tp.TopicID] = *tp.Topic
				}
			}
		}
		for _, e := range cutLines {
			if e.APIKey == nil {
				continue
			}
			c, ok := byKey[exchangeKey{e.Stream, *e.APIKey, e.CorrelationID}]
			if !ok {
				continue
			}
			what := name + ": stream " + strconv.Itoa(e.Stream) + " corr " + strconv.Itoa(int(e.CorrelationID))
			lowerBound(t, what+" records", e.Records, e.RecordsNC, *c.Records)
			// errors is a list: the codes captured, errors_not_captured
			// beside it when some were not.
			if n, want := len(e.Errors), len(c.Errors); n > want || n != want && !e.ErrorsNC {
				t.Errorf("%s errors: %d (not captured %v), the clean capture has %d", what, n, e.ErrorsNC, want)
			}
			if e.ErrorsNC {
				marked.errors++
			}
			// An error code field the clean response has and the cut one
			// lacks (ErrorCode, PartitionErrorCode...: 0 or not) leaves
			// the errors unknown.
			held, all := map[string]bool{}, map[string]bool{}
			errorCodePaths(e.Response, "", held)
			errorCodePaths(c.Response, "", all)
			for p := range all {
				if !held[p] && !e.ErrorsNC {
					t.Errorf("%s: the cut response lacks %s, errors not marked not captured", what, p)
				}
			}
			if len(held) < len(all) {
				errorsLost = true
				marked.errorFieldsLost++
			}
			if e.RecordsNC && *c.Records > 0 {
				marked.records++
				if e.Records == nil {
					marked.recordsNull++
				}
			}
		}

		checkSummaryTable(t, name, cut, cutLines)
		checkCSV(t, name, cut, cutLines)
		checkParquet(t, name, cut, filepath.Join(dir, "cut.parquet"), cutLines)
		n, cells := checkStats(t, name, clean, cut, idToName, errorsLost)
		marked.partitions += n
		marked.tableCells += cells
	}
	// The cut takes records and error codes from real exchanges: the
	// checks above saw them marked.
	if marked.records == 0 || marked.recordsNull == 0 || marked.errors == 0 || marked.errorFieldsLost == 0 || marked.partitions == 0 || marked.tableCells == 0 {
		t.Errorf("too little marked not captured to check: %+v", marked)
	}
	t.Logf("marked not captured: %+v", marked)
}

// checkSummaryTable holds the summary table's records and errors columns
// to the JSON lines of the same capture.
func checkSummaryTable(t *testing.T, name, path string, lines []exchangeLine) {
	t.Helper()
	code, out, errs := runCLI(t, "read", "--columns", "records,errors", path)
	if code != 0 {
		t.Fatalf("read %s: exit %d: %s", path, code, errs)
	}
	rows := tableRows(out)
	if len(rows) != len(lines)+1 {
		t.Fatalf("%s: %d table rows for %d exchanges", name, len(rows)-1, len(lines))
	}
	for i, e := range lines {
		cells := rows[i+1]
		if want := cellOf(e.Records, e.RecordsNC); cells[0] != want {
			t.Errorf("%s: row %d records %q, JSON says %s", name, i, cells[0], want)
		}
		if got := strings.HasPrefix(cells[1], "?"); got != e.ErrorsNC {
			t.Errorf("%s: row %d errors %q, JSON errors_not_captured %v", name, i, cells[1], e.ErrorsNC)
		}
	}
}

// tableRows splits a box-drawn table's rows into trimmed cells.
func tableRows(out string) [][]string {
	var rows [][]string
	for l := range strings.Lines(out) {
		if !strings.HasPrefix(l, "│") {
			continue
		}
		var cells []string
		for c := range strings.SplitSeq(strings.Trim(strings.TrimSpace(l), "│"), "│") {
			cells = append(cells, strings.TrimSpace(c))
		}
		rows = append(rows, cells)
	}
	return rows
}

// checkCSV holds -e records, records_not_captured, errors_not_captured to
// the JSON lines: null is an empty cell.
func checkCSV(t *testing.T, name, path string, lines []exchangeLine) {
	t.Helper()
	code, out, errs := runCLI(t, "read", "--format", "csv", "--no-header", "-e", "records", "-e", "records_not_captured", "-e", "errors_not_captured", path)
	if code != 0 {
		t.Fatalf("read %s: exit %d: %s", path, code, errs)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) != len(lines) {
		t.Fatalf("%s: %d CSV rows for %d exchanges (%v)", name, len(recs), len(lines), err)
	}
	for i, e := range lines {
		want := []string{"", strconv.FormatBool(e.RecordsNC), strconv.FormatBool(e.ErrorsNC)}
		if e.Records != nil {
			want[0] = strconv.FormatInt(*e.Records, 10)
		}
		if !slices.Equal(recs[i], want) {
			t.Errorf("%s: CSV row %d %q, JSON says %q", name, i, recs[i], want)
		}
	}
}

// checkParquet holds the Parquet rows' records and not-captured columns
// to the JSON lines.
func checkParquet(t *testing.T, name, path, out string, lines []exchangeLine) {
	t.Helper()
	if code, _, errs := runCLI(t, "read", "--format", "parquet", "-w", out, path); code != 0 {
		t.Fatalf("read %s: exit %d: %s", path, code, errs)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := parquet.Read[render.ExchangeRow](bytes.NewReader(b), int64(len(b)))
	if err != nil || len(rows) != len(lines) {
		t.Fatalf("%s: %d Parquet rows for %d exchanges (%v)", name, len(rows), len(lines), err)
	}
	for i, e := range lines {
		r := rows[i]
		if fmtCount(r.Records) != fmtCount(e.Records) || r.RecordsNotCaptured != e.RecordsNC || r.ErrorsNotCaptured != e.ErrorsNC {
			t.Errorf("%s: Parquet row %d records %s (not captured %v, errors %v), JSON %s (%v, %v)", name, i,
				fmtCount(r.Records), r.RecordsNotCaptured, r.ErrorsNotCaptured, fmtCount(e.Records), e.RecordsNC, e.ErrorsNC)
		}
	}
}

// statsPartition is a row of stats' "partitions".
type statsPartition struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Counts    [4]*int64
	Marked    [4]bool
}

var partitionCounts = [4]string{"produced_records", "produced_bytes", "fetched_records", "fetched_bytes"}

type statsNC struct {
	Capture struct {
		Errors    *int64 `json:"errors"`
		ErrorsNC  bool   `json:"errors_not_captured"`
		RecordsNC bool   `json:"records_not_captured"`
	} `json:"capture"`
	APIs []struct {
		API      string `json:"api"`
		Errors   *int64 `json:"errors"`
		ErrorsNC bool   `json:"errors_not_captured"`
	} `json:"apis"`
	Partitions []map[string]any `json:"partitions"`
}

func statsJSON(t *testing.T, path string) (statsNC, []statsPartition) {
	t.Helper()
	code, out, errs := runCLI(t, "stats", "--format", "json", path)
	if code != 0 {
		t.Fatalf("stats %s: exit %d: %s", path, code, errs)
	}
	var st statsNC
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	var parts []statsPartition
	for _, m := range st.Partitions {
		p := statsPartition{Topic: m["topic"].(string), Partition: int32(m["partition"].(float64))}
		for i, k := range partitionCounts {
			if v, ok := m[k].(float64); ok {
				n := int64(v)
				p.Counts[i] = &n
			}
			p.Marked[i], _ = m[k+"_not_captured"].(bool)
		}
		parts = append(parts, p)
	}
	return st, parts
}

// checkStats holds stats' counts of the cut copy to the clean one's, and
// its partitions table to its JSON. It returns how many partition counts
// and table cells were marked.
func checkStats(t *testing.T, name, clean, cut string, idToName map[string]string, errorsLost bool) (marked, cells int) {
	t.Helper()
	cst, cparts := statsJSON(t, clean)
	st, parts := statsJSON(t, cut)
	if errorsLost && !st.Capture.ErrorsNC {
		t.Errorf("%s: error code fields not captured, stats' errors not marked", name)
	}
	lowerBound(t, name+": stats errors", st.Capture.Errors, st.Capture.ErrorsNC, *cst.Capture.Errors)
	for _, a := range st.APIs {
		for _, c := range cst.APIs {
			if c.API == a.API {
				lowerBound(t, name+": stats errors of "+a.API, a.Errors, a.ErrorsNC, *c.Errors)
			}
		}
	}
	type key struct {
		topic string
		part  int32
	}
	cleanRows := map[key]statsPartition{}
	for _, p := range cparts {
		cleanRows[key{p.Topic, p.Partition}] = p
	}
	seen := map[key]bool{}
	for _, p := range parts {
		k := key{p.Topic, p.Partition}
		if n, ok := idToName[k.topic]; ok {
			k.topic = n
		}
		seen[k] = true
		c, ok := cleanRows[k]
		for i, what := range partitionCounts {
			var want int64
			if ok {
				want = *c.Counts[i]
			}
			lowerBound(t, name+": stats "+k.topic+"-"+strconv.Itoa(int(k.part))+" "+what, p.Counts[i], p.Marked[i], want)
			if p.Marked[i] && want > 0 {
				marked++
			}
		}
	}
	for k, c := range cleanRows {
		if !seen[k] && (*c.Counts[0] > 0 || *c.Counts[2] > 0) && !st.Capture.RecordsNC {
			t.Errorf("%s: stats lacks %v (records %d produced, %d fetched) and says no records were not captured", name, k, *c.Counts[0], *c.Counts[2])
		}
	}

	// The table shows the JSON's counts: "?" for null, "≥ N" for a lower bound.
	code, out, errs := runCLI(t, "stats", cut)
	if code != 0 {
		t.Fatalf("stats %s: exit %d: %s", cut, code, errs)
	}
	_, section, _ := strings.Cut(out, "Topic-partitions")
	section, _, _ = strings.Cut(section, "\n\n")
	rows := tableRows(section)
	if len(parts) > 0 && len(rows) != len(parts)+1 {
		t.Fatalf("%s: %d rows in the partitions table, %d in JSON:\n%s", name, len(rows)-1, len(parts), section)
	}
	for i, p := range parts {
		for j := range partitionCounts {
			got, want := rows[i+1][2+j], cellOf(p.Counts[j], p.Marked[j])
			if got != want {
				t.Errorf("%s: partitions table row %d column %s: %q, JSON says %q", name, i, partitionCounts[j], got, want)
			}
			if got == "?" || strings.HasPrefix(got, "≥") {
				cells++
			}
		}
	}
	if cells > 0 && !strings.Contains(section, "?: not captured") {
		t.Errorf("%s: partitions table without its footnote:\n%s", name, section)
	}
	return marked, cells
}
