package render

import (
	"strconv"

	"github.com/kdissect/kdissect/codec"
)

// timeText says a record's time as Kafka gives it, with its timestamp
// type, and the record's own timestamp beside it where LogAppendTime gave
// it another: "2026-03-01T10:00:00.000Z LogAppendTime (own
// 1970-01-01T00:00:00.111Z)". It is false when the record has no
// timestamp (magic 0), or the time is not a date (-1: none).
func timeText(t codec.RecordTime) (string, bool) {
	if t.None {
		return "", false
	}
	s, ok := msTime(t.Timestamp)
	if !ok {
		return "", false
	}
	s += " " + t.Type.String()
	if t.Differs() {
		own, ok := msTime(t.Own)
		if !ok {
			own = strconv.FormatInt(t.Own, 10)
		}
		s += " (own " + own + ")"
	}
	return s, true
}

// recordTime is the time of rec, of batch b when known.
func recordTime(rec *codec.Record, b *codec.RecordBatch) codec.RecordTime {
	if b == nil {
		return codec.RecordTime{Timestamp: rec.Timestamp, Own: rec.Timestamp}
	}
	return b.TimeOf(rec)
}
