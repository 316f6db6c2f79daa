// Command franzclient drives a Kafka broker with franz-go's clients (kgo for
// producing, consuming, groups and transactions, kadm for admin requests) so
// that tcpdump can record their traffic. It exists to regenerate the
// franz_*.pcap test captures in testdata/pcaps against internal/kfakebroker
// (see testdata/pcaps/regen.sh); it is not a tool for real clusters.
//
// Usage:
//
//	franzclient [-brokers 127.0.0.1:9092] -scenario NAME [-timeout 90s] [-v]
//
// Versions are not pinned: every request goes at the newest version that
// both franz-go and the broker support. The scenarios:
//
//   - groups: two members of a classic consumer group (FindCoordinator,
//     JoinGroup, SyncGroup, Heartbeat, OffsetFetch, OffsetCommit,
//     LeaveGroup), kadm ListGroups, DescribeGroups, OffsetFetch and
//     OffsetDelete on it, then two members of a KIP-848 consumer group
//     (ConsumerGroupHeartbeat) described with ConsumerGroupDescribe, and
//     DeleteGroups for both.
//   - transactions: a consume-transform-produce session and a plain
//     transactional producer (InitProducerId, Produce, TxnOffsetCommit,
//     EndTxn commit and abort) while the cluster's transaction.version is 2
//     (KIP-890: no AddPartitionsToTxn or AddOffsetsToTxn); kadm
//     DescribeProducers, DescribeTransactions, ListTransactions; then
//     UpdateFeatures lowers transaction.version to 1 and new producers use
//     AddPartitionsToTxn and AddOffsetsToTxn; last a read_committed consumer
//     reads everything back past the aborted transactions.
//   - admin: kadm topic, partition, config, offset, record deletion, ACL,
//     quota, SCRAM, log dir, leader election and reassignment requests,
//     DescribeCluster and DescribeTopicPartitions.
//   - idempotent: an idempotent producer per compression codec (none, gzip,
//     snappy, lz4, zstd), each writing 30 records with headers to its own
//     3-partition topic in two rounds, then one consumer reading all back.
//
// Records are fixed: keys k1..kN, values "rec-NNNN the quick brown fox jumps
// over the lazy dog NNNN", headers h=v and src=regen, partition N mod 3.
//
// An error the broker answers with is real traffic and is only reported on
// stderr; the run fails (exit 1) on anything else: a request that could not
// be made, a step past its timeout, or records that did not come back.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// stepTimeout bounds each step (one request, one consume, one transaction
// session); the whole scenario is bounded by -timeout.
const stepTimeout = 20 * time.Second

var scenarios = map[string]func(*runner) error{
	"groups":       groups,
	"transactions": transactions,
	"admin":        admin,
	"idempotent":   idempotent,
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "franzclient:", err)
		os.Exit(1)
	}
}

func run() error {
	brokers := flag.String("brokers", "127.0.0.1:9092", "seed brokers, comma separated")
	scenario := flag.String("scenario", "", "scenario to run: "+strings.Join(slices.Sorted(maps.Keys(scenarios)), ", "))
	timeout := flag.Duration("timeout", 90*time.Second, "bound on the whole scenario")
	verbose := flag.Bool("v", false, "log steps and franz-go client messages to stderr")
	flag.Parse()
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %q", flag.Args())
	}
	fn, ok := scenarios[*scenario]
	if !ok {
		return fmt.Errorf("-scenario must be one of %s, got %q", strings.Join(slices.Sorted(maps.Keys(scenarios)), ", "), *scenario)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	r := &runner{ctx: ctx, seeds: strings.Split(*brokers, ","), verbose: *verbose, prefix: *scenario}
	adm, err := r.client("admin")
	if err != nil {
		return err
	}
	defer adm.Close()
	r.admCl = adm
	r.adm = kadm.NewClient(adm)
	r.adm.SetTimeoutMillis(int32(stepTimeout / time.Millisecond / 2))
	if err := fn(r); err != nil {
		return fmt.Errorf("%s: %w", *scenario, err)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", *scenario, ctx.Err())
	}
	return nil
}

// runner holds what every scenario uses: the scenario deadline, the seeds
// and an admin client.
type runner struct {
	ctx     context.Context
	seeds   []string
	verbose bool
	prefix  string // client IDs are kdissect-PREFIX-NAME

	admCl *kgo.Client
	adm   *kadm.Client
}

func (r *runner) logf(format string, args ...any) {
	if r.verbose {
		fmt.Fprintf(os.Stderr, "franzclient: "+format+"\n", args...)
	}
}

// opts are the options of a client called name: every client has its own
// client ID, so the capture tells them apart, and bounded timeouts.
func (r *runner) opts(name string, extra ...kgo.Opt) []kgo.Opt {
	o := []kgo.Opt{
		kgo.SeedBrokers(r.seeds...),
		kgo.ClientID("kdissect-" + r.prefix + "-" + name),
		kgo.DialTimeout(5 * time.Second),
		kgo.RetryTimeout(15 * time.Second),
		kgo.RequestTimeoutOverhead(5 * time.Second),
		kgo.FetchMaxWait(500 * time.Millisecond),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(50 * time.Millisecond),
		kgo.RecordDeliveryTimeout(stepTimeout),
	}
	if r.verbose {
		o = append(o, kgo.WithLogger(kgo.BasicLogger(os.Stderr, kgo.LogLevelInfo, func() string { return name + ": " })))
	}
	return append(o, extra...)
}

func (r *runner) client(name string, extra ...kgo.Opt) (*kgo.Client, error) {
	cl, err := kgo.NewClient(r.opts(name, extra...)...)
	if err != nil {
		return nil, fmt.Errorf("client %s: %w", name, err)
	}
	return cl, nil
}

