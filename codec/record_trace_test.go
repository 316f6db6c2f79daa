package codec

import (
	"bytes"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// sectionSpanTracer is spanTracer (tracer_test.go) that also follows
// decompressed sections: the leaves of each section are kept apart, with
// the section's data, so that each can be checked to cover its data.
type sectionSpanTracer struct {
	spanTracer
	sections []*traceSection // in order of beginning
	open     []*traceSection // sections begun and not ended
	values   []any           // End values of records and messages, in order
}

type traceSection struct {
	data   []byte
	err    error
	leaves []span
}

func (t *sectionSpanTracer) BeginSection(c Compression, data []byte, err error) {
	s := &traceSection{data: data, err: err}
	t.sections = append(t.sections, s)
	t.open = append(t.open, s)
	// Leaves reported inside go to the section: park the frame's.
	s.leaves, t.leaves = t.leaves, nil
}

func (t *sectionSpanTracer) EndSection() {
	s := t.open[len(t.open)-1]
	t.open = t.open[:len(t.open)-1]
	s.leaves, t.leaves = t.leaves, s.leaves
}

func (t *sectionSpanTracer) End(off int, value any) {
	switch value.(type) {
	case *Record, *LegacyMessage:
		t.values = append(t.values, value)
	}
	t.spanTracer.End(off, value)
}

// traceCover traces raw and checks that the leaves cover raw, and every
// decompressed section its data, exactly once.
func traceCover(t *testing.T, name string, raw []byte) *sectionSpanTracer {
	t.Helper()
	tr := &sectionSpanTracer{}
	TraceRecordSet(raw, tr, RecordDecodeOptions{})
	if len(tr.stack) != 0 || len(tr.open) != 0 {
		t.Fatalf("%s: %d fields and %d sections begun and not ended", name, len(tr.stack), len(tr.open))
	}
	checkCover(t, name, tr.leaves, 0, len(raw))
	for i, s := range tr.sections {
		checkCover(t, name+" section "+strconv.Itoa(i), s.leaves, 0, len(s.data))
	}
	return tr
}

// TestTraceRecordSetGoldens traces the record set goldens and checks the
// cover and that the records and messages reported are the ones
// DecodeRecordSet decodes.
func TestTraceRecordSetGoldens(t *testing.T) {
	for name, raw := range recordSetGoldenSeeds() {
		tr := traceCover(t, name, raw)
		set := DecodeRecordSet(raw, RecordDecodeOptions{})
		var want []any
		for _, e := range set.Entries {
			switch {
			case e.Batch != nil:
				for i := range e.Batch.Records {
					want = append(want, &e.Batch.Records[i])
				}
			case e.Message != nil:
				// A wrapper ends after its inner messages.
				for i := range e.Message.Inner {
					want = append(want, &e.Message.Inner[i])
				}
				want = append(want, e.Message)
			}
		}
		if len(tr.values) != len(want) {
			t.Errorf("%s: traced %d records and messages, decoded %d", name, len(tr.values), len(want))
			continue
		}
		for i := range want {
			switch w := want[i].(type) {
			case *Record:
				g := tr.values[i].(*Record)
				if g.Offset != w.Offset || g.Timestamp != w.Timestamp || !bytes.Equal(g.Key, w.Key) || !bytes.Equal(g.Value, w.Value) || len(g.Headers) != len(w.Headers) {
					t.Errorf("%s: record %d traced %+v, decoded %+v", name, i, g, w)
				}
			case *LegacyMessage:
				g := tr.values[i].(*LegacyMessage)
				if g.Offset != w.Offset || g.AbsoluteOffset != w.AbsoluteOffset || g.CrcValid != w.CrcValid || !bytes.Equal(g.Key, w.Key) || (w.Compression() == CompressionNone && !bytes.Equal(g.Value, w.Value)) {
					t.Errorf("%s: message %d traced %+v, decoded %+v", name, i, g, w)
				}
			}
		}
	}
}

// TestTraceRecordSetCompressed traces batches of every codec, with
// headers, and checks the cover of the compressed payload and of its
// decompressed records.
func TestTraceRecordSetCompressed(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, c := range []Compression{CompressionNone, CompressionGzip, CompressionSnappy, CompressionLZ4, CompressionZstd} {
		b := randomBatch(rng, c, 20)
		raw := b.AppendTo(nil)
		raw = b.AppendTo(raw) // two batches
		tr := traceCover(t, c.String(), raw)
		if c != CompressionNone && len(tr.sections) != 2 {
			t.Errorf("%v: %d sections, want 2", c, len(tr.sections))
		}
		if len(tr.values) != 40 {
			t.Errorf("%v: %d records traced, want 40", c, len(tr.values))
		}
		want := withComputed(b)
		for i, v := range tr.values[:20] {
			g := v.(*Record)
			if g.Offset != want[i].Offset || g.Timestamp != want[i].Timestamp || len(g.Headers) != len(want[i].Headers) {
				t.Fatalf("%v: record %d: %+v, want %+v", c, i, g, want[i])
			}
			for j, h := range g.Headers {
				if h.Key != want[i].Headers[j].Key || !bytes.Equal(h.Value, want[i].Headers[j].Value) {
					t.Fatalf("%v: record %d header %d: %+v, want %+v", c, i, j, h, want[i].Headers[j])
				}
			}
		}
	}
}

// TestTraceRecordSetBudget checks that decompression stops at the budget
// shared by the record sets of a frame, that what was decompressed is
// still covered, and that the entries after are not decoded.
func TestTraceRecordSetBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	b := randomBatch(rng, CompressionGzip, 30)
	raw := b.AppendTo(nil)
	budget := NewRecordBudget(int64(len(raw)) * 2) // less than two decompressed batches
	var sections []*traceSection
	for i := 0; i < 3; i++ {
		tr := &sectionSpanTracer{}
		TraceRecordSet(raw, tr, RecordDecodeOptions{Budget: budget})
		checkCover(t, "budget", tr.leaves, 0, len(raw))
		for _, s := range tr.sections {
			checkCover(t, "budget section", s.leaves, 0, len(s.data))
		}
		sections = append(sections, tr.sections...)
	}
	// The second decompression is cut at the budget, which it exhausts:
	// the third batch is not decoded, as decoding skips it.
	if len(sections) != 2 || sections[0].err != nil || sections[1].err == nil || !budget.Exhausted() {
		t.Errorf("budget not shared: sections %d, errors %v %v", len(sections), sections[0].err, sections[len(sections)-1].err)
	}
	if budget.Used() > budget.Limit() {
		t.Errorf("budget overspent: %d of %d", budget.Used(), budget.Limit())
	}
}

