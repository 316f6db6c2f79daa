package main

import (
	"bufio"
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kdissect/kdissect/client"
)

// queryItem is one -Q -t TOPIC:PARTITION:MS and its answer.
type queryItem struct {
	topic     string
	partition int32
	ts        int64
	offset    int64
}

// parseQueryTopics reads kcat -Q's -t TOPIC:PARTITION:MS arguments; a
// topic-partition named twice is refused, as kcat refuses it.
func parseQueryTopics(args []string) ([]queryItem, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("-Q needs -t TOPIC:PARTITION:MS (repeatable)")
	}
	var items []queryItem
	seen := map[string]bool{}
	for _, a := range args {
		topic, rest, ok1 := strings.Cut(a, ":")
		ps, ts, ok2 := strings.Cut(rest, ":")
		p, err1 := strconv.ParseInt(ps, 0, 32)
		t, err2 := strconv.ParseInt(ts, 0, 64)
		if !ok1 || !ok2 || topic == "" || err1 != nil || err2 != nil || p < 0 {
			return nil, fmt.Errorf("-t %q: -Q wants TOPIC:PARTITION:MS (MS -1 for the end, -2 for the beginning)", a)
		}
		key := topic + ":" + strconv.FormatInt(p, 10)
		if seen[key] {
			return nil, fmt.Errorf("-t %q: partition %s named twice", a, key)
		}
		seen[key] = true
		items = append(items, queryItem{topic: topic, partition: int32(p), ts: t})
	}
	slices.SortFunc(items, func(a, b queryItem) int {
		return cmp.Or(cmp.Compare(a.topic, b.topic), cmp.Compare(a.partition, b.partition))
	})
	return items, nil
}

// runQuery is consume -Q: the offset of each partition's first message
// at or after the timestamp (ListOffsets), printed as kcat -Q prints it:
// "TOPIC [PARTITION] offset N" lines, or with -J kcat's object
// {"TOPIC":{"topic":"TOPIC","PARTITION":{"partition":P,"offset":N}}},
// sorted by topic and partition. kcat ends that object without a newline;
// here it is a line.
func runQuery(cmd *cobra.Command, a *consumeArgs) error {
	items, err := parseQueryTopics(a.topics)
	if err != nil {
		return err
	}
	ctx, cl, done, err := a.bf.open(cmd, nil)
	if err != nil {
		return err
	}
	defer done()
	co := client.NewConsumer(cl, client.ConsumerConfig{})
	for i := range items {
		it := &items[i]
		if it.offset, err = co.ListOffset(ctx, it.topic, it.partition, it.ts); err != nil {
			return inputError{err}
		}
	}
	out := bufio.NewWriter(cmd.OutOrStdout())
	if !a.envelope {
		for _, it := range items {
			fmt.Fprintf(out, "%s [%d] offset %d\n", it.topic, it.partition, it.offset)
		}
		return out.Flush()
	}
	buf := []byte{'{'}
	for i, it := range items {
		if i == 0 || items[i-1].topic != it.topic {
			if i > 0 {
				buf = append(buf, "},"...)
			}
			buf = appendYajlString(buf, []byte(it.topic))
			buf = append(buf, `:{"topic":`...)
			buf = appendYajlString(buf, []byte(it.topic))
		}
		buf = fmt.Appendf(buf, `,"%d":{"partition":%d,"offset":%d}`, it.partition, it.partition, it.offset)
	}
	if len(items) > 0 {
		buf = append(buf, '}')
	}
	buf = append(buf, "}\n"...)
	out.Write(buf)
	return out.Flush()
}
