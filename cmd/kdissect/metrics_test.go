package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/kdissect/kdissect/output/metrics"
)

// watchedBuffer is a buffer a command writes while a test waits for a
// pattern to appear in it.
type watchedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	ch  chan struct{} // closed and replaced at each write
}

func newWatchedBuffer() *watchedBuffer { return &watchedBuffer{ch: make(chan struct{})} }

func (b *watchedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.buf.Write(p)
	close(b.ch)
	b.ch = make(chan struct{})
	return n, err
}

func (b *watchedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// await returns the first match of re, waiting for it up to hangCap or
// until done is closed.
func (b *watchedBuffer) await(t *testing.T, re *regexp.Regexp, done <-chan error) []string {
	t.Helper()
	timeout := time.After(hangCap)
	for {
		b.mu.Lock()
		m := re.FindStringSubmatch(b.buf.String())
		ch := b.ch
		b.mu.Unlock()
		if m != nil {
			return m
		}
		select {
		case <-ch:
		case err := <-done:
			t.Fatalf("the command ended (%v) before %q appeared:\n%s", err, re, b)
		case <-timeout:
			t.Fatalf("%q did not appear in %v:\n%s", re, hangCap, b)
		}
	}
}

// backgroundCmd is a kdissect command running in the background.
type backgroundCmd struct {
	cancel         context.CancelFunc
	done           chan error
	stdout, stderr *watchedBuffer
	metricsURL     string
}

var metricsLine = regexp.MustCompile(`kdissect: metrics on (http://\S+/metrics)\n`)

// startMetricsCmd runs kdissect with args (which include --metrics) and
// waits until it says where its metrics are.
func startMetricsCmd(t *testing.T, args ...string) *backgroundCmd {
	t.Helper()
	return startMetricsCmdIn(t, strings.NewReader(""), args...)
}

// startMetricsCmdIn is startMetricsCmd with stdin as standard input.
func startMetricsCmdIn(t *testing.T, stdin io.Reader, args ...string) *backgroundCmd {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c := &backgroundCmd{cancel: cancel, done: make(chan error, 1), stdout: newWatchedBuffer(), stderr: newWatchedBuffer()}
	root := newRootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(c.stdout)
	root.SetErr(c.stderr)
	go func() { c.done <- root.ExecuteContext(ctx) }()
	t.Cleanup(cancel)
	c.metricsURL = c.stderr.await(t, metricsLine, c.done)[1]
	return c
}

// stop cancels the command and waits, bounded, for it to end.
func (c *backgroundCmd) stop(t *testing.T) error {
	t.Helper()
	c.cancel()
	select {
	case err := <-c.done:
		return err
	case <-time.After(hangCap):
		t.Fatalf("the command did not end in %v after its context was cancelled:\n%s", hangCap, c.stderr)
		return nil
	}
}

// scrapeMetrics gets url as Prometheus does (text format) and parses it
// with Prometheus' own parser.
func scrapeMetrics(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("scrape %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("scrape %s: status %d, %v", url, resp.StatusCode, err)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("scrape %s: content type %q, want the text format", url, ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parse the metrics of %s: %v\n%s", url, err, body)
	}
	return mfs
}

// metricSum adds the values (histograms: the sample counts) of a
// family's series whose labels include want; NaN when it is not served.
func metricSum(mfs map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	mf := mfs[name]
	if mf == nil {
		return -1
	}
	var n float64
	for _, m := range mf.GetMetric() {
		if !hasLabels(m, want) {
			continue
		}
		switch {
		case m.Counter != nil:
			n += m.GetCounter().GetValue()
		case m.Histogram != nil:
			n += float64(m.GetHistogram().GetSampleCount())
		case m.Gauge != nil:
			n += m.GetGauge().GetValue()
		}
	}
	return n
}

func hasLabels(m *dto.Metric, want map[string]string) bool {
	for k, v := range want {
		if !slices.ContainsFunc(m.GetLabel(), func(l *dto.LabelPair) bool { return l.GetName() == k && l.GetValue() == v }) {
			return false
		}
	}
	return true
}

