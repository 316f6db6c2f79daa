package render

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kdissect/kdissect/codec"
)

// How field values read in the detail and hexdump views: each with what
// it means where the field's name or type says it (durations, sizes,
// times, error codes, API keys, batch attributes), wire text quoted with
// Go's escapes so that nothing from the wire reaches a terminal raw.

// timeLayout shows a Kafka timestamp (milliseconds since the epoch).
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// valueStyle tunes formatValue.
type valueStyle struct {
	showSecrets bool
	maxText     int // longest text shown whole, in bytes; 0: no limit
	maxHex      int // most bytes shown in hex; 0: no limit
	// response says the frame is a response; topics names the topic IDs
	// the exchange touches, where the decoder learnt their names.
	response bool
	topics   map[codec.UUID]string
}

// forFrame returns st for the fields of ft.
func (st valueStyle) forFrame(ft *FrameTree) valueStyle {
	st.response = ft.Response
	st.topics = ft.topicNames
	return st
}

// formatValue renders the value of leaf n.
func formatValue(n *Node, st valueStyle) string {
	if n.Secret && !st.showSecrets {
		return redactedValue(n)
	}
	switch v := n.Value.(type) {
	case codec.NotCapturedValue:
		return "not captured"
	case notCapturedStop:
		return "not captured; " + v.text()
	case undecoded:
		return "not decoded: " + sanitize(v.err.Error())
	case codec.TraceNote:
		return sanitize(string(v))
	case nil:
		return ""
	case bool:
		return strconv.FormatBool(v)
	case int8:
		return formatInt(n, int64(v), st)
	case int16:
		return formatInt(n, int64(v), st)
	case int32:
		return formatInt(n, int64(v), st)
	case int64:
		return formatInt(n, v, st)
	case int:
		return formatInt(n, int64(v), st)
	case uint16:
		return strconv.FormatUint(uint64(v), 10)
	case uint32:
		if n.Name == "Crc" && n.Field == nil {
			// The CRC of a batch or message with bytes not captured.
			return fmt.Sprintf("0x%08x (not verified: bytes it covers were not captured)", v)
		}
		return strconv.FormatUint(uint64(v), 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case string:
		return quote(v, st.maxText)
	case *string:
		if v == nil {
			return "null"
		}
		return quote(*v, st.maxText)
	case []byte:
		return formatBytes(v, st)
	case codec.UUID:
		if v.IsZero() {
			return "AAAAAAAAAAAAAAAAAAAAAA (zero UUID)"
		}
		if name, ok := st.topics[v]; ok {
			return v.String() + " (" + quote(name, st.maxText) + ")"
		}
		return v.String()
	case codec.TaggedField:
		return fmt.Sprintf("tag %d, %s", v.Tag, formatBytes(v.Data, st))
	case *codec.Records:
		if v.IsNull() {
			return "null"
		}
		return plural(len(v.Raw), "byte")
	case codec.Checksum:
		if v.Valid {
			return fmt.Sprintf("0x%08x (valid)", v.Value)
		}
		return fmt.Sprintf("0x%08x (MISMATCH: computed 0x%08x)", v.Value, v.Computed)
	case msgAttributes:
		return formatAttributes(v)
	case codec.Compression:
		return fmt.Sprintf("%s-compressed, %s", v, plural(int(n.End-n.Start), "byte"))
	}
	return sanitize(fmt.Sprint(n.Value))
}

// redactedValue is what a credential shows without --show-secrets.
func redactedValue(n *Node) string {
	var b []byte
	switch v := n.Value.(type) {
	case []byte:
		b = v
	case string:
		b = []byte(v)
	case *string:
		if v == nil {
			return "null"
		}
		b = []byte(*v)
	}
	if n.Field != nil && n.Field.Has(codec.FieldSASL) && len(b) > 0 {
		// Keep what a SASL token holds besides the credential
		// (the user name of PLAIN, the nonce of SCRAM).
		text, secret := codec.RedactSASL(b)
		if !secret {
			return quote(string(b), 0)
		}
		return quote(text, 0) + fmt.Sprintf(" (redacted, %s; --show-secrets shows it)", plural(len(b), "byte"))
	}
	return fmt.Sprintf("*** (redacted, %s; --show-secrets shows it)", plural(len(b), "byte"))
}

// formatInt renders an integer with what its field means.
func formatInt(n *Node, v int64, st valueStyle) string {
	s := strconv.FormatInt(v, 10)
	name := n.Name
	switch {
	case name == "(length)" && v == -1, name == "(null marker)" && v < 0:
		return s + " (null)"
	case isErrorField(n):
		return s + " " + describeError(int16(v))
	case name == "RequestApiKey" || name == "ApiKey":
		if api, ok := codec.LookupAPI(int16(v)); ok {
			return s + " (" + api.Name + ")"
		}
	case name == "Acks":
		switch v {
		case -1:
			return s + " (all in-sync replicas)"
		case 0:
			return s + " (none: no response)"
		case 1:
			return s + " (leader)"
		}
	case name == "Attributes" && n.Field == nil:
		if _, ok := n.Value.(int16); ok {
			return formatAttributes(n.Value) // a v2 batch's
		}
	case isTimestampField(name):
		if t, ok := msTime(v); ok {
			return s + " (" + t + ")"
		}
		if name == "Timestamp" && !st.response {
			if w, ok := listOffsetsTimestamps[v]; ok {
				return s + " (" + w + ")"
			}
		}
	case name == "IsolationLevel":
		switch v {
		case 0:
			return s + " (READ_UNCOMMITTED)"
		case 1:
			return s + " (READ_COMMITTED)"
		}
	case name == "TimestampDelta":
		return s + " ms"
	case strings.HasSuffix(name, "Ms"):
		if v >= 0 {
			return s + " ms" + durationSuffix(time.Duration(v)*time.Millisecond)
		}
	case strings.HasSuffix(name, "Bytes") || name == "BatchLength" || name == "MessageSize" ||
		name == "Size" || name == "PartitionSize" || name == "Length":
		if v == 1 {
			return s + " byte"
		}
		if v >= 0 {
			return s + " bytes" + sizeSuffix(v)
		}
	}
	return s
}

// listOffsetsTimestamps are the special Timestamp values of a ListOffsets
// request (in a response, -1 means no timestamp).
var listOffsetsTimestamps = map[int64]string{
	-1: "LATEST",
	-2: "EARLIEST",
	-3: "MAX_TIMESTAMP",
	-4: "EARLIEST_LOCAL",
	-5: "LATEST_TIERED",
}

// isErrorField reports whether n holds an error code: the schema's @error,
// or by name where there is no schema.
func isErrorField(n *Node) bool {
	if n.Field != nil {
		return n.Field.Has(codec.FieldError) || n.Field.Type == "int16" && strings.HasSuffix(n.Name, "ErrorCode")
	}
	return strings.HasSuffix(n.Name, "ErrorCode")
}

// describeError names an error code: "NOT_LEADER_OR_FOLLOWER (retriable):
// For requests intended only for the leader...".
func describeError(code int16) string {
	if code == 0 {
		return "(NONE)"
	}
	info, ok := codec.LookupError(code)
	if !ok {
		return "(" + codec.ErrorName(code) + ")"
	}
	s := info.Name
	if info.Retriable {
		s += " (retriable)"
	}
	if info.Description != "" {
		s += ": " + info.Description
	}
	return s
}

// isTimestampField reports a field holding a time as milliseconds since
// the epoch; the other fields ending in Ms are durations.
func isTimestampField(name string) bool {
	return strings.Contains(name, "Timestamp") && name != "TimestampDelta" ||
		name == "LogAppendTimeMs" || name == "TransactionStartTimeMs"
}

// msTime formats ms since the epoch as an RFC 3339 UTC time, when it is a
// plausible time (1970 to 9999).
func msTime(ms int64) (string, bool) {
	if ms <= 0 || ms > 253402300799999 {
		return "", false
	}
	return time.UnixMilli(ms).UTC().Format(timeLayout), true
}

// durationSuffix writes a duration of a second or more as " (1m30s)".
func durationSuffix(d time.Duration) string {
	if d < time.Second {
		return ""
	}
	return " (" + d.String() + ")"
}

// sizeSuffix writes a size of 1 KiB or more in binary units: " (1.5 MiB)".
func sizeSuffix(n int64) string {
	if n < 1024 {
		return ""
	}
	return " (" + humanBytes(n) + ")"
}

// humanBytes writes n in the largest binary unit below it, one decimal.
func humanBytes(n int64) string {
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " bytes"
	}
	f := float64(n)
	i := 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	s := strconv.FormatFloat(math.Round(f*10)/10, 'f', -1, 64)
	return s + " " + units[i]
}

