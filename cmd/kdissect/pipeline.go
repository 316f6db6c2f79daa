package main

import (
	"os"
	"runtime"
	"runtime/debug"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/internal/ordered"
	"github.com/kdissect/kdissect/output/render"
)

// This file runs read's and stats' work on every core. The capture is
// read, reassembled and framed in order on the caller's goroutine (the
// dissector emits exchanges in capture order); then
//
//	decode:  bodies and record sets in parallel (dissect.PrepareDecode),
//	         then, in capture order, Decoder.Decode — which learns topic
//	         names from Metadata and resolves topic IDs, so it must see
//	         the exchanges in order — the filters and -c;
//	render:  the output of each kept exchange in parallel (a JSON line, a
//	         table row), then written in capture order.
//
// Each stage holds a bounded number of exchanges, and both together a
// bounded number of bytes (frames, decoded record sets, rendered output),
// so a slow output holds back the reading rather than growing memory.

// pipelineMaxBytes bounds the bytes in flight from the moment an exchange
// enters until it was written: once they are reached, no exchange enters
// and none but the oldest is decoded until some leave. An exchange may
// cost more alone (a frame of up to --max-frame-size, record sets of up to
// --max-decompressed-size, its rendering): it then passes alone.
const pipelineMaxBytes = 16 << 20

// exchangeJob is one exchange in the pipeline.
type exchangeJob struct {
	ex     *dissect.Exchange // nil for a sync job (exchangePipeline.sync)
	synced chan struct{}     // a sync job's: closed once output
	cost   int64             // frame bytes, decoded record sets and rendering, in bytes
	line   *render.Line      // rendered JSON line
	row    []string
	// parquet is the exchange's Parquet row, of parquetSize bytes.
	parquet     *render.ExchangeRow
	parquetSize int64
	drop        bool // the selection (-Y) left it out
}

// concurrentRenderer is an output whose costly part, rendering one
// exchange, may run on many goroutines at once (render.JSONLines,
// render.Table); other outputs render and write in the ordered stage.
type concurrentRenderer interface {
	render(j *exchangeJob) int64 // returns the bytes the rendering holds
	write(j *exchangeJob) error
}

type jsonRenderer struct{ w *render.JSONLines }

func (r jsonRenderer) render(j *exchangeJob) int64 {
	j.line = r.w.RenderLine(j.ex)
	return int64(j.line.Len())
}

func (r jsonRenderer) write(j *exchangeJob) error {
	err := r.w.WriteLine(j.line)
	j.line = nil
	return err
}

// rowRenderer renders an exchange as a row of cells (render.Table,
// render.FieldColumns).
type rowRenderer struct {
	row func(*dissect.Exchange) []string
	add func([]string) error
}

func (r rowRenderer) render(j *exchangeJob) int64 {
	j.row = r.row(j.ex)
	var n int64
	for _, c := range j.row {
		n += int64(len(c))
	}
	return n
}
func (r rowRenderer) write(j *exchangeJob) error { return r.add(j.row) }

// rendererOf returns the concurrent side of w, nil when it has none.
func rendererOf(w exchangeWriter) concurrentRenderer {
	switch w := w.(type) {
	case *render.JSONLines:
		return jsonRenderer{w}
	case *render.Table:
		return rowRenderer{w.Row, w.AddRow}
	case *render.FieldColumns:
		return rowRenderer{w.Row, w.AddRow}
	case *parquetOutput:
		return parquetRenderer{w}
	}
	return nil
}

// exchangePipeline decodes and renders exchanges in parallel and hands
// them on in capture order.
type exchangePipeline struct {
	decode *ordered.Pipeline[*exchangeJob]
	render *ordered.Pipeline[*exchangeJob] // nil without a concurrentRenderer
}

// newExchangePipeline starts a pipeline. keep runs in capture order after
// decoding and says whether to output the exchange (filters, -c); output
// runs in capture order on the kept ones, after r rendered them when r is
// not nil, and on the sync jobs (ex nil) in their place. Each exchange's frames go back to pool (nil: none) once it was
// output or left out: output must keep nothing of the exchange.
func newExchangePipeline(dec *dissect.Decoder, opts dissect.DecodeOptions, pool *dissect.FramePool, keep func(*dissect.Exchange) bool, r concurrentRenderer, output func(*exchangeJob)) *exchangePipeline {
	return newSelectingPipeline(dec, opts, pool, keep, nil, nil, r, output)
}

// newSelectingPipeline is newExchangePipeline with a selection after keep:
// sel (nil: none), the display filter, runs on the decoded exchanges keep
// kept, in parallel, on the render stage's workers (topic names are
// resolved by then); accept (nil: all) runs in capture order on those sel
// passed, before output (-c counts there).
func newSelectingPipeline(dec *dissect.Decoder, opts dissect.DecodeOptions, pool *dissect.FramePool, keep, sel, accept func(*dissect.Exchange) bool, r concurrentRenderer, output func(*exchangeJob)) *exchangePipeline {
	n := runtime.GOMAXPROCS(0)
	// One bound covers both stages: an exchange counts from the moment it
	// enters until it was output (a Fetch of 50 000 records is frames,
	// then tens of MB decoded, then tens of MB rendered).
	cfg := ordered.Config{Workers: n, Depth: 8 * n, MaxCost: pipelineMaxBytes, KeepCost: r != nil || sel != nil}
	p := &exchangePipeline{}
	finish := func(j *exchangeJob) {
		if j.synced != nil {
			close(j.synced)
		}
		pool.Release(j.ex)
		p.decode.Release(j.cost)
	}
	if r != nil || sel != nil {
		p.render = ordered.New(ordered.Config{Workers: n, Depth: 8 * n},
			func(j *exchangeJob) int64 {
				if j.ex == nil {
					return 0
				}
				if sel != nil && !sel(j.ex) {
					j.drop = true
					return 0
				}
				if r == nil {
					return 0
				}
				extra := r.render(j)
				p.decode.Grow(extra)
				j.cost += extra
				return 0
			},
			func(j *exchangeJob) {
				if j.ex != nil && (j.drop || accept != nil && !accept(j.ex)) {
					finish(j)
					return
				}
				output(j)
				finish(j)
			})
	}
	p.decode = ordered.New(cfg,
		func(j *exchangeJob) int64 {
			if j.ex == nil {
				return 0
			}
			extra := dissect.PrepareDecode(j.ex, opts)
			j.cost += extra
			return extra
		},
		func(j *exchangeJob) {
			if j.ex != nil {
				dec.Decode(j.ex)
			}
			if j.ex != nil && !keep(j.ex) {
				finish(j)
				return
			}
			if p.render != nil {
				p.render.Put(j, 0)
				return
			}
			output(j)
			finish(j)
		})
	return p
}

// put hands over the next exchange in capture order.
func (p *exchangePipeline) put(ex *dissect.Exchange) {
	var cost int64
	if ex.Request != nil {
		cost += int64(len(ex.Request.Bytes))
	}
	if ex.Response != nil {
		cost += int64(len(ex.Response.Bytes))
	}
	p.decode.Put(&exchangeJob{ex: ex, cost: cost}, cost)
}

// sync has output called with a job without exchange once every
// exchange put so far was output, and waits for that: where a pipe's
// reader may wait, read flushes its output, and then knows whether -c was
// reached.
func (p *exchangePipeline) sync() {
	j := &exchangeJob{synced: make(chan struct{})}
	p.decode.Put(j, 0)
	<-j.synced
}

// close waits until every exchange was output.
func (p *exchangePipeline) close() {
	p.decode.Close()
	if p.render != nil {
		p.render.Close()
	}
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
