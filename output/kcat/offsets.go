package kcat

import (
	"fmt"
	"io"
)

// Offset is one answer of kcat -Q: the offset of a partition's first
// message at or after a timestamp.
type Offset struct {
	Topic     string
	Partition int32
	Offset    int64
}

// WriteOffsets prints offsets as kcat -Q does: "TOPIC [PARTITION] offset
// N" lines, in the order given. Error: w's.
func WriteOffsets(w io.Writer, offsets []Offset) error {
	var buf []byte
	for _, o := range offsets {
		buf = fmt.Appendf(buf, "%s [%d] offset %d\n", o.Topic, o.Partition, o.Offset)
	}
	_, err := w.Write(buf)
	return err
}

// WriteOffsetsJSON prints offsets as kcat -Q -J does, one object
// {"TOPIC":{"topic":"TOPIC","PARTITION":{"partition":P,"offset":N}}}:
// offsets sorted by topic, so that a topic's partitions are together.
// kcat ends that object without a newline; here it is a line. One Write
// call; error: w's.
func WriteOffsetsJSON(w io.Writer, offsets []Offset) error {
	buf := []byte{'{'}
	for i, it := range offsets {
		if i == 0 || offsets[i-1].Topic != it.Topic {
			if i > 0 {
				buf = append(buf, "},"...)
			}
			buf = appendYajlString(buf, []byte(it.Topic))
			buf = append(buf, `:{"topic":`...)
			buf = appendYajlString(buf, []byte(it.Topic))
		}
		buf = fmt.Appendf(buf, `,"%d":{"partition":%d,"offset":%d}`, it.Partition, it.Partition, it.Offset)
	}
	if len(offsets) > 0 {
		buf = append(buf, '}')
	}
	buf = append(buf, "}\n"...)
	_, err := w.Write(buf)
	return err
}