// step runs fn with a context bounded by stepTimeout and judges its error
// with check.
func (r *runner) step(name string, fn func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(r.ctx, stepTimeout)
	defer cancel()
	return r.check(name, fn(ctx))
}

// check passes errors the broker answered with (they are what the capture
// is for) and fails on the others.
func (r *runner) check(name string, err error) error {
	if err == nil {
		r.logf("%s: ok", name)
		return nil
	}
	if brokerErr(err) {
		fmt.Fprintf(os.Stderr, "franzclient: %s: %s: broker answered %v\n", r.prefix, name, err)
		return nil
	}
	return fmt.Errorf("%s: %w", name, err)
}

func brokerErr(err error) bool {
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return true
	}
	var ae *kadm.AuthError
	return errors.As(err, &ae)
}

// codeErr turns a response error code into an error (nil for 0).
func codeErr(code int16, msg *string) error {
	err := kerr.ErrorForCode(code)
	if err != nil && msg != nil && *msg != "" {
		return fmt.Errorf("%w: %s", err, *msg)
	}
	return err
}

// record is record i of topic, on partition i mod 3.
func record(topic string, i int) *kgo.Record {
	return &kgo.Record{
		Topic:     topic,
		Partition: int32(i % 3),
		Key:       fmt.Appendf(nil, "k%d", i),
		Value:     value(i),
		Headers: []kgo.RecordHeader{
			{Key: "h", Value: []byte("v")},
			{Key: "src", Value: []byte("regen")},
		},
	}
}

func value(i int) []byte {
	return fmt.Appendf(nil, "rec-%04d the quick brown fox jumps over the lazy dog %04d", i, i)
}

// keys is the set "topic/kI" for I in first..last.
func keys(topic string, first, last int) map[string]bool {
	m := make(map[string]bool)
	for i := first; i <= last; i++ {
		m[fmt.Sprintf("%s/k%d", topic, i)] = true
	}
	return m
}

func union(ms ...map[string]bool) map[string]bool {
	out := make(map[string]bool)
	for _, m := range ms {
		for k := range m {
			out[k] = true
		}
	}
	return out
}

// checkRecord verifies that a consumed record is one that record made.
func checkRecord(rec *kgo.Record) error {
	var i int
	if _, err := fmt.Sscanf(string(rec.Key), "k%d", &i); err != nil {
		return fmt.Errorf("%s[%d]@%d: unexpected key %q", rec.Topic, rec.Partition, rec.Offset, rec.Key)
	}
	want := record(rec.Topic, i)
	if string(rec.Value) != string(want.Value) || rec.Partition != want.Partition {
		return fmt.Errorf("%s[%d]@%d: key %q has value %q", rec.Topic, rec.Partition, rec.Offset, rec.Key, rec.Value)
	}
	if len(rec.Headers) != 2 || rec.Headers[0].Key != "h" || string(rec.Headers[0].Value) != "v" ||
		rec.Headers[1].Key != "src" || string(rec.Headers[1].Value) != "regen" {
		return fmt.Errorf("%s[%d]@%d: headers %v", rec.Topic, rec.Partition, rec.Offset, rec.Headers)
	}
	return nil
}

// produce writes records first..last to topic with cl, flushes and waits
// for them. With kgo.ManualFlushing they go in one batch per partition: the
// pause before flushing lets a new client learn the topic's partitions (it
// would drain each record as it places it otherwise), the one at the end
// lets the drain loop of the flush end (it would send the first records of
// the next call alone otherwise).
func (r *runner) produce(cl *kgo.Client, topic string, first, last int) error {
	return r.step(fmt.Sprintf("produce %s k%d..k%d", topic, first, last), func(ctx context.Context) error {
		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			firstErr error
		)
		for i := first; i <= last; i++ {
			wg.Add(1)
			cl.Produce(ctx, record(topic, i), func(_ *kgo.Record, err error) {
				defer wg.Done()
				mu.Lock()
				defer mu.Unlock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
			})
		}
		time.Sleep(100 * time.Millisecond)
		if err := cl.Flush(ctx); err != nil {
			return err
		}
		wg.Wait()
		time.Sleep(100 * time.Millisecond)
		return firstErr
	})
}

// createTopics creates topics with 3 partitions each; ones that exist are
// fine.
func (r *runner) createTopics(topics ...string) error {
	return r.step("CreateTopics "+strings.Join(topics, ","), func(ctx context.Context) error {
		res, err := r.adm.CreateTopics(ctx, 3, 1, nil, topics...)
		if err != nil {
			return err
		}
		for _, t := range res.Sorted() {
			if t.Err != nil && !errors.Is(t.Err, kerr.TopicAlreadyExists) {
				return fmt.Errorf("%s: %w", t.Topic, t.Err)
			}
		}
		return nil
	})
}

// collector gathers the records that consumers return, by "topic/key".
type collector struct {
	mu   sync.Mutex
	want map[string]bool
	got  map[string]int
	bad  error
	done chan struct{}

	verify func(*kgo.Record) error // if set, a further check of each record
}

func newCollector(want map[string]bool) *collector {
	return &collector{want: want, got: make(map[string]int), done: make(chan struct{})}
}

// add records rec and reports whether every wanted record is in.
func (c *collector) add(rec *kgo.Record) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := checkRecord(rec); err != nil && c.bad == nil {
		c.bad = err
	}
	if c.verify != nil {
		if err := c.verify(rec); err != nil && c.bad == nil {
			c.bad = err
		}
	}
	k := rec.Topic + "/" + string(rec.Key)
	if !c.want[k] && c.bad == nil {
		c.bad = fmt.Errorf("unexpected record %s at %s[%d]@%d", k, rec.Topic, rec.Partition, rec.Offset)
	}
	c.got[k]++
	if c.complete() {
		select {
		case <-c.done:
		default:
			close(c.done)
		}
	}
}

