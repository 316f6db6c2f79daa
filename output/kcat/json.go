package kcat

import (
	"io"
	"strconv"
	"strings"

	"github.com/kdissect/kdissect/client"
	"github.com/kdissect/kdissect/codec"
)

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

// WriteJSON prints m in kcat -J's envelope, keys in kcat's order:
// topic, partition, offset, tstype and ts (absent for magic 0), broker
// (the node id of the leader it was fetched from, -1 unknown), headers
// (absent when none, else a flat array of names and values), key,
// payload; then delim. One Write call; error: w's.
func WriteJSON(w io.Writer, m *client.Message, broker int32, delim string) error {
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
		buf = strconv.AppendInt(buf, Timestamp(m), 10)
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
	_, err := w.Write(buf)
	return err
}
