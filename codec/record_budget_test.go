package codec

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// The record decoding budget (RecordBudget): bombs that cost little on the
// wire and much decoded stay within a small multiple of the budget, with
// notes that say what was left undecoded, and one budget bounds every
// record set decoded with it.

// minimalRecords returns n of the smallest records (7 bytes each: Length
// 6, attributes, deltas, null key and value, no headers).
func minimalRecords(n int) []byte {
	return bytes.Repeat([]byte{0x0c, 0, 0, 0, 1, 1, 0}, n)
}

// compressedBatch is a batch with the given attributes and RecordCount
// whose records are payload compressed with c.
func compressedBatch(t testing.TB, c Compression, attrs int16, count int32, payload []byte) []byte {
	t.Helper()
	comp, err := Compress(c, nil, payload)
	if err != nil {
		t.Fatal(err)
	}
	b := wantBatchV2
	b.Attributes = attrs | int16(c)
	b.RecordCount = count
	return rawBatch(b, comp)
}

// manyHeaders is one record claiming n empty headers (2 bytes each).
func manyHeaders(n int) []byte {
	body := []byte{0, 0, 0, 1, 1} // attributes, deltas, null key and value
	body = AppendVarint(body, int32(n))
	body = append(body, bytes.Repeat([]byte{0, 1}, n)...) // key "", value null
	return append(AppendVarint(nil, int32(len(body))), body...)
}

// tinyMessages is n empty magic-0 messages (26 bytes each).
func tinyMessages(n int) []byte {
	return bytes.Repeat(AppendMessageSet(nil, 0, CompressionNone, []LegacyMessage{{}}), n)
}

// decodeWithin decodes raw with a budget of budget bytes and fails when it
// allocates more than 3 budgets plus the raw bytes: decompression holds
// its output in pooled chunks before copying it (2 budgets at most), the
// rest is what the budget was charged for. It returns the set and what was
// allocated (the least of three runs, once the decoder pools are warm).
func decodeWithin(t *testing.T, raw []byte, budget int64) (*RecordSet, uint64) {
	t.Helper()
	var s *RecordSet
	var b *RecordBudget
	alloc := minAllocatedBytes(func() {
		b = NewRecordBudget(budget)
		s = DecodeRecordSet(raw, RecordDecodeOptions{Budget: b})
	})
	if b.Used() > b.Limit() {
		t.Errorf("budget: %d of %d bytes used", b.Used(), b.Limit())
	}
	if bound := 3*uint64(budget) + uint64(len(raw)); alloc > bound {
		t.Errorf("decoding %d bytes with a budget of %d allocated %d bytes, more than %d", len(raw), budget, alloc, bound)
	}
	t.Logf("%d wire bytes, %d records, %d bytes allocated, budget %d of %d used, notes %q", len(raw), s.Count(), alloc, b.Used(), b.Limit(), s.Notes)
	return s, alloc
}

