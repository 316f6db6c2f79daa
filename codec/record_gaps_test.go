package codec

// Record sets with holes (DecodeGappedRecordSet, TraceGappedRecordEntries):
// a multi-batch records field built with the codec's encoder, with gaps
// in the middle of a batch, over a batch's size field, at the end, and
// everywhere; legacy message sets likewise; and a hostile field for the
// resynchronisation's bound.

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// gapEntry is one entry of a test record set: its byte range, its
// records' byte ranges (for an uncompressed batch, relative to the set)
// and how many records it holds.
type gapEntry struct {
	start, end int
	magic      int8
	compressed bool
	records    [][2]int // uncompressed v2 batches only
	count      int
}

// gapRecordSet returns a records field of seven v2 batches (the fourth
// gzip-compressed, the others not) and its layout.
func gapRecordSet() ([]byte, []gapEntry) {
	rng := rand.New(rand.NewPCG(7, 11))
	var raw []byte
	var entries []gapEntry
	for i, n := range []int{3, 4, 3, 5, 2, 3, 1} {
		c := CompressionNone
		if i == 3 {
			c = CompressionGzip
		}
		b := randomBatch(rng, c, n)
		b.Attributes &^= batchTimestampTypeBit
		start := len(raw)
		raw = b.AppendTo(raw)
		e := gapEntry{start: start, end: len(raw), magic: 2, compressed: c != CompressionNone, count: n}
		if c == CompressionNone {
			at := start + recordBatchHeaderLen
			for range n {
				r := NewReader(raw[at:])
				l := int(r.Varint())
				e.records = append(e.records, [2]int{at, at + r.Offset() + l})
				at += r.Offset() + l
			}
		}
		entries = append(entries, e)
	}
	return raw, entries
}

// expectedCount is what the decoder must count of the set with gaps: the
// records of each entry wholly captured, of an uncompressed batch with a
// gap past its header the records wholly before its first gap, none of
// the entries skipped after an entry whose size was not captured up to
// the first entry wholly captured.
func expectedCount(entries []gapEntry, gaps []Gap) int {
	in := func(s, e int) bool { return overlapsGaps(gaps, s, e) }
	n, lost := 0, false
	for _, e := range entries {
		whole := !in(e.start, e.end)
		switch {
		case lost:
			if whole {
				lost = false
				n += e.count
			}
		case in(e.start+8, e.start+12):
			lost = true
		case in(e.start+16, e.start+17):
		case whole:
			n += e.count
		case in(e.start, e.start+recordBatchHeaderLen) || e.compressed:
		default:
			first := e.end
			for _, g := range gaps {
				if g.End > e.start && g.Start < first {
					first = max(g.Start, e.start)
				}
			}
			for _, r := range e.records {
				if r[1] <= first {
					n++
				}
			}
		}
	}
	return n
}

// decodeWithGaps decodes raw as a field of len(raw) bytes with gaps, the
// bytes in gaps overwritten and those of a gap reaching the end not held.
func decodeWithGaps(raw []byte, gaps []Gap, opts RecordDecodeOptions) *RecordSet {
	held := len(raw)
	if n := len(gaps); n > 0 && gaps[n-1].End == len(raw) {
		held = gaps[n-1].Start
	}
	return DecodeGappedRecordSet(cutFrame(raw, held, gaps), len(raw), gaps, opts)
}

