package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/output/stats"
)

// StatsInfo is what the stats views say besides the aggregate.
type StatsInfo struct {
	Files   []string // the captures read
	Packets int64    // packets read
	Filter  string   // the exchange filter, "" when none
	// Loss says what the capture lacks, as reassembly found it.
	Loss CaptureLoss
}

// CaptureLoss is what a capture lacks of the TCP streams it holds
// (dissect.Stats): bytes beyond the snap length and segments not
// captured, both holes of known size that the framer stepped over; and
// the IP fragments put back together, or given up.
type CaptureLoss struct {
	SnapTruncated int64 // packets the snap length cut
	SnapBytes     int64 // payload bytes it cut
	Holes         int64 // runs of segments not captured
	HoleBytes     int64 // their bytes
	Retransmitted int64 // segments that brought nothing new
	ReusedPorts   int64 // connections ended by a new one on their 4-tuple
	// IP fragments reassembled, the datagrams they made, and fragments
	// that could not be reassembled.
	FragmentsReassembled int64
	Reassembled          int64
	FragmentsDropped     int64
	// Connections evicted from the full connection table, and packets
	// of connections refused by it (dissect.Stats.ConnEvicted,
	// ConnLimit).
	ConnEvicted int64
	ConnLimit   int64
}

// LossOf takes what StatsInfo says of loss from the dissector's counts.
func LossOf(st dissect.Stats) CaptureLoss {
	return CaptureLoss{SnapTruncated: st.SnapTruncated, SnapBytes: st.SnapBytes, Holes: st.Holes, HoleBytes: st.HoleBytes, Retransmitted: st.Retransmitted, ReusedPorts: st.ReusedPorts,
		FragmentsReassembled: st.FragmentsReassembled, Reassembled: st.Reassembled, FragmentsDropped: st.FragmentsDropped,
		ConnEvicted: st.ConnEvicted, ConnLimit: st.ConnLimit}
}

