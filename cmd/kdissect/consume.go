package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kdissect/kdissect/client"
	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/output/kcat"
)

// startOffset is where -o says to start: a special position or an offset.
type startOffset struct {
	kind  string // "beginning", "end", "offset", "relative" (from the end), "time"
	value int64
}

// parseStartOffset parses kcat's -o forms: beginning, end, N, -N (N from
// the end), s@MS (the first message at or after the timestamp in ms).
func parseStartOffset(s string) (startOffset, error) {
	switch s {
	case "beginning", "earliest", "start":
		return startOffset{kind: "beginning"}, nil
	case "end", "latest":
		return startOffset{kind: "end"}, nil
	}
	if ts, ok := strings.CutPrefix(s, "s@"); ok {
		n, err := strconv.ParseInt(ts, 10, 64)
		if err != nil || n < 0 {
			return startOffset{}, fmt.Errorf("-o %q: want s@MILLISECONDS", s)
		}
		return startOffset{kind: "time", value: n}, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return startOffset{}, fmt.Errorf("-o %q: want beginning, end, an offset, -N (N before the end) or s@MS", s)
	}
	if n < 0 {
		return startOffset{kind: "relative", value: -n}, nil
	}
	return startOffset{kind: "offset", value: n}, nil
}

// consumePartition is the state of one partition being consumed.
type consumePartition struct {
	p    int32
	next int64
	done bool
}

// consumeOutput is how consume prints a message: a kcat format (the
// default text output is one too, as in kcat), kcat's -J envelope, or
// kdissect's own JSON.
type consumeOutput struct {
	ownJSON  bool        // --format json
	envelope bool        // -J
	kcatFmt  kcat.Format // otherwise
	delim    string      // after each -J envelope
	nullStr  []byte      // -Z
}

func (o *consumeOutput) write(w io.Writer, m *client.Message, broker int32) {
	switch {
	case o.ownJSON:
		writeMessage(w, m)
	case o.envelope:
		kcat.WriteJSON(w, m, broker, o.delim)
	default:
		o.kcatFmt.Write(w, m, o.nullStr)
	}
}

// ConsumeOptions are consume's flags, arguments and streams.
type ConsumeOptions struct {
	IO            cmdIO
	args          []string // the topics after -G GROUP
	fmtGiven      bool     // -f given: it wins over -D and -K
	keyDelimGiven bool     // -K given
	bf            brokerFlags
	topics        []string
	partitions    []int32
	offsets       []string
	exitAtEnd     bool
	count         int
	format        string
	kcatFormat    string
	envelope      bool
	keyDelim      string
	msgDelim      string
	printNull     bool
	query         bool
	quiet         bool
	readCommitted bool
	group         string
}

// output validates the output flags and builds the output.
func (a *ConsumeOptions) output() (*consumeOutput, error) {
	if a.format != "text" && a.format != "json" {
		return nil, fmt.Errorf("--format %q: want text or json", a.format)
	}
	if a.format == "json" && (a.fmtGiven || a.envelope) {
		return nil, fmt.Errorf("--format json excludes -f and -J")
	}
	if a.fmtGiven && a.envelope {
		return nil, fmt.Errorf("-f and -J exclude each other")
	}
	o := &consumeOutput{ownJSON: a.format == "json", envelope: a.envelope}
	if a.printNull {
		o.nullStr = []byte("NULL")
	}
	kd, err := unescapeDelim("-K", a.keyDelim)
	if err != nil {
		return nil, err
	}
	md, err := unescapeDelim("-D", a.msgDelim)
	if err != nil {
		return nil, err
	}
	o.delim = md
	switch {
	case a.fmtGiven:
		// -f wins over -D and -K, as in kcat.
		if o.kcatFmt, err = kcat.ParseFormat(a.kcatFormat); err != nil {
			return nil, formatFlagError(err)
		}
	case a.keyDelimGiven:
		o.kcatFmt = kcat.KeyValueFormat(kd, md)
	default:
		o.kcatFmt = kcat.ValueFormat(md)
	}
	return o, nil
}

// formatFlagError says which flag a kcat.FormatError is of, in one
// layer: errorLine would put ": " between wrapped ones.
func formatFlagError(err error) error {
	if fe := (*kcat.FormatError)(nil); errors.As(err, &fe) && fe.Token != 0 {
		return errors.New("-f: " + err.Error())
	}
	return errors.New("-f " + err.Error())
}

