package render

import (
	"fmt"
	"io"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/kdissect/kdissect/output/stats"
)

// This file holds the stats sections of notes by kind (as tshark's -z
// expert) and of traffic by interval (as tshark's -z io,stat).

// noteExampleRunes bounds the example note in the Notes table; the JSON
// has it whole.
const noteExampleRunes = 100

// writeNotesTable writes how many exchanges carry each kind of note, with
// the first note of the kind; nothing when no exchange has a note.
func writeNotesTable(w io.Writer, notes []stats.NoteCount) error {
	var rows [][]string
	for _, n := range notes {
		ex := sanitize(n.Example)
		if utf8.RuneCountInString(ex) > noteExampleRunes {
			ex = string([]rune(ex)[:noteExampleRunes-1]) + "…"
		}
		rows = append(rows, []string{n.Kind, strconv.FormatInt(n.Exchanges, 10), strconv.FormatInt(n.Notes, 10), ex})
	}
	return statsTable(w, "Notes (exchanges carrying each kind of note)", []string{"kind", "exchanges", "notes", "first seen"}, rows)
}

// intervalLabel is an interval as tshark's io,stat writes it: its start
// and end in seconds since the origin, "0.000 <> 1.000", with the
// decimals the width needs.
func intervalLabel(r *stats.IntervalReport, i int64) string {
	prec := 3
	switch w := r.Width; {
	case w%time.Second == 0:
		prec = 0
	case w < time.Millisecond:
		prec = 6
	}
	sec := func(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', prec, 64) }
	start := time.Duration(i) * r.Width
	return sec(start) + " <> " + sec(start+r.Width)
}

// intervalTitle says what the intervals are: their width (and the width
// asked for, when merging widened it), and where they start.
func intervalTitle(r *stats.IntervalReport) string {
	width := r.Width.String()
	if r.Width != r.Asked {
		width = fmt.Sprintf("%s (%s asked; widened to keep at most %d intervals)", r.Width, r.Asked, r.Max)
	}
	return fmt.Sprintf("Intervals of %s from %s (the first packet); exchanges counted at their request's time", width, r.Origin.UTC().Format(tsFormat))
}

// writeIntervalTables writes the traffic of each interval, empty ones as
// zeros, then each interval's APIs.
// lost: frames were lost whole (stats.Totals.FramesNotCaptured).
func writeIntervalTables(w io.Writer, r *stats.IntervalReport, lost bool) error {
	if r == nil || len(r.Rows) == 0 {
		return nil
	}
	lat := func(h *stats.Histogram) []string {
		if h.Count() == 0 {
			return []string{"-", "-"}
		}
		return []string{usLatency(h.Percentile(50)), usLatency(h.Percentile(99))}
	}
	traffic := func(t *stats.IntervalTraffic) []string {
		return append([]string{
			strconv.FormatInt(t.Exchanges, 10), strconv.FormatInt(t.NoResponse, 10),
			strconv.FormatInt(t.RequestBytes, 10), strconv.FormatInt(t.ResponseBytes, 10),
			countCell(t.Records, lost || t.RecordsNotCaptured > 0), countCell(t.Errors, lost || t.ErrorsNotCaptured > 0),
		}, lat(&t.Latency)...)
	}
	header := []string{"exchanges", "no response", "request bytes", "response bytes", "records", "errors", "p50", "p99"}
	var rows, apiRows [][]string
	marked := lost
	for i := range r.Rows {
		row := &r.Rows[i]
		marked = marked || row.RecordsNotCaptured > 0 || row.ErrorsNotCaptured > 0
		label := intervalLabel(r, row.Index)
		rows = append(rows, append([]string{label}, traffic(&row.IntervalTraffic)...))
		for j := range row.APIs {
			a := &row.APIs[j]
			apiRows = append(apiRows, append([]string{label, a.Name}, traffic(&a.IntervalTraffic)...))
		}
	}
	if err := statsTable(w, intervalTitle(r), append([]string{"interval (s)"}, header...), rows, footnoteIf(marked)...); err != nil {
		return err
	}
	return statsTable(w, "Intervals by API", append([]string{"interval (s)", "api"}, header...), apiRows, footnoteIf(marked)...)
}

// notesJSON is a kind of note: the exchanges carrying it, the notes of it
// and the first seen, whole.
type noteJSON struct {
	Kind      string `json:"kind"`
	Exchanges int64  `json:"exchanges"`
	Notes     int64  `json:"notes"`
	Example   string `json:"example"`
}

// intervalSetJSON says what the intervals are: where they start (the
// capture's first packet; null without exchanges), the width asked for and
// the width used (wider when merged to keep at most max_intervals).
type intervalSetJSON struct {
	Origin       *string `json:"origin"`
	AskedUs      int64   `json:"asked_us"`
	WidthUs      int64   `json:"width_us"`
	MaxIntervals int     `json:"max_intervals"`
}

type intervalTrafficJSON struct {
	trafficJSON
	Records            *int64 `json:"records"` // null and lower bounds as in partitionJSON
	RecordsNotCaptured bool   `json:"records_not_captured,omitempty"`
}

func toIntervalTrafficJSON(t *stats.IntervalTraffic, lost bool) intervalTrafficJSON {
	nc := lost || t.RecordsNotCaptured > 0
	return intervalTrafficJSON{toTrafficJSON(&t.Traffic, lost), countJSON(t.Records, nc), nc}
}

// intervalJSON is one interval: its start (time, and microseconds since
// the origin), its traffic, and its APIs with exchanges.
type intervalJSON struct {
	Start    string `json:"start"`
	OffsetUs int64  `json:"offset_us"`
	intervalTrafficJSON
	APIs []intervalAPIJSON `json:"apis"`
}

type intervalAPIJSON struct {
	APIKey *int16 `json:"api_key"`
	API    string `json:"api"`
	intervalTrafficJSON
}

func notesToJSON(notes []stats.NoteCount) []noteJSON {
	out := make([]noteJSON, 0, len(notes))
	for _, n := range notes {
		out = append(out, noteJSON{n.Kind, n.Exchanges, n.Notes, n.Example})
	}
	return out
}

// intervalsToJSON returns the interval set and its rows, nil and nil
// without intervals asked for.
func intervalsToJSON(r *stats.IntervalReport, lost bool) (*intervalSetJSON, []intervalJSON) {
	if r == nil {
		return nil, nil
	}
	set := &intervalSetJSON{AskedUs: r.Asked.Microseconds(), WidthUs: r.Width.Microseconds(), MaxIntervals: r.Max}
	if !r.Origin.IsZero() {
		origin := r.Origin.UTC().Format(tsFormat)
		set.Origin = &origin
	}
	rows := make([]intervalJSON, 0, len(r.Rows))
	for i := range r.Rows {
		row := &r.Rows[i]
		ij := intervalJSON{
			Start: row.Start.UTC().Format(tsFormat), OffsetUs: (time.Duration(row.Index) * r.Width).Microseconds(),
			intervalTrafficJSON: toIntervalTrafficJSON(&row.IntervalTraffic, lost), APIs: []intervalAPIJSON{},
		}
		for j := range row.APIs {
			a := &row.APIs[j]
			aj := intervalAPIJSON{API: a.Name, intervalTrafficJSON: toIntervalTrafficJSON(&a.IntervalTraffic, lost)}
			if a.Key >= 0 {
				k := a.Key
				aj.APIKey = &k
			}
			ij.APIs = append(ij.APIs, aj)
		}
		rows = append(rows, ij)
	}
	return set, rows
}
