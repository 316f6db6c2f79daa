package kcat

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/kdissect/kdissect/client"
)

// message is a record batch message with a null key, a header with a
// null value, created at 1700000000123 ms.
func message() *client.Message {
	return &client.Message{Topic: "t", Partition: 2, Offset: 7, Value: []byte("v"), Magic: 2,
		Timestamp: time.UnixMilli(1700000000123), Headers: []client.Header{{Key: "a", Value: []byte("1")}, {Key: "b"}}}
}

func write(t *testing.T, f Format, m *client.Message, nullStr []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := f.Write(&b, m, nullStr); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Every token, and kcat's escapes as strtoul reads them: \x hex, \0x hex,
// \0 octal, \ decimal (\101 is 'e'), an unknown escape the character.
func TestFormat(t *testing.T) {
	f, err := ParseFormat(`%t/%p@%o %k=%s (%S,%K) T%T h:%h\n\x41\0x42\0101\101\q\t%%`)
	if err != nil {
		t.Fatal(err)
	}
	want := "t/2@7 =v (1,-1) T1700000000123 h:a=1,b=NULL\nABAeq\t%"
	if got := write(t, f, message(), nil); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// -Z prints NULL for the null key; magic 0 has no timestamp.
	m := message()
	m.Magic, m.Timestamp = 0, time.Time{}
	f, _ = ParseFormat("%k|%T")
	if got := write(t, f, m, []byte("NULL")); got != "NULL|-1" {
		t.Errorf("-Z and magic 0: %q", got)
	}
	// %R is %S as 4 big-endian bytes, -1 for a null value.
	f, _ = ParseFormat("%R%s")
	m.Value = nil
	if got := write(t, f, m, nil); got != "\xff\xff\xff\xff" {
		t.Errorf("%%R of null: %q", got)
	}
	m.Value = []byte("abc")
	if got := write(t, f, m, nil); got != "\x00\x00\x00\x03abc" {
		t.Errorf("%%R: %q", got)
	}
	if got := write(t, KeyValueFormat("\t", "\n"), message(), []byte("NULL")); got != "NULL\tv\n" {
		t.Errorf("-K: %q", got)
	}
	if got := write(t, ValueFormat("|"), message(), nil); got != "v|" {
		t.Errorf("default: %q", got)
	}
}

func TestFormatErrors(t *testing.T) {
	for _, c := range []struct {
		in    string
		token byte
		text  string
	}{
		{"%s%", 0, `"%s%": a % at the end of the format (%% prints one)`},
		{"%s %x", 'x', "unknown token %x: want %s (value),"},
	} {
		_, err := ParseFormat(c.in)
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Token != c.token || fe.Format != c.in || !bytes.HasPrefix([]byte(err.Error()), []byte(c.text)) {
			t.Errorf("%q: %v", c.in, err)
		}
	}
}
