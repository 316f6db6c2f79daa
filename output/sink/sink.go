// Package sink produces dissected exchanges to a Kafka topic, for
// `kdissect read|live --sink kafka://HOST:PORT/TOPIC`: one record per
// exchange, its value the JSON Lines object (render.JSONLines, without the
// newline), its key the broker address or the client id, its timestamp
// the capture time, its headers naming the sniffing host and what it read
// (interface or file). Records go through kdissect's own client.Producer,
// in batches, compressed, idempotent where the cluster supports it.
//
// A sink never holds the capture back: Add renders the exchange and
// queues it without waiting; when the queue is full (the sink broker is
// slow or down) the record is dropped and counted, so memory stays
// bounded (Config.MaxQueuedRecords, Config.MaxQueuedBytes) and the
// capture goes on.
package sink

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kdissect/kdissect/client"
	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/output/render"
)

// Key says what a record's key is.
type Key int

const (
	// KeyBroker keys each record by the broker's address (ip:port), so
	// that a broker's exchanges land on one partition, in order.
	KeyBroker Key = iota
	// KeyClientID keys it by the request's client id (null without one).
	KeyClientID
)

// ParseKey parses a --sink-key value: broker or client_id.
func ParseKey(s string) (Key, error) {
	switch s {
	case "broker":
		return KeyBroker, nil
	case "client_id":
		return KeyClientID, nil
	}
	return 0, fmt.Errorf("sink key %q: want broker or client_id", s)
}

// Header names of the records (KIP-82).
const (
	HeaderHost      = "kdissect.host"      // the sniffing host's name
	HeaderInterface = "kdissect.interface" // live: the interface captured on
	HeaderFile      = "kdissect.file"      // read: the capture file(s)
)

// Config configures a Sink.
type Config struct {
	Topic string
	Key   Key
	// Headers go on every record (HeaderHost, HeaderInterface or
	// HeaderFile).
	Headers []client.Header
	// ShowSecrets writes credentials into the JSON (render.NewJSONLines).
	ShowSecrets bool
	// MaxQueuedRecords and MaxQueuedBytes bound the records waiting to be
	// sent; beyond, Add drops. Defaults 10 000 records and 32 MiB.
	MaxQueuedRecords int
	MaxQueuedBytes   int64
	// MaxRecordBytes bounds one record's value (a broker's
	// message.max.bytes is 1 MiB by default); a larger exchange is
	// dropped. Default 1 MiB.
	MaxRecordBytes int
	// BatchRecords, BatchBytes and Linger make a batch: it is sent once
	// it holds BatchRecords records or BatchBytes bytes, or Linger after
	// its first record. Defaults 1000, 512 KiB, 100 ms.
	BatchRecords int
	BatchBytes   int
	Linger       time.Duration
	// SendTimeout bounds each batch's Produce, retries included. Default
	// 10 s.
	SendTimeout time.Duration
}

func (c *Config) defaults() {
	if c.MaxQueuedRecords <= 0 {
		c.MaxQueuedRecords = 10000
	}
	if c.MaxQueuedBytes <= 0 {
		c.MaxQueuedBytes = 32 << 20
	}
	if c.MaxRecordBytes <= 0 {
		c.MaxRecordBytes = 1 << 20
	}
	if c.BatchRecords <= 0 {
		c.BatchRecords = 1000
	}
	if c.BatchBytes <= 0 {
		c.BatchBytes = 512 << 10
	}
	if c.Linger <= 0 {
		c.Linger = 100 * time.Millisecond
	}
	if c.SendTimeout <= 0 {
		c.SendTimeout = 10 * time.Second
	}
}

// Counts are what became of the exchanges added so far.
type Counts struct {
	Added    uint64 // exchanges handed to Add
	Sent     uint64 // records the broker acknowledged
	Dropped  uint64 // not queued: the queue was full (the sink fell behind)
	TooLarge uint64 // not queued: the JSON exceeded MaxRecordBytes
	Failed   uint64 // queued, but their Produce failed (or Close gave up on them)
}

// Sink produces exchanges to a topic. Add is to be called from one
// goroutine; Counts from any.
type Sink struct {
	cfg   Config
	p     *client.Producer
	plain func() (*client.Producer, error) // a producer that is not idempotent, for an old cluster

	buf bytes.Buffer
	jl  *render.JSONLines

	queue       chan client.Record
	queuedBytes atomic.Int64
	ctx         context.Context // cancelled when Close gives up
	cancel      context.CancelFunc
	done        chan struct{}

	added, sent, dropped, tooLarge, failed atomic.Uint64

	mu       sync.Mutex
	firstErr error
}

// New starts a sink producing through p (idempotent or not: see
// client.ProducerConfig); plain, if not nil, makes a producer that is not
// idempotent, taken when the cluster does not support idempotence
// (InitProducerId, Produce v3+).
func New(p *client.Producer, plain func() (*client.Producer, error), cfg Config) *Sink {
	cfg.defaults()
	s := &Sink{cfg: cfg, p: p, plain: plain, queue: make(chan client.Record, cfg.MaxQueuedRecords), done: make(chan struct{})}
	s.jl = render.NewJSONLines(&s.buf, cfg.ShowSecrets)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	go s.run()
	return s
}

