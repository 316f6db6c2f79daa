package main

import (
	"bufio"
	"bytes"
	"fmt"
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

func newProduceCmd() *cobra.Command {
	var (
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
	)
	cmd := &cobra.Command{
		Use:   "produce -b HOST:PORT -t TOPIC [-p N] [-k KEY-DELIM] [-z CODEC]",
		Short: "Produce messages read from standard input, one a line",
		Long: `produce reads messages from standard input, one per line (-D changes the
delimiter), and sends them to TOPIC through kdissect's client, following
kcat's conventions: -p picks the partition (default: by key, murmur2 as the
Java client's partitioner, null keys in turn); -k/-K DELIM splits each line
into key and value at the first DELIM (a line without it has a null key);
--key gives every message the same key; -H adds a header; -z compresses
(none, gzip, snappy, lz4, zstd). Delimiters take kcat's escapes (\n, \r,
\t, \0, \\, \xHH); empty messages are skipped, as kcat does. Nothing is
printed on success.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if topic == "" {
				return fmt.Errorf("a topic is needed: -t TOPIC")
			}
			c, err := parseCompression(comp)
			if err != nil {
				return err
			}
			var a client.Acks
			switch acks {
			case 0:
				a = client.AcksNone
			case 1:
				a = client.AcksLeader
			case -1:
				a = client.AcksAll
			default:
				return fmt.Errorf("--acks %d: want -1, 0 or 1", acks)
			}
			if msgDelim, err = unescapeDelim("-D", msgDelim); err != nil {
				return err
			}
			if keyDelim, err = unescapeDelim("-k", keyDelim); err != nil {
				return err
			}
			if msgDelim == "" {
				return fmt.Errorf("-D: the message delimiter cannot be empty")
			}
			if keyDelim != "" && cmd.Flags().Changed("key") {
				return fmt.Errorf("-k/-K and --key exclude each other")
			}
			var hdrs []client.Header
			for _, h := range headers {
				k, v, ok := strings.Cut(h, "=")
				if !ok || k == "" {
					return fmt.Errorf("-H %q: want NAME=VALUE", h)
				}
				hdrs = append(hdrs, client.Header{Key: k, Value: []byte(v)})
			}
			if partition < -1 {
				return fmt.Errorf("-p %d: want a partition number", partition)
			}
			ctx, cancel := commandContext(cmd)
			defer cancel()
			cl, err := bf.connect(ctx, func(cfg *client.Config) { cfg.AllowAutoTopicCreation = true })
			if err != nil {
				return err
			}
			defer cl.Close()
			p, err := client.NewProducer(cl, client.ProducerConfig{Acks: a, Compression: c, Idempotent: idempotent, Timeout: bf.timeout})
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
				if partition >= 0 {
					_, err = p.Produce(ctx, topic, partition, batch...)
				} else {
					_, err = p.ProduceByKey(ctx, topic, batch...)
				}
				batch, size = batch[:0], 0
				if err != nil {
					return inputError{err}
				}
				return nil
			}
			sc := bufio.NewScanner(cmd.InOrStdin())
			sc.Buffer(make([]byte, 64<<10), maxProduceLine)
			sc.Split(splitOn([]byte(msgDelim)))
			for sc.Scan() {
				if len(sc.Bytes()) == 0 {
					continue // an empty line is no message, as with kcat
				}
				line := bytes.Clone(sc.Bytes())
				r := client.Record{Value: line, Headers: hdrs}
				switch {
				case keyDelim != "":
					if k, v, ok := bytes.Cut(line, []byte(keyDelim)); ok {
						r.Key, r.Value = k, v
					}
				case cmd.Flags().Changed("key"):
					r.Key = []byte(fixedKey)
				}
				batch = append(batch, r)
				size += len(r.Key) + len(r.Value)
				if len(batch) >= produceBatchRecords || size >= produceBatchBytes {
					if err := flush(); err != nil {
						return err
					}
				}
			}
			if err := sc.Err(); err != nil {
				return inputError{fmt.Errorf("reading standard input: %w", err)}
			}
			return flush()
		},
	}
	f := cmd.Flags()
	bf.register(f)
	f.StringVarP(&topic, "topic", "t", "", "topic to produce to")
	f.Int32VarP(&partition, "partition", "p", -1, "partition (default: by key hash, null keys in turn)")
	f.StringVarP(&keyDelim, "key-delimiter", "k", "", "split each line into key and value at the first DELIM (kcat's -K)")
	f.StringVarP(&keyDelim, "key-delim", "K", "", "same as -k (kcat's letter)")
	f.StringVar(&fixedKey, "key", "", "the key of every message")
	f.StringVarP(&msgDelim, "delimiter", "D", "\n", "message delimiter")
	f.StringVarP(&comp, "compression", "z", "none", "compression: none, gzip, snappy, lz4, zstd")
	f.IntVar(&acks, "acks", -1, "required acks: -1 (all in-sync replicas), 1 (leader), 0 (none: no answer is awaited)")
	f.BoolVar(&idempotent, "idempotent", false, "idempotent producer (producer id and sequence numbers; needs --acks -1)")
	f.StringArrayVarP(&headers, "header", "H", nil, "header NAME=VALUE added to every message (repeatable)")
	return cmd
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
