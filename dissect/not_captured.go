package dissect

import (
	"strings"

	"github.com/kdissect/kdissect/codec"
)

// MarkNotCaptured sets, on ex.Decoded filled from the frames ex holds,
// RecordsNotCaptured, ErrorsNotCaptured, RecordSetsNotCaptured and
// RecordsUnnamed: whether Records and Errors hold less than the frames
// carried because bytes of them were not captured (holes, the snap
// length, a frame cut short). A malformed body is a note, not an unknown.
// Decoder.DecodeFrames calls it; a caller that fills Decoded itself (the
// decode command) calls it after. Decoder.Decode also judges the frames
// the capture lacks (markFramesNotCaptured).
func MarkNotCaptured(ex *Exchange) {
	dec := ex.Decoded
	if ex.SASLToken || dec == nil {
		return
	}
	switch ex.APIKey {
	case codec.ApiKeyProduce:
		dec.RecordSetsNotCaptured = sideNotCaptured(ex.Request, dec.Request, false, recordsPath)
		// The response names every topic-partition of the request.
		named := ex.Response != nil && dec.Response != nil && dec.Response.NotCaptured() == nil
		dec.RecordsUnnamed = dec.RecordSetsNotCaptured && !named
	case codec.ApiKeyFetch:
		// The request need not name what the response returns (fetch
		// sessions leave out partitions unchanged).
		dec.RecordSetsNotCaptured = sideNotCaptured(ex.Response, dec.Response, ex.Request == nil, recordsPath)
		dec.RecordsUnnamed = dec.RecordSetsNotCaptured
	}
	dec.RecordsNotCaptured = dec.RecordSetsNotCaptured || setsNotCaptured(dec.RecordSets)
	dec.ErrorsNotCaptured = sideNotCaptured(ex.Response, dec.Response, ex.Request == nil || !ex.Request.Captured(), errorPath)
}

// markFramesNotCaptured adds to what MarkNotCaptured set the frames the
// capture lacks: a response sent but not captured (its errors, and a
// Fetch's records), a Produce response whose request was not captured
// (its ApiKey from the CorrelationId: the records).
func markFramesNotCaptured(ex *Exchange, dec *Decoded) {
	if ex.SASLToken {
		return
	}
	lost := responseLost(ex)
	if lost {
		dec.ErrorsNotCaptured = true
	}
	if lost && ex.APIKey == codec.ApiKeyFetch || ex.Request == nil && ex.Response != nil && ex.APIKey == codec.ApiKeyProduce {
		dec.RecordsNotCaptured, dec.RecordSetsNotCaptured, dec.RecordsUnnamed = true, true, true
	}
}

// responseLost reports a request whose response the broker sent (or may
// have sent) but the capture does not hold.
func responseLost(ex *Exchange) bool {
	return ex.Request != nil && ex.Response == nil && (ex.NoResponse == ResponseLost || ex.NoResponse == ResponseGaveUp)
}

// sideNotCaptured reports whether a frame's body lacks a field of the kind
// path matches: the frame has holes and its body did not decode (or the
// request it answers was not captured whole, requestCut), decoding
// stopped at a hole (every later field unknown), or such a field fell in
// a hole. A frame absent is not judged here.
func sideNotCaptured(f *Frame, body codec.Message, requestCut bool, path func(string) bool) bool {
	if f == nil {
		return false
	}
	if body == nil {
		return !f.Captured() || requestCut
	}
	for _, nc := range body.NotCaptured() {
		if nc.Stop || path(nc.Path) {
			return true
		}
	}
	return false
}

// lastField is the last element of a NotCaptured path:
// "Responses[0].Partitions[2].ErrorCode" -> "ErrorCode".
func lastField(path string) string { return path[strings.LastIndexByte(path, '.')+1:] }

// recordsPath matches a records field (Produce's and Fetch's are named
// Records).
func recordsPath(path string) bool { return lastField(path) == "Records" }

// errorPath matches a field Summarize takes error codes from (ErrorCode,
// PartitionErrorCode, TopicConfigErrorCode, AcknowledgeErrorCode).
func errorPath(path string) bool { return strings.HasSuffix(lastField(path), "ErrorCode") }

// setsNotCaptured reports whether a record set lacks records. Produce
// carries records only in its request, Fetch only in its response.
func setsNotCaptured(sets []codec.RecordsRef) bool {
	for i := range sets {
		if recs, _ := RecordSetNotCaptured(sets[i].Records); recs {
			return true
		}
	}
	return false
}

// RecordSetNotCaptured reports, for a decoded records field, whether the
// capture lacked some of its records (its count, Set.Count(), is then a
// lower bound) and some of its complete entries' bytes (12 + BatchLength
// or MessageSize each: the sum over Set.Entries is then a lower bound). A
// field wholly captured lacks neither; one with holes lacks records when
// an entry with a hole has records not decoded (a batch whose
// RecordsNotCaptured is not 0, any legacy message) or when its entries
// and trailing partial entry do not tile it (an entry whose size was
// lost was skipped); it lacks bytes only in the latter case.
func RecordSetNotCaptured(r *codec.Records) (records, bytes bool) {
	s := r.Set
	if r.Gaps == nil || s == nil {
		return false, false
	}
	tiled := int64(r.Len()) == EntryBytes(s)+int64(s.PartialBytes)
	records = !tiled
	for _, e := range s.Entries {
		switch {
		case e.Batch != nil && e.Batch.Gaps != nil && e.Batch.RecordsNotCaptured != 0,
			e.Message != nil && e.Message.Gaps != nil:
			records = true
		}
	}
	return records, !tiled
}

// EntryBytes is the size of the complete entries of a record set, as the
// stats count record batch bytes: 12 + BatchLength or MessageSize each.
func EntryBytes(s *codec.RecordSet) int64 {
	var n int64
	for _, e := range s.Entries {
		switch {
		case e.Batch != nil:
			n += 12 + int64(e.Batch.BatchLength)
		case e.Message != nil:
			n += 12 + int64(e.Message.MessageSize)
		}
	}
	return n
}
