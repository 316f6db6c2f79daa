package client

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kdissect/kdissect/codec"
)

// Acks is how many replicas must have written a Produce request before the
// broker answers (the request's Acks field). The zero value is
// AcksDefault: the leader, as the Perl package's
// $WAIT_WRITTEN_TO_LOCAL_LOG.
type Acks int8

const (
	AcksDefault Acks = iota // the leader (1), or all (-1) when idempotent
	AcksNone                // 0: no response is sent nor read
	AcksLeader              // 1: the leader wrote it
	AcksAll                 // -1: every in-sync replica wrote it
)

// wire returns the Acks field value.
func (a Acks) wire(idempotent bool) int16 {
	switch a {
	case AcksNone:
		return 0
	case AcksLeader:
		return 1
	case AcksAll:
		return -1
	}
	if idempotent {
		return -1
	}
	return 1
}

// Header is a record header (KIP-82): a string key and a nullable value.
type Header = codec.RecordHeader

// Record is one message to produce.
type Record struct {
	Key     []byte // nil: a null key
	Value   []byte // nil: a null value (a tombstone)
	Headers []Header
	// Timestamp is the record's CreateTime; the zero time means now.
	Timestamp time.Time
}

// ProducerConfig configures a Producer. The zero value produces with acks
// from the leader, no compression, not idempotent, with the client's
// request timeout as the Produce TimeoutMs.
type ProducerConfig struct {
	Acks        Acks
	Compression codec.Compression // any of the five; zstd needs Produce v7+ (KIP-110)
	// Idempotent makes the producer idempotent (KIP-98): it asks for a
	// producer id (InitProducerId), numbers every batch per partition,
	// and so may retry a Produce whose answer was lost without risking a
	// duplicate. It needs Produce v3+ and acks from all replicas
	// (AcksDefault or AcksAll).
	Idempotent bool
	// Timeout is the Produce request's TimeoutMs: how long the broker may
	// wait for replicas. Default the client's RequestTimeout (1.5 s).
	Timeout time.Duration
}

// ProduceResult tells where one partition's records went.
type ProduceResult struct {
	Topic     string
	Partition int32
	// BaseOffset is the offset of the first record; -1 with AcksNone, or
	// when the broker answered DUPLICATE_SEQUENCE_NUMBER without one.
	BaseOffset int64
	// LogAppendTime is the broker's append time when the topic uses
	// LogAppendTime, else the zero time.
	LogAppendTime time.Time
	// LogStartOffset is the partition's log start offset (Produce v5+),
	// else -1.
	LogStartOffset int64
	// Records is the number of records sent.
	Records int
}

// Producer sends records to topic-partitions through a Client: the Go
// successor of the Perl package's Kafka::Producer. It is safe for
// concurrent use; with Idempotent, requests to one partition are sent one
// after the other, so that sequence numbers arrive in order.
type Producer struct {
	cl  *Client
	cfg ProducerConfig

	rr atomic.Uint32 // round robin over partitions for null keys

	mu    sync.Mutex
	locks map[topicPartition]chan struct{}
	pid   int64 // -1 until InitProducerId answered
	epoch int16
	seqs  map[topicPartition]int32
}

type topicPartition struct {
	topic     string
	partition int32
}

// NewProducer returns a producer sending through cl. It fails with
// ErrInvalidArgument for an idempotent producer with acks other than all,
// or an unknown compression codec. The producer id of an idempotent
// producer is asked for on the first Produce.
func NewProducer(cl *Client, cfg ProducerConfig) (*Producer, error) {
	if cfg.Idempotent && cfg.Acks != AcksDefault && cfg.Acks != AcksAll {
		return nil, clientError(ErrInvalidArgument, "an idempotent producer needs acks from all replicas", nil)
	}
	if cfg.Compression < codec.CompressionNone || cfg.Compression > codec.CompressionZstd {
		return nil, clientError(ErrInvalidArgument, fmt.Sprintf("unknown compression %d", cfg.Compression), nil)
	}
	return &Producer{cl: cl, cfg: cfg, locks: map[topicPartition]chan struct{}{}, seqs: map[topicPartition]int32{}, pid: -1}, nil
}

