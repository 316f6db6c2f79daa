package codec

// Records is the value of a Kafka "records" field (Produce request
// PartitionData.Records, Fetch response Partitions.Records, ...): a message
// set (magic 0 and 1) or a sequence of record batches (magic 2).
//
// Decoding a message keeps only Raw, the exact bytes on the wire, so that
// re-encoding is byte-exact and decoding the message costs nothing per
// record. DecodeRecords fills Set when the records themselves are wanted.
//
// Read from a gapped Reader (NewGappedReader), a records field whose bytes
// the capture did not all hold has Gaps: the byte ranges of the field,
// relative to Raw's first byte, that were not captured. Their bytes in Raw
// are zero and meaningless; where the field runs into the frame's last gap
// Raw ends early (Len gives the field's length). DecodeRecords decodes
// around the gaps.
type Records struct {
	Raw  []byte     // wire bytes; nil when the field is null (length -1)
	Gaps []Gap      // ranges of the field not captured, sorted; nil when all were
	Set  *RecordSet // decoded entries, nil until DecodeRecords is called
}

// Len returns the length of the field on the wire: len(Raw), or more when
// the field runs into a gap at the end of the frame.
func (r *Records) Len() int {
	n := len(r.Raw)
	if k := len(r.Gaps); k > 0 {
		n = max(n, r.Gaps[k-1].End)
	}
	return n
}

// IsNull reports whether the field was null on the wire.
func (r *Records) IsNull() bool { return r.Raw == nil }

// DecodeRecords decodes Raw into Set with opts (see DecodeRecordSet) and
// returns Set. It is a no-op when Set is already decoded. To bound the
// memory that decoding every records field of a frame takes, give each
// call the same opts.Budget (see RecordBudget).
//
// A field with Gaps is decoded as DecodeGappedRecordSet does.
func (r *Records) DecodeRecords(opts RecordDecodeOptions) *RecordSet {
	if r.Set == nil && r.Raw != nil {
		if r.Gaps != nil {
			r.Set = DecodeGappedRecordSet(r.Raw, r.Len(), r.Gaps, opts)
		} else {
			r.Set = DecodeRecordSet(r.Raw, opts)
		}
	}
	return r.Set
}

// writeJSON writes the decoded set when there is one, else null for a null
// field, else the raw bytes; of a field with gaps, which raw bytes cannot
// show, its length and the ranges not captured.
// WriteJSON writes the field as the JSON Lines body shows it: the decoded
// set (RecordSet.WriteJSON), null for a null field, or an object with the
// Length and NotCaptured ranges, or the Undecoded bytes, of one that was
// not decoded.
func (r *Records) WriteJSON(w *JSONWriter) { r.writeJSON(w) }

func (r *Records) writeJSON(w *JSONWriter) {
	switch {
	case r.Set != nil:
		r.Set.WriteJSON(w)
	case r.Raw == nil:
		w.Null()
	case r.Gaps != nil:
		w.BeginObject()
		w.Key("Length")
		w.Int(int64(r.Len()))
		w.Key("NotCaptured")
		writeGapsJSON(w, r.Gaps)
		w.EndObject()
	default:
		w.BeginObject()
		w.Key("Undecoded")
		w.ByteString(r.Raw)
		w.EndObject()
	}
}

// writeGapsJSON writes gaps as [{"start", "end"}] (relative offsets: not
// moved by OffsetBase).
func writeGapsJSON(w *JSONWriter, gaps []Gap) {
	w.BeginArray()
	for _, g := range gaps {
		w.BeginObject()
		w.Key("start")
		w.Int(int64(g.Start))
		w.Key("end")
		w.Int(int64(g.End))
		w.EndObject()
	}
	w.EndArray()
}
