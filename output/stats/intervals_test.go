package stats

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// intervalExchange is a Produce (or Fetch when fetch) whose request is at
// t, answered after lat (no response when lat < 0), with records and
// errors.
func intervalExchange(t time.Time, lat time.Duration, fetch bool, records, errors int) *dissect.Exchange {
	ex := &dissect.Exchange{APIKey: codec.ApiKeyProduce, Request: &dissect.Frame{Size: 100, Time: t}, Decoded: &dissect.Decoded{Records: records}}
	if fetch {
		ex.APIKey = codec.ApiKeyFetch
	}
	if lat >= 0 {
		ex.Response = &dissect.Frame{Size: 40, Time: t.Add(lat)}
	}
	for range errors {
		ex.Decoded.Errors = append(ex.Decoded.Errors, codec.ErrorRef{Code: 6, Partition: -1})
	}
	return ex
}

// TestIntervals checks which interval an exchange counts in (its
// request's time, from the origin), that empty intervals are rows of
// zeros, and what each row counts.
func TestIntervals(t *testing.T) {
	origin := time.Date(2026, 1, 2, 3, 4, 5, 500_000_000, time.UTC)
	c := New()
	c.SetIntervals(time.Second, 0)
	c.SetOrigin(origin)
	// Interval 0: two Produces; interval 1 nothing; interval 2: a Fetch
	// whose response is in interval 3, and a Produce without response
	// exactly at its start.
	c.Add(intervalExchange(origin.Add(100*time.Millisecond), 5*time.Millisecond, false, 10, 0))
	c.Add(intervalExchange(origin.Add(999*time.Millisecond), 7*time.Millisecond, false, 5, 1))
	c.Add(intervalExchange(origin.Add(2900*time.Millisecond), 500*time.Millisecond, true, 3, 2))
	c.Add(intervalExchange(origin.Add(2*time.Second), -1, false, 1, 0))
	r := c.Report().Intervals
	if r == nil || r.Width != time.Second || r.Asked != time.Second || !r.Origin.Equal(origin) || r.Max != MaxIntervals {
		t.Fatalf("report %+v", r)
	}
	if len(r.Rows) != 3 {
		t.Fatalf("%d rows, want 3", len(r.Rows))
	}
	type want struct {
		exchanges, reqBytes, respBytes, records, errors, noResp int64
		p50, p99                                                int64
		apis                                                    []string
	}
	for i, w := range []want{
		{2, 200, 80, 15, 1, 0, 5000, 7000, []string{"Produce"}},
		{},
		{2, 200, 40, 4, 2, 1, 500000, 500000, []string{"Produce", "Fetch"}},
	} {
		row := r.Rows[i]
		if row.Index != int64(i) || !row.Start.Equal(origin.Add(time.Duration(i)*time.Second)) {
			t.Errorf("row %d: index %d start %v", i, row.Index, row.Start)
		}
		got := want{row.Exchanges, row.RequestBytes, row.ResponseBytes, row.Records, row.Errors, row.NoResponse, row.Latency.Percentile(50), row.Latency.Percentile(99), nil}
		for _, a := range row.APIs {
			got.apis = append(got.apis, a.Name)
		}
		if !slices.Equal(got.apis, w.apis) || got.exchanges != w.exchanges || got.reqBytes != w.reqBytes || got.respBytes != w.respBytes ||
			got.records != w.records || got.errors != w.errors || got.noResp != w.noResp || got.p50 != w.p50 || got.p99 != w.p99 {
			t.Errorf("row %d: %+v, want %+v", i, got, w)
		}
	}
}

// TestIntervalsMerged: a span beyond the most intervals doubles the width
// until it fits, keeping the intervals aligned on the origin, and loses
// nothing: each merged row is the sum of the rows it replaces, latencies
// included.
func TestIntervalsMerged(t *testing.T) {
	origin := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(5, 6))
	var exs []*dissect.Exchange
	for range 5000 {
		at := origin.Add(time.Duration(rng.Int64N(int64(100 * time.Second))))
		exs = append(exs, intervalExchange(at, time.Duration(rng.Int64N(int64(time.Second))), rng.IntN(2) == 0, rng.IntN(10), rng.IntN(2)))
	}
	// One before the origin: out-of-order timestamps.
	exs = append(exs, intervalExchange(origin.Add(-1500*time.Millisecond), time.Millisecond, false, 1, 0))

	fine, coarse := New(), New()
	fine.SetIntervals(250*time.Millisecond, 1000)
	coarse.SetIntervals(250*time.Millisecond, 30) // 406 intervals of 250ms; 26 of 4s
	for _, c := range []*Collector{fine, coarse} {
		c.SetOrigin(origin)
		for _, ex := range exs {
			c.Add(ex)
		}
	}
	f, g := fine.Report().Intervals, coarse.Report().Intervals
	if f.Width != 250*time.Millisecond || g.Width != 4*time.Second {
		t.Fatalf("widths %v and %v, want 250ms and 4s", f.Width, g.Width)
	}
	if len(g.Rows) > 30 || f.Rows[0].Index != -6 || g.Rows[0].Index != -1 {
		t.Fatalf("%d coarse rows, first indexes %d and %d", len(g.Rows), f.Rows[0].Index, g.Rows[0].Index)
	}
	var total int64
	for _, row := range g.Rows {
		if !row.Start.Equal(origin.Add(time.Duration(row.Index) * g.Width)) {
			t.Errorf("coarse row %d starts at %v", row.Index, row.Start)
		}
		var sum IntervalTraffic
		for _, fr := range f.Rows {
			if floorDiv(fr.Index, 16) == row.Index {
				sum.merge(&fr.IntervalTraffic)
			}
		}
		total += row.Exchanges
		if sum.Exchanges != row.Exchanges || sum.RequestBytes != row.RequestBytes || sum.ResponseBytes != row.ResponseBytes || sum.Records != row.Records ||
			sum.Errors != row.Errors || sum.Latency.Count() != row.Latency.Count() || sum.Latency.Percentile(50) != row.Latency.Percentile(50) || sum.Latency.Percentile(99) != row.Latency.Percentile(99) {
			t.Errorf("coarse row %d: %+v, fine rows sum to %+v", row.Index, row.IntervalTraffic, sum)
		}
	}
	if total != int64(len(exs)) {
		t.Errorf("coarse rows count %d exchanges, want %d", total, len(exs))
	}
}

