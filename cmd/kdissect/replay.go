package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/output"
	"github.com/kdissect/kdissect/output/filter"
	"github.com/kdissect/kdissect/output/pipeline"
	"github.com/kdissect/kdissect/output/render"
	"github.com/kdissect/kdissect/replay"
)

// exitIncomplete is replay's exit status when a request could not be
// sent or got no answer.
const exitIncomplete = 3

// incompleteError makes run exit with status 3.
type incompleteError struct{ failed, unanswered int }

func (e incompleteError) Error() string {
	return fmt.Sprintf("replay incomplete: %d requests failed, %d sent got no answer", e.failed, e.unanswered)
}

// ExitStatus is the status run exits with.
func (incompleteError) ExitStatus() int { return exitIncomplete }

// newErrorsError makes run exit with status 3 when the target answered
// errors the capture did not have.
type newErrorsError struct{ requests int }

func (e newErrorsError) Error() string {
	return fmt.Sprintf("replay answered with errors the capture did not have: %d requests (see errors replayed)", e.requests)
}

// ExitStatus is the status run exits with.
func (newErrorsError) ExitStatus() int { return exitIncomplete }

// replayFlags are replay's own flags.
type replayFlags struct {
	speed        string
	concurrency  int
	keepVersions bool
	apis         []string
	topics       []string
	streams      []int
	mapTopics    []string
	dryRun       bool
	readOnly     bool
	window       replay.Window
	maxPlan      int
	display      string // -Y (display_filter.go)
}

// parseSpeed reads --speed: a positive factor ("1", "10", "0.5") or "max".
func parseSpeed(s string) (float64, error) {
	if strings.EqualFold(s, "max") {
		return 0, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f > 0) || math.IsInf(f, 0) { // !(f > 0) also refuses NaN
		return 0, fmt.Errorf("--speed %q: want a positive factor (1 keeps the captured pacing, 10 is ten times faster) or max", s)
	}
	return f, nil
}

// ReplayOptions are replay's flags, arguments and streams.
type ReplayOptions struct {
	IO       cmdIO
	progress *render.Progress // nil: no progress bar (not a terminal)
	args     []string         // the captures
	cf       captureFlags
	bf       brokerFlags
	rf       replayFlags
}

