// Package metrics counts decoded exchanges as Prometheus metrics, for
// `kdissect live --metrics ADDR` and `kdissect read --metrics ADDR`:
// requests by API, version, client id and broker; latency histograms by
// API, with the Fetch requests that may wait on the broker (MaxWaitMs > 0,
// long polls) in a histogram of their own; errors by API and error name;
// frame bytes each way; records and record bytes by topic; and the
// sniffer's health (packets, kernel drops, bytes not captured, notes by
// kind, connections the full connection table evicted or refused).
//
// Each Collector has its own registry (no global state): serve it with
// Handler. Series are bounded as stats bounds its rows: once a metric holds
// MaxSeries label sets, the labels a capture can make without bound
// (client id, broker, topic, version, error name, MaxWaitMs) of a new set
// are replaced by Other, while the API and the direction, which the
// protocol bounds, are kept; so totals per API stay exact.
//
// The metric names are the constants below; dashboards/kdissect.json uses
// them, and a test holds the dashboard to what the endpoint serves.
package metrics

import (
	"net/http"
	"net/netip"
	"strconv"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/output/stats"
)

// MaxSeries is the most label sets a metric keeps apart (as stats.MaxRows
// bounds stats' rows); beyond it the unbounded labels of a new set are
// Other.
const MaxSeries = 10000

// Other is the value of a label beyond MaxSeries.
const Other = "other"

// Metric names, as served and as dashboards/kdissect.json uses them.
const (
	RequestsTotal       = "kdissect_requests_total"
	NoResponseTotal     = "kdissect_no_response_total"
	RequestDuration     = "kdissect_request_duration_seconds"
	FetchWaitDuration   = "kdissect_fetch_wait_duration_seconds"
	ErrorsTotal         = "kdissect_errors_total"
	BytesTotal          = "kdissect_bytes_total"
	RecordsTotal        = "kdissect_records_total"
	RecordBytesTotal    = "kdissect_record_bytes_total"
	NotesTotal          = "kdissect_notes_total"
	PacketsTotal        = "kdissect_packets_total"
	NotCapturedBytes    = "kdissect_not_captured_bytes_total"
	CountsNotCaptured   = "kdissect_counts_not_captured_total"
	KernelReceivedTotal = "kdissect_kernel_received_packets_total"
	KernelDroppedTotal  = "kdissect_kernel_dropped_packets_total"
	SinkRecordsTotal    = "kdissect_sink_records_total"
	// The connection table (dissect.Options.MaxConnections) full:
	// connections evicted to make room, packets of connections refused.
	ConnectionsEvictedTotal = "kdissect_connections_evicted_total"
	ConnectionLimitPackets  = "kdissect_connection_limit_packets_total"
)

// Buckets are the latency histograms' upper bounds, in seconds: 100µs (a
// Metadata answered on loopback) to 30 s (a request timeout, the longest
// a client waits by default: request.timeout.ms), about three per decade.
var Buckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

// Collector turns exchanges into metrics. Add and SetCapture are to be
// called from one goroutine (the capture's, or the pipeline's ordered
// stage); the registry may be scraped at any time, concurrently.
type Collector struct {
	reg *prometheus.Registry

	requests    *counters
	noResponse  *counters
	errors      *counters
	bytes       *counters
	records     *counters
	recordBytes *counters
	notes       *counters
	notCaptured *counters
	duration    *histograms
	fetchWait   *histograms

	brokers map[netip.AddrPort]string // label strings of the brokers seen

	packets, snapBytes, holeBytes atomic.Int64
	connEvicted, connLimit        atomic.Int64
}

// Options configures a Collector.
type Options struct {
	// MaxSeries bounds each metric's label sets; 0 means MaxSeries.
	MaxSeries int
}

