package replay

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/internal/histogram"
)

// Report is the outcome of a replay. Its JSON form (encoding/json) is the
// `kdissect replay --format json` output.
type Report struct {
	Target string    `json:"target"`      // bootstrap address; "" in a dry run
	DryRun bool      `json:"dry_run"`     // nothing was sent
	Speed  float64   `json:"speed"`       // 0: as fast as possible
	Took   int64     `json:"duration_us"` // wall time of Run, microseconds
	Total  APIStat   `json:"total"`       // every API
	APIs   []APIStat `json:"apis"`        // per ApiKey, sorted by key
	// Downgrades lists, per API and version pair, the requests sent at
	// another version than captured.
	Downgrades []Downgrade `json:"downgrades"`
	// Failures lists requests that could not be sent or got no answer
	// (at most MaxFailures, then a count in Total.Failed).
	Failures []Failure `json:"failures"`
	// Notes are things a user must know about the rewriting: topics the
	// target has no ID for, producer ids fetched for captured producers
	// whose InitProducerId the capture lacks, ...
	Notes []string `json:"notes"`
	// Unmatched lists the selection values (Options.APIs, Streams,
	// Topics) no captured request had.
	Unmatched Unmatched `json:"unmatched"`
	// Plan lists the captured requests and what replay does (or, in a
	// dry run, would do) with each, in capture order: the first
	// Options.MaxPlan done (the ones done first, when requests of
	// several connections finish out of order), then PlanOmitted counts
	// the others.
	Plan        []PlanEntry `json:"plan,omitempty"`
	PlanOmitted int         `json:"plan_omitted"`
}

// MaxFailures bounds Report.Failures.
const MaxFailures = 100

// APIStat is the comparison for one API (or all of them: Key -1, API "total").
type APIStat struct {
	Key      int16  `json:"api_key"`
	API      string `json:"api"`
	Captured int    `json:"captured"` // requests in the capture
	Sent     int    `json:"sent"`
	Answered int    `json:"answered"`           // responses received (Acks=0 Produce: none expected)
	NoAnswer int    `json:"no_answer_expected"` // Acks=0 Produce requests sent
	Failed   int    `json:"failed"`             // could not be sent, or no answer
	// Skipped counts the requests not sent, by reason.
	Skipped    map[string]int `json:"skipped"`
	Downgraded int            `json:"downgraded"` // sent at another version than captured
	Records    int            `json:"records"`    // records in the Produce requests sent
	// Accepted counts the records of the Produce requests answered, in
	// the partitions the target answered without an error: what it took
	// (Acks=0 requests, unanswered, count none).
	Accepted int `json:"records_accepted"`
	// Errors are the non-zero error codes in the responses, by Kafka's
	// error name: as captured (for the requests sent) and as replayed.
	CapturedErrors map[string]int `json:"captured_errors"`
	ReplayedErrors map[string]int `json:"replayed_errors"`
	// NewErrors counts the requests answered with an error code their
	// captured answer did not have (see ReplayedErrors): the target
	// refused what the captured broker took, or the replay changed
	// what was sent. They count as answered; kdissect replay exits
	// with status 3 when there are any (Report.Succeeded).
	NewErrors int `json:"requests_with_new_errors"`
	// Latency of the requests sent: as captured, as replayed.
	CapturedLatency Latency `json:"captured_latency"`
	ReplayedLatency Latency `json:"replayed_latency"`

	capHist, repHist histogram.Histogram
}

// Latency is nearest-rank percentiles of response times, microseconds;
// null when there are no samples.
type Latency struct {
	Count int    `json:"count"`
	P50   *int64 `json:"p50_us"`
	P99   *int64 `json:"p99_us"`
}

// Downgrade is the requests of one API sent at another version: the
// whole request (Broker empty), or the parts of split requests sent to
// one broker of the target that offers other versions than the broker
// the rest went to (Broker its address).
type Downgrade struct {
	API    string `json:"api"`
	From   int16  `json:"from_version"`
	To     int16  `json:"to_version"`
	Broker string `json:"broker,omitempty"`
	// Change is "upgrade" when To is above From, else "downgrade".
	Change   string   `json:"change"`
	Requests int      `json:"requests"`
	Lost     []string `json:"lost_fields"` // fields the sent version cannot carry
}

