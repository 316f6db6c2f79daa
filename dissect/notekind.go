package dissect

// NoteKind is the kind of a note on an exchange (Exchange.Notes): a stable
// name to count notes by, as tshark's -z expert counts its expert infos by
// their field, whatever a note's text says. Every place that makes a note
// names its kind (notekind_test.go checks it).
type NoteKind string

// The kinds of notes.
const (
	NoteCRCMismatch      NoteKind = "CRC mismatch"          // a record batch's CRC-32C or a message's CRC-32 does not match its bytes
	NoteCRCNotVerified   NoteKind = "CRC not verified"      // a batch or message not captured whole
	NoteDecompression    NoteKind = "decompression failed"  // a record batch or message that does not decompress
	NoteDecodeBudget     NoteKind = "decode budget reached" // --max-decompressed-size reached: records left undecoded
	NotePartialBatch     NoteKind = "partial batch"         // a Fetch cut at its size limit, as brokers do: not a fault
	NoteRecords          NoteKind = "malformed records"     // other problems in a record set
	NoteGap              NoteKind = "gap"                   // stream bytes not captured between frames
	NoteMidStream        NoteKind = "mid-stream start"      // the connection was picked up after its start
	NoteResync           NoteKind = "frame boundary lost"   // an implausible size prefix; the framer resynchronised
	NoteTruncated        NoteKind = "truncated"             // a frame, header or body not captured whole
	NoteOversized        NoteKind = "frame too large"       // a frame past the size limit (Options.MaxFrameSize): skipped, not decoded
	NoteUnknownAPI       NoteKind = "unknown API key"
	NoteUnknownVersion   NoteKind = "unknown version"     // a version the codec does not know
	NoteMalformed        NoteKind = "malformed"           // a header or body that does not decode as its version says
	NoteFieldWarning     NoteKind = "field warning"       // a field value outside what Kafka allows, decoding went on
	NoteHeaderVersion    NoteKind = "header version"      // a request header version not the one Kafka expects
	NoteAPIVersionsV0    NoteKind = "ApiVersions v0 body" // the broker's answer to a version it does not support
	NoteNoResponse       NoteKind = "response not captured"
	NoteNoRequest        NoteKind = "request not captured"
	NoteOutOfOrder       NoteKind = "answered out of order"
	NoteNegativeLatency  NoteKind = "negative latency" // the response's timestamp before its request's
	NoteCorrelationGuess NoteKind = "CorrelationId inferred"
	NoteEncrypted        NoteKind = "TLS not decrypted"
	NoteTLSProblem       NoteKind = "TLS decryption problem"
	NoteSASLToken        NoteKind = "SASL token"
	NoteSequence         NoteKind = "sequence anomaly"       // an idempotent producer's BaseSequence gap, duplicate or step back
	NoteRetransmission   NoteKind = "retransmission differs" // a retransmitted TCP segment whose bytes differ from the first copy
	NoteTransaction      NoteKind = "transaction mismatch"   // a Fetch answer's markers and AbortedTransactions disagree
	NoteInput            NoteKind = "input read"             // how kdissect decode read a frame given by hand (a hex dump, a packet's payload)
	NoteOther            NoteKind = "other"                  // a note made without a kind: a bug
)

// noteKinds lists the kinds in the order NoteKinds returns them, each with
// its severity.
var noteKinds = []struct {
	kind     NoteKind
	severity Severity
}{
	{NoteTransaction, SeverityWarn},
	{NoteCRCMismatch, SeverityError},
	{NoteCRCNotVerified, SeverityNote},
	{NoteDecodeBudget, SeverityWarn},
	{NoteDecompression, SeverityError},
	{NotePartialBatch, SeverityChat},
	{NoteTruncated, SeverityWarn},
	{NoteOversized, SeverityWarn},
	{NoteRecords, SeverityError},
	{NoteNoRequest, SeverityWarn},
	{NoteOutOfOrder, SeverityWarn},
	{NoteNegativeLatency, SeverityWarn},
	{NoteCorrelationGuess, SeverityNote},
	{NoteNoResponse, SeverityWarn},
	{NoteGap, SeverityWarn},
	{NoteMidStream, SeverityNote},
	{NoteResync, SeverityWarn},
	{NoteUnknownAPI, SeverityWarn},
	{NoteUnknownVersion, SeverityWarn},
	{NoteHeaderVersion, SeverityNote},
	{NoteAPIVersionsV0, SeverityChat},
	{NoteFieldWarning, SeverityWarn},
	{NoteMalformed, SeverityError},
	{NoteSequence, SeverityWarn},
	{NoteRetransmission, SeverityWarn},
	{NoteEncrypted, SeverityNote},
	{NoteTLSProblem, SeverityWarn},
	{NoteSASLToken, SeverityChat},
	{NoteInput, SeverityChat},
}

// NoteKinds lists every kind a note can have, NoteOther last: for
// counters served from zero (the Prometheus notes metric).
func NoteKinds() []NoteKind {
	ks := make([]NoteKind, 0, len(noteKinds)+1)
	for _, k := range noteKinds {
		ks = append(ks, k.kind)
	}
	return append(ks, NoteOther)
}

// Severity returns how much a note of the kind matters, as Wireshark's
// expert info levels grade theirs: SeverityWarn for NoteOther and for a
// kind not listed.
func (k NoteKind) Severity() Severity {
	for _, e := range noteKinds {
		if e.kind == k {
			return e.severity
		}
	}
	return SeverityWarn
}
