package codec

import "errors"

// NoteKind is the kind of a note of a RecordSet or FetchTransactions:
// what went wrong, for a caller that counts notes without reading their
// text (RecordSet.NoteKinds, FetchTransactions.NoteKinds).
type NoteKind uint8

// The kinds of record set notes.
const (
	NoteRecords        NoteKind = iota // malformed records: counts, lengths, trailing bytes, nesting, control records
	NoteCRCMismatch                    // a batch's CRC-32C or a message's CRC-32 does not match its bytes
	NoteCRCNotVerified                 // a batch or message not captured whole
	NoteDecompression                  // records that do not decompress
	NoteDecodeBudget                   // the RecordBudget ran out: records left undecoded
	NoteNotCaptured                    // bytes not captured hide entries or their format
	NoteTransaction                    // a Fetch's markers, AbortedTransactions and LastStableOffset disagree
)

// decompressKind is the kind of a note of decompression error err: the
// budget running out (a cap error, or no budget left to start with, which
// d.decompress marks), or data that does not decompress.
func (d *recordDecoder) decompressKind(err error) NoteKind {
	if errors.Is(err, ErrDecompressedTooLarge) || d.budget.exhausted {
		return NoteDecodeBudget
	}
	return NoteDecompression
}
