package sink

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kdissect/kdissect/client"
	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/internal/testcap"
)

// TestSlowBrokerDrops: while the sink's broker holds every Produce
// (kfake's SleepControl), Add goes on without waiting: the queue fills to
// its bound and what does not fit is dropped and counted; once the
// broker answers again, what was queued is sent, and franz-go's consumer
// reads exactly that many records back.
func TestSlowBrokerDrops(t *testing.T) {
	exs, _ := testcap.Decoded(t, "../../testdata/pcaps/kcat_produce_none.pcap", dissect.DecodeOptions{})
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "exchanges"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	release := make(chan struct{})
	c.ControlKey(0, func(kmsg.Request) (kmsg.Response, error, bool) {
		c.SleepControl(func() { <-release })
		return nil, nil, false // then handled as usual
	})
	ctx := context.Background()
	cl, err := client.New(ctx, client.Config{Brokers: c.ListenAddrs()})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	p, err := client.NewProducer(cl, client.ProducerConfig{Idempotent: true})
	if err != nil {
		t.Fatal(err)
	}
	const queued, adds = 10, 300
	s := New(p, nil, Config{Topic: "exchanges", MaxQueuedRecords: queued, BatchRecords: 1, SendTimeout: 20 * time.Second})
	for i := range adds {
		s.Add(exs[i%len(exs)])
	}
	mid := s.Counts()
	if mid.Added != adds || mid.Dropped < adds-queued-2 || mid.Sent != 0 {
		t.Errorf("with the broker holding the Produce: %+v; want %d added, at least %d dropped, none sent", mid, adds, adds-queued-2)
	}
	close(release)
	end := s.Close(20 * time.Second)
	if end.Failed != 0 || end.TooLarge != 0 || end.Sent+end.Dropped != adds || end.Sent == 0 || end.Sent > queued+2 {
		t.Fatalf("after the broker answered: %+v (first error %v); want sent + dropped = %d, sent at most %d", end, s.Err(), adds, queued+2)
	}

	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumeTopics("exchanges"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer kc.Close()
	var got uint64
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for got < end.Sent && cctx.Err() == nil {
		got += uint64(kc.PollFetches(cctx).NumRecords())
	}
	if got != end.Sent {
		t.Errorf("the topic holds %d records, the sink counted %d sent", got, end.Sent)
	}
}
