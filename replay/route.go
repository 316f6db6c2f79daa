package replay

import (
	"context"
	"fmt"
	"time"

	"github.com/kdissect/kdissect/client"
	"github.com/kdissect/kdissect/codec"
)

// routeKind says which broker of the target a request goes to (for the
// APIs that are not leader-routed; see leaderRouted).
type routeKind int

const (
	routeAny         routeKind = iota // the bootstrap broker
	routeController                   // the controller
	routeGroup                        // the coordinator of a group
	routeTransaction                  // the coordinator of a transactional id
)

// destination is where a request goes: a kind and, for a coordinator,
// the group or transactional id (keys, the first of a request that names
// several).
type destination struct {
	kind routeKind
	key  string
	more bool // the request names several keys; they may have other coordinators
}

// destinationOf returns where a request of the ApiKey goes.
func (r *Replayer) destinationOf(key int16, req codec.Message) destination {
	switch key {
	case codec.ApiKeyCreateTopics, codec.ApiKeyDeleteTopics, codec.ApiKeyCreatePartitions, codec.ApiKeyElectLeaders,
		codec.ApiKeyAlterPartitionReassignments, codec.ApiKeyListPartitionReassignments, codec.ApiKeyAlterUserScramCredentials, codec.ApiKeyUpdateFeatures:
		return destination{kind: routeController}
	case codec.ApiKeyInitProducerId, codec.ApiKeyAddPartitionsToTxn, codec.ApiKeyAddOffsetsToTxn, codec.ApiKeyEndTxn: // AddPartitionsToTxn v0-3: one transaction
		if id := r.txnOf(req); id != "" {
			return destination{kind: routeTransaction, key: id}
		}
	case codec.ApiKeyDescribeTransactions:
		if q := req.(*codec.DescribeTransactionsRequest); len(q.TransactionalIds) > 0 {
			return destination{routeTransaction, q.TransactionalIds[0], len(q.TransactionalIds) > 1}
		}
	case codec.ApiKeyOffsetCommit, codec.ApiKeyJoinGroup, codec.ApiKeyHeartbeat, codec.ApiKeyLeaveGroup, codec.ApiKeySyncGroup,
		codec.ApiKeyTxnOffsetCommit, codec.ApiKeyOffsetDelete, codec.ApiKeyConsumerGroupHeartbeat, codec.ApiKeyShareGroupHeartbeat,
		codec.ApiKeyStreamsGroupHeartbeat, codec.ApiKeyDescribeShareGroupOffsets, codec.ApiKeyAlterShareGroupOffsets, codec.ApiKeyDeleteShareGroupOffsets:
		// Group APIs with one GroupId (TxnOffsetCommit goes to the group's coordinator).
		if g := r.groupOf(req); g != "" {
			return destination{kind: routeGroup, key: g}
		}
	case codec.ApiKeyOffsetFetch, codec.ApiKeyDescribeGroups, codec.ApiKeyDeleteGroups,
		codec.ApiKeyConsumerGroupDescribe, codec.ApiKeyShareGroupDescribe, codec.ApiKeyStreamsGroupDescribe: // one or several groups
		if gs := groupsOf(req); len(gs) > 0 {
			return destination{routeGroup, gs[0], len(gs) > 1}
		}
	}
	return destination{kind: routeAny}
}

// groupsOf returns the groups a request that may name several names.
func groupsOf(req codec.Message) []string {
	switch q := req.(type) {
	case *codec.OffsetFetchRequest:
		if len(q.Groups) == 0 {
			return []string{q.GroupId}
		}
		gs := make([]string, len(q.Groups))
		for i, g := range q.Groups {
			gs[i] = g.GroupId
		}
		return gs
	case *codec.DescribeGroupsRequest:
		return q.Groups
	case *codec.DeleteGroupsRequest:
		return q.GroupsNames
	case *codec.ConsumerGroupDescribeRequest:
		return q.GroupIds
	case *codec.ShareGroupDescribeRequest:
		return q.GroupIds
	case *codec.StreamsGroupDescribeRequest:
		return q.GroupIds
	}
	return nil
}

