package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/kdissect/kdissect/client"
	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// Replayer replays the exchanges added to it. Add the exchanges of a
// capture in capture order, then call Run once. A Replayer is not safe
// for concurrent use (Run itself is concurrent inside).
type Replayer struct {
	opts  Options
	plans *plans
	st    *state
	items []*item

	notesMu sync.Mutex
	notes   []string
	ran     bool

	// Set by Run.
	meta    *client.Client
	home    string // the bootstrap address connections go to
	routing bool   // the target has several brokers
	order   *order
}

// ErrAlreadyRun is returned by a second call to Run.
var ErrAlreadyRun = errors.New("replay: Run was already called")

// New returns a Replayer. Errors wrap ErrBadOption.
func New(opts Options) (*Replayer, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	p := &plans{}
	return &Replayer{opts: opts, plans: p, st: newState(p, opts.TopicMap)}, nil
}

// Add takes one exchange; ex must have been decoded (dissect.Decoder) so
// that its topics, errors and records are known. Exchanges must come in
// capture order. The request is copied: ex may be reused afterwards.
// Exchanges with no request (a response whose request was not captured)
// are counted, never sent.
func (r *Replayer) Add(ex *dissect.Exchange) {
	if ex.Decoded != nil {
		r.st.learnCapturedTopics(ex.Decoded.Topics)
	}
	it := r.newItem(ex)
	if it.clientID != nil {
		s := strings.Clone(*it.clientID)
		it.clientID = &s
	}
	for i := range it.topics {
		it.topics[i] = strings.Clone(it.topics[i])
	}
	if it.req != nil {
		// Decode again from a copy: the decoder's bodies alias frames
		// that the dissector may reuse.
		req, err := decodeBody(ex.Request.Bytes, false, it.key, it.version)
		if err != nil {
			it.req, it.skip = nil, skipUndecoded+": "+err.Error()
		} else {
			it.req = req
		}
	}
	it.capResp = nil
	if ex.Response != nil && ex.Decoded != nil && ex.Decoded.Response != nil && learnsFromResponse(it.key) {
		if resp, err := decodeBody(ex.Response.Bytes, true, it.key, ex.Decoded.ResponseVersion); err == nil {
			it.capResp = resp
		}
	}
	r.items = append(r.items, it)
}

// learnsFromResponse says whether replay reads the captured response of
// the ApiKey: to map producer ids, member ids, generations and
// telemetry subscriptions.
func learnsFromResponse(key int16) bool {
	switch key {
	case 22, 26, 11, 68, 76, 88, 71: // InitProducerId, EndTxn, JoinGroup, *GroupHeartbeat, GetTelemetrySubscriptions
		return true
	}
	return false
}

// decodeBody decodes the body of a frame (header and body, without the
// size prefix) from a copy of it.
func decodeBody(frame []byte, response bool, key, version int16) (codec.Message, error) {
	api, ok := codec.LookupAPI(key)
	if !ok || !api.SupportsVersion(version) {
		return nil, fmt.Errorf("%s v%d: no layout in the codec", codec.APIName(key), version)
	}
	b := bytes.Clone(frame)
	rd := codec.NewReader(b)
	var m codec.Message
	if response {
		var h codec.ResponseHeader
		h.ReadFrom(rd, codec.ResponseHeaderVersion(key, version))
		m = api.NewResponse()
	} else {
		var h codec.RequestHeader
		h.ReadFrom(rd, codec.RequestHeaderVersion(key, version))
		m = api.NewRequest()
	}
	if err := rd.Err(); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if _, err := codec.Decode(m, b[rd.Offset():], version); err != nil && !errors.Is(err, codec.ErrTrailingBytes) {
		return nil, err
	}
	return m, nil
}

// note adds a report note once.
func (r *Replayer) note(s string) {
	r.notesMu.Lock()
	defer r.notesMu.Unlock()
	for _, n := range r.notes {
		if n == s {
			return
		}
	}
	r.notes = append(r.notes, s)
}

// Run replays the exchanges added and returns the report. The error is
// for failures of the whole: ErrAlreadyRun, a target that cannot be
// reached at all (wrapping the client's error), or ctx ending (the
// report is then still returned, with what was done). Failures of single
// requests are in the report.
func (r *Replayer) Run(ctx context.Context) (*Report, error) {
	if r.ran {
		return nil, ErrAlreadyRun
	}
	r.ran = true
	start := time.Now()
	if r.opts.DryRun {
		return buildReport(&r.opts, r.items, nil, time.Since(start)), nil
	}
	cfg := r.opts.Client
	cfg.Brokers = r.opts.brokers()
	meta, err := client.New(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("replay: target %s: %w", strings.Join(cfg.Brokers, ","), err)
	}
	defer meta.Close()
	r.meta = meta
	md, err := meta.Metadata(ctx)
	if err != nil {
		return nil, fmt.Errorf("replay: target metadata: %w", err)
	}
	r.routing = len(md.Brokers) > 1
	r.home = cfg.Brokers[0]
	for _, t := range md.Topics {
		if !t.ID.IsZero() {
			r.st.setTargetID(t.Name, t.ID)
		}
	}

	r.order = newOrder(r.items)
	streams := r.streams()
	var first time.Time
	for _, it := range r.items {
		if it.skip == "" && (first.IsZero() || it.reqTime.Before(first)) {
			first = it.reqTime
		}
	}
	clock := pacer{start: time.Now(), first: first, speed: r.opts.Speed}
	sem := make(chan struct{}, r.opts.concurrency())
	var wg sync.WaitGroup
	for _, s := range streams {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		r.order.admit(s[0].stream)
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			r.runStream(ctx, s, clock)
		}()
	}
	wg.Wait()
	for _, it := range r.items {
		if it.skip == "" && !it.sent && it.failure == "" {
			it.failure = "not sent: the replay ended first"
		}
	}
	rep := buildReport(&r.opts, r.items, r.notes, time.Since(start))
	if err := ctx.Err(); err != nil {
		return rep, fmt.Errorf("replay: %w", err)
	}
	return rep, nil
}

// streams returns the items to send grouped by captured connection, in
// order of each connection's first request.
func (r *Replayer) streams() [][]*item {
	idx := map[int]int{}
	var out [][]*item
	for _, it := range r.items {
		if it.skip != "" {
			continue
		}
		i, ok := idx[it.stream]
		if !ok {
			i = len(out)
			idx[it.stream] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], it)
	}
	return out
}

// pacer says when a request is due: its captured offset from the first
// request divided by speed, from the start of the replay.
type pacer struct {
	start, first time.Time
	speed        float64
}

// wait sleeps until it is due (at once for speed <= 0).
func (p pacer) wait(ctx context.Context, it *item) error {
	if p.speed <= 0 {
		return ctx.Err()
	}
	due := p.start.Add(time.Duration(float64(it.reqTime.Sub(p.first)) / p.speed))
	d := time.Until(due)
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