func (c *collector) complete() bool {
	for k := range c.want {
		if c.got[k] == 0 {
			return false
		}
	}
	return true
}

func (c *collector) result() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bad != nil {
		return c.bad
	}
	var missing []string
	for k := range c.want {
		if c.got[k] == 0 {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return fmt.Errorf("%d of %d records never came back, e.g. %s", len(missing), len(c.want), missing[0])
	}
	return nil
}

// poller polls one consumer into a collector until stopped.
type poller struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func (r *runner) startPolling(c *collector, cls ...*kgo.Client) *poller {
	ctx, cancel := context.WithCancel(r.ctx)
	p := &poller{cancel: cancel}
	for _, cl := range cls {
		p.wg.Go(func() {
			for ctx.Err() == nil {
				fs := cl.PollFetches(ctx)
				if ctx.Err() != nil || fs.IsClientClosed() {
					return
				}
				fs.EachError(func(t string, part int32, err error) {
					if !errors.Is(err, context.Canceled) {
						fmt.Fprintf(os.Stderr, "franzclient: %s: fetch %s[%d]: %v\n", r.prefix, t, part, err)
					}
				})
				fs.EachRecord(c.add)
			}
		})
	}
	return p
}

func (p *poller) stop() {
	p.cancel()
	p.wg.Wait()
}

// await waits until the collector is complete or the step times out.
func (r *runner) await(name string, c *collector) error {
	ctx, cancel := context.WithTimeout(r.ctx, stepTimeout)
	defer cancel()
	select {
	case <-c.done:
	case <-ctx.Done():
	}
	if err := c.result(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	r.logf("%s: all %d records", name, len(c.want))
	return nil
}

// assignments tracks the partitions each member of a group owns.
type assignments struct {
	mu     sync.Mutex
	owned  map[string]map[string]bool // member → "topic/partition"
	change chan struct{}
}

func newAssignments() *assignments {
	return &assignments{owned: make(map[string]map[string]bool), change: make(chan struct{}, 1)}
}

func (a *assignments) update(member string, add bool, ps map[string][]int32) {
	a.mu.Lock()
	defer a.mu.Unlock()
	m := a.owned[member]
	if m == nil {
		m = make(map[string]bool)
		a.owned[member] = m
	}
	for t, parts := range ps {
		for _, p := range parts {
			k := fmt.Sprintf("%s/%d", t, p)
			if add {
				m[k] = true
			} else {
				delete(m, k)
			}
		}
	}
	select {
	case a.change <- struct{}{}:
	default:
	}
}

// opts are the group callbacks that keep a up to date for member.
func (a *assignments) opts(member string) []kgo.Opt {
	return []kgo.Opt{
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { a.update(member, true, ps) }),
		kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { a.update(member, false, ps) }),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { a.update(member, false, ps) }),
	}
}

// spread reports whether every member owns a partition and all n
// partitions are owned.
func (a *assignments) spread(members []string, n int) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	all := make(map[string]bool)
	for _, m := range members {
		if len(a.owned[m]) == 0 {
			return false
		}
		for k := range a.owned[m] {
			all[k] = true
		}
	}
	return len(all) == n
}

// awaitSpread waits until both members of a group own partitions: the
// group has been through its rebalances.
func (r *runner) awaitSpread(group string, a *assignments, members []string, n int) error {
	ctx, cancel := context.WithTimeout(r.ctx, stepTimeout)
	defer cancel()
	for !a.spread(members, n) {
		select {
		case <-a.change:
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			a.mu.Lock()
			defer a.mu.Unlock()
			return fmt.Errorf("group %s: partitions not spread over %v in time: %v", group, members, a.owned)
		}
	}
	r.logf("group %s: spread over %v", group, members)
	return nil
}

