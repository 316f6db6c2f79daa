package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/kdissect/kdissect/codec"
)

// ErrMemberIDRequired: JoinGroup v4+ answers a member without an id with
// one to join with (KIP-394).
var ErrMemberIDRequired = kafkaError(79)

// Group membership defaults: the Java consumer's session.timeout.ms (45 s
// since Kafka 3.0), max.poll.interval.ms as the rebalance timeout (5
// minutes) and heartbeat.interval.ms (3 s).
const (
	DefaultSessionTimeout    = 45 * time.Second
	DefaultRebalanceTimeout  = 5 * time.Minute
	DefaultHeartbeatInterval = 3 * time.Second
)

// GroupConfig configures a member of a classic consumer group (the
// "consumer" protocol, KIP-62): the range assignor, as the Java
// consumer's default RangeAssignor assigns.
type GroupConfig struct {
	Group  string
	Topics []string
	// Zero values take the defaults above.
	SessionTimeout    time.Duration
	RebalanceTimeout  time.Duration
	HeartbeatInterval time.Duration
}

// GroupMember is a member of a consumer group: it joins, takes its
// assignment, heartbeats, commits with its generation and leaves. Use
// one from one goroutine.
type GroupMember struct {
	c          *Consumer
	cfg        GroupConfig
	memberID   string
	generation int32
	leader     bool
	assigned   map[string][]int32
	lastBeat   time.Time
}

// JoinGroup joins cfg.Group and waits for the member's assignment
// (JoinGroup, then SyncGroup; the leader assigns by range). Errors: the
// coordinator's (*Error: GROUP_AUTHORIZATION_FAILED, INVALID_SESSION_TIMEOUT,
// ...), after the retries of retriable ones.
func (c *Consumer) JoinGroup(ctx context.Context, cfg GroupConfig) (*GroupMember, error) {
	if cfg.Group == "" || len(cfg.Topics) == 0 {
		return nil, fmt.Errorf("a group and at least one topic are needed")
	}
	if cfg.SessionTimeout <= 0 {
		cfg.SessionTimeout = DefaultSessionTimeout
	}
	if cfg.RebalanceTimeout <= 0 {
		cfg.RebalanceTimeout = DefaultRebalanceTimeout
	}
	if cfg.HeartbeatInterval <= 0 {
		cfg.HeartbeatInterval = DefaultHeartbeatInterval
	}
	m := &GroupMember{c: c, cfg: cfg, generation: -1}
	if err := m.Rejoin(ctx); err != nil {
		return nil, err
	}
	return m, nil
}

// Assignment returns the partitions assigned to the member, by topic,
// sorted.
func (m *GroupMember) Assignment() map[string][]int32 { return m.assigned }

// MemberID and Generation say who the member is in the group now.
func (m *GroupMember) MemberID() string  { return m.memberID }
func (m *GroupMember) Generation() int32 { return m.generation }

// Leader reports whether the member led the last rebalance.
func (m *GroupMember) Leader() bool { return m.leader }

// NeedsRejoin reports whether err (from Heartbeat or Commit) means the
// group rebalanced or forgot the member: call Rejoin.
func NeedsRejoin(err error) bool {
	return errors.Is(err, ErrRebalanceInProgress) || errors.Is(err, ErrUnknownMemberID) || errors.Is(err, ErrIllegalGeneration)
}

// Rejoin joins the group again and takes the new assignment; a member
// the group forgot joins with a new id.
func (m *GroupMember) Rejoin(ctx context.Context) error {
	return m.c.cl.retry(ctx, isRetriable, func(ctx context.Context, _ error) { m.c.forgetCoordinator(ctx, m.cfg.Group) }, func(ctx context.Context) error {
		for attempt := 0; ; attempt++ {
			err := m.joinOnce(ctx)
			switch {
			case err == nil:
				return nil
			case errors.Is(err, ErrMemberIDRequired) && attempt < 2:
				continue // joinOnce took the id
			case errors.Is(err, ErrUnknownMemberID) && attempt < 2:
				m.memberID, m.generation = "", -1
				continue
			case errors.Is(err, ErrRebalanceInProgress) && attempt < 8:
				continue // another member joined meanwhile
			}
			return err
		}
	})
}

