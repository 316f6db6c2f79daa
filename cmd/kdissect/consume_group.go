package main

import (
	"bufio"
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/spf13/cobra"

	"github.com/kdissect/kdissect/client"
)

// groupPartition is one partition a group member consumes.
type groupPartition struct {
	topic string
	consumePartition
	committed int64 // last offset committed, -1 none
}

// runGroupConsume is consume -G GROUP: a member of a classic consumer
// group (kcat's balanced consumer) that consumes the partitions the
// group assigns it, from the group's committed offsets (-o for those
// without one, as librdkafka's auto.offset.reset), commits what it
// printed after each fetch, rejoins when the group rebalances, and
// leaves the group when it stops.
func runGroupConsume(cmd *cobra.Command, a *consumeArgs, group string, topics []string) error {
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
	outFmt, err := a.output(cmd)
	if err != nil {
		return err
	}
	if a.count < 0 {
		return fmt.Errorf("-c %d: want a count", a.count)
	}
	ctx, cl, done, err := a.bf.open(cmd, nil)
	if err != nil {
		return err
	}
	defer done()
	cfg := client.ConsumerConfig{MaxWait: 100 * time.Millisecond}
	if a.readCommitted {
		cfg.IsolationLevel = client.ReadCommitted
	}
	co := client.NewConsumer(cl, cfg)
	m, err := co.JoinGroup(ctx, client.GroupConfig{Group: group, Topics: topics})
	if err != nil {
		return inputError{err}
	}
	defer func() {
		// Leave even after Ctrl-C, so that the partitions go to the
		// others at once.
		lctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		m.Leave(lctx)
	}()
	stderr := cmd.ErrOrStderr()
	parts, err := groupParts(ctx, co, m, group, start)
	if err != nil {
		return inputError{err}
	}
	out := bufio.NewWriter(cmd.OutOrStdout())
	defer out.Flush()
	printed := 0
	rejoin := func() error {
		if err := m.Rejoin(ctx); err != nil {
			return err
		}
		if !a.quiet {
			fmt.Fprintf(stderr, "%% Group %s rebalanced: generation %d, assigned %s\n", group, m.Generation(), assignmentString(m.Assignment()))
		}
		parts, err = groupParts(ctx, co, m, group, start)
		return err
	}
	if !a.quiet {
		fmt.Fprintf(stderr, "%% Group %s: member %s, generation %d, assigned %s\n", group, m.MemberID(), m.Generation(), assignmentString(m.Assignment()))
	}
	for {
		if err := m.Heartbeat(ctx); client.NeedsRejoin(err) {
			if err := rejoin(); err != nil {
				return ctxOr(ctx, err)
			}
			continue
		} else if err != nil {
			return ctxOr(ctx, err)
		}
		active := 0
		for _, gp := range parts {
			if gp.done {
				continue
			}
			active++
			fr, err := co.Fetch(ctx, gp.topic, gp.p, gp.next)
			if err != nil {
				return ctxOr(ctx, err)
			}
			broker := int32(-1)
			if outFmt.envelope && len(fr.Messages) > 0 {
				broker = leaderOf(ctx, cl, gp.topic, gp.p)
			}
			for i := range fr.Messages {
				msg := &fr.Messages[i]
				if stop >= 0 && kcatTimestamp(msg) >= stop {
					gp.done = true
					break
				}
				outFmt.write(out, msg, broker)
				printed++
				gp.next = msg.NextOffset
				if a.count > 0 && printed >= a.count {
					break
				}
			}
			if len(fr.Messages) == 0 && fr.NextOffset > gp.next {
				gp.next = fr.NextOffset
			}
			if err := out.Flush(); err != nil {
				return inputError{fmt.Errorf("write output: %w", err)}
			}
			if gp.next != gp.committed {
				if err := m.Commit(ctx, gp.topic, gp.p, gp.next); client.NeedsRejoin(err) {
					break // the partition may be another member's now
				} else if err != nil {
					return ctxOr(ctx, err)
				}
				gp.committed = gp.next
			}
			if a.count > 0 && printed >= a.count {
				return nil
			}
			a.atEnd(stderr, fr, gp.topic, &gp.consumePartition)
		}
		if a.exitAtEnd && active == 0 || ctx.Err() != nil {
			return nil
		}
		if len(parts) == 0 {
			time.Sleep(100 * time.Millisecond) // nothing assigned: wait for a rebalance
		}
	}
}

// groupParts is where each assigned partition starts: the group's
// committed offset, or start when it has none.
func groupParts(ctx context.Context, co *client.Consumer, m *client.GroupMember, group string, start startOffset) ([]*groupPartition, error) {
	var topics []string
	for t := range m.Assignment() {
		topics = append(topics, t)
	}
	sort.Strings(topics)
	var out []*groupPartition
	for _, t := range topics {
		for _, p := range m.Assignment()[t] {
			off, _, err := co.CommittedOffset(ctx, group, t, p)
			if err != nil {
				return nil, err
			}
			committed := off
			if off < 0 {
				if off, err = resolveStart(ctx, co, t, p, start); err != nil {
					return nil, err
				}
			}
			out = append(out, &groupPartition{topic: t, consumePartition: consumePartition{p: p, next: off}, committed: committed})
		}
	}
	return out, nil
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

// ctxOr is nil when ctx ended (Ctrl-C: a normal stop), else err as an
// input error.
func ctxOr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return inputError{err}
}
