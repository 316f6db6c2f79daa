package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/kdissect/kdissect/internal/capedit"
)

// TestQuietMetricsAreReadsMetrics holds what read -q --metrics serves
// (record sets only counted, as stats counts them) to what read --metrics
// --format json serves (every record decoded), series by series and value
// by value, on real captures and on damaged copies of one: -q may cost
// less, never count differently. And -q prints no exchange.
func TestQuietMetricsAreReadsMetrics(t *testing.T) {
	dir := t.TempDir()
	mtu := "../../testdata/pcaps/kcat_mtu.pcap.gz"
	damaged := map[string]capedit.Options{
		"snap128": {Snap: 128},
		"drop5":   {Drop: capedit.RandomDrop(0.05, 1, true)},
	}
	caps := []string{
		"../../testdata/pcaps/franz_groups.pcap",
		"../../testdata/pcaps/franz_transactions.pcap",
		"../../testdata/pcaps/kcat_produce_lz4.pcap",
		mtu,
	}
	for name, o := range damaged {
		in, err := os.ReadFile(mtu)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if _, err := capedit.Rewrite(&out, bytes.NewReader(in), o); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		p := filepath.Join(dir, name+".pcap")
		if err := os.WriteFile(p, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		caps = append(caps, p)
	}
	for _, capture := range caps {
		t.Run(filepath.Base(capture), func(t *testing.T) {
			serve := func(args ...string) (map[string]string, string) {
				c := startMetricsCmd(t, append([]string{"read", "--metrics", "127.0.0.1:0", "--metrics-linger", "1m"}, append(args, capture)...)...)
				c.stderr.await(t, regexp.MustCompile(`input ended`), c.done)
				series := kdissectSeries(scrapeMetrics(t, c.metricsURL))
				if err := c.stop(t); err != nil && !strings.Contains(err.Error(), "cut") {
					t.Fatalf("read %v: %v\n%s", args, err, c.stderr)
				}
				return series, c.stdout.String()
			}
			full, out := serve("--format", "json")
			quiet, qout := serve("-q")
			if strings.Count(out, "\n") == 0 {
				t.Fatal("read --format json printed no exchange: the capture shows nothing to compare")
			}
			if qout != "" {
				t.Errorf("read -q printed %d bytes, want none: %.200q", len(qout), qout)
			}
			requests := 0
			for k := range full {
				if strings.HasPrefix(k, "kdissect_requests_total{") {
					requests++
				}
			}
			if requests == 0 {
				t.Fatal("read --metrics served no kdissect_requests_total")
			}
			for k, v := range full {
				if quiet[k] != v {
					t.Errorf("%s: read --metrics %s, read -q --metrics %q", k, v, quiet[k])
				}
			}
			for k, v := range quiet {
				if _, ok := full[k]; !ok {
					t.Errorf("%s: only read -q --metrics serves it (%s)", k, v)
				}
			}
		})
	}
}

// kdissectSeries flattens the kdissect_* families into one string per
// series (name and sorted labels) holding its value (histograms: count,
// sum and buckets). The sink's and the process' own are left out.
func kdissectSeries(mfs map[string]*dto.MetricFamily) map[string]string {
	out := map[string]string{}
	for name, mf := range mfs {
		if !strings.HasPrefix(name, "kdissect_") || strings.HasPrefix(name, "kdissect_sink_") {
			continue
		}
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			sort.Strings(labels)
			key := name + "{" + strings.Join(labels, ",") + "}"
			var v strings.Builder
			switch {
			case m.Counter != nil:
				v.WriteString(formatFloat(m.GetCounter().GetValue()))
			case m.Gauge != nil:
				v.WriteString(formatFloat(m.GetGauge().GetValue()))
			case m.Histogram != nil:
				h := m.GetHistogram()
				v.WriteString("count=" + formatFloat(float64(h.GetSampleCount())) + " sum=" + formatFloat(h.GetSampleSum()))
				for _, b := range h.GetBucket() {
					v.WriteString(" le" + formatFloat(b.GetUpperBound()) + "=" + formatFloat(float64(b.GetCumulativeCount())))
				}
			}
			out[key] = v.String()
		}
	}
	return out
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// TestQuietStillWrites checks that -q silences only the view: -w's
// pcapng and --format parquet -w's file hold every exchange, as without
// -q, and -e, whose columns -q would hide, is refused.
func TestQuietStillWrites(t *testing.T) {
	const capture = "../../testdata/pcaps/franz_groups.pcap"
	code, out, errs := runCLI(t, "read", "--format", "json", capture)
	if code != 0 {
		t.Fatalf("read: exit %d: %s", code, errs)
	}
	want := strings.Count(out, "\n")
	if want == 0 {
		t.Fatal("read printed no exchange")
	}
	dir := t.TempDir()
	pcapng := filepath.Join(dir, "out.pcapng")
	code, out, errs = runCLI(t, "read", "-q", "-w", pcapng, capture)
	if code != 0 || out != "" {
		t.Fatalf("read -q -w: exit %d, %d bytes on stdout: %s", code, len(out), errs)
	}
	code, out, errs = runCLI(t, "read", "--format", "json", pcapng)
	if code != 0 || strings.Count(out, "\n") != want {
		t.Errorf("the -q -w pcapng read back: exit %d, %d exchanges, want %d: %s", code, strings.Count(out, "\n"), want, errs)
	}
	pq := filepath.Join(dir, "out.parquet")
	code, out, errs = runCLI(t, "read", "-q", "--format", "parquet", "-w", pq, capture)
	if code != 0 || out != "" {
		t.Fatalf("read -q --format parquet -w: exit %d, %d bytes on stdout: %s", code, len(out), errs)
	}
	if st, err := os.Stat(pq); err != nil || st.Size() == 0 {
		t.Errorf("read -q --format parquet -w wrote no file: %v", err)
	}
	code, _, errs = runCLI(t, "read", "-q", "--format", "csv", "-e", "api", capture)
	if code != exitUsage || !strings.Contains(errs, "-q shows nothing") {
		t.Errorf("read -q -e: exit %d, %q; want a usage error", code, errs)
	}
}