// New returns a Collector with its own registry, which also holds the Go
// runtime's and the process's collectors (go_*, process_*).
func New(opts Options) *Collector {
	max := opts.MaxSeries
	if max <= 0 {
		max = MaxSeries
	}
	reg := prometheus.NewRegistry()
	c := &Collector{reg: reg, brokers: map[netip.AddrPort]string{}}
	counter := func(name, help string, labels []string, bounded int) *counters {
		v := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
		reg.MustRegister(v)
		return newBounded(v.WithLabelValues, max, bounded)
	}
	histogram := func(name, help string, labels []string, bounded int) *histograms {
		v := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: Buckets}, labels)
		reg.MustRegister(v)
		return newBounded(v.WithLabelValues, max, bounded)
	}
	// The first `bounded` labels of each are bounded by the protocol and
	// kept past MaxSeries; the others become Other.
	c.requests = counter(RequestsTotal, "Exchanges (a request with its response, or either alone) by API, ApiVersion, client id and broker address.",
		[]string{"api", "api_version", "client_id", "broker"}, 1)
	c.noResponse = counter(NoResponseTotal, "Requests without a captured response (Produce with Acks=0 included), by API.",
		[]string{"api"}, 1)
	c.duration = histogram(RequestDuration, "Response time minus request time, by API; Fetch and ShareFetch requests with MaxWaitMs > 0 (long polls) are in "+FetchWaitDuration+" instead.",
		[]string{"api"}, 1)
	c.fetchWait = histogram(FetchWaitDuration, "Response time minus request time of Fetch and ShareFetch requests that allow the broker to wait (MaxWaitMs > 0, a long poll), by API and MaxWaitMs.",
		[]string{"api", "max_wait_ms"}, 1)
	c.errors = counter(ErrorsTotal, "Non-zero error codes in responses, by API and Kafka's error name.",
		[]string{"api", "error"}, 1)
	c.bytes = counter(BytesTotal, "Kafka frame bytes as their size prefixes say, by API and direction (request: client to broker, response: broker to client).",
		[]string{"api", "direction"}, 2)
	c.records = counter(RecordsTotal, "Records produced (in Produce requests) and fetched (in Fetch responses), by topic.",
		[]string{"direction", "topic"}, 1)
	c.recordBytes = counter(RecordBytesTotal, "Bytes of the complete record batches and legacy messages produced and fetched, by topic.",
		[]string{"direction", "topic"}, 1)
	c.notes = counter(NotesTotal, "Notes on exchanges (what a user must know: missing request or response, bytes not captured, malformed fields...), by kind.",
		[]string{"kind"}, 1)
	c.notCaptured = counter(CountsNotCaptured, "Exchanges whose records (of Produce requests and Fetch responses) or response error codes the capture lacked in part, by API and count (records, errors): "+RecordsTotal+" and "+ErrorsTotal+" count only those captured.",
		[]string{"api", "count"}, 2)
	for _, k := range dissect.NoteKinds() {
		c.notes.child(string(k)).Add(0) // every kind served from the start, so that rate() sees the first
	}

	reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: PacketsTotal, Help: "Packets read by the dissector."},
		func() float64 { return float64(c.packets.Load()) }))
	for _, n := range []struct {
		cause string
		v     *atomic.Int64
	}{{"snap_length", &c.snapBytes}, {"segments_lost", &c.holeBytes}} {
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: NotCapturedBytes,
			Help:        "TCP payload bytes the capture lacks, by cause: cut by the snap length, or in segments not captured (from the sequence numbers around them).",
			ConstLabels: prometheus.Labels{"cause": n.cause}},
			func() float64 { return float64(n.v.Load()) }))
	}
	reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: ConnectionsEvictedTotal,
		Help: "Connections evicted from the full connection table to make room for a new one: those with the least evidence of being real (no handshake, one way only, no frame), silent longest, first."},
		func() float64 { return float64(c.connEvicted.Load()) }))
	reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: ConnectionLimitPackets,
		Help: "Packets not dissected because the connection table was full of connections with more evidence of being real than theirs."},
		func() float64 { return float64(c.connLimit.Load()) }))
	reg.MustRegister(prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
	return c
}

// Registry returns the Collector's registry, to register more (the sink's
// counts) or to gather.
func (c *Collector) Registry() *prometheus.Registry { return c.reg }

// Handler serves the metrics in the Prometheus text format (or OpenMetrics
// and protobuf where the scraper asks).
func (c *Collector) Handler() http.Handler {
	return promhttp.HandlerFor(c.reg, promhttp.HandlerOpts{Registry: c.reg, EnableOpenMetrics: true})
}

// SetKernel registers the kernel's packet counts of a live capture: read
// at each scrape, from any goroutine. received counts what the kernel's
// filter passed (drops included), dropped what it dropped for want of
// buffer.
func (c *Collector) SetKernel(counts func() (received, dropped uint64)) {
	c.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: KernelReceivedTotal, Help: "Packets the kernel's capture filter passed, dropped ones included (live capture)."},
		func() float64 { r, _ := counts(); return float64(r) }))
	c.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: KernelDroppedTotal, Help: "Packets the kernel dropped because the capture fell behind (live capture)."},
		func() float64 { _, d := counts(); return float64(d) }))
}

// SinkCounts are what became of the exchanges given to a --sink.
type SinkCounts struct {
	Sent     uint64 // acknowledged by the sink's broker
	Dropped  uint64 // dropped: the sink's queue was full
	TooLarge uint64 // dropped: larger than a record may be
	Failed   uint64 // queued, but the Produce failed
}

// SetSink registers the counts of a sink (--sink), read at each scrape
// from any goroutine, as kdissect_sink_records_total by result.
func (c *Collector) SetSink(counts func() SinkCounts) {
	for _, r := range []struct {
		result string
		get    func(SinkCounts) uint64
	}{
		{"sent", func(s SinkCounts) uint64 { return s.Sent }},
		{"dropped_queue_full", func(s SinkCounts) uint64 { return s.Dropped }},
		{"dropped_too_large", func(s SinkCounts) uint64 { return s.TooLarge }},
		{"failed", func(s SinkCounts) uint64 { return s.Failed }},
	} {
		c.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: SinkRecordsTotal,
			Help:        "Exchanges given to the Kafka sink (--sink), by what became of them: sent (acknowledged), dropped_queue_full (the sink fell behind), dropped_too_large, failed (the Produce failed).",
			ConstLabels: prometheus.Labels{"result": r.result}},
			func() float64 { return float64(r.get(counts())) }))
	}
}

