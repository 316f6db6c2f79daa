package codec

// RecordTime is the timestamp Kafka gives a record, with the record's own
// timestamp on the wire when the two may differ. Under CreateTime a
// record's time is its own (the producer's); under LogAppendTime it is the
// broker's: the MaxTimestamp of its v2 batch (Kafka's
// DefaultRecordBatch), or the Timestamp of its magic-1 wrapper (Kafka's
// LegacyRecord, KIP-32), while the record keeps the time its producer
// wrote, which consumers never see.
type RecordTime struct {
	// Timestamp is the time a consumer is given: ms since the epoch.
	Timestamp int64
	// Own is the record's own timestamp on the wire, ms since the epoch: a
	// v2 record's BaseTimestamp + TimestampDelta, a magic-1 message's
	// Timestamp field. Equal to Timestamp under CreateTime.
	Own  int64
	Type TimestampType
	// None says the record has no timestamp: magic 0 (before KIP-32), or a
	// legacy message whose timestamp was not captured.
	None bool
}

// Differs reports whether the record's own timestamp is not the one it is
// given (LogAppendTime, and the producer's time was not the broker's).
func (t RecordTime) Differs() bool { return !t.None && t.Own != t.Timestamp }

// TimeOf returns the timestamp Kafka gives rec, a record of b.
func (b *RecordBatch) TimeOf(rec *Record) RecordTime {
	t := RecordTime{Timestamp: rec.Timestamp, Own: b.BaseTimestamp + rec.TimestampDelta, Type: b.TimestampType()}
	if t.Type == TimestampCreateTime {
		t.Own = t.Timestamp
	}
	return t
}

// Time returns the timestamp Kafka gives the message (None for magic 0).
func (m *LegacyMessage) Time() RecordTime {
	if m.Magic < 1 || !m.Captured("Timestamp") {
		return RecordTime{None: true}
	}
	return RecordTime{Timestamp: m.Timestamp, Own: m.WireTimestamp, Type: m.TimestampType()}
}
