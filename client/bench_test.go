package client

import (
	"context"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Throughput against kfake, kdissect's client beside franz-go's kgo on the
// same broker in the same run, like for like: one partition, acks from the
// leader, not idempotent, no compression, 100-byte values.
//
//	go test ./client -run '^$' -bench . -benchtime 2s

const (
	benchBatch     = 100 // records per produce call
	benchValueSize = 100
	benchFetchRecs = 20000 // records each fetch op reads
)

func benchValue() []byte {
	v := make([]byte, benchValueSize)
	for i := range v {
		v[i] = byte('a' + i%26)
	}
	return v
}

func report(b *testing.B, records int) {
	s := b.Elapsed().Seconds()
	if s <= 0 {
		return
	}
	b.ReportMetric(float64(records)/s, "records/s")
	b.ReportMetric(float64(records*benchValueSize)/s/1e6, "MB/s")
}

func BenchmarkProduce(b *testing.B) {
	c := newCluster(b, kfake.SeedTopics(1, "bench"), kfake.BlackholeProduce())
	ctx := context.Background()
	val := benchValue()
	b.Run("kdissect", func(b *testing.B) {
		cl := newClient(b, c, nil)
		p, _ := NewProducer(cl, ProducerConfig{Acks: AcksLeader})
		recs := make([]Record, benchBatch)
		for i := range recs {
			recs[i] = Record{Value: val}
		}
		b.ResetTimer()
		for b.Loop() {
			if _, err := p.Produce(ctx, "bench", 0, recs...); err != nil {
				b.Fatal(err)
			}
		}
		report(b, b.N*benchBatch)
	})
	b.Run("franz-go", func(b *testing.B) {
		kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("bench"),
			kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.RequiredAcks(kgo.LeaderAck()),
			kgo.DisableIdempotentWrite(), kgo.ProducerLinger(0), kgo.ProducerBatchCompression(kgo.NoCompression()))
		if err != nil {
			b.Fatal(err)
		}
		defer kc.Close()
		recs := make([]*kgo.Record, benchBatch)
		b.ResetTimer()
		for b.Loop() {
			for i := range recs {
				recs[i] = &kgo.Record{Value: val}
			}
			if err := kc.ProduceSync(ctx, recs...).FirstErr(); err != nil {
				b.Fatal(err)
			}
		}
		report(b, b.N*benchBatch)
	})
}

func BenchmarkFetch(b *testing.B) {
	c := newCluster(b, kfake.SeedTopics(1, "bench"))
	ctx := context.Background()
	val := benchValue()
	setup := newClient(b, c, nil)
	p, _ := NewProducer(setup, ProducerConfig{})
	recs := make([]Record, 500)
	for i := range recs {
		recs[i] = Record{Value: val}
	}
	for range benchFetchRecs / len(recs) {
		if _, err := p.Produce(ctx, "bench", 0, recs...); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("kdissect", func(b *testing.B) {
		cl := newClient(b, c, nil)
		co := NewConsumer(cl, ConsumerConfig{MaxBytes: 1 << 20})
		b.ResetTimer()
		for b.Loop() {
			n := 0
			for off := int64(0); off < benchFetchRecs; {
				fr, err := co.Fetch(ctx, "bench", 0, off)
				if err != nil {
					b.Fatal(err)
				}
				n += len(fr.Messages)
				off = fr.NextOffset
			}
			if n != benchFetchRecs {
				b.Fatalf("fetched %d records", n)
			}
		}
		report(b, b.N*benchFetchRecs)
	})
	b.Run("franz-go", func(b *testing.B) {
		kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...),
			kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{"bench": {0: kgo.NewOffset().AtStart()}}),
			kgo.FetchMaxPartitionBytes(1<<20), kgo.FetchMaxBytes(1<<20))
		if err != nil {
			b.Fatal(err)
		}
		defer kc.Close()
		b.ResetTimer()
		for b.Loop() {
			kc.SetOffsets(map[string]map[int32]kgo.EpochOffset{"bench": {0: {Epoch: -1, Offset: 0}}})
			n := 0
			for n < benchFetchRecs {
				fs := kc.PollFetches(ctx)
				if err := fs.Err0(); err != nil {
					b.Fatal(err)
				}
				n += fs.NumRecords()
			}
		}
		report(b, b.N*benchFetchRecs)
	})
}