// SetCapture takes the dissector's counts so far (dissect.Dissector.Stats,
// on the dissector's goroutine): packets read, bytes not captured, what
// the full connection table evicted and refused.
func (c *Collector) SetCapture(st dissect.Stats) {
	c.packets.Store(st.Packets)
	c.snapBytes.Store(st.SnapBytes)
	c.holeBytes.Store(st.HoleBytes)
	c.connEvicted.Store(st.ConnEvicted)
	c.connLimit.Store(st.ConnLimit)
}

// Add counts one decoded exchange (Decoder.Decode ran on it), as stats
// counts it: the same totals of exchanges, bytes, errors and records.
func (c *Collector) Add(ex *dissect.Exchange) {
	api := APILabel(ex)
	version := "-1"
	if ex.APIVersion >= 0 && !ex.SASLToken {
		version = strconv.Itoa(int(ex.APIVersion))
	}
	clientID := ""
	if ex.ClientID != nil {
		clientID = *ex.ClientID
	}
	c.requests.child(api, version, clientID, c.brokerLabel(ex.Broker)).Inc()
	if ex.Request != nil {
		c.bytes.child(api, "request").Add(float64(ex.Request.Size))
		if ex.Response == nil {
			c.noResponse.child(api).Inc()
		}
	}
	if ex.Response != nil {
		c.bytes.child(api, "response").Add(float64(ex.Response.Size))
	}
	dec := ex.Decoded
	if lat, ok := ex.Latency(); ok {
		s := lat.Seconds()
		if wait, ok := maxWait(ex); ok && wait > 0 {
			c.fetchWait.child(api, strconv.Itoa(int(wait))).Observe(s)
		} else {
			c.duration.child(api).Observe(s)
		}
	}
	for _, n := range ex.Notes {
		c.notes.child(string(n.Kind)).Inc()
	}
	if dec == nil {
		return
	}
	for _, e := range dec.Errors {
		c.errors.child(api, codec.ErrorName(e.Code)).Inc()
	}
	// What the capture lacked is not counted, only that it was lacking.
	if dec.ErrorsNotCaptured {
		c.notCaptured.child(api, "errors").Inc()
	}
	if dec.RecordsNotCaptured {
		c.notCaptured.child(api, "records").Inc()
	}
	if ex.SASLToken || ex.APIKey != codec.ApiKeyProduce && ex.APIKey != codec.ApiKeyFetch {
		return
	}
	dir := "fetched"
	if ex.APIKey == codec.ApiKeyProduce {
		dir = "produced"
	}
	// The partitions of a topic come one after the other: they are
	// added up first, and counted once per topic.
	var topic string
	var records, size int64
	flush := func() {
		if records > 0 || size > 0 {
			c.records.child(dir, topic).Add(float64(records))
			c.recordBytes.child(dir, topic).Add(float64(size))
		}
		records, size = 0, 0
	}
	for i := range dec.RecordSets {
		rr := &dec.RecordSets[i]
		set := rr.Records.Set
		if set == nil {
			continue
		}
		t := stats.TopicName(rr.Topic, rr.TopicID)
		if t != topic {
			flush()
			topic = t
		}
		records += int64(set.Count())
		size += stats.EntryBytes(set)
	}
	flush()
}

// brokerLabel returns the broker label of addr, its string kept for the
// next exchanges (at most MaxSeries of them).
func (c *Collector) brokerLabel(addr netip.AddrPort) string {
	if s, ok := c.brokers[addr]; ok {
		return s
	}
	s := addr.String()
	if len(c.brokers) < MaxSeries {
		c.brokers[addr] = s
	}
	return s
}

// APILabel is the api label of an exchange: Kafka's name of its ApiKey;
// "unknown" for a key the codec does not know or a response whose request
// was not captured; "SASL token" for raw SASL tokens (as stats names them).
func APILabel(ex *dissect.Exchange) string {
	if ex.SASLToken {
		return "SASL token"
	}
	if a, ok := codec.LookupAPI(ex.APIKey); ok {
		return a.Name
	}
	return "unknown"
}

// maxWait returns the MaxWaitMs of a Fetch or ShareFetch request, which
// lets the broker hold the response until data comes (KIP-74, KIP-932).
func maxWait(ex *dissect.Exchange) (int32, bool) {
	if ex.Decoded == nil {
		return 0, false
	}
	switch r := ex.Decoded.Request.(type) {
	case *codec.FetchRequest:
		return r.MaxWaitMs, true
	case *codec.ShareFetchRequest:
		return r.MaxWaitMs, true
	}
	return 0, false
}
