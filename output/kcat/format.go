package kcat

import (
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kdissect/kdissect/client"
)

// Format is a kcat -f format, parsed: what Write prints of a message.
type Format struct {
	parts []part
}

// part is one piece of a format: a token (%s, %k, ...) or, when verb is
// 0, literal bytes.
type part struct {
	verb byte
	lit  string
}

// verbs are the tokens of kcat's -f, as kcat 1.7 defines them.
const verbs = "okKsSRtpTh"

// ValueFormat is kcat -C's default format: the value, then delim.
func ValueFormat(delim string) Format {
	return Format{[]part{{verb: 's'}, {lit: delim}}}
}

// KeyValueFormat is kcat -C -K's format: the key, keyDelim, the value,
// then delim.
func KeyValueFormat(keyDelim, delim string) Format {
	return Format{[]part{{verb: 'k'}, {lit: keyDelim}, {verb: 's'}, {lit: delim}}}
}

// FormatError is a format ParseFormat refuses.
type FormatError struct {
	Format string
	// Token is the letter of an unknown %-token; 0 when a lone % ends
	// the format.
	Token byte
}

func (e *FormatError) Error() string {
	if e.Token == 0 {
		return fmt.Sprintf("%q: a %% at the end of the format (%%%% prints one)", e.Format)
	}
	return fmt.Sprintf("unknown token %%%c: want %%s (value), %%S (its length, -1 for null), %%R (%%S as 4 big-endian bytes), %%k (key), %%K (its length), %%t (topic), %%p (partition), %%o (offset), %%T (timestamp, ms), %%h (headers, n=v,...) or %%%%", e.Token)
}

// ParseFormat parses a kcat -f format string: %-tokens among
// verbs and %%, literal text with kcat's escapes \n, \r, \t, \xHH...
// and \NNN..., read as kcat reads them (C's strtoul: as many digits as
// follow, hex after \x, after \ decimal, octal with a leading 0, hex
// with 0x; the low byte of the number). Two corner cases differ from
// kcat 1.7, on purpose: \x followed by a-f is hex here (kcat prints the
// letter), and a NUL byte from \0 or \x00 is printed (kcat ends the
// literal there). Error: *FormatError.
func ParseFormat(s string) (Format, error) {
	var parts []part
	format := s
	for s != "" {
		i := strings.IndexByte(s, '%')
		if i < 0 {
			i = len(s)
		}
		if i > 0 {
			parts = append(parts, part{lit: unescape(s[:i])})
		}
		if i == len(s) {
			break
		}
		if i+1 == len(s) {
			return Format{}, &FormatError{Format: format}
		}
		switch v := s[i+1]; {
		case v == '%':
			parts = append(parts, part{lit: "%"})
		case strings.IndexByte(verbs, v) >= 0:
			parts = append(parts, part{verb: v})
		default:
			return Format{}, &FormatError{Format: format, Token: v}
		}
		s = s[i+2:]
	}
	return Format{parts}, nil
}

// unescape decodes the backslash escapes of a literal of a kcat
// format; an unknown escape stands for the character itself, as in kcat.
func unescape(s string) string {
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

// Timestamp is the timestamp kcat prints of m: milliseconds since the
// epoch, -1 when the message has none (magic 0).
func Timestamp(m *client.Message) int64 {
	if m.Magic == 0 || m.Timestamp.IsZero() {
		return -1
	}
	return m.Timestamp.UnixMilli()
}

// Write prints m as kcat -f does, in one Write call; nullStr, when not
// nil, is printed for a null (or empty) key or value, as kcat -Z prints
// "NULL". Error: w's.
func (f Format) Write(w io.Writer, m *client.Message, nullStr []byte) error {
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
	for _, p := range f.parts {
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
			buf = strconv.AppendInt(buf, Timestamp(m), 10)
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
	_, err := w.Write(buf)
	return err
}