// groups: a classic consumer group, then a KIP-848 consumer group.
func groups(r *runner) error {
	const topic = "grp"
	if err := r.createTopics(topic); err != nil {
		return err
	}
	prod, err := r.client("producer")
	if err != nil {
		return err
	}
	defer prod.Close()

	// 1. Classic group: two members join (the second joining makes the
	// first rejoin), consume, commit, heartbeat, leave.
	const classic = "franz-classic"
	as := newAssignments()
	members := []string{"classic-1", "classic-2"}
	var cls []*kgo.Client
	for _, m := range members {
		cl, err := r.client(m, append(as.opts(m),
			kgo.ConsumerGroup(classic),
			kgo.ConsumeTopics(topic),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
			kgo.Balancers(kgo.CooperativeStickyBalancer(), kgo.RangeBalancer()),
			kgo.SessionTimeout(10*time.Second),
			kgo.RebalanceTimeout(5*time.Second),
			kgo.HeartbeatInterval(300*time.Millisecond),
			kgo.AutoCommitInterval(time.Second),
		)...)
		if err != nil {
			return err
		}
		defer cl.Close()
		cls = append(cls, cl)
	}
	col := newCollector(keys(topic, 1, 30))
	p := r.startPolling(col, cls...)
	if err := r.awaitSpread(classic, as, members, 3); err != nil {
		p.stop()
		return err
	}
	if err := r.produce(prod, topic, 1, 30); err != nil {
		p.stop()
		return err
	}
	err = r.await("classic group consume", col)
	p.stop()
	if err != nil {
		return err
	}
	for i, cl := range cls {
		if err := r.step(members[i]+" OffsetCommit", cl.CommitUncommittedOffsets); err != nil {
			return err
		}
	}
	time.Sleep(time.Second) // a few heartbeats
	for i, cl := range cls {
		if err := r.step(members[i]+" LeaveGroup", cl.LeaveGroupContext); err != nil {
			return err
		}
		cl.Close()
	}

	// 2. Admin requests on the now empty classic group.
	if err := r.listGroups(); err != nil {
		return err
	}
	if err := r.step("DescribeGroups "+classic, func(ctx context.Context) error {
		d, err := r.adm.DescribeGroups(ctx, classic)
		if err != nil {
			return err
		}
		return r.check("DescribeGroups result", d.Error())
	}); err != nil {
		return err
	}
	if err := r.step("OffsetFetch "+classic, func(ctx context.Context) error {
		o, err := r.adm.FetchOffsets(ctx, classic)
		if err != nil {
			return err
		}
		if err := r.check("OffsetFetch result", o.Error()); err != nil {
			return err
		}
		var sum int64
		o.Each(func(o kadm.OffsetResponse) { sum += o.At })
		if sum != 30 {
			return fmt.Errorf("committed offsets add up to %d, want 30", sum)
		}
		return nil
	}); err != nil {
		return err
	}
	if err := r.step("OffsetDelete "+classic, func(ctx context.Context) error {
		var s kadm.TopicsSet
		s.Add(topic, 0)
		res, err := r.adm.DeleteOffsets(ctx, classic, s)
		if err != nil {
			return err
		}
		return r.check("OffsetDelete result", res.Error())
	}); err != nil {
		return err
	}

	// 3. KIP-848 group. kfake's heartbeat interval for these groups is
	// 5 s; a shorter one (a broker config, set with
	// IncrementalAlterConfigs) makes the second member's join settle
	// quickly.
	if err := r.step("IncrementalAlterConfigs group.consumer.heartbeat.interval.ms", func(ctx context.Context) error {
		v := "500"
		res, err := r.adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "group.consumer.heartbeat.interval.ms", Value: &v}})
		if err != nil {
			return err
		}
		for _, x := range res {
			if err := r.check("IncrementalAlterConfigs result "+x.Name, x.Err); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	const nextGen = "franz-848"
	as = newAssignments()
	members = []string{"848-1", "848-2"}
	cls = nil
	for _, m := range members {
		cl, err := r.client(m, append(as.opts(m),
			kgo.ConsumerGroup(nextGen),
			kgo.ServerSideBalancer(),
			kgo.ConsumeTopics(topic),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
			kgo.AutoCommitInterval(time.Second),
		)...)
		if err != nil {
			return err
		}
		defer cl.Close()
		cls = append(cls, cl)
	}
	col = newCollector(keys(topic, 1, 30))
	p = r.startPolling(col, cls...)
	if err := r.awaitSpread(nextGen, as, members, 3); err != nil {
		p.stop()
		return err
	}
	err = r.await("KIP-848 group consume", col)
	p.stop()
	if err != nil {
		return err
	}
	for i, cl := range cls {
		if err := r.step(members[i]+" OffsetCommit", cl.CommitUncommittedOffsets); err != nil {
			return err
		}
	}
	if err := r.step("ConsumerGroupDescribe "+nextGen, func(ctx context.Context) error {
		d, err := r.adm.DescribeConsumerGroups(ctx, nextGen)
		if err != nil {
			return err
		}
		g, ok := d[nextGen]
		if !ok {
			return fmt.Errorf("no description of %s", nextGen)
		}
		if g.Err != nil {
			return g.Err
		}
		if len(g.Members) != 2 {
			return fmt.Errorf("%s has %d members, want 2", nextGen, len(g.Members))
		}
		return nil
	}); err != nil {
		return err
	}
	if err := r.listGroups(); err != nil {
		return err
	}
	for i, cl := range cls {
		if err := r.step(members[i]+" leave", cl.LeaveGroupContext); err != nil {
			return err
		}
		cl.Close()
	}

	// 4. Delete both groups.
	return r.step("DeleteGroups", func(ctx context.Context) error {
		res, err := r.adm.DeleteGroups(ctx, classic, nextGen)
		if err != nil {
			return err
		}
		for _, g := range res {
			if err := r.check("DeleteGroups "+g.Group, g.Err); err != nil {
				return err
			}
		}
		return nil
	})
}

func (r *runner) listGroups() error {
	return r.step("ListGroups", func(ctx context.Context) error {
		ls, err := r.adm.ListGroups(ctx)
		if err != nil {
			return err
		}
		for _, g := range ls.Sorted() {
			r.logf("group %s: type %q protocol %q state %q", g.Group, g.GroupType, g.ProtocolType, g.State)
		}
		return nil
	})
}

