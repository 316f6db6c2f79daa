package metrics

import (
	"bytes"
	"fmt"
	"math"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/internal/capedit"
	"github.com/kdissect/kdissect/internal/capgen"
	"github.com/kdissect/kdissect/internal/testcap"
	"github.com/kdissect/kdissect/output/stats"
)

// capture dissects and decodes a real capture of testdata/pcaps.
func capture(t *testing.T, name string) ([]*dissect.Exchange, dissect.Stats) {
	return testcap.Decoded(t, "../../testdata/pcaps/"+name, dissect.DecodeOptions{})
}

// scrape serves c over HTTP and parses what it serves with Prometheus'
// own text-format parser.
func scrape(t *testing.T, c *Collector) map[string]*dto.MetricFamily {
	t.Helper()
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse the metrics: %v", err)
	}
	return mfs
}

// sum adds the values of a family's series whose labels include want.
func sum(mfs map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	var n float64
	mf := mfs[name]
	if mf == nil {
		return math.NaN()
	}
next:
	for _, m := range mf.GetMetric() {
		for k, v := range want {
			found := false
			for _, l := range m.GetLabel() {
				if l.GetName() == k && l.GetValue() == v {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			n += m.GetCounter().GetValue()
		case m.Histogram != nil:
			n += float64(m.GetHistogram().GetSampleCount())
		}
	}
	return n
}

// TestCountsAsStats: the metrics of a real capture of franz-go's group
// consumer give the totals stats gives: exchanges, bytes each way,
// errors by name, records by topic, requests without a response, and
// latencies (every one in one histogram or the other; the Fetch long
// polls apart).
func TestCountsAsStats(t *testing.T) {
	exs, st := capture(t, "franz_groups.pcap")
	c := New(Options{})
	col := stats.New()
	for _, ex := range exs {
		c.Add(ex)
		col.Add(ex)
	}
	c.SetCapture(st)
	mfs := scrape(t, c)
	r := col.Report()
	check := func(what string, got float64, want int64) {
		t.Helper()
		if got != float64(want) {
			t.Errorf("%s: metrics %v, stats %d", what, got, want)
		}
	}
	check("exchanges", sum(mfs, RequestsTotal, nil), r.Totals.Exchanges)
	check("request bytes", sum(mfs, BytesTotal, map[string]string{"direction": "request"}), r.Totals.RequestBytes)
	check("response bytes", sum(mfs, BytesTotal, map[string]string{"direction": "response"}), r.Totals.ResponseBytes)
	check("errors", sum(mfs, ErrorsTotal, nil), r.Totals.Errors)
	check("packets", sum(mfs, PacketsTotal, nil), st.Packets)
	var latencies, noResp, longPolls int64
	for _, a := range r.APIs {
		check(a.Name+" exchanges", sum(mfs, RequestsTotal, map[string]string{"api": a.Name}), a.Exchanges)
		check(a.Name+" no response", sum(mfs, NoResponseTotal, map[string]string{"api": a.Name}), a.NoResponse)
		latencies += int64(a.Latency.Count())
		noResp += a.NoResponse
	}
	for _, ex := range exs {
		if w, ok := maxWait(ex); ok && w > 0 && ex.Response != nil && ex.Request != nil {
			longPolls++
		}
	}
	if longPolls == 0 {
		t.Fatal("the capture has no Fetch long poll: the test shows nothing of them")
	}
	check("long polls", sum(mfs, FetchWaitDuration, nil), longPolls)
	check("latencies", sum(mfs, RequestDuration, nil)+sum(mfs, FetchWaitDuration, nil), latencies)
	check("fetch in request_duration", sum(mfs, RequestDuration, map[string]string{"api": "Fetch"}), 0)
	for _, e := range r.Errors {
		check(e.Name, sum(mfs, ErrorsTotal, map[string]string{"error": e.Name}), e.Count)
	}
	produced, fetched := map[string]int64{}, map[string]int64{}
	for _, p := range r.Partitions {
		produced[p.Topic] += p.ProducedRecords
		fetched[p.Topic] += p.FetchedRecords
	}
	for topic, n := range produced {
		check(topic+" produced", sum(mfs, RecordsTotal, map[string]string{"topic": topic, "direction": "produced"}), n)
		check(topic+" fetched", sum(mfs, RecordsTotal, map[string]string{"topic": topic, "direction": "fetched"}), fetched[topic])
	}
	var notes int64
	for _, ex := range exs {
		notes += int64(len(ex.Notes))
	}
	check("notes", sum(mfs, NotesTotal, nil), notes)
	if noResp == 0 || notes == 0 {
		t.Errorf("the capture has %d requests without response and %d notes: the test shows less than it says", noResp, notes)
	}
}

// TestSeriesBounded: past MaxSeries label sets, client ids and brokers
// fold into one Other series per API; nothing is lost from the counts.
func TestSeriesBounded(t *testing.T) {
	exs, _ := capture(t, "kcat_produce_none.pcap")
	const max = 5
	c := New(Options{MaxSeries: max})
	apis := map[string]bool{}
	for i, ex := range exs {
		id := fmt.Sprintf("client-%d", i)
		cp := *ex
		cp.ClientID = &id
		c.Add(&cp)
		apis[APILabel(ex)] = true
	}
	mfs := scrape(t, c)
	series := mfs[RequestsTotal].GetMetric()
	if len(series) > max+len(apis) {
		t.Errorf("%d series of %s, want at most %d + %d (one other per API)", len(series), RequestsTotal, max, len(apis))
	}
	if got := sum(mfs, RequestsTotal, nil); got != float64(len(exs)) {
		t.Errorf("%v exchanges counted, want %d", got, len(exs))
	}
	if got := sum(mfs, RequestsTotal, map[string]string{"client_id": Other, "broker": Other}); got != float64(len(exs)-max) {
		t.Errorf("%v exchanges in other series, want %d", got, len(exs)-max)
	}
	if len(exs) <= max {
		t.Fatalf("%d exchanges: too few to pass the bound", len(exs))
	}
}

// TestNoteKindsOfDamagedCaptures: every note the dissector writes on
// damaged copies of real captures (internal/capedit: segments lost, snap
// lengths, a capture cut short) has a kind (dissect.NoteKind), not other.
func TestNoteKindsOfDamagedCaptures(t *testing.T) {
	kinds := map[dissect.NoteKind]int{}
	for _, name := range []string{"kcat_mtu.pcap.gz", "franz_groups.pcap", "franz_transactions.pcap"} {
		src, err := os.ReadFile("../../testdata/pcaps/" + name)
		if err != nil {
			t.Fatal(err)
		}
		for _, opts := range []capedit.Options{
			{Drop: capedit.RandomDrop(0.02, 1, true)},
			{Drop: capedit.RandomDrop(0.1, 2, false)},
			{Snap: 128},
			{Limit: 200},
		} {
			path := filepath.Join(t.TempDir(), "damaged.pcap")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := capedit.Rewrite(f, bytes.NewReader(src), opts); err != nil {
				t.Fatal(err)
			}
			f.Close()
			exs, _ := testcap.Decoded(t, path, dissect.DecodeOptions{})
			for _, ex := range exs {
				for _, n := range ex.Notes {
					k := n.Kind
					kinds[k]++
					if k == dissect.NoteOther {
						t.Errorf("%s %+v: note of no kind: %q", name, opts, n)
					}
				}
			}
		}
	}
	if len(kinds) < 4 {
		t.Errorf("notes of %d kinds only: %v", len(kinds), kinds)
	}
	t.Logf("notes by kind: %v", kinds)
}

// TestConnectionTableCounts: the counts of the full connection table are
// served as the dissector counted them: a flood of one-packet flows
// (capgen.WriteFlood) one more than the table holds, then a real
// capture, evict connections.
func TestConnectionTableCounts(t *testing.T) {
	const limit = 100
	real, err := os.ReadFile("../../testdata/pcaps/kcat_produce_lz4.pcap")
	if err != nil {
		t.Fatal(err)
	}
	var flood bytes.Buffer
	if err := capgen.WriteFlood(&flood, limit+1, netip.MustParseAddrPort("127.0.0.1:9092"), time.Unix(1700000000, 0), time.Millisecond); err != nil {
		t.Fatal(err)
	}
	d := dissect.New(dissect.Options{MaxConnections: limit})
	exchanges := 0
	caps := []dissect.Capture{{Name: "flood", Reader: &flood}, {Name: "kcat", Reader: bytes.NewReader(real)}}
	if err := d.ReadCaptures(caps, dissect.ReadOptions{}, func(*dissect.Exchange) { exchanges++ }); err != nil {
		t.Fatal(err)
	}
	st := d.Stats()
	if st.ConnEvicted == 0 || exchanges == 0 {
		t.Fatalf("%d connections evicted, %d exchanges: the flood did not fill the table, or kept kcat out", st.ConnEvicted, exchanges)
	}
	c := New(Options{})
	c.SetCapture(st)
	mfs := scrape(t, c)
	if got := sum(mfs, ConnectionsEvictedTotal, nil); got != float64(st.ConnEvicted) {
		t.Errorf("%s %v, dissector %d", ConnectionsEvictedTotal, got, st.ConnEvicted)
	}
	if got := sum(mfs, ConnectionLimitPackets, nil); got != float64(st.ConnLimit) {
		t.Errorf("%s %v, dissector %d", ConnectionLimitPackets, got, st.ConnLimit)
	}
}
