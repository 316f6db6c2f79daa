package render

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/kdissect/kdissect/dissect"
)

// streamLines writes exs to a StreamTable set up by set and returns its
// lines and the names of its header's columns.
func streamLines(t *testing.T, exs []*dissect.Exchange, set func(*StreamTable)) (lines, header []string) {
	t.Helper()
	var buf bytes.Buffer
	st := NewStreamTable(&buf)
	st.Now = exs[0].Request.Time // the year is not shown
	set(st)
	writeAll(t, st, exs)
	lines = strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	for _, h := range strings.Split(strings.Trim(lines[1], "│"), "│") {
		header = append(header, strings.TrimSpace(h))
	}
	return lines, header
}

// TestStreamTableFitsWidth checks that a StreamTable fitted to 80, 120
// and 200 cells has every line within that width, and drops the columns
// the README says in the order it says: client id and stream first, then
// corr, broker, records and client, then notes, the date of the time.
func TestStreamTableFitsWidth(t *testing.T) {
	exs := readExchanges(t, testCapture{"../../testdata/pcaps/franz_groups.pcap", 9092})
	cases := []struct {
		width     int
		header    []string
		timeOfDay bool
	}{
		{200, []string{"time (UTC)", "client", "broker", "api", "corr", "topics", "records", "errors", "latency", "notes"}, false},
		{120, []string{"time (UTC)", "api", "topics", "errors", "latency", "notes"}, false},
		{80, []string{"time (UTC)", "api", "topics", "errors", "latency"}, true},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.width), func(t *testing.T) {
			lines, header := streamLines(t, exs, func(st *StreamTable) { st.Width = c.width })
			if !slices.Equal(header, c.header) {
				t.Errorf("columns %q, want %q", header, c.header)
			}
			if len(lines) != len(exs)+4 {
				t.Fatalf("%d lines for %d rows", len(lines), len(exs))
			}
			for i, l := range lines {
				if n := utf8.RuneCountInString(l); n > c.width {
					t.Errorf("line %d is %d cells wide:\n%s", i, n, l)
				}
			}
			// The time column shows every row's own time, with or without the date.
			layout := layoutDate
			if c.timeOfDay {
				layout = layoutTime
			}
			for i, ex := range exs {
				want := ex.Request.Time.UTC().Format(layout)
				if !strings.HasPrefix(lines[3+i], "│ "+want+" │") {
					t.Errorf("row %d does not start with its time %s:\n%s", i, want, lines[3+i])
				}
			}
		})
	}
	// Unfitted, every column is there at full width, as before.
	lines, header := streamLines(t, exs, func(*StreamTable) {})
	if len(header) != numColumns || utf8.RuneCountInString(lines[0]) != tableWidth(streamWidths[:]) {
		t.Errorf("unfitted: %d columns, %d wide:\n%s", len(header), utf8.RuneCountInString(lines[0]), lines[1])
	}
}

