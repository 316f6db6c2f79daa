package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kdissect/kdissect/codec"
)

// Client is a connection to a Kafka cluster: one Conn per broker, opened
// when first needed and reopened after a failure, and the cluster's
// metadata (brokers, topics, partition leaders) cached and refreshed when a
// request fails for a reason a refresh may cure. It is the Go successor of
// the Perl package's Kafka::Connection.
//
// Requests that name a topic-partition go to its leader and are retried up
// to Config.MaxAttempts times (default 4) on retriable errors, pausing
// Config.RetryBackoff (200 ms) and refreshing metadata between attempts.
//
// A Client is safe for concurrent use. Close it to close its connections.
type Client struct {
	cfg       Config
	bootstrap []string

	mu      sync.Mutex
	conns   map[string]*Conn       // by address
	dialing map[string]*dialResult // dials in progress, by address
	meta    clusterState
	closed  bool
}

type dialResult struct {
	done chan struct{}
	conn *Conn
	err  error
}

// clusterState is the merged result of the metadata responses so far.
type clusterState struct {
	clusterID    string
	controllerID int32
	brokers      map[int32]BrokerMetadata
	topics       map[string]*TopicMetadata
}

// Metadata is a Metadata response made convenient: brokers and topics
// sorted, errors as *Error values.
type Metadata struct {
	ClusterID    string // "" when the broker sent none (before v2)
	ControllerID int32  // -1 when unknown
	Brokers      []BrokerMetadata
	Topics       []TopicMetadata
	Version      int16 // the Metadata version used
}

// BrokerMetadata is one broker of the cluster.
type BrokerMetadata struct {
	NodeID int32
	Host   string
	Port   int32
	Rack   string // "" when none
}

// Addr returns "host:port" (IPv6 hosts in brackets).
func (b BrokerMetadata) Addr() string {
	return net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))
}

// TopicMetadata is one topic: its partitions sorted by index.
type TopicMetadata struct {
	Name       string
	ID         codec.UUID // zero before Metadata v10
	Internal   bool
	Err        error // the topic's error code as an *Error, nil for NONE
	Partitions []PartitionMetadata
}

// PartitionMetadata is one partition: leader and replicas by node id.
type PartitionMetadata struct {
	Partition   int32
	Leader      int32 // -1 when there is none
	LeaderEpoch int32 // -1 before v7
	Replicas    []int32
	ISR         []int32
	Offline     []int32
	Err         error // the partition's error code as an *Error, nil for NONE
}

