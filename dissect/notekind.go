package dissect

import "strings"

// The kinds of the notes on exchanges (Exchange.Notes), for counting them
// as tshark's -z expert counts its expert infos. A note is free text for a
// user; its kind is a stable name, found from the text by noteRules.
// notekind_test.go checks that every note the code of dissect and codec
// can produce has a kind other than NoteOther, so a note added without a
// rule fails that test.
const (
	NoteCRCMismatch      = "CRC mismatch"          // a record batch's CRC-32C or a message's CRC-32 does not match its bytes
	NoteCRCNotVerified   = "CRC not verified"      // a batch or message not captured whole
	NoteDecompression    = "decompression failed"  // a record batch or message that does not decompress
	NoteDecodeBudget     = "decode budget reached" // --max-decompressed-size reached: records left undecoded
	NotePartialBatch     = "partial batch"         // a Fetch cut at its size limit, as brokers do: not a fault
	NoteRecords          = "malformed records"     // other problems in a record set
	NoteGap              = "gap"                   // stream bytes not captured between frames
	NoteMidStream        = "mid-stream start"      // the connection was picked up after its start
	NoteResync           = "frame boundary lost"   // an implausible size prefix; the framer resynchronised
	NoteTruncated        = "truncated"             // a frame, header or body not captured whole
	NoteUnknownAPI       = "unknown API key"
	NoteUnknownVersion   = "unknown version"     // a version the codec does not know
	NoteMalformed        = "malformed"           // a header or body that does not decode as its version says
	NoteFieldWarning     = "field warning"       // a field value outside what Kafka allows, decoding went on
	NoteHeaderVersion    = "header version"      // a request header version not the one Kafka expects
	NoteAPIVersionsV0    = "ApiVersions v0 body" // the broker's answer to a version it does not support
	NoteNoResponse       = "response not captured"
	NoteNoRequest        = "request not captured"
	NoteOutOfOrder       = "answered out of order"
	NoteNegativeLatency  = "negative latency" // the response's timestamp before its request's
	NoteCorrelationGuess = "CorrelationId inferred"
	NoteEncrypted        = "TLS not decrypted"
	NoteTLSProblem       = "TLS decryption problem"
	NoteSASLToken        = "SASL token"
	NoteSequence         = "sequence anomaly"       // an idempotent producer's BaseSequence gap, duplicate or step back
	NoteRetransmission   = "retransmission differs" // a retransmitted TCP segment whose bytes differ from the first copy
	NoteTransaction      = "transaction mismatch"   // a Fetch answer's markers and AbortedTransactions disagree
	NoteOther            = "other"                  // a note no rule knows: a bug of the rules
)

// noteRule gives a kind to the notes that contain (or, with prefix, start
// with) text. The first rule that matches wins, so the specific ones come
// first: a CRC mismatch note is also a record set's note.
type noteRule struct {
	text   string
	prefix bool
	kind   string
	and    string // when set, the note must contain it too
}

var noteRules = []noteRule{
	{"AbortedTransactions does not list it", false, NoteTransaction, ""},
	{"at or past its LastStableOffset", false, NoteTransaction, ""},
	{"CRC-32C mismatch", false, NoteCRCMismatch, ""},
	{"CRC-32 mismatch", false, NoteCRCMismatch, ""},
	{"CRC-32C not verified", false, NoteCRCNotVerified, ""},
	{"CRC-32 not verified", false, NoteCRCNotVerified, ""},
	{"record decoding budget of", false, NoteDecodeBudget, ""},
	{"decompression", false, NoteDecompression, ""},
	{"unsupported compression codec", false, NoteDecompression, ""},
	{"partial batch of", false, NotePartialBatch, ""},
	{"records of ", true, NoteTruncated, "not captured"},
	{"records of ", true, NoteRecords, ""},

	{"response without a captured request", true, NoteNoRequest, ""},
	{"answered out of order", true, NoteOutOfOrder, ""},
	{"before its request", false, NoteNegativeLatency, ""},
	{"CorrelationId taken from the response", true, NoteCorrelationGuess, ""},
	{"response CorrelationId not captured", true, NoteCorrelationGuess, ""},
	{"no response", true, NoteNoResponse, ""},
	{"response not captured", true, NoteNoResponse, ""},
	{"connection closed before the response", true, NoteNoResponse, ""},
	{"connection idle", true, NoteNoResponse, ""},
	{"connection evicted", true, NoteNoResponse, ""},
	{"capture ended before the response", true, NoteNoResponse, ""},
	{"stopped waiting for the response", true, NoteNoResponse, ""},
	{"a new connection on the same ports", true, NoteNoResponse, ""},
	{"NoResponseReason(", true, NoteNoResponse, ""}, // a reason without a text

	{"gap in the capture", true, NoteGap, ""},
	{"connection picked up mid-stream", true, NoteMidStream, ""},
	{"implausible frame size", true, NoteResync, ""},
	{"lost the frame boundary", true, NoteResync, ""},
	{"truncated frame", true, NoteTruncated, ""},
	{"of the frame's", false, NoteTruncated, ""}, // "N of the frame's M bytes not captured"
	{"not captured whole", false, NoteTruncated, ""},
	{" not captured: ", false, NoteTruncated, ""},                              // a body's fields not captured
	{"where what locates the rest was not captured", false, NoteTruncated, ""}, // a body cut

	{"unknown API key", true, NoteUnknownAPI, ""},
	{"unsupported version", true, NoteUnknownVersion, ""},
	{"sent with request header v1", false, NoteHeaderVersion, ""},
	{"answered with a v0 body", false, NoteAPIVersionsV0, ""},
	{"request: at offset", true, NoteFieldWarning, ""},
	{"response: at offset", true, NoteFieldWarning, ""},
	{"further warnings not shown", false, NoteFieldWarning, ""},
	{"malformed ", true, NoteMalformed, ""},
	{"too short for", false, NoteMalformed, ""},
	{" bytes after the ", false, NoteMalformed, ""}, // "request: N bytes after the X vN body"

	{"idempotent producer ", true, NoteSequence, ""},
	{"retransmitted TCP segment", false, NoteRetransmission, ""},

	{"encrypted (", true, NoteEncrypted, ""},
	{"TLS ", true, NoteTLSProblem, ""},
	{"SASL ", true, NoteSASLToken, ""},
}

// NoteKinds lists every kind NoteKind returns, NoteOther last: for
// counters served from zero (the Prometheus notes metric).
func NoteKinds() []string {
	ks := make([]string, 0, len(noteRules)+1)
	seen := map[string]bool{}
	for _, r := range noteRules {
		if !seen[r.kind] {
			seen[r.kind] = true
			ks = append(ks, r.kind)
		}
	}
	return append(ks, NoteOther)
}

// NoteKind returns the kind of a note of Exchange.Notes: one of the Note
// constants, NoteOther for a text no rule knows.
func NoteKind(note string) string {
	for _, r := range noteRules {
		if (r.prefix && strings.HasPrefix(note, r.text) || !r.prefix && strings.Contains(note, r.text)) && strings.Contains(note, r.and) {
			return r.kind
		}
	}
	return NoteOther
}
