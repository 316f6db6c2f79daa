package displayfilter

import (
	"encoding/json"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// tsLayout is the JSON contract's "ts": RFC 3339 with nanoseconds, fixed
// width, as render.JSONLines writes it.
const tsLayout = "2006-01-02T15:04:05.000000000Z07:00"

// Env is what an expression sees of one exchange: the keys of the JSON
// Lines contract (DESIGN.md) by their names there (tls among them), plus latency, the
// latency as a time.Duration. A key the contract writes as null is nil
// here (those fields are typed any); request and response are the decoded
// bodies (codec.Message, pointers to the generated structs), whose fields
// are Kafka's field names.
type Env struct {
	TS            string       `expr:"ts"`
	Stream        int          `expr:"stream"`
	Client        string       `expr:"client"`
	Broker        string       `expr:"broker"`
	APIKey        any          `expr:"api_key"`     // int, nil when unknown
	API           any          `expr:"api"`         // string, nil when unknown
	APIVersion    any          `expr:"api_version"` // int, nil when unknown
	CorrelationID int          `expr:"correlation_id"`
	ClientID      any          `expr:"client_id"` // string or nil
	Request       any          `expr:"request"`   // codec.Message or nil
	Response      any          `expr:"response"`  // codec.Message or nil
	RequestSize   any          `expr:"request_size"`
	ResponseSize  any          `expr:"response_size"`
	LatencyUS     any          `expr:"latency_us"` // int64 microseconds, nil without both sides
	Latency       any          `expr:"latency"`    // time.Duration, nil without both sides
	Topics        []Topic      `expr:"topics"`
	Errors        []ErrorEntry `expr:"errors"`
	// ErrorsNotCaptured is "errors_not_captured": the response's error
	// codes were not all captured (dissect.Decoded.ErrorsNotCaptured).
	ErrorsNotCaptured bool `expr:"errors_not_captured"`
	Records           any  `expr:"records"` // int, nil when none was captured and some were not
	// RecordsAborted is "records_aborted": of a Fetch response read at
	// read_committed, the records of Records that aborted transactions
	// wrote (dissect.Decoded.RecordsAborted); 0 otherwise, nil with
	// Records.
	RecordsAborted any `expr:"records_aborted"`
	// RecordsNotCaptured is "records_not_captured": Records counts the
	// records captured, some were not (dissect.Decoded.RecordsNotCaptured).
	RecordsNotCaptured bool `expr:"records_not_captured"`
	// RequestPackets and ResponsePackets are "request_packets" and
	// "response_packets": []int{first, last}, the frame numbers (from 1,
	// as Wireshark numbers the packets of the file) of the packets that
	// carried the first and last byte of the side; nil for a side not
	// captured (render/packets.go).
	RequestPackets  any `expr:"request_packets"`
	ResponsePackets any `expr:"response_packets"`
	// PacketComments is "packet_comments": the pcapng comments of the
	// packets that carried the exchange, in packet order; nil when none
	// (the JSON leaves the key out).
	PacketComments []string `expr:"packet_comments"`
	Notes          []string `expr:"notes"`
	File           string   `expr:"file"` // "" when one file was read
	TLS            any      `expr:"tls"`  // *TLS, nil for plaintext
}

// TLS is "tls": what the handshake of a TLS connection negotiated.
type TLS struct {
	Version   string `expr:"version" json:"version"`
	Cipher    string `expr:"cipher" json:"cipher"`
	SNI       string `expr:"sni" json:"sni"`
	Encrypted bool   `expr:"encrypted" json:"encrypted,omitempty"` // not decrypted
}

// Topic is one entry of "topics": a topic (nil when known only by its
// ID) and the partitions the exchange touches.
type Topic struct {
	Topic      any     `expr:"topic" json:"topic"`
	TopicID    any     `expr:"topic_id" json:"topic_id,omitempty"` // base64 string, nil when none
	Partitions []int32 `expr:"partitions" json:"partitions"`
}

// ErrorEntry is one entry of "errors": a non-zero error code with its name as
// Kafka spells it, and the topic and partition it was reported for (nil
// where not applicable).
type ErrorEntry struct {
	Code      int16  `expr:"code"`
	Name      string `expr:"name"`
	Topic     any    `expr:"topic"`
	TopicID   any    `expr:"topic_id"`
	Partition any    `expr:"partition"`
	hasTopic  bool   // "topic" is written, as null when only TopicID is known
}

// MarshalJSON writes e as the JSON contract does: keys in its order,
// absent where not applicable.
func (e ErrorEntry) MarshalJSON() ([]byte, error) {
	w := codec.NewJSONWriter(nil)
	w.BeginObject()
	w.Key("code")
	w.Int(int64(e.Code))
	w.Key("name")
	w.String(e.Name)
	if e.hasTopic {
		w.Key("topic")
		if s, ok := e.Topic.(string); ok {
			w.Text(s)
		} else {
			w.Null()
		}
	}
	if s, ok := e.TopicID.(string); ok {
		w.Key("topic_id")
		w.String(s)
	}
	if p, ok := e.Partition.(int32); ok {
		w.Key("partition")
		w.Int(int64(p))
	}
	w.EndObject()
	return w.Bytes(), nil
}

var _ json.Marshaler = ErrorEntry{}

// need is a set of Env fields an expression reads: only those are filled
// in for each exchange.
type need uint32

const (
	needTS need = 1 << iota
	needAddrs
	needClientID
	needTopics
	needErrors
	needNotes
	needLatency
	needOther      // everything cheap
	needAll   need = 1<<iota - 1
)

// needOf maps the Env names to what filling them costs.
var needOf = map[string]need{
	"ts": needTS, "client": needAddrs, "broker": needAddrs, "client_id": needClientID,
	"topics": needTopics, "errors": needErrors, "notes": needNotes,
	"latency": needLatency, "latency_us": needLatency,
}

// fill sets e from ex, the fields n names (and the cheap ones always).
func (e *Env) fill(ex *dissect.Exchange, n need) {
	dec := ex.Decoded
	if dec == nil {
		dec = &dissect.Decoded{}
	}
	*e = Env{Stream: ex.Stream, CorrelationID: int(ex.CorrelationID),
		ErrorsNotCaptured: dec.ErrorsNotCaptured, RecordsNotCaptured: dec.RecordsNotCaptured,
		File: ex.File, PacketComments: ex.PacketComments}
	// As the JSON writes them: nothing known is null (render/not_captured.go).
	if !dec.RecordsNotCaptured || dec.Records > 0 {
		e.Records, e.RecordsAborted = dec.Records, dec.RecordsAborted
	}
	if ex.Request != nil {
		e.RequestPackets = framePackets(ex.Request)
	}
	if ex.Response != nil {
		e.ResponsePackets = framePackets(ex.Response)
	}
	if n&needTS != 0 {
		e.TS = ex.Time().UTC().Format(tsLayout)
	}
	if ex.TLS != nil {
		e.TLS = &TLS{Version: ex.TLS.Version, Cipher: ex.TLS.Cipher, SNI: ex.TLS.SNI, Encrypted: ex.TLS.Encrypted}
	}
	if n&needAddrs != 0 {
		e.Client, e.Broker = ex.Client.String(), ex.Broker.String()
	}
	if ex.APIKey >= 0 {
		e.APIKey, e.APIVersion = int(ex.APIKey), int(ex.APIVersion)
	}
	if dec.API != nil {
		e.API = dec.API.Name
	}
	if n&needClientID != 0 && ex.ClientID != nil {
		e.ClientID = *ex.ClientID
	}
	if dec.Request != nil {
		e.Request = dec.Request
	}
	if dec.Response != nil {
		e.Response = dec.Response
	}
	if ex.Request != nil {
		e.RequestSize = int(ex.Request.Size)
	}
	if ex.Response != nil {
		e.ResponseSize = int(ex.Response.Size)
	}
	if n&needLatency != 0 {
		if lat, ok := ex.Latency(); ok {
			e.Latency, e.LatencyUS = lat, lat.Microseconds()
		}
	}
	if n&needTopics != 0 {
		e.Topics = make([]Topic, len(dec.Topics))
		for i, tp := range dec.Topics {
			t := Topic{Partitions: tp.Partitions}
			if t.Partitions == nil {
				t.Partitions = []int32{}
			}
			if tp.Topic != "" || tp.TopicID.IsZero() {
				t.Topic = tp.Topic
			}
			if !tp.TopicID.IsZero() {
				t.TopicID = tp.TopicID.String()
			}
			e.Topics[i] = t
		}
	}
	if n&needErrors != 0 {
		e.Errors = make([]ErrorEntry, len(dec.Errors))
		for i, er := range dec.Errors {
			x := ErrorEntry{Code: er.Code, Name: codec.ErrorName(er.Code)}
			switch {
			case er.Topic != "":
				x.Topic, x.hasTopic = er.Topic, true
			case !er.TopicID.IsZero():
				x.hasTopic = true
			}
			if !er.TopicID.IsZero() {
				x.TopicID = er.TopicID.String()
			}
			if er.Partition >= 0 {
				x.Partition = er.Partition
			}
			e.Errors[i] = x
		}
	}
	if n&needNotes != 0 {
		e.Notes = dissect.NoteTexts(ex.Notes)
		if e.Notes == nil {
			e.Notes = []string{}
		}
	}
}

// framePackets is f's [first, last] frame numbers, from 1.
func framePackets(f *dissect.Frame) []int {
	return []int{int(f.FilePacket + 1), int(f.LastFilePacket + 1)}
}
