package codec

import (
	"testing"
	"unsafe"
)

// TestHeaderKeysInterned checks that the header keys a batch's records
// repeat are converted to strings once: the records of a batch whose
// headers alternate among three keys share three strings, and only those
// three are charged to the record budget beyond what the records cost
// without them. (A ring that kept only the last key would make a string,
// and charge it, for almost every header.)
func TestHeaderKeysInterned(t *testing.T) {
	keys := []string{"trace-id", "span-id", "tenant"}
	batch := func(withHeaders bool) []byte {
		b := RecordBatch{BaseOffset: 0, BaseTimestamp: 1700000000000, MaxTimestamp: 1700000000000,
			ProducerId: -1, ProducerEpoch: -1, BaseSequence: -1, LastOffsetDelta: 59}
		for i := range 60 {
			r := Record{OffsetDelta: int32(i), Value: []byte("v")}
			if withHeaders {
				for j := range 2 {
					r.Headers = append(r.Headers, RecordHeader{Key: keys[(i+j)%len(keys)], Value: []byte("x")})
				}
			} else {
				// The same sizes, no keys to convert: two headers of one
				// empty key each, which is the empty string.
				r.Headers = []RecordHeader{{Key: "", Value: []byte("x")}, {Key: "", Value: []byte("x")}}
			}
			b.Records = append(b.Records, r)
		}
		return b.AppendTo(nil)
	}
	decode := func(raw []byte) (*RecordSet, int64) {
		budget := NewRecordBudget(0)
		s := DecodeRecordSet(raw, RecordDecodeOptions{Budget: budget})
		if len(s.Notes) != 0 || len(s.Entries) != 1 || s.Entries[0].Batch == nil || len(s.Entries[0].Batch.Records) != 60 {
			t.Fatalf("decoded %d entries, notes %v; want one batch of 60 records", len(s.Entries), s.Notes)
		}
		return s, budget.Used()
	}
	s, used := decode(batch(true))
	ptrs := map[string]map[*byte]bool{}
	for _, r := range s.Entries[0].Batch.Records {
		for _, h := range r.Headers {
			if ptrs[h.Key] == nil {
				ptrs[h.Key] = map[*byte]bool{}
			}
			ptrs[h.Key][unsafe.StringData(h.Key)] = true
		}
	}
	for _, k := range keys {
		if n := len(ptrs[k]); n != 1 {
			t.Errorf("header key %q: %d strings over the batch's 60 records, want 1", k, n)
		}
	}
	_, bare := decode(batch(false))
	var want int64
	for _, k := range keys {
		want += int64(len(k)+7) &^ 7 // as headerDecoder.key charges a new string
	}
	if used-bare != want {
		t.Errorf("the keys cost the budget %d bytes beyond the records, want %d (each of the three once)", used-bare, want)
	}
}