func TestRecordBudgetBombs(t *testing.T) {
	const budget = 1 << 20
	budgetNote := "record decoding budget of 1 MiB exhausted"

	t.Run("minimal records at the cap", func(t *testing.T) {
		// The reviewer's bomb: one zstd batch of minimal records as large
		// as the cap.
		n := budget / 7
		raw := compressedBatch(t, CompressionZstd, 0, int32(n), minimalRecords(n))
		s, _ := decodeWithin(t, raw, budget)
		if s.Count() != 0 || !hasNote(s, "zstd decompression: decompressed size exceeds the", "left of the record decoding budget of 1 MiB", fmt.Sprintf("0 of RecordCount %d records decoded", n)) {
			t.Fatalf("%d records, notes %q", s.Count(), s.Notes)
		}
	})

	t.Run("minimal records below the cap", func(t *testing.T) {
		// A quarter of the cap decompressed, 17 times that decoded: the
		// records stop where the budget does.
		n := budget / 4 / 7
		raw := compressedBatch(t, CompressionZstd, 0, int32(n), minimalRecords(n))
		s, _ := decodeWithin(t, raw, budget)
		got := s.Count()
		if got == 0 || got >= n || int64(got)*sizeRecord > budget ||
			!hasNote(s, "batch at byte 0 (BaseOffset 100): "+budgetNote, fmt.Sprintf(": %d of RecordCount %d records decoded", got, n)) {
			t.Fatalf("%d of %d records, notes %q", got, n, s.Notes)
		}
		if r := s.Entries[0].Batch.Records; r[got-1].Offset != 100 || r[got-1].Key != nil {
			t.Fatalf("last record %+v", r[got-1])
		}
	})

	t.Run("RecordCount 1 over minimal records", func(t *testing.T) {
		// Decoding stops at RecordCount, as Kafka's batch iterator does.
		n := budget / 4 / 7
		raw := compressedBatch(t, CompressionZstd, 0, 1, minimalRecords(n))
		s, _ := decodeWithin(t, raw, budget)
		if s.Count() != 1 || !hasNote(s, fmt.Sprintf("%d bytes after the 1 records of RecordCount, not decoded (%d more records by their lengths)", 7*(n-1), n-1)) {
			t.Fatalf("%d records, notes %q", s.Count(), s.Notes)
		}
	})

	t.Run("four batches", func(t *testing.T) {
		n := budget / 4 / 7
		one := compressedBatch(t, CompressionZstd, 0, int32(n), minimalRecords(n))
		raw := bytes.Repeat(one, 4)
		s, _ := decodeWithin(t, raw, budget)
		if len(s.Entries) != 1 || !hasNote(s, budgetNote+": 3 batches not decoded") || !hasNote(s, "batch at byte 0 (BaseOffset 100): "+budgetNote) {
			t.Fatalf("%d entries, notes %q", len(s.Entries), s.Notes)
		}
	})

	t.Run("one record with many headers", func(t *testing.T) {
		// 40 decoded bytes per 2 on the wire.
		n := budget / 4 / 2
		raw := compressedBatch(t, CompressionZstd, 0, 1, manyHeaders(n))
		s, _ := decodeWithin(t, raw, budget)
		if s.Count() != 0 || !hasNote(s, budgetNote+": 0 of RecordCount 1 records decoded") {
			t.Fatalf("%d records, notes %q", s.Count(), s.Notes)
		}
		// The same record fits a budget large enough for its headers.
		s = DecodeRecordSet(raw, RecordDecodeOptions{MaxDecompressedBytes: int64(n)*sizeHeader + 1<<20})
		if s.Count() != 1 || len(s.Entries[0].Batch.Records[0].Headers) != n || len(s.Notes) != 0 {
			t.Fatalf("large budget: %d records, notes %q", s.Count(), s.Notes)
		}
	})

	t.Run("distinct header keys", func(t *testing.T) {
		// Header key strings are charged too: each distinct key is a new
		// string (only 8 recent keys are reused).
		var body []byte
		body = append(body, 0, 0, 0, 1, 1)
		const nh = 20000
		body = AppendVarint(body, nh)
		for i := range nh {
			k := fmt.Sprintf("%05d%s", i, strings.Repeat("k", 43)) // 48 bytes
			body = AppendVarint(body, int32(len(k)))
			body = append(body, k...)
			body = append(body, 1) // null value
		}
		rec := append(AppendVarint(nil, int32(len(body))), body...)
		raw := compressedBatch(t, CompressionGzip, 0, 1, rec)
		// Enough for the headers, not for their keys as well.
		s, _ := decodeWithin(t, raw, int64(len(rec))+nh*sizeHeader+nh*20)
		if s.Count() != 0 || !hasNote(s, "0 of RecordCount 1 records decoded") {
			t.Fatalf("%d records, notes %q", s.Count(), s.Notes)
		}
	})

	t.Run("legacy wrapper of tiny messages", func(t *testing.T) {
		for _, n := range []int{budget / 4 / 26, budget / 26 * 8} {
			comp, _ := Compress(CompressionGzip, nil, tinyMessages(n))
			raw := appendMessage(nil, 0, &LegacyMessage{Offset: int64(n - 1)}, int8(CompressionGzip), comp)
			s, _ := decodeWithin(t, raw, budget)
			if n < budget/26 {
				// Decompressed within the budget; the messages are not.
				got := s.Count()
				if got == 0 || got >= n || !hasNote(s, "message at byte 0 (Offset "+fmt.Sprint(n-1)+"): "+budgetNote, fmt.Sprintf(": %d of %d inner messages decoded", got, n)) {
					t.Fatalf("%d of %d messages, notes %q", got, n, s.Notes)
				}
			} else if s.Count() != 0 || !hasNote(s, "gzip decompression: decompressed size exceeds the") {
				t.Fatalf("%d of %d messages, notes %q", s.Count(), n, s.Notes)
			}
		}
	})

	t.Run("legacy messages with bad CRCs", func(t *testing.T) {
		// A note per bad inner message would cost more than the
		// messages: the notes stop at maxRecordSetNotes.
		n := budget / 4 / 26
		inner := tinyMessages(n)
		for i := 0; i < len(inner); i += 26 {
			inner[i+12] ^= 0xff
		}
		comp, _ := Compress(CompressionGzip, nil, inner)
		raw := appendMessage(nil, 0, &LegacyMessage{}, int8(CompressionGzip), comp)
		s, _ := decodeWithin(t, raw, budget)
		got := s.Count()
		if len(s.Notes) != maxRecordSetNotes+2 || !strings.Contains(s.Notes[0], "inner message 0 at byte 0 (Offset 0): CRC-32 mismatch") ||
			s.Notes[maxRecordSetNotes] != fmt.Sprintf("message at byte 0 (Offset 0): %s: %d of %d inner messages decoded", budgetNote, got, n) ||
			s.Notes[maxRecordSetNotes+1] != fmt.Sprintf("%d more problems not listed", got-maxRecordSetNotes) {
			t.Fatalf("%d notes: first %q, last %q", len(s.Notes), s.Notes[0], s.Notes[len(s.Notes)-2:])
		}
	})

	t.Run("malformed control records", func(t *testing.T) {
		n := budget / 4 / 7
		raw := compressedBatch(t, CompressionLZ4, batchControlBit, int32(n), minimalRecords(n))
		s, _ := decodeWithin(t, raw, budget)
		got := s.Count()
		if got == 0 || len(s.Notes) != maxRecordSetNotes+2 || !hasNote(s, "record 0: control record key of 0 bytes") ||
			!hasNote(s, fmt.Sprintf("%s: %d of RecordCount %d records decoded", budgetNote, got, n)) {
			t.Fatalf("%d records, %d notes: %q", got, len(s.Notes), s.Notes[len(s.Notes)-2:])
		}
	})
}