// TestTraceRecordSetDamaged traces damaged and cut record sets: the cover
// must hold whatever the bytes.
func TestTraceRecordSetDamaged(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	b := randomBatch(rng, CompressionGzip, 5)
	gz := b.AppendTo(nil)
	b = randomBatch(rng, CompressionNone, 5)
	plain := b.AppendTo(nil)
	for name, raw := range recordSetGoldenSeeds() {
		for cut := 0; cut <= len(raw); cut += 1 + len(raw)/40 {
			traceCover(t, name+" cut "+strconv.Itoa(cut), raw[:cut])
		}
	}
	for i := 0; i < 300; i++ {
		raw := append([]byte(nil), plain...)
		if i%2 == 1 {
			raw = append([]byte(nil), gz...)
		}
		for range 1 + rng.IntN(4) {
			raw[rng.IntN(len(raw))] = byte(rng.Uint32())
		}
		traceCover(t, "corrupt "+strconv.Itoa(i), raw)
	}
}

// TestTraceRecordSetCorpus traces the record set fuzz corpus.
func TestTraceRecordSetCorpus(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(recordCorpusDir, "*"))
	for _, f := range files {
		args := readCorpusFile(t, f)
		traceCover(t, filepath.Base(f), args[0].([]byte))
	}
}

// FuzzTraceRecordSet checks the cover on any bytes, and that the trace
// agrees with decoding.
func FuzzTraceRecordSet(f *testing.F) {
	for _, raw := range recordSetGoldenSeeds() {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		tr := &sectionSpanTracer{}
		TraceRecordSet(raw, tr, RecordDecodeOptions{MaxDecompressedBytes: 1 << 20})
		if len(tr.stack) != 0 || len(tr.open) != 0 {
			t.Fatal("fields begun and not ended")
		}
		checkCover(t, "fuzz", tr.leaves, 0, len(raw))
		for _, s := range tr.sections {
			checkCover(t, "fuzz section", s.leaves, 0, len(s.data))
		}
		for _, l := range tr.leaves {
			if strings.HasPrefix(l.path, "(") && !strings.Contains(l.path, ")") {
				t.Fatalf("bad name %q", l.path)
			}
		}
		checkAgree(t, "fuzz", raw, len(raw), nil, 1<<20, 2)
	})
}

