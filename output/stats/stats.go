// Package stats aggregates exchanges as they are dissected, for `kdissect
// stats`: per API counts, bytes and latency percentiles; per
// topic-partition records and bytes produced and fetched; errors by name
// and by topic-partition; per client id and per connection; the span and
// totals of the capture. Memory grows with the number of distinct keys
// (APIs, topic-partitions, client ids, connections, error codes), not with
// the number of exchanges: latencies go into bounded histograms; and each
// table keeps at most MaxRows keys, the rest counted in one row named
// Other, so a capture of millions of short connections stays small.
package stats

import (
	"cmp"
	"slices"
	"time"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// MaxRows is the most topic-partitions, client ids, connections and
// errors by topic-partition a Collector keeps apart; further keys are
// counted together in one row: topic Other with partition -1, client id
// Other, connection stream -1 with client Other.
const MaxRows = 10000

// Other names the row that counts the keys beyond MaxRows.
const Other = "(other)"

// Collector aggregates exchanges. Add them in any order; it is not safe
// for concurrent use.
type Collector struct {
	maxRows     int // MaxRows; tests lower it
	apis        map[apiKey]*APIStats
	partitions  map[tpKey]*PartitionStats
	errors      map[int16]int64
	errorsAt    map[tpErrKey]int64
	clients     map[string]*ClientStats
	noClientID  *ClientStats
	connections map[int]*ConnectionStats
	total       Totals
	intervals   *intervals   // nil without SetIntervals (intervals.go)
	notes       noteCounts   // notes.go
	txns        transactions // the transactions view (transactions.go)
	clientConns clientConns  // the client inventory (clients.go)
}

// apiKey identifies an API row: an ApiKey, -1 for responses whose request
// was not captured, sasl for raw SASL token exchanges.
type apiKey struct {
	key  int16
	sasl bool
}

type tpKey struct {
	topic     string
	partition int32
}

type tpErrKey struct {
	tpKey
	code int16
}

// New returns an empty Collector.
func New() *Collector {
	return &Collector{
		maxRows:     MaxRows,
		apis:        map[apiKey]*APIStats{},
		partitions:  map[tpKey]*PartitionStats{},
		errors:      map[int16]int64{},
		errorsAt:    map[tpErrKey]int64{},
		clients:     map[string]*ClientStats{},
		connections: map[int]*ConnectionStats{},
		clientConns: clientConns{},
	}
}

// Totals are the capture's totals.
type Totals struct {
	Exchanges     int64
	RequestBytes  int64 // sizes of the requests as their size prefixes say
	ResponseBytes int64
	Errors        int64 // non-zero error codes in responses
	// ErrorsNotCaptured counts the exchanges whose responses' error codes
	// the capture lacked in part (dissect.Decoded.ErrorsNotCaptured):
	// when not 0, Errors counts those captured, a lower bound.
	ErrorsNotCaptured int64
	// RecordsNotCaptured counts the Produce and Fetch exchanges whose
	// records the capture lacked in part (dissect.Decoded.RecordsNotCaptured).
	RecordsNotCaptured int64
	// ProducedUnnamed and FetchedUnnamed count the Produce and Fetch
	// exchanges that lacked record sets of topic-partitions the capture
	// may not name (dissect.Decoded.RecordsUnnamed): when not 0, every
	// topic-partition's produced (fetched) counts are lower bounds.
	ProducedUnnamed, FetchedUnnamed int64
	// FramesNotCaptured counts the exchanges noting stream bytes not
	// captured before their frames (a gap between frames, a frame
	// boundary lost: dissect.NoteGap, NoteResync) and the responses whose
	// request was not captured: whole frames are missing there, of any
	// API, so every count of records, record bytes and errors is a lower
	// bound when it is not 0.
	FramesNotCaptured int64
	// First and Last are the capture times of the first byte of the
	// first frame and of the last byte of the last frame.
	First, Last time.Time
}

// Traffic is what every row counts.
type Traffic struct {
	Exchanges     int64
	RequestBytes  int64
	ResponseBytes int64
	NoResponse    int64 // requests without a response (Produce with Acks=0 included)
	Errors        int64 // non-zero error codes in responses
	// ErrorsNotCaptured counts the exchanges whose error codes the
	// capture lacked in part: when not 0, Errors is a lower bound.
	ErrorsNotCaptured int64
	Latency           Histogram
}

func (t *Traffic) add(ex *dissect.Exchange, dec *dissect.Decoded) {
	errors := len(dec.Errors)
	if dec.ErrorsNotCaptured {
		t.ErrorsNotCaptured++
	}
	t.Exchanges++
	if ex.Request != nil {
		t.RequestBytes += int64(ex.Request.Size)
		if ex.Response == nil {
			t.NoResponse++
		}
	}
	if ex.Response != nil {
		t.ResponseBytes += int64(ex.Response.Size)
	}
	t.Errors += int64(errors)
	if lat, ok := ex.Latency(); ok {
		t.Latency.Add(lat.Microseconds())
	}
}

// APIStats is one API's row.
type APIStats struct {
	Key  int16  // -1 when unknown or for SASL tokens
	Name string // Kafka's name, "unknown" or "SASL token"
	Traffic
}

// PartitionStats are the records a topic-partition received in Produce
// requests and returned in Fetch responses. Records count as in the JSON
// Lines "records" key; bytes are the sizes of the complete record batches
// and legacy messages (12 + BatchLength or MessageSize each), so a
// partial batch at the end of a Fetch response, fetched again later, is
// not counted twice. The *NotCaptured counts are of the record sets (or
// of the exchanges naming the topic-partition without a record set the
// capture held) whose records or bytes the capture lacked in part: when
// not 0, the count beside is of what was captured, a lower bound.
type PartitionStats struct {
	Topic           string // name, or "id:" and the topic ID when the name is unknown
	Partition       int32
	ProducedRecords int64
	ProducedBytes   int64
	FetchedRecords  int64
	FetchedBytes    int64
	Produces        int64 // record sets in Produce requests
	Fetches         int64 // record sets in Fetch responses

	ProducedRecordsNotCaptured, ProducedBytesNotCaptured int64
	FetchedRecordsNotCaptured, FetchedBytesNotCaptured   int64
}

// ClientStats is one client id's row.
type ClientStats struct {
	ClientID *string // nil: exchanges without one (responses alone, SASL tokens, header v0)
	Traffic
}

// ConnectionStats is one connection's row.
type ConnectionStats struct {
	Stream         int
	Client, Broker string
	ClientID       *string // the first seen
	First, Last    time.Time
	Traffic
}

// Add aggregates one decoded exchange.
func (c *Collector) Add(ex *dissect.Exchange) {
	c.txns.add(ex)
	dec := ex.Decoded
	if dec == nil {
		dec = &dissect.Decoded{}
	}
	nerr := len(dec.Errors)

	t := &c.total
	t.Exchanges++
	t.Errors += int64(nerr)
	if dec.ErrorsNotCaptured {
		t.ErrorsNotCaptured++
	}
	if dec.RecordsNotCaptured {
		t.RecordsNotCaptured++
	}
	if framesLost(ex) {
		t.FramesNotCaptured++
	}
	for _, f := range []*dissect.Frame{ex.Request, ex.Response} {
		if f == nil {
			continue
		}
		if t.First.IsZero() || f.Time.Before(t.First) {
			t.First = f.Time
		}
		end := f.EndTime
		if end.IsZero() {
			end = f.Time
		}
		if end.After(t.Last) {
			t.Last = end
		}
	}
	if ex.Request != nil {
		t.RequestBytes += int64(ex.Request.Size)
	}
	if ex.Response != nil {
		t.ResponseBytes += int64(ex.Response.Size)
	}

	ak := apiKey{key: ex.APIKey, sasl: ex.SASLToken}
	if ak.sasl || ak.key < 0 {
		ak.key = -1
	}
	a := c.apis[ak]
	if a == nil {
		a = &APIStats{Key: ak.key, Name: apiName(ak)}
		c.apis[ak] = a
	}
	a.add(ex, dec)
	if c.intervals != nil {
		c.intervals.add(ex, ak, dec)
	}
	c.notes.add(ex)
	c.clientConns.add(ex, dec, c.maxRows)

	var cs *ClientStats
	if ex.ClientID == nil {
		if c.noClientID == nil {
			c.noClientID = &ClientStats{}
		}
		cs = c.noClientID
	} else {
		id := *ex.ClientID
		cs = c.clients[id]
		if cs == nil {
			if len(c.clients) >= c.maxRows {
				id = Other
			}
			if cs = c.clients[id]; cs == nil {
				cs = &ClientStats{ClientID: &id}
				c.clients[id] = cs
			}
		}
	}
	cs.add(ex, dec)

	conn := c.connections[ex.Stream]
	if conn == nil {
		switch {
		case len(c.connections) < c.maxRows:
			conn = &ConnectionStats{Stream: ex.Stream, Client: ex.Client.String(), Broker: ex.Broker.String()}
			c.connections[ex.Stream] = conn
		case c.connections[-1] != nil:
			conn = c.connections[-1]
		default:
			conn = &ConnectionStats{Stream: -1, Client: Other, Broker: Other}
			c.connections[-1] = conn
		}
	}
	if conn.ClientID == nil && ex.ClientID != nil {
		id := *ex.ClientID
		conn.ClientID = &id
	}
	for _, f := range []*dissect.Frame{ex.Request, ex.Response} {
		if f == nil {
			continue
		}
		if conn.First.IsZero() || f.Time.Before(conn.First) {
			conn.First = f.Time
		}
		if f.Time.After(conn.Last) {
			conn.Last = f.Time
		}
	}
	conn.add(ex, dec)

	for _, e := range dec.Errors {
		c.errors[e.Code]++
		if e.Topic != "" || !e.TopicID.IsZero() || e.Partition >= 0 {
			k := tpErrKey{tpKey{TopicName(e.Topic, e.TopicID), e.Partition}, e.Code}
			if _, ok := c.errorsAt[k]; !ok && len(c.errorsAt) >= c.maxRows {
				k.tpKey = tpKey{Other, -1}
			}
			c.errorsAt[k]++
		}
	}

	// Records: those Produce requests carry and Fetch responses return,
	// as the JSON Lines "records" key counts them.
	if ex.SASLToken || ex.APIKey != codec.ApiKeyProduce && ex.APIKey != codec.ApiKeyFetch {
		return
	}
	produce := ex.APIKey == codec.ApiKeyProduce
	var held []tpKey // topic-partitions with a record set wholly captured
	for _, rr := range dec.RecordSets {
		set := rr.Records.Set
		if set == nil {
			continue
		}
		p := c.partition(tpKey{TopicName(rr.Topic, rr.TopicID), rr.Partition})
		n, size := int64(set.Count()), EntryBytes(set)
		recsLost, bytesLost := dissect.RecordSetNotCaptured(rr.Records)
		if !recsLost && !bytesLost {
			held = append(held, tpKey{TopicName(rr.Topic, rr.TopicID), rr.Partition})
		}
		if produce {
			p.ProducedRecords += n
			p.ProducedBytes += size
			p.Produces++
			p.ProducedRecordsNotCaptured += b2i(recsLost)
			p.ProducedBytesNotCaptured += b2i(bytesLost)
		} else {
			p.FetchedRecords += n
			p.FetchedBytes += size
			p.Fetches++
			p.FetchedRecordsNotCaptured += b2i(recsLost)
			p.FetchedBytesNotCaptured += b2i(bytesLost)
		}
	}
	if !dec.RecordSetsNotCaptured {
		return
	}
	if dec.RecordsUnnamed && produce {
		t.ProducedUnnamed++
	} else if dec.RecordsUnnamed {
		t.FetchedUnnamed++
	}
	// Record sets the capture lacked whole (decoding stopped before them,
	// or the frame holding them was not captured): the topic-partitions
	// the exchange names without a record set held are unknown. Those it
	// may not name make every row a lower bound (ProducedUnnamed).
	for _, tp := range dec.Topics {
		for _, part := range tp.Partitions {
			k := tpKey{TopicName(tp.Topic, tp.TopicID), part}
			if slices.Contains(held, k) {
				continue
			}
			p := c.partition(k)
			if produce {
				p.ProducedRecordsNotCaptured++
				p.ProducedBytesNotCaptured++
			} else {
				p.FetchedRecordsNotCaptured++
				p.FetchedBytesNotCaptured++
			}
		}
	}
}

// framesLost reports a response whose request was not captured, or an
// exchange whose notes say stream bytes before its frames were not
// captured: frames there may be lost whole.
func framesLost(ex *dissect.Exchange) bool {
	if ex.Request == nil && ex.Response != nil && !ex.SASLToken {
		return true
	}
	for _, n := range ex.Notes {
		if n.Kind == dissect.NoteGap || n.Kind == dissect.NoteResync {
			return true
		}
	}
	return false
}

// partition returns the row of k, made if need be (Other past maxRows).
func (c *Collector) partition(k tpKey) *PartitionStats {
	p := c.partitions[k]
	if p == nil {
		if len(c.partitions) >= c.maxRows {
			k = tpKey{Other, -1}
		}
		if p = c.partitions[k]; p == nil {
			p = &PartitionStats{Topic: k.topic, Partition: k.partition}
			c.partitions[k] = p
		}
	}
	return p
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// EntryBytes is the size of the complete entries of a record set, as
// PartitionStats counts them: 12 + BatchLength or MessageSize each.
func EntryBytes(s *codec.RecordSet) int64 { return dissect.EntryBytes(s) }

func apiName(k apiKey) string {
	switch {
	case k.sasl:
		return "SASL token"
	case k.key < 0:
		return "unknown"
	}
	return codec.APIName(k.key)
}

// TopicName is a topic's name, or "id:" and its ID when only that is known.
func TopicName(name string, id codec.UUID) string {
	if name == "" && !id.IsZero() {
		return "id:" + id.String()
	}
	return name
}

// ErrorCount is how often an error code was seen.
type ErrorCount struct {
	Code  int16
	Name  string
	Count int64
}

// PartitionError is how often an error code was seen for a topic-partition
// (Partition -1: the topic as a whole).
type PartitionError struct {
	Topic     string
	Partition int32
	ErrorCount
}

// Report is the aggregate, in the order it is shown.
type Report struct {
	Packets         int64 // packets read, when the caller knows (SetPackets)
	Totals          Totals
	APIs            []*APIStats        // by ApiKey; unknown and SASL tokens last
	Partitions      []*PartitionStats  // by topic, then partition
	Errors          []ErrorCount       // most frequent first
	PartitionErrors []PartitionError   // by topic, partition, then code
	Clients         []*ClientStats     // most exchanges first; no client id last
	Connections     []*ConnectionStats // by stream
	Intervals       *IntervalReport    // nil without SetIntervals
	Notes           []NoteCount        // by kind, most exchanges first
	Transactions    *TransactionsReport
	ClientVersions  []*ClientVersions // by client address, client id, software
}

// Report returns the aggregate so far. The rows are the collector's: do
// not add to it while using them.
func (c *Collector) Report() *Report {
	r := &Report{Totals: c.total, Notes: c.notes.report(), Transactions: c.txns.report(), ClientVersions: c.clientConns.report()}
	if c.intervals != nil {
		r.Intervals = c.intervals.report()
	}
	for _, a := range c.apis {
		r.APIs = append(r.APIs, a)
	}
	slices.SortFunc(r.APIs, func(a, b *APIStats) int {
		// Known keys first, in order.
		return cmp.Or(cmp.Compare(unknownLast(a.Key), unknownLast(b.Key)), cmp.Compare(a.Name, b.Name))
	})
	for _, p := range c.partitions {
		r.Partitions = append(r.Partitions, p)
	}
	slices.SortFunc(r.Partitions, func(a, b *PartitionStats) int {
		return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
	})
	for code, n := range c.errors {
		r.Errors = append(r.Errors, ErrorCount{code, codec.ErrorName(code), n})
	}
	slices.SortFunc(r.Errors, func(a, b ErrorCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Code, b.Code))
	})
	for k, n := range c.errorsAt {
		r.PartitionErrors = append(r.PartitionErrors, PartitionError{k.topic, k.partition, ErrorCount{k.code, codec.ErrorName(k.code), n}})
	}
	slices.SortFunc(r.PartitionErrors, func(a, b PartitionError) int {
		return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition), cmp.Compare(a.Code, b.Code))
	})
	for _, cs := range c.clients {
		r.Clients = append(r.Clients, cs)
	}
	slices.SortFunc(r.Clients, func(a, b *ClientStats) int {
		return cmp.Or(cmp.Compare(b.Exchanges, a.Exchanges), cmp.Compare(*a.ClientID, *b.ClientID))
	})
	if c.noClientID != nil {
		r.Clients = append(r.Clients, c.noClientID)
	}
	for _, conn := range c.connections {
		r.Connections = append(r.Connections, conn)
	}
	slices.SortFunc(r.Connections, func(a, b *ConnectionStats) int { return cmp.Compare(a.Stream, b.Stream) })
	return r
}

// unknownLast orders ApiKeys, -1 after the others.
func unknownLast(k int16) int32 {
	if k < 0 {
		return 1 << 16
	}
	return int32(k)
}

// Duration is the span of the capture's Kafka traffic: first byte of the
// first frame to last byte of the last.
func (t *Totals) Duration() time.Duration {
	if t.First.IsZero() {
		return 0
	}
	return t.Last.Sub(t.First)
}
