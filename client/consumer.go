package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/kdissect/kdissect/codec"
)

// Special ListOffsets timestamps (Kafka's ListOffsetsRequest constants).
const (
	OffsetLatest       int64 = -1 // the offset after the last record (the high watermark, or the LSO under ReadCommitted)
	OffsetEarliest     int64 = -2 // the log start offset
	OffsetMaxTimestamp int64 = -3 // the record with the largest timestamp (KIP-734, ListOffsets v7+)
)

// IsolationLevel says which records a fetch sees (KIP-98).
type IsolationLevel int8

const (
	ReadUncommitted IsolationLevel = 0 // every record, aborted transactions included
	ReadCommitted   IsolationLevel = 1 // up to the last stable offset, aborted transactions skipped
)

// Defaults of ConsumerConfig, as the Perl package had them
// ($DEFAULT_MAX_BYTES 1,000,000, $DEFAULT_MAX_WAIT_TIME 0.1 s).
const (
	DefaultFetchMaxBytes = 1000000
	DefaultFetchMaxWait  = 100 * time.Millisecond
)

// ConsumerConfig configures a Consumer; zero fields take the defaults.
type ConsumerConfig struct {
	// MaxBytes is the most record bytes one Fetch returns for a partition
	// (PartitionMaxBytes, and MaxBytes from Fetch v3). Default 1,000,000.
	// From v3 a broker returns a first batch larger than this whole
	// (KIP-74); before, such a batch comes back partial, and Fetch asks
	// again with twice the size, up to 64 MiB.
	MaxBytes int32
	// MinBytes is how many bytes the broker waits for, up to MaxWait,
	// before answering. Default 1: answer as soon as there is a record.
	MinBytes int32
	// MaxWait is how long the broker may wait for MinBytes (MaxWaitMs).
	// Default 100 ms.
	MaxWait time.Duration
	// IsolationLevel applies from Fetch v4 and ListOffsets v2.
	IsolationLevel IsolationLevel
	// MaxDecompressedBytes caps one batch's decompressed size (0: the
	// codec's default, 64 MiB).
	MaxDecompressedBytes int64
}

// Consumer fetches records and offsets through a Client, and reads and
// commits a group's offsets: the Go successor of the Perl package's
// Kafka::Consumer. It is safe for concurrent use.
type Consumer struct {
	cl  *Client
	cfg ConsumerConfig

	mu           sync.Mutex
	coordinators map[string]string // group to coordinator address
}

// NewConsumer returns a consumer fetching through cl.
func NewConsumer(cl *Client, cfg ConsumerConfig) *Consumer {
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultFetchMaxBytes
	}
	if cfg.MinBytes <= 0 {
		cfg.MinBytes = 1
	}
	if cfg.MaxWait <= 0 {
		cfg.MaxWait = DefaultFetchMaxWait
	}
	return &Consumer{cl: cl, cfg: cfg, coordinators: map[string]string{}}
}

// Fetch reads records of topic[partition] from offset on, from the
// partition's leader (retrying retriable errors, metadata refreshed
// between attempts). The partition's error code is the error (for example
// ErrOffsetOutOfRange); records are decoded as Message describes.
func (c *Consumer) Fetch(ctx context.Context, topic string, partition int32, offset int64) (*FetchResult, error) {
	var res *FetchResult
	err := c.cl.retry(ctx, isRetriable, func(ctx context.Context, _ error) { c.cl.refreshTopic(ctx, topic) }, func(ctx context.Context) error {
		var err error
		res, err = c.fetchOnce(ctx, topic, partition, offset)
		return err
	})
	return res, err
}

// maxFetchGrowth caps how far fetchOnce raises MaxBytes to get past a
// record larger than it (before Fetch v3, which brokers answer with a
// partial record).
const maxFetchGrowth = 64 << 20

func (c *Consumer) fetchOnce(ctx context.Context, topic string, partition int32, offset int64) (*FetchResult, error) {
	maxBytes := c.cfg.MaxBytes
	for {
		res, err := c.fetchWith(ctx, topic, partition, offset, maxBytes)
		if err != nil || len(res.Messages) > 0 || res.NextOffset > offset || res.PartialBytes == 0 || maxBytes >= maxFetchGrowth {
			return res, err
		}
		// Only a partial entry came back: the next record is larger
		// than maxBytes. Ask again for more, as the Perl package and
		// pre-KIP-74 consumers did.
		maxBytes = min(2*max(maxBytes, int32(res.PartialBytes)), maxFetchGrowth)
	}
}

