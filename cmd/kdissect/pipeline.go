package main

import (
	"os"
	"runtime/debug"

	"github.com/kdissect/kdissect/output"
	"github.com/kdissect/kdissect/output/render"
)

// read, stats, report and live feed their exchanges through
// output/pipeline: decoded and rendered on every core, the filters, -Y
// and -c applied there, and handed to taps (output.Tap) in capture order.
// This file makes the views taps; metrics.go, sink.go and write.go make
// --metrics, --sink and -w taps.

// viewTap returns the view of --format as a tap; nil for -q's, which
// shows nothing.
func viewTap(w exchangeWriter) output.Tap {
	switch w := w.(type) {
	case quietOutput:
		return nil
	case *parquetOutput:
		return parquetRenderer{w} // parquet.go
	}
	return render.TapOf(w)
}

// tuneGC lets the heap grow to three times the live data between
// collections instead of two (GOGC=200), unless GOGC says otherwise:
// decoding allocates about five bytes of short-lived buffers per byte of
// capture while the live heap stays small (tens of MB), so collecting
// half as often saves CPU for little memory. A soft limit of
// gcMemoryLimit (unless GOMEMLIMIT says otherwise) makes the collector run
// sooner when the live heap does grow, with exchanges of tens of MB in
// flight (Fetch responses of 50 000 records, decoded and rendered), so
// that the peak RSS stays near the limit instead of three times the live
// heap. Every output bounds its live heap: the pipeline bounds the
// exchanges in flight, JSON lines are written in parts, and the detail
// and hexdump views trace records one at a time.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(gcMemoryLimit)
	}
}

// gcMemoryLimit is the soft memory limit of read and stats, in bytes.
const gcMemoryLimit = 100 << 20
