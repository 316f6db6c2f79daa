package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kdissect/kdissect/codec"
)

// Topic returns the metadata of topic: from the client's cache, or from
// a Metadata request when it is not cached or refresh is set (the answer
// is cached). Errors: the topic's own Kafka error (an *Error wrapping
// ErrUnknownTopicOrPartition, ...) when the broker reports one, else the
// connection's error.
func (c *Client) Topic(ctx context.Context, topic string, refresh bool) (*TopicMetadata, error) {
	return c.topic(ctx, topic, refresh)
}

// Broker returns the broker with node id id as the last metadata answer
// named it, ok false when none did.
func (c *Client) Broker(id int32) (b BrokerMetadata, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok = c.meta.brokers[id]
	return b, ok
}

// Controller returns the node id of the cluster's controller as the
// cached metadata names it, asking for metadata when it names none or
// refresh is set. Errors: ErrCannotGetMetadata (wrapping the cause), or
// ErrLeaderNotFound when the answer names no controller (Metadata v0).
func (c *Client) Controller(ctx context.Context, refresh bool) (int32, error) {
	c.mu.Lock()
	id := c.meta.controllerID
	c.mu.Unlock()
	if id >= 0 && !refresh {
		return id, nil
	}
	md, err := c.Metadata(ctx)
	if err != nil {
		return -1, err
	}
	if md.ControllerID < 0 {
		return -1, clientError(ErrLeaderNotFound, "the metadata names no controller", nil)
	}
	return md.ControllerID, nil
}

// Coordinator key types of FindCoordinator.
const (
	CoordinatorGroup       int8 = 0
	CoordinatorTransaction int8 = 1
)

// FindCoordinator asks a broker which broker coordinates key, a group id
// (keyType CoordinatorGroup) or a transactional id (CoordinatorTransaction),
// and returns it. Nothing is cached. Errors: the connection's, the
// answer's Kafka error as an *Error (COORDINATOR_NOT_AVAILABLE, ...), or
// ErrCoordinatorNotFound when the answer names no broker.
func (c *Client) FindCoordinator(ctx context.Context, keyType int8, key string) (BrokerMetadata, error) {
	cn, err := c.anyConn(ctx)
	if err != nil {
		return BrokerMetadata{}, err
	}
	v, err := cn.Version(10)
	if err != nil {
		return BrokerMetadata{}, err
	}
	req := &codec.FindCoordinatorRequest{Key: key, KeyType: keyType, CoordinatorKeys: []string{key}}
	m, err := cn.RoundTrip(ctx, req, v)
	if err != nil {
		return BrokerMetadata{}, err
	}
	r := m.(*codec.FindCoordinatorResponse)
	b := BrokerMetadata{NodeID: r.NodeId, Host: r.Host, Port: r.Port}
	code, msg := r.ErrorCode, r.ErrorMessage
	if v >= 4 {
		if len(r.Coordinators) == 0 {
			return BrokerMetadata{}, clientError(ErrCoordinatorNotFound, fmt.Sprintf("%q: empty FindCoordinator response", key), nil)
		}
		co := r.Coordinators[0]
		b = BrokerMetadata{NodeID: co.NodeId, Host: co.Host, Port: co.Port}
		code, msg = co.ErrorCode, co.ErrorMessage
	}
	if err := partitionError(code, "", -1, msg); err != nil {
		return BrokerMetadata{}, err
	}
	if b.Host == "" || b.Port <= 0 {
		return BrokerMetadata{}, clientError(ErrCoordinatorNotFound, fmt.Sprintf("%q: the answer names no broker", key), nil)
	}
	return b, nil
}

// FindCoordinators asks a broker which brokers coordinate keys, group
// ids (keyType CoordinatorGroup) or transactional ids
// (CoordinatorTransaction): in one FindCoordinator v4+ request when the
// broker offers it (KIP-699), else one request per key. Nothing is
// cached. It returns the coordinators found, by key; the error joins,
// for each key not found, the reason (as FindCoordinator's errors), or
// is the connection's when no answer came.
func (c *Client) FindCoordinators(ctx context.Context, keyType int8, keys []string) (map[string]BrokerMetadata, error) {
	out := make(map[string]BrokerMetadata, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	cn, err := c.anyConn(ctx)
	if err != nil {
		return nil, err
	}
	v, err := cn.Version(10)
	if err != nil {
		return nil, err
	}
	if v < 4 {
		var errs []error
		for _, k := range keys {
			b, err := c.FindCoordinator(ctx, keyType, k)
			if err != nil {
				errs = append(errs, fmt.Errorf("%q: %w", k, err))
				continue
			}
			out[k] = b
		}
		return out, errors.Join(errs...)
	}
	m, err := cn.RoundTrip(ctx, &codec.FindCoordinatorRequest{KeyType: keyType, CoordinatorKeys: keys}, v)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, co := range m.(*codec.FindCoordinatorResponse).Coordinators {
		if err := partitionError(co.ErrorCode, "", -1, co.ErrorMessage); err != nil {
			errs = append(errs, fmt.Errorf("%q: %w", co.Key, err))
			continue
		}
		if co.Host == "" || co.Port <= 0 {
			errs = append(errs, clientError(ErrCoordinatorNotFound, fmt.Sprintf("%q: the answer names no broker", co.Key), nil))
			continue
		}
		out[co.Key] = BrokerMetadata{NodeID: co.NodeId, Host: co.Host, Port: co.Port}
	}
	for _, k := range keys {
		if _, ok := out[k]; !ok && !slices.ContainsFunc(errs, func(e error) bool { return strings.Contains(e.Error(), strconv.Quote(k)) }) {
			errs = append(errs, clientError(ErrCoordinatorNotFound, fmt.Sprintf("%q: not in the answer", k), nil))
		}
	}
	return out, errors.Join(errs...)
}