// msgAttributes are the Attributes of a legacy message (a record's
// Attributes, unused, are a plain int8).
type msgAttributes int8

// formatAttributes renders batch (int16) or legacy message (int8)
// attributes: compression, timestamp type and the batch flags.
func formatAttributes(v any) string {
	var parts []string
	switch a := v.(type) {
	case int16:
		b := codec.RecordBatch{Attributes: a}
		parts = append(parts, b.Compression().String(), b.TimestampType().String())
		if b.IsTransactional() {
			parts = append(parts, "transactional")
		}
		if b.IsControl() {
			parts = append(parts, "control")
		}
		if b.HasDeleteHorizon() {
			parts = append(parts, "delete horizon")
		}
		return fmt.Sprintf("0x%04x (%s)", uint16(a), strings.Join(parts, ", "))
	case msgAttributes:
		m := codec.LegacyMessage{Attributes: int8(a), Magic: 1}
		parts = append(parts, m.Compression().String())
		if a&0x08 != 0 {
			parts = append(parts, "LogAppendTime")
		}
		return fmt.Sprintf("0x%02x (%s)", uint8(a), strings.Join(parts, ", "))
	}
	return fmt.Sprint(v)
}

// formatBytes renders a byte string: quoted when it is printable text,
// else hex, each cut at the style's limit with the full size said.
func formatBytes(b []byte, st valueStyle) string {
	if b == nil {
		return "null"
	}
	if len(b) == 0 {
		return `""`
	}
	if isMostlyText(b) {
		return quote(string(b), st.maxText) + " (" + plural(len(b), "byte") + ")"
	}
	shown := b
	if st.maxHex > 0 && len(shown) > st.maxHex {
		shown = shown[:st.maxHex]
	}
	s := "0x" + hex.EncodeToString(shown)
	if len(shown) < len(b) {
		s += "…"
	}
	return s + " (" + plural(len(b), "byte") + ")"
}

// isMostlyText reports bytes better read as quoted text than as hex:
// valid UTF-8 with few control characters (a SASL PLAIN token has two
// NULs), which the quoting escapes.
func isMostlyText(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	runes, controls := 0, 0
	for _, r := range string(b) {
		runes++
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f || r >= 0x80 && r < 0xa0 {
			controls++
		}
	}
	return controls*8 <= runes
}

// quote quotes wire text with Go's escapes, which leave no control
// character, bidirectional override or invalid UTF-8 for a terminal to
// act on, cutting it at max bytes (0: no limit).
func quote(s string, max int) string {
	if max > 0 && len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return strconv.Quote(s[:cut]) + fmt.Sprintf("… (%s, %d shown)", plural(len(s), "byte"), cut)
	}
	return strconv.Quote(s)
}

// plural writes "1 byte", "2 bytes".
func plural(n int, unit string) string {
	switch {
	case n == 1:
		return "1 " + unit
	case strings.HasSuffix(unit, "ch"):
		return strconv.Itoa(n) + " " + unit + "es" // batches
	}
	return strconv.Itoa(n) + " " + unit + "s"
}