// TestRecordBudgetDefault decodes the reviewer's bombs at the default
// budget of 64 MiB: they took 4 to 25 GB before the budget.
func TestRecordBudgetDefault(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 64 MiB bombs")
	}
	const budget = DefaultMaxDecompressedBytes
	n := budget / 7
	atCap := compressedBatch(t, CompressionZstd, 0, 1, minimalRecords(n))
	quarter := compressedBatch(t, CompressionZstd, 0, int32(n/4), minimalRecords(n/4))
	for _, tc := range []struct {
		name string
		raw  []byte
		note string
	}{
		{"one batch at the cap", atCap, "decompressed size exceeds the"},
		{"four batches at the cap", bytes.Repeat(atCap, 4), "record decoding budget of 64 MiB exhausted: 3 batches not decoded"},
		{"four batches below the cap", bytes.Repeat(quarter, 4), "record decoding budget of 64 MiB exhausted: 3 batches not decoded"},
		{"33M headers", compressedBatch(t, CompressionZstd, 0, 1, manyHeaders(budget/2-16)), "decompressed size exceeds the"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s *RecordSet
			alloc := minAllocatedBytes(func() { s = DecodeRecordSet(tc.raw, RecordDecodeOptions{}) })
			if !hasNote(s, tc.note) {
				t.Errorf("notes %q", s.Notes)
			}
			if alloc > 3*budget {
				t.Errorf("%d wire bytes allocated %d bytes", len(tc.raw), alloc)
			}
			t.Logf("%d wire bytes, %d records, %d MiB allocated", len(tc.raw), s.Count(), alloc>>20)
		})
	}
}

