package dissect

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/kdissect/kdissect/codec"
)

// Decoded is the decoded content of an exchange.
type Decoded struct {
	RequestHeader  *codec.RequestHeader  // nil when the request was not captured or its header is malformed
	Request        codec.Message         // nil when not captured, of unknown key or version, or malformed
	ResponseHeader *codec.ResponseHeader // nil when no response was captured
	Response       codec.Message         // nil when not captured or not decodable

	// RequestTrailing and ResponseTrailing hold bytes found after a body
	// (noted), so that header + body + trailing reproduces the frame.
	RequestTrailing, ResponseTrailing []byte
	// RequestLenient and ResponseLenient say a value was read leniently (a
	// null in a non-nullable field, noted): re-encoding differs there.
	RequestLenient, ResponseLenient bool
	// ResponseVersion is the version the response body was decoded at: the
	// request's ApiVersion, except for an ApiVersions response a broker
	// sent as v0 because it does not support the version asked (KIP-511).
	ResponseVersion int16

	// API is the ApiKey's description, nil for a key the codec does not know
	// or an exchange whose request was not captured.
	API *codec.API

	// Topics lists every topic-partition the request and response touch,
	// request first; topic IDs are resolved to names from Metadata seen
	// earlier in the capture where possible.
	Topics []codec.TopicPartitions
	// Errors lists every non-zero error code in the response.
	Errors []codec.ErrorRef
	// Records counts the complete records of every record set in the request
	// and response (Produce requests, Fetch responses), control records
	// included, trailing partial batches excluded.
	Records int
	// RecordSets are the decoded record sets with their topic-partitions.
	RecordSets []codec.RecordsRef
	// RecordsAborted counts, of a Fetch response, the records of Records
	// in transactional batches marked aborted (codec.MarkTransactions);
	// Transactions holds the marking per partition, in wire order.
	RecordsAborted int
	Transactions   []PartitionTransactions
	// RecordsNotCaptured says the capture lacks some of the records the
	// exchange carried, so Records (and RecordsAborted) count only those
	// captured: a lower bound, and nothing known when 0 (not_captured.go).
	// ErrorsNotCaptured says the same of Errors: an error code of the
	// response fell in a hole, decoding stopped before its end, or the
	// response was sent but not captured.
	RecordsNotCaptured, ErrorsNotCaptured bool
	// RecordSetsNotCaptured says, of those records, that whole record
	// sets are missing from RecordSets (decoding stopped before them, or
	// their frame was not captured), not only records of sets it holds;
	// RecordsUnnamed that Topics may not name their topic-partitions.
	RecordSetsNotCaptured, RecordsUnnamed bool
	// SequenceAnomalies lists, of a Produce request, the batches of
	// idempotent producers whose BaseSequence does not follow what the
	// capture showed before (each also a note).
	SequenceAnomalies []SequenceAnomaly
}

// DecodeOptions configures a Decoder.
type DecodeOptions struct {
	// Records bounds record set decoding: MaxDecompressedBytes is the budget
	// of each frame (decompressed bytes plus decoded records). With
	// Records.CountOnly, record sets are decoded only as far as counting
	// them needs (see codec.RecordDecodeOptions.CountOnly): Decoded.Records
	// and each RecordSets entry's Count and sizes are kept, the records of
	// batches with a matching CRC are not decoded, and neither are the
	// notes those records would have caused.
	Records codec.RecordDecodeOptions
}

// Decoder decodes the frames of exchanges, in capture order. It is
// stateful: topic IDs learnt from Metadata (and any other response naming
// both a topic and its ID) resolve topic IDs in later exchanges.
type Decoder struct {
	opts       DecodeOptions
	topicNames map[codec.UUID]string
	seqs       sequences // idempotent producers' sequences (MaxSequenceStreams)
}

// NewDecoder returns a Decoder.
func NewDecoder(opts DecodeOptions) *Decoder {
	return &Decoder{opts: opts, topicNames: map[codec.UUID]string{}}
}

// Decode fills ex.Decoded and adds notes for what could not be decoded,
// and for a request whose response is missing though one was expected.
// Call it in capture order; when PrepareDecode has already run on ex (on
// any goroutine), Decode only does the part that depends on earlier
// exchanges.
func (d *Decoder) Decode(ex *Exchange) {
	d.DecodeFrames(ex)
	markFramesNotCaptured(ex, ex.Decoded)
	// The dissector notes why a response is missing (ex.NoResponse).
	if ex.Request != nil && ex.Response == nil && ex.NoResponse == ResponseSeen && !ex.SASLToken && !noResponseExpected(ex) {
		ex.AddNote(NoteNoResponse, "no response captured")
	}
}

