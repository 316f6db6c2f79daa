package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/kdissect/kdissect/client"
	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/output/metrics"
	"github.com/kdissect/kdissect/output/render"
	"github.com/kdissect/kdissect/output/sink"
)

// This file wires --sink kafka://HOST:PORT/TOPIC (package output/sink)
// into read and live, with the TLS and SASL flags of the client commands
// under --sink-*.

// sinkFlags are --sink and its options.
type sinkFlags struct {
	url         string
	key         string
	compression string
	queue       int
	wait        time.Duration
	bf          brokerFlags // TLS, SASL, -X properties of the sink's client
}

func (f *sinkFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.url, "sink", "", "also produce each exchange, as its JSON Lines object, to a Kafka topic: kafka://HOST:PORT[,HOST:PORT...]/TOPIC")
	fs.StringVar(&f.key, "sink-key", "broker", "record key of --sink: broker (the broker's ip:port) or client_id")
	fs.StringVar(&f.compression, "sink-compression", "lz4", "compression of --sink's batches: none, gzip, snappy, lz4, zstd")
	fs.IntVar(&f.queue, "sink-queue", 10000, "records --sink holds while its broker is slow or down; beyond, exchanges are dropped from the sink (and counted), never held back from the capture")
	fs.DurationVar(&f.wait, "sink-flush-timeout", 10*time.Second, "at the end, how long --sink may take to send what it holds (also each batch's Produce timeout)")
	b := &f.bf
	fs.BoolVar(&b.tls, "sink-tls", false, "--sink connects with TLS (system roots unless --sink-tls-ca)")
	fs.StringVar(&b.tlsCA, "sink-tls-ca", "", "--sink: PEM file of the CA certificates to trust (implies --sink-tls)")
	fs.BoolVar(&b.tlsInsecure, "sink-tls-insecure", false, "--sink: do not verify the broker's certificate (implies --sink-tls)")
	fs.StringVar(&b.tlsCert, "sink-tls-cert", "", "--sink: PEM file of the client certificate, for mutual TLS (with --sink-tls-key)")
	fs.StringVar(&b.tlsKey, "sink-tls-key", "", "--sink: PEM file of the client certificate's private key")
	fs.StringVar(&b.saslMech, "sink-sasl-mechanism", "", "--sink: SASL mechanism: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER or AWS_MSK_IAM")
	fs.StringVar(&b.saslUser, "sink-sasl-user", "", "--sink: SASL user name")
	fs.StringVar(&b.saslPassword, "sink-sasl-password", "", "--sink: SASL password (default $KDISSECT_SASL_PASSWORD)")
	fs.StringVar(&b.saslToken, "sink-sasl-token", "", "--sink: OAUTHBEARER token (default $KDISSECT_SASL_TOKEN)")
	fs.StringArrayVar(&b.props, "sink-property", nil, "--sink: client property NAME=VALUE with librdkafka/Java names (security.protocol, sasl.mechanism, ssl.ca.location, ...), repeatable")
	fs.StringArrayVar(&b.propFiles, "sink-config", nil, "--sink: file of NAME=VALUE client properties (kcat's -F)")
}

// parseSinkURL splits kafka://HOST:PORT[,HOST:PORT]/TOPIC.
func parseSinkURL(u string) (brokers []string, topic string, err error) {
	rest, ok := strings.CutPrefix(u, "kafka://")
	if !ok {
		return nil, "", fmt.Errorf("--sink %q: want kafka://HOST:PORT/TOPIC", u)
	}
	hosts, topic, ok := strings.Cut(rest, "/")
	if !ok || hosts == "" || topic == "" || strings.Contains(topic, "/") {
		return nil, "", fmt.Errorf("--sink %q: want kafka://HOST:PORT/TOPIC", u)
	}
	for _, r := range topic {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') || len(topic) > 249 {
			return nil, "", fmt.Errorf("--sink %q: topic %q: Kafka topic names are up to 249 of a-z A-Z 0-9 . _ -", u, topic)
		}
	}
	return strings.Split(hosts, ","), topic, nil
}

// sinkRun is a running sink.
type sinkRun struct {
	s    *sink.Sink
	cl   *client.Client
	url  string
	wait time.Duration
	done func()

	showSecrets bool
	ownLines    bool              // the pipeline renders the sink's lines (renderer)
	lines       *render.JSONLines // renders them, to io.Discard, and recycles them
}

