package codec

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

var updateRecordCorpus = flag.Bool("update-record-corpus", false,
	"rewrite the golden seeds in testdata/fuzz/FuzzDecodeRecordSet")

const recordCorpusDir = "testdata/fuzz/FuzzDecodeRecordSet"

// recordSetGoldenSeeds are the committed seeds: the hand-written goldens.
func recordSetGoldenSeeds() map[string][]byte {
	var mixed []byte
	for _, part := range [][]byte{goldenMessageV0, goldenMessageV1, goldenBatchV2, goldenGzipWrapperV1, goldenControlBatch} {
		mixed = append(mixed, part...)
	}
	return map[string][]byte{
		"golden_batch_v2":           goldenBatchV2,
		"golden_control_batch":      goldenControlBatch,
		"golden_message_v0":         goldenMessageV0,
		"golden_message_v1":         goldenMessageV1,
		"golden_gzip_wrapper_v1":    goldenGzipWrapperV1,
		"perl_fetch_v0_message_set": perlFetchV0Response()[perlMessageSetAt:],
		"golden_mixed":              mixed,
		"golden_batch_v2_partial":   append(append([]byte(nil), goldenBatchV2...), goldenControlBatch[:40]...),
	}
}

// corpusFile is the body of a corpus file in Go's fuzz format.
func corpusFile(b []byte) []byte {
	return fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", b)
}

// TestFuzzDecodeRecordSetCorpus checks that the committed seed corpus holds
// every golden; -update-record-corpus rewrites it.
func TestFuzzDecodeRecordSetCorpus(t *testing.T) {
	seeds := recordSetGoldenSeeds()
	names := make([]string, 0, len(seeds))
	for name := range seeds {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(recordCorpusDir, name)
		want := corpusFile(seeds[name])
		if *updateRecordCorpus {
			if err := os.MkdirAll(recordCorpusDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is missing or stale (err %v); run go test ./codec -run TestFuzzDecodeRecordSetCorpus -update-record-corpus", path, err)
		}
	}
}

func FuzzDecodeRecordSet(f *testing.F) {
	// Compressed variants of the goldens, built fresh (their bytes depend
	// on the compression libraries' versions, so they are not committed).
	for _, c := range allCompressions[1:] {
		b := wantBatchV2
		b.Attributes = int16(c)
		f.Add(b.AppendTo(nil))
		f.Add(AppendMessageSet(nil, 1, c, wantGzipWrapperV1.Inner))
		f.Add(AppendMessageSet(nil, 0, c, []LegacyMessage{wantMessageV0, wantMessageV0}))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		// A small budget shared by two decodes reaches the paths where it
		// runs out: it is never overdrawn, and what is skipped is said.
		small := NewRecordBudget(int64(len(raw)%4096) + 200)
		for range 2 {
			s := DecodeRecordSet(raw, RecordDecodeOptions{Budget: small})
			if small.Used() > small.Limit() {
				t.Fatalf("budget overdrawn: %d of %d", small.Used(), small.Limit())
			}
			if small.Exhausted() && len(raw) > 0 && len(s.Notes) == 0 && s.PartialBytes != len(raw) {
				t.Fatalf("budget exhausted without a note: %d entries", len(s.Entries))
			}
		}
		budget := NewRecordBudget(1 << 20)
		s := DecodeRecordSet(raw, RecordDecodeOptions{Budget: budget})
		if s == nil {
			t.Fatal("nil set")
		}
		if budget.Used() > budget.Limit() {
			t.Fatalf("budget overdrawn: %d of %d", budget.Used(), budget.Limit())
		}
		if s.PartialBytes < 0 || s.PartialBytes > len(raw) {
			t.Fatalf("PartialBytes %d of %d bytes", s.PartialBytes, len(raw))
		}
		used := s.PartialBytes
		count := 0
		for _, e := range s.Entries {
			if (e.Batch == nil) == (e.Message == nil) {
				t.Fatalf("entry with batch %v and message %v", e.Batch != nil, e.Message != nil)
			}
			if e.Batch != nil {
				used += 12 + int(e.Batch.BatchLength)
				count += len(e.Batch.Records)
			} else {
				used += 12 + int(e.Message.MessageSize)
				if e.Message.Compression() != CompressionNone {
					count += len(e.Message.Inner)
				} else {
					count++
				}
			}
		}
		if used > len(raw) || (used < len(raw) && len(s.Notes) == 0) {
			t.Fatalf("entries and partial bytes cover %d of %d bytes, notes %q", used, len(raw), s.Notes)
		}
		if s.Count() != count {
			t.Fatalf("Count %d, entries hold %d", s.Count(), count)
		}
		w := NewJSONWriter(nil)
		s.WriteJSON(w)
		if !json.Valid(w.Bytes()) {
			t.Fatalf("invalid JSON: %s", w.Bytes())
		}
		// Counting only (RecordDecodeOptions.CountOnly) never overdraws its
		// budget, and counts what a clean full decode counts.
		countBudget := NewRecordBudget(1 << 20)
		counted := DecodeRecordSet(raw, RecordDecodeOptions{Budget: countBudget, CountOnly: true})
		if countBudget.Used() > countBudget.Limit() {
			t.Fatalf("count-only budget overdrawn: %d of %d", countBudget.Used(), countBudget.Limit())
		}
		if len(s.Notes) == 0 && (counted.Count() != s.Count() || counted.PartialBytes != s.PartialBytes || len(counted.Entries) != len(s.Entries)) {
			t.Fatalf("count-only: Count %d, %d partial bytes, %d entries; full: %d, %d, %d",
				counted.Count(), counted.PartialBytes, len(counted.Entries), s.Count(), s.PartialBytes, len(s.Entries))
		}
		if len(s.Notes) != 0 {
			return
		}
		// A clean decode survives encoding: the records come back equal
		// (Length aside: the wire may use non-minimal varints), and an
		// uncompressed legacy message comes back byte for byte.
		pos := 0
		for _, e := range s.Entries {
			if b := e.Batch; b != nil {
				again := DecodeRecordSet(b.AppendTo(nil), RecordDecodeOptions{MaxDecompressedBytes: 1 << 20})
				if len(again.Notes) != 0 || len(again.Entries) != 1 {
					t.Fatalf("re-encoded batch: notes %q", again.Notes)
				}
				got, want := again.Entries[0].Batch.Records, b.Records
				if len(got) != len(want) {
					t.Fatalf("re-encoded batch has %d records, want %d", len(got), len(want))
				}
				for i := range got {
					g, w := got[i], want[i]
					g.Length, w.Length = 0, 0
					if !reflect.DeepEqual(g, w) {
						t.Fatalf("re-encoded record %d\n%+v\nwant\n%+v", i, g, w)
					}
				}
				pos += 12 + int(b.BatchLength)
				continue
			}
			m := e.Message
			n := 12 + int(m.MessageSize)
			if m.Compression() == CompressionNone {
				if enc := AppendMessageSet(nil, m.Magic, CompressionNone, []LegacyMessage{*m}); !bytes.Equal(enc, raw[pos:pos+n]) {
					t.Fatalf("re-encoded message\n% x\nwant\n% x", enc, raw[pos:pos+n])
				}
			}
			pos += n
		}
	})
}
