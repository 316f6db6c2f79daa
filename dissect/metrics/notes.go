package metrics

import "strings"

// noteKinds classify the notes the dissector and decoder write
// (dissect/matcher.go, dissect/decode.go, dissect/sasl.go,
// dissect/tls.go), first match wins: a note names its exchange's details
// (sizes, topics, versions), so its text is no label; its kind is.
var noteKinds = []struct{ match, kind string }{
	{"response without a captured request", "request_missing"},
	{"request of ", "request_missing"}, // too short for a header
	{"no response", "response_missing"},
	{"response not captured", "response_missing"},
	{"before the response", "response_missing"}, // connection closed, capture ended, idle
	{"stopped waiting for the response", "response_missing"},
	{"answered out of order", "out_of_order"},
	{"CorrelationId", "correlation"},
	{"unknown API key", "unknown_api"},
	{"unsupported version", "unsupported_version"},
	{"records of ", "records"},       // CRC mismatch, decompression, partial batch
	{"truncated frame", "truncated"}, // the capture or connection ended inside it
	{"not captured", "not_captured"},
	{"malformed", "malformed"},
	{"bytes after the", "trailing_bytes"},
	{"too short", "malformed"},
	{"SASL", "sasl"},
	{"encrypted (", "tls_encrypted"},
	{"a new connection on the same ports", "port_reused"},
	{"latency is negative", "clock"},
}

// NoteKinds lists the kinds NoteKind returns, "other" last.
func NoteKinds() []string {
	var ks []string
	seen := map[string]bool{}
	for _, k := range noteKinds {
		if !seen[k.kind] {
			seen[k.kind] = true
			ks = append(ks, k.kind)
		}
	}
	return append(ks, Other)
}

// NoteKind returns the kind of a note, the kdissect_notes_total label: a
// short name from a fixed set, Other for notes it does not know.
func NoteKind(note string) string {
	for _, k := range noteKinds {
		if strings.Contains(note, k.match) {
			return k.kind
		}
	}
	return Other
}
