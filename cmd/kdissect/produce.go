package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kdissect/kdissect/client"
	"github.com/kdissect/kdissect/codec"
)

// Batching limits of the produce command: a request carries at most this
// many messages or (about) this many bytes.
const (
	produceBatchRecords = 1000
	produceBatchBytes   = 1 << 20
	maxProduceLine      = 100 << 20
)

// ProduceOptions are produce's flags, arguments and streams.
type ProduceOptions struct {
	IO         cmdIO
	files      []string // FILE...: each one message, or -l's one file of messages
	keyGiven   bool     // -k given (an empty key is a key)
	bf         brokerFlags
	topic      string
	partition  int32
	keyDelim   string
	fixedKey   string
	msgDelim   string
	comp       string
	acks       int
	idempotent bool
	headers    []string
	lineMode   bool
	nullEmpty  bool
}

// newProduceCmd is the produce command; runF, when not nil, runs instead
// of runProduce (tests parse the flags without connecting).
func newProduceCmd(runF func(*ProduceOptions) error) *cobra.Command {
	o := &ProduceOptions{}
	cmd := &cobra.Command{
		Use:   "produce -b HOST:PORT -t TOPIC [-p N] [-k KEY] [-K DELIM] [-z CODEC] [-l FILE | FILE...]",
		Short: "Produce messages read from standard input or files, one a line",
		Long: `produce reads messages from standard input, one per line (-D changes the
delimiter), and sends them to TOPIC through kdissect's client, with kcat's
letters meaning what they mean in kcat -P:
  -p N       the partition (not the port, as -p is in read, live, stats and
             replay); default: by key, murmur2 as the Java client's
             partitioner, null keys in turn
  -k KEY     the same key for every message (--key)
  -K DELIM   split each line into key and value at the first DELIM; a line
             without it has a null key, or -k's key when -k is given
  -H N=V     a header on every message (repeatable)
  -z CODEC   compression: none, gzip, snappy, lz4, zstd
  -Z         with -K, an empty key or value is sent as null
  FILE...    each file is one message, whole, as kcat does
  -l FILE    the messages of one FILE, split by -D as standard input is
Delimiters take kcat's escapes (\n, \r, \t, \0, \\, \xHH); empty
messages are skipped, as kcat does. Nothing is printed on success.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.lineMode && len(args) != 1 {
				return fmt.Errorf("-l reads exactly one FILE, got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, files []string) error {
			o.IO, o.files, o.keyGiven = ioOf(cmd), files, cmd.Flags().Changed("key")
			if runF != nil {
				return runF(o)
			}
			return runProduce(o)
		},
	}
	f := cmd.Flags()
	o.bf.register(f)
	f.StringVarP(&o.topic, "topic", "t", "", "topic to produce to")
	f.Int32VarP(&o.partition, "partition", "p", -1, "partition (default: by key hash, null keys in turn)")
	f.StringVarP(&o.fixedKey, "key", "k", "", "the key of every message (kcat's -k); a key found by -K wins")
	f.StringVarP(&o.keyDelim, "key-delim", "K", "", "split each line into key and value at the first DELIM")
	f.BoolVarP(&o.lineMode, "line-file", "l", false, "read the messages of the one FILE argument, split by -D (kcat's -l)")
	f.BoolVarP(&o.nullEmpty, "null-empty", "Z", false, "with -K, send an empty key or value as null (kcat's -Z)")
	f.StringVarP(&o.msgDelim, "delimiter", "D", "\n", "message delimiter")
	f.StringVarP(&o.comp, "compression", "z", "none", "compression: none, gzip, snappy, lz4, zstd")
	f.IntVar(&o.acks, "acks", -1, "required acks: -1 (all in-sync replicas), 1 (leader), 0 (none: no answer is awaited)")
	f.BoolVar(&o.idempotent, "idempotent", false, "idempotent producer (producer id and sequence numbers; needs --acks -1)")
	f.StringArrayVarP(&o.headers, "header", "H", nil, "header NAME=VALUE added to every message (repeatable)")
	return cmd
}

// runProduce reads the messages and produces them in batches.
func runProduce(o *ProduceOptions) error {
	if o.topic == "" {
		return fmt.Errorf("a topic is needed: -t TOPIC")
	}
	c, err := parseCompression(o.comp)
	if err != nil {
		return err
	}
	var a client.Acks
	switch o.acks {
	case 0:
		a = client.AcksNone
	case 1:
		a = client.AcksLeader
	case -1:
		a = client.AcksAll
	default:
		return fmt.Errorf("--acks %d: want -1, 0 or 1", o.acks)
	}
	msgDelim, err := unescapeDelim("-D", o.msgDelim)
	if err != nil {
		return err
	}
	keyDelim, err := unescapeDelim("-K", o.keyDelim)
	if err != nil {
		return err
	}
	if msgDelim == "" {
		return fmt.Errorf("-D: the message delimiter cannot be empty")
	}
	var key []byte // nil: null unless -K finds one
	if o.keyGiven {
		key = []byte(o.fixedKey)
	}
	var hdrs []client.Header
	for _, h := range o.headers {
		k, v, ok := strings.Cut(h, "=")
		if !ok || k == "" {
			return fmt.Errorf("-H %q: want NAME=VALUE", h)
		}
		hdrs = append(hdrs, client.Header{Key: k, Value: []byte(v)})
	}
	if o.partition < -1 {
		return fmt.Errorf("-p %d: want a partition number", o.partition)
	}
	// The key log is appended to as the connections start: never
	// a file being produced, whose lines would carry the keys out.
	inputs := inputFiles{captures: o.files, stdin: o.IO.in}
	if len(o.files) == 0 {
		inputs.captures = []string{"-"}
	}
	if err := refuseOverwritingInputs(inputs, outputFlag{"--tls-keylog", o.bf.tlsKeyLog}); err != nil {
		return err
	}
	ctx, cl, done, err := o.bf.open(o.IO, func(cfg *client.Config) { cfg.AllowAutoTopicCreation = true })
	if err != nil {
		return err
	}
	defer done()
	p, err := client.NewProducer(cl, client.ProducerConfig{Acks: a, Compression: c, Idempotent: o.idempotent, Timeout: o.bf.timeout})
	if err != nil {
		return err
	}
	var batch []client.Record
	size := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		var err error
		if o.partition >= 0 {
			_, err = p.Produce(ctx, o.topic, o.partition, batch...)
		} else {
			_, err = p.ProduceByKey(ctx, o.topic, batch...)
		}
		batch, size = batch[:0], 0
		if err != nil {
			return inputError{err}
		}
		return nil
	}
	add := func(r client.Record) error {
		batch = append(batch, r)
		size += len(r.Key) + len(r.Value)
		if len(batch) >= produceBatchRecords || size >= produceBatchBytes {
			return flush()
		}
		return nil
	}
	if len(o.files) > 0 && !o.lineMode {
		// kcat sends each file whole as one message.
		for _, name := range o.files {
			b, err := readWhole(name)
			if err != nil {
				return err
			}
			if err := add(client.Record{Key: key, Value: b, Headers: hdrs}); err != nil {
				return err
			}
		}
		return flush()
	}
	in, inName := o.IO.in, "standard input"
	if o.lineMode {
		fh, err := os.Open(o.files[0])
		if err != nil {
			return inputError{fmt.Errorf("-l: %w", err)}
		}
		defer fh.Close()
		in, inName = fh, o.files[0]
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), maxProduceLine)
	sc.Split(splitOn([]byte(msgDelim)))
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue // an empty line is no message, as with kcat
		}
		line := bytes.Clone(sc.Bytes())
		r := client.Record{Key: key, Value: line, Headers: hdrs}
		if keyDelim != "" {
			// A key found in the line wins over -k, as in kcat.
			if k, v, ok := bytes.Cut(line, []byte(keyDelim)); ok {
				r.Key, r.Value = k, v
				if o.nullEmpty && len(k) == 0 {
					r.Key = key // null, or -k's key, as kcat has it
				}
				if o.nullEmpty && len(v) == 0 {
					r.Value = nil
				}
			}
		}
		if err := add(r); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return inputError{fmt.Errorf("reading %s: %w", inName, err)}
	}
	return flush()
}

// readWhole reads one file given as an argument, bounded as a line is.
func readWhole(name string) ([]byte, error) {
	fh, err := os.Open(name)
	if err != nil {
		return nil, inputError{err}
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, maxProduceLine+1))
	if err != nil {
		return nil, inputError{fmt.Errorf("%s: %w", name, err)}
	}
	if len(b) > maxProduceLine {
		return nil, inputError{fmt.Errorf("%s: larger than %d MiB, the largest message produce sends", name, maxProduceLine>>20)}
	}
	return b, nil
}

func parseCompression(s string) (codec.Compression, error) {
	for _, c := range []codec.Compression{codec.CompressionNone, codec.CompressionGzip, codec.CompressionSnappy, codec.CompressionLZ4, codec.CompressionZstd} {
		if strings.EqualFold(s, c.String()) {
			return c, nil
		}
	}
	return 0, fmt.Errorf("-z %q: want none, gzip, snappy, lz4 or zstd", s)
}

// splitOn is a bufio.SplitFunc cutting at delim; a last piece without a
// delimiter is a token when it is not empty.
func splitOn(delim []byte) bufio.SplitFunc {
	return func(data []byte, atEOF bool) (int, []byte, error) {
		if i := bytes.Index(data, delim); i >= 0 {
			return i + len(delim), data[:i], nil
		}
		if atEOF {
			if len(data) > 0 {
				return len(data), data, nil
			}
		}
		return 0, nil, nil
	}
}
