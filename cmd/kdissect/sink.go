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
	"github.com/kdissect/kdissect/output"
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

// tap returns the view's tap (nil: -q's, none) with the sink beside it:
// each exchange is queued to the sink, then handed to the view. The
// sink's JSON line of each exchange is rendered on every core, unless
// the view's is that line already (--format json): the sink then takes a
// copy of the view's. Without --sink, the view's tap.
func (r *sinkRun) tap(view output.Tap) output.Tap {
	if r == nil {
		return view
	}
	if j, ok := view.(render.JSONLinesTap); ok {
		return jsonSinkTap{j, r.s}
	}
	return &sinkTap{view: view, s: r.s, lines: render.NewJSONLines(io.Discard, r.showSecrets)}
}

// jsonSinkTap is --format json with --sink: the sink takes a copy of each
// line the view renders.
type jsonSinkTap struct {
	render.JSONLinesTap
	s *sink.Sink
}

func (t jsonSinkTap) Add(ex *dissect.Exchange) error {
	t.s.Add(ex)
	return t.JSONLinesTap.Add(ex)
}

func (t jsonSinkTap) AddRendered(ex *dissect.Exchange, l any) error {
	line := l.(*render.Line)
	t.s.AddOwned(ex, line.AppendTo(make([]byte, 0, line.Len()))) // one copy, the record's
	return t.JSONLinesTap.AddRendered(ex, l)
}

// sinkTap is a view (nil: none) with --sink: the sink's JSON line is
// rendered with the view's rendering, on a worker.
type sinkTap struct {
	view  output.Tap
	s     *sink.Sink
	lines *render.JSONLines // renders the sink's lines, to io.Discard, and recycles them
}

// sinkRendered is what sinkTap rendered of an exchange.
type sinkRendered struct {
	view any // the view's rendering, nil when it is no output.Renderer
	line *render.Line
}

func (t *sinkTap) Add(ex *dissect.Exchange) error {
	t.s.Add(ex)
	if t.view == nil {
		return nil
	}
	return t.view.Add(ex)
}

func (t *sinkTap) Render(ex *dissect.Exchange) (any, int64) {
	var r sinkRendered
	var n int64
	if v, ok := t.view.(output.Renderer); ok {
		r.view, n = v.Render(ex)
	}
	r.line = t.lines.RenderLine(ex)
	return &r, n + int64(r.line.Len())
}

func (t *sinkTap) AddRendered(ex *dissect.Exchange, p any) error {
	r := p.(*sinkRendered)
	t.s.AddOwned(ex, r.line.AppendTo(make([]byte, 0, r.line.Len()))) // one copy, the record's
	_ = t.lines.WriteLine(r.line)                                    // to io.Discard: recycles its parts
	if v, ok := t.view.(output.Renderer); ok {
		return v.AddRendered(ex, r.view)
	}
	if t.view == nil {
		return nil
	}
	return t.view.Add(ex)
}

func (t *sinkTap) Sync() error {
	if s, ok := t.view.(output.Syncer); ok {
		return s.Sync()
	}
	return nil
}

func (t *sinkTap) SetOrigin(at time.Time) {
	if o, ok := t.view.(output.OriginSetter); ok {
		o.SetOrigin(at)
	}
}

func (t *sinkTap) Close() error {
	if t.view == nil {
		return nil
	}
	return t.view.Close()
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