func (c *Consumer) fetchWith(ctx context.Context, topic string, partition int32, offset int64, maxBytes int32) (*FetchResult, error) {
	tp := topicPartition{topic, partition}
	cn, topicID, err := c.cl.leader(ctx, topic, partition)
	if err != nil {
		return nil, err
	}
	v, err := cn.Version(1)
	if err != nil {
		return nil, err
	}
	if v >= 13 && topicID.IsZero() {
		v = 12
	}
	req := &codec.FetchRequest{
		ReplicaId:      -1,
		MaxWaitMs:      int32(c.cfg.MaxWait.Milliseconds()),
		MinBytes:       c.cfg.MinBytes,
		MaxBytes:       maxBytes,
		IsolationLevel: int8(c.cfg.IsolationLevel),
		SessionId:      0,
		SessionEpoch:   -1, // a full fetch, no session (KIP-227)
		Topics: []codec.FetchRequestFetchTopic{{
			Topic:   topic,
			TopicId: topicID,
			Partitions: []codec.FetchRequestFetchPartition{{
				Partition:          partition,
				CurrentLeaderEpoch: -1,
				FetchOffset:        offset,
				LastFetchedEpoch:   -1,
				LogStartOffset:     -1,
				PartitionMaxBytes:  maxBytes,
				HighWatermark:      1<<63 - 1,
			}},
		}},
		ReplicaState: codec.FetchRequestReplicaState{ReplicaId: -1, ReplicaEpoch: -1},
	}
	m, err := cn.RoundTrip(ctx, req, v)
	if err != nil {
		return nil, withTP(err, tp)
	}
	resp := m.(*codec.FetchResponse)
	if resp.ErrorCode != 0 {
		return nil, partitionError(resp.ErrorCode, topic, partition, nil)
	}
	for _, t := range resp.Responses {
		if v >= 13 {
			if t.TopicId != topicID {
				continue
			}
		} else if t.Topic != topic {
			continue
		}
		for i := range t.Partitions {
			p := &t.Partitions[i]
			if p.PartitionIndex != partition {
				continue
			}
			if err := partitionError(p.ErrorCode, topic, partition, nil); err != nil {
				return nil, err
			}
			res := &FetchResult{Topic: topic, Partition: partition, HighWatermark: p.HighWatermark, LastStableOffset: -1, LogStartOffset: -1}
			if v >= 4 {
				res.LastStableOffset = p.LastStableOffset
			}
			if v >= 5 {
				res.LogStartOffset = p.LogStartOffset
			}
			rc := c.cfg.IsolationLevel == ReadCommitted && v >= 4
			decodeMessages(res, p.Records.Raw, offset, p.AbortedTransactions, rc, codec.RecordDecodeOptions{MaxDecompressedBytes: c.cfg.MaxDecompressedBytes})
			return res, nil
		}
	}
	return nil, clientError(ErrBadResponse, fmt.Sprintf("the Fetch response does not answer %s[%d]", topic, partition), nil)
}

// ListOffset returns the offset of topic[partition] for timestamp: the
// first offset whose record timestamp is at or after it (ms since the
// epoch), or one of OffsetLatest, OffsetEarliest, OffsetMaxTimestamp. It
// returns -1 when no record is that late. ListOffsets v0 asks for one
// offset (MaxNumOffsets 1), as the Perl package's offsets() did.
func (c *Consumer) ListOffset(ctx context.Context, topic string, partition int32, timestamp int64) (int64, error) {
	var off int64
	err := c.cl.retry(ctx, isRetriable, func(ctx context.Context, _ error) { c.cl.refreshTopic(ctx, topic) }, func(ctx context.Context) error {
		var err error
		off, err = c.listOnce(ctx, topic, partition, timestamp)
		return err
	})
	return off, err
}

// EarliestOffset returns the first offset kept in topic[partition].
func (c *Consumer) EarliestOffset(ctx context.Context, topic string, partition int32) (int64, error) {
	return c.ListOffset(ctx, topic, partition, OffsetEarliest)
}

// LatestOffset returns the offset after the last record of
// topic[partition] (the next offset to be written).
func (c *Consumer) LatestOffset(ctx context.Context, topic string, partition int32) (int64, error) {
	return c.ListOffset(ctx, topic, partition, OffsetLatest)
}

// OffsetForTime returns the first offset of topic[partition] whose record
// is timestamped at or after t, or -1 when there is none.
func (c *Consumer) OffsetForTime(ctx context.Context, topic string, partition int32, t time.Time) (int64, error) {
	return c.ListOffset(ctx, topic, partition, t.UnixMilli())
}

