package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kdissect/kdissect/client"
	"github.com/kdissect/kdissect/codec"
)

// kcatPart is one piece of a kcat -f format: a token (%s, %k, ...) or,
// when verb is 0, literal bytes.
type kcatPart struct {
	verb byte
	lit  string
}

// kcatVerbs are the tokens of kcat's -f, as kcat 1.7 defines them.
const kcatVerbs = "okKsSRtpTh"

// parseKcatFormat parses a kcat -f format string: %-tokens among
// kcatVerbs and %%, literal text with kcat's escapes \n, \r, \t, \xHH...
// and \NNN..., read as kcat reads them (C's strtoul: as many digits as
// follow, hex after \x, after \ decimal, octal with a leading 0, hex
// with 0x; the low byte of the number). Two corner cases differ from
// kcat 1.7, on purpose: \x followed by a-f is hex here (kcat prints the
// letter), and a NUL byte from \0 or \x00 is printed (kcat ends the
// literal there).
func parseKcatFormat(s string) ([]kcatPart, error) {
	var parts []kcatPart
	for s != "" {
		i := strings.IndexByte(s, '%')
		if i < 0 {
			i = len(s)
		}
		if i > 0 {
			parts = append(parts, kcatPart{lit: unescapeKcatFormat(s[:i])})
		}
		if i == len(s) {
			break
		}
		if i+1 == len(s) {
			return nil, fmt.Errorf("-f %q: a %% at the end of the format (%%%% prints one)", s)
		}
		switch v := s[i+1]; {
		case v == '%':
			parts = append(parts, kcatPart{lit: "%"})
		case strings.IndexByte(kcatVerbs, v) >= 0:
			parts = append(parts, kcatPart{verb: v})
		default:
			return nil, fmt.Errorf("-f: unknown token %%%c: want %%s (value), %%S (its length, -1 for null), %%R (%%S as 4 big-endian bytes), %%k (key), %%K (its length), %%t (topic), %%p (partition), %%o (offset), %%T (timestamp, ms), %%h (headers, n=v,...) or %%%%", v)
		}
		s = s[i+2:]
	}
	return parts, nil
}

