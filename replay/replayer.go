package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kdissect/kdissect/client"
	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// Replayer replays the exchanges handed to it as they come: call Start,
// then Add for each exchange of the capture in capture order (Add
// blocks while the read-ahead window, Options.Window, is full), then
// Wait for the report. The requests are sent while the capture is still
// being read, and let go once done: the requests held are bounded by the
// window, not by the capture. What replay learns (producer ids, group
// members, generations, telemetry ids, fetch sessions up to 10 000) grows
// with the distinct ids the capture holds, not with its length. Start,
// Add and Wait are for one goroutine; the
// replay itself is concurrent inside.
type Replayer struct {
	opts     Options
	st       *state
	sessions *fetchSessions
	tally    *tally

	notesMu sync.Mutex
	notes   []string
	noteSet map[string]bool

	started, waited bool
	begin           time.Time
	added           int // exchanges Add took
	seen            selectionSeen
	err             error

	// Set by Start (none in a dry run).
	ctx     context.Context
	meta    *client.Client
	home    string // the bootstrap address connections go to
	routing bool   // the target has several brokers
	sched   *sched
	clock   pacer
	wg      sync.WaitGroup
}

// MaxNotes bounds Report.Notes.
const MaxNotes = 1000

// Errors of the Replayer's methods called out of turn.
var (
	ErrNotStarted     = errors.New("replay: Start was not called")
	ErrAlreadyStarted = errors.New("replay: Start was already called")
	ErrAlreadyWaited  = errors.New("replay: Wait was already called")
)

// New returns a Replayer. Errors wrap ErrBadOption.
func New(opts Options) (*Replayer, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	r := &Replayer{opts: opts, st: newState(opts.TopicMap), sessions: newFetchSessions(), noteSet: map[string]bool{}}
	r.tally = newTally(&r.opts)
	return r, nil
}

// Start connects to the target (not in a dry run) and readies the
// replay; ctx bounds the whole replay: when it ends, requests not sent
// yet are reported failed and Add returns its error. Errors: a second
// call (ErrAlreadyStarted), a target that cannot be reached at all
// (wrapping the client's error).
func (r *Replayer) Start(ctx context.Context) error {
	if r.started {
		return ErrAlreadyStarted
	}
	r.started, r.begin, r.ctx = true, time.Now(), ctx
	if r.opts.DryRun {
		return nil
	}
	cfg := r.opts.Client
	cfg.Brokers = r.opts.brokers()
	meta, err := client.New(ctx, cfg)
	if err != nil {
		return fmt.Errorf("replay: target %s: %w", strings.Join(cfg.Brokers, ","), err)
	}
	md, err := meta.Metadata(ctx)
	if err != nil {
		meta.Close()
		return fmt.Errorf("replay: target metadata: %w", err)
	}
	r.meta = meta
	r.routing = len(md.Brokers) > 1
	r.home = cfg.Brokers[0]
	for _, t := range md.Topics {
		if !t.ID.IsZero() {
			r.st.setTargetID(t.Name, t.ID)
		}
	}
	r.clock.speed = r.opts.Speed
	r.sched = newSched(ctx, r.opts.Window, r.opts.concurrency(), func(q *streamQ) {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.runStream(q)
		}()
	})
	return nil
}

// Add takes one exchange; ex must have been decoded (dissect.Decoder) so
// that its topics, errors and records are known. Exchanges must come in
// capture order. What replay needs of ex is copied: ex may be reused
// afterwards. Exchanges with no request (a response whose request was
// not captured) are counted, never sent. Add blocks while the
// read-ahead window is full. It fails when called before Start or after
// Wait, or once the replay's context has ended (its error; the request
// is then counted as not sent).
func (r *Replayer) Add(ex *dissect.Exchange) error {
	if !r.started {
		return ErrNotStarted
	}
	if r.waited {
		return ErrAlreadyWaited
	}
	it := r.take(ex)
	if it.skip != "" || r.opts.DryRun {
		r.tally.add(it)
		return nil
	}
	if r.clock.first.IsZero() {
		r.clock.first, r.clock.start = it.reqTime, time.Now()
	}
	if err := r.sched.put(it); err != nil {
		it.failure = "not sent: the replay ended first"
		r.tally.add(it)
		return fmt.Errorf("replay: %w", err)
	}
	return nil
}

