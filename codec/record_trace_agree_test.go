package codec

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// The trace of a record set reports as decoded exactly what decoding the
// set decodes, and charges the record decoding budget exactly as decoding
// charges it: so the views, which trace, agree with JSON and the counts,
// which decode, and the budget bounds both alike.

// countTracer counts what a trace reports as decoded: entries (batches
// and top-level messages) and records, as RecordSet.Count counts them.
type countTracer struct {
	section          int
	entries, records int
	batchesNC        int // batches with RecordsNotCaptured > 0
}

func (c *countTracer) Begin(string, int)   {}
func (c *countTracer) BeginIndex(int, int) {}
func (c *countTracer) End(_ int, v any) {
	switch v := v.(type) {
	case *Record:
		c.records++
	case *RecordBatch:
		c.entries++
		if v.RecordsNotCaptured > 0 {
			c.batchesNC++
		}
	case *LegacyMessage:
		switch {
		case c.section > 0:
			c.records++ // an inner message
		case v.Compression() == CompressionNone && v.Gaps == nil:
			c.entries++
			c.records++
		default:
			c.entries++
		}
	}
}
func (c *countTracer) BeginSection(Compression, []byte, error) { c.section++ }
func (c *countTracer) EndSection()                             { c.section-- }

// checkAgree traces raw (with gaps, when given; size is the field's)
// calls times with one budget of limit bytes, and decodes it as many
// times with another: the counts and what each budget was charged must
// be equal after each call.
func checkAgree(t *testing.T, name string, raw []byte, size int, gaps []Gap, limit int64, calls int) {
	t.Helper()
	tb, db := NewRecordBudget(limit), NewRecordBudget(limit)
	for call := range calls {
		c := &countTracer{}
		var s *RecordSet
		if gaps == nil {
			TraceRecordSet(raw, c, RecordDecodeOptions{Budget: tb})
			s = DecodeRecordSet(raw, RecordDecodeOptions{Budget: db})
		} else {
			TraceGappedRecordSet(raw, size, gaps, c, RecordDecodeOptions{Budget: tb})
			s = DecodeGappedRecordSet(raw, size, gaps, RecordDecodeOptions{Budget: db})
		}
		if c.records != s.Count() || c.entries != len(s.Entries) || tb.Used() != db.Used() || tb.Exhausted() != db.Exhausted() {
			t.Fatalf("%s, budget %d, call %d: traced %d entries, %d records, budget used %d (exhausted %v); decoded %d entries, %d records, budget used %d (exhausted %v); notes %q",
				name, limit, call, c.entries, c.records, tb.Used(), tb.Exhausted(), len(s.Entries), s.Count(), db.Used(), db.Exhausted(), s.Notes)
		}
		nc := 0
		for _, e := range s.Entries {
			if e.Batch != nil && e.Batch.RecordsNotCaptured > 0 {
				nc++
			}
		}
		if nc != c.batchesNC {
			t.Fatalf("%s: %d batches traced with records not captured, %d decoded", name, c.batchesNC, nc)
		}
	}
}

// agreeSets are record sets of every format and codec, with headers (whose
// keys the budget is charged for), legacy wrappers and partial entries.
func agreeSets(rng *rand.Rand) map[string][]byte {
	sets := map[string][]byte{}
	for name, raw := range recordSetGoldenSeeds() {
		sets[name] = raw
	}
	for _, c := range []Compression{CompressionNone, CompressionGzip, CompressionSnappy, CompressionLZ4, CompressionZstd} {
		var raw []byte
		for _, n := range []int{3, 40, 0, 17} {
			b := randomBatch(rng, c, n)
			raw = b.AppendTo(raw)
		}
		sets["batches "+c.String()] = raw
		var msgs []LegacyMessage
		for i := range 30 {
			msgs = append(msgs, LegacyMessage{Offset: int64(i), Timestamp: 1700000000000 + int64(i), Key: []byte("k"), Value: make([]byte, rng.IntN(60))})
		}
		var legacy []byte
		for range 3 {
			legacy = AppendMessageSet(legacy, 1, c, msgs)
		}
		legacy = AppendMessageSet(legacy, 0, CompressionNone, msgs[:5])
		sets["messages "+c.String()] = legacy
		b := randomBatch(rng, c, 12)
		sets["mixed "+c.String()] = append(append([]byte(nil), legacy...), b.AppendTo(nil)...)
	}
	return sets
}

