package codec

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// countOnly decodes raw with RecordDecodeOptions.CountOnly and fails
// unless it counts what a full decode counts, with the same entries,
// entry sizes and partial bytes. It returns the count-only set and how many
// of its batches were taken at their header.
func countOnly(t *testing.T, raw []byte, budget int64) (*RecordSet, int) {
	t.Helper()
	full := DecodeRecordSet(raw, RecordDecodeOptions{MaxDecompressedBytes: budget})
	counted := DecodeRecordSet(raw, RecordDecodeOptions{MaxDecompressedBytes: budget, CountOnly: true})
	if full.Count() != counted.Count() {
		t.Errorf("Count: full %d, count-only %d (full notes %q)", full.Count(), counted.Count(), full.Notes)
	}
	if full.PartialBytes != counted.PartialBytes {
		t.Errorf("PartialBytes: full %d, count-only %d", full.PartialBytes, counted.PartialBytes)
	}
	if len(full.Entries) != len(counted.Entries) {
		t.Fatalf("entries: full %d, count-only %d", len(full.Entries), len(counted.Entries))
	}
	taken := 0
	for i, f := range full.Entries {
		c := counted.Entries[i]
		switch {
		case f.Batch != nil && c.Batch != nil:
			if f.Batch.BatchLength != c.Batch.BatchLength || f.Batch.RecordCount != c.Batch.RecordCount || f.Batch.CrcValid != c.Batch.CrcValid {
				t.Errorf("entry %d: full batch %+v, count-only %+v", i, *f.Batch, *c.Batch)
			}
			if c.Batch.RecordsCounted {
				taken++
				if c.Batch.Records != nil || !c.Batch.CrcValid {
					t.Errorf("entry %d: counted batch with records %v, CrcValid %v", i, c.Batch.Records != nil, c.Batch.CrcValid)
				}
			}
			if f.Batch.RecordsCounted {
				t.Errorf("entry %d: a full decode took a batch at its header", i)
			}
		case f.Message != nil && c.Message != nil:
			if f.Message.MessageSize != c.Message.MessageSize {
				t.Errorf("entry %d: message size full %d, count-only %d", i, f.Message.MessageSize, c.Message.MessageSize)
			}
		default:
			t.Errorf("entry %d: full %+v, count-only %+v", i, f, c)
		}
	}
	return counted, taken
}