// deferringTracer is sectionSpanTracer that takes each batch's records as
// one range, and traces them afterwards with BatchRecords.Trace.
type deferringTracer struct {
	sectionSpanTracer
	deferred   []func()
	batchDones []int // done calls per batch walked
}

func (t *deferringTracer) DeferRecords(r *BatchRecords) {
	from, to := r.Range()
	t.deferred = append(t.deferred, func() {
		dones := 0
		inner := &sectionSpanTracer{}
		r.Trace(inner, func() { dones++ })
		t.values = append(t.values, inner.values...)
		t.batchDones = append(t.batchDones, dones)
	})
	// The range stands for the records field, a leaf here.
	t.Begin("Records", from)
	t.End(to, nil)
}

// TestTraceRecordEntriesAndDeferredRecords: TraceRecordEntries calls done
// once per entry and once for a partial entry that ends the set; a
// RecordsDeferrer gets each batch's records as one range, which
// BatchRecords.Trace then traces into the records the whole trace gives,
// calling done once per record.
func TestTraceRecordEntriesAndDeferredRecords(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, c := range []Compression{CompressionNone, CompressionLZ4} {
		b := randomBatch(rng, c, 25)
		raw := b.AppendTo(nil)
		raw = b.AppendTo(raw)
		cut := raw[:len(raw)-7] // the second batch cut short

		whole := &sectionSpanTracer{}
		TraceRecordSet(raw, whole, RecordDecodeOptions{})
		entries := 0
		TraceRecordEntries(cut, &sectionSpanTracer{}, RecordDecodeOptions{}, func() { entries++ })
		if entries != 2 {
			t.Errorf("%v: done called %d times for a batch and a partial entry, want 2", c, entries)
		}

		d := &deferringTracer{}
		TraceRecordEntries(raw, d, RecordDecodeOptions{}, nil)
		if len(d.deferred) != 2 {
			t.Fatalf("%v: %d batches' records deferred, want 2", c, len(d.deferred))
		}
		if len(d.values) != 0 {
			t.Fatalf("%v: %d records traced before their batch was walked", c, len(d.values))
		}
		for _, f := range d.deferred {
			f()
		}
		if len(d.values) != len(whole.values) || len(d.values) != 50 {
			t.Fatalf("%v: %d records traced deferred, %d whole, want 50", c, len(d.values), len(whole.values))
		}
		for i := range d.values {
			g, w := d.values[i].(*Record), whole.values[i].(*Record)
			if g.Offset != w.Offset || g.Timestamp != w.Timestamp || !bytes.Equal(g.Value, w.Value) {
				t.Fatalf("%v: record %d: %+v deferred, %+v whole", c, i, g, w)
			}
		}
		for i, n := range d.batchDones {
			if n != 25 {
				t.Errorf("%v: batch %d: done called %d times for 25 records", c, i, n)
			}
		}
	}
}