func (c *Consumer) listOnce(ctx context.Context, topic string, partition int32, timestamp int64) (int64, error) {
	cn, _, err := c.cl.leader(ctx, topic, partition)
	if err != nil {
		return -1, err
	}
	v, err := cn.Version(2)
	if err != nil {
		return -1, err
	}
	req := &codec.ListOffsetsRequest{
		ReplicaId:      -1,
		IsolationLevel: int8(c.cfg.IsolationLevel),
		TimeoutMs:      int32(c.cl.cfg.requestTimeout().Milliseconds()),
		Topics: []codec.ListOffsetsRequestListOffsetsTopic{{
			Name: topic,
			Partitions: []codec.ListOffsetsRequestListOffsetsPartition{{
				PartitionIndex: partition, CurrentLeaderEpoch: -1, Timestamp: timestamp, MaxNumOffsets: 1,
			}},
		}},
	}
	m, err := cn.RoundTrip(ctx, req, v)
	if err != nil {
		return -1, withTP(err, topicPartition{topic, partition})
	}
	for _, t := range m.(*codec.ListOffsetsResponse).Topics {
		if t.Name != topic {
			continue
		}
		for _, p := range t.Partitions {
			if p.PartitionIndex != partition {
				continue
			}
			if err := partitionError(p.ErrorCode, topic, partition, nil); err != nil {
				return -1, err
			}
			if v == 0 {
				if len(p.OldStyleOffsets) == 0 {
					return -1, nil
				}
				return p.OldStyleOffsets[0], nil
			}
			return p.Offset, nil
		}
	}
	return -1, clientError(ErrBadResponse, fmt.Sprintf("the ListOffsets response does not answer %s[%d]", topic, partition), nil)
}

// coordinator returns the connection to group's coordinator, asking
// FindCoordinator (KIP-699 batching from v4) when it is not known.
func (c *Consumer) coordinator(ctx context.Context, group string) (*Conn, error) {
	c.mu.Lock()
	addr, ok := c.coordinators[group]
	c.mu.Unlock()
	if !ok {
		cn, err := c.cl.anyConn(ctx)
		if err != nil {
			return nil, err
		}
		v, err := cn.Version(10)
		if err != nil {
			return nil, err
		}
		req := &codec.FindCoordinatorRequest{Key: group, KeyType: 0, CoordinatorKeys: []string{group}}
		m, err := cn.RoundTrip(ctx, req, v)
		if err != nil {
			return nil, err
		}
		r := m.(*codec.FindCoordinatorResponse)
		code, msg, host, port := r.ErrorCode, r.ErrorMessage, r.Host, r.Port
		if v >= 4 {
			if len(r.Coordinators) == 0 {
				return nil, clientError(ErrCoordinatorNotFound, "group "+group+": empty FindCoordinator response", nil)
			}
			co := r.Coordinators[0]
			code, msg, host, port = co.ErrorCode, co.ErrorMessage, co.Host, co.Port
		}
		if err := partitionError(code, "", -1, msg); err != nil {
			return nil, err
		}
		if host == "" || port <= 0 {
			return nil, clientError(ErrCoordinatorNotFound, "group "+group, nil)
		}
		addr = net.JoinHostPort(host, strconv.Itoa(int(port)))
		c.mu.Lock()
		c.coordinators[group] = addr
		c.mu.Unlock()
	}
	return c.cl.connTo(ctx, addr)
}

// forgetCoordinator drops group's coordinator after an error that says it
// moved or is unreachable.
func (c *Consumer) forgetCoordinator(_ context.Context, group string) {
	c.mu.Lock()
	delete(c.coordinators, group)
	c.mu.Unlock()
}

// CommitOffset stores offset (the next offset to consume, by Kafka's
// convention) and metadata as group's committed offset for
// topic[partition], through the group's coordinator, as a simple consumer
// that is no group member (generation -1, empty member id). Coordinator
// errors are retried after finding the coordinator again.
func (c *Consumer) CommitOffset(ctx context.Context, group, topic string, partition int32, offset int64, metadata string) error {
	return c.cl.retry(ctx, isRetriable, func(ctx context.Context, _ error) { c.forgetCoordinator(ctx, group) }, func(ctx context.Context) error {
		return c.commitOnce(ctx, group, topic, partition, offset, metadata)
	})
}

func (c *Consumer) commitOnce(ctx context.Context, group, topic string, partition int32, offset int64, metadata string) error {
	return c.commitOnceAs(ctx, group, -1, "", topic, partition, offset, metadata)
}

// commitAs is CommitOffset as a group member: generation and memberID
// are the member's (-1 and "" for a simple consumer). A member's commit
// refused for its generation is not retried: it must rejoin.
func (c *Consumer) commitAs(ctx context.Context, group string, generation int32, memberID, topic string, partition int32, offset int64, metadata string) error {
	return c.cl.retry(ctx, func(err error) bool { return isRetriable(err) && !NeedsRejoin(err) }, func(ctx context.Context, _ error) { c.forgetCoordinator(ctx, group) }, func(ctx context.Context) error {
		return c.commitOnceAs(ctx, group, generation, memberID, topic, partition, offset, metadata)
	})
}