func TestGappedRecordSetMiddleOfBatch(t *testing.T) {
	raw, entries := gapRecordSet()
	e := entries[2] // uncompressed, 3 records
	// A gap in its second record.
	gaps := []Gap{{e.records[1][0] + 2, e.records[1][0] + 5}}
	s := decodeWithGaps(raw, gaps, RecordDecodeOptions{})
	clean := DecodeRecordSet(raw, RecordDecodeOptions{})
	if len(s.Entries) != len(entries) {
		t.Fatalf("%d entries, want %d; notes %q", len(s.Entries), len(entries), s.Notes)
	}
	want := 0
	for i, en := range entries {
		want += en.count
		if i != 2 && !reflect.DeepEqual(s.Entries[i], clean.Entries[i]) {
			t.Errorf("entry %d differs from the clean decode", i)
		}
	}
	want -= 2 // records 1 and 2 of batch 2
	if got := s.Count(); got != want || got != expectedCount(entries, gaps) {
		t.Fatalf("Count %d, want %d", got, want)
	}
	b := s.Entries[2].Batch
	if s.Entries[1].Batch.CrcChecked() != true || !s.Entries[1].Batch.CrcValid {
		t.Fatalf("a batch wholly captured: CRC checked %v, valid %v", s.Entries[1].Batch.CrcChecked(), s.Entries[1].Batch.CrcValid)
	}
	if b.CrcValid || b.CrcChecked() || b.Gaps == nil || len(b.Records) != 1 || b.RecordsNotCaptured != 2 || !b.Captured("RecordCount") {
		t.Fatalf("batch with a hole: CrcValid %v, Gaps %v, %d records, %d not captured", b.CrcValid, b.Gaps, len(b.Records), b.RecordsNotCaptured)
	}
	if !reflect.DeepEqual(b.Records[0], clean.Entries[2].Batch.Records[0]) {
		t.Fatalf("record before the hole differs: %+v", b.Records[0])
	}
	if !hasNote(s, "batch at byte", "not captured", "CRC-32C not verified", "1 of RecordCount 3 records decoded") {
		t.Fatalf("notes %q", s.Notes)
	}
	w := NewJSONWriter(nil)
	b.writeJSON(w)
	js := string(w.Bytes())
	for _, want := range []string{`"RecordsNotCaptured":2`, `"NotCaptured":[{"start":`, `"RecordCount":3`} {
		if !strings.Contains(js, want) {
			t.Errorf("JSON lacks %s: %s", want, js)
		}
	}
	if strings.Contains(js, "CrcValid") {
		t.Errorf("JSON claims a CRC check: %s", js)
	}
}

func TestGappedRecordSetSizeLost(t *testing.T) {
	raw, entries := gapRecordSet()
	e := entries[2]
	// The gap swallows batch 2's BatchLength (and part of its offset).
	gaps := []Gap{{e.start + 5, e.start + 11}}
	s := decodeWithGaps(raw, gaps, RecordDecodeOptions{})
	clean := DecodeRecordSet(raw, RecordDecodeOptions{})
	if len(s.Entries) != len(entries)-1 {
		t.Fatalf("%d entries, want %d; notes %q", len(s.Entries), len(entries)-1, s.Notes)
	}
	for i, j := range []int{0, 1, 3, 4, 5, 6} {
		if !reflect.DeepEqual(s.Entries[i], clean.Entries[j]) {
			t.Errorf("entry %d differs from clean entry %d", i, j)
		}
	}
	want := 0
	for i, en := range entries {
		if i != 2 {
			want += en.count
		}
	}
	if got := s.Count(); got != want || got != expectedCount(entries, gaps) {
		t.Fatalf("Count %d, want %d", got, want)
	}
	if !hasNote(s, fmt.Sprintf("%d bytes at byte %d skipped", entries[3].start-e.start, e.start), "resynchronised on the batch at byte "+fmt.Sprint(entries[3].start)) {
		t.Fatalf("notes %q", s.Notes)
	}
}