// Failure is one request that failed.
type Failure struct {
	Stream int    `json:"stream"`
	Index  int    `json:"index"` // request number in the capture, 0-based
	API    string `json:"api"`
	Error  string `json:"error"`
}

// PlanEntry is one captured request and what replay did with it.
type PlanEntry struct {
	Index    int      `json:"index"`
	Stream   int      `json:"stream"`
	API      string   `json:"api"`
	Version  int16    `json:"api_version"`            // captured (a dry run shows only these: it never connects)
	Sent     *int16   `json:"sent_version,omitempty"` // version sent; absent when not sent
	Action   string   `json:"action"`                 // "send", "sent", "failed" or "skip"
	Reason   string   `json:"reason,omitempty"`       // why skipped, or the failure
	Topics   []string `json:"topics"`
	Records  int      `json:"records"`
	Rewrites []string `json:"rewrites,omitempty"` // what was rewritten
}

// Complete reports whether every request selected was sent and answered
// (Acks=0 Produce requests expect no answer): the exit status 0 of
// kdissect replay. A dry run is complete.
func (r *Report) Complete() bool {
	return r.DryRun || r.Total.Failed == 0 && r.Total.Sent == r.Total.Answered+r.Total.NoAnswer
}

// Succeeded reports whether the replay is complete and the target
// answered no error the capture did not have (Total.NewErrors): the exit
// status 0 of kdissect replay.
func (r *Report) Succeeded() bool {
	return r.Complete() && (r.DryRun || r.Total.NewErrors == 0)
}

func newAPIStat(key int16) *APIStat {
	name := "total"
	if key >= 0 {
		name = codec.APIName(key)
	} else if key == -2 {
		name = "SASL token"
	}
	return &APIStat{Key: key, API: name, Skipped: map[string]int{}, CapturedErrors: map[string]int{}, ReplayedErrors: map[string]int{}}
}

// add counts one item.
func (s *APIStat) add(it *item) {
	s.Captured++
	if it.skip != "" {
		s.Skipped[it.skip]++
		return
	}
	if it.sent {
		s.Sent++
		s.Records += it.records
		if it.downgrade != "" {
			s.Downgraded++
		}
		for _, c := range it.capErrors {
			s.CapturedErrors[codec.ErrorName(c)]++
		}
		if it.capLatOK {
			s.capHist.Add(it.capLat.Microseconds())
		}
	}
	switch {
	case it.answered:
		s.Answered++
		s.Accepted += it.accepted
		s.repHist.Add(it.repLat.Microseconds())
		for _, c := range it.repErrors {
			s.ReplayedErrors[codec.ErrorName(c)]++
		}
		if hasNewError(it.capErrors, it.repErrors) {
			s.NewErrors++
		}
	case it.sent && it.noAnswer && it.failure == "":
		s.NoAnswer++
	case it.failure != "":
		s.Failed++
	}
}

// hasNewError reports whether replayed holds an error code that
// captured does not.
func hasNewError(captured, replayed []int16) bool {
	for _, c := range replayed {
		if !slices.Contains(captured, c) {
			return true
		}
	}
	return false
}

func (s *APIStat) finish() {
	s.CapturedLatency = latencyOf(&s.capHist)
	s.ReplayedLatency = latencyOf(&s.repHist)
}

func latencyOf(h *histogram.Histogram) Latency {
	l := Latency{Count: int(h.Count())}
	if l.Count > 0 {
		p50, p99 := h.Percentile(50), h.Percentile(99)
		l.P50, l.P99 = &p50, &p99
	}
	return l
}

// tally aggregates the items done into a report as they finish, so
// that the items can be let go: its size does not grow with the number
// of requests (Failures and Plan are bounded). It is safe for concurrent
// use.
type tally struct {
	opts *Options

	mu          sync.Mutex
	total       *APIStat
	per         map[int16]*APIStat
	dgs         map[dgKey]*Downgrade
	failures    []Failure
	plan        []PlanEntry
	planOmitted int
}

type dgKey struct {
	key      int16
	from, to int16
	broker   string
}

func newTally(opts *Options) *tally {
	return &tally{opts: opts, total: newAPIStat(-1), per: map[int16]*APIStat{}, dgs: map[dgKey]*Downgrade{}}
}

