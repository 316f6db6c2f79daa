package main

import (
	"bufio"
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kdissect/kdissect/client"
	"github.com/kdissect/kdissect/output/kcat"
)

// queryItem is one -Q -t TOPIC:PARTITION:MS and its answer.
type queryItem struct {
	kcat.Offset
	ts int64
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
		items = append(items, queryItem{Offset: kcat.Offset{Topic: topic, Partition: int32(p)}, ts: t})
	}
	slices.SortFunc(items, func(a, b queryItem) int {
		return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
	})
	return items, nil
}

// runQuery is consume -Q: the offset of each partition's first message
// at or after the timestamp (ListOffsets), printed as kcat -Q prints it
// (kcat.WriteOffsets, with -J kcat.WriteOffsetsJSON), sorted by topic
// and partition.
func runQuery(a *ConsumeOptions) error {
	items, err := parseQueryTopics(a.topics)
	if err != nil {
		return err
	}
	ctx, cl, done, err := a.bf.open(a.IO, nil)
	if err != nil {
		return err
	}
	defer done()
	co := client.NewConsumer(cl, client.ConsumerConfig{})
	offsets := make([]kcat.Offset, len(items))
	for i, it := range items {
		if it.Offset.Offset, err = co.ListOffset(ctx, it.Topic, it.Partition, it.ts); err != nil {
			return inputError{err}
		}
		offsets[i] = it.Offset
	}
	out := bufio.NewWriter(a.IO.out)
	if a.envelope {
		kcat.WriteOffsetsJSON(out, offsets)
	} else {
		kcat.WriteOffsets(out, offsets)
	}
	return out.Flush()
}
