package replay

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/kdissect/kdissect/client"
	"github.com/kdissect/kdissect/codec"
)

// conns are one captured connection's connections to the target, by
// address.
type conns struct {
	cfg client.Config
	m   map[string]*client.Conn
}

func (c *conns) get(ctx context.Context, addr string) (*client.Conn, error) {
	if cn, ok := c.m[addr]; ok && !cn.Closed() {
		return cn, nil
	}
	cn, err := client.Dial(ctx, addr, &c.cfg)
	if err != nil {
		return nil, err
	}
	c.m[addr] = cn
	return cn, nil
}

func (c *conns) close() {
	for _, cn := range c.m {
		cn.Close()
	}
}

// runStream is the runner of one captured connection: it replays the
// connection's requests in order, as sched hands them over, on its own
// connections to the target, until sched tells it to stop.
func (r *Replayer) runStream(q *streamQ) {
	ctx := r.ctx
	var cs *conns
	defer func() {
		if cs != nil {
			cs.close()
		}
	}()
	for {
		it, ok := r.sched.next(q)
		if !ok {
			return
		}
		if cs == nil {
			cs = &conns{cfg: r.opts.Client, m: map[string]*client.Conn{}}
			cs.cfg.Brokers = nil
			if it.clientID != nil {
				cs.cfg.ClientID = it.clientID
			}
		}
		err := r.clock.wait(ctx, it)
		if err == nil {
			err = r.sched.waitOrder(q, it)
		}
		if errors.Is(err, errStopped) {
			return // it stays held for the connection's next runner
		}
		if err == nil {
			r.send(ctx, cs, it)
		} else if !it.sent && it.failure == "" {
			it.failure = "not sent: the replay ended first"
		}
		r.sched.done(q, it)
		r.release(it)
	}
}

// release counts a done item in the report and lets go of what it
// holds.
func (r *Replayer) release(it *item) {
	r.tally.add(it)
	it.req, it.capResp = nil, nil
}