func (m *GroupMember) joinOnce(ctx context.Context) error {
	cn, err := m.c.coordinator(ctx, m.cfg.Group)
	if err != nil {
		return err
	}
	v, err := cn.Version(codec.ApiKeyJoinGroup)
	if err != nil {
		return err
	}
	sub := &codec.ConsumerProtocolSubscription{Version: 0, Topics: m.cfg.Topics, GenerationId: -1}
	req := &codec.JoinGroupRequest{
		GroupId:            m.cfg.Group,
		SessionTimeoutMs:   int32(m.cfg.SessionTimeout / time.Millisecond),
		RebalanceTimeoutMs: int32(m.cfg.RebalanceTimeout / time.Millisecond),
		MemberId:           m.memberID,
		ProtocolType:       codec.ConsumerProtocolType,
		Protocols:          []codec.JoinGroupRequestProtocol{{Name: "range", Metadata: sub.AppendTo(nil)}},
	}
	// The coordinator holds JoinGroup until every member joined, up to
	// the rebalance timeout: the round trip waits that long (extraWait).
	resp, err := cn.RoundTrip(ctx, req, v)
	if err != nil {
		return err
	}
	jr := resp.(*codec.JoinGroupResponse)
	if jr.ErrorCode == ErrMemberIDRequired.Code() {
		m.memberID = jr.MemberId
	}
	if err := partitionError(jr.ErrorCode, "", -1, nil); err != nil {
		return err
	}
	m.memberID, m.generation, m.leader = jr.MemberId, jr.GenerationId, jr.Leader == jr.MemberId
	var assignments []codec.SyncGroupRequestAssignment
	if m.leader && !jr.SkipAssignment {
		if assignments, err = m.assign(ctx, jr.Members); err != nil {
			return err
		}
	}
	sv, err := cn.Version(codec.ApiKeySyncGroup)
	if err != nil {
		return err
	}
	ptype, pname := codec.ConsumerProtocolType, "range"
	sreq := &codec.SyncGroupRequest{GroupId: m.cfg.Group, GenerationId: m.generation, MemberId: m.memberID,
		ProtocolType: &ptype, ProtocolName: &pname, Assignments: assignments}
	resp, err = cn.RoundTrip(ctx, sreq, sv)
	if err != nil {
		return err
	}
	sr := resp.(*codec.SyncGroupResponse)
	if err := partitionError(sr.ErrorCode, "", -1, nil); err != nil {
		return err
	}
	a, err := codec.ReadConsumerProtocolAssignment(sr.Assignment)
	if err != nil {
		return clientError(ErrBadResponse, "SyncGroup assignment", err)
	}
	m.assigned = map[string][]int32{}
	for _, tp := range a.AssignedPartitions {
		m.assigned[tp.Topic] = append(m.assigned[tp.Topic], tp.Partitions...)
		slices.Sort(m.assigned[tp.Topic])
	}
	m.lastBeat = time.Now()
	return nil
}

