// Package filter selects exchanges: by API, topic, client id, error,
// latency and connection, as the --api, --topic, --client-id, --errors,
// --min-latency and --stream flags of read, live and stats ask
// (DESIGN.md). A Set is built once and matched against each exchange as
// it is decoded.
package filter

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// Set is a conjunction of conditions on an exchange: an exchange matches
// when it meets every condition given. Within one condition with several
// values (two --api flags), any value will do. The zero Set matches every
// exchange.
type Set struct {
	// APIs are ApiKeys; SASL token exchanges, which have none, match
	// none.
	APIs []int16
	// Topics are topic names or topic IDs (Kafka's base64 form, or 32
	// hex digits): the exchange must touch one (Decoded.Topics, whose
	// IDs the decoder resolves to names where it learnt them).
	Topics []string
	// ClientIDs are client ids, matched exactly.
	ClientIDs []string
	// Errors keeps only exchanges whose response holds a non-zero error
	// code (Decoded.Errors).
	Errors bool
	// MinLatency keeps only exchanges with both a request and a response
	// at least this far apart; 0 means no condition.
	MinLatency time.Duration
	// Streams are connection numbers (Exchange.Stream).
	Streams []int
}

// IsZero reports whether s has no condition.
func (s *Set) IsZero() bool {
	return s == nil || len(s.APIs) == 0 && len(s.Topics) == 0 && len(s.ClientIDs) == 0 &&
		!s.Errors && s.MinLatency == 0 && len(s.Streams) == 0
}

// Match reports whether ex meets every condition of s. Conditions on
// topics and errors need ex decoded (ex.Decoded set).
func (s *Set) Match(ex *dissect.Exchange) bool {
	if s == nil {
		return true
	}
	if len(s.APIs) > 0 && (ex.SASLToken || ex.APIKey < 0 || !slices.Contains(s.APIs, ex.APIKey)) {
		return false
	}
	if len(s.Streams) > 0 && !slices.Contains(s.Streams, ex.Stream) {
		return false
	}
	if len(s.ClientIDs) > 0 && (ex.ClientID == nil || !slices.Contains(s.ClientIDs, *ex.ClientID)) {
		return false
	}
	if s.MinLatency > 0 {
		if lat, ok := ex.Latency(); !ok || lat < s.MinLatency {
			return false
		}
	}
	dec := ex.Decoded
	if s.Errors && (dec == nil || len(dec.Errors) == 0) {
		return false
	}
	if len(s.Topics) > 0 && (dec == nil || !s.matchTopics(dec.Topics)) {
		return false
	}
	return true
}

func (s *Set) matchTopics(ts []codec.TopicPartitions) bool {
	for _, t := range ts {
		for _, want := range s.Topics {
			if t.Topic != "" && t.Topic == want {
				return true
			}
			if !t.TopicID.IsZero() && (want == t.TopicID.String() || strings.EqualFold(want, hex.EncodeToString(t.TopicID[:]))) {
				return true
			}
		}
	}
	return false
}

// ParseAPI reads an API given by name as Kafka spells it (Produce,
// ListOffsets; case does not matter; a former name such as
// ListClientMetricsResources too) or by ApiKey.
func ParseAPI(s string) (int16, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 16); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("bad API key %d", n)
		}
		return int16(n), nil
	}
	if k, ok := codec.APIKeyByName(s); ok {
		return k, nil
	}
	return 0, fmt.Errorf("unknown API %q: want a name as Kafka spells it (Produce, Fetch, Metadata...) or an ApiKey (see kdissect apis)", s)
}

// String describes s for messages: "api Produce, Fetch; errors".
func (s *Set) String() string {
	if s.IsZero() {
		return "every exchange"
	}
	var parts []string
	if len(s.APIs) > 0 {
		names := make([]string, len(s.APIs))
		for i, k := range s.APIs {
			names[i] = codec.APIName(k)
		}
		parts = append(parts, "api "+strings.Join(names, ", "))
	}
	if len(s.Topics) > 0 {
		parts = append(parts, "topic "+strings.Join(s.Topics, ", "))
	}
	if len(s.ClientIDs) > 0 {
		parts = append(parts, "client id "+strings.Join(s.ClientIDs, ", "))
	}
	if s.Errors {
		parts = append(parts, "errors")
	}
	if s.MinLatency > 0 {
		parts = append(parts, "latency ≥ "+s.MinLatency.String())
	}
	if len(s.Streams) > 0 {
		ss := make([]string, len(s.Streams))
		for i, n := range s.Streams {
			ss[i] = strconv.Itoa(n)
		}
		parts = append(parts, "stream "+strings.Join(ss, ", "))
	}
	return strings.Join(parts, "; ")
}
