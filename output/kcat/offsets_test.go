package kcat

import (
	"bytes"
	"testing"
)

// kcat -Q's lines, and -Q -J's object with each topic's partitions
// together.
func TestWriteOffsets(t *testing.T) {
	offs := []Offset{{"a", 0, 5}, {"a", 3, -1}, {"b\"", 1, 0}}
	var b bytes.Buffer
	if err := WriteOffsets(&b, offs); err != nil {
		t.Fatal(err)
	}
	if want := "a [0] offset 5\na [3] offset -1\nb\" [1] offset 0\n"; b.String() != want {
		t.Errorf("text: %q", b.String())
	}
	b.Reset()
	if err := WriteOffsetsJSON(&b, offs); err != nil {
		t.Fatal(err)
	}
	want := `{"a":{"topic":"a","0":{"partition":0,"offset":5},"3":{"partition":3,"offset":-1}},"b\"":{"topic":"b\"","1":{"partition":1,"offset":0}}}` + "\n"
	if b.String() != want {
		t.Errorf("json: %s", b.String())
	}
	b.Reset()
	WriteOffsetsJSON(&b, nil)
	if b.String() != "{}\n" {
		t.Errorf("none: %q", b.String())
	}
}