// startAndStop reads the -o flags: one start position and, optionally,
// e@MS, the timestamp to stop before (-1: none).
func (a *ConsumeOptions) startAndStop() (startOffset, int64, error) {
	start, stop, starts := startOffset{kind: "beginning"}, int64(-1), 0
	for _, o := range a.offsets {
		if ts, ok := strings.CutPrefix(o, "e@"); ok {
			n, err := strconv.ParseInt(ts, 10, 64)
			if err != nil || n < 0 {
				return start, stop, fmt.Errorf("-o %q: want e@MILLISECONDS", o)
			}
			stop = n
			continue
		}
		if starts++; starts > 1 {
			return start, stop, fmt.Errorf("-o %q: one start offset only (and e@MS to stop)", o)
		}
		var err error
		if start, err = parseStartOffset(o); err != nil {
			return start, stop, err
		}
	}
	return start, stop, nil
}

// newConsumeCmd is the consume command; runF, when not nil, runs instead
// of runConsume (tests parse the flags without connecting).
func newConsumeCmd(runF func(*ConsumeOptions) error) *cobra.Command {
	a := &ConsumeOptions{}
	cmd := &cobra.Command{
		Use:   "consume -b HOST:PORT -t TOPIC [-p N] [-o beginning|end|N] [-e] [-c N] [-f FMT | -J | --format json]\n  kdissect consume -b HOST:PORT -Q -t TOPIC:PARTITION:MS...",
		Short: "Consume messages and print them, one a line",
		Long: `consume fetches TOPIC's messages through kdissect's client and prints them,
with kcat's letters meaning what they mean in kcat -C:
  -p N       a partition (repeatable; default all); not the port, as -p is
             in read, live, stats and replay
  -o START   beginning, end, an offset N, -N (N before the end), s@MS (the
             first message at or after a timestamp); -o e@MS also stops
             each partition before its first message at or after MS
  -e         exit when every partition is read to its end
  -c N       exit after N messages
  -K DELIM   print the key, DELIM, then the value
  -D DELIM   after each message (default \n)
  -Z         print a null or empty key or value as NULL
  -f FMT     kcat's format: %s value, %S its length (-1 for null), %R that
             length as 4 big-endian bytes, %k key, %K its length, %t topic,
             %p partition, %o offset, %T timestamp (ms, -1 when none), %h
             headers (n=v,n2=v2; NULL for a null value), %% a %; escapes
             \n \r \t \xHH \NNN
  -J         kcat's JSON envelope, one a line:
             {"topic","partition","offset","tstype","ts","broker",
              "headers":[name,value,...],"key","payload"}
             (tstype and ts absent for magic 0 messages, headers when
             there are none; bytes as they are, as kcat writes them)
  -Q         print offsets by time instead: -t TOPIC:PARTITION:MS,
             repeatable (MS -1 for the end, -2 for the beginning); with
             -J as kcat -Q -J's object
  -G GROUP   consume as a member of a consumer group (kcat's balanced
             consumer): kdissect consume -b B -G GROUP TOPIC...; the
             group assigns the partitions (range), each starts at the
             group's committed offset (-o beginning or end for those
             without), what is printed is committed after each fetch, a
             rebalance is followed, and the group is left on exit
Without -e it waits for new messages until interrupted.

--format json prints kdissect's own object a line:
  {"topic","partition","offset","timestamp" (ms, null for magic 0),
   "key","value","headers":[{"key","value"}]}
with keys and values as UTF-8 strings when they are text, else
{"base64": "..."}; a damaged message also has "error". Reaching the end
of a partition is reported on stderr unless -q.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if a.group == "" && len(args) > 0 {
				return fmt.Errorf("unexpected arguments %q: the topic is -t TOPIC (topics are arguments with -G GROUP)", args)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			a.IO, a.args = ioOf(cmd), args
			a.fmtGiven, a.keyDelimGiven = cmd.Flags().Changed("fmt"), cmd.Flags().Changed("key-delim")
			if runF != nil {
				return runF(a)
			}
			return runConsume(a)
		},
	}
	f := cmd.Flags()
	a.bf.register(f)
	f.StringArrayVarP(&a.topics, "topic", "t", nil, "topic to consume (with -Q: TOPIC:PARTITION:MS, repeatable)")
	f.Int32SliceVarP(&a.partitions, "partition", "p", nil, "partition (repeatable; default all); the port is -p only in read, live, stats and replay")
	f.StringArrayVarP(&a.offsets, "offset", "o", nil, "start: beginning (default), end, N, -N (from the end), s@MS (timestamp); e@MS: stop before MS")
	f.BoolVarP(&a.exitAtEnd, "exit", "e", false, "exit when every partition is read to its end")
	f.IntVarP(&a.count, "count", "c", 0, "exit after this many messages (0: no limit)")
	f.StringVar(&a.format, "format", "text", "output: text or json (kdissect's JSON; -J is kcat's)")
	f.StringVarP(&a.kcatFormat, "fmt", "f", "", "kcat's output format (%s %S %R %k %K %t %p %o %T %h %%)")
	f.BoolVarP(&a.envelope, "json-envelope", "J", false, "kcat's JSON envelope")
	f.StringVarP(&a.keyDelim, "key-delim", "K", "", "text format: print the key, DELIM, then the value")
	f.StringVarP(&a.msgDelim, "delimiter", "D", "\n", "text and -J: printed after each message")
	f.BoolVarP(&a.printNull, "print-null", "Z", false, "print a null or empty key or value as NULL (kcat's -Z)")
	f.BoolVarP(&a.query, "query", "Q", false, "print the offsets of -t TOPIC:PARTITION:MS (kcat -Q)")
	f.BoolVarP(&a.quiet, "quiet", "q", false, "do not report reaching the end of a partition")
	f.BoolVar(&a.readCommitted, "read-committed", false, "skip aborted transactions and stop at the last stable offset")
	f.StringVarP(&a.group, "group", "G", "", "consume as a member of this consumer group (kcat -G GROUP TOPIC...): the group assigns the partitions, offsets are committed as they are printed")
	return cmd
}

// runConsume is consume: -Q's query, -G's group member, or a topic's
// partitions.
func runConsume(a *ConsumeOptions) error {
	if a.query {
		return runQuery(a)
	}
	if a.group != "" {
		topics := append(append([]string(nil), a.topics...), a.args...)
		if len(topics) == 0 {
			return fmt.Errorf("-G %s: topics are needed: -G GROUP TOPIC...", a.group)
		}
		return runGroupConsume(a, topics)
	}
	return runTopicConsume(a)
}

// runTopicConsume consumes the partitions of one topic.
func runTopicConsume(a *ConsumeOptions) error {
	if len(a.topics) != 1 || a.topics[0] == "" {
		return fmt.Errorf("one topic is needed: -t TOPIC")
	}
	topic := a.topics[0]
	start, stop, err := a.startAndStop()
	if err != nil {
		return err
	}
	outFmt, err := a.output()
	if err != nil {
		return err
	}
	if a.count < 0 {
		return fmt.Errorf("-c %d: want a count", a.count)
	}
	seen := map[int32]bool{}
	partitions := slices.DeleteFunc(a.partitions, func(p int32) bool {
		dup := seen[p]
		seen[p] = true
		return dup // -p 1 -p 1 reads partition 1 once, as kcat does
	})
	for _, p := range partitions {
		if p < 0 {
			return fmt.Errorf("-p %d: want a partition number", p)
		}
	}
	ctx, cl, done, err := a.bf.open(a.IO, nil)
	if err != nil {
		return err
	}
	defer done()
	// Partitions are fetched in turn, each waiting up to MaxWait
	// when idle: share half a second among them.
	n := len(partitions)
	if n == 0 {
		if p, err := cl.Partitions(ctx, topic); err == nil {
			n = int(p)
		}
	}
	cfg := client.ConsumerConfig{MaxWait: max(10*time.Millisecond, 500*time.Millisecond/time.Duration(max(n, 1)))}
	if a.exitAtEnd {
		cfg.MaxWait = min(cfg.MaxWait, 100*time.Millisecond)
	}
	if a.readCommitted {
		cfg.IsolationLevel = client.ReadCommitted
	}
	co := client.NewConsumer(cl, cfg)
	if len(partitions) == 0 {
		n, err := cl.Partitions(ctx, topic)
		if err != nil {
			return inputError{err}
		}
		for p := range n {
			partitions = append(partitions, p)
		}
	}
	var parts []*consumePartition
	for _, p := range partitions {
		off, err := resolveStart(ctx, co, topic, p, start)
		if err != nil {
			return inputError{err}
		}
		parts = append(parts, &consumePartition{p: p, next: off})
	}
	out := bufio.NewWriter(a.IO.out)
	defer out.Flush()
	stderr := a.IO.errOut
	printed := 0
	for {
		active := 0
		for _, cp := range parts {
			if cp.done {
				continue
			}
			active++
			fr, err := co.Fetch(ctx, topic, cp.p, cp.next)
			if err != nil {
				if ctx.Err() != nil {
					return nil // interrupted
				}
				return inputError{err}
			}
			broker := int32(-1)
			if outFmt.envelope && len(fr.Messages) > 0 {
				broker = leaderOf(ctx, cl, topic, cp.p)
			}
			for i := range fr.Messages {
				m := &fr.Messages[i]
				if stop >= 0 && kcat.Timestamp(m) >= stop {
					cp.done = true
					break
				}
				if !m.Valid {
					fmt.Fprintf(stderr, "%% %s [%d] offset %d: %v\n", topic, cp.p, m.Offset, m.Error)
				}
				outFmt.write(out, m, broker)
				printed++
				if a.count > 0 && printed >= a.count {
					if err := out.Flush(); err != nil {
						return inputError{fmt.Errorf("write output: %w", err)}
					}
					return nil
				}
			}
			if fr.NextOffset > cp.next {
				cp.next = fr.NextOffset
			}
			if len(fr.Messages) > 0 {
				if err := out.Flush(); err != nil {
					return inputError{fmt.Errorf("write output: %w", err)}
				}
			}
			a.atEnd(stderr, fr, topic, cp)
		}
		if active == 0 || ctx.Err() != nil {
			return nil
		}
	}
}

// atEnd marks cp done, and says so unless -q, when -e is given and cp
// reached the end of its partition: the high watermark, or the last
// stable offset with --read-committed.
func (a *ConsumeOptions) atEnd(stderr io.Writer, fr *client.FetchResult, topic string, cp *consumePartition) {
	end := fr.HighWatermark
	if a.readCommitted && fr.LastStableOffset >= 0 {
		end = fr.LastStableOffset
	}
	if a.exitAtEnd && cp.next >= end && !cp.done {
		cp.done = true
		if !a.quiet {
			fmt.Fprintf(stderr, "%% Reached end of topic %s [%d] at offset %d\n", topic, cp.p, cp.next)
		}
	}
}

// leaderOf is the node id of the partition's leader as the client's
// metadata has it, -1 when unknown: the "broker" of kcat's envelope.
func leaderOf(ctx context.Context, cl *client.Client, topic string, partition int32) int32 {
	tm, err := cl.Topic(ctx, topic, false)
	if err != nil {
		return -1
	}
	for _, p := range tm.Partitions {
		if p.Partition == partition {
			return p.Leader
		}
	}
	return -1
}

// resolveStart turns -o into an offset of partition p.
func resolveStart(ctx context.Context, co *client.Consumer, topic string, p int32, s startOffset) (int64, error) {
	switch s.kind {
	case "offset":
		return s.value, nil
	case "beginning":
		return co.EarliestOffset(ctx, topic, p)
	case "end":
		return co.LatestOffset(ctx, topic, p)
	case "relative":
		end, err := co.LatestOffset(ctx, topic, p)
		if err != nil {
			return 0, err
		}
		first, err := co.EarliestOffset(ctx, topic, p)
		if err != nil {
			return 0, err
		}
		return max(end-s.value, first), nil
	case "time":
		off, err := co.OffsetForTime(ctx, topic, p, time.UnixMilli(s.value))
		if err == nil && off < 0 {
			return co.LatestOffset(ctx, topic, p)
		}
		return off, err
	}
	return 0, errors.New("unknown start")
}

// writeMessage prints one message as kdissect's JSON object.
func writeMessage(w io.Writer, m *client.Message) {
	j := codec.NewJSONWriter(nil)
	j.BeginObject()
	j.Key("topic")
	j.String(m.Topic)
	j.Key("partition")
	j.Int(int64(m.Partition))
	j.Key("offset")
	j.Int(m.Offset)
	j.Key("timestamp")
	if m.Timestamp.IsZero() {
		j.Null()
	} else {
		j.Int(m.Timestamp.UnixMilli())
	}
	j.Key("key")
	j.ByteString(m.Key)
	j.Key("value")
	j.ByteString(m.Value)
	j.Key("headers")
	j.BeginArray()
	for _, h := range m.Headers {
		j.BeginObject()
		j.Key("key")
		j.String(h.Key)
		j.Key("value")
		j.ByteString(h.Value)
		j.EndObject()
	}
	j.EndArray()
	if m.Error != nil {
		j.Key("error")
		j.String(m.Error.Error())
	}
	j.EndObject()
	w.Write(j.Bytes())
	io.WriteString(w, "\n")
}