func TestGappedRecordSetEnd(t *testing.T) {
	raw, entries := gapRecordSet()
	// Cut inside the gzip batch: compressed, with a hole, no records.
	e := entries[3]
	gaps := []Gap{{e.start + recordBatchHeaderLen + 3, len(raw)}}
	s := decodeWithGaps(raw, gaps, RecordDecodeOptions{})
	if len(s.Entries) != 4 {
		t.Fatalf("%d entries; notes %q", len(s.Entries), s.Notes)
	}
	b := s.Entries[3].Batch
	if len(b.Records) != 0 || b.RecordsNotCaptured != int32(e.count) || b.CrcValid {
		t.Fatalf("cut gzip batch: %d records, %d not captured", len(b.Records), b.RecordsNotCaptured)
	}
	want := entries[0].count + entries[1].count + entries[2].count
	if got := s.Count(); got != want || got != expectedCount(entries, gaps) {
		t.Fatalf("Count %d, want %d", got, want)
	}
	if !hasNote(s, "gzip-compressed records not decoded") || !hasNote(s, "the last", "not decoded") {
		t.Fatalf("notes %q", s.Notes)
	}
	// Cut in a batch header: the header fields before the cut only.
	e = entries[1]
	gaps = []Gap{{e.start + 37, len(raw)}} // in MaxTimestamp [35, 43)
	s = decodeWithGaps(raw, gaps, RecordDecodeOptions{})
	b = s.Entries[1].Batch
	if !b.Captured("BaseTimestamp") || b.Captured("MaxTimestamp") || b.Captured("RecordCount") || b.MaxTimestamp != 0 || b.RecordsNotCaptured != -1 || len(b.Records) != 0 {
		t.Fatalf("batch cut in its header: %+v", b)
	}
	w := NewJSONWriter(nil)
	b.writeJSON(w)
	js := string(w.Bytes())
	if strings.Contains(js, "MaxTimestamp") || strings.Contains(js, "RecordCount") || strings.Contains(js, `"Records"`) || !strings.Contains(js, "BaseTimestamp") {
		t.Fatalf("JSON of a batch cut in its header: %s", js)
	}
	if got := s.Count(); got != entries[0].count {
		t.Fatalf("Count %d, want %d", got, entries[0].count)
	}
}

// TestGappedRecordSetEverywhere punches gaps of several lengths at every
// offset of the set, and cuts it at every offset: the count is
// expectedCount (with CountOnly too), never more than the clean count; no
// entry decoded from bytes in a gap; the entries wholly captured equal the
// clean ones; the JSON is the clean JSON with members left out; the trace
// covers the field and states nothing from a gap.
func TestGappedRecordSetEverywhere(t *testing.T) {
	raw, entries := gapRecordSet()
	clean := DecodeRecordSet(raw, RecordDecodeOptions{})
	cleanJSON := recordSetJSON(t, clean)
	total := clean.Count()
	short := 1
	if testing.Short() {
		short = 5
	}
	var cases [][]Gap
	for _, g := range []struct{ n, stride int }{{1, 1}, {13, 1}, {200, 7}} {
		for a := 0; a+g.n < len(raw); a += g.stride * short {
			cases = append(cases, []Gap{{a, a + g.n}})
		}
	}
	for k := 0; k < len(raw); k += short {
		cases = append(cases, []Gap{{k, len(raw)}})
	}
	for _, gaps := range cases {
		for _, countOnly := range []bool{false, true} {
			s := decodeWithGaps(raw, gaps, RecordDecodeOptions{CountOnly: countOnly})
			got, want := s.Count(), expectedCount(entries, gaps)
			if got != want || got > total {
				t.Fatalf("gaps %v countOnly %v: Count %d, want %d (clean %d); notes %q", gaps, countOnly, got, want, total, s.Notes)
			}
			if countOnly {
				continue
			}
			for _, e := range s.Entries {
				if b := e.Batch; b.Gaps == nil && b.CrcValid != true {
					t.Fatalf("gaps %v: a batch wholly captured with CRC %v", gaps, b.CrcValid)
				}
			}
			if d := jsonSubset(recordSetJSON(t, s), cleanJSON, "", 2); d != "" {
				t.Fatalf("gaps %v: JSON not a subset: %s", gaps, d)
			}
			checkGappedTrace(t, raw, gaps, s)
		}
	}
	t.Logf("%d gap layouts", len(cases))
}

// recordSetJSON is the JSON of s as a records field writes it, parsed, as
// the "Records" member of an object (so that jsonSubset takes its entries
// as a subsequence).
func recordSetJSON(t *testing.T, s *RecordSet) any {
	w := NewJSONWriter(nil)
	w.BeginObject()
	w.Key("Records")
	s.WriteJSON(w)
	w.EndObject()
	return parseJSON(t, w.Bytes())
}

