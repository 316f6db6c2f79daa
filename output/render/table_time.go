package render

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// TimeFormat says how the summary table's time column shows an
// exchange's time (its request's first packet, else its response's).
type TimeFormat int

const (
	// TimeAbsolute is the UTC date and time, "11-29 22:28:15.056948",
	// with the year in front ("2026-11-29 ...") when the table spans
	// years (see Table and StreamTable for how each decides).
	TimeAbsolute TimeFormat = iota
	// TimeAbsoluteYear is TimeAbsolute always with the year.
	TimeAbsoluteYear
	// TimeRelative is seconds since the origin (Table.SetOrigin; else the
	// first row), "12.000254".
	TimeRelative
	// TimeDelta is seconds since the previous row, "0.000254"; 0 for the first.
	TimeDelta
	// TimeEpoch is seconds since 1970-01-01 UTC, "1764455295.056948".
	TimeEpoch
)

// timeFormatNames are the names ParseTimeFormat takes: the words, and
// tshark's -t letters for the same. Times are UTC whatever the letter
// (tshark's a is local time, u UTC): the table says so in its header.
var timeFormatNames = []struct {
	names []string
	f     TimeFormat
}{
	{[]string{"absolute", "a", "u"}, TimeAbsolute},
	{[]string{"absolute-date", "ad", "ud"}, TimeAbsoluteYear},
	{[]string{"relative", "r"}, TimeRelative},
	{[]string{"delta", "d", "dd"}, TimeDelta},
	{[]string{"epoch", "e"}, TimeEpoch},
}

// ParseTimeFormat returns the TimeFormat named s: absolute (a, u),
// absolute-date (ad, ud), relative (r), delta (d, dd) or epoch (e).
func ParseTimeFormat(s string) (TimeFormat, error) {
	var known []string
	for _, n := range timeFormatNames {
		for _, name := range n.names {
			if strings.EqualFold(s, name) {
				return n.f, nil
			}
		}
		known = append(known, fmt.Sprintf("%s (%s)", n.names[0], strings.Join(n.names[1:], ", ")))
	}
	return 0, fmt.Errorf("unknown time format %q: want %s", s, strings.Join(known, ", "))
}

// header is the time column's header: the column's name, "time", and
// what its values are.
func (f TimeFormat) header() string {
	switch f {
	case TimeRelative:
		return "time (rel)"
	case TimeDelta:
		return "time (delta)"
	case TimeEpoch:
		return "time (epoch)"
	}
	return "time (UTC)"
}

// streamWidth is the time column's width in a StreamTable: every value
// of a capture of up to 11 days (relative), 27 hours between rows
// (delta), until the year 2286 (epoch).
func (f TimeFormat) streamWidth(year bool) int {
	switch f {
	case TimeRelative:
		return 13
	case TimeDelta:
		return 12
	case TimeEpoch:
		return 17
	}
	if year {
		return len(layoutYear)
	}
	return len(layoutDate)
}

// The layouts of the absolute formats.
const (
	layoutYear = "2006-01-02 15:04:05.000000"
	layoutDate = "01-02 15:04:05.000000"
	layoutTime = "15:04:05.000000"
)

// timeCells makes the time cells of the rows in their order: relative
// and delta times depend on the rows before.
type timeCells struct {
	format       TimeFormat
	layout       string // of the absolute formats
	origin, prev time.Time
	hasOrigin    bool
	hasPrev      bool
}

// setOrigin makes relative times count from t, unless the origin is set.
func (c *timeCells) setOrigin(t time.Time) {
	if !c.hasOrigin && !t.IsZero() {
		c.origin, c.hasOrigin = t, true
	}
}

// cell returns the cell of a row of time ts; "-" when it has no time.
func (c *timeCells) cell(ts time.Time) string {
	if ts.IsZero() {
		return "-"
	}
	c.setOrigin(ts)
	prev, hasPrev := c.prev, c.hasPrev
	c.prev, c.hasPrev = ts, true
	switch c.format {
	case TimeRelative:
		return seconds(ts.Sub(c.origin).Microseconds())
	case TimeDelta:
		if !hasPrev {
			return seconds(0)
		}
		return seconds(ts.Sub(prev).Microseconds())
	case TimeEpoch:
		return seconds(ts.UnixMicro())
	}
	return ts.UTC().Format(c.layout)
}

// seconds formats us microseconds as seconds, "-1.000250": exact,
// where a float64 would round.
func seconds(us int64) string {
	sign := ""
	if us < 0 {
		sign, us = "-", -us
	}
	return fmt.Sprintf("%s%d.%06d", sign, us/1e6, us%1e6)
}

// Row cells carry the exchange's time, from Row (run in parallel) to
// AddRow (in order), as Unix nanoseconds; "" for none.
func rawTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return strconv.FormatInt(t.UnixNano(), 10)
}

func parseRawTime(s string) time.Time {
	ns, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.Unix(0, ns)
}