// transactions: see the package comment.
func transactions(r *runner) error {
	const in, out, group = "txn-in", "txn-out", "franz-txn-group"
	if err := r.createTopics(in, out); err != nil {
		return err
	}
	prod, err := r.client("producer")
	if err != nil {
		return err
	}
	defer prod.Close()
	if err := r.produce(prod, in, 1, 9); err != nil {
		return err
	}

	// 1. transaction.version 2, kfake's level: KIP-890 part 2.
	if err := r.txnSession("session-a", "franz-txn-a", group, in, out, keys(in, 1, 9)); err != nil {
		return err
	}
	b, err := r.client("txn-b", kgo.TransactionalID("franz-txn-b"), kgo.TransactionTimeout(15*time.Second))
	if err != nil {
		return err
	}
	defer b.Close()
	if err := r.txn(b, "txn-b", out, 101, 103, func() error { return r.describeTxns(out, "franz-txn-a", "franz-txn-b") }, kgo.TryAbort); err != nil {
		return err
	}
	if err := r.txn(b, "txn-b", out, 104, 106, nil, kgo.TryCommit); err != nil {
		return err
	}
	b.Close()

	// 2. transaction.version 1: producers that connect now add
	// partitions and offsets to their transactions explicitly.
	if err := r.step("UpdateFeatures transaction.version=1", func(ctx context.Context) error {
		res, err := r.adm.UpdateFeatures(ctx, false, kadm.FeatureUpdate{Feature: "transaction.version", MaxVersionLevel: 1, UpgradeType: 2})
		if err != nil {
			return err
		}
		if err := res.Error(); err != nil {
			return fmt.Errorf("could not lower transaction.version: %w", err) // the rest of the scenario needs it
		}
		return nil
	}); err != nil {
		return err
	}
	if err := r.produce(prod, in, 10, 12); err != nil {
		return err
	}
	d, err := r.client("txn-d", kgo.TransactionalID("franz-txn-d"), kgo.TransactionTimeout(15*time.Second))
	if err != nil {
		return err
	}
	defer d.Close()
	if err := r.txn(d, "txn-d", out, 201, 203, func() error { return r.describeTxns(out, "franz-txn-d") }, kgo.TryAbort); err != nil {
		return err
	}
	d.Close()
	// Last, so that every aborted batch lies before committed records
	// in each partition: the consumer below reads past all of them.
	if err := r.txnSession("session-c", "franz-txn-c", group, in, out, keys(in, 10, 12)); err != nil {
		return err
	}
	if err := r.step("ListTransactions", func(ctx context.Context) error {
		ls, err := r.adm.ListTransactions(ctx, nil, nil)
		if err != nil {
			return err
		}
		for _, t := range ls.Sorted() {
			r.logf("transaction %s: producer %d state %s", t.TxnID, t.ProducerID, t.State)
		}
		return nil
	}); err != nil {
		return err
	}

	// 3. read_committed consumer: the committed records only.
	cons, err := r.client("read-committed",
		kgo.ConsumeTopics(out),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
	)
	if err != nil {
		return err
	}
	defer cons.Close()
	col := newCollector(union(keys(out, 1, 12), keys(out, 104, 106)))
	p := r.startPolling(col, cons)
	err = r.await("read_committed consume", col)
	p.stop()
	return err
}