// DecodeFrames decodes the frames ex holds, without judging what the
// capture lacks: for frames that come from elsewhere than a capture.
func (d *Decoder) DecodeFrames(ex *Exchange) {
	p := ex.prepared
	if p == nil {
		p = prepare(ex, d.opts)
	}
	ex.prepared = nil
	d.finish(ex, p)
}

// PrepareDecode does the costly part of decoding ex, which depends on no
// other exchange: headers, bodies, their summaries and record sets. It may
// run on many exchanges at once, on any goroutines; Decoder.Decode, called
// later in capture order, completes the work with what earlier exchanges
// taught it (topic names of topic IDs). opts must be the Decoder's. It
// returns what decoding the record sets cost (decompressed bytes plus
// decoded records, as codec.RecordBudget counts them), for a caller that
// bounds the memory of the exchanges it holds.
func PrepareDecode(ex *Exchange, opts DecodeOptions) (recordBytes int64) {
	ex.prepared = prepare(ex, opts)
	return ex.prepared.recordBytes
}

// prepared is what PrepareDecode found, waiting for Decoder.finish.
type prepared struct {
	dec         *Decoded
	recordBytes int64 // record decoding budget used, both sides
	// sides are the request's and the response's summaries (the topics,
	// errors and decoded record sets of each body), unresolved.
	sides [2]preparedSide
}

type preparedSide struct {
	sum     *codec.Summary     // nil when the body did not decode; from summaries
	records []codec.RecordsRef // of sum, with Records.Set decoded
}

// summaries recycles the Summaries prepare fills and finish empties: their
// slices are worth reusing from one exchange to the next, as a Decoder
// reusing one Summary did before decoding ran on several goroutines.
var summaries = sync.Pool{New: func() any { return new(codec.Summary) }}

// prepare decodes the frames and what the bodies hold.
func prepare(ex *Exchange, opts DecodeOptions) *prepared {
	dec := &Decoded{}
	p := &prepared{dec: dec}
	if ex.SASLToken {
		return p // raw SASL tokens: no Kafka header or body (see Exchange.SASLToken)
	}
	if ex.APIKey >= 0 {
		if api, ok := codec.LookupAPI(ex.APIKey); ok {
			dec.API = api
		}
	}
	if ex.Request != nil {
		decodeRequest(ex, dec)
	}
	if ex.Response != nil {
		decodeResponse(ex, dec)
	}
	for i, m := range [2]codec.Message{dec.Request, dec.Response} {
		if m == nil {
			continue
		}
		version := ex.APIVersion
		if i == 1 {
			version = dec.ResponseVersion
		}
		sum := summaries.Get().(*codec.Summary)
		sum.Reset()
		m.Summarize(sum, version)
		side := &p.sides[i]
		side.sum = sum
		// One budget for every record set of the frame, so that a frame of
		// many small bombs costs no more than one (codec.RecordBudget).
		ropts := opts.Records
		ropts.Budget = codec.NewRecordBudget(ropts.MaxDecompressedBytes)
		for _, rr := range sum.Records {
			if rr.Records.DecodeRecords(ropts) != nil {
				side.records = append(side.records, rr)
			}
		}
		p.recordBytes += ropts.Budget.Used()
	}
	return p
}

// noResponseExpected reports a Produce request with Acks=0, which the broker
// never answers; read from the frame, so that it holds for a body that does
// not decode.
func noResponseExpected(ex *Exchange) bool {
	return acksZero(ex.Request.Bytes[:ex.Request.HeadLen()])
}