// send rewrites one request for the target, sends it and reads the
// answer, filling the item's outcome. A leader-routed request goes to
// the leaders of its partitions (sendToLeaders), one naming groups or
// transactional ids of several coordinators to those (sendToCoordinators),
// any other to its destination (sendRouted). Its version is chosen on
// the connection to its destination; for a split request, on the
// bootstrap broker's, then again for each part on its broker's
// (partVersion).
func (r *Replayer) send(ctx context.Context, cs *conns, it *item) {
	lr, byLeader := leaderRouted[it.key]
	kl, byKeys := keyRouted[it.key]
	byKeys = byKeys && !byLeader && r.routing && len(kl.keys(it.req)) > 1
	d := destination{kind: routeAny}
	addr := r.home
	if !byLeader && !byKeys {
		d = r.destinationOf(it.key, it.req)
		if d.kind != routeAny {
			addr = r.nodeAddr(r.nodeOf(ctx, d, false))
		}
	}
	cn, err := cs.get(ctx, addr)
	if err != nil {
		it.failure = fmt.Sprintf("connect to %s: %v", addr, err)
		return
	}
	api, _ := codec.LookupAPI(it.key)
	v := it.version
	if !r.opts.KeepVersions {
		lo, hi, offered := cn.BrokerRange(it.key)
		nv, err := chooseVersion(api, it.version, lo, hi, offered)
		if err != nil {
			it.failure = err.Error()
			return
		}
		v = nv
		if r.opts.ReadOnly && it.key == codec.ApiKeyMetadata && v < metadataNoCreateVersion && hi >= metadataNoCreateVersion {
			v = metadataNoCreateVersion
		}
	}
	req := it.req
	if r.opts.ReadOnly {
		if n := readOnlyMetadata(req, it.version, v); n != "" {
			it.rewriteNts = append(it.rewriteNts, n)
			if v < metadataNoCreateVersion {
				r.note(n)
			}
		}
	}
	if notes := r.st.topicRewrite(req, v != it.version, r.lookupTopicID(ctx)); len(notes) > 0 {
		it.rewriteNts = append(it.rewriteNts, notes...)
		for _, n := range notes {
			r.note(n)
		}
	}
	group := r.groupOf(req)
	r.st.producerRewrite(req)
	var formatLost []string
	if p, ok := req.(*codec.ProduceRequest); ok {
		lost, converted, err := convertProduceRecords(p, v)
		if err != nil {
			it.failure = err.Error()
			return
		}
		if converted {
			formatLost = lost
			it.rewriteNts = append(it.rewriteNts, fmt.Sprintf("records converted to magic %d, the format Produce v%d carries", produceMagic(v), v))
		}
		if err := r.rewriteProduce(ctx, cn, p, v); err != nil {
			it.failure = err.Error()
			return
		}
	}
	r.st.groupRewrite(req, group)
	r.st.telemetryRewrite(req)
	if v != it.version {
		it.downgrade = fmt.Sprintf("v%d → v%d", it.version, v)
		lost, err := lostFields(api, req, it.version, v)
		if err != nil {
			it.failure = err.Error()
			return
		}
		lost = append(lost, formatLost...)
		slices.Sort(lost)
		lost = slices.Compact(lost)
		it.lost = lost
		if d := describeLost(lost); d != "" {
			it.rewriteNts = append(it.rewriteNts, d)
		}
	}
	it.sentVer = v
	var resp codec.Message
	var lat time.Duration
	switch {
	case byLeader:
		resp, lat, err = r.sendToLeaders(ctx, cs, it, req, v, lr)
	case byKeys:
		resp, lat, err = r.sendToCoordinators(ctx, cs, it, req, v, kl)
	default:
		resp, lat, err = r.sendRouted(ctx, cs, cn, it, req, v, d)
	}
	it.sent = true
	if err != nil {
		it.failure = err.Error()
		return
	}
	if resp == nil { // Acks 0
		return
	}
	it.answered, it.repLat = true, lat
	var sm codec.Summary
	resp.Summarize(&sm, v)
	for _, e := range sm.Errors {
		it.repErrors = append(it.repErrors, e.Code)
	}
	if it.key == codec.ApiKeyProduce {
		it.accepted = acceptedRecords(req, v, sm.Errors)
	}
	r.learn(it, req, resp, group)
}

// acceptedRecords counts the records of Produce request req (version v)
// in the partitions its response's errors do not name: what the target
// took. An error not tied to a partition refuses them all.
func acceptedRecords(req codec.Message, v int16, errs []codec.ErrorRef) int {
	type tp struct {
		topic string
		id    codec.UUID
		part  int32
	}
	refused := map[tp]bool{}
	for _, e := range errs {
		if e.Partition < 0 {
			return 0
		}
		refused[tp{e.Topic, e.TopicID, e.Partition}] = true
	}
	var sm codec.Summary
	req.Summarize(&sm, v)
	n := 0
	for _, rr := range sm.Records {
		if !refused[tp{rr.Topic, rr.TopicID, rr.Partition}] {
			n += rr.Records.DecodeRecords(codec.RecordDecodeOptions{CountOnly: true}).Count()
		}
	}
	return n
}

// groupOf returns the request's GroupId ("" when it has none).
func (r *Replayer) groupOf(req codec.Message) string {
	return topString(req, codec.FieldGroupID)
}

// lookupTopicID returns a function asking the target for a topic's ID.
func (r *Replayer) lookupTopicID(ctx context.Context) func(string) (codec.UUID, bool) {
	return func(name string) (codec.UUID, bool) {
		md, err := r.meta.Metadata(ctx, name)
		if err != nil {
			return codec.UUID{}, false
		}
		for _, t := range md.Topics {
			if t.Name == name && !t.ID.IsZero() {
				r.st.setTargetID(name, t.ID)
				return t.ID, true
			}
		}
		return codec.UUID{}, false
	}
}