// txnSession consumes want from in and produces the same records to out in
// transactions (consume-transform-produce) that commit the consumed
// offsets, until every wanted record is committed.
func (r *runner) txnSession(name, txnID, group, in, out string, want map[string]bool) error {
	s, err := kgo.NewGroupTransactSession(r.opts(name,
		kgo.TransactionalID(txnID),
		kgo.TransactionTimeout(15*time.Second),
		kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(in),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.SessionTimeout(10*time.Second),
		kgo.RebalanceTimeout(5*time.Second),
		kgo.HeartbeatInterval(300*time.Millisecond),
	)...)
	if err != nil {
		return fmt.Errorf("session %s: %w", name, err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(r.ctx, stepTimeout)
	defer cancel()
	done := make(map[string]bool)
	for len(done) < len(want) {
		fs := s.PollFetches(ctx)
		if ctx.Err() != nil {
			return fmt.Errorf("session %s: %d of %d records committed: %w", name, len(done), len(want), ctx.Err())
		}
		fs.EachError(func(t string, p int32, err error) {
			fmt.Fprintf(os.Stderr, "franzclient: %s: %s fetch %s[%d]: %v\n", r.prefix, name, t, p, err)
		})
		var recs []*kgo.Record
		fs.EachRecord(func(rec *kgo.Record) { recs = append(recs, rec) })
		if len(recs) == 0 {
			continue
		}
		if err := s.Begin(); err != nil {
			return fmt.Errorf("session %s: begin: %w", name, err)
		}
		var outs []*kgo.Record
		for _, rec := range recs {
			if err := checkRecord(rec); err != nil {
				return fmt.Errorf("session %s: %w", name, err)
			}
			outs = append(outs, &kgo.Record{Topic: out, Partition: rec.Partition, Key: rec.Key, Value: rec.Value, Headers: rec.Headers})
		}
		if err := s.ProduceSync(ctx, outs...).FirstErr(); err != nil {
			return fmt.Errorf("session %s: produce: %w", name, err)
		}
		committed, err := s.End(ctx, kgo.TryCommit)
		if err != nil {
			return fmt.Errorf("session %s: end: %w", name, err)
		}
		if !committed {
			r.logf("session %s: transaction aborted, records will come again", name)
			continue
		}
		for _, rec := range recs {
			done[rec.Topic+"/"+string(rec.Key)] = true
		}
		r.logf("session %s: committed %d records", name, len(recs))
	}
	for k := range done {
		if !want[k] {
			return fmt.Errorf("session %s: unexpected record %s", name, k)
		}
	}
	return r.check("session "+name, s.Client().LeaveGroupContext(ctx))
}

// txn produces records first..last to topic in one transaction of cl, runs
// during (if any) while it is open, and ends it.
func (r *runner) txn(cl *kgo.Client, name, topic string, first, last int, during func() error, end kgo.TransactionEndTry) error {
	if err := cl.BeginTransaction(); err != nil {
		return fmt.Errorf("%s: begin: %w", name, err)
	}
	if err := r.produce(cl, topic, first, last); err != nil {
		return err
	}
	if during != nil {
		if err := during(); err != nil {
			return err
		}
	}
	what := map[kgo.TransactionEndTry]string{kgo.TryCommit: "commit", kgo.TryAbort: "abort"}[end]
	return r.step(name+" EndTxn "+what, func(ctx context.Context) error {
		return cl.EndTransaction(ctx, end)
	})
}

// describeTxns asks about the producers on topic and the transactions.
func (r *runner) describeTxns(topic string, txnIDs ...string) error {
	if err := r.step("DescribeProducers "+topic, func(ctx context.Context) error {
		var s kadm.TopicsSet
		s.Add(topic, 0, 1, 2)
		res, err := r.adm.DescribeProducers(ctx, s)
		if err != nil {
			return err
		}
		n := 0
		res.EachProducer(func(kadm.DescribedProducer) { n++ })
		if n == 0 {
			return fmt.Errorf("no producers on %s during an open transaction", topic)
		}
		return nil
	}); err != nil {
		return err
	}
	return r.step("DescribeTransactions", func(ctx context.Context) error {
		res, err := r.adm.DescribeTransactions(ctx, txnIDs...)
		if err != nil {
			return err
		}
		for _, t := range res.Sorted() {
			if err := r.check("DescribeTransactions "+t.TxnID, t.Err); err != nil {
				return err
			}
			r.logf("transaction %s: state %s, %d topics", t.TxnID, t.State, len(t.Topics))
		}
		return nil
	})
}

// admin: see the package comment.
func admin(r *runner) error {
	const a, b, c = "adm-a", "adm-b", "adm-c"
	steps := []struct {
		name string
		fn   func(ctx context.Context) error
	}{
		{"CreateTopics", func(ctx context.Context) error {
			retention := "86400000"
			res, err := r.adm.CreateTopics(ctx, 3, 1, map[string]*string{"retention.ms": &retention}, a)
			if err != nil {
				return err
			}
			if err := res.Error(); err != nil {
				return fmt.Errorf("%s: %w", a, err) // the rest needs it
			}
			res, err = r.adm.CreateTopics(ctx, 1, 1, nil, b)
			if err != nil {
				return err
			}
			return res.Error()
		}},
		{"CreateTopics validate only", func(ctx context.Context) error {
			res, err := r.adm.ValidateCreateTopics(ctx, 2, 1, nil, c)
			if err != nil {
				return err
			}
			return r.check("CreateTopics validate only result", res.Error())
		}},
		{"CreatePartitions", func(ctx context.Context) error {
			res, err := r.adm.CreatePartitions(ctx, 2, b)
			if err != nil {
				return err
			}
			return r.check("CreatePartitions result", res.Error())
		}},
		{"Metadata", func(ctx context.Context) error {
			_, err := r.adm.ListTopics(ctx, a, b)
			return err
		}},
		{"DescribeConfigs", func(ctx context.Context) error {
			if _, err := r.adm.DescribeTopicConfigs(ctx, a); err != nil {
				return err
			}
			_, err := r.adm.DescribeBrokerConfigs(ctx)
			return err
		}},
		{"AlterConfigs", func(ctx context.Context) error {
			v := "3600000"
			res, err := r.adm.AlterTopicConfigsState(ctx, []kadm.AlterConfig{{Name: "retention.ms", Value: &v}}, a)
			if err != nil {
				return err
			}
			for _, x := range res {
				if err := r.check("AlterConfigs "+x.Name, x.Err); err != nil {
					return err
				}
			}
			return nil
		}},
		{"IncrementalAlterConfigs", func(ctx context.Context) error {
			compact, bytes := "compact", "1048576"
			res, err := r.adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{
				{Op: kadm.SetConfig, Name: "cleanup.policy", Value: &compact},
				{Op: kadm.SetConfig, Name: "max.message.bytes", Value: &bytes},
				{Op: kadm.DeleteConfig, Name: "retention.ms"},
			}, a)
			if err != nil {
				return err
			}
			for _, x := range res {
				if err := r.check("IncrementalAlterConfigs "+x.Name, x.Err); err != nil {
					return err
				}
			}
			_, err = r.adm.DescribeTopicConfigs(ctx, a)
			return err
		}},
		{"ListConfigResources", func(ctx context.Context) error {
			_, err := r.adm.ListConfigResources(ctx)
			return err
		}},
		{"Produce", func(ctx context.Context) error {
			cl, err := r.client("producer")
			if err != nil {
				return err
			}
			defer cl.Close()
			var rs []*kgo.Record
			for i := 1; i <= 9; i++ {
				rs = append(rs, record(a, i))
			}
			return cl.ProduceSync(ctx, rs...).FirstErr()
		}},
		{"ListOffsets", func(ctx context.Context) error {
			start, err := r.adm.ListStartOffsets(ctx, a)
			if err != nil {
				return err
			}
			end, err := r.adm.ListEndOffsets(ctx, a)
			if err != nil {
				return err
			}
			if err := end.Error(); err != nil {
				return err
			}
			if _, err := r.adm.ListMaxTimestampOffsets(ctx, a); err != nil {
				return err
			}
			if _, err := r.adm.ListOffsetsAfterMilli(ctx, time.Now().Add(-time.Hour).UnixMilli(), a); err != nil {
				return err
			}
			var n int64
			end.Each(func(o kadm.ListedOffset) { n += o.Offset })
			start.Each(func(o kadm.ListedOffset) { n -= o.Offset })
			if n != 9 {
				return fmt.Errorf("%s holds %d records, want 9", a, n)
			}
			return nil
		}},
		{"OffsetForLeaderEpoch", func(ctx context.Context) error {
			var req kadm.OffsetForLeaderEpochRequest
			for p := int32(0); p < 3; p++ {
				req.Add(a, p, 0)
			}
			_, err := r.adm.OffsetForLeaderEpoch(ctx, req)
			return err
		}},
		{"DeleteRecords", func(ctx context.Context) error {
			var os kadm.Offsets
			os.AddOffset(a, 0, 1, -1)
			res, err := r.adm.DeleteRecords(ctx, os)
			if err != nil {
				return err
			}
			return r.check("DeleteRecords result", res.Error())
		}},
		{"CreateAcls", func(ctx context.Context) error {
			res, err := r.adm.CreateACLs(ctx, aclBuilder(a))
			if err != nil {
				return err
			}
			for _, x := range res {
				if err := r.check("CreateAcls result", x.Err); err != nil {
					return err
				}
			}
			return nil
		}},
		{"DescribeAcls", func(ctx context.Context) error {
			res, err := r.adm.DescribeACLs(ctx, aclBuilder(a))
			if err != nil {
				return err
			}
			n := 0
			for _, x := range res {
				if err := r.check("DescribeAcls result", x.Err); err != nil {
					return err
				}
				n += len(x.Described)
			}
			r.logf("DescribeAcls: %d ACLs", n)
			return nil
		}},
		{"DeleteAcls", func(ctx context.Context) error {
			res, err := r.adm.DeleteACLs(ctx, aclBuilder(a))
			if err != nil {
				return err
			}
			for _, x := range res {
				if err := r.check("DeleteAcls result", x.Err); err != nil {
					return err
				}
			}
			return nil
		}},
		{"AlterClientQuotas", func(ctx context.Context) error {
			alice := "alice"
			res, err := r.adm.AlterClientQuotas(ctx, []kadm.AlterClientQuotaEntry{{
				Entity: kadm.ClientQuotaEntity{{Type: "user", Name: &alice}},
				Ops: []kadm.AlterClientQuotaOp{
					{Key: "producer_byte_rate", Value: 1048576},
					{Key: "consumer_byte_rate", Value: 2097152},
				},
			}})
			if err != nil {
				return err
			}
			for _, x := range res {
				if err := r.check("AlterClientQuotas result", x.Err); err != nil {
					return err
				}
			}
			return nil
		}},
		{"DescribeClientQuotas", func(ctx context.Context) error {
			alice := "alice"
			_, err := r.adm.DescribeClientQuotas(ctx, false, []kadm.DescribeClientQuotaComponent{
				{Type: "user", MatchName: &alice, MatchType: kmsg.QuotasMatchTypeExact},
			})
			return err
		}},
		{"AlterUserScramCredentials", func(ctx context.Context) error {
			res, err := r.adm.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{
				{User: "alice", Mechanism: kadm.ScramSha256, Iterations: 8192, Password: "alice-secret"},
				{User: "bob", Mechanism: kadm.ScramSha512, Iterations: 4096, Password: "bob-secret"},
			})
			if err != nil {
				return err
			}
			return r.check("AlterUserScramCredentials result", res.Error())
		}},
		{"DescribeUserScramCredentials", func(ctx context.Context) error {
			_, err := r.adm.DescribeUserSCRAMs(ctx)
			return err
		}},
		{"AlterUserScramCredentials delete", func(ctx context.Context) error {
			res, err := r.adm.AlterUserSCRAMs(ctx, []kadm.DeleteSCRAM{{User: "bob", Mechanism: kadm.ScramSha512}}, nil)
			if err != nil {
				return err
			}
			if err := r.check("AlterUserScramCredentials delete result", res.Error()); err != nil {
				return err
			}
			_, err = r.adm.DescribeUserSCRAMs(ctx, "alice", "bob")
			return err
		}},
		{"DescribeLogDirs and AlterReplicaLogDirs", func(ctx context.Context) error {
			var s kadm.TopicsSet
			s.Add(a, 0, 1, 2)
			dirs, err := r.adm.DescribeAllLogDirs(ctx, s)
			if err != nil {
				return err
			}
			all := dirs.Sorted()
			if len(all) == 0 {
				return errors.New("no log dirs described")
			}
			var alter kadm.AlterReplicaLogDirsReq
			var one kadm.TopicsSet
			one.Add(a, 0)
			alter.Add(all[0].Dir, one)
			res, err := r.adm.AlterAllReplicaLogDirs(ctx, alter)
			if err != nil {
				return err
			}
			res.Each(func(x kadm.AlterReplicaLogDirsResponse) { _ = r.check("AlterReplicaLogDirs result", x.Err) })
			return nil
		}},
		{"ElectLeaders", func(ctx context.Context) error {
			var s kadm.TopicsSet
			s.Add(a, 0, 1, 2)
			_, err := r.adm.ElectLeaders(ctx, kadm.ElectPreferredReplica, s)
			return err
		}},
		{"AlterPartitionReassignments", func(ctx context.Context) error {
			brokers, err := r.adm.ListBrokers(ctx)
			if err != nil {
				return err
			}
			if len(brokers) == 0 {
				return errors.New("no brokers")
			}
			var req kadm.AlterPartitionAssignmentsReq
			req.Assign(a, 0, []int32{brokers[0].NodeID})
			res, err := r.adm.AlterPartitionAssignments(ctx, req)
			if err != nil {
				return err
			}
			return r.check("AlterPartitionReassignments result", res.Error())
		}},
		{"ListPartitionReassignments", func(ctx context.Context) error {
			var s kadm.TopicsSet
			s.Add(a, 0, 1, 2)
			_, err := r.adm.ListPartitionReassignments(ctx, s)
			return err
		}},
		{"DescribeCluster", func(ctx context.Context) error {
			req := kmsg.NewPtrDescribeClusterRequest()
			req.IncludeClusterAuthorizedOperations = true
			resp, err := req.RequestWith(ctx, r.admCl)
			if err != nil {
				return err
			}
			return r.check("DescribeCluster result", codeErr(resp.ErrorCode, resp.ErrorMessage))
		}},
		{"DescribeTopicPartitions", func(ctx context.Context) error {
			// A limit of 2 partitions: the answer for adm-a's 3
			// comes in two pages, the second asked for with the
			// cursor of the first.
			req := kmsg.NewPtrDescribeTopicPartitionsRequest()
			for _, t := range []string{a, b} {
				rt := kmsg.NewDescribeTopicPartitionsRequestTopic()
				rt.Topic = t
				req.Topics = append(req.Topics, rt)
			}
			req.ResponsePartitionLimit = 2
			for range 5 {
				resp, err := req.RequestWith(ctx, r.admCl)
				if err != nil {
					return err
				}
				for _, t := range resp.Topics {
					if err := r.check("DescribeTopicPartitions "+derefStr(t.Topic), codeErr(t.ErrorCode, nil)); err != nil {
						return err
					}
				}
				if resp.NextCursor == nil {
					return nil
				}
				c := kmsg.NewDescribeTopicPartitionsRequestCursor()
				c.Topic = resp.NextCursor.Topic
				c.Partition = resp.NextCursor.Partition
				req.Cursor = &c
			}
			return errors.New("DescribeTopicPartitions: still paging after 5 requests")
		}},
		{"UpdateFeatures validate only", func(ctx context.Context) error {
			res, err := r.adm.UpdateFeatures(ctx, true, kadm.FeatureUpdate{Feature: "group.version", MaxVersionLevel: 1, UpgradeType: 1})
			if err != nil {
				return err
			}
			return r.check("UpdateFeatures result", res.Error())
		}},
		{"DeleteTopics", func(ctx context.Context) error {
			res, err := r.adm.DeleteTopics(ctx, a, b)
			if err != nil {
				return err
			}
			return r.check("DeleteTopics result", res.Error())
		}},
	}
	for _, s := range steps {
		if err := r.step(s.name, s.fn); err != nil {
			return err
		}
	}
	return nil
}

