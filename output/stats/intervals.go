package stats

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/kdissect/kdissect/dissect"
)

// MaxIntervals is the most intervals SetIntervals keeps by default: past
// it, the interval doubles (neighbours merged in pairs) until the span
// fits, so a capture of days at 1 s intervals stays small.
const MaxIntervals = 1000

// intervals aggregates exchanges by the interval of their time, as
// tshark's -z io,stat does by frame: intervals of width from the origin
// (the capture's first packet), an exchange counted in the one holding its
// request's first byte (its response's when the request was not captured;
// the ClientHello's for a TLS connection not decrypted). Memory grows with
// the intervals that hold exchanges (at most max, empty ones are not
// stored) times the APIs in each, each a Histogram.
type intervals struct {
	asked, width time.Duration
	max          int
	origin       time.Time
	originSet    bool
	lo, hi       int64 // the indexes spanned, 0 included
	cells        map[int64]*intervalCell
}

type intervalCell struct {
	total IntervalTraffic
	apis  map[apiKey]*IntervalTraffic
}

// IntervalTraffic is what an interval counts, in all or for one API: as
// Traffic, with the records of the JSON Lines "records" key and the
// exchanges whose records the capture lacked in part (when not 0,
// Records is a lower bound).
type IntervalTraffic struct {
	Traffic
	Records            int64
	RecordsNotCaptured int64
}

func (t *IntervalTraffic) merge(o *IntervalTraffic) {
	t.Exchanges += o.Exchanges
	t.RequestBytes += o.RequestBytes
	t.ResponseBytes += o.ResponseBytes
	t.NoResponse += o.NoResponse
	t.Errors += o.Errors
	t.ErrorsNotCaptured += o.ErrorsNotCaptured
	t.Records += o.Records
	t.RecordsNotCaptured += o.RecordsNotCaptured
	t.Latency.Merge(&o.Latency)
}

// SetIntervals makes the Collector count exchanges by interval of width
// too, keeping at most maxIntervals (MaxIntervals when not positive): a
// capture spanning more has its interval doubled until it fits. Call it
// before Add; width must be positive.
func (c *Collector) SetIntervals(width time.Duration, maxIntervals int) {
	if maxIntervals <= 0 {
		maxIntervals = MaxIntervals
	}
	c.intervals = &intervals{asked: width, width: width, max: maxIntervals, cells: map[int64]*intervalCell{}}
}

// SetOrigin sets the time the intervals start from: the capture's first
// packet (dissect.Stats.First), as tshark aligns them. Without it they
// start at the time of the first exchange added.
func (c *Collector) SetOrigin(t time.Time) {
	if iv := c.intervals; iv != nil && !iv.originSet && !t.IsZero() {
		iv.origin, iv.originSet = t, true
	}
}

// floorDiv is a/b rounded toward minus infinity, b > 0.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

func (iv *intervals) add(ex *dissect.Exchange, key apiKey, dec *dissect.Decoded) {
	t := ex.Time()
	if !iv.originSet && !t.IsZero() {
		iv.origin, iv.originSet = t, true
	}
	var idx int64
	if !t.IsZero() { // an exchange without a time (none is made) counts at the origin
		idx = floorDiv(int64(t.Sub(iv.origin)), int64(iv.width))
	}
	iv.lo, iv.hi = min(iv.lo, idx), max(iv.hi, idx)
	// The span as unsigned: a timestamp decades off the origin (a clock
	// not set) makes indexes near the int64 limits.
	for uint64(iv.hi)-uint64(iv.lo) >= uint64(iv.max) && iv.width <= math.MaxInt64/2 {
		iv.double()
		idx = floorDiv(idx, 2)
	}
	cell := iv.cells[idx]
	if cell == nil {
		cell = &intervalCell{apis: map[apiKey]*IntervalTraffic{}}
		iv.cells[idx] = cell
	}
	a := cell.apis[key]
	if a == nil {
		a = &IntervalTraffic{}
		cell.apis[key] = a
	}
	for _, tr := range []*IntervalTraffic{&cell.total, a} {
		tr.add(ex, dec)
		tr.Records += int64(dec.Records)
		tr.RecordsNotCaptured += b2i(dec.RecordsNotCaptured)
	}
}

// double merges the intervals in pairs: the interval of index i becomes
// that of i/2 (rounded down) at twice the width, so the intervals stay
// aligned on the origin.
func (iv *intervals) double() {
	iv.width *= 2
	iv.lo, iv.hi = floorDiv(iv.lo, 2), floorDiv(iv.hi, 2)
	cells := make(map[int64]*intervalCell, len(iv.cells)/2+1)
	for i, c := range iv.cells {
		j := floorDiv(i, 2)
		into := cells[j]
		if into == nil {
			cells[j] = c
			continue
		}
		into.total.merge(&c.total)
		for k, a := range c.apis {
			if b := into.apis[k]; b != nil {
				b.merge(a)
			} else {
				into.apis[k] = a
			}
		}
	}
	iv.cells = cells
}

// IntervalReport is the aggregate by interval.
type IntervalReport struct {
	Origin time.Time     // the start of interval 0: the capture's first packet
	Asked  time.Duration // the width asked for
	Width  time.Duration // the width used: Asked, doubled as often as Max needed
	Max    int           // the most intervals kept
	// Rows are the intervals from the first (interval 0, or an earlier one
	// holding an exchange whose time is before the origin) to the last
	// holding an exchange, those without one included (all zeros).
	Rows []IntervalRow
}

// IntervalRow is one interval: its totals and its APIs.
type IntervalRow struct {
	Index int64     // intervals since the origin
	Start time.Time // Origin + Index·Width
	IntervalTraffic
	APIs []IntervalAPI // those with exchanges in the interval, in the order of Report.APIs
}

// IntervalAPI is one API's part of an interval.
type IntervalAPI struct {
	Key  int16  // -1 when unknown or for SASL tokens
	Name string // as APIStats.Name
	IntervalTraffic
}

func (iv *intervals) report() *IntervalReport {
	r := &IntervalReport{Origin: iv.origin, Asked: iv.asked, Width: iv.width, Max: iv.max}
	if len(iv.cells) == 0 {
		return r
	}
	for i := iv.lo; i <= iv.hi; i++ {
		row := IntervalRow{Index: i, Start: iv.origin.Add(time.Duration(i) * iv.width)}
		if c := iv.cells[i]; c != nil {
			row.IntervalTraffic = c.total
			for k, a := range c.apis {
				row.APIs = append(row.APIs, IntervalAPI{Key: k.key, Name: apiName(k), IntervalTraffic: *a})
			}
			slices.SortFunc(row.APIs, func(a, b IntervalAPI) int {
				return cmp.Or(cmp.Compare(unknownLast(a.Key), unknownLast(b.Key)), cmp.Compare(a.Name, b.Name))
			})
		}
		r.Rows = append(r.Rows, row)
	}
	return r
}
