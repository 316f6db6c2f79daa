package metrics

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/internal/capedit"
	"github.com/kdissect/kdissect/internal/testcap"
)

// On real captures cut to 128 bytes a packet (as `editcap -s 128`), what
// the cut took is not counted: the records and error counters hold only
// what was captured, never more than the clean original's, and
// kdissect_counts_not_captured_total counts the exchanges that lacked
// some, as their Decoded says; the clean original has none.
func TestNotCapturedNotCounted(t *testing.T) {
	var recordsMarked, errorsMarked float64
	for _, name := range []string{"kcat_group.pcap", "franz_idempotent.pcap", "franz_transactions.pcap", "kcat_mtu.pcap.gz"} {
		src, err := os.ReadFile("../../testdata/pcaps/" + name)
		if err != nil {
			t.Fatal(err)
		}
		var paths [2]string
		for i, opts := range []capedit.Options{{}, {Snap: 128}} {
			paths[i] = filepath.Join(t.TempDir(), "capture.pcap")
			var buf bytes.Buffer
			if _, err := capedit.Rewrite(&buf, bytes.NewReader(src), opts); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(paths[i], buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var scraped [2]map[string]float64 // by series: direction topic, or api error
		for i, path := range paths {
			exs, _ := testcap.Decoded(t, path, dissect.DecodeOptions{})
			c := New(Options{})
			var wantRecords, wantErrors, recs, errs float64
			for _, ex := range exs {
				c.Add(ex)
				if ex.Decoded == nil {
					continue
				}
				wantErrors += float64(len(ex.Decoded.Errors))
				if ex.Decoded.RecordsNotCaptured {
					recs++
				}
				if ex.Decoded.ErrorsNotCaptured {
					errs++
				}
				for _, rr := range ex.Decoded.RecordSets {
					wantRecords += float64(rr.Records.Set.Count())
				}
			}
			mfs := scrape(t, c)
			if got := sum0(mfs, CountsNotCaptured, map[string]string{"count": "records"}); got != recs {
				t.Errorf("%s (%d): %v exchanges counted with records not captured, %v marked", name, i, got, recs)
			}
			if got := sum0(mfs, CountsNotCaptured, map[string]string{"count": "errors"}); got != errs {
				t.Errorf("%s (%d): %v exchanges counted with errors not captured, %v marked", name, i, got, errs)
			}
			if i == 0 && recs+errs > 0 {
				t.Errorf("%s: the clean capture has %v exchanges with records and %v with errors not captured", name, recs, errs)
			}
			if i == 1 {
				recordsMarked += recs
				errorsMarked += errs
			}
			if got := sum0(mfs, RecordsTotal, nil); got != wantRecords {
				t.Errorf("%s (%d): %v records counted, the exchanges hold %v", name, i, got, wantRecords)
			}
			if got := sum0(mfs, ErrorsTotal, nil); got != wantErrors {
				t.Errorf("%s (%d): %v errors counted, the exchanges hold %v", name, i, got, wantErrors)
			}
			scraped[i] = series(mfs)
		}
		for k, v := range scraped[1] {
			if v > scraped[0][k] {
				t.Errorf("%s: %s is %v cut, %v clean", name, k, v, scraped[0][k])
			}
		}
	}
	if recordsMarked == 0 || errorsMarked == 0 {
		t.Errorf("the cut marked %v exchanges' records and %v exchanges' errors: too few to check", recordsMarked, errorsMarked)
	}
}

// series are the values of the records, record bytes and errors counters
// by name and labels. Topics known only by ID are left out: the cut may
// lose the Metadata that names them.
func series(mfs map[string]*dto.MetricFamily) map[string]float64 {
	out := map[string]float64{}
	for _, name := range []string{RecordsTotal, RecordBytesTotal, ErrorsTotal} {
		for _, m := range mfs[name].GetMetric() {
			k := name
			skip := false
			for _, l := range m.GetLabel() {
				k += " " + l.GetName() + "=" + l.GetValue()
				skip = skip || l.GetName() == "topic" && strings.HasPrefix(l.GetValue(), "id:")
			}
			if !skip {
				out[k] += m.GetCounter().GetValue()
			}
		}
	}
	return out
}

// sum0 is sum, 0 for a family without series (not served).
func sum0(mfs map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	if mfs[name] == nil {
		return 0
	}
	return sum(mfs, name, want)
}
