// Package pipeline feeds a capture's exchanges to taps (output.Tap):
//
//	source -> dissector -> decode -> filters, -Y, -c -> taps
//
// The source (a capture read by dissect.Dissector.ReadCaptures, a live
// Session) emits exchanges in capture order on one goroutine and hands
// them to Put. Then
//
//	decode:  bodies and record sets in parallel (dissect.PrepareDecode),
//	         then, in capture order, Decoder.Decode — which learns topic
//	         names from Metadata and resolves topic IDs, so it must see
//	         the exchanges in order — the exchange filters and -c;
//	render:  the display filter (-Y) and what each output.Renderer
//	         renders of a kept exchange, in parallel; then, in capture
//	         order, -c counts it and every tap takes it.
//
// Each stage holds a bounded number of exchanges, and both together a
// bounded number of bytes (frames, decoded record sets, rendered output),
// so a slow tap holds back the source rather than growing memory.
//
// The rules of the filters are these, for every command: an exchange
// passes when it matches Options.Filter and Options.Display; -c
// (Options.Count) counts those that passed, in capture order, and once it
// is reached no further exchange passes, nor enters; taps that are
// output.Deciders hear of every decoded exchange whether it passed.
package pipeline

import (
	"context"
	"runtime"
	"sync/atomic"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/internal/ordered"
	"github.com/kdissect/kdissect/output"
	"github.com/kdissect/kdissect/output/filter"
)

// MaxBytes bounds the bytes in flight from the moment an exchange enters
// until every tap took it: once they are reached, no exchange enters and
// none but the oldest is decoded until some leave. An exchange may cost
// more alone (a frame of up to --max-frame-size, record sets of up to
// --max-decompressed-size, its rendering): it then passes alone.
const MaxBytes = 16 << 20

// Options are what a Pipeline does with the exchanges between the source
// and the taps.
type Options struct {
	// Decode are the options of the Decoder and of PrepareDecode.
	Decode dissect.DecodeOptions
	// Pool gets each exchange's frames back once every tap took it or it
	// was left out (nil: none): taps must keep nothing of an exchange.
	Pool *dissect.FramePool
	// Filter are the exchange filters (--api, --topic...); nil: none.
	Filter *filter.Set
	// Display is -Y (nil: none); it runs on many goroutines at once,
	// after Filter, on decoded exchanges, unless a tap is an
	// output.Decider: then in capture order.
	Display func(*dissect.Exchange) bool
	// Count is -c: after this many exchanges passed, none does (0: no
	// limit), and Done says so.
	Count int64
	// SyncEach has the taps that are output.Syncers synced after every
	// exchange, so that a reader follows a live capture.
	SyncEach bool
	// Workers is how many goroutines decode and render (0: GOMAXPROCS).
	Workers int
}

// Result is what a run saw.
type Result struct {
	Seen   int64 // exchanges the source emitted (Put), entered or not
	Passed int64 // exchanges that passed the filters and -Y, up to -c
}

// Source emits a capture's exchanges in capture order to p.Put, from one
// goroutine, and returns at its end; it should end early once p.Done.
type Source func(p *Pipeline)

// Run starts a Pipeline with opts and taps, runs src into it and closes
// it: Close's result. The taps are not closed: their Close ends the
// outputs in the order the caller wants them on its streams.
func Run(ctx context.Context, src Source, opts Options, taps ...output.Tap) (Result, error) {
	p := Start(ctx, opts, taps...)
	src(p)
	return p.Close()
}

// Pipeline decodes, filters and renders exchanges in parallel and hands
// them to taps in capture order.
type Pipeline struct {
	ctx      context.Context
	opts     Options
	dec      *dissect.Decoder
	taps     []tapState
	decode   *ordered.Pipeline[*job]
	render   *ordered.Pipeline[*job] // nil without Renderer or parallel Display
	inOrder  bool                    // Display runs in capture order (a Decider)
	renders  bool                    // a tap is a Renderer
	origin   bool                    // the OriginSetters were given the first exchange
	seen     int64
	passed   atomic.Int64 // counted by the pipeline, read by the source too
	failed   atomic.Bool  // a tap failed: the source may stop
	firstErr error        // the first tap's error, once failed
}