// Columns chosen by name come in the order given, also in a Table, and
// fitting shortens them but never drops one.
func TestTableColumns(t *testing.T) {
	exs := readExchanges(t, testCapture{"../../testdata/pcaps/kcat_produce_lz4.pcap", 9092})
	cols, err := ParseColumns([]string{"latency,API", "Client-ID"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"latency", "api", "client id"}
	_, header := streamLines(t, exs, func(st *StreamTable) { st.Columns, st.Width = cols, 20 })
	if !slices.Equal(header, want) {
		t.Errorf("stream columns %q, want %q", header, want)
	}
	var buf bytes.Buffer
	tb := NewTable(&buf)
	tb.Columns = cols
	writeAll(t, tb, exs)
	lines := strings.Split(buf.String(), "\n")
	if got := strings.Fields(strings.ReplaceAll(lines[1], "│", " ")); !slices.Equal(got, []string{"latency", "api", "client", "id"}) {
		t.Errorf("table header %q", lines[1])
	}
	if !strings.Contains(lines[3], "│ 254µs     │ ApiVersions v3 │ rdkafka   │") {
		t.Errorf("first row %q", lines[3])
	}
}

// Unknown and repeated column names are errors naming the known ones.
func TestParseColumnsErrors(t *testing.T) {
	for _, list := range [][]string{{"time,nope"}, {"api,API"}, {""}} {
		_, err := ParseColumns(list)
		if err == nil || !strings.Contains(err.Error(), "client id, topics") && !strings.Contains(err.Error(), "twice") {
			t.Errorf("%q: %v", list, err)
		}
	}
	if cols, err := ParseColumns([]string{"time (UTC)", "client_id", "NOTES"}); err != nil || !slices.Equal(cols, []string{"time", "client id", "notes"}) {
		t.Errorf("%q, %v", cols, err)
	}
}

// firstCells returns the first cell of each row of a rendered table.
func firstCells(out string) []string {
	var cells []string
	for _, l := range strings.Split(out, "\n")[3:] {
		if !strings.HasPrefix(l, "│") {
			continue
		}
		cells = append(cells, strings.TrimSpace(strings.Split(l, "│")[1]))
	}
	return cells
}

// tableOut renders exs as a Table set up by set.
func tableOut(t *testing.T, exs []*dissect.Exchange, set func(*Table)) string {
	t.Helper()
	var buf bytes.Buffer
	tb := NewTable(&buf)
	set(tb)
	writeAll(t, tb, exs)
	return buf.String()
}

// writeAll writes exs to w and flushes it.
func writeAll(t *testing.T, w interface {
	Write(*dissect.Exchange) error
	Flush() error
}, exs []*dissect.Exchange) {
	t.Helper()
	for _, ex := range exs {
		if err := w.Write(ex); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}

// The relative, delta and epoch times are seconds with microseconds:
// since the origin (the first row, or SetOrigin's), since the row before,
// since 1970.
func TestTableTimeFormats(t *testing.T) {
	exs := readExchanges(t, testCapture{"../../testdata/pcaps/kcat_produce_lz4.pcap", 9092})
	origin := exs[0].Request.Time.Add(-1500 * time.Millisecond)
	secs := func(d time.Duration) string { return fmt.Sprintf("%.6f", d.Seconds()) }
	for _, c := range []struct {
		name   string
		format TimeFormat
		origin time.Time
		want   func(i int) string
	}{
		{"relative", TimeRelative, time.Time{}, func(i int) string { return secs(exs[i].Request.Time.Sub(exs[0].Request.Time)) }},
		{"relative to the origin", TimeRelative, origin, func(i int) string { return secs(exs[i].Request.Time.Sub(origin)) }},
		{"delta", TimeDelta, origin, func(i int) string {
			if i == 0 {
				return "0.000000"
			}
			return secs(exs[i].Request.Time.Sub(exs[i-1].Request.Time))
		}},
		{"epoch", TimeEpoch, time.Time{}, func(i int) string { return fmt.Sprintf("%.6f", float64(exs[i].Request.Time.UnixMicro())/1e6) }},
	} {
		out := tableOut(t, exs, func(tb *Table) {
			tb.Time = c.format
			if !c.origin.IsZero() {
				tb.SetOrigin(c.origin)
			}
		})
		got := firstCells(out)
		if len(got) != len(exs) {
			t.Fatalf("%s: %d rows for %d exchanges", c.name, len(got), len(exs))
		}
		for i := range exs {
			if got[i] != c.want(i) {
				t.Errorf("%s: row %d: %q, want %q", c.name, i, got[i], c.want(i))
			}
		}
		if h := c.format.header(); !strings.Contains(out, "│ "+h+" ") {
			t.Errorf("%s: no header %q", c.name, h)
		}
	}
}

// at returns an exchange of a request captured at ts.
func at(ts string) *dissect.Exchange {
	tm, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		panic(err)
	}
	return &dissect.Exchange{Request: &dissect.Frame{Time: tm}, APIKey: 18}
}

// A whole table shows the year when its rows span years, a stream when
// its first row is not of the current year; absolute-date always.
func TestTableYear(t *testing.T) {
	newYear := []*dissect.Exchange{at("2025-12-31T23:59:59.5Z"), at("2026-01-01T00:00:00.25Z")}
	sameYear := []*dissect.Exchange{at("2026-01-01T00:00:00.25Z"), at("2026-03-01T10:00:00Z")}
	yearRE := regexp.MustCompile(`^20\d\d-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}$`)
	dateRE := regexp.MustCompile(`^\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}$`)
	check := func(name string, cells []string, re *regexp.Regexp) {
		t.Helper()
		if len(cells) != 2 {
			t.Fatalf("%s: %q", name, cells)
		}
		for _, c := range cells {
			if !re.MatchString(c) {
				t.Errorf("%s: time %q does not match %s", name, c, re)
			}
		}
	}
	check("table across new year", firstCells(tableOut(t, newYear, func(*Table) {})), yearRE)
	check("table in one year", firstCells(tableOut(t, sameYear, func(*Table) {})), dateRE)
	check("table absolute-date", firstCells(tableOut(t, sameYear, func(tb *Table) { tb.Time = TimeAbsoluteYear })), yearRE)
	stream := func(exs []*dissect.Exchange, now string, f TimeFormat) []string {
		var buf bytes.Buffer
		st := NewStreamTable(&buf)
		st.Now, st.Time = at(now).Request.Time, f
		writeAll(t, st, exs)
		return firstCells(buf.String())
	}
	check("stream of an old year", stream(sameYear, "2027-01-01T00:00:00Z", TimeAbsolute), yearRE)
	check("stream of this year", stream(sameYear, "2026-06-01T00:00:00Z", TimeAbsolute), dateRE)
	check("stream absolute-date", stream(sameYear, "2026-06-01T00:00:00Z", TimeAbsoluteYear), yearRE)
	if got := firstCells(tableOut(t, newYear, func(tb *Table) { tb.Time = TimeDelta })); got[1] != "0.750000" {
		t.Errorf("delta across new year: %q", got)
	}
}

func TestParseTimeFormat(t *testing.T) {
	for s, want := range map[string]TimeFormat{"absolute": TimeAbsolute, "u": TimeAbsolute, "ad": TimeAbsoluteYear, "R": TimeRelative, "dd": TimeDelta, "epoch": TimeEpoch} {
		if f, err := ParseTimeFormat(s); err != nil || f != want {
			t.Errorf("%q: %v, %v", s, f, err)
		}
	}
	if _, err := ParseTimeFormat("x"); err == nil || !strings.Contains(err.Error(), "relative (r)") {
		t.Errorf("x: %v", err)
	}
	if s := seconds(-1500); s != "-0.001500" {
		t.Errorf("seconds(-1500) = %q", s)
	}
}