// TestReadMetrics runs read --metrics on a real capture of a franz-go
// group consumer (Fetch long polls, errors, requests without response),
// scrapes what it serves once the input ended, parses it with
// Prometheus' text parser, and holds it to stats --format json of the
// same capture: packets, exchanges, bytes each way, errors by name,
// requests without response and latencies per API, records and record
// bytes per topic. Then the dashboard's names are looked up in it.
func TestReadMetrics(t *testing.T) {
	const capture = "../../testdata/pcaps/franz_groups.pcap"
	var out, errOut bytes.Buffer
	if code := run([]string{"stats", "--format", "json", capture}, nil, &out, &errOut); code != 0 {
		t.Fatalf("stats: exit %d: %s", code, errOut.String())
	}
	var st statsOut // stats_test.go
	if err := json.Unmarshal(out.Bytes(), &st); err != nil {
		t.Fatal(err)
	}

	c := startMetricsCmd(t, "read", "--metrics", "127.0.0.1:0", "--metrics-linger", "1m", "--format", "json", capture)
	c.stderr.await(t, regexp.MustCompile(`input ended`), c.done)
	mfs := scrapeMetrics(t, c.metricsURL)
	if err := c.stop(t); err != nil {
		t.Fatalf("read: %v\n%s", err, c.stderr)
	}
	if n := strings.Count(c.stdout.String(), "\n"); int64(n) != st.Capture.Exchanges {
		t.Errorf("read wrote %d JSON lines, stats counts %d exchanges", n, st.Capture.Exchanges)
	}

	check := func(what string, got float64, want int64) {
		t.Helper()
		if got != float64(want) {
			t.Errorf("%s: metrics %v, stats %d", what, got, want)
		}
	}
	check("packets", metricSum(mfs, metrics.PacketsTotal, nil), st.Capture.Packets)
	check("exchanges", metricSum(mfs, metrics.RequestsTotal, nil), st.Capture.Exchanges)
	check("request bytes", metricSum(mfs, metrics.BytesTotal, map[string]string{"direction": "request"}), st.Capture.RequestBytes)
	check("response bytes", metricSum(mfs, metrics.BytesTotal, map[string]string{"direction": "response"}), st.Capture.ResponseBytes)
	check("errors", metricSum(mfs, metrics.ErrorsTotal, nil), st.Capture.Errors)
	for _, a := range st.APIs {
		api := map[string]string{"api": a.API}
		check(a.API+" exchanges", metricSum(mfs, metrics.RequestsTotal, api), a.Exchanges)
		check(a.API+" no response", metricSum(mfs, metrics.NoResponseTotal, api), a.NoResponse)
		check(a.API+" latencies", metricSum(mfs, metrics.RequestDuration, api)+metricSum(mfs, metrics.FetchWaitDuration, api), int64(a.Latency.Count))
	}
	if metricSum(mfs, metrics.FetchWaitDuration, nil) <= 0 {
		t.Errorf("no Fetch long poll in %s, which holds Fetch requests with MaxWaitMs 500", metrics.FetchWaitDuration)
	}
	for _, e := range st.Errors {
		check(e.Name, metricSum(mfs, metrics.ErrorsTotal, map[string]string{"error": e.Name}), e.Count)
	}
	type topicSums struct{ pr, pb, fr, fb int64 }
	topics := map[string]*topicSums{}
	for _, p := range st.Partitions {
		s := topics[p.Topic]
		if s == nil {
			s = &topicSums{}
			topics[p.Topic] = s
		}
		s.pr += p.ProducedRecords
		s.pb += p.ProducedBytes
		s.fr += p.FetchedRecords
		s.fb += p.FetchedBytes
	}
	if len(topics) == 0 {
		t.Fatal("stats found no topic: the capture shows nothing of records")
	}
	for topic, s := range topics {
		prod, fetch := map[string]string{"topic": topic, "direction": "produced"}, map[string]string{"topic": topic, "direction": "fetched"}
		check(topic+" produced records", metricSum(mfs, metrics.RecordsTotal, prod), s.pr)
		check(topic+" produced bytes", metricSum(mfs, metrics.RecordBytesTotal, prod), s.pb)
		check(topic+" fetched records", metricSum(mfs, metrics.RecordsTotal, fetch), s.fr)
		check(topic+" fetched bytes", metricSum(mfs, metrics.RecordBytesTotal, fetch), s.fb)
	}
	// A capture file has no kernel counts: those two are live's; the
	// sink's are served with --sink (TestSinkBrokerStopped).
	checkDashboard(t, mfs, metrics.KernelReceivedTotal, metrics.KernelDroppedTotal, metrics.SinkRecordsTotal)
}

