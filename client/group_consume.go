package client

import (
	"context"
	"sort"
	"time"
)

// GroupConsumeConfig configures Consumer.ConsumeGroup.
type GroupConsumeConfig struct {
	GroupConfig
	// StartAtEnd says where an assigned partition without a committed
	// offset starts: its end (the latest offset) rather than its
	// beginning, as librdkafka's auto.offset.reset=latest.
	StartAtEnd bool
	// ExitAtEnd makes ConsumeGroup return once every assigned partition
	// was consumed to its end: the high watermark, or the last stable
	// offset when the consumer reads committed.
	ExitAtEnd bool
	// OnAssign, when not nil, is told the member once it joined and its
	// first assignment's offsets are known (rejoined false), and after
	// each rebalance (rejoined true).
	OnAssign func(m *GroupMember, rejoined bool)
	// OnEnd, when not nil, is told of each partition ExitAtEnd found at
	// its end.
	OnEnd func(p *GroupPartition)
}

// GroupPartition is a partition assigned to a member of a group, as
// ConsumeGroup consumes it.
type GroupPartition struct {
	Topic     string
	Partition int32
	// Next is the offset to fetch from next: the handler moves it past
	// what it consumed (a message's NextOffset), and ConsumeGroup commits
	// it as the group's.
	Next int64
	// Committed is the offset last committed, -1 for none.
	Committed int64
	// Done, set by the handler, stops fetching the partition until the
	// next rebalance.
	Done bool
}

// GroupHandler is given each fetch of an assigned partition, in turn,
// the partitions by topic and partition. It consumes fr.Messages in
// order, setting p.Next to the NextOffset of the last it consumed (left
// as it is, nothing is consumed: a fetch without messages moves it to
// fr.NextOffset); ConsumeGroup then commits p.Next. stop ends
// ConsumeGroup after that commit; an error ends it at once and is
// returned as it is.
type GroupHandler func(p *GroupPartition, fr *FetchResult) (stop bool, err error)

// groupIdle is how long ConsumeGroup waits, when nothing is assigned,
// before it heartbeats again to learn of a rebalance.
const groupIdle = 100 * time.Millisecond

// ConsumeGroup joins cfg.Group as a member of a classic consumer group
// (kcat's balanced consumer) and consumes the partitions the group
// assigns it: each from the group's committed offset (StartAtEnd for
// those without one), handle given every fetch, what handle consumed
// committed after each fetch, the group rejoined when it rebalances, and
// left (within 5 s, even after ctx ended) when ConsumeGroup returns.
//
// It returns nil when handle stops it, when ExitAtEnd found every
// partition at its end, or when ctx ended after the member joined.
// Errors: joining's and the committed offsets' (as JoinGroup and
// CommittedOffset return them), then heartbeat's, rejoin's, fetch's and
// commit's (an error for which NeedsRejoin holds is followed by a
// rejoin, not returned), and handle's.
func (c *Consumer) ConsumeGroup(ctx context.Context, cfg GroupConsumeConfig, handle GroupHandler) error {
	m, err := c.JoinGroup(ctx, cfg.GroupConfig)
	if err != nil {
		return err
	}
	defer func() {
		// Leave even after Ctrl-C, so that the partitions go to the
		// others at once.
		lctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		m.Leave(lctx)
	}()
	parts, err := c.groupParts(ctx, m, cfg.StartAtEnd)
	if err != nil {
		return err
	}
	ctxOr := func(err error) error {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	if cfg.OnAssign != nil {
		cfg.OnAssign(m, false)
	}
	for {
		if err := m.Heartbeat(ctx); NeedsRejoin(err) {
			if err := m.Rejoin(ctx); err != nil {
				return ctxOr(err)
			}
			if cfg.OnAssign != nil {
				cfg.OnAssign(m, true)
			}
			if parts, err = c.groupParts(ctx, m, cfg.StartAtEnd); err != nil {
				return ctxOr(err)
			}
			continue
		} else if err != nil {
			return ctxOr(err)
		}
		active := 0
		for _, gp := range parts {
			if gp.Done {
				continue
			}
			active++
			fr, err := c.Fetch(ctx, gp.Topic, gp.Partition, gp.Next)
			if err != nil {
				return ctxOr(err)
			}
			stop, err := handle(gp, fr)
			if err != nil {
				return err
			}
			if len(fr.Messages) == 0 && fr.NextOffset > gp.Next {
				gp.Next = fr.NextOffset
			}
			if gp.Next != gp.Committed {
				if err := m.Commit(ctx, gp.Topic, gp.Partition, gp.Next); NeedsRejoin(err) {
					break // the partition may be another member's now
				} else if err != nil {
					return ctxOr(err)
				}
				gp.Committed = gp.Next
			}
			if stop {
				return nil
			}
			if cfg.ExitAtEnd && gp.Next >= c.endOf(fr) && !gp.Done {
				gp.Done = true
				if cfg.OnEnd != nil {
					cfg.OnEnd(gp)
				}
			}
		}
		if cfg.ExitAtEnd && active == 0 || ctx.Err() != nil {
			return nil
		}
		if len(parts) == 0 {
			select { // nothing assigned: wait for a rebalance
			case <-ctx.Done():
			case <-time.After(groupIdle):
			}
		}
	}
}

// endOf is where a fetch says its partition ends for this consumer: the
// high watermark, or the last stable offset when it reads committed.
func (c *Consumer) endOf(fr *FetchResult) int64 {
	if c.cfg.IsolationLevel == ReadCommitted && fr.LastStableOffset >= 0 {
		return fr.LastStableOffset
	}
	return fr.HighWatermark
}

// groupParts is where each partition assigned to m starts: the group's
// committed offset, or the partition's start or end when it has none.
func (c *Consumer) groupParts(ctx context.Context, m *GroupMember, atEnd bool) ([]*GroupPartition, error) {
	var topics []string
	for t := range m.Assignment() {
		topics = append(topics, t)
	}
	sort.Strings(topics)
	var out []*GroupPartition
	for _, t := range topics {
		for _, p := range m.Assignment()[t] {
			off, _, err := c.CommittedOffset(ctx, m.cfg.Group, t, p)
			if err != nil {
				return nil, err
			}
			committed := off
			if off < 0 {
				if atEnd {
					off, err = c.LatestOffset(ctx, t, p)
				} else {
					off, err = c.EarliestOffset(ctx, t, p)
				}
				if err != nil {
					return nil, err
				}
			}
			out = append(out, &GroupPartition{Topic: t, Partition: p, Next: off, Committed: committed})
		}
	}
	return out, nil
}