// TestIntervalsOriginDefault: without SetOrigin the intervals start at the
// first exchange's time.
func TestIntervalsOriginDefault(t *testing.T) {
	at := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	c := New()
	c.SetIntervals(time.Minute, 0)
	c.Add(intervalExchange(at, time.Millisecond, false, 0, 0))
	c.Add(intervalExchange(at.Add(90*time.Second), time.Millisecond, false, 0, 0))
	r := c.Report().Intervals
	if !r.Origin.Equal(at) || len(r.Rows) != 2 || r.Rows[1].Exchanges != 1 {
		t.Errorf("origin %v, %d rows", r.Origin, len(r.Rows))
	}
}

// TestNoteCounts counts exchanges per kind of note, once per exchange,
// by the kind the note was made with, whatever its text says: a note
// reworded keeps its kind.
func TestNoteCounts(t *testing.T) {
	c := New()
	for _, notes := range [][]dissect.Note{
		{dissect.NewNote(dissect.NoteNoResponse, "no response captured")},
		{dissect.NewNote(dissect.NoteCRCMismatch, "records of t[0]: batch at byte 0: CRC-32C mismatch: 0x1 on the wire, 0x2 computed"),
			dissect.NewNote(dissect.NoteCRCMismatch, "records of t[1]: batch at byte 0: CRC-32C mismatch: 0x3 on the wire, 0x4 computed")},
		{dissect.NewNote(dissect.NoteSequence, "a note reworded: no response captured")},
		nil,
	} {
		c.Add(&dissect.Exchange{Notes: notes})
	}
	got := c.Report().Notes
	want := []NoteCount{
		{string(dissect.NoteCRCMismatch), 1, 2, "records of t[0]: batch at byte 0: CRC-32C mismatch: 0x1 on the wire, 0x2 computed"},
		{string(dissect.NoteNoResponse), 1, 1, "no response captured"},
		{string(dissect.NoteSequence), 1, 1, "a note reworded: no response captured"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("notes %+v, want %+v", got, want)
	}
}

// TestIntervalsBoundedOverDays: three days of traffic at 1 s intervals
// keep at most MaxIntervals intervals (the width doubled to 512 s, the
// smallest power-of-two multiple that fits), counting every exchange.
func TestIntervalsBoundedOverDays(t *testing.T) {
	origin := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	c := New()
	c.SetIntervals(time.Second, 0)
	c.SetOrigin(origin)
	const span = 3 * 24 * time.Hour
	n := 0
	for at := time.Duration(0); at < span; at += 7 * time.Second {
		c.Add(intervalExchange(origin.Add(at), time.Millisecond, n%2 == 0, 1, 0))
		n++
	}
	if got := len(c.intervals.cells); got > MaxIntervals {
		t.Errorf("%d intervals held, more than %d", got, MaxIntervals)
	}
	r := c.Report().Intervals
	var total int64
	for _, row := range r.Rows {
		total += row.Exchanges
	}
	// 3 days are 506.25 intervals of 512 s.
	if r.Width != 512*time.Second || len(r.Rows) != 507 || total != int64(n) {
		t.Errorf("width %v, %d rows, %d exchanges; want 512s, 507 rows, %d exchanges", r.Width, len(r.Rows), total, n)
	}
}

// TestIntervalsClockOff: a packet stamped decades or centuries off the
// capture (a clock not set; a pcapng 64-bit timestamp reaches 2554: beyond
// the 292 years a time.Duration holds) widens the intervals until the
// span fits, and nothing is lost. (Without the unsigned span the report
// loops over 2^63 intervals.)
func TestIntervalsClockOff(t *testing.T) {
	origin := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	for _, off := range []time.Time{time.Unix(0, 0), origin.AddDate(-500, 0, 0), origin.AddDate(528, 0, 0), {}} {
		c := New()
		c.SetIntervals(time.Nanosecond, 10)
		c.SetOrigin(origin)
		c.Add(intervalExchange(origin, time.Millisecond, false, 1, 0))
		ex := intervalExchange(off, time.Millisecond, false, 2, 1)
		if off.IsZero() {
			ex.Request, ex.Response = nil, nil // no time at all: counted at the origin
		}
		c.Add(ex)
		c.Add(intervalExchange(origin.Add(time.Second), time.Millisecond, true, 4, 0))
		r := c.Report().Intervals
		var exchanges, records int64
		for _, row := range r.Rows {
			exchanges += row.Exchanges
			records += row.Records
		}
		if len(r.Rows) > 10 || exchanges != 3 || records != 7 {
			t.Errorf("packet at %v: %d rows of %v, %d exchanges, %d records; want at most 10 rows, 3, 7", off, len(r.Rows), r.Width, exchanges, records)
		}
	}
}