// newReplayCmd is the replay command; runF, when not nil, runs instead of
// runReplay (tests parse the flags without replaying).
func newReplayCmd(runF func(*ReplayOptions) error) *cobra.Command {
	o := &ReplayOptions{}
	cmd := &cobra.Command{
		Use:   "replay FILE... --broker HOST:PORT",
		Short: "Re-send the captured Kafka requests to a broker and compare its answers with the captured ones",
		Long: `Re-send the Kafka requests of pcap or pcapng captures (- reads standard
input) to a broker through kdissect's client stack, and compare its answers
with the captured ones.

Every captured connection becomes a new connection to the target (to the
partition leader or coordinator the target names, when it has several
brokers), its requests sent in captured order with new correlation ids. A
request is sent at the captured version when the target supports it, else
at the nearest version it does (the report lists these downgrades and the
fields the lower version cannot carry); --keep-versions sends them as
captured. Producer ids and epochs come from the target's InitProducerId
answers, record batch sequences are renumbered and their CRC-32C
recomputed; group member ids and generations come from the target's
answers; topic IDs are the target's. SASL exchanges are never replayed:
each connection authenticates with --sasl-* instead.

--speed 1 keeps the captured pacing, 10 is ten times faster, max sends as
fast as the broker answers; at every speed a request waits for the requests
that were answered before it was sent in the capture, on every connection.

The capture streams into the replay, a bounded window read ahead
(--window-*), so memory does not grow with the capture. Requests naming
partitions of several leaders, or groups of several coordinators, are
split and their answers merged, each part at the version its broker
offers. Fetch sessions are not replayed: incremental fetches are sent as
full fetches of their session's partitions.

The report gives, per API and overall, the requests sent and answered,
errors by name as captured and as replayed, latency p50 and p99 as
captured and as replayed, and the records sent and accepted (in
partitions answered without an error). Exit status: 0 when every request
selected was sent and answered with no error its captured answer did not
have, 3 when some failed, got no answer, or got an error the capture did
not have, 1 when a capture cannot be read or the target not reached, 2 bad
usage.`,
		Example: `  kdissect replay capture.pcap --broker localhost:9092
  kdissect replay capture.pcap -b new-cluster:9092 --speed max --format json
  kdissect replay capture.pcap -b localhost:9092 --read-only --api Fetch --topic orders
  kdissect replay capture.pcap -b localhost:9092 --map-topic orders=orders-copy --dry-run`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.IO, o.args, o.progress = ioOf(cmd), args, newProgress(cmd)
			if runF != nil {
				return runF(o)
			}
			return runReplay(o)
		},
	}
	o.cf.register(cmd)
	addReadFlag(cmd)
	format := cmd.Flags().Lookup("format")
	format.Usage = "output format: table or json"
	format.DefValue = "table"
	o.cf.format = "table"
	o.bf.registerAs(cmd.Flags(), "tls-keylog-out")
	cmd.Flags().StringSliceVar(&o.bf.brokers, "broker", nil, "target broker HOST:PORT (same as -b)")
	fs := cmd.Flags()
	fs.StringVar(&o.rf.speed, "speed", "1", "pacing: 1 keeps the captured gaps between requests, 10 is ten times faster, max as fast as the broker answers")
	fs.IntVar(&o.rf.concurrency, "concurrency", replay.DefaultConcurrency, "most captured connections replayed at once (the members of a rebalance count as one)")
	fs.BoolVar(&o.rf.keepVersions, "keep-versions", false, "send every request at its captured version, even one the target does not offer")
	fs.StringSliceVar(&o.rf.apis, "api", nil, "only requests of this API, by name (Produce) or ApiKey (0); repeatable")
	fs.StringSliceVar(&o.rf.topics, "topic", nil, "only requests touching this topic (as captured), by name or topic ID; repeatable")
	fs.IntSliceVar(&o.rf.streams, "stream", nil, "only this captured connection (the stream column of read); repeatable")
	fs.StringSliceVar(&o.rf.mapTopics, "map-topic", nil, "send topic OLD as NEW: OLD=NEW, repeatable")
	fs.BoolVar(&o.rf.dryRun, "dry-run", false, "connect to nothing, send nothing: list what would be sent")
	fs.IntVar(&o.rf.window.Requests, "window-requests", replay.DefaultWindowRequests, "most captured requests read ahead of the replay")
	fs.Int64Var(&o.rf.window.Bytes, "window-bytes", replay.DefaultWindowBytes, "most bytes of captured frames read ahead of the replay")
	fs.IntVar(&o.rf.window.ConnRequests, "window-conn-requests", replay.DefaultWindowConnRequests, "most requests of one captured connection read ahead")
	fs.Int64Var(&o.rf.window.ConnBytes, "window-conn-bytes", replay.DefaultWindowConnBytes, "most bytes of one captured connection read ahead")
	fs.IntVar(&o.rf.maxPlan, "max-plan", replay.DefaultMaxPlan, "most requests listed in the plan (the dry run's table, json's plan)")
	addDisplayFilterFlag(fs, &o.rf.display)
	fs.BoolVar(&o.rf.readOnly, "read-only", false, "skip every API that writes (Produce, CreateTopics, DeleteTopics, DeleteRecords, AlterConfigs, OffsetCommit, transactions, ...)")
	return cmd
}