// Produce sends recs to topic[partition] in one batch and returns where
// they went. Retriable errors are retried (up to Config.MaxAttempts
// attempts, metadata refreshed between them) only when a duplicate cannot
// result: always when the broker rejected the batch before writing it
// (NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION, connection failures
// before the request was written...), and after an unknown outcome
// (ErrNoAcknowledgement, REQUEST_TIMED_OUT, NOT_ENOUGH_REPLICAS_AFTER_APPEND)
// only when the producer is idempotent. The errors are *Error values about
// the topic-partition.
func (p *Producer) Produce(ctx context.Context, topic string, partition int32, recs ...Record) (ProduceResult, error) {
	if len(recs) == 0 {
		return ProduceResult{Topic: topic, Partition: partition, BaseOffset: -1, LogStartOffset: -1}, nil
	}
	if partition < 0 {
		return ProduceResult{}, clientError(ErrInvalidArgument, fmt.Sprintf("partition %d", partition), nil)
	}
	tp := topicPartition{topic, partition}
	if p.cfg.Idempotent {
		unlock, err := p.lock(ctx, tp)
		if err != nil {
			return ProduceResult{}, err
		}
		defer unlock()
	}
	var res ProduceResult
	retryable := func(err error) bool {
		if !isRetriable(err) {
			return false
		}
		return p.cfg.Idempotent || !maybeWritten(err)
	}
	refresh := func(ctx context.Context, _ error) { p.cl.refreshTopic(ctx, topic) }
	pid, epoch, seq := int64(-1), int16(-1), int32(-1)
	if p.cfg.Idempotent {
		var err error
		if pid, epoch, err = p.producerID(ctx); err != nil {
			return ProduceResult{}, err
		}
		p.mu.Lock()
		seq = p.seqs[tp]
		p.mu.Unlock()
	}
	err := p.cl.retry(ctx, retryable, refresh, func(ctx context.Context) error {
		var err error
		res, err = p.produceOnce(ctx, tp, recs, pid, epoch, seq)
		return err
	})
	if p.cfg.Idempotent {
		p.mu.Lock()
		if err == nil {
			p.seqs[tp] = int32((int64(seq) + int64(len(recs))) % (math.MaxInt32 + 1))
		} else if p.pid == pid {
			// The outcome may be unknown: start over with a new producer
			// id rather than risk a sequence the broker would take for a
			// duplicate.
			p.pid = -1
			clear(p.seqs)
		}
		p.mu.Unlock()
	}
	return res, err
}

// ProduceByKey sends recs to topic, each to the partition its key picks
// (KeyPartition: murmur2, as the Java client's default partitioner), a
// null key to the partitions in turn. It returns one result per partition
// written, in the order the partitions were first picked; on error, the
// results of the partitions written before it.
func (p *Producer) ProduceByKey(ctx context.Context, topic string, recs ...Record) ([]ProduceResult, error) {
	n, err := p.cl.Partitions(ctx, topic)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, kafkaError(ErrUnknownTopicOrPartition.code).with(topic, -1, "the topic has no partitions", nil)
	}
	var order []int32
	groups := map[int32][]Record{}
	for _, r := range recs {
		var part int32
		if r.Key != nil {
			part = KeyPartition(r.Key, n)
		} else {
			part = int32(p.rr.Add(1)-1) % n
		}
		if _, ok := groups[part]; !ok {
			order = append(order, part)
		}
		groups[part] = append(groups[part], r)
	}
	var out []ProduceResult
	for _, part := range order {
		res, err := p.Produce(ctx, topic, part, groups[part]...)
		if err != nil {
			return out, err
		}
		out = append(out, res)
	}
	return out, nil
}

// maybeWritten reports whether err leaves it unknown whether the broker
// wrote the batch.
func maybeWritten(err error) bool {
	return errors.Is(err, ErrNoAcknowledgement) || errors.Is(err, ErrRequestTimedOut) ||
		errors.Is(err, ErrNotEnoughReplicasAfterAppend) || errors.Is(err, ErrNetworkException) ||
		errors.Is(err, ErrCorrelationMismatch)
}

