package kcat

import (
	"bytes"
	"testing"

	"github.com/kdissect/kdissect/client"
	"github.com/kdissect/kdissect/codec"
)

// kcat -J's envelope: keys in kcat's order, yajl's escapes (short ones,
// else \u00XX in upper case), invalid UTF-8 as it is, null key and
// header value as null, no tstype and ts for magic 0, no headers when
// there are none.
func TestWriteJSON(t *testing.T) {
	m := message()
	m.TimestampType = codec.TimestampLogAppendTime
	m.Key = []byte("\"\\\x01\n\xff")
	var b bytes.Buffer
	if err := WriteJSON(&b, m, 3, "\n"); err != nil {
		t.Fatal(err)
	}
	want := `{"topic":"t","partition":2,"offset":7,"tstype":"logappend","ts":1700000000123,"broker":3,"headers":["a","1","b",null],"key":"\"\\\u0001\n` + "\xff" + `","payload":"v"}` + "\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	WriteJSON(&b, &client.Message{Topic: "t", Offset: 1}, -1, "")
	if want := `{"topic":"t","partition":0,"offset":1,"broker":-1,"key":null,"payload":null}`; b.String() != want {
		t.Errorf("magic 0: %s", b.String())
	}
}