// rewriteProduce gives every idempotent batch of p the target's producer
// id, epoch and sequence. A captured producer whose InitProducerId the
// capture lacks gets a fresh id from the target (InitProducerId on cn).
func (r *Replayer) rewriteProduce(ctx context.Context, cn *client.Conn, p *codec.ProduceRequest, version int16) error {
	for ti := range p.TopicData {
		td := &p.TopicData[ti]
		topic := td.Name
		if topic == "" {
			topic = td.TopicId.String()
		}
		for pi := range td.PartitionData {
			pd := &td.PartitionData[pi]
			for range 2 {
				out, missing := r.st.rewriteBatches(pd.Records.Raw, topic, pd.Index)
				if missing == nil {
					pd.Records = codec.Records{Raw: out}
					break
				}
				if err := r.initProducer(ctx, cn, *missing, p.TransactionalId); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// initProducer asks the target for a producer id standing for a captured
// one.
func (r *Replayer) initProducer(ctx context.Context, cn *client.Conn, captured pidEpoch, txnID *string) error {
	v, err := cn.Version(22)
	if err != nil {
		return fmt.Errorf("producer id %d: cannot get a producer id from the target: %w", captured.id, err)
	}
	req := &codec.InitProducerIdRequest{TransactionalId: txnID, TransactionTimeoutMs: 60000, ProducerId: -1, ProducerEpoch: -1}
	m, err := cn.RoundTrip(ctx, req, v)
	if err != nil {
		return fmt.Errorf("producer id %d: InitProducerId: %w", captured.id, err)
	}
	resp := m.(*codec.InitProducerIdResponse)
	if resp.ErrorCode != 0 {
		return fmt.Errorf("producer id %d: InitProducerId: %s", captured.id, codec.ErrorName(resp.ErrorCode))
	}
	r.st.learnProducer(captured, pidEpoch{resp.ProducerId, resp.ProducerEpoch})
	r.note(fmt.Sprintf("captured producer id %d (epoch %d) has no InitProducerId in the capture: the target gave id %d epoch %d", captured.id, captured.epoch, resp.ProducerId, resp.ProducerEpoch))
	return nil
}

// learn reads the target's answer for the state later requests need.
func (r *Replayer) learn(it *item, req, resp codec.Message, group string) {
	switch t := resp.(type) {
	case *codec.InitProducerIdResponse:
		if c, ok := it.capResp.(*codec.InitProducerIdResponse); ok && t.ErrorCode == 0 {
			r.st.learnProducer(pidEpoch{c.ProducerId, c.ProducerEpoch}, pidEpoch{t.ProducerId, t.ProducerEpoch})
		}
	case *codec.EndTxnResponse:
		if c, ok := it.capResp.(*codec.EndTxnResponse); ok && t.ErrorCode == 0 && t.ProducerId >= 0 {
			r.st.learnProducer(pidEpoch{c.ProducerId, c.ProducerEpoch}, pidEpoch{t.ProducerId, t.ProducerEpoch})
		}
	case *codec.FindCoordinatorResponse:
		q := req.(*codec.FindCoordinatorRequest)
		if len(t.Coordinators) > 0 {
			for _, c := range t.Coordinators {
				if c.ErrorCode == 0 {
					r.st.setCoordinator(coordinatorKey{q.KeyType, c.Key}, c.NodeId)
				}
			}
		} else if t.ErrorCode == 0 {
			r.st.setCoordinator(coordinatorKey{q.KeyType, q.Key}, t.NodeId)
		}
	case *codec.MetadataResponse, *codec.CreateTopicsResponse, *codec.DescribeTopicPartitionsResponse:
		r.st.learnTargetTopics(resp)
	}
	if it.capResp != nil && it.capResp.APIKey() == resp.APIKey() && it.capResp.IsResponse() == resp.IsResponse() {
		switch it.key {
		case codec.ApiKeyJoinGroup, codec.ApiKeyConsumerGroupHeartbeat, codec.ApiKeyShareGroupHeartbeat, codec.ApiKeyStreamsGroupHeartbeat:
			r.st.learnGroup(group, it.capResp, resp)
		case codec.ApiKeyGetTelemetrySubscriptions:
			r.st.learnTelemetry(it.capResp.(*codec.GetTelemetrySubscriptionsResponse), resp.(*codec.GetTelemetrySubscriptionsResponse))
		}
	}
}
