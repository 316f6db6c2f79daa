package report

import (
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"regexp"
	"slices"
	"time"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/output/stats"
)

// Builder aggregates exchanges for the report: the stats Collector (so
// that the report's numbers are those of stats --format json) and the
// time series of the plots. Add runs on one goroutine, in capture order.
type Builder struct {
	col    *stats.Collector
	series series
	notes  map[string]int64 // by kind: the note with its numbers as N
	other  int64            // notes past maxNames kinds
}

// New returns an empty Builder.
func New() *Builder {
	return &Builder{col: stats.New(), series: series{topics: map[string]bool{}, errors: map[string]bool{}}, notes: map[string]int64{}}
}

// Add aggregates one decoded exchange.
func (b *Builder) Add(ex *dissect.Exchange) {
	b.col.Add(ex)
	b.series.add(ex)
	for _, n := range ex.Notes {
		k := noteKind(n.Text)
		if _, ok := b.notes[k]; !ok && len(b.notes) >= maxNames {
			b.other++
			continue
		}
		b.notes[k]++
	}
}

// Stats returns the aggregate of stats (output/stats), the report's tables.
func (b *Builder) Stats() *stats.Report { return b.col.Report() }

var digits = regexp.MustCompile(`[0-9]+`)

// noteKind is a note with its numbers (offsets, sizes, ids) as N, so that
// the notes of one kind count together.
func noteKind(n string) string { return digits.ReplaceAllString(shorten(n, 200), "N") }

// Info is what the report says of its input.
type Info struct {
	Files   []string
	Packets int64
	Filter  string // the exchange filter, "" when none
	Version string // kdissect's
}

//go:embed report.html.tmpl
var pageTemplate string

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"ms":  func(us int64) string { return fmt.Sprintf("%.3f", float64(us)/1000) },
	"utc": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05.000000 UTC") },
}).Parse(pageTemplate))

// topN is how many rows the "top" tables show and how many series a plot
// draws (the rest are in the tables).
const topN = 10

// pageData is what the template draws.
type pageData struct {
	Info     Info
	R        *stats.Report
	Duration time.Duration
	Plots    []*plot
	Clients  []*stats.ClientStats
	Brokers  []brokerRow
	TopParts []*stats.PartitionStats
	Notes    []noteRow
}

type brokerRow struct {
	Broker      string
	Connections int
	stats.Traffic
}

type noteRow struct {
	Kind  string
	Count int64
}

// WriteHTML writes the report: one HTML file, its styles inline and its
// plots inline SVG, with no script and no reference to anything outside
// it, so that it opens from a file or a mail attachment without network.
func (b *Builder) WriteHTML(w io.Writer, info Info) error {
	r := b.col.Report()
	d := pageData{Info: info, R: r, Duration: r.Totals.Duration(), Plots: b.plots()}
	d.Clients = r.Clients[:min(len(r.Clients), topN)]

	brokers := map[string]*brokerRow{}
	for _, c := range r.Connections {
		br := brokers[c.Broker]
		if br == nil {
			br = &brokerRow{Broker: c.Broker}
			brokers[c.Broker] = br
		}
		br.Connections++
		br.Exchanges += c.Exchanges
		br.RequestBytes += c.RequestBytes
		br.ResponseBytes += c.ResponseBytes
		br.Errors += c.Errors
		br.Latency.Merge(&c.Latency)
	}
	for _, br := range brokers {
		d.Brokers = append(d.Brokers, *br)
	}
	slices.SortFunc(d.Brokers, func(a, b brokerRow) int {
		return cmp.Or(cmp.Compare(b.Exchanges, a.Exchanges), cmp.Compare(a.Broker, b.Broker))
	})
	d.Brokers = d.Brokers[:min(len(d.Brokers), topN)]

	d.TopParts = slices.Clone(r.Partitions)
	slices.SortStableFunc(d.TopParts, func(a, b *stats.PartitionStats) int {
		return cmp.Compare(b.ProducedRecords+b.FetchedRecords, a.ProducedRecords+a.FetchedRecords)
	})
	d.TopParts = d.TopParts[:min(len(d.TopParts), topN)]

	for k, n := range b.notes {
		d.Notes = append(d.Notes, noteRow{k, n})
	}
	if b.other > 0 {
		d.Notes = append(d.Notes, noteRow{"other kinds", b.other})
	}
	slices.SortFunc(d.Notes, func(a, b noteRow) int { return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Kind, b.Kind)) })
	if err := page.Execute(w, d); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// plots makes the plots of the time series.