// start connects to the sink's cluster and starts the sink; nil without
// --sink. source names what is read, for the record headers: the
// interface (live) or the files (read).
func (f *sinkFlags) start(ctx context.Context, showSecrets bool, sourceHeader, source string, stderr io.Writer) (*sinkRun, error) {
	if f.url == "" {
		return nil, nil
	}
	brokers, topic, err := parseSinkURL(f.url)
	if err != nil {
		return nil, err
	}
	key, err := sink.ParseKey(f.key)
	if err != nil {
		return nil, fmt.Errorf("--sink-key: %w", err)
	}
	comp, err := parseCompression(f.compression)
	if err != nil {
		return nil, fmt.Errorf("--sink-compression: %w", err)
	}
	if f.queue <= 0 {
		return nil, fmt.Errorf("--sink-queue must be positive")
	}
	if f.wait <= 0 {
		return nil, fmt.Errorf("--sink-flush-timeout must be positive")
	}
	f.bf.brokers = brokers
	f.bf.timeout = client.DefaultRequestTimeout
	f.bf.clientID = "kdissect-sink"
	cl, err := f.bf.connect(ctx, func(cfg *client.Config) { cfg.AllowAutoTopicCreation = true })
	for _, name := range f.bf.ignored {
		fmt.Fprintf(stderr, "kdissect: warning: --sink property %s is a Kafka client setting kdissect does not use: ignored\n", name)
	}
	if err != nil {
		f.bf.closeKeyLog()
		return nil, fmt.Errorf("--sink %s: %w", f.url, err)
	}
	pcfg := client.ProducerConfig{Compression: comp, Idempotent: true}
	p, err := client.NewProducer(cl, pcfg)
	if err != nil {
		cl.Close()
		return nil, err
	}
	plain := func() (*client.Producer, error) {
		pcfg.Idempotent = false
		return client.NewProducer(cl, pcfg)
	}
	host, err := os.Hostname()
	if err != nil {
		host = "unknown"
	}
	s := sink.New(p, plain, sink.Config{
		Topic:            topic,
		Key:              key,
		Headers:          []client.Header{{Key: sink.HeaderHost, Value: []byte(host)}, {Key: sourceHeader, Value: []byte(source)}},
		ShowSecrets:      showSecrets,
		MaxQueuedRecords: f.queue,
		SendTimeout:      f.wait,
	})
	return &sinkRun{s: s, cl: cl, url: f.url, wait: f.wait, done: f.bf.closeKeyLog, showSecrets: showSecrets}, nil
}

// add queues a decoded exchange.
func (r *sinkRun) add(ex *dissect.Exchange) {
	if r != nil && ex != nil {
		r.s.Add(ex)
	}
}

// addLine queues a decoded exchange whose JSON line was rendered already
// (nil: it is rendered here): --format json's, which the output then
// writes, or the sink's own (sinkRenderer), whose parts are recycled here.
func (r *sinkRun) addLine(ex *dissect.Exchange, l *render.Line) {
	if r == nil || ex == nil {
		return
	}
	if l == nil {
		r.s.Add(ex)
		return
	}
	r.s.AddOwned(ex, l.AppendTo(make([]byte, 0, l.Len()))) // one copy, the record's
	if r.ownLines {
		_ = r.lines.WriteLine(l) // to io.Discard: recycles its parts
	}
}

// renderer returns the pipeline's concurrent renderer for an output whose
// own is inner (nil: none) with the sink on: one that also renders the
// sink's JSON line of each exchange, on every core, unless the output's
// is that line already (--format json).
func (r *sinkRun) renderer(inner concurrentRenderer, out exchangeWriter) concurrentRenderer {
	if r == nil {
		return inner
	}
	if _, ok := inner.(jsonRenderer); ok {
		return inner
	}
	r.ownLines = true
	r.lines = render.NewJSONLines(io.Discard, r.showSecrets)
	return sinkRenderer{inner: inner, out: out, lines: r.lines}
}

// sinkRenderer renders an exchange for the output (inner, when it has a
// concurrent side) and its JSON line for the sink, into exchangeJob.line.
type sinkRenderer struct {
	inner concurrentRenderer // nil: the output renders as it writes
	out   exchangeWriter
	lines *render.JSONLines
}

func (s sinkRenderer) render(j *exchangeJob) int64 {
	var n int64
	if s.inner != nil {
		n = s.inner.render(j)
	}
	j.line = s.lines.RenderLine(j.ex)
	return n + int64(j.line.Len())
}

func (s sinkRenderer) write(j *exchangeJob) error {
	if s.inner != nil {
		return s.inner.write(j)
	}
	return s.out.Write(j.ex)
}

// counted has the metrics serve the sink's counts.
func (r *sinkRun) counted(mx *metricsServer) {
	if r == nil || mx == nil {
		return
	}
	mx.c.SetSink(func() metrics.SinkCounts {
		c := r.s.Counts()
		return metrics.SinkCounts{Sent: c.Sent, Dropped: c.Dropped, TooLarge: c.TooLarge, Failed: c.Failed}
	})
}

// close sends what the sink holds (for --sink-flush-timeout at most),
// closes its client, and says on stderr what became of the exchanges.
func (r *sinkRun) close(stderr io.Writer) {
	if r == nil {
		return
	}
	c := r.s.Close(r.wait)
	r.cl.Close()
	r.done()
	fmt.Fprintf(stderr, "kdissect: sink %s: %s", r.url, c.Summary())
	if err := r.s.Err(); err != nil {
		fmt.Fprintf(stderr, " (first error: %v)", err)
	}
	fmt.Fprintln(stderr)
}