// WriteStatsTables writes the aggregate as tables: the capture, then per
// API, per topic-partition, errors by name and by topic-partition, per
// client id and per connection. Latencies are nearest-rank percentiles,
// exact up to 1024 samples per row, within 0.4% beyond (stats.Histogram).
func WriteStatsTables(w io.Writer, r *stats.Report, info StatsInfo) error {
	t := r.Totals
	var b strings.Builder
	b.WriteString("Capture\n")
	kv := func(k, v string) { fmt.Fprintf(&b, "  %-15s %s\n", k, v) }
	if len(info.Files) > 0 {
		names := make([]string, len(info.Files))
		for i, f := range info.Files {
			names[i] = sanitize(f)
		}
		kv("files", strings.Join(names, ", "))
	}
	if info.Filter != "" {
		kv("filter", sanitize(info.Filter))
	}
	kv("packets", strconv.FormatInt(info.Packets, 10))
	kv("exchanges", strconv.FormatInt(t.Exchanges, 10))
	if !t.First.IsZero() {
		kv("span", fmt.Sprintf("%s to %s (%s)", t.First.UTC().Format(tsFormat), t.Last.UTC().Format(tsFormat), t.Duration().Round(time.Microsecond)))
	}
	kv("request bytes", strconv.FormatInt(t.RequestBytes, 10)+sizeSuffix(t.RequestBytes))
	kv("response bytes", strconv.FormatInt(t.ResponseBytes, 10)+sizeSuffix(t.ResponseBytes))
	// Frames lost whole make every count of errors and records a lower
	// bound (stats.Totals.FramesNotCaptured).
	lost := t.FramesNotCaptured > 0
	kv("errors", countCell(t.Errors, lost || t.ErrorsNotCaptured > 0)+errorsNotCapturedNote(t))
	if l := info.Loss; l.SnapTruncated > 0 {
		kv("snap length", fmt.Sprintf("%d packets cut, %d bytes not captured%s", l.SnapTruncated, l.SnapBytes, sizeSuffix(l.SnapBytes)))
	}
	if l := info.Loss; l.Holes > 0 {
		kv("not captured", fmt.Sprintf("%d bytes%s in %d runs of TCP segments", l.HoleBytes, sizeSuffix(l.HoleBytes), l.Holes))
	}
	if l := info.Loss; l.Retransmitted > 0 {
		kv("retransmitted", fmt.Sprintf("%d segments", l.Retransmitted))
	}
	if l := info.Loss; l.ReusedPorts > 0 {
		kv("ports reused", fmt.Sprintf("%d connections ended by a new SYN on the same 4-tuple", l.ReusedPorts))
	}
	if l := info.Loss; l.FragmentsReassembled > 0 || l.FragmentsDropped > 0 {
		var parts []string
		if l.FragmentsReassembled > 0 {
			parts = append(parts, fmt.Sprintf("%d reassembled into %d datagrams", l.FragmentsReassembled, l.Reassembled))
		}
		if l.FragmentsDropped > 0 {
			parts = append(parts, fmt.Sprintf("%d dropped (not reassembled)", l.FragmentsDropped))
		}
		kv("IP fragments", strings.Join(parts, ", "))
	}
	if l := info.Loss; l.ConnEvicted > 0 || l.ConnLimit > 0 {
		kv("connections", connTableText(l))
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}

	lat := func(h *stats.Histogram) []string {
		if h.Count() == 0 {
			return []string{"-", "-", "-", "-"}
		}
		return []string{usLatency(h.Percentile(50)), usLatency(h.Percentile(90)), usLatency(h.Percentile(99)), usLatency(h.Max())}
	}
	traffic := func(tr *stats.Traffic) []string {
		return append([]string{
			strconv.FormatInt(tr.Exchanges, 10), strconv.FormatInt(tr.NoResponse, 10),
			strconv.FormatInt(tr.RequestBytes, 10), strconv.FormatInt(tr.ResponseBytes, 10),
			countCell(tr.Errors, lost || tr.ErrorsNotCaptured > 0),
		}, lat(&tr.Latency)...)
	}
	// Errors are a lower bound in every row when any is.
	errNote := footnoteIf(lost || t.ErrorsNotCaptured > 0)
	trafficHeader := []string{"exchanges", "no response", "request bytes", "response bytes", "errors", "p50", "p90", "p99", "max"}

	var rows [][]string
	for _, a := range r.APIs {
		key := strconv.Itoa(int(a.Key))
		if a.Key < 0 {
			key = "-"
		}
		rows = append(rows, append([]string{a.Name, key}, traffic(&a.Traffic)...))
	}
	if err := statsTable(w, "APIs", append([]string{"api", "key"}, trafficHeader...), rows, errNote...); err != nil {
		return err
	}

	rows = rows[:0]
	for _, p := range r.Partitions {
		pj := toPartitionJSON(p, t)
		rows = append(rows, []string{sanitize(p.Topic), strconv.Itoa(int(p.Partition)),
			countCell(p.ProducedRecords, pj.ProducedRecordsNotCaptured), countCell(p.ProducedBytes, pj.ProducedBytesNotCaptured),
			countCell(p.FetchedRecords, pj.FetchedRecordsNotCaptured), countCell(p.FetchedBytes, pj.FetchedBytesNotCaptured)})
	}
	var recNote []string
	if lost || t.RecordsNotCaptured > 0 {
		recNote = footnoteIf(true)
	}
	if lost {
		recNote = append(recNote, framesLostNote(t))
	}
	if n := t.ProducedUnnamed + t.FetchedUnnamed; n > 0 {
		recNote = append(recNote, fmt.Sprintf("Produce and Fetch exchanges lacking record sets of topic-partitions the capture may not name: %d; every row is a lower bound in their direction", n))
	}
	if err := statsTable(w, "Topic-partitions (records and record batch bytes)", []string{"topic", "partition", "produced records", "produced bytes", "fetched records", "fetched bytes"}, rows, recNote...); err != nil {
		return err
	}
	// Error codes not captured may be of any name and topic-partition.
	errTableNote := errNote
	if len(errNote) > 0 {
		errTableNote = []string{"counts of the error codes captured" + errorsNotCapturedNote(t)}
	}

	rows = rows[:0]
	for _, e := range r.Errors {
		rows = append(rows, []string{e.Name, strconv.Itoa(int(e.Code)), strconv.FormatInt(e.Count, 10)})
	}
	if err := statsTable(w, "Errors", []string{"error", "code", "count"}, rows, errTableNote...); err != nil {
		return err
	}
	rows = rows[:0]
	for _, e := range r.PartitionErrors {
		part := strconv.Itoa(int(e.Partition))
		if e.Partition < 0 {
			part = "-"
		}
		rows = append(rows, []string{sanitize(e.Topic), part, e.Name, strconv.FormatInt(e.Count, 10)})
	}
	if err := statsTable(w, "Errors by topic-partition", []string{"topic", "partition", "error", "count"}, rows, errTableNote...); err != nil {
		return err
	}

	rows = rows[:0]
	for _, c := range r.Clients {
		id := "(none)"
		if c.ClientID != nil {
			id = strconv.Quote(*c.ClientID)
		}
		rows = append(rows, append([]string{id}, traffic(&c.Traffic)...))
	}
	if err := statsTable(w, "Client ids", append([]string{"client id"}, trafficHeader...), rows, errNote...); err != nil {
		return err
	}

	rows = rows[:0]
	for _, c := range r.Connections {
		id := "(none)"
		if c.ClientID != nil {
			id = strconv.Quote(*c.ClientID)
		}
		rows = append(rows, append([]string{strconv.Itoa(c.Stream), c.Client, c.Broker, id}, traffic(&c.Traffic)...))
	}
	if err := statsTable(w, "Connections", append([]string{"stream", "client", "broker", "client id"}, trafficHeader...), rows, errNote...); err != nil {
		return err
	}
	if err := writeTransactionsTables(w, r.Transactions); err != nil { // stats_transactions.go
		return err
	}
	if err := writeClientVersions(w, r.ClientVersions); err != nil { // stats_clients.go
		return err
	}
	if err := writeNotesTable(w, r.Notes); err != nil { // stats_intervals.go
		return err
	}
	return writeIntervalTables(w, r.Intervals, lost)
}