// Add renders ex (decoded) as its JSON Lines object and queues it as a
// record, without waiting: a full queue drops it.
func (s *Sink) Add(ex *dissect.Exchange) {
	s.buf.Reset()
	_ = s.jl.Write(ex) // into a bytes.Buffer: no error
	_ = s.jl.Flush()
	s.AddLine(ex, s.buf.Bytes())
}

// AddLine queues ex as Add does, with its JSON line already rendered
// (render.JSONLines, the newline optional); line is copied.
func (s *Sink) AddLine(ex *dissect.Exchange, line []byte) {
	s.add(ex, line, true)
}

// AddOwned is AddLine for a line the sink may keep: it is not copied.
func (s *Sink) AddOwned(ex *dissect.Exchange, line []byte) {
	s.add(ex, line, false)
}

func (s *Sink) add(ex *dissect.Exchange, line []byte, copyLine bool) {
	s.added.Add(1)
	value := bytes.TrimSuffix(line, []byte("\n"))
	if len(value) > s.cfg.MaxRecordBytes {
		s.tooLarge.Add(1)
		return
	}
	n := int64(len(value))
	if s.queuedBytes.Load()+n > s.cfg.MaxQueuedBytes {
		s.dropped.Add(1)
		return
	}
	if copyLine {
		value = bytes.Clone(value)
	}
	r := client.Record{Value: value, Headers: s.cfg.Headers, Timestamp: captureTime(ex)}
	switch s.cfg.Key {
	case KeyBroker:
		r.Key = []byte(ex.Broker.String())
	case KeyClientID:
		if ex.ClientID != nil {
			r.Key = []byte(*ex.ClientID)
		}
	}
	s.queuedBytes.Add(n)
	select {
	case s.queue <- r:
	default:
		s.queuedBytes.Add(-n)
		s.dropped.Add(1)
	}
}

// captureTime is the capture time of the exchange's first byte.
func captureTime(ex *dissect.Exchange) time.Time {
	switch {
	case ex.Request != nil:
		return ex.Request.Time
	case ex.Response != nil:
		return ex.Response.Time
	}
	return time.Now()
}

// run sends the queued records in batches until the queue is closed.
func (s *Sink) run() {
	defer close(s.done)
	var batch []client.Record
	size := 0
	linger := time.NewTimer(time.Hour)
	linger.Stop()
	flush := func() {
		if len(batch) > 0 {
			s.send(batch)
			s.queuedBytes.Add(-int64(size))
		}
		batch, size = nil, 0
		linger.Stop()
	}
	for {
		select {
		case r, ok := <-s.queue:
			if !ok {
				flush()
				return
			}
			batch = append(batch, r)
			size += len(r.Value)
			if len(batch) == 1 {
				linger.Reset(s.cfg.Linger)
			}
			if len(batch) >= s.cfg.BatchRecords || size >= s.cfg.BatchBytes {
				flush()
			}
		case <-linger.C:
			flush()
		}
	}
}

// send produces one batch, by key (murmur2, as the Java client's default
// partitioner), and counts what was acknowledged and what failed.
func (s *Sink) send(batch []client.Record) {
	if s.ctx.Err() != nil {
		s.fail(uint64(len(batch)), s.ctx.Err())
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.SendTimeout)
	defer cancel()
	res, err := s.p.ProduceByKey(ctx, s.cfg.Topic, batch...)
	if err != nil && errors.Is(err, client.ErrUnsupportedVersion) && s.plain != nil && len(res) == 0 {
		// The cluster cannot take idempotent batches: plain ones then.
		p, perr := s.plain()
		s.plain = nil
		if perr == nil {
			s.p = p
			res, err = s.p.ProduceByKey(ctx, s.cfg.Topic, batch...)
		}
	}
	var sent int
	for _, r := range res {
		sent += r.Records
	}
	s.sent.Add(uint64(sent))
	if err != nil {
		s.fail(uint64(len(batch)-sent), err)
	}
}

func (s *Sink) fail(n uint64, err error) {
	s.failed.Add(n)
	s.mu.Lock()
	if s.firstErr == nil {
		s.firstErr = err
	}
	s.mu.Unlock()
}

// Counts returns the counts so far.
func (s *Sink) Counts() Counts {
	return Counts{Added: s.added.Load(), Sent: s.sent.Load(), Dropped: s.dropped.Load(), TooLarge: s.tooLarge.Load(), Failed: s.failed.Load()}
}

// Err returns the first Produce error, nil if none.
func (s *Sink) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.firstErr
}

// Close sends what is queued, waiting at most wait; then it gives up on
// the rest (counted as failed) and returns the final counts.
func (s *Sink) Close(wait time.Duration) Counts {
	close(s.queue)
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-s.done:
	case <-t.C:
		s.cancel()
		<-s.done
	}
	s.cancel()
	return s.Counts()
}

// Summary says the counts in a line, for standard error.
func (c Counts) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d exchanges sent", c.Sent)
	if c.Dropped > 0 {
		fmt.Fprintf(&b, ", %d dropped (the sink fell behind: its queue was full)", c.Dropped)
	}
	if c.TooLarge > 0 {
		fmt.Fprintf(&b, ", %d dropped as too large for a record", c.TooLarge)
	}
	if c.Failed > 0 {
		fmt.Fprintf(&b, ", %d not acknowledged (the Produce failed)", c.Failed)
	}
	return b.String()
}