// checkGappedTrace traces raw with gaps and checks that the leaves cover
// the field once, that ranges reported not captured are in gaps and
// ranges reported with a value are not, and that the records reported
// are the records decoded.
func checkGappedTrace(t *testing.T, raw []byte, gaps []Gap, s *RecordSet) {
	t.Helper()
	held := len(raw)
	if n := len(gaps); n > 0 && gaps[n-1].End == len(raw) {
		held = gaps[n-1].Start
	}
	tr := &sectionSpanTracer{}
	TraceGappedRecordSet(cutFrame(raw, held, gaps), len(raw), gaps, tr, RecordDecodeOptions{})
	if len(tr.stack) != 0 {
		t.Fatalf("gaps %v: %d fields not ended", gaps, len(tr.stack))
	}
	checkCover(t, fmt.Sprint(gaps), tr.leaves, 0, len(raw))
	for _, l := range tr.leaves {
		_, nc := l.value.(NotCapturedValue)
		switch {
		case nc && !overlapsGaps(gaps, l.start, l.end):
			t.Fatalf("gaps %v: %s [%d,%d) not captured outside the gaps", gaps, l.path, l.start, l.end)
		case l.path != "(not captured)" && nc && inGaps(gaps, l.start, l.end) && !strings.Contains(l.path, "."):
			t.Fatalf("gaps %v: %s [%d,%d) a field of the set's level in a gap", gaps, l.path, l.start, l.end)
		case !nc && overlapsGaps(gaps, l.start, l.end):
			t.Fatalf("gaps %v: %s [%d,%d) = %v meets a gap", gaps, l.path, l.start, l.end, l.value)
		}
	}
	want := 0
	for _, e := range s.Entries {
		if e.Batch != nil { // compressed ones too: the tracer follows sections
			want += len(e.Batch.Records)
		}
	}
	got := 0
	for _, v := range tr.values {
		if _, ok := v.(*Record); ok {
			got++
		}
	}
	if got != want {
		t.Fatalf("gaps %v: %d records traced, %d decoded", gaps, got, want)
	}
}

// inGaps reports whether [s, e) lies wholly in gaps.
func inGaps(gaps []Gap, s, e int) bool {
	for _, g := range gaps {
		if g.Start <= s && e <= g.End {
			return true
		}
	}
	return false
}