// assign is the range assignor (Kafka's RangeAssignor): per topic, the
// members subscribed to it, sorted by member id, take consecutive ranges
// of its partitions, the first members one more when they do not divide
// evenly.
func (m *GroupMember) assign(ctx context.Context, members []codec.JoinGroupResponseMember) ([]codec.SyncGroupRequestAssignment, error) {
	subs := map[string][]string{} // topic → member ids
	for _, mem := range members {
		s, err := codec.ReadConsumerProtocolSubscription(mem.Metadata)
		if err != nil {
			return nil, clientError(ErrBadResponse, "member "+mem.MemberId, err)
		}
		for _, t := range s.Topics {
			subs[t] = append(subs[t], mem.MemberId)
		}
	}
	out := map[string]map[string][]int32{} // member → topic → partitions
	for _, mem := range members {
		out[mem.MemberId] = map[string][]int32{}
	}
	topics := make([]string, 0, len(subs))
	for t := range subs {
		topics = append(topics, t)
	}
	sort.Strings(topics)
	for _, t := range topics {
		n, err := m.c.cl.Partitions(ctx, t)
		if err != nil {
			if errors.Is(err, ErrUnknownTopicOrPartition) {
				continue // nothing to assign of it
			}
			return nil, err
		}
		ids := subs[t]
		sort.Strings(ids)
		per, extra := int(n)/len(ids), int(n)%len(ids)
		p := int32(0)
		for i, id := range ids {
			k := per
			if i < extra {
				k++
			}
			for range k {
				out[id][t] = append(out[id][t], p)
				p++
			}
		}
	}
	var as []codec.SyncGroupRequestAssignment
	for _, mem := range members {
		a := &codec.ConsumerProtocolAssignment{}
		for _, t := range topics {
			if ps := out[mem.MemberId][t]; len(ps) > 0 {
				a.AssignedPartitions = append(a.AssignedPartitions, codec.ConsumerProtocolTopicPartitions{Topic: t, Partitions: ps})
			}
		}
		as = append(as, codec.SyncGroupRequestAssignment{MemberId: mem.MemberId, Assignment: a.AppendTo(nil)})
	}
	return as, nil
}

// Heartbeat tells the coordinator the member is alive, when
// HeartbeatInterval passed since the last time (else it returns nil at
// once). An error for which NeedsRejoin holds means: Rejoin.
func (m *GroupMember) Heartbeat(ctx context.Context) error {
	if time.Since(m.lastBeat) < m.cfg.HeartbeatInterval {
		return nil
	}
	cn, err := m.c.coordinator(ctx, m.cfg.Group)
	if err != nil {
		return err
	}
	v, err := cn.Version(codec.ApiKeyHeartbeat)
	if err != nil {
		return err
	}
	resp, err := cn.RoundTrip(ctx, &codec.HeartbeatRequest{GroupId: m.cfg.Group, GenerationId: m.generation, MemberId: m.memberID}, v)
	if err != nil {
		return err
	}
	m.lastBeat = time.Now()
	return partitionError(resp.(*codec.HeartbeatResponse).ErrorCode, "", -1, nil)
}

// Commit stores offset (the next to consume) for topic[partition] as the
// group's, with the member's generation and id, so that the coordinator
// refuses it (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID: NeedsRejoin) from a
// member that lost the partition in a rebalance.
func (m *GroupMember) Commit(ctx context.Context, topic string, partition int32, offset int64) error {
	return m.c.commitAs(ctx, m.cfg.Group, m.generation, m.memberID, topic, partition, offset, "")
}

// Leave leaves the group, so that its partitions are reassigned at once
// rather than after the session timeout.
func (m *GroupMember) Leave(ctx context.Context) error {
	cn, err := m.c.coordinator(ctx, m.cfg.Group)
	if err != nil {
		return err
	}
	v, err := cn.Version(codec.ApiKeyLeaveGroup)
	if err != nil {
		return err
	}
	req := &codec.LeaveGroupRequest{GroupId: m.cfg.Group, MemberId: m.memberID,
		Members: []codec.LeaveGroupRequestMemberIdentity{{MemberId: m.memberID}}}
	resp, err := cn.RoundTrip(ctx, req, v)
	if err != nil {
		return err
	}
	r := resp.(*codec.LeaveGroupResponse)
	if err := partitionError(r.ErrorCode, "", -1, nil); err != nil {
		return err
	}
	for _, mr := range r.Members {
		if err := partitionError(mr.ErrorCode, "", -1, nil); err != nil {
			return err
		}
	}
	return nil
}