func (b *Builder) plots() []*plot {
	s := &b.series
	n := len(s.buckets)
	secs := s.width().Seconds()
	mk := func(id, title, ylabel, empty string) *plot {
		return &plot{ID: id, Title: title, YLabel: ylabel, Empty: empty, Start: s.start, Width: s.width(), N: n}
	}
	// values returns a series, NaN where f says there is no value; an
	// interval without exchanges counts 0 where counted (f is sure of its
	// value), a gap where measured (a latency).
	values := func(f func(b *bucket) (float64, bool)) []float64 {
		y := make([]float64, n)
		empty := newBucket()
		for i, bk := range s.buckets {
			if bk == nil {
				bk = empty
			}
			y[i] = math.NaN()
			if v, ok := f(bk); ok {
				y[i] = v
			}
		}
		return y
	}
	rate := func(f func(b *bucket) int64) []float64 {
		return values(func(b *bucket) (float64, bool) { return float64(f(b)) / secs, true })
	}

	// The APIs with the most exchanges, for latency and requests.
	apis := map[string]int64{}
	topics := map[string]int64{}
	errs := map[string]int64{}
	for _, bk := range s.buckets {
		if bk == nil {
			continue
		}
		for k, v := range bk.perAPI {
			apis[k] += v
		}
		for k, v := range bk.produced {
			topics[k] += v
		}
		for k, v := range bk.fetched {
			topics[k] += v
		}
		for k, v := range bk.errors {
			errs[k] += v
		}
	}

	lat := mk("latency", "Latency per API: p50 (solid) and p99 (dashed)", "latency (ms)", "no exchange with both request and response")
	for _, api := range top(apis, 5) {
		for _, q := range []float64{50, 99} {
			lat.Lines = append(lat.Lines, line{Name: fmt.Sprintf("%s p%v", api, q), Dash: q == 99, Y: values(func(b *bucket) (float64, bool) {
				h := b.latency[api]
				if h == nil || h.Count() == 0 {
					return 0, false
				}
				return float64(h.Percentile(q)) / 1000, true
			})})
		}
	}

	req := mk("requests", "Requests per second", "requests/s", "no exchanges")
	req.Lines = append(req.Lines, line{Name: "all APIs", Y: rate(func(b *bucket) int64 { return b.requests })})
	for _, api := range top(apis, 6) {
		req.Lines = append(req.Lines, line{Name: api, Y: rate(func(b *bucket) int64 { return b.perAPI[api] })})
	}

	bytes := mk("bytes", "Bytes per second, as the frames' size prefixes say", "bytes/s", "no exchanges")
	bytes.Lines = []line{
		{Name: "requests (client to broker)", Y: rate(func(b *bucket) int64 { return b.requestBytes })},
		{Name: "responses (broker to client)", Y: rate(func(b *bucket) int64 { return b.responseBytes })},
	}

	recs := mk("records", "Records per second per topic: produced (solid) and fetched (dashed)", "records/s", "no records produced or fetched")
	for _, t := range top(topics, 5) {
		recs.Lines = append(recs.Lines,
			line{Name: t + " produced", Y: rate(func(b *bucket) int64 { return b.produced[t] })},
			line{Name: t + " fetched", Dash: true, Y: rate(func(b *bucket) int64 { return b.fetched[t] })})
	}

	errp := mk("errors", "Errors per interval by name (non-zero error codes in responses)", "errors per "+s.width().String(), "no errors")
	for _, e := range top(errs, 8) {
		errp.Lines = append(errp.Lines, line{Name: e, Y: values(func(b *bucket) (float64, bool) { return float64(b.errors[e]), true })})
	}
	return []*plot{lat, req, bytes, recs, errp}
}

// top returns the n keys of m with the largest values, largest first.
func top(m map[string]int64, n int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(m[b], m[a]), cmp.Compare(a, b)) })
	return keys[:min(len(keys), n)]
}