func decodeRequest(ex *Exchange, dec *Decoded) {
	if ex.APIVersion < 0 {
		if api := dec.API; api != nil && versionOnWire(ex.Request) {
			// A negative ApiVersion on the wire: no API has one.
			ex.AddNote(NoteUnknownVersion, fmt.Sprintf("unsupported version: %s v%d (the codec knows v%d-v%d): request body not decoded",
				api.Name, ex.APIVersion, api.MinVersion, api.MaxVersion))
		}
		return // else the header was not captured whole: the matcher said so
	}
	if ex.Request.Size < 4 {
		ex.AddNote(NoteMalformed, fmt.Sprintf("request frame of %d bytes is too short for a header", ex.Request.Size))
		return
	}
	api := dec.API
	if api == nil {
		ex.AddNote(NoteUnknownAPI, fmt.Sprintf("unknown API key %d: request body not decoded", ex.APIKey))
		return
	}
	if !api.SupportsVersion(ex.APIVersion) {
		ex.AddNote(NoteUnknownVersion, fmt.Sprintf("unsupported version: %s v%d (the codec knows v%d-v%d): request body not decoded",
			api.Name, ex.APIVersion, api.MinVersion, api.MaxVersion))
		return
	}
	hv := codec.RequestHeaderVersion(ex.APIKey, ex.APIVersion)
	r, hdr, body := decodeRequestFrame(api, ex.Request, hv, ex.APIVersion)
	if hv == 0 && (r.Err() != nil || r.Remaining() > 0) {
		// Kafka reads ControlledShutdown v0 with header v0 (no ClientId),
		// but some clients (kafka-python) send header v1: take it when the
		// frame then decodes exactly.
		if r1, hdr1, body1 := decodeRequestFrame(api, ex.Request, 1, ex.APIVersion); r1.Err() == nil && r1.Remaining() == 0 {
			r, hdr, body = r1, hdr1, body1
			ex.AddNote(NoteHeaderVersion, fmt.Sprintf("%s v%d sent with request header v1 (with ClientId); Kafka expects header v0", api.Name, ex.APIVersion))
		}
	}
	if hdr == nil {
		if err := r.Err(); errors.Is(err, codec.ErrNotCaptured) {
			ex.AddNote(NoteTruncated, fmt.Sprintf("request header not captured whole: %v", err))
		} else {
			ex.AddNote(NoteMalformed, fmt.Sprintf("malformed request header: %v", err))
		}
		return
	}
	dec.RequestHeader = hdr
	ex.ClientID = hdr.ClientId
	if ex.Request.Oversized {
		return // noted by the framer
	}
	if bodyNotes(ex, r, body, "request", api, ex.Request) {
		dec.Request = body
		dec.RequestTrailing = trailing(r, ex.Request)
		dec.RequestLenient = len(r.Warnings) > 0
	}
}

// trailing returns the bytes after a body, which must be captured.
func trailing(r *codec.Reader, f *Frame) []byte {
	if r.Err() != nil || r.Remaining() == 0 || !f.Captured() {
		return nil
	}
	return r.Rest()
}

// decodeRequestFrame decodes a request header of version hv and the body;
// hdr is nil when the header itself is malformed.
func decodeRequestFrame(api *codec.API, f *Frame, hv, version int16) (r *codec.Reader, hdr *codec.RequestHeader, body codec.Message) {
	r = f.Reader(0)
	hdr = new(codec.RequestHeader)
	hdr.ReadFrom(r, hv)
	if r.Err() != nil {
		return r, nil, nil
	}
	body = api.NewRequest()
	body.ReadFrom(r, version)
	return r, hdr, body
}

func decodeResponse(ex *Exchange, dec *Decoded) {
	api := dec.API
	if api == nil {
		// Without its request (and so its ApiKey and ApiVersion) a response
		// body cannot be decoded; the matcher has noted that.
		hdr := new(codec.ResponseHeader)
		r := ex.Response.Reader(0)
		hdr.ReadFrom(r, 0)
		if r.Err() == nil {
			dec.ResponseHeader = hdr
		}
		return
	}
	if !api.SupportsVersion(ex.APIVersion) {
		return // the request's note says why
	}
	r := ex.Response.Reader(0)
	hdr := new(codec.ResponseHeader)
	hdr.ReadFrom(r, codec.ResponseHeaderVersion(ex.APIKey, ex.APIVersion))
	if err := r.Err(); err != nil {
		if errors.Is(err, codec.ErrNotCaptured) {
			ex.AddNote(NoteTruncated, fmt.Sprintf("response header not captured whole: %v", err))
		} else {
			ex.AddNote(NoteMalformed, fmt.Sprintf("malformed response header: %v", err))
		}
		return
	}
	dec.ResponseHeader = hdr
	if ex.Response.Oversized {
		return // noted by the framer
	}
	dec.ResponseVersion = ex.APIVersion
	bodyStart := r.Offset()
	body := api.NewResponse()
	body.ReadFrom(r, ex.APIVersion)
	if ex.APIKey == apiVersionsKey && ex.APIVersion > 0 && (r.Err() != nil || r.Remaining() > 0) {
		// A broker that does not support the ApiVersions version asked
		// answers UNSUPPORTED_VERSION with a v0 body, and clients read it
		// so (KIP-511; Kafka's ApiVersionsResponse.parse).
		r0 := ex.Response.Reader(bodyStart)
		body0 := api.NewResponse()
		body0.ReadFrom(r0, 0)
		if r0.Err() == nil && r0.Remaining() == 0 {
			ex.AddNote(NoteAPIVersionsV0, fmt.Sprintf("ApiVersions v%d answered with a v0 body (the broker's fallback for a version it does not support)", ex.APIVersion))
			r, body, dec.ResponseVersion = r0, body0, 0
		}
	}
	if bodyNotes(ex, r, body, "response", api, ex.Response) {
		dec.Response = body
		dec.ResponseTrailing = trailing(r, ex.Response)
		dec.ResponseLenient = len(r.Warnings) > 0
	}
}