func TestGappedMessageSet(t *testing.T) {
	msgs := []LegacyMessage{
		{Offset: 0, Timestamp: 1700000000000, Key: []byte("k0"), Value: []byte("value zero")},
		{Offset: 1, Timestamp: 1700000000001, Key: []byte("k1"), Value: []byte("value one")},
		{Offset: 2, Timestamp: 1700000000002, Key: nil, Value: []byte("value two")},
	}
	raw := AppendMessageSet(nil, 1, CompressionNone, msgs)
	wrapped := AppendMessageSet(nil, 1, CompressionGzip, msgs)
	mid := len(raw) / 2 // in the second message
	second := 0
	for p := 0; p < len(raw); {
		n := 12 + int(binary.BigEndian.Uint32(raw[p+8:]))
		if p <= mid && mid < p+n {
			second = p
		}
		p += n
	}
	// A gap in the second message's value: its key reads, its value
	// does not, it is not counted; the third is.
	valueAt := second + 12 + 4 + 2 + 8 + 4 + 2 + 4
	gaps := []Gap{{valueAt + 1, valueAt + 3}}
	s := decodeWithGaps(raw, gaps, RecordDecodeOptions{})
	if len(s.Entries) != 3 || s.Count() != 2 {
		t.Fatalf("%d entries, count %d; notes %q", len(s.Entries), s.Count(), s.Notes)
	}
	m := s.Entries[1].Message
	if m.CrcValid || m.CrcChecked() || string(m.Key) != "k1" || m.Value != nil || m.Captured("Value") || !m.Captured("Key") || m.Gaps == nil {
		t.Fatalf("message with a hole: %+v", m)
	}
	if !hasNote(s, "not captured: CRC-32 not verified") {
		t.Fatalf("notes %q", s.Notes)
	}
	w := NewJSONWriter(nil)
	m.writeJSON(w, false)
	if js := string(w.Bytes()); strings.Contains(js, `"Value"`) || strings.Contains(js, "CrcValid") || !strings.Contains(js, `"Key":"k1"`) {
		t.Fatalf("JSON %s", js)
	}
	// The second message's size lost: resynchronised on the third by its
	// CRC-32.
	gaps = []Gap{{second + 9, second + 10}}
	s = decodeWithGaps(raw, gaps, RecordDecodeOptions{})
	if len(s.Entries) != 2 || s.Count() != 2 || !hasNote(s, "resynchronised on the message at byte") {
		t.Fatalf("size lost: %d entries, count %d; notes %q", len(s.Entries), s.Count(), s.Notes)
	}
	// A wrapper with a hole: no inner message decoded.
	gaps = []Gap{{len(wrapped) - 5, len(wrapped) - 4}}
	s = decodeWithGaps(wrapped, gaps, RecordDecodeOptions{})
	if len(s.Entries) != 1 || s.Count() != 0 || len(s.Entries[0].Message.Inner) != 0 || !hasNote(s, "gzip-compressed inner messages not decoded") {
		t.Fatalf("wrapper with a hole: %d entries, count %d; notes %q", len(s.Entries), s.Count(), s.Notes)
	}
	// Everywhere: never more than the clean count, the trace covers.
	for _, set := range [][]byte{raw, wrapped} {
		total := DecodeRecordSet(set, RecordDecodeOptions{}).Count()
		for n := 1; n < 20; n += 6 {
			for a := 0; a+n <= len(set); a++ {
				gaps := []Gap{{a, a + n}}
				s := decodeWithGaps(set, gaps, RecordDecodeOptions{})
				if s.Count() > total {
					t.Fatalf("gaps %v: count %d > %d", gaps, s.Count(), total)
				}
				tr := &sectionSpanTracer{}
				held := len(set)
				if a+n == len(set) {
					held = a
				}
				TraceGappedRecordSet(cutFrame(set, held, gaps), len(set), gaps, tr, RecordDecodeOptions{})
				checkCover(t, fmt.Sprint(gaps), tr.leaves, 0, len(set))
				for _, l := range tr.leaves {
					if _, nc := l.value.(NotCapturedValue); !nc && overlapsGaps(gaps, l.start, l.end) {
						t.Fatalf("gaps %v: %s [%d,%d) = %v meets a gap", gaps, l.path, l.start, l.end, l.value)
					}
				}
			}
		}
	}
}

// hostileField returns a records field of n bytes where every fourth
// position looks like the start of a legacy message of 256 bytes (magic
// 0, size 256, all captured), none with a matching CRC.
func hostileField(n int) []byte {
	b := make([]byte, n)
	for i := 0; i+4 <= n; i += 4 {
		copy(b[i:], []byte{0, 0, 1, 0})
	}
	return b
}

// TestGappedResyncBounded: a field with a plausible entry at every fourth
// byte makes the search compute CRCs until its budget (resyncCRCFactor
// times the field) runs out, then give up, with a note.
func TestGappedResyncBounded(t *testing.T) {
	raw := hostileField(1 << 16)
	h := &holes{b: raw, size: len(raw), gaps: []Gap{{0, 12}}}
	budget := resyncCRCFactor * len(raw)
	p, found, gaveUp := h.resync(12, &budget)
	if found || !gaveUp || p != len(raw) || budget < 0 || budget > 268 {
		t.Fatalf("resync: p %d found %v gave up %v, budget left %d", p, found, gaveUp, budget)
	}
	s := DecodeGappedRecordSet(raw, len(raw), []Gap{{0, 12}}, RecordDecodeOptions{})
	if len(s.Entries) != 0 || !hasNote(s, "stopped after checking 4 times the field's bytes") {
		t.Fatalf("%d entries, notes %q", len(s.Entries), s.Notes)
	}
	// All 0x02: every position has magic 2, no plausible size: no CRC.
	all2 := make([]byte, 1<<16)
	for i := range all2 {
		all2[i] = 2
	}
	h = &holes{b: all2, size: len(all2), gaps: []Gap{{0, 12}}}
	budget = resyncCRCFactor * len(all2)
	if _, found, gaveUp := h.resync(12, &budget); found || gaveUp || budget != resyncCRCFactor*len(all2) {
		t.Fatalf("all 0x02: found %v gave up %v, budget left %d", found, gaveUp, budget)
	}
}