// add counts one item, done.
func (t *tally) add(it *item) {
	t.mu.Lock()
	defer t.mu.Unlock()
	key := it.key
	if key < 0 {
		key = -2
	}
	s, ok := t.per[key]
	if !ok {
		s = newAPIStat(key)
		t.per[key] = s
	}
	s.add(it)
	t.total.add(it)
	if it.sent {
		if it.downgrade != "" {
			t.downgrade(dgKey{it.key, it.version, it.sentVer, ""}, it.lost)
		}
		for _, d := range it.partDowngrades {
			t.downgrade(dgKey{it.key, it.version, d.to, d.broker}, d.lost)
		}
	}
	if it.failure != "" && len(t.failures) < MaxFailures {
		t.failures = append(t.failures, Failure{Stream: it.stream, Index: it.index, API: apiName(it.key), Error: it.failure})
	}
	if len(t.plan) < t.opts.maxPlan() {
		t.plan = append(t.plan, planEntry(t.opts, it))
	} else {
		t.planOmitted++
	}
}

func (t *tally) downgrade(k dgKey, lost []string) {
	d, ok := t.dgs[k]
	if !ok {
		d = &Downgrade{API: codec.APIName(k.key), From: k.from, To: k.to, Broker: k.broker, Change: "downgrade", Lost: []string{}}
		if k.to > k.from {
			d.Change = "upgrade"
		}
		t.dgs[k] = d
	}
	d.Requests++
	for _, l := range lost {
		if !slices.Contains(d.Lost, l) {
			d.Lost = append(d.Lost, l)
		}
	}
}

// report builds the report of the items counted so far.
func (t *tally) report(notes []string, took time.Duration) *Report {
	t.mu.Lock()
	defer t.mu.Unlock()
	opts := t.opts
	rep := &Report{DryRun: opts.DryRun, Speed: max(opts.Speed, 0), Took: took.Microseconds(), Notes: notes,
		Failures: slices.Clone(t.failures), Plan: slices.Clone(t.plan), PlanOmitted: t.planOmitted}
	slices.SortFunc(rep.Plan, func(a, b PlanEntry) int { return a.Index - b.Index })
	if !opts.DryRun {
		if b := opts.brokers(); len(b) > 0 {
			rep.Target = b[0]
		}
	}
	total := *t.total
	total.finish()
	rep.Total = total
	for _, s := range t.per {
		c := *s
		c.finish()
		rep.APIs = append(rep.APIs, c)
	}
	slices.SortFunc(rep.APIs, func(a, b APIStat) int { return int(a.Key) - int(b.Key) })
	for _, d := range t.dgs {
		c := *d
		c.Lost = slices.Clone(d.Lost)
		slices.Sort(c.Lost)
		rep.Downgrades = append(rep.Downgrades, c)
	}
	slices.SortFunc(rep.Downgrades, func(a, b Downgrade) int {
		if c := strings.Compare(a.API, b.API); c != 0 {
			return c
		}
		if a.From != b.From {
			return int(a.From) - int(b.From)
		}
		if a.To != b.To {
			return int(b.To) - int(a.To)
		}
		return strings.Compare(a.Broker, b.Broker)
	})
	slices.SortFunc(rep.Failures, func(a, b Failure) int { return a.Index - b.Index })
	if rep.Failures == nil {
		rep.Failures = []Failure{}
	}
	if rep.Notes == nil {
		rep.Notes = []string{}
	}
	if rep.Downgrades == nil {
		rep.Downgrades = []Downgrade{}
	}
	return rep
}

func apiName(key int16) string {
	if key < 0 {
		return "SASL token"
	}
	return codec.APIName(key)
}

func planEntry(opts *Options, it *item) PlanEntry {
	e := PlanEntry{Index: it.index, Stream: it.stream, API: apiName(it.key), Version: it.version, Topics: it.topics, Records: it.records, Rewrites: it.rewriteNts}
	if e.Topics == nil {
		e.Topics = []string{}
	}
	switch {
	case it.skip != "":
		e.Action, e.Reason = "skip", it.skip
	case opts.DryRun:
		e.Action = "send"
		for _, t := range it.topics {
			if to, ok := opts.TopicMap[t]; ok {
				e.Rewrites = append(e.Rewrites, fmt.Sprintf("topic %s → %s", t, to))
			}
		}
	case it.failure != "":
		e.Action, e.Reason = "failed", it.failure
		if it.sent {
			v := it.sentVer
			e.Sent = &v
		}
	default:
		e.Action = "sent"
		v := it.sentVer
		e.Sent = &v
	}
	return e
}
