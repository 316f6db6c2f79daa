package replay

import (
	"encoding/hex"
	"slices"
	"strings"
	"time"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// item is one captured request, what replay makes of it and how it went.
type item struct {
	index    int // in capture order, 0-based
	stream   int
	key      int16
	version  int16 // captured
	clientID *string
	reqTime  time.Time
	respTime time.Time // zero: no response captured
	dep      time.Time // depTime: when the capture saw it completed
	size     int64     // bytes of captured frames it holds (Window)

	req       codec.Message // decoded request; rewritten in place before sending
	capResp   codec.Message // decoded captured response, nil when none
	noAnswer  bool          // Produce with Acks 0: no response expected
	skip      string        // why it is not sent; "" sends it
	records   int           // records in a Produce request
	accepted  int           // of them, in partitions the target answered without an error
	topics    []string      // topics as captured
	capErrors []int16
	capLat    time.Duration
	capLatOK  bool

	// Filled by Run.
	sent       bool
	answered   bool
	sentVer    int16
	repErrors  []int16
	repLat     time.Duration
	failure    string
	downgrade  string // "v7 → v5", "" when none
	lost       []string
	rewriteNts []string
	// partDowngrades are the parts of a split request sent at another
	// version than the rest, to brokers offering other versions.
	partDowngrades []partDowngrade
}

// partDowngrade is a part of a request sent to one broker at another
// version.
type partDowngrade struct {
	broker string
	to     int16
	lost   []string
}

// Skip reasons, as the report names them.
const (
	skipNotSelected = "not selected"
	skipReadOnly    = "read-only"
	skipSASL        = "SASL (re-authenticated, never replayed)"
	skipUndecoded   = "request not decoded"
	skipNoRequest   = "request not captured"
	// A request of which the capture lost bytes (a hole) is not sent:
	// what is missing cannot be made up.
	skipNotWhole = "request not captured whole"
)

// newItem makes the item of a decoded exchange.
func (r *Replayer) newItem(ex *dissect.Exchange) *item {
	it := &item{index: r.added, stream: ex.Stream, key: ex.APIKey, version: ex.APIVersion, clientID: ex.ClientID}
	if ex.Request != nil {
		it.reqTime = ex.Request.Time
	}
	if ex.Response != nil {
		it.respTime = ex.Response.EndTime
		if it.respTime.IsZero() {
			it.respTime = ex.Response.Time
		}
	}
	it.capLat, it.capLatOK = ex.Latency()
	dec := ex.Decoded
	if dec != nil {
		for _, e := range dec.Errors {
			it.capErrors = append(it.capErrors, e.Code)
		}
		for _, tp := range dec.Topics {
			if tp.Topic != "" {
				it.topics = append(it.topics, tp.Topic)
			} else if !tp.TopicID.IsZero() {
				it.topics = append(it.topics, tp.TopicID.String())
			}
		}
		if ex.APIKey == codec.ApiKeyProduce {
			it.records = dec.Records
		}
		it.capResp = dec.Response
	}
	switch {
	case ex.SASLToken:
		it.key, it.skip = -1, skipSASL
	case ex.Request == nil:
		it.skip = skipNoRequest
	case ex.APIKey == codec.ApiKeySaslHandshake || ex.APIKey == codec.ApiKeySaslAuthenticate:
		it.skip = skipSASL
	case !ex.Request.Captured():
		it.skip = skipNotWhole
	case dec == nil || dec.Request == nil || dec.API == nil:
		it.skip = skipUndecoded
	case !r.selected(ex, it):
		it.skip = skipNotSelected
	case r.opts.ReadOnly && IsWrite(ex.APIKey):
		it.skip = skipReadOnly
	default:
		it.req = dec.Request
		if p, ok := it.req.(*codec.ProduceRequest); ok && p.Acks == 0 {
			it.noAnswer = true
		}
	}
	return it
}

// selected applies Options.APIs, Streams and Topics.
func (r *Replayer) selected(ex *dissect.Exchange, it *item) bool {
	o := &r.opts
	if len(o.APIs) > 0 && !slices.Contains(o.APIs, ex.APIKey) {
		return false
	}
	if len(o.Streams) > 0 && !slices.Contains(o.Streams, ex.Stream) {
		return false
	}
	if o.Select != nil && !o.Select(ex) {
		return false
	}
	if len(o.Topics) == 0 {
		return true
	}
	for _, want := range o.Topics {
		for _, tp := range ex.Decoded.Topics {
			if topicMatches(want, tp) {
				return true
			}
		}
	}
	return false
}

// topicMatches reports whether want (a --topic value: a name, or a
// topic ID as Kafka writes it or in hex) names the topic tp.
func topicMatches(want string, tp codec.TopicPartitions) bool {
	if tp.Topic != "" && tp.Topic == want {
		return true
	}
	return !tp.TopicID.IsZero() && (want == tp.TopicID.String() || strings.EqualFold(want, hex.EncodeToString(tp.TopicID[:])))
}