// BenchmarkGappedResyncHostile times resynchronisation over hostile
// fields of growing size: time per byte must stay flat (linear).
func BenchmarkGappedResyncHostile(b *testing.B) {
	for _, kind := range []string{"all02", "plausible"} {
		for _, n := range []int{1 << 12, 1 << 16, 1 << 20} {
			raw := hostileField(n)
			if kind == "all02" {
				for i := range raw {
					raw[i] = 2
				}
			}
			b.Run(fmt.Sprintf("%s/%d", kind, n), func(b *testing.B) {
				b.SetBytes(int64(n))
				for b.Loop() {
					DecodeGappedRecordSet(raw, n, []Gap{{0, 12}}, RecordDecodeOptions{})
				}
			})
		}
	}
}

// TestGappedRecordsJSONAndSummary: a Produce request read with a gap in a
// batch: its records field keeps the bytes with Gaps, decodes around them,
// and its JSON shows the batch without its lost fields.
func TestGappedRecordsThroughMessage(t *testing.T) {
	raw, entries := gapRecordSet()
	req := &ProduceRequest{Acks: -1, TimeoutMs: 1000, TopicData: []ProduceRequestTopicProduceData{{Name: "orders", PartitionData: []ProduceRequestPartitionProduceData{{Index: 3, Records: Records{Raw: raw}}}}}}
	frame := req.AppendTo(nil, 9)
	recordsAt := bytes.Index(frame, raw)
	e := entries[2]
	gaps := []Gap{{recordsAt + e.start + 5, recordsAt + e.start + 11}}
	r := NewGappedReader(cutFrame(frame, len(frame), gaps), len(frame), gaps)
	got := new(ProduceRequest)
	got.ReadFrom(r, 9)
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	rec := &got.TopicData[0].PartitionData[0].Records
	if !reflect.DeepEqual(rec.Gaps, []Gap{{e.start + 5, e.start + 11}}) || rec.Len() != len(raw) {
		t.Fatalf("Records.Gaps %v, len %d", rec.Gaps, rec.Len())
	}
	var sm Summary
	got.Summarize(&sm, 9)
	if len(sm.Records) != 1 || sm.Records[0].Topic != "orders" || sm.Records[0].Partition != 3 {
		t.Fatalf("summary records %+v", sm.Records)
	}
	set := rec.DecodeRecords(RecordDecodeOptions{})
	if set.Count() != expectedCount(entries, []Gap{{e.start + 5, e.start + 11}}) {
		t.Fatalf("count %d", set.Count())
	}
	w := NewJSONWriter(nil)
	got.WriteJSON(w, 9)
	var v map[string]any
	if err := json.Unmarshal(w.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	nc, _ := v["not_captured"].([]any)
	if len(nc) != 1 || nc[0].(map[string]any)["path"] != "TopicData[0].PartitionData[0].Records" {
		t.Fatalf("not_captured %v", v["not_captured"])
	}
	// Undecoded, the field shows its length and gaps, not its bytes.
	rec.Set = nil
	w = NewJSONWriter(nil)
	rec.writeJSON(w)
	if js := string(w.Bytes()); js != fmt.Sprintf(`{"Length":%d,"NotCaptured":[{"start":%d,"end":%d}]}`, len(raw), e.start+5, e.start+11) {
		t.Fatalf("undecoded records with gaps: %s", js)
	}
}
