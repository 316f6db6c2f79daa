package dissect

import "github.com/kdissect/kdissect/codec"

// Severity grades a note as Wireshark's expert infos are graded: from
// SeverityChat (usual traffic worth pointing at) to SeverityError (bytes
// that break the protocol).
type Severity uint8

// The severities, lowest first.
const (
	SeverityChat  Severity = iota // usual, shown for information: a partial batch at a Fetch's size limit
	SeverityNote                  // unusual but not a fault: a connection picked up mid-stream
	SeverityWarn                  // something is missing or not as Kafka expects: a response not captured
	SeverityError                 // the bytes break the protocol: a CRC mismatch, a malformed body
)

// String returns the severity as Wireshark names expert levels: "chat",
// "note", "warn" or "error".
func (s Severity) String() string {
	switch s {
	case SeverityChat:
		return "chat"
	case SeverityNote:
		return "note"
	case SeverityWarn:
		return "warn"
	case SeverityError:
		return "error"
	}
	return "unknown"
}

// Note is one note on an exchange: what a user must know of it (a response
// not captured, bytes not captured, a malformed field...), like one of
// Wireshark's expert infos. Text is for the user and may be reworded;
// Kind is what counts of notes go by.
type Note struct {
	Kind     NoteKind
	Severity Severity // Kind's severity
	Text     string
}

// NewNote returns a note of kind, with the kind's severity, saying text.
func NewNote(kind NoteKind, text string) Note {
	return Note{Kind: kind, Severity: kind.Severity(), Text: text}
}

// String returns the note's text, as JSON Lines and the views show it.
func (n Note) String() string { return n.Text }

// NoteTexts returns the texts of notes, in order; nil for none.
func NoteTexts(notes []Note) []string {
	if len(notes) == 0 {
		return nil
	}
	out := make([]string, len(notes))
	for i, n := range notes {
		out[i] = n.Text
	}
	return out
}

// recordNoteKind returns the kind of a note of a record set or of a
// Fetch's transaction marking (codec.RecordSet.NoteKinds,
// codec.FetchTransactions.NoteKinds).
func recordNoteKind(k codec.NoteKind) NoteKind {
	switch k {
	case codec.NoteCRCMismatch:
		return NoteCRCMismatch
	case codec.NoteCRCNotVerified:
		return NoteCRCNotVerified
	case codec.NoteDecompression:
		return NoteDecompression
	case codec.NoteDecodeBudget:
		return NoteDecodeBudget
	case codec.NoteNotCaptured:
		return NoteTruncated
	case codec.NoteTransaction:
		return NoteTransaction
	}
	return NoteRecords
}