// take makes the item of an exchange, with copies of what it keeps.
func (r *Replayer) take(ex *dissect.Exchange) *item {
	if ex.Decoded != nil {
		r.st.learnCapturedTopics(ex.Decoded.Topics)
	}
	r.seen.see(&r.opts, ex)
	it := r.newItem(ex)
	r.added++
	if it.clientID != nil {
		s := strings.Clone(*it.clientID)
		it.clientID = &s
	}
	for i := range it.topics {
		it.topics[i] = strings.Clone(it.topics[i])
	}
	if it.req != nil {
		// Decode again from a copy: the decoder's bodies alias the
		// exchange's frame, which Add's caller may reuse once it returns,
		// and the request is rewritten in place before it is sent.
		req, err := decodeBody(ex.Request.Bytes, false, it.key, it.version)
		if err != nil {
			it.req, it.skip = nil, skipUndecoded+": "+err.Error()
		} else {
			it.req = req
			it.size = int64(len(ex.Request.Bytes))
		}
	}
	if it.req != nil {
		r.sessions.capture(it, ex)
	}
	it.capResp = nil
	if it.req != nil && ex.Response != nil && ex.Response.Captured() && ex.Decoded != nil && ex.Decoded.Response != nil && learnsFromResponse(it.key) {
		if resp, err := decodeBody(ex.Response.Bytes, true, it.key, ex.Decoded.ResponseVersion); err == nil {
			it.capResp = resp
			it.size += int64(len(ex.Response.Bytes))
		}
	}
	it.dep = depTime(it)
	return it
}

// learnsFromResponse says whether replay reads the captured response of
// the ApiKey: to map producer ids, member ids, generations and
// telemetry subscriptions.
func learnsFromResponse(key int16) bool {
	switch key {
	case codec.ApiKeyInitProducerId, codec.ApiKeyEndTxn, codec.ApiKeyJoinGroup, codec.ApiKeyConsumerGroupHeartbeat,
		codec.ApiKeyShareGroupHeartbeat, codec.ApiKeyStreamsGroupHeartbeat, codec.ApiKeyGetTelemetrySubscriptions:
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

// note adds a report note once (at most MaxNotes).
func (r *Replayer) note(s string) {
	r.notesMu.Lock()
	defer r.notesMu.Unlock()
	if r.noteSet[s] || len(r.notes) >= MaxNotes {
		return
	}
	r.noteSet[s] = true
	r.notes = append(r.notes, s)
}

// Wait says no exchange will come, waits for the replay of those added
// to end, and returns the report. The error is for failures of the
// whole: Wait out of turn, or the context ending (the report is then
// still returned, with what was done). Failures of single requests are
// in the report.
func (r *Replayer) Wait() (*Report, error) {
	if !r.started {
		return nil, ErrNotStarted
	}
	if r.waited {
		return nil, ErrAlreadyWaited
	}
	r.waited = true
	if r.sched != nil {
		r.sched.close()
		r.wg.Wait()
		evicted, overflow := r.sched.evictions()
		if evicted > 0 {
			r.note(fmt.Sprintf("%d times a captured connection with nothing to send, or whose next request waited for another connection's, was closed to let another start (--concurrency %d is below the connections open at once); a later request of it opened new connections", evicted, r.opts.concurrency()))
		}
		if overflow > 0 {
			r.note(fmt.Sprintf("%d times a captured connection was replayed beyond --concurrency %d: its request was sent in the capture while a JoinGroup or SyncGroup was waiting for the group's other members (the members of a rebalance count as one slot)", overflow, r.opts.concurrency()))
		}
		r.meta.Close()
	}
	if n := r.sessions.converted(); n > 0 {
		r.note(fmt.Sprintf("%d incremental Fetch requests (KIP-227 fetch sessions) were sent as full fetches naming their session's partitions (SessionId 0, SessionEpoch -1): the target's fetch sessions are not used", n))
	}
	r.notesMu.Lock()
	notes := slices.Clone(r.notes)
	r.notesMu.Unlock()
	rep := r.tally.report(notes, time.Since(r.begin))
	rep.Unmatched = r.seen.unmatched(&r.opts)
	if err := r.ctx.Err(); err != nil {
		return rep, fmt.Errorf("replay: %w", err)
	}
	return rep, nil
}

// Run is Start, Add of every exchange read yields, and Wait: read calls
// add for each exchange in capture order (add's error says the replay
// ended; read should stop then), and its error ends the replay (Run
// returns it after the report of what was done).
func (r *Replayer) Run(ctx context.Context, read func(add func(*dissect.Exchange) error) error) (*Report, error) {
	if err := r.Start(ctx); err != nil {
		return nil, err
	}
	rerr := read(r.Add)
	rep, err := r.Wait()
	if rerr != nil {
		return rep, rerr
	}
	return rep, err
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