func derefStr(s *string) string {
	if s == nil {
		return "<null>"
	}
	return *s
}

// aclBuilder is an ACL for User:alice to read and describe topic and the
// group adm-group from any host; the same builder filters them.
func aclBuilder(topic string) *kadm.ACLBuilder {
	return kadm.NewACLs().
		Topics(topic).
		Groups("adm-group").
		Allow("User:alice").
		AllowHosts("*").
		Operations(kadm.OpRead, kadm.OpDescribe).
		ResourcePatternType(kadm.ACLPatternLiteral)
}

// idempotent: see the package comment.
func idempotent(r *runner) error {
	codecs := []struct {
		name  string
		codec kgo.CompressionCodec
		id    uint8 // the attributes' codec bits
	}{
		{"none", kgo.NoCompression(), 0},
		{"gzip", kgo.GzipCompression(), 1},
		{"snappy", kgo.SnappyCompression(), 2},
		{"lz4", kgo.Lz4Compression(), 3},
		{"zstd", kgo.ZstdCompression(), 4},
	}
	codecOf := make(map[string]uint8)
	var topics []string
	for _, c := range codecs {
		topics = append(topics, "idem-"+c.name)
	}
	if err := r.createTopics(topics...); err != nil {
		return err
	}
	var want []map[string]bool
	for _, c := range codecs {
		topic := "idem-" + c.name
		// Manual flushing: one batch per partition and round, whose 5
		// records each codec shrinks (kgo sends a batch that does not
		// shrink uncompressed).
		batches := &batchLog{}
		cl, err := r.client("producer-"+c.name, kgo.ProducerBatchCompression(c.codec), kgo.ManualFlushing(), kgo.WithHooks(batches))
		if err != nil {
			return err
		}
		// Two rounds: two batches of 5 records in each partition.
		err = r.produce(cl, topic, 1, 15)
		if err == nil {
			err = r.produce(cl, topic, 16, 30)
		}
		cl.Close()
		if err != nil {
			return err
		}
		if err := batches.check(c.id, 6, 5); err != nil {
			return fmt.Errorf("%s: %w", topic, err)
		}
		want = append(want, keys(topic, 1, 30))
		codecOf[topic] = c.id
	}
	cons, err := r.client("consumer",
		kgo.ConsumeTopics(topics...),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
	)
	if err != nil {
		return err
	}
	defer cons.Close()
	col := newCollector(union(want...))
	// kgo sends a batch uncompressed when compressing does not shrink it:
	// check that every batch came back with its topic's codec.
	col.verify = func(rec *kgo.Record) error {
		if got := rec.Attrs.CompressionType(); got != codecOf[rec.Topic] {
			return fmt.Errorf("%s[%d]@%d: batch codec %d, want %d", rec.Topic, rec.Partition, rec.Offset, got, codecOf[rec.Topic])
		}
		return nil
	}
	p := r.startPolling(col, cons)
	err = r.await("consume", col)
	p.stop()
	return err
}

// batchLog is a kgo hook that logs the batches a producer wrote.
type batchLog struct {
	mu      sync.Mutex
	batches []string
	bad     []string
	codec   []uint8
	records []int
}

func (b *batchLog) OnProduceBatchWritten(_ kgo.BrokerMetadata, topic string, partition int32, m kgo.ProduceBatchMetrics) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.batches = append(b.batches, fmt.Sprintf("%s[%d]: %d records, codec %d, %d bytes from %d", topic, partition, m.NumRecords, m.CompressionType, m.CompressedBytes, m.UncompressedBytes))
	b.codec = append(b.codec, m.CompressionType)
	b.records = append(b.records, m.NumRecords)
}

// check wants n batches of size records each, all with codec.
func (b *batchLog) check(codec uint8, n, size int) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	ok := len(b.batches) == n
	for i := range b.batches {
		ok = ok && b.codec[i] == codec && b.records[i] == size
	}
	if !ok {
		return fmt.Errorf("want %d batches of %d records with codec %d, wrote %s", n, size, codec, strings.Join(b.batches, "; "))
	}
	return nil
}
