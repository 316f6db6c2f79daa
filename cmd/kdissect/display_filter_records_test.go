package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestDisplayFilterRecords holds -Y over records fields to the JSON
// output: on every test capture, the exchanges -Y finds by a record's key
// (and by its offset, compared as an int) through the bodies' records
// lists are exactly those whose JSON carries such a record, in Produce
// requests and Fetch responses alike, batches and legacy messages; and
// stats -Y counts as many.
func TestDisplayFilterRecords(t *testing.T) {
	caps, err := filepath.Glob("../../testdata/pcaps/*.pcap*")
	if err != nil {
		t.Fatal(err)
	}
	const (
		// The records of a body's records fields, in each API's JSON.
		produce = `any(request.TopicData, any(.PartitionData, any(.Records, %s)))`
		fetch   = `any(response.Responses, any(.Partitions, any(.Records, %s)))`
	)
	checked := 0
	for _, c := range caps {
		code, out, errs := runCLI(t, "read", "--format", "json", c)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c, code, errs)
		}
		byKey := map[string]map[string]bool{}   // record key: exchanges
		byOffset := map[int64]map[string]bool{} // Fetch record offset: exchanges
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var ex struct {
				Stream        int64 `json:"stream"`
				CorrelationID int32 `json:"correlation_id"`
				API           string
				Request       struct {
					TopicData []struct {
						PartitionData []struct{ Records json.RawMessage }
					}
				}
				Response struct {
					Responses []struct {
						Partitions []struct{ Records json.RawMessage }
					}
				}
			}
			if err := json.Unmarshal([]byte(l), &ex); err != nil {
				t.Fatal(err)
			}
			id := fmt.Sprintf("%d/%d", ex.Stream, ex.CorrelationID)
			var fields []json.RawMessage
			for _, td := range ex.Request.TopicData {
				for _, p := range td.PartitionData {
					fields = append(fields, p.Records)
				}
			}
			for _, r := range ex.Response.Responses {
				for _, p := range r.Partitions {
					fields = append(fields, p.Records)
				}
			}
			for _, f := range fields {
				var entries []struct {
					Key     any
					Offset  *int64
					Records []struct {
						Key    any
						Offset int64
					}
				}
				_ = json.Unmarshal(f, &entries) // null, or an object for a field not decoded: no records
				add := func(key any, off int64) {
					if k, ok := key.(string); ok && !strings.ContainsAny(k, `"\`) {
						if byKey[k] == nil {
							byKey[k] = map[string]bool{}
						}
						byKey[k][id] = true
					}
					if ex.API == "Fetch" {
						if byOffset[off] == nil {
							byOffset[off] = map[string]bool{}
						}
						byOffset[off][id] = true
					}
				}
				for _, e := range entries {
					if e.Offset != nil { // a legacy message
						add(e.Key, *e.Offset)
					}
					for _, r := range e.Records {
						add(r.Key, r.Offset)
					}
				}
			}
		}
		run := func(what, expr string, want map[string]bool) {
			t.Helper()
			code, out, errs := runCLI(t, "read", "-Y", expr, "--format", "fields", "--no-header", "-e", "stream", "-e", "correlation_id", c)
			if code != 0 {
				t.Fatalf("%s: -Y %s: exit %d: %s", c, expr, code, errs)
			}
			var got []string
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				if l != "" {
					got = append(got, strings.Replace(l, "\t", "/", 1))
				}
			}
			var w []string
			for id := range want {
				w = append(w, id)
			}
			sort.Strings(w)
			sort.Strings(got)
			if !slices.Equal(got, w) {
				t.Errorf("%s: %s: -Y found %v, the JSON says %v", filepath.Base(c), what, got, w)
			}
			// stats, which otherwise only counts records, decodes them
			// for such a filter.
			code, out, errs = runCLI(t, "stats", "--format", "json", "-Y", expr, c)
			var st statsOut // stats_test.go
			if code != 0 || json.Unmarshal([]byte(out), &st) != nil {
				t.Fatalf("%s: stats -Y %s: exit %d: %s", c, expr, code, errs)
			}
			if st.Capture.Exchanges != int64(len(w)) {
				t.Errorf("%s: %s: stats -Y counts %d exchanges, the JSON says %d", filepath.Base(c), what, st.Capture.Exchanges, len(w))
			}
			checked++
		}
		keys := make([]string, 0, len(byKey))
		for k := range byKey {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			if i%max(1, len(keys)/4) != 0 {
				continue // a few keys of each capture
			}
			m := fmt.Sprintf(`(.Key == %q || any(.Records, .Key == %q))`, k, k)
			run("key "+k, fmt.Sprintf(produce, m)+" || "+fmt.Sprintf(fetch, m), byKey[k])
		}
		offsets := make([]int64, 0, len(byOffset))
		for o := range byOffset {
			offsets = append(offsets, o)
		}
		slices.Sort(offsets)
		for i, o := range offsets {
			if i%max(1, len(offsets)/3) != 0 {
				continue
			}
			m := fmt.Sprintf(`(.Offset == %d || any(.Records, .Offset == %d))`, o, o)
			run(fmt.Sprint("offset ", o), fmt.Sprintf(fetch, m), byOffset[o])
		}
	}
	if checked < 20 {
		t.Fatalf("only %d filters checked: the captures hold too few records", checked)
	}
	t.Logf("%d filters over records held to the JSON", checked)
}