// txnOf returns the request's TransactionalId ("" when none; the first
// of an AddPartitionsToTxn v4+ batch).
func (r *Replayer) txnOf(req codec.Message) string {
	if q, ok := req.(*codec.AddPartitionsToTxnRequest); ok {
		if q.V3AndBelowTransactionalId == "" && len(q.Transactions) > 0 {
			return q.Transactions[0].TransactionalId
		}
		return q.V3AndBelowTransactionalId
	}
	return topString(req, codec.FieldTransactionalID)
}

// nodeOf returns the target's node id for a destination: the controller
// its metadata names, the coordinator its answers to the replayed
// FindCoordinator requests named, else the coordinator replay asks it
// for; -1 for the bootstrap broker or when the target cannot say. With
// refresh the target is asked again.
func (r *Replayer) nodeOf(ctx context.Context, d destination, refresh bool) int32 {
	switch d.kind {
	case routeController:
		id, err := r.meta.Controller(ctx, refresh)
		if err != nil {
			return -1
		}
		return id
	case routeGroup, routeTransaction:
		ck := coordinatorKey{client.CoordinatorGroup, d.key}
		if d.kind == routeTransaction {
			ck.typ = client.CoordinatorTransaction
		}
		if n, ok := r.st.coordinator(ck); ok && !refresh {
			return n
		}
		b, err := r.meta.FindCoordinator(ctx, ck.typ, d.key)
		if err != nil {
			return -1
		}
		r.st.setCoordinator(ck, b.NodeID)
		return b.NodeID
	}
	return -1
}

// misrouted returns the error code of an answer that says the request
// went to the wrong broker: NOT_COORDINATOR or NOT_CONTROLLER (the
// broker did not act on it); 0 when none does.
func misrouted(d destination, codes []int16) int16 {
	for _, c := range codes {
		if c == 16 && (d.kind == routeGroup || d.kind == routeTransaction) || c == 41 && d.kind == routeController {
			return c
		}
	}
	return 0
}

// sendRouted sends a request that is not leader-routed (rewritten, at
// version v) on cn, the connection to its destination d. When the answer
// says the broker is not the coordinator or controller, the target is
// asked again where d is and, when that is another broker, the request
// is sent there once more (at the version that broker offers): the
// refused request changed nothing. Requests
// naming several groups or transactional ids are not sent again (part
// of them may have been served). It returns the last answer and the
// time from the first send to it.
func (r *Replayer) sendRouted(ctx context.Context, cs *conns, cn *client.Conn, it *item, req codec.Message, v int16, d destination) (codec.Message, time.Duration, error) {
	t0 := time.Now()
	resp, err := cn.RoundTrip(ctx, req, v)
	if err != nil || resp == nil || d.kind == routeAny || d.more || !r.routing {
		return resp, time.Since(t0), err
	}
	var sm codec.Summary
	resp.Summarize(&sm, v)
	codes := make([]int16, len(sm.Errors))
	for i, e := range sm.Errors {
		codes[i] = e.Code
	}
	code := misrouted(d, codes)
	if code == 0 {
		return resp, time.Since(t0), nil
	}
	addr := r.nodeAddr(r.nodeOf(ctx, d, true))
	if addr == cn.Addr() {
		return resp, time.Since(t0), nil
	}
	cn2, err := cs.get(ctx, addr)
	if err != nil {
		return resp, time.Since(t0), nil
	}
	it.rewriteNts = append(it.rewriteNts, fmt.Sprintf("sent again to %s after %s", addr, codec.ErrorName(code)))
	p := &leaderPart{addr: addr, req: req}
	v2, err := r.partVersion(it, cn2, p, v) // that broker may offer other versions
	if err != nil {
		return resp, time.Since(t0), fmt.Errorf("sent again to %s: %w", addr, err)
	}
	resp2, err := cn2.RoundTrip(ctx, req, v2)
	if err != nil {
		return resp, time.Since(t0), fmt.Errorf("sent again to %s: %w", addr, err)
	}
	return resp2, time.Since(t0), nil
}