// statsTable writes a titled table and its footnotes, the title and
// footnotes alone without rows, or nothing without either.
func statsTable(w io.Writer, title string, header []string, rows [][]string, footnotes ...string) error {
	if len(rows) == 0 && len(footnotes) == 0 {
		return nil
	}
	if _, err := fmt.Fprintf(w, "\n%s\n", title); err != nil {
		return err
	}
	if len(rows) > 0 {
		if err := renderTable(w, header, rows); err != nil {
			return err
		}
	}
	for _, f := range footnotes {
		if _, err := fmt.Fprintf(w, "  %s\n", f); err != nil {
			return err
		}
	}
	return nil
}

func renderTable(w io.Writer, header []string, rows [][]string) error {
	tbl := tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
	)
	tbl.Header(header)
	if err := tbl.Bulk(rows); err != nil {
		return err
	}
	return tbl.Render()
}

// footnoteIf is the footnote of a table whose cells countCell may have
// marked, when any is.
func footnoteIf(marked bool) []string {
	if !marked {
		return nil
	}
	return []string{notCapturedFootnote}
}

// errorsNotCapturedNote says, in the capture table, how many exchanges
// lacked error codes and whether whole frames may be missing.
func errorsNotCapturedNote(t stats.Totals) string {
	var parts []string
	if n := t.ErrorsNotCaptured; n > 0 {
		parts = append(parts, fmt.Sprintf("exchanges with error codes not captured: %d", n))
	}
	if t.FramesNotCaptured > 0 {
		parts = append(parts, "frames may be missing whole")
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// framesLostNote says why every row is a lower bound.
func framesLostNote(t stats.Totals) string {
	return fmt.Sprintf("exchanges after stream bytes not captured between frames, where frames may be missing whole: %d; every count is a lower bound", t.FramesNotCaptured)
}

// usLatency formats a latency in microseconds.
func usLatency(us int64) string { return formatLatency(time.Duration(us) * time.Microsecond) }

// The JSON form of the stats: one object, keys below, latencies in
// microseconds (as latency_us in JSON Lines), sizes in bytes.
type statsJSON struct {
	Capture         captureJSON          `json:"capture"`
	APIs            []apiJSON            `json:"apis"`
	Partitions      []partitionJSON      `json:"partitions"`
	Errors          []errorJSON          `json:"errors"`
	PartitionErrors []partitionErrorJSON `json:"partition_errors"`
	Clients         []clientJSON         `json:"clients"`
	Connections     []connectionJSON     `json:"connections"`
	Notes           []noteJSON           `json:"notes"`
	// null without --interval (stats_intervals.go).
	Interval     *intervalSetJSON `json:"interval"`
	Intervals    []intervalJSON   `json:"intervals"`
	Transactions transactionsJSON `json:"transactions"` // stats_transactions.go
	// ClientVersions is the client inventory (stats_clients.go).
	ClientVersions []clientVersionsJSON `json:"client_versions"`
}

type captureJSON struct {
	Files         []string `json:"files"`
	Filter        *string  `json:"filter"`
	Packets       int64    `json:"packets"`
	Exchanges     int64    `json:"exchanges"`
	First         *string  `json:"first"`
	Last          *string  `json:"last"`
	DurationUs    int64    `json:"duration_us"`
	RequestBytes  int64    `json:"request_bytes"`
	ResponseBytes int64    `json:"response_bytes"`
	Errors        *int64   `json:"errors"` // null: none captured, some not (errors_not_captured)
	// ErrorsNotCaptured and RecordsNotCaptured: some exchanges' error
	// codes, records, were not captured; left out when false.
	ErrorsNotCaptured  bool `json:"errors_not_captured,omitempty"`
	RecordsNotCaptured bool `json:"records_not_captured,omitempty"`
	// What the capture lacks (extensions): packets the snap length cut
	// and the payload bytes cut, runs of TCP segments not captured and
	// their bytes, segments retransmitted; connections a new one on
	// their 4-tuple ended; IP fragments reassembled, the datagrams they
	// made, fragments that could not be reassembled.
	SnapTruncatedPackets int64 `json:"snap_truncated_packets"`
	SnapBytes            int64 `json:"snap_bytes"`
	Holes                int64 `json:"holes"`
	HoleBytes            int64 `json:"hole_bytes"`
	Retransmitted        int64 `json:"retransmitted"`
	ReusedPorts          int64 `json:"reused_ports"`
	FragmentsReassembled int64 `json:"fragments_reassembled"`
	ReassembledDatagrams int64 `json:"reassembled_datagrams"`
	FragmentsDropped     int64 `json:"fragments_dropped"`
	// Connections the full connection table evicted, and packets of
	// connections it refused: only when there were some.
	ConnectionsEvicted     int64 `json:"connections_evicted,omitempty"`
	ConnectionLimitPackets int64 `json:"connection_limit_packets,omitempty"`
}

type trafficJSON struct {
	Exchanges     int64  `json:"exchanges"`
	NoResponse    int64  `json:"no_response"`
	RequestBytes  int64  `json:"request_bytes"`
	ResponseBytes int64  `json:"response_bytes"`
	Errors        *int64 `json:"errors"`
	// ErrorsNotCaptured: Errors counts the error codes captured, some
	// were not (null: none was); left out when false.
	ErrorsNotCaptured bool        `json:"errors_not_captured,omitempty"`
	Latency           latencyJSON `json:"latency_us"`
}

// latencyJSON holds nearest-rank percentiles; Exact says they are exact,
// else within stats.RelativeError.
type latencyJSON struct {
	Count uint64 `json:"count"`
	P50   *int64 `json:"p50"`
	P90   *int64 `json:"p90"`
	P99   *int64 `json:"p99"`
	Max   *int64 `json:"max"`
	Exact bool   `json:"exact"`
}

type apiJSON struct {
	APIKey *int16 `json:"api_key"`
	API    string `json:"api"`
	trafficJSON
}

// partitionJSON: a count is null when the capture held none of it and
// lacked some, a lower bound when its *_not_captured companion is true
// (left out when false).
type partitionJSON struct {
	Topic                      string `json:"topic"`
	Partition                  int32  `json:"partition"`
	ProducedRecords            *int64 `json:"produced_records"`
	ProducedBytes              *int64 `json:"produced_bytes"`
	FetchedRecords             *int64 `json:"fetched_records"`
	FetchedBytes               *int64 `json:"fetched_bytes"`
	ProducedRecordsNotCaptured bool   `json:"produced_records_not_captured,omitempty"`
	ProducedBytesNotCaptured   bool   `json:"produced_bytes_not_captured,omitempty"`
	FetchedRecordsNotCaptured  bool   `json:"fetched_records_not_captured,omitempty"`
	FetchedBytesNotCaptured    bool   `json:"fetched_bytes_not_captured,omitempty"`
}

// toPartitionJSON takes the totals for the record sets no row holds
// (Totals.ProducedUnnamed).
func toPartitionJSON(p *stats.PartitionStats, t stats.Totals) partitionJSON {
	lost := t.FramesNotCaptured > 0
	pu, fu := lost || t.ProducedUnnamed > 0, lost || t.FetchedUnnamed > 0
	prn, pbn := pu || p.ProducedRecordsNotCaptured > 0, pu || p.ProducedBytesNotCaptured > 0
	frn, fbn := fu || p.FetchedRecordsNotCaptured > 0, fu || p.FetchedBytesNotCaptured > 0
	return partitionJSON{p.Topic, p.Partition,
		countJSON(p.ProducedRecords, prn), countJSON(p.ProducedBytes, pbn), countJSON(p.FetchedRecords, frn), countJSON(p.FetchedBytes, fbn),
		prn, pbn, frn, fbn}
}

type errorJSON struct {
	Code  int16  `json:"code"`
	Name  string `json:"name"`
	Count int64  `json:"count"`
}

type partitionErrorJSON struct {
	Topic     string `json:"topic"`
	Partition *int32 `json:"partition"`
	errorJSON
}

type clientJSON struct {
	ClientID *string `json:"client_id"`
	trafficJSON
}

type connectionJSON struct {
	Stream   int     `json:"stream"`
	Client   string  `json:"client"`
	Broker   string  `json:"broker"`
	ClientID *string `json:"client_id"`
	First    string  `json:"first"`
	Last     string  `json:"last"`
	trafficJSON
}

// toTrafficJSON takes whether frames were lost whole
// (stats.Totals.FramesNotCaptured): errors are then a lower bound.
func toTrafficJSON(t *stats.Traffic, lost bool) trafficJSON {
	nc := lost || t.ErrorsNotCaptured > 0
	out := trafficJSON{Exchanges: t.Exchanges, NoResponse: t.NoResponse, RequestBytes: t.RequestBytes, ResponseBytes: t.ResponseBytes,
		Errors: countJSON(t.Errors, nc), ErrorsNotCaptured: nc}
	h := &t.Latency
	out.Latency = latencyJSON{Count: h.Count(), Exact: h.Exact()}
	if h.Count() > 0 {
		p := func(v int64) *int64 { return &v }
		out.Latency.P50, out.Latency.P90, out.Latency.P99, out.Latency.Max = p(h.Percentile(50)), p(h.Percentile(90)), p(h.Percentile(99)), p(h.Max())
	}
	return out
}

// WriteStatsJSON writes the aggregate as one JSON object (and a newline):
// the tables' data with exact numbers.
func WriteStatsJSON(w io.Writer, r *stats.Report, info StatsInfo) error {
	t := r.Totals
	lost := t.FramesNotCaptured > 0 // as in WriteStatsTables
	out := statsJSON{
		Capture: captureJSON{
			Files: info.Files, Packets: info.Packets, Exchanges: t.Exchanges,
			DurationUs: t.Duration().Microseconds(), RequestBytes: t.RequestBytes, ResponseBytes: t.ResponseBytes,
			Errors: countJSON(t.Errors, lost || t.ErrorsNotCaptured > 0), ErrorsNotCaptured: lost || t.ErrorsNotCaptured > 0,
			RecordsNotCaptured:   lost || t.RecordsNotCaptured > 0,
			SnapTruncatedPackets: info.Loss.SnapTruncated, SnapBytes: info.Loss.SnapBytes,
			Holes: info.Loss.Holes, HoleBytes: info.Loss.HoleBytes, Retransmitted: info.Loss.Retransmitted,
			ReusedPorts:          info.Loss.ReusedPorts,
			FragmentsReassembled: info.Loss.FragmentsReassembled, ReassembledDatagrams: info.Loss.Reassembled, FragmentsDropped: info.Loss.FragmentsDropped,
			ConnectionsEvicted: info.Loss.ConnEvicted, ConnectionLimitPackets: info.Loss.ConnLimit,
		},
		APIs: []apiJSON{}, Partitions: []partitionJSON{}, Errors: []errorJSON{}, PartitionErrors: []partitionErrorJSON{},
		Clients: []clientJSON{}, Connections: []connectionJSON{}, Transactions: toTransactionsJSON(r.Transactions),
	}
	if out.Capture.Files == nil {
		out.Capture.Files = []string{}
	}
	if info.Filter != "" {
		out.Capture.Filter = &info.Filter
	}
	if !t.First.IsZero() {
		first, last := t.First.UTC().Format(tsFormat), t.Last.UTC().Format(tsFormat)
		out.Capture.First, out.Capture.Last = &first, &last
	}
	for _, a := range r.APIs {
		aj := apiJSON{API: a.Name, trafficJSON: toTrafficJSON(&a.Traffic, lost)}
		if a.Key >= 0 {
			k := a.Key
			aj.APIKey = &k
		}
		out.APIs = append(out.APIs, aj)
	}
	for _, p := range r.Partitions {
		out.Partitions = append(out.Partitions, toPartitionJSON(p, t))
	}
	for _, e := range r.Errors {
		out.Errors = append(out.Errors, errorJSON{e.Code, e.Name, e.Count})
	}
	for _, e := range r.PartitionErrors {
		pe := partitionErrorJSON{Topic: e.Topic, errorJSON: errorJSON{e.Code, e.Name, e.Count}}
		if e.Partition >= 0 {
			p := e.Partition
			pe.Partition = &p
		}
		out.PartitionErrors = append(out.PartitionErrors, pe)
	}
	for _, c := range r.Clients {
		out.Clients = append(out.Clients, clientJSON{c.ClientID, toTrafficJSON(&c.Traffic, lost)})
	}
	for _, c := range r.Connections {
		out.Connections = append(out.Connections, connectionJSON{
			Stream: c.Stream, Client: c.Client, Broker: c.Broker, ClientID: c.ClientID,
			First: c.First.UTC().Format(tsFormat), Last: c.Last.UTC().Format(tsFormat), trafficJSON: toTrafficJSON(&c.Traffic, lost),
		})
	}
	out.Notes = notesToJSON(r.Notes)
	out.ClientVersions = clientVersionsToJSON(r.ClientVersions)
	out.Interval, out.Intervals = intervalsToJSON(r.Intervals, lost)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// connTableText says what the full connection table did: connections
// evicted to make room, packets of connections refused.
func connTableText(l CaptureLoss) string {
	var parts []string
	if l.ConnEvicted > 0 {
		parts = append(parts, fmt.Sprintf("%d evicted from the full table (those with the least evidence of being real first)", l.ConnEvicted))
	}
	if l.ConnLimit > 0 {
		parts = append(parts, fmt.Sprintf("%d packets of others not dissected (the table full)", l.ConnLimit))
	}
	return strings.Join(parts, ", ")
}