// dashboardExprs returns every PromQL expression of
// dashboards/kdissect.json: the panels' targets and the variables'
// queries.
func dashboardExprs(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../dashboards/kdissect.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Type  string          `json:"type"`
				Query json.RawMessage `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("dashboards/kdissect.json: %v", err)
	}
	var exprs []string
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			if tg.Expr == "" {
				t.Errorf("panel %q has a target without expr", p.Title)
			}
			exprs = append(exprs, tg.Expr)
		}
	}
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		var q struct {
			Query string `json:"query"`
		}
		if err := json.Unmarshal(v.Query, &q); err != nil {
			t.Fatalf("variable query %s: %v", v.Query, err)
		}
		exprs = append(exprs, q.Query)
	}
	if len(exprs) < 10 {
		t.Fatalf("%d expressions in the dashboard", len(exprs))
	}
	return exprs
}

var (
	promMetricName = regexp.MustCompile(`\bkdissect_[a-z_]+\b`)
	promBy         = regexp.MustCompile(`\bby \(([^)]*)\)`)
	promMatcher    = regexp.MustCompile(`([a-z_]+)\s*(?:=~|!~|!=|=)\s*"`)
	promLabelFunc  = regexp.MustCompile(`label_values\([^,]+,\s*([a-z_]+)\)`)
)

// checkDashboard checks every metric name of the dashboard's
// expressions against what was served (mfs): a histogram's _bucket,
// _sum and _count by its family; and every label its expressions group
// by or match on against the series of each metric the expression uses
// (le on histograms; instance and job, which Prometheus adds to what it
// scrapes). notServed are names this endpoint cannot serve, which are
// left out, and said so.
func checkDashboard(t *testing.T, mfs map[string]*dto.MetricFamily, notServed ...string) {
	t.Helper()
	used := map[string]bool{}
	for _, expr := range dashboardExprs(t) {
		names := promMetricName.FindAllString(expr, -1)
		if len(names) == 0 {
			t.Errorf("dashboard expression %q names no kdissect metric", expr)
		}
		var labels []string
		for _, m := range promBy.FindAllStringSubmatch(expr, -1) {
			for _, l := range strings.Split(m[1], ",") {
				labels = append(labels, strings.TrimSpace(l))
			}
		}
		for _, m := range promMatcher.FindAllStringSubmatch(expr, -1) {
			labels = append(labels, m[1])
		}
		for _, m := range promLabelFunc.FindAllStringSubmatch(expr, -1) {
			labels = append(labels, m[1])
		}
		for _, name := range names {
			used[name] = true
			if slices.Contains(notServed, name) {
				continue
			}
			family, histogram := name, false
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				if f, ok := strings.CutSuffix(name, suffix); ok && mfs[f].GetType() == dto.MetricType_HISTOGRAM {
					family, histogram = f, true
				}
			}
			mf := mfs[family]
			if mf == nil || len(mf.GetMetric()) == 0 {
				t.Errorf("dashboard uses %s (in %q), which the endpoint does not serve", name, expr)
				continue
			}
			if strings.HasSuffix(name, "_bucket") != histogram && mf.GetType() == dto.MetricType_HISTOGRAM {
				t.Errorf("dashboard uses histogram %s without _bucket/_sum/_count (in %q)", name, expr)
			}
			for _, l := range labels {
				if l == "instance" || l == "job" || l == "le" && strings.HasSuffix(name, "_bucket") {
					continue
				}
				if !slices.ContainsFunc(mf.GetMetric()[0].GetLabel(), func(p *dto.LabelPair) bool { return p.GetName() == l }) {
					t.Errorf("dashboard groups %s by label %q (in %q), which it does not have", name, l, expr)
				}
			}
		}
	}
	for _, name := range notServed {
		if used[name] {
			t.Logf("left out of the check here (not served by this endpoint): %s", name)
		}
	}
	// Every kdissect family served appears on the dashboard.
	for name := range mfs {
		if strings.HasPrefix(name, "kdissect_") && !used[name] && !used[name+"_bucket"] {
			t.Errorf("the dashboard does not show %s", name)
		}
	}
}
