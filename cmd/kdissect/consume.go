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

func newConsumeCmd() *cobra.Command {
	var (
		bf            brokerFlags
		topic         string
		partitions    []int32
		offset        string
		exitAtEnd     bool
		count         int
		format        string
		keyDelim      string
		quiet         bool
		readCommitted bool
	)
	cmd := &cobra.Command{
		Use:   "consume -b HOST:PORT -t TOPIC [-p N] [-o beginning|end|N] [-e] [-c N] [--format text|json]",
		Short: "Consume messages and print them, one a line",
		Long: `consume fetches TOPIC's messages through kdissect's client and prints them,
following kcat's conventions: -p picks partitions (default all), -o where to
start (beginning, end, an offset N, -N for N before the end, s@MS for the
first message at or after a timestamp), -e exits when every partition is
read to its end, -c exits after N messages. Without -e it waits for new
messages until interrupted.

--format text prints each value on a line (with -K DELIM, key DELIM value);
--format json prints one object a line:
  {"topic","partition","offset","timestamp" (ms, null for magic 0),
   "key","value","headers":[{"key","value"}]}
with keys and values as UTF-8 strings when they are text, else
{"base64": "..."}; a damaged message also has "error". Reaching the end
of a partition is reported on stderr unless -q.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if topic == "" {
				return fmt.Errorf("a topic is needed: -t TOPIC")
			}
			start, err := parseStartOffset(offset)
			if err != nil {
				return err
			}
			if format != "text" && format != "json" {
				return fmt.Errorf("--format %q: want text or json", format)
			}
			if count < 0 {
				return fmt.Errorf("-c %d: want a count", count)
			}
			if keyDelim, err = unescapeDelim("-K", keyDelim); err != nil {
				return err
			}
			seen := map[int32]bool{}
			partitions = slices.DeleteFunc(partitions, func(p int32) bool {
				dup := seen[p]
				seen[p] = true
				return dup // -p 1 -p 1 reads partition 1 once, as kcat does
			})
			for _, p := range partitions {
				if p < 0 {
					return fmt.Errorf("-p %d: want a partition number", p)
				}
			}
			ctx, cancel := commandContext(cmd)
			defer cancel()
			cl, err := bf.connect(ctx, nil)
			if err != nil {
				return err
			}
			defer cl.Close()
			// Partitions are fetched in turn, each waiting up to MaxWait
			// when idle: share half a second among them.
			n := len(partitions)
			if n == 0 {
				if p, err := cl.Partitions(ctx, topic); err == nil {
					n = int(p)
				}
			}
			cfg := client.ConsumerConfig{MaxWait: max(10*time.Millisecond, 500*time.Millisecond/time.Duration(max(n, 1)))}
			if exitAtEnd {
				cfg.MaxWait = min(cfg.MaxWait, 100*time.Millisecond)
			}
			if readCommitted {
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
			out := bufio.NewWriter(cmd.OutOrStdout())
			defer out.Flush()
			stderr := cmd.ErrOrStderr()
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
					for i := range fr.Messages {
						m := &fr.Messages[i]
						if !m.Valid {
							fmt.Fprintf(stderr, "%% %s [%d] offset %d: %v\n", topic, cp.p, m.Offset, m.Error)
						}
						writeMessage(out, m, format, keyDelim)
						printed++
						if count > 0 && printed >= count {
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
					end := fr.HighWatermark
					if readCommitted && fr.LastStableOffset >= 0 {
						end = fr.LastStableOffset
					}
					if exitAtEnd && cp.next >= end {
						cp.done = true
						if !quiet {
							fmt.Fprintf(stderr, "%% Reached end of topic %s [%d] at offset %d\n", topic, cp.p, cp.next)
						}
					}
				}
				if active == 0 || ctx.Err() != nil {
					return nil
				}
			}
		},
	}
	f := cmd.Flags()
	bf.register(f)
	f.StringVarP(&topic, "topic", "t", "", "topic to consume")
	f.Int32SliceVarP(&partitions, "partition", "p", nil, "partition (repeatable; default all)")
	f.StringVarP(&offset, "offset", "o", "beginning", "start: beginning, end, N, -N (from the end), s@MS (timestamp)")
	f.BoolVarP(&exitAtEnd, "exit", "e", false, "exit when every partition is read to its end")
	f.IntVarP(&count, "count", "c", 0, "exit after this many messages (0: no limit)")
	f.StringVar(&format, "format", "text", "output: text or json")
	f.StringVarP(&keyDelim, "key-delim", "K", "", "text format: print the key, DELIM, then the value")
	f.BoolVarP(&quiet, "quiet", "q", false, "do not report reaching the end of a partition")
	f.BoolVar(&readCommitted, "read-committed", false, "skip aborted transactions and stop at the last stable offset")
	return cmd
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

// writeMessage prints one message in the chosen format.
func writeMessage(w io.Writer, m *client.Message, format, keyDelim string) {
	if format == "text" {
		if keyDelim != "" {
			w.Write(m.Key)
			io.WriteString(w, keyDelim)
		}
		w.Write(m.Value)
		io.WriteString(w, "\n")
		return
	}
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