// TestRecordCountOnly checks that RecordDecodeOptions.CountOnly counts as
// a full decode does, takes CRC-verified batches of every codec at their
// header, and decodes in full what it cannot trust.
func TestRecordCountOnly(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 2))
	const budget = DefaultMaxDecompressedBytes

	t.Run("every codec", func(t *testing.T) {
		for _, c := range []Compression{CompressionNone, CompressionGzip, CompressionSnappy, CompressionLZ4, CompressionZstd} {
			var raw []byte
			for _, n := range []int{0, 1, 7, 300} {
				b := randomBatch(rng, c, n)
				raw = b.AppendTo(raw)
			}
			s, taken := countOnly(t, raw, budget)
			if taken != 4 || s.Count() != 308 || len(s.Notes) != 0 {
				t.Errorf("%s: %d of 4 batches taken at their header, Count %d, notes %q", c, taken, s.Count(), s.Notes)
			}
		}
	})

	t.Run("control batch and trailing partial batch", func(t *testing.T) {
		raw := append(append([]byte(nil), goldenControlBatch...), goldenBatchV2...)
		b := randomBatch(rng, CompressionZstd, 20)
		whole := b.AppendTo(nil)
		raw = append(raw, whole[:len(whole)-5]...) // a fetch cut at its size limit
		// The control batch is decoded in full: its marker's type
		// decides the transaction before it (MarkTransactions).
		s, taken := countOnly(t, raw, budget)
		if taken != 1 || s.PartialBytes != len(whole)-5 {
			t.Errorf("%d of 1 batch taken, PartialBytes %d", taken, s.PartialBytes)
		}
	})

	t.Run("legacy messages are decoded", func(t *testing.T) {
		var raw []byte
		for _, part := range [][]byte{goldenMessageV0, goldenMessageV1, goldenBatchV2, goldenGzipWrapperV1, goldenControlBatch} {
			raw = append(raw, part...)
		}
		s, taken := countOnly(t, raw, budget)
		if taken != 1 || s.Count() != 7 { // the control batch decoded, as above
			t.Errorf("%d of 1 batch taken, Count %d", taken, s.Count())
		}
		for _, c := range []Compression{CompressionNone, CompressionGzip, CompressionSnappy, CompressionLZ4} {
			raw := AppendMessageSet(nil, 1, c, randomMessages(rng, 5, 1))
			if s, _ := countOnly(t, raw, budget); s.Count() != 5 {
				t.Errorf("magic 1 %s: Count %d, want 5", c, s.Count())
			}
		}
	})

	t.Run("CRC mismatch takes the full path", func(t *testing.T) {
		for _, c := range []Compression{CompressionNone, CompressionLZ4} {
			b := randomBatch(rng, c, 10)
			raw := b.AppendTo(nil)
			raw[len(raw)-1] ^= 0xff // the CRC covers the records
			s, taken := countOnly(t, raw, budget)
			if taken != 0 || s.Entries[0].Batch.RecordsCounted || !hasNote(s, "CRC-32C mismatch") {
				t.Errorf("%s: %d batches taken at their header, notes %q", c, taken, s.Notes)
			}
		}
	})

	t.Run("what cannot be trusted is decoded", func(t *testing.T) {
		good := randomBatch(rng, CompressionNone, 6)
		payload := good.AppendTo(nil)[recordBatchHeaderLen:]
		lying := good
		lying.RecordCount = 9 // more than the records; CRC recomputed
		badCodec := good
		badCodec.Attributes = good.Attributes&^compressionMask | 6
		negative := good
		negative.RecordCount = -1
		cases := map[string][]byte{
			"RecordCount above the records":    rawBatch(lying, payload),
			"unknown codec":                    rawBatch(badCodec, payload),
			"negative RecordCount":             rawBatch(negative, payload),
			"uncompressed bytes after records": rawBatch(good, append(append([]byte(nil), payload...), 0x0c, 0, 0, 0, 1, 1, 0)),
			"malformed uncompressed record":    rawBatch(good, append([]byte{0x7f}, payload[1:]...)),
		}
		for name, raw := range cases {
			s, taken := countOnly(t, raw, budget)
			if taken != 0 || len(s.Notes) == 0 {
				t.Errorf("%s: %d batches taken at their header, notes %q", name, taken, s.Notes)
			}
		}
	})

	t.Run("a budget too small takes the full path", func(t *testing.T) {
		raw := compressedBatch(t, CompressionGzip, 0, 10000, minimalRecords(10000))
		// 10000 decoded records do not fit in 64 KiB: decoded in full,
		// the records that fit counted, as a full decode counts them.
		s, taken := countOnly(t, raw, 64<<10)
		if taken != 0 || s.Count() >= 10000 || !hasNote(s, "record decoding budget") {
			t.Errorf("%d batches taken, Count %d, notes %q", taken, s.Count(), s.Notes)
		}
	})

	t.Run("a payload that might decompress past the budget takes the full path", func(t *testing.T) {
		// 8 MiB of minimal records under a 1 MiB budget, whatever
		// RecordCount says: decoding in full decompresses to the budget
		// and decodes none, and so does counting.
		for _, c := range []Compression{CompressionGzip, CompressionSnappy, CompressionLZ4, CompressionZstd} {
			for _, count := range []int32{1, 100, 1 << 20} {
				raw := compressedBatch(t, c, 0, count, minimalRecords(8<<20/7))
				s, taken := countOnly(t, raw, 1<<20)
				if taken != 0 || s.Count() != 0 {
					t.Errorf("%s, RecordCount %d: %d batches taken, Count %d, notes %q", c, count, taken, s.Count(), s.Notes)
				}
			}
		}
	})

	t.Run("JSON says the records were not decoded", func(t *testing.T) {
		b := randomBatch(rng, CompressionSnappy, 3)
		s := DecodeRecordSet(b.AppendTo(nil), RecordDecodeOptions{CountOnly: true})
		w := NewJSONWriter(nil)
		s.WriteJSON(w)
		if !bytes.Contains(w.Bytes(), []byte(`"RecordCount":3,"Records":null}`)) {
			t.Errorf("JSON %s", w.Bytes())
		}
	})
}

// TestDecompressedBound: the bound the framing gives is never below what
// the payload decompresses to, for payloads of every codec, small and
// large, compressible and not, in one block or many; and bytes that are
// no LZ4 or zstd frame give no bound.
func TestDecompressedBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	random := make([]byte, 3<<20)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	payloads := map[string][]byte{
		"empty":           {},
		"minimal records": minimalRecords(1 << 20),
		"random":          random,
		"random small":    random[:100],
		"zeros":           make([]byte, 5<<20),
	}
	for _, c := range []Compression{CompressionNone, CompressionGzip, CompressionSnappy, CompressionLZ4, CompressionZstd} {
		for name, p := range payloads {
			comp, err := Compress(c, nil, p)
			if err != nil {
				t.Fatal(err)
			}
			bound, ok := decompressedBound(c, comp)
			if !ok || bound < int64(len(p)) {
				t.Errorf("%s %s: %d bytes decompressed, bound %d (%v)", c, name, len(p), bound, ok)
			}
		}
		if c != CompressionLZ4 && c != CompressionZstd {
			continue // no magic number: every byte string declares a size
		}
		if _, ok := decompressedBound(c, []byte("not a compressed payload at all")); ok {
			t.Errorf("%s: a bound for bytes of no framing", c)
		}
	}
}