// tapState is a tap, its optional sides, and its first error.
type tapState struct {
	t   output.Tap
	r   output.Renderer // nil: not one
	s   output.Syncer
	d   output.Decider
	o   output.OriginSetter
	err error
}

// job is one exchange in the pipeline, or a sync (ex nil).
type job struct {
	ex       *dissect.Exchange
	synced   chan struct{} // a sync job's: closed once the taps synced
	cost     int64         // frame bytes, decoded record sets and renderings
	rendered []any         // by tap, what its Render returned
	small    [2]any        // rendered's room for two Renderers
	drop     bool          // the display filter left it out
}

// Start starts a Pipeline: Put the exchanges, then Close. Nil taps are
// left out. Once ctx is done, Done says so and no further exchange enters.
func Start(ctx context.Context, opts Options, taps ...output.Tap) *Pipeline {
	if ctx == nil {
		ctx = context.Background()
	}
	p := &Pipeline{ctx: ctx, opts: opts, dec: dissect.NewDecoder(opts.Decode)}
	for _, t := range taps {
		if t == nil {
			continue
		}
		st := tapState{t: t}
		st.r, _ = t.(output.Renderer)
		st.s, _ = t.(output.Syncer)
		st.d, _ = t.(output.Decider)
		st.o, _ = t.(output.OriginSetter)
		p.renders = p.renders || st.r != nil
		p.inOrder = p.inOrder || st.d != nil
		p.taps = append(p.taps, st)
	}
	n := opts.Workers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	parallel := p.renders || opts.Display != nil && !p.inOrder
	// One bound covers both stages: an exchange counts from the moment it
	// enters until every tap took it (a Fetch of 50 000 records is frames,
	// then tens of MB decoded, then tens of MB rendered).
	cfg := ordered.Config{Workers: n, Depth: 8 * n, MaxCost: MaxBytes, KeepCost: parallel}
	if parallel {
		p.render = ordered.New(ordered.Config{Workers: n, Depth: 8 * n}, p.renderWork, p.renderDone)
	}
	p.decode = ordered.New(cfg, p.decodeWork, p.decodeDone)
	return p
}

// Put hands over the next exchange in capture order; once Done, the
// exchange is only counted, and its frames go back to the pool.
func (p *Pipeline) Put(ex *dissect.Exchange) {
	p.seen++
	if p.Done() {
		p.opts.Pool.Release(ex)
		return
	}
	var cost int64
	if ex.Request != nil {
		cost += int64(len(ex.Request.Bytes))
	}
	if ex.Response != nil {
		cost += int64(len(ex.Response.Bytes))
	}
	p.decode.Put(&job{ex: ex, cost: cost}, cost)
}

// Done says whether the pipeline takes no more exchanges: -c was reached,
// a tap failed (a closed pipe), or ctx is done. The source may stop.
func (p *Pipeline) Done() bool {
	return p.ctx.Err() != nil || p.failed.Load() || p.opts.Count > 0 && p.passed.Load() >= p.opts.Count
}

// Sync has every tap that is an output.Syncer synced once every exchange
// Put so far was taken, and waits for that: where a pipe's reader may
// wait, the taps write out what came, and then Done knows whether -c was
// reached.
func (p *Pipeline) Sync() {
	j := &job{synced: make(chan struct{})}
	p.decode.Put(j, 0)
	<-j.synced
}

// Close waits until every exchange Put was taken, and returns what the
// run saw and the first error of a tap.
func (p *Pipeline) Close() (Result, error) {
	p.decode.Close()
	if p.render != nil {
		p.render.Close()
	}
	return Result{Seen: p.seen, Passed: p.passed.Load()}, p.firstErr
}

// decodeWork runs on a worker: what of decoding needs no order.
func (p *Pipeline) decodeWork(j *job) int64 {
	if j.ex == nil {
		return 0
	}
	extra := dissect.PrepareDecode(j.ex, p.opts.Decode)
	j.cost += extra
	return extra
}