func TestRecordBudgetShared(t *testing.T) {
	var mixed []byte
	for _, part := range [][]byte{goldenMessageV0, goldenMessageV1, goldenBatchV2, goldenGzipWrapperV1, goldenControlBatch} {
		mixed = append(mixed, part...)
	}
	// What a clean decode costs is deterministic, and a budget of exactly
	// that decodes it all.
	b := NewRecordBudget(0)
	if b.Limit() != DefaultMaxDecompressedBytes {
		t.Fatalf("default limit %d", b.Limit())
	}
	want := DecodeRecordSet(mixed, RecordDecodeOptions{Budget: b})
	used := b.Used()
	if len(want.Notes) != 0 || want.Count() != 7 || used <= 0 || b.Exhausted() {
		t.Fatalf("notes %q, Count %d, used %d", want.Notes, want.Count(), used)
	}
	exact := NewRecordBudget(used)
	if s := DecodeRecordSet(mixed, RecordDecodeOptions{Budget: exact}); len(s.Notes) != 0 || s.Count() != 7 || exact.Used() != used || exact.Exhausted() {
		t.Fatalf("exact budget: notes %q, Count %d, used %d", s.Notes, s.Count(), exact.Used())
	}
	// One byte less: something is left undecoded, and said to be.
	short := NewRecordBudget(used - 1)
	if s := DecodeRecordSet(mixed, RecordDecodeOptions{Budget: short}); !hasNote(s, "record decoding budget of ") || s.Count() >= 7 || !short.Exhausted() {
		t.Fatalf("short budget: notes %q, Count %d", s.Notes, s.Count())
	}

	// A budget shared by the record sets of a frame: once it runs out,
	// later sets decode nothing, and say how much they skip.
	shared := NewRecordBudget(used + used/2)
	first := DecodeRecordSet(mixed, RecordDecodeOptions{Budget: shared, MaxDecompressedBytes: 1 << 30})
	second := DecodeRecordSet(mixed, RecordDecodeOptions{Budget: shared})
	third := DecodeRecordSet(append(append([]byte(nil), goldenBatchV2...), goldenControlBatch[:30]...), RecordDecodeOptions{Budget: shared})
	if len(first.Notes) != 0 || first.Count() != 7 {
		t.Fatalf("first set: notes %q", first.Notes)
	}
	if second.Count() >= 7 || !hasNote(second, "record decoding budget of ") || !shared.Exhausted() || shared.Used() > shared.Limit() {
		t.Fatalf("second set: Count %d, notes %q, used %d of %d", second.Count(), second.Notes, shared.Used(), shared.Limit())
	}
	if len(third.Entries) != 0 || third.PartialBytes != 30 || len(third.Notes) != 1 || third.Notes[0] != fmt.Sprintf("record decoding budget of %s exhausted: 1 batches not decoded", formatByteSize(shared.Limit())) {
		t.Fatalf("third set: %d entries, PartialBytes %d, notes %q", len(third.Entries), third.PartialBytes, third.Notes)
	}
	if s := DecodeRecordSet(append(append([]byte(nil), goldenMessageV0...), goldenBatchV2...), RecordDecodeOptions{Budget: shared}); len(s.Notes) != 1 ||
		!strings.HasSuffix(s.Notes[0], "exhausted: 1 batches and 1 messages not decoded") {
		t.Fatalf("mixed set: notes %q", s.Notes)
	}
	// Nothing to skip, nothing to say.
	if s := DecodeRecordSet(nil, RecordDecodeOptions{Budget: shared}); len(s.Notes) != 0 {
		t.Fatalf("empty set: notes %q", s.Notes)
	}
	var r Records
	r.Raw = goldenBatchV2
	if s := r.DecodeRecords(RecordDecodeOptions{Budget: shared}); len(s.Entries) != 0 || len(s.Notes) != 1 {
		t.Fatalf("Records.DecodeRecords: notes %q", s.Notes)
	}
}

func TestRecordBudgetZstdWindow(t *testing.T) {
	// A zstd window is working memory, bounded by the whole budget, not by
	// what is left of it: a frame's last batch is not refused for the
	// window its producer chose.
	b := wantBatchV2
	b.Attributes = int16(CompressionZstd)
	raw := b.AppendTo(nil) // EncodeAll: a window as large as the content, here small
	budget := NewRecordBudget(1 << 20)
	budget.used = budget.limit - 2000
	s := DecodeRecordSet(raw, RecordDecodeOptions{Budget: budget})
	if len(s.Notes) != 0 || s.Count() != 2 {
		t.Fatalf("notes %q", s.Notes)
	}
}