// unescapeKcatFormat decodes the backslash escapes of a literal of a kcat
// format; an unknown escape stands for the character itself, as in kcat.
func unescapeKcatFormat(s string) string {
	var b strings.Builder
	for {
		before, after, found := strings.Cut(s, `\`)
		b.WriteString(before)
		if !found {
			return b.String()
		}
		if after == "" {
			b.WriteByte('\\') // a trailing backslash stands for itself
			return b.String()
		}
		c, used := after[0], 1
		switch {
		case c == 'n', c == 'r', c == 't':
			b.WriteByte("\n\r\t"[strings.IndexByte("nrt", c)])
		case c == 'x' && len(after) > 1 && isHex(after[1]):
			v, n := strtoulByte(after[1:], 16)
			b.WriteByte(v)
			used += n
		case c == '0' && len(after) > 2 && (after[1] == 'x' || after[1] == 'X') && isHex(after[2]):
			v, n := strtoulByte(after[2:], 16)
			b.WriteByte(v)
			used = 2 + n
		case c == '0':
			v, n := strtoulByte(after, 8)
			b.WriteByte(v)
			used = n
		case c >= '1' && c <= '9':
			v, n := strtoulByte(after, 10)
			b.WriteByte(v)
			used = n
		default:
			b.WriteByte(c) // an unknown escape is the character, as in kcat
		}
		s = after[used:]
	}
}

// strtoulByte reads the digits of base at the start of s, as many as
// there are, and returns the number's low byte and the digits' count.
func strtoulByte(s string, base int) (byte, int) {
	var v byte
	n := 0
	for ; n < len(s); n++ {
		d, err := strconv.ParseUint(s[n:n+1], base, 8)
		if err != nil {
			break
		}
		v = v*byte(base) + byte(d)
	}
	return v, n
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// kcatTimestamp is the timestamp kcat prints: milliseconds, -1 when the
// message has none (magic 0).
func kcatTimestamp(m *client.Message) int64 {
	if m.Magic == 0 || m.Timestamp.IsZero() {
		return -1
	}
	return m.Timestamp.UnixMilli()
}

// writeKcatFormat prints m as kcat -f does; nullStr, when not nil, is
// printed for a null (or empty) key or value, as kcat -Z prints "NULL".
func writeKcatFormat(w io.Writer, parts []kcatPart, m *client.Message, nullStr []byte) {
	var buf []byte
	length := func(b []byte) int64 {
		if b == nil {
			return -1
		}
		return int64(len(b))
	}
	bytesOrNull := func(b []byte) {
		if len(b) > 0 {
			buf = append(buf, b...)
		} else {
			buf = append(buf, nullStr...)
		}
	}
	for _, p := range parts {
		switch p.verb {
		case 0:
			buf = append(buf, p.lit...)
		case 'o':
			buf = strconv.AppendInt(buf, m.Offset, 10)
		case 'k':
			bytesOrNull(m.Key)
		case 'K':
			buf = strconv.AppendInt(buf, length(m.Key), 10)
		case 's':
			bytesOrNull(m.Value)
		case 'S':
			buf = strconv.AppendInt(buf, length(m.Value), 10)
		case 'R':
			buf = binary.BigEndian.AppendUint32(buf, uint32(int32(length(m.Value))))
		case 't':
			buf = append(buf, m.Topic...)
		case 'p':
			buf = strconv.AppendInt(buf, int64(m.Partition), 10)
		case 'T':
			buf = strconv.AppendInt(buf, kcatTimestamp(m), 10)
		case 'h':
			for i, h := range m.Headers {
				if i > 0 {
					buf = append(buf, ',')
				}
				buf = append(buf, h.Key...)
				buf = append(buf, '=')
				if h.Value == nil {
					buf = append(buf, "NULL"...)
				} else {
					buf = append(buf, h.Value...)
				}
			}
		}
	}
	w.Write(buf)
}

// appendYajlString appends b as a JSON string the way kcat's JSON library
// (yajl, without UTF-8 validation) writes it: ", \ and control characters
// escaped (\b \f \n \r \t, others \u00XX in upper case), every other byte
// as it is, invalid UTF-8 included. Byte-exact agreement with kcat -J
// matters more here than valid JSON for binary values.
func appendYajlString(buf []byte, b []byte) []byte {
	const hex = "0123456789ABCDEF"
	buf = append(buf, '"')
	for _, c := range b {
		if e := yajlShortEscape(c); e != 0 {
			buf = append(buf, '\\', e)
		} else if c < 0x20 {
			buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		} else {
			buf = append(buf, c)
		}
	}
	return append(buf, '"')
}

// yajlShortEscape is the letter yajl escapes c with (\n for a newline),
// 0 when it has none.
func yajlShortEscape(c byte) byte {
	const from, to = "\"\\\b\f\n\r\t", "\"\\bfnrt"
	if i := strings.IndexByte(from, c); i >= 0 {
		return to[i]
	}
	return 0
}

func appendYajlBytesOrNull(buf, b []byte) []byte {
	if b == nil {
		return append(buf, "null"...)
	}
	return appendYajlString(buf, b)
}

// writeKcatJSON prints m in kcat -J's envelope, keys in kcat's order:
// topic, partition, offset, tstype and ts (absent for magic 0), broker
// (the leader it was fetched from), headers (absent when none, else a flat
// array of names and values), key, payload; then delim.
func writeKcatJSON(w io.Writer, m *client.Message, broker int32, delim string) {
	buf := []byte(`{"topic":`)
	buf = appendYajlString(buf, []byte(m.Topic))
	buf = append(buf, `,"partition":`...)
	buf = strconv.AppendInt(buf, int64(m.Partition), 10)
	buf = append(buf, `,"offset":`...)
	buf = strconv.AppendInt(buf, m.Offset, 10)
	if m.Magic > 0 {
		tstype := "create"
		if m.TimestampType == codec.TimestampLogAppendTime {
			tstype = "logappend"
		}
		buf = append(buf, `,"tstype":"`+tstype+`","ts":`...)
		buf = strconv.AppendInt(buf, kcatTimestamp(m), 10)
	}
	buf = append(buf, `,"broker":`...)
	buf = strconv.AppendInt(buf, int64(broker), 10)
	if len(m.Headers) > 0 {
		buf = append(buf, `,"headers":[`...)
		for i, h := range m.Headers {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendYajlString(buf, []byte(h.Key))
			buf = append(buf, ',')
			buf = appendYajlBytesOrNull(buf, h.Value)
		}
		buf = append(buf, ']')
	}
	buf = append(buf, `,"key":`...)
	buf = appendYajlBytesOrNull(buf, m.Key)
	buf = append(buf, `,"payload":`...)
	buf = appendYajlBytesOrNull(buf, m.Value)
	buf = append(buf, '}')
	buf = append(buf, delim...)
	w.Write(buf)
}
