package codec

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// redactedMark replaces a secret in redacted output.
const redactedMark = "***"

// Secret writes a credential (@secret in the schema: a delegation token
// HMAC, a salted password). Unless ShowSecrets is set it is written as
// {"redacted": "***", "bytes": N}; null stays null.
func (w *JSONWriter) Secret(b []byte) {
	if w.ShowSecrets || b == nil {
		w.ByteString(b)
		return
	}
	w.redacted(redactedMark, len(b))
}

// SASLToken writes a SASL token sent by a client (@sasl in the schema:
// SaslAuthenticate AuthBytes, KIP-152). Unless ShowSecrets is set, the
// credential in it is replaced by "***" and the rest is kept, as
// {"redacted": "<token with *** for the secret>", "bytes": N}: the password
// of PLAIN (RFC 4616), the proof of a SCRAM client-final message (RFC 5802),
// the bearer token of OAUTHBEARER (RFC 7628). A SCRAM client-first message
// holds no secret and is written as is; a token of any other form (GSSAPI,
// unknown) is hidden whole.
func (w *JSONWriter) SASLToken(b []byte) {
	if w.ShowSecrets || len(b) == 0 {
		w.ByteString(b)
		return
	}
	text, secret := RedactSASL(b)
	if !secret {
		w.ByteString(b)
		return
	}
	w.redacted(text, len(b))
}

// ConfigValue writes the value of the config called name (@config in the
// schema: AlterConfigs, IncrementalAlterConfigs, CreateTopics and
// DescribeConfigs). Unless ShowSecrets is set, the value of a
// password-like config (see IsSensitiveConfig) is written as
// {"redacted": "***", "bytes": N}; null stays null.
func (w *JSONWriter) ConfigValue(name string, value *string) {
	if w.ShowSecrets || value == nil || !IsSensitiveConfig(name) {
		w.NullableString(value)
		return
	}
	w.redacted(redactedMark, len(*value))
}

// IsSensitiveConfig reports whether a config name holds a credential:
// Kafka's PASSWORD-typed configs (ssl.key.password, ssl.keystore.password,
// sasl.jaas.config, listener-prefixed variants, ...), private keys
// (ssl.keystore.key) and client secrets. It errs toward redacting.
func IsSensitiveConfig(name string) bool {
	n := strings.ToLower(name)
	for _, s := range []string{"password", "secret", "sasl.jaas.config", "ssl.keystore.key", "credential"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

func (w *JSONWriter) redacted(text string, n int) {
	w.BeginObject()
	w.Key("redacted")
	w.String(text)
	w.Key("bytes")
	w.Int(int64(n))
	w.EndObject()
}

// RedactSASL returns a SASL client token with its credential replaced by
// "***", and whether it held one. Tokens it does not recognise are
// returned as "***" whole.
func RedactSASL(b []byte) (text string, hadSecret bool) {
	if !utf8.Valid(b) {
		return redactedMark, true
	}
	s := string(b)
	switch {
	case bytes.HasPrefix(b, []byte("c=")) && bytes.Contains(b, []byte(",p=")):
		// SCRAM client-final-message: c=...,r=...,p=ClientProof (the proof is last).
		i := bytes.LastIndex(b, []byte(",p="))
		return s[:i+3] + redactedMark, true
	case isSCRAMClientFirst(b):
		return s, false
	case bytes.Contains(b, []byte("\x01auth=")):
		// OAUTHBEARER: gs2-header \x01 key=value \x01 ... \x01\x01; auth=Bearer <token>.
		i := bytes.Index(b, []byte("\x01auth=")) + len("\x01auth=")
		end := bytes.IndexByte(b[i:], 0x01)
		if end < 0 {
			end = len(b) - i
		}
		val := s[i : i+end]
		if sp := bytes.IndexByte([]byte(val), ' '); sp >= 0 {
			val = val[:sp+1] + redactedMark // keep the scheme, "Bearer "
		} else {
			val = redactedMark
		}
		return s[:i] + val + s[i+end:], true
	case bytes.Count(b, []byte{0}) == 2:
		// PLAIN: [authzid] NUL authcid NUL passwd.
		i := bytes.LastIndexByte(b, 0)
		return s[:i+1] + redactedMark, true
	}
	return redactedMark, true
}

// isSCRAMClientFirst recognises a SCRAM client-first-message: a GS2 header
// ("n,", "y," or "p=...,", then an optional "a=..." and ","), then "n=" and
// ",r=", with no proof.
func isSCRAMClientFirst(b []byte) bool {
	if len(b) < 3 || (b[0] != 'n' && b[0] != 'y' && b[0] != 'p') {
		return false
	}
	parts := bytes.SplitN(b, []byte(","), 4)
	return len(parts) >= 4 && bytes.HasPrefix(parts[2], []byte("n=")) && bytes.HasPrefix(parts[3], []byte("r=")) &&
		!bytes.Contains(b, []byte(",p="))
}