// countsRecords says whether the records of a body count in Decoded.Records:
// those a Produce request carries and a Fetch response returns (DESIGN.md).
// Other record sets (ShareFetch) are decoded but not counted.
func countsRecords(apiKey int16, response bool) bool {
	return apiKey == codec.ApiKeyProduce && !response || apiKey == codec.ApiKeyFetch && response
}

// apiVersionsKey is the ApiKey of ApiVersions.
const apiVersionsKey = 18

// bodyNotes turns what the reader met into notes and reports whether the
// body decoded, wholly or as far as the capture holds it.
func bodyNotes(ex *Exchange, r *codec.Reader, body codec.Message, side string, api *codec.API, f *Frame) bool {
	for _, w := range r.Warnings {
		ex.AddNote(NoteFieldWarning, fmt.Sprintf("%s: %s", side, w))
	}
	err := r.Err()
	if nc := r.NotCaptured(); len(nc) > 0 {
		ex.AddNote(NoteTruncated, notCapturedNote(side, api, ex.APIVersion, nc))
	}
	if err != nil {
		if errors.Is(err, codec.ErrNotCaptured) {
			return true // the fields read stand; the note says where it stopped
		}
		ex.AddNote(NoteMalformed, fmt.Sprintf("malformed %s v%d %s: %v", api.Name, ex.APIVersion, side, err))
		return false
	}
	if n := r.Remaining(); n > 0 {
		ex.AddNote(NoteMalformed, fmt.Sprintf("%s: %d bytes after the %s v%d body", side, n, api.Name, ex.APIVersion))
	}
	return true
}

// finish completes what prepare found, in capture order: it learns topic
// names from the bodies, resolves topic IDs, and notes what the record
// sets held.
func (d *Decoder) finish(ex *Exchange, p *prepared) {
	dec := p.dec
	ex.Decoded = dec
	for i := range p.sides {
		side := &p.sides[i]
		if side.sum == nil {
			continue
		}
		for _, t := range side.sum.Topics {
			if t.Topic != "" && !t.TopicID.IsZero() {
				d.topicNames[t.TopicID] = t.Topic
			}
		}
		for _, t := range side.sum.Topics {
			dec.Topics = mergeTopic(dec.Topics, d.resolve(t))
		}
		if i == 1 {
			for _, e := range side.sum.Errors {
				if e.Topic == "" && !e.TopicID.IsZero() {
					e.Topic = d.topicNames[e.TopicID]
				}
				dec.Errors = append(dec.Errors, e)
			}
		}
		for _, rr := range side.records {
			set := rr.Records.Set
			if rr.Topic == "" && !rr.TopicID.IsZero() {
				rr.Topic = d.topicNames[rr.TopicID]
			}
			dec.RecordSets = append(dec.RecordSets, rr)
			if countsRecords(ex.APIKey, i == 1) {
				dec.Records += set.Count()
			}
			if len(set.Notes) == 0 && set.PartialBytes == 0 {
				continue
			}
			where := recordsWhere(rr)
			for i, n := range set.Notes {
				ex.AddNote(recordNoteKind(set.NoteKinds[i]), fmt.Sprintf("records of %s: %s", where, n))
			}
			if set.PartialBytes > 0 {
				ex.AddNote(NotePartialBatch, fmt.Sprintf("records of %s: partial batch of %d bytes at the end (a fetch cut at its size limit): not decoded", where, set.PartialBytes))
			}
		}
		// Decoded holds copies of what it keeps (mergeTopic copies the
		// partitions): the Summary can serve another exchange.
		summaries.Put(side.sum)
		side.sum, side.records = nil, nil
	}
	markFetchTransactions(ex, dec, d.topicNames)
	d.seqs.check(ex, dec)
	MarkNotCaptured(ex) // not_captured.go
}

