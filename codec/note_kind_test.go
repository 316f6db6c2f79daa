package codec

import (
	"bytes"
	"testing"
)

// kindsOf checks that s gives each note a kind and returns the kinds.
func kindsOf(t *testing.T, s *RecordSet) []NoteKind {
	t.Helper()
	if len(s.NoteKinds) != len(s.Notes) {
		t.Fatalf("%d notes, %d kinds: %q %v", len(s.Notes), len(s.NoteKinds), s.Notes, s.NoteKinds)
	}
	return s.NoteKinds
}

// TestRecordSetNoteKinds: each note of a record set carries the kind of
// problem it says, whatever its wording: a CRC mismatch, records that do
// not decompress, the budget running out, bytes not captured, and
// malformed records.
func TestRecordSetNoteKinds(t *testing.T) {
	crc := append([]byte(nil), goldenBatchV2...)
	crc[len(crc)-2] = 'D' // a record's byte changed: the CRC no longer matches
	notGzip := wantBatchV2
	notGzip.Attributes = int16(CompressionGzip)
	short := wantBatchV2
	short.RecordCount = 5 // two records follow
	for _, tc := range []struct {
		name string
		set  func() *RecordSet
		want NoteKind
	}{
		{"CRC mismatch", func() *RecordSet { return DecodeRecordSet(crc, RecordDecodeOptions{}) }, NoteCRCMismatch},
		{"not gzip", func() *RecordSet {
			return DecodeRecordSet(rawBatch(notGzip, []byte("not gzip at all")), RecordDecodeOptions{})
		}, NoteDecompression},
		{"budget", func() *RecordSet {
			raw := compressedBatch(t, CompressionGzip, 0, 1<<16, minimalRecords(1<<16))
			return DecodeRecordSet(raw, RecordDecodeOptions{Budget: NewRecordBudget(1 << 10)})
		}, NoteDecodeBudget},
		{"RecordCount", func() *RecordSet {
			return DecodeRecordSet(rawBatch(short, goldenBatchV2[recordBatchHeaderLen:]), RecordDecodeOptions{})
		}, NoteRecords},
		{"header not captured", func() *RecordSet {
			return DecodeGappedRecordSet(goldenBatchV2, len(goldenBatchV2), []Gap{{Start: 20, End: 30}}, RecordDecodeOptions{})
		}, NoteCRCNotVerified},
		{"tail not captured", func() *RecordSet {
			raw := append(append([]byte(nil), goldenBatchV2...), bytes.Repeat([]byte{0}, 10)...)
			return DecodeGappedRecordSet(raw, len(raw), []Gap{{Start: len(goldenBatchV2) + 2, End: len(raw)}}, RecordDecodeOptions{})
		}, NoteNotCaptured},
	} {
		s := tc.set()
		kinds := kindsOf(t, s)
		t.Logf("%s: %q, kinds %v", tc.name, s.Notes, kinds)
		found := false
		for _, k := range kinds {
			found = found || k == tc.want
		}
		if !found {
			t.Errorf("%s: notes %q of kinds %v, want one of kind %d", tc.name, s.Notes, kinds, tc.want)
		}
	}
}
