package replay

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kdissect/kdissect/client"
	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// testCtx returns a context ending with the test or after 60 s.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// newTarget starts an empty one-broker kfake cluster, as the captures'
// broker was (auto-created topics get 3 partitions), closed with the test.
func newTarget(t testing.TB, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	opts = append([]kfake.Opt{kfake.NumBrokers(1), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(3)}, opts...)
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// requestLog counts the requests a kfake cluster receives, by ApiKey.
type requestLog struct {
	mu   sync.Mutex
	keys map[int16]int
}

func watchRequests(c *kfake.Cluster) *requestLog {
	l := &requestLog{keys: map[int16]int{}}
	c.Control(func(req kmsg.Request) (kmsg.Response, error, bool) {
		l.mu.Lock()
		l.keys[req.Key()]++
		l.mu.Unlock()
		return nil, nil, false
	})
	return l
}

func (l *requestLog) count(key int16) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.keys[key]
}

func (l *requestLog) total() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, c := range l.keys {
		n += c
	}
	return n
}

// loadCapture returns a replay of path with opts: its Run dissects and
// decodes the capture while it replays it.
func loadCapture(t testing.TB, path string, opts Options) *loaded {
	t.Helper()
	r, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return &loaded{r: r, path: path}
}

// loaded is a capture file and the Replayer to replay it with.
type loaded struct {
	r    *Replayer
	path string
}

// Run replays the capture, streaming it from the file into the Replayer.
func (l *loaded) Run(ctx context.Context) (*Report, error) {
	return l.r.Run(ctx, func(add func(*dissect.Exchange) error) error {
		return readCapture(l.path, add)
	})
}

// readCapture dissects and decodes path, handing each exchange to add;
// it stops at add's first error and returns it.
func readCapture(path string, add func(*dissect.Exchange) error) error {
	d := dissect.New(dissect.Options{})
	dec := dissect.NewDecoder(dissect.DecodeOptions{})
	var addErr error
	err := d.ReadFile(path, func(ex *dissect.Exchange) {
		if addErr != nil {
			return
		}
		dec.Decode(ex)
		addErr = add(ex)
	})
	if addErr != nil {
		return addErr
	}
	return err
}

// rec is one record as a consumer sees it.
type rec struct {
	key, value string
	headers    string
}

type topicPartition struct {
	topic     string
	partition int32
}

// producedRecords returns the records of every Produce request in the
// capture whose response says it was appended, per topic-partition in the
// order they were sent (topic IDs resolved to names by the decoder).
func producedRecords(t testing.TB, path string) map[topicPartition][]rec {
	t.Helper()
	out := map[topicPartition][]rec{}
	d := dissect.New(dissect.Options{})
	dec := dissect.NewDecoder(dissect.DecodeOptions{})
	ids := map[codec.UUID]string{}
	if err := d.ReadFile(path, func(ex *dissect.Exchange) {
		dec.Decode(ex)
		for _, tp := range ex.Decoded.Topics {
			if tp.Topic != "" && !tp.TopicID.IsZero() {
				ids[tp.TopicID] = tp.Topic
			}
		}
		if ex.APIKey != 0 || ex.Decoded.Request == nil {
			return
		}
		for _, ref := range ex.Decoded.RecordSets {
			name := ref.Topic
			if name == "" {
				name = ids[ref.TopicID]
			}
			set := ref.Records.DecodeRecords(codec.RecordDecodeOptions{})
			for _, e := range set.Entries {
				if m := e.Message; m != nil {
					msgs := m.Inner
					if len(msgs) == 0 {
						msgs = []codec.LegacyMessage{*m}
					}
					for _, im := range msgs {
						out[topicPartition{name, ref.Partition}] = append(out[topicPartition{name, ref.Partition}], recOf(im.Key, im.Value, ""))
					}
					continue
				}
				if e.Batch == nil || e.Batch.IsControl() {
					continue
				}
				for _, r := range e.Batch.Records {
					out[topicPartition{name, ref.Partition}] = append(out[topicPartition{name, ref.Partition}], recOf(r.Key, r.Value, headersOf(r.Headers)))
				}
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func headersOf(hs []codec.RecordHeader) string {
	var b strings.Builder
	for _, h := range hs {
		fmt.Fprintf(&b, "%s=%s;", h.Key, h.Value)
	}
	return b.String()
}

func recOf(k, v []byte, h string) rec { return rec{string(k), string(v), h} }

// consumeAll reads every record of the topics' partitions from the
// cluster, from the earliest offset to the high watermark.
func consumeAll(t testing.TB, addr string, topics map[string]int32) map[topicPartition][]rec {
	t.Helper()
	return consumeWith(t, addr, topics, client.ConsumerConfig{})
}

// consumeWith reads every record of the topics' partitions from the
// cluster with cfg, from the earliest offset to the latest (the high
// watermark, or the last stable offset under client.ReadCommitted).
func consumeWith(t testing.TB, addr string, topics map[string]int32, cfg client.ConsumerConfig) map[topicPartition][]rec {
	t.Helper()
	ctx := testCtx(t)
	cl, err := client.New(ctx, client.Config{Brokers: []string{addr}})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	cons := client.NewConsumer(cl, cfg)
	out := map[topicPartition][]rec{}
	for topic, n := range topics {
		for p := range n {
			end, err := cons.LatestOffset(ctx, topic, p)
			if err != nil {
				t.Fatalf("%s[%d]: %v", topic, p, err)
			}
			for off := int64(0); off < end; {
				res, err := cons.Fetch(ctx, topic, p, off)
				if err != nil {
					t.Fatalf("%s[%d] at %d: %v", topic, p, off, err)
				}
				for _, m := range res.Messages {
					var hs []codec.RecordHeader
					for _, h := range m.Headers {
						hs = append(hs, codec.RecordHeader{Key: h.Key, Value: h.Value})
					}
					out[topicPartition{topic, p}] = append(out[topicPartition{topic, p}], recOf(m.Key, m.Value, headersOf(hs)))
				}
				if res.NextOffset <= off {
					t.Fatalf("%s[%d]: no progress at offset %d", topic, p, off)
				}
				off = res.NextOffset
			}
		}
	}
	return out
}

// sameRecords fails the test when got and want differ in any partition.
func sameRecords(t testing.TB, got, want map[topicPartition][]rec) {
	t.Helper()
	if len(want) == 0 {
		t.Fatal("the capture produced no records")
	}
	for tp, w := range want {
		g := got[tp]
		if !slices.Equal(g, w) {
			t.Errorf("%s[%d]: %d records on the target, %d produced in the capture; first difference at %d", tp.topic, tp.partition, len(g), len(w), firstDiff(g, w))
		}
	}
	for tp, g := range got {
		if _, ok := want[tp]; !ok && len(g) > 0 {
			t.Errorf("%s[%d]: %d records on the target, none in the capture", tp.topic, tp.partition, len(g))
		}
	}
}

func firstDiff(a, b []rec) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
