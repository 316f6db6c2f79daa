package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/output/stats"
)

// intervalHelp is what stats' help says of --interval.
const intervalHelp = `With --interval DUR, stats adds the traffic by interval, as tshark's
-z io,stat,DUR does by frame: for each interval its start and end in seconds
(as tshark writes them), exchanges, exchanges without response, request and
response bytes, records, errors, and latency p50 and p99, in all and per
API; "interval" and "intervals" in JSON. Intervals start at the capture's
first packet (as tshark's do), Kafka traffic or not, and end with the last
holding an exchange; an exchange counts in
the interval of its request's first byte (of its response's when the
request was not captured), so its response may come in a later one.
Intervals without exchanges are shown, as zeros. Memory grows with the
intervals times the APIs in each: a capture spanning more than
--max-intervals intervals (default 1000) gets them widened, neighbours
merged in pairs (the width doubled) until it fits; the table's title and
JSON's "interval" say the width used.`

// notesHelp is what stats' help says of the Notes section.
const notesHelp = `The Notes section counts, by kind, the exchanges carrying notes (as
tshark's -z expert counts its expert infos): truncated, gap, CRC mismatch,
unknown version, response not captured and the others, with the first note
of each kind; "notes" in JSON, an exchange counted once per kind.`

// intervalFlags are stats' --interval and --max-intervals.
type intervalFlags struct {
	width     time.Duration
	max       int
	fs        *pflag.FlagSet // to tell a flag given from its default
	originSet bool
}

func (f *intervalFlags) register(fs *pflag.FlagSet) {
	f.fs = fs
	fs.DurationVar(&f.width, "interval", 0, "add the traffic by interval of this duration (1s, 100ms), from the capture's first packet, as tshark's -z io,stat")
	fs.IntVar(&f.max, "max-intervals", stats.MaxIntervals, "with --interval: the most intervals kept; a longer capture gets wider intervals (merged in pairs)")
}

// set makes col count by interval when --interval was given.
func (f *intervalFlags) set(col *stats.Collector) error {
	switch {
	case f.width < 0 || f.width == 0 && f.fs.Changed("interval"):
		return fmt.Errorf("--interval must be positive")
	case f.width == 0 && f.fs.Changed("max-intervals"):
		return fmt.Errorf("--max-intervals needs --interval")
	}
	if f.max < 1 {
		return fmt.Errorf("--max-intervals must be at least 1")
	}
	if f.width > 0 {
		col.SetIntervals(f.width, f.max)
	}
	return nil
}

// origin gives col the capture's first packet time, once; call it on the
// goroutine reading the capture, before handing col the first exchange
// (the pipeline then orders the two).
func (f *intervalFlags) origin(col *stats.Collector, d *dissect.Dissector) {
	if f.width > 0 && !f.originSet {
		f.originSet = true
		col.SetOrigin(d.Stats().First)
	}
}