func (c *Consumer) commitOnceAs(ctx context.Context, group string, generation int32, memberID, topic string, partition int32, offset int64, metadata string) error {
	cn, err := c.coordinator(ctx, group)
	if err != nil {
		return err
	}
	v, err := cn.Version(8)
	if err != nil {
		return err
	}
	var topicID codec.UUID
	if v >= 10 {
		t, err := c.cl.topic(ctx, topic, false)
		if err != nil {
			return err
		}
		if topicID = t.ID; topicID.IsZero() {
			v = 9
		}
	}
	req := &codec.OffsetCommitRequest{
		GroupId:                   group,
		GenerationIdOrMemberEpoch: generation,
		MemberId:                  memberID,
		RetentionTimeMs:           -1,
		Topics: []codec.OffsetCommitRequestTopic{{
			Name:    topic,
			TopicId: topicID,
			Partitions: []codec.OffsetCommitRequestPartition{{
				PartitionIndex: partition, CommittedOffset: offset, CommittedLeaderEpoch: -1,
				CommitTimestamp: -1, CommittedMetadata: &metadata,
			}},
		}},
	}
	m, err := cn.RoundTrip(ctx, req, v)
	if err != nil {
		return err
	}
	for _, t := range m.(*codec.OffsetCommitResponse).Topics {
		for _, p := range t.Partitions {
			if p.PartitionIndex == partition {
				return partitionError(p.ErrorCode, topic, partition, nil)
			}
		}
	}
	return clientError(ErrBadResponse, fmt.Sprintf("the OffsetCommit response does not answer %s[%d]", topic, partition), nil)
}

// CommittedOffset returns group's committed offset for topic[partition]
// and its metadata; the offset is -1 when the group committed none.
func (c *Consumer) CommittedOffset(ctx context.Context, group, topic string, partition int32) (int64, string, error) {
	var off int64
	var meta string
	err := c.cl.retry(ctx, isRetriable, func(ctx context.Context, _ error) { c.forgetCoordinator(ctx, group) }, func(ctx context.Context) error {
		var err error
		off, meta, err = c.committedOnce(ctx, group, topic, partition)
		return err
	})
	return off, meta, err
}

func (c *Consumer) committedOnce(ctx context.Context, group, topic string, partition int32) (int64, string, error) {
	cn, err := c.coordinator(ctx, group)
	if err != nil {
		return -1, "", err
	}
	v, err := cn.Version(9)
	if err != nil {
		return -1, "", err
	}
	var topicID codec.UUID
	if v >= 10 {
		t, err := c.cl.topic(ctx, topic, false)
		if err != nil {
			return -1, "", err
		}
		if topicID = t.ID; topicID.IsZero() {
			v = 9
		}
	}
	req := &codec.OffsetFetchRequest{
		GroupId: group,
		Topics:  []codec.OffsetFetchRequestTopic{{Name: topic, PartitionIndexes: []int32{partition}}},
		Groups: []codec.OffsetFetchRequestGroup{{
			GroupId: group, MemberEpoch: -1,
			Topics: []codec.OffsetFetchRequestTopics{{Name: topic, TopicId: topicID, PartitionIndexes: []int32{partition}}},
		}},
	}
	m, err := cn.RoundTrip(ctx, req, v)
	if err != nil {
		return -1, "", err
	}
	off, meta, err := committedIn(m.(*codec.OffsetFetchResponse), v, group, topic, partition)
	if errors.Is(err, ErrGroupIDNotFound) {
		// A group that never committed: some brokers say so with
		// GROUP_ID_NOT_FOUND, others with offset -1.
		return -1, "", nil
	}
	return off, meta, err
}

// committedIn finds topic[partition] in an OffsetFetch response of version
// v; a partition the response leaves out has no committed offset (-1).
func committedIn(r *codec.OffsetFetchResponse, v int16, group, topic string, partition int32) (int64, string, error) {
	result := func(code int16, off int64, meta *string) (int64, string, error) {
		if err := partitionError(code, topic, partition, nil); err != nil {
			return -1, "", err
		}
		s := ""
		if meta != nil {
			s = *meta
		}
		return off, s, nil
	}
	if v >= 8 {
		for _, g := range r.Groups {
			if g.GroupId != group {
				continue
			}
			if err := partitionError(g.ErrorCode, "", -1, nil); err != nil {
				return -1, "", err
			}
			for _, t := range g.Topics {
				for _, p := range t.Partitions {
					if p.PartitionIndex == partition {
						return result(p.ErrorCode, p.CommittedOffset, p.Metadata)
					}
				}
			}
		}
	} else {
		if err := partitionError(r.ErrorCode, "", -1, nil); err != nil {
			return -1, "", err
		}
		for _, t := range r.Topics {
			if t.Name != topic {
				continue
			}
			for _, p := range t.Partitions {
				if p.PartitionIndex == partition {
					return result(p.ErrorCode, p.CommittedOffset, p.Metadata)
				}
			}
		}
	}
	return -1, "", nil
}