// lock serializes the requests to one partition.
func (p *Producer) lock(ctx context.Context, tp topicPartition) (func(), error) {
	p.mu.Lock()
	l, ok := p.locks[tp]
	if !ok {
		l = make(chan struct{}, 1)
		p.locks[tp] = l
	}
	p.mu.Unlock()
	select {
	case l <- struct{}{}:
		return func() { <-l }, nil
	case <-ctx.Done():
		return nil, clientError(ErrTimeout, "waiting for the partition's previous request", ctx.Err())
	}
}

// producerID returns the producer id and epoch, asking for them with
// InitProducerId (KIP-98; no TransactionalId) when there are none.
func (p *Producer) producerID(ctx context.Context) (int64, int16, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pid >= 0 {
		return p.pid, p.epoch, nil
	}
	var pid int64
	var epoch int16
	err := p.cl.retry(ctx, isRetriable, nil, func(ctx context.Context) error {
		cn, err := p.cl.anyConn(ctx)
		if err != nil {
			return err
		}
		v, err := cn.Version(22)
		if err != nil {
			return err
		}
		req := &codec.InitProducerIdRequest{TransactionTimeoutMs: int32(p.timeout().Milliseconds()), ProducerId: -1, ProducerEpoch: -1}
		m, err := cn.RoundTrip(ctx, req, v)
		if err != nil {
			return err
		}
		r := m.(*codec.InitProducerIdResponse)
		if err := ErrorForCode(r.ErrorCode); err != nil {
			return err
		}
		pid, epoch = r.ProducerId, r.ProducerEpoch
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	p.pid, p.epoch = pid, epoch
	clear(p.seqs)
	return pid, epoch, nil
}

func (p *Producer) timeout() time.Duration {
	if p.cfg.Timeout > 0 {
		return p.cfg.Timeout
	}
	return p.cl.cfg.requestTimeout()
}

// produceOnce sends one Produce request for one partition to its leader.
func (p *Producer) produceOnce(ctx context.Context, tp topicPartition, recs []Record, pid int64, epoch int16, seq int32) (ProduceResult, error) {
	res := ProduceResult{Topic: tp.topic, Partition: tp.partition, BaseOffset: -1, LogStartOffset: -1, Records: len(recs)}
	cn, topicID, err := p.cl.leader(ctx, tp.topic, tp.partition)
	if err != nil {
		return res, err
	}
	v, err := cn.Version(0)
	if err != nil {
		return res, err
	}
	if v >= 13 && topicID.IsZero() {
		v = 12 // no topic ID known (Metadata before v10): name the topic
	}
	raw, err := p.encodeRecords(v, recs, pid, epoch, seq)
	if err != nil {
		return res, err
	}
	acks := p.cfg.Acks.wire(p.cfg.Idempotent)
	req := &codec.ProduceRequest{
		Acks:      acks,
		TimeoutMs: int32(p.timeout().Milliseconds()),
		TopicData: []codec.ProduceRequestTopicProduceData{{
			Name:          tp.topic,
			TopicId:       topicID,
			PartitionData: []codec.ProduceRequestPartitionProduceData{{Index: tp.partition, Records: codec.Records{Raw: raw}}},
		}},
	}
	m, err := cn.RoundTrip(ctx, req, v)
	if err != nil {
		return res, withTP(err, tp)
	}
	if acks == 0 {
		return res, nil
	}
	resp := m.(*codec.ProduceResponse)
	for _, t := range resp.Responses {
		if v >= 13 {
			if t.TopicId != topicID {
				continue
			}
		} else if t.Name != tp.topic {
			continue
		}
		for _, pr := range t.PartitionResponses {
			if pr.Index != tp.partition {
				continue
			}
			if pr.ErrorCode == ErrDuplicateSequenceNumber.code && pid >= 0 {
				pr.ErrorCode = 0 // already written: the broker says so (KIP-98)
			}
			if pr.ErrorCode != 0 {
				msg := pr.ErrorMessage
				if len(pr.RecordErrors) > 0 {
					s := ""
					if msg != nil {
						s = *msg
					}
					for _, re := range pr.RecordErrors {
						if re.BatchIndexErrorMessage != nil {
							s += fmt.Sprintf("; record %d: %s", re.BatchIndex, *re.BatchIndexErrorMessage)
						} else {
							s += fmt.Sprintf("; record %d", re.BatchIndex)
						}
					}
					msg = &s
				}
				return res, partitionError(pr.ErrorCode, tp.topic, tp.partition, msg)
			}
			res.BaseOffset = pr.BaseOffset
			if v >= 2 && pr.LogAppendTimeMs >= 0 {
				res.LogAppendTime = time.UnixMilli(pr.LogAppendTimeMs)
			}
			if v >= 5 {
				res.LogStartOffset = pr.LogStartOffset
			}
			return res, nil
		}
	}
	return res, clientError(ErrBadResponse, fmt.Sprintf("the Produce response does not answer %s[%d]", tp.topic, tp.partition), nil)
}

// withTP adds the topic-partition to a client-side *Error.
func withTP(err error, tp topicPartition) error {
	var e *Error
	if errors.As(err, &e) && e.Topic == "" {
		c := *e
		c.Topic, c.Partition = tp.topic, tp.partition
		return &c
	}
	return err
}

// encodeRecords encodes recs as Produce version v carries them: a v2
// record batch from v3 (with the producer id, epoch and first sequence
// when idempotent), a magic 1 message set at v2, magic 0 below.
func (p *Producer) encodeRecords(v int16, recs []Record, pid int64, epoch int16, seq int32) ([]byte, error) {
	c := p.cfg.Compression
	if c == codec.CompressionZstd && v < 7 {
		return nil, clientError(ErrUnsupportedCompressionType, fmt.Sprintf("zstd needs Produce v7+ (KIP-110), the broker speaks v%d", v), nil)
	}
	if pid >= 0 && v < 3 {
		return nil, clientError(ErrUnsupportedVersion, fmt.Sprintf("an idempotent producer needs Produce v3+, the broker speaks v%d", v), nil)
	}
	now := time.Now()
	ts := func(r *Record) int64 {
		if r.Timestamp.IsZero() {
			return now.UnixMilli()
		}
		return r.Timestamp.UnixMilli()
	}
	if v >= 3 {
		b := codec.RecordBatch{
			PartitionLeaderEpoch: -1,
			Attributes:           int16(c),
			LastOffsetDelta:      int32(len(recs) - 1),
			ProducerId:           -1,
			ProducerEpoch:        -1,
			BaseSequence:         -1,
			Records:              make([]codec.Record, len(recs)),
		}
		if pid >= 0 {
			b.ProducerId, b.ProducerEpoch, b.BaseSequence = pid, epoch, seq
		}
		b.BaseTimestamp = ts(&recs[0])
		b.MaxTimestamp = b.BaseTimestamp
		for i := range recs {
			t := ts(&recs[i])
			b.BaseTimestamp = min(b.BaseTimestamp, t)
			b.MaxTimestamp = max(b.MaxTimestamp, t)
		}
		for i := range recs {
			b.Records[i] = codec.Record{
				TimestampDelta: ts(&recs[i]) - b.BaseTimestamp,
				OffsetDelta:    int32(i),
				Key:            recs[i].Key,
				Value:          recs[i].Value,
				Headers:        recs[i].Headers,
			}
		}
		return b.AppendTo(nil), nil
	}
	magic := int8(0)
	if v == 2 {
		magic = 1
	}
	msgs := make([]codec.LegacyMessage, len(recs))
	for i := range recs {
		if len(recs[i].Headers) > 0 {
			return nil, clientError(ErrUnsupportedVersion, fmt.Sprintf("record headers need Produce v3+ (KIP-82), the broker speaks v%d", v), nil)
		}
		msgs[i] = codec.LegacyMessage{Offset: int64(i), Key: recs[i].Key, Value: recs[i].Value}
		if magic == 1 {
			msgs[i].Timestamp = ts(&recs[i])
		}
	}
	return codec.AppendMessageSet(nil, magic, c, msgs), nil
}
