package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/dissect/render"
	"github.com/kdissect/kdissect/internal/ordered"
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
// Each stage holds a bounded number of exchanges and of bytes (frames,
// decoded record sets, rendered output), so a slow output holds back the
// reading rather than growing memory.

// pipelineMaxBytes bounds the bytes in flight in each stage: once they are
// reached, no exchange enters until some leave. An exchange may cost more
// alone (a frame of up to --max-frame-size, record sets of up to
// --max-decompressed-size): it then passes alone.
const pipelineMaxBytes = 32 << 20

// exchangeJob is one exchange in the pipeline.
type exchangeJob struct {
	ex     *dissect.Exchange
	frames int64  // frame bytes
	cost   int64  // frame bytes and decoded record sets, in bytes
	line   []byte // rendered JSON line
	row    []string
}

// concurrentRenderer is an output whose costly part, rendering one
// exchange, may run on many goroutines at once (render.JSONLines,
// render.Table); other outputs render and write in the ordered stage.
type concurrentRenderer interface {
	render(j *exchangeJob)
	write(j *exchangeJob) error
}

type jsonRenderer struct {
	w     *render.JSONLines
	lines *bufferPool
}

func (r jsonRenderer) render(j *exchangeJob) { j.line = r.w.AppendLine(r.lines.get(), j.ex) }

func (r jsonRenderer) write(j *exchangeJob) error {
	err := r.w.WriteLine(j.line)
	r.lines.put(j.line)
	j.line = nil
	return err
}

type tableRenderer struct{ t *render.Table }

func (r tableRenderer) render(j *exchangeJob)      { j.row = r.t.Row(j.ex) }
func (r tableRenderer) write(j *exchangeJob) error { return r.t.AddRow(j.row) }

// rendererOf returns the concurrent side of w, nil when it has none.
func rendererOf(w exchangeWriter) concurrentRenderer {
	switch w := w.(type) {
	case *render.JSONLines:
		return jsonRenderer{w: w, lines: &bufferPool{}}
	case *render.Table:
		return tableRenderer{w}
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
// not nil. Each exchange's frames go back to pool (nil: none) once it was
// output or left out: output must keep nothing of the exchange.
func newExchangePipeline(dec *dissect.Decoder, opts dissect.DecodeOptions, pool *dissect.FramePool, keep func(*dissect.Exchange) bool, r concurrentRenderer, output func(*exchangeJob)) *exchangePipeline {
	n := runtime.GOMAXPROCS(0)
	cfg := ordered.Config{Workers: n, Depth: 8 * n, MaxCost: pipelineMaxBytes}
	p := &exchangePipeline{}
	done := func(j *exchangeJob) {
		output(j)
		pool.Release(j.ex)
	}
	if r != nil {
		p.render = ordered.New(cfg, func(j *exchangeJob) int64 { r.render(j); return int64(len(j.line)) }, done)
	}
	p.decode = ordered.New(cfg,
		func(j *exchangeJob) int64 {
			// What the record sets took counts in this stage and the next.
			j.cost += dissect.PrepareDecode(j.ex, opts)
			return j.cost - j.frames
		},
		func(j *exchangeJob) {
			dec.Decode(j.ex)
			if !keep(j.ex) {
				pool.Release(j.ex)
				return
			}
			if p.render != nil {
				p.render.Put(j, j.cost)
				return
			}
			done(j)
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
	p.decode.Put(&exchangeJob{ex: ex, frames: cost, cost: cost}, cost)
}

// close waits until every exchange was output.
func (p *exchangePipeline) close() {
	p.decode.Close()
	if p.render != nil {
		p.render.Close()
	}
}

// bufferPool is a pool of byte slices.
type bufferPool struct{ p sync.Pool }

func (b *bufferPool) get() []byte {
	if s, ok := b.p.Get().(*[]byte); ok {
		return (*s)[:0]
	}
	return make([]byte, 0, 4096)
}

func (b *bufferPool) put(s []byte) {
	if cap(s) > 1<<20 {
		return // a rare huge line: let it go
	}
	b.p.Put(&s)
}

// tuneGC lets the heap grow to three times the live data between
// collections instead of two (GOGC=200), unless GOGC says otherwise:
// decoding allocates about five bytes of short-lived buffers per byte of
// capture while the live heap stays small (tens of MB), so collecting
// half as often saves CPU for little memory.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
}