// decodeDone runs in capture order: decoding, the exchange filters, -c,
// and -Y when a Decider needs its verdict in order.
func (p *Pipeline) decodeDone(j *job) {
	if j.ex != nil && !p.keep(j.ex) {
		p.finish(j)
		return
	}
	if p.render != nil {
		p.render.Put(j, 0)
		return
	}
	p.output(j)
	p.finish(j)
}

// keep decodes ex and says whether it goes on to the taps.
func (p *Pipeline) keep(ex *dissect.Exchange) bool {
	p.dec.Decode(ex)
	if !p.origin {
		p.origin = true
		p.setOrigin(ex)
	}
	k := !p.Done() && p.opts.Filter.Match(ex) // past -c: what the source still holds is not taken
	if k && p.opts.Display == nil {
		p.passed.Add(1)
	}
	if !p.inOrder {
		return k
	}
	if k && p.opts.Display != nil {
		if k = p.opts.Display(ex); k {
			p.passed.Add(1)
		}
	}
	for _, t := range p.taps {
		if t.d != nil {
			t.d.Decide(ex, k)
		}
	}
	return k
}

// setOrigin hands the OriginSetters the time of ex, the first exchange.
func (p *Pipeline) setOrigin(ex *dissect.Exchange) {
	var fr *dissect.Frame
	switch {
	case ex.Request != nil:
		fr = ex.Request
	case ex.Response != nil:
		fr = ex.Response
	default:
		return
	}
	for _, t := range p.taps {
		if t.o != nil {
			t.o.SetOrigin(fr.Time)
		}
	}
}

// renderWork runs on a worker: -Y (topic names are resolved by now) and
// the Renderers' renderings.
func (p *Pipeline) renderWork(j *job) int64 {
	if j.ex == nil {
		return 0
	}
	if p.opts.Display != nil && !p.inOrder && !p.opts.Display(j.ex) {
		j.drop = true
		return 0
	}
	if !p.renders {
		return 0
	}
	j.rendered = j.small[:0]
	var extra int64
	for _, t := range p.taps {
		var r any
		if t.r != nil {
			var n int64
			r, n = t.r.Render(j.ex)
			extra += n
		}
		j.rendered = append(j.rendered, r)
	}
	p.decode.Grow(extra)
	j.cost += extra
	return 0
}

// renderDone runs in capture order: -c counts what -Y passed.
func (p *Pipeline) renderDone(j *job) {
	if j.ex != nil && (j.drop || p.opts.Display != nil && !p.inOrder && !p.accept()) {
		p.finish(j)
		return
	}
	p.output(j)
	p.finish(j)
}

// accept counts an exchange -Y passed, unless -c was reached.
func (p *Pipeline) accept() bool {
	if p.Done() {
		return false
	}
	p.passed.Add(1)
	return true
}

// output hands j to every tap that has not failed, in capture order: the
// exchange, or a sync.
func (p *Pipeline) output(j *job) {
	for i := range p.taps {
		t := &p.taps[i]
		if t.err != nil {
			continue
		}
		var err error
		switch {
		case j.ex == nil:
			if t.s != nil {
				err = t.s.Sync()
			}
		case t.r != nil && j.rendered != nil:
			err = t.r.AddRendered(j.ex, j.rendered[i])
		default:
			err = t.t.Add(j.ex)
		}
		if err == nil && j.ex != nil && p.opts.SyncEach && t.s != nil {
			err = t.s.Sync() // shown as it is seen, also through a pipe
		}
		if err != nil {
			t.err = err
			if p.firstErr == nil {
				p.firstErr = err
			}
			p.failed.Store(true) // output that cannot be written ends the input too
		}
	}
	j.rendered = nil
}

// finish takes j out of the pipeline.
func (p *Pipeline) finish(j *job) {
	if j.synced != nil {
		close(j.synced)
	}
	p.opts.Pool.Release(j.ex)
	p.decode.Release(j.cost)
}