// TestTraceAgreesWithDecode: on every set, whole, damaged and with holes,
// under budgets from none at all to plenty, shared by several calls as by
// the record sets of a frame, the trace and decoding agree.
func TestTraceAgreesWithDecode(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for name, raw := range agreeSets(rng) {
		// Budgets around what decoding the set costs.
		full := NewRecordBudget(1 << 30)
		DecodeRecordSet(raw, RecordDecodeOptions{Budget: full})
		cost := full.Used()
		limits := []int64{1, 64, 200, 1000, cost / 3, cost / 2, cost - 1, cost, cost + 1, 2 * cost, 3*cost - 100, 1 << 30}
		for _, limit := range limits {
			if limit <= 0 {
				continue
			}
			checkAgree(t, name, raw, len(raw), nil, limit, 3)
		}
		// Damaged: cut short, bytes changed.
		for k := range 12 {
			bad := append([]byte(nil), raw...)
			if k%2 == 0 {
				bad = bad[:rng.IntN(len(bad)+1)]
			} else {
				for range 1 + rng.IntN(3) {
					bad[rng.IntN(len(bad))] = byte(rng.Uint32())
				}
			}
			checkAgree(t, fmt.Sprintf("%s damaged %d", name, k), bad, len(bad), nil, limits[rng.IntN(len(limits))], 2)
		}
		// With holes, anywhere.
		for k := range 24 {
			a := rng.IntN(len(raw))
			gaps := []Gap{{a, min(len(raw), a+1+rng.IntN(40))}}
			held := len(raw)
			if gaps[0].End == len(raw) {
				held = a
			}
			checkAgree(t, fmt.Sprintf("%s gaps %v (%d)", name, gaps, k), cutFrame(raw, held, gaps), len(raw), gaps, limits[rng.IntN(len(limits))], 2)
		}
	}
}

// zeroBatch is an uncompressed v2 batch whose records are n zero bytes
// and whose RecordCount is count: every record has Length 0 and so no
// fields, which no decoder reads as a record.
func zeroBatch(n int, count int32) []byte {
	b := RecordBatch{ProducerId: -1, ProducerEpoch: -1, BaseSequence: -1}
	raw := b.AppendTo(nil)
	raw = append(raw, make([]byte, n)...)
	binary.BigEndian.PutUint32(raw[57:], uint32(count))
	binary.BigEndian.PutUint32(raw[8:], uint32(len(raw)-12))
	binary.BigEndian.PutUint32(raw[17:], crc32.Checksum(raw[21:], castagnoli))
	return raw
}

// TestTraceHostileBatches: a batch of zero bytes with a RecordCount of
// 100 000 decodes to no record, traced or decoded; a batch whose payload
// decompresses past the budget decodes the records that fit, traced or
// decoded.
func TestTraceHostileBatches(t *testing.T) {
	raw := zeroBatch(1000, 100000)
	c := &countTracer{}
	TraceRecordSet(raw, c, RecordDecodeOptions{})
	if s := DecodeRecordSet(raw, RecordDecodeOptions{}); c.records != 0 || s.Count() != 0 {
		t.Errorf("zero batch: %d records traced, %d decoded", c.records, s.Count())
	}
	checkAgree(t, "zero batch", raw, len(raw), nil, DefaultMaxDecompressedBytes, 1)

	// Minimal records (7 bytes each, 120 decoded) compressed: the
	// records cost the budget far more than their bytes.
	rng := rand.New(rand.NewPCG(1, 1))
	b := randomBatch(rng, CompressionZstd, 0)
	for i := range 50000 {
		b.Records = append(b.Records, Record{OffsetDelta: int32(i)})
	}
	b.RecordCount = 50000
	raw = b.AppendTo(nil)
	for _, limit := range []int64{100 << 10, 1 << 20, 16 << 20} {
		checkAgree(t, fmt.Sprintf("minimal records, budget %d", limit), raw, len(raw), nil, limit, 2)
	}
}
