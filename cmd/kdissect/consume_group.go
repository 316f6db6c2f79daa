package main

import (
	"bufio"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/kdissect/kdissect/client"
	"github.com/kdissect/kdissect/output/kcat"
)

// runGroupConsume is consume -G GROUP: client.Consumer.ConsumeGroup,
// printing what it fetches and, unless -q, the assignments and the ends
// of partitions on stderr.
func runGroupConsume(a *ConsumeOptions, topics []string) error {
	group := a.group
	if len(a.partitions) > 0 {
		return fmt.Errorf("-G and -p exclude each other: the group assigns the partitions")
	}
	start, stop, err := a.startAndStop()
	if err != nil {
		return err
	}
	if start.kind != "beginning" && start.kind != "end" {
		return fmt.Errorf("-G: -o takes beginning or end, where a partition without a committed offset starts")
	}
	outFmt, err := a.output()
	if err != nil {
		return err
	}
	if a.count < 0 {
		return fmt.Errorf("-c %d: want a count", a.count)
	}
	ctx, cl, done, err := a.bf.open(a.IO, nil)
	if err != nil {
		return err
	}
	defer done()
	cfg := client.ConsumerConfig{MaxWait: 100 * time.Millisecond}
	if a.readCommitted {
		cfg.IsolationLevel = client.ReadCommitted
	}
	co := client.NewConsumer(cl, cfg)
	stderr := a.IO.errOut
	out := bufio.NewWriter(a.IO.out)
	defer out.Flush()
	gc := client.GroupConsumeConfig{
		GroupConfig: client.GroupConfig{Group: group, Topics: topics},
		StartAtEnd:  start.kind == "end",
		ExitAtEnd:   a.exitAtEnd,
	}
	if !a.quiet {
		gc.OnAssign = func(m *client.GroupMember, rejoined bool) {
			if rejoined {
				fmt.Fprintf(stderr, "%% Group %s rebalanced: generation %d, assigned %s\n", group, m.Generation(), assignmentString(m.Assignment()))
			} else {
				fmt.Fprintf(stderr, "%% Group %s: member %s, generation %d, assigned %s\n", group, m.MemberID(), m.Generation(), assignmentString(m.Assignment()))
			}
		}
		gc.OnEnd = func(p *client.GroupPartition) {
			fmt.Fprintf(stderr, "%% Reached end of topic %s [%d] at offset %d\n", p.Topic, p.Partition, p.Next)
		}
	}
	printed := 0
	err = co.ConsumeGroup(ctx, gc, func(gp *client.GroupPartition, fr *client.FetchResult) (bool, error) {
		broker := int32(-1)
		if outFmt.envelope && len(fr.Messages) > 0 {
			broker = leaderOf(ctx, cl, gp.Topic, gp.Partition)
		}
		for i := range fr.Messages {
			msg := &fr.Messages[i]
			if stop >= 0 && kcat.Timestamp(msg) >= stop {
				gp.Done = true
				break
			}
			outFmt.write(out, msg, broker)
			printed++
			gp.Next = msg.NextOffset
			if a.count > 0 && printed >= a.count {
				break
			}
		}
		if err := out.Flush(); err != nil {
			return false, inputError{fmt.Errorf("write output: %w", err)}
		}
		return a.count > 0 && printed >= a.count, nil
	})
	if ie := (inputError{}); err != nil && !errors.As(err, &ie) {
		return inputError{err}
	}
	return err
}

// assignmentString says a member's assignment as kcat's log does:
// topic [partitions] ...
func assignmentString(a map[string][]int32) string {
	if len(a) == 0 {
		return "nothing"
	}
	var topics []string
	for t := range a {
		topics = append(topics, t)
	}
	sort.Strings(topics)
	s := ""
	for i, t := range topics {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s %v", t, a[t])
	}
	return s
}