// SequencesUntracked counts the batches of idempotent producers whose
// sequences were not checked: their (producer, partition) came after
// MaxSequenceStreams others.
func (d *Decoder) SequencesUntracked() int64 { return d.seqs.untracked }

func (d *Decoder) resolve(t codec.TopicPartitions) codec.TopicPartitions {
	if t.Topic == "" && !t.TopicID.IsZero() {
		t.Topic = d.topicNames[t.TopicID]
	}
	return t
}

func recordsWhere(rr codec.RecordsRef) string {
	topic := rr.Topic
	if topic == "" && !rr.TopicID.IsZero() {
		topic = "topic id " + rr.TopicID.String()
	}
	if rr.Partition >= 0 {
		return fmt.Sprintf("%s-%d", topic, rr.Partition)
	}
	return topic
}

// mergeTopic adds t to ts, merging partitions into an entry of the same
// topic (by name, or by ID when the name is unknown), in linear time.
func mergeTopic(ts []codec.TopicPartitions, t codec.TopicPartitions) []codec.TopicPartitions {
	for i := range ts {
		same := ts[i].Topic == t.Topic && (t.Topic != "" || ts[i].TopicID == t.TopicID)
		if !same {
			continue
		}
		if ts[i].TopicID.IsZero() {
			ts[i].TopicID = t.TopicID
		}
		seen := make(map[int32]struct{}, len(ts[i].Partitions)+len(t.Partitions))
		for _, p := range ts[i].Partitions {
			seen[p] = struct{}{}
		}
		for _, p := range t.Partitions {
			if _, ok := seen[p]; !ok {
				seen[p] = struct{}{}
				ts[i].Partitions = append(ts[i].Partitions, p)
			}
		}
		return ts
	}
	t.Partitions = append([]int32(nil), t.Partitions...)
	return append(ts, t)
}

// notCapturedNote says which fields of a body the capture lacks (at most
// a few named), and where decoding stopped if it did. Offsets count the
// 4-byte size prefix, as the hexdump does.
func notCapturedNote(side string, api *codec.API, version int16, nc []codec.NotCaptured) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s v%d %s: ", api.Name, version, side)
	// A records field with many holes is listed once per hole: one entry
	// a field here.
	type field struct {
		codec.NotCaptured
		holes int
	}
	var fields []field
	var stop *codec.NotCaptured
	for i := range nc {
		switch n := len(fields); {
		case nc[i].Stop:
			stop = &nc[i]
		case n > 0 && fields[n-1].Path == nc[i].Path:
			fields[n-1].End = nc[i].End
			fields[n-1].holes++
		default:
			fields = append(fields, field{nc[i], 1})
		}
	}
	if len(fields) > 0 {
		b.WriteString("not captured: ")
		for i, f := range fields {
			if i == 3 {
				fmt.Fprintf(&b, " and %d more", len(fields)-3)
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			if f.holes > 1 {
				fmt.Fprintf(&b, "%s (%d holes in bytes %d-%d)", f.Path, f.holes, 4+f.Start, 4+f.End)
			} else {
				fmt.Fprintf(&b, "%s (bytes %d-%d)", f.Path, 4+f.Start, 4+f.End)
			}
		}
	}
	if stop != nil {
		if len(fields) > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "decoded up to %s at byte %d, where what locates the rest was not captured", stop.Path, 4+stop.Start)
	}
	return b.String()
}

// versionOnWire reports whether the request frame f's ApiVersion was
// captured (Exchange.APIVersion is -1 otherwise): its header read whole,
// or, cut by a hole, at least its first 4 bytes (conn.partialRequest).
func versionOnWire(f *Frame) bool {
	head := f.HeadLen()
	return head >= reqHeaderMin || head >= 4 && len(f.Holes) > 0 && f.Size >= reqHeaderMin
}