// New returns a Client bootstrapped from cfg.Brokers: it connects to the
// first address that answers (trying them in order) so that a cluster that
// cannot be reached is reported here. Errors: ErrNoKnownBrokers when
// cfg.Brokers is empty; ErrCannotConnect (wrapping each address's failure)
// when no address answers.
func New(ctx context.Context, cfg Config) (*Client, error) {
	var boot []string
	for _, b := range cfg.Brokers {
		for a := range strings.SplitSeq(b, ",") {
			if a = strings.TrimSpace(a); a != "" {
				boot = append(boot, withDefaultPort(a))
			}
		}
	}
	if len(boot) == 0 {
		return nil, clientError(ErrNoKnownBrokers, "Config.Brokers is empty", nil)
	}
	c := &Client{
		cfg:       cfg,
		bootstrap: boot,
		conns:     make(map[string]*Conn),
		dialing:   make(map[string]*dialResult),
		meta: clusterState{
			controllerID: -1,
			brokers:      make(map[int32]BrokerMetadata),
			topics:       make(map[string]*TopicMetadata),
		},
	}
	if _, err := c.anyConn(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// Config returns the configuration the client was made with.
func (c *Client) Config() Config { return c.cfg }

// Close closes every connection. Calls after Close fail with ErrClosed.
func (c *Client) Close() error {
	c.mu.Lock()
	c.closed = true
	conns := c.conns
	c.conns = map[string]*Conn{}
	c.mu.Unlock()
	for _, cn := range conns {
		cn.Close()
	}
	return nil
}

// connTo returns the open connection to addr, dialing it when there is
// none. Concurrent callers share one dial.
func (c *Client) connTo(ctx context.Context, addr string) (*Conn, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, clientError(ErrClosed, "client closed", nil)
	}
	if cn, ok := c.conns[addr]; ok && !cn.Closed() {
		c.mu.Unlock()
		return cn, nil
	}
	if d, ok := c.dialing[addr]; ok {
		c.mu.Unlock()
		select {
		case <-d.done:
			return d.conn, d.err
		case <-ctx.Done():
			return nil, clientError(ErrTimeout, "waiting for a connection to "+addr, ctx.Err())
		}
	}
	d := &dialResult{done: make(chan struct{})}
	c.dialing[addr] = d
	c.mu.Unlock()

	d.conn, d.err = Dial(ctx, addr, &c.cfg)

	c.mu.Lock()
	delete(c.dialing, addr)
	if d.err == nil {
		if c.closed {
			d.conn.Close()
			d.conn, d.err = nil, clientError(ErrClosed, "client closed", nil)
		} else {
			c.conns[addr] = d.conn
		}
	}
	c.mu.Unlock()
	close(d.done)
	return d.conn, d.err
}

// anyConn returns a connection to some broker: an open one if there is,
// else the first known broker or bootstrap address that answers.
func (c *Client) anyConn(ctx context.Context) (*Conn, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, clientError(ErrClosed, "client closed", nil)
	}
	addrs := slices.Clone(c.bootstrap)
	for _, b := range c.meta.brokers {
		addrs = append(addrs, b.Addr())
	}
	for _, a := range addrs {
		if cn, ok := c.conns[a]; ok && !cn.Closed() {
			c.mu.Unlock()
			return cn, nil
		}
	}
	c.mu.Unlock()
	var errs []error
	tried := map[string]bool{}
	for _, a := range addrs {
		if tried[a] {
			continue
		}
		tried[a] = true
		cn, err := c.connTo(ctx, a)
		if err == nil {
			return cn, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	if len(errs) == 1 {
		return nil, errs[0]
	}
	return nil, clientError(ErrCannotConnect, fmt.Sprintf("none of %d brokers answered", len(tried)), errors.Join(errs...))
}

// BrokerConn returns the connection to the broker with the given node id
// (from metadata; refreshed once when the id is unknown), or to any broker
// for id -1.
func (c *Client) BrokerConn(ctx context.Context, id int32) (*Conn, error) {
	if id < 0 {
		return c.anyConn(ctx)
	}
	c.mu.Lock()
	b, ok := c.meta.brokers[id]
	c.mu.Unlock()
	if !ok {
		if _, err := c.Metadata(ctx); err != nil {
			return nil, err
		}
		c.mu.Lock()
		b, ok = c.meta.brokers[id]
		c.mu.Unlock()
		if !ok {
			return nil, clientError(ErrLeaderNotFound, fmt.Sprintf("no broker with node id %d in the metadata", id), nil)
		}
	}
	return c.connTo(ctx, b.Addr())
}

// RoundTrip sends req at version to the broker with node id broker (-1:
// any broker) exactly as given, and returns the decoded response: the raw
// path, for replaying captured requests. Nothing is retried nor rewritten;
// see Conn.RoundTrip for the errors.
func (c *Client) RoundTrip(ctx context.Context, broker int32, req codec.Message, version int16) (codec.Message, error) {
	cn, err := c.BrokerConn(ctx, broker)
	if err != nil {
		return nil, err
	}
	return cn.RoundTrip(ctx, req, version)
}

// Request sends req to any broker at the version negotiated for its
// ApiKey, retrying on connection failures, and returns the decoded
// response; Kafka error codes inside it are the caller's to read. For
// requests that must go to a particular broker use BrokerConn.
func (c *Client) Request(ctx context.Context, req codec.Message) (codec.Message, int16, error) {
	var resp codec.Message
	var version int16
	err := c.retry(ctx, isRetriable, nil, func(ctx context.Context) error {
		cn, err := c.anyConn(ctx)
		if err != nil {
			return err
		}
		version, err = cn.Version(req.APIKey())
		if err != nil {
			return err
		}
		resp, err = cn.RoundTrip(ctx, req, version)
		return err
	})
	return resp, version, err
}

// retry runs attempt until it succeeds, fails with an error retryable
// rejects, or MaxAttempts attempts were made; between attempts it pauses
// RetryBackoff and calls refresh (when not nil) so that the next attempt
// sees fresh metadata. It returns the last error.
func (c *Client) retry(ctx context.Context, retryable func(error) bool, refresh func(context.Context, error), attempt func(context.Context) error) error {
	for n := 1; ; n++ {
		err := attempt(ctx)
		if err == nil || n >= c.cfg.maxAttempts() || !retryable(err) || ctx.Err() != nil {
			return err
		}
		t := time.NewTimer(c.cfg.retryBackoff())
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		if refresh != nil {
			refresh(ctx, err)
		}
	}
}

// Metadata asks a broker for the metadata of the given topics (all topics
// when none is given), merges it into the client's cache and returns it.
// Connection failures are retried on other brokers. Topic and partition
// error codes are reported in the result, not as the error.
func (c *Client) Metadata(ctx context.Context, topics ...string) (*Metadata, error) {
	var md *Metadata
	err := c.retry(ctx, isRetriable, nil, func(ctx context.Context) error {
		var err error
		md, err = c.metadataOnce(ctx, topics)
		return err
	})
	if err != nil {
		if errors.Is(err, ErrClosed) {
			return nil, err
		}
		return nil, clientError(ErrCannotGetMetadata, "", err)
	}
	return md, nil
}

func (c *Client) metadataOnce(ctx context.Context, topics []string) (*Metadata, error) {
	cn, err := c.anyConn(ctx)
	if err != nil {
		return nil, err
	}
	v, err := cn.Version(3)
	if err != nil {
		return nil, err
	}
	req := &codec.MetadataRequest{AllowAutoTopicCreation: c.cfg.AllowAutoTopicCreation && len(topics) > 0}
	if len(topics) > 0 {
		req.Topics = make([]codec.MetadataRequestTopic, len(topics))
		for i := range topics {
			req.Topics[i].Name = &topics[i]
		}
	} else if v == 0 {
		req.Topics = []codec.MetadataRequestTopic{} // v0: empty means all
	}
	m, err := cn.RoundTrip(ctx, req, v)
	if err != nil {
		return nil, err
	}
	resp := m.(*codec.MetadataResponse)
	if resp.ErrorCode != 0 {
		return nil, ErrorForCode(resp.ErrorCode)
	}
	md := &Metadata{ControllerID: resp.ControllerId, Version: v}
	if v == 0 {
		md.ControllerID = -1
	}
	if resp.ClusterId != nil {
		md.ClusterID = *resp.ClusterId
	}
	for _, b := range resp.Brokers {
		bm := BrokerMetadata{NodeID: b.NodeId, Host: b.Host, Port: b.Port}
		if b.Rack != nil {
			bm.Rack = *b.Rack
		}
		md.Brokers = append(md.Brokers, bm)
	}
	slices.SortFunc(md.Brokers, func(a, b BrokerMetadata) int { return int(a.NodeID) - int(b.NodeID) })
	for _, t := range resp.Topics {
		tm := TopicMetadata{ID: t.TopicId, Internal: t.IsInternal}
		if t.Name != nil {
			tm.Name = *t.Name
		}
		tm.Err = partitionError(t.ErrorCode, tm.Name, -1, nil)
		for _, p := range t.Partitions {
			tm.Partitions = append(tm.Partitions, PartitionMetadata{
				Partition:   p.PartitionIndex,
				Leader:      p.LeaderId,
				LeaderEpoch: p.LeaderEpoch,
				Replicas:    p.ReplicaNodes,
				ISR:         p.IsrNodes,
				Offline:     p.OfflineReplicas,
				Err:         partitionError(p.ErrorCode, tm.Name, p.PartitionIndex, nil),
			})
		}
		slices.SortFunc(tm.Partitions, func(a, b PartitionMetadata) int { return int(a.Partition) - int(b.Partition) })
		md.Topics = append(md.Topics, tm)
	}
	slices.SortFunc(md.Topics, func(a, b TopicMetadata) int { return strings.Compare(a.Name, b.Name) })
	c.merge(md)
	return md, nil
}

// merge folds md into the cache: brokers are replaced, topics updated.
func (c *Client) merge(md *Metadata) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(md.Brokers) > 0 {
		c.meta.brokers = make(map[int32]BrokerMetadata, len(md.Brokers))
		for _, b := range md.Brokers {
			c.meta.brokers[b.NodeID] = b
		}
	}
	c.meta.clusterID, c.meta.controllerID = md.ClusterID, md.ControllerID
	for i := range md.Topics {
		t := md.Topics[i]
		if t.Name == "" {
			continue
		}
		if t.Err != nil && len(t.Partitions) == 0 {
			// A topic that errs is forgotten, so that the next lookup
			// asks again.
			delete(c.meta.topics, t.Name)
			continue
		}
		c.meta.topics[t.Name] = &t
	}
}

// topic returns the cached metadata of topic, asking for it when it is not
// cached or refresh is set. A topic the broker reports an error for is an
// error here.
func (c *Client) topic(ctx context.Context, topic string, refresh bool) (*TopicMetadata, error) {
	if !refresh {
		c.mu.Lock()
		t, ok := c.meta.topics[topic]
		c.mu.Unlock()
		if ok {
			return t, nil
		}
	}
	md, err := c.metadataOnce(ctx, []string{topic})
	if err != nil {
		return nil, err
	}
	for i := range md.Topics {
		if md.Topics[i].Name == topic {
			if md.Topics[i].Err != nil {
				return nil, md.Topics[i].Err
			}
			return &md.Topics[i], nil
		}
	}
	return nil, kafkaError(ErrUnknownTopicOrPartition.code).with(topic, -1, "not in the metadata response", nil)
}

// refreshTopic re-reads topic's metadata, ignoring failures (the next
// attempt reports them).
func (c *Client) refreshTopic(ctx context.Context, topic string) {
	c.topic(ctx, topic, true)
}

// Partitions returns the number of partitions of topic, from the cache or
// a metadata request.
func (c *Client) Partitions(ctx context.Context, topic string) (int32, error) {
	t, err := c.topic(ctx, topic, false)
	if err != nil {
		return 0, err
	}
	return int32(len(t.Partitions)), nil
}

// leader returns the connection to the leader of topic[partition] and the
// topic's ID (zero before Metadata v10).
func (c *Client) leader(ctx context.Context, topic string, partition int32) (*Conn, codec.UUID, error) {
	t, err := c.topic(ctx, topic, false)
	if err != nil {
		return nil, codec.UUID{}, err
	}
	i, ok := slices.BinarySearchFunc(t.Partitions, partition, func(p PartitionMetadata, want int32) int { return int(p.Partition) - int(want) })
	if !ok {
		return nil, t.ID, kafkaError(ErrUnknownTopicOrPartition.code).with(topic, partition, fmt.Sprintf("partitions of the topic: 0 to %d", len(t.Partitions)-1), nil)
	}
	p := t.Partitions[i]
	if p.Leader < 0 {
		if p.Err != nil {
			return nil, t.ID, p.Err
		}
		return nil, t.ID, kafkaError(ErrLeaderNotAvailable.code).with(topic, partition, "", nil)
	}
	c.mu.Lock()
	b, ok := c.meta.brokers[p.Leader]
	c.mu.Unlock()
	if !ok {
		return nil, t.ID, clientError(ErrLeaderNotFound, fmt.Sprintf("%s[%d]: leader %d is not among the brokers", topic, partition, p.Leader), nil)
	}
	cn, err := c.connTo(ctx, b.Addr())
	return cn, t.ID, err
}
