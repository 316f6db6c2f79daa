package codec

// Records is the value of a Kafka "records" field (Produce request
// PartitionData.Records, Fetch response Partitions.Records, ...): a message
// set (magic 0 and 1) or a sequence of record batches (magic 2).
//
// Decoding a message keeps only Raw, the exact bytes on the wire, so that
// re-encoding is byte-exact and decoding the message costs nothing per
// record. DecodeRecords fills Set when the records themselves are wanted.
type Records struct {
	Raw []byte     // wire bytes; nil when the field is null (length -1)
	Set *RecordSet // decoded entries, nil until DecodeRecords is called
}

// IsNull reports whether the field was null on the wire.
func (r *Records) IsNull() bool { return r.Raw == nil }

// DecodeRecords decodes Raw into Set with opts (see DecodeRecordSet) and
// returns Set. It is a no-op when Set is already decoded. To bound the
// memory that decoding every records field of a frame takes, give each
// call the same opts.Budget (see RecordBudget).
func (r *Records) DecodeRecords(opts RecordDecodeOptions) *RecordSet {
	if r.Set == nil && r.Raw != nil {
		r.Set = DecodeRecordSet(r.Raw, opts)
	}
	return r.Set
}

// writeJSON writes the decoded set when there is one, else null for a null
// field, else the raw bytes.
func (r *Records) writeJSON(w *JSONWriter) {
	switch {
	case r.Set != nil:
		r.Set.WriteJSON(w)
	case r.Raw == nil:
		w.Null()
	default:
		w.BeginObject()
		w.Key("Undecoded")
		w.ByteString(r.Raw)
		w.EndObject()
	}
}