// runReplay replays the captures to the target and reports.
func runReplay(o *ReplayOptions) error {
	if o.cf.format != "table" && o.cf.format != "json" {
		return fmt.Errorf("unknown format %q (want table or json)", o.cf.format)
	}
	opts, err := o.rf.options()
	if err != nil {
		return err
	}
	disp, err := compileDisplayFilter(o.rf.display)
	if err != nil {
		return err
	}
	if disp != nil {
		opts.Select = disp.match
	}
	if err := o.bf.resolve(); err != nil { // -X bootstrap.servers names the target too
		return err
	}
	if len(o.bf.brokers) == 0 && !o.rf.dryRun {
		return fmt.Errorf("a target broker is needed: --broker HOST:PORT")
	}
	// The key log written is appended to: never the capture nor a
	// key log read.
	inputs := inputFiles{captures: o.args, keyLogs: o.cf.keyLogs(), stdin: o.IO.in}
	if err := refuseOverwritingInputs(inputs, outputFlag{"--tls-keylog-out", o.bf.tlsKeyLog}); err != nil {
		return err
	}
	if len(o.bf.brokers) > 0 {
		cfg, err := o.bf.config()
		defer o.bf.closeKeyLog()
		if err != nil {
			return err
		}
		opts.Client = cfg
	}
	dopts, err := o.cf.dissectOptions()
	if err != nil {
		return err
	}
	if o.cf.maxDecompressed <= 0 {
		return fmt.Errorf("--max-decompressed-size must be positive")
	}
	capFilter, err := o.cf.captureFilter()
	if err != nil {
		return err
	}
	r, err := replay.New(opts)
	if err != nil {
		return err
	}
	ctx, cancel := o.IO.interruptible()
	defer cancel()
	if err := r.Start(ctx); err != nil {
		return inputError{err}
	}
	// The capture streams into the replay: requests are sent
	// while it is read, a bounded window ahead (--window-*).
	d := dissect.New(dopts)
	var failed []error
	added := 0
	// Every exchange goes to the replay, which selects (-Y and the
	// exchange filters are opts.Select and opts'): it keeps them in
	// its window, so no frame pool.
	_, _ = pipeline.Run(ctx, func(p *pipeline.Pipeline) {
		in := &captureInput{d: d, filter: capFilter, stdin: o.IO.in, warn: o.IO.errOut, progress: o.progress, stop: p.Done}
		failed = in.read(o.args, p.Put)
	}, pipeline.Options{Decode: dissect.DecodeOptions{Records: codec.RecordDecodeOptions{MaxDecompressedBytes: o.cf.maxDecompressed}}},
		output.Func(func(ex *dissect.Exchange) {
			added++
			r.Add(ex) // fails only once ctx has ended: the report counts what was not sent
		}))
	rep, err := r.Wait()
	if rep == nil {
		return inputError{err}
	}
	if added == 0 && len(failed) > 0 { // nothing read: no report to show
		for _, err := range failed[:len(failed)-1] {
			fmt.Fprintln(o.IO.errOut, "kdissect:", err)
		}
		return inputError{failed[len(failed)-1]}
	}
	// A capture that could not be read to its end was replayed
	// up to there: the report says what was sent, the exit
	// status that the input failed.
	for _, err := range failed[:max(0, len(failed)-1)] {
		fmt.Fprintln(o.IO.errOut, "kdissect:", err)
	}
	warnUnmatched(o.IO.errOut, &rep.Unmatched)
	if disp != nil {
		reportFilters(o.IO.errOut, nil, disp, int64(added), disp.matched.Load())
	}
	write := writeReplayTables
	if o.cf.format == "json" {
		write = writeReplayJSON
	}
	if werr := write(o.IO.out, rep); werr != nil {
		return inputError{fmt.Errorf("write output: %w", werr)}
	}
	if err != nil {
		fmt.Fprintln(o.IO.errOut, "kdissect:", err)
	}
	if len(failed) > 0 {
		return inputError{failed[len(failed)-1]}
	}
	if !rep.Complete() {
		return incompleteError{failed: rep.Total.Failed, unanswered: rep.Total.Sent - rep.Total.Answered - rep.Total.NoAnswer}
	}
	if !rep.Succeeded() {
		return newErrorsError{requests: rep.Total.NewErrors}
	}
	return nil

}

// options turns the flags into replay options (without the client
// config).
func (f *replayFlags) options() (replay.Options, error) {
	var o replay.Options
	speed, err := parseSpeed(f.speed)
	if err != nil {
		return o, err
	}
	if f.concurrency <= 0 {
		return o, fmt.Errorf("--concurrency must be positive, got %d", f.concurrency)
	}
	o.Speed, o.Concurrency, o.KeepVersions, o.DryRun, o.ReadOnly = speed, f.concurrency, f.keepVersions, f.dryRun, f.readOnly
	if f.window.Requests <= 0 || f.window.Bytes <= 0 || f.window.ConnRequests <= 0 || f.window.ConnBytes <= 0 {
		return o, fmt.Errorf("--window-requests, --window-bytes, --window-conn-requests and --window-conn-bytes must be positive")
	}
	if f.maxPlan < 0 {
		return o, fmt.Errorf("--max-plan must not be negative, got %d", f.maxPlan)
	}
	o.Window, o.MaxPlan = f.window, f.maxPlan
	if f.maxPlan == 0 {
		o.MaxPlan = -1
	}
	for _, a := range f.apis {
		k, err := filter.ParseAPI(a)
		if err != nil {
			return o, err
		}
		o.APIs = append(o.APIs, k)
	}
	o.Topics, o.Streams = f.topics, f.streams
	if len(f.mapTopics) > 0 {
		m, err := replay.ParseTopicMap(f.mapTopics)
		if err != nil {
			return o, err
		}
		o.TopicMap = m
	}
	return o, nil
}
