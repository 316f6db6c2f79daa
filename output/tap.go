// Package output names what every consumer of exchanges is: a Tap. The
// packages below it are the taps (views, statistics, exports, the sink)
// and the filters that choose what reaches them; output/pipeline feeds a
// capture's exchanges to taps.
package output

import (
	"time"

	"github.com/kdissect/kdissect/dissect"
)

// Tap consumes decoded exchanges, in capture order, from one goroutine.
// Add must keep nothing of the exchange after it returns: its frames go
// back to a pool. An Add that fails is not called again (the pipeline
// stops the input); Close ends the output (flushes, completes a file)
// and says whether it could be written.
type Tap interface {
	Add(*dissect.Exchange) error
	Close() error
}

// Renderer is a Tap whose costly part, rendering one exchange (a JSON
// line, a table row, a Parquet row), may run on many goroutines at once.
// The pipeline calls Render on a worker, concurrently with other
// exchanges' Render and with AddRendered of earlier ones, then
// AddRendered in capture order in place of Add, with what Render
// returned. Render returns the bytes its result holds, which the
// pipeline counts against its memory bound until AddRendered returned.
type Renderer interface {
	Tap
	Render(ex *dissect.Exchange) (rendered any, size int64)
	AddRendered(ex *dissect.Exchange, rendered any) error
}

// Syncer is a Tap that buffers: Sync writes out what it holds without
// ending the output, when its reader may otherwise wait (the input is a
// pipe that paused, or a live capture).
type Syncer interface {
	Sync() error
}

// Decider is a Tap that hears of every exchange decoded, in capture
// order, whether it passed the filters or not (-w writes the packets of
// those that passed, and the Metadata of the others). Decide runs before
// Add of the exchange, and a Decider makes the display filter run in
// capture order rather than on every core.
type Decider interface {
	Decide(ex *dissect.Exchange, passed bool)
}

// OriginSetter is a Tap whose times count from the capture's first
// exchange, shown or not (the summary table's relative times): the
// pipeline hands it the time of the first exchange it decodes.
type OriginSetter interface {
	SetOrigin(time.Time)
}

// Func makes an aggregate's Add a Tap (stats.Collector.Add,
// report.Builder.Add, metrics.Collector.Add): Add never fails, Close
// does nothing.
type Func func(*dissect.Exchange)

// Add calls f.
func (f Func) Add(ex *dissect.Exchange) error {
	f(ex)
	return nil
}

// Close does nothing: an aggregate is read after the run.
func (Func) Close() error { return nil }

// Writer is an output that writes each exchange as it comes and flushes
// at the end: the views of output/render.
type Writer interface {
	Write(*dissect.Exchange) error
	Flush() error
}

// WriterTap makes w a Tap: Add writes, Sync and Close flush.
func WriterTap(w Writer) Tap { return writerTap{w} }

type writerTap struct{ w Writer }

func (t writerTap) Add(ex *dissect.Exchange) error { return t.w.Write(ex) }
func (t writerTap) Sync() error                    { return t.w.Flush() }
func (t writerTap) Close() error                   { return t.w.Flush() }
