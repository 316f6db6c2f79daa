package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kdissect/kdissect/client"
	"github.com/kdissect/kdissect/codec"
)

// Example produces three records with an idempotent, lz4-compressing
// producer and reads them back, against an in-process kfake cluster.
func Example() {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "orders"))
	if err != nil {
		log.Fatal(err)
	}
	defer cluster.Close()
	ctx := context.Background()

	cl, err := client.New(ctx, client.Config{Brokers: cluster.ListenAddrs()})
	if err != nil {
		log.Fatal(err)
	}
	defer cl.Close()

	p, err := client.NewProducer(cl, client.ProducerConfig{Acks: client.AcksAll, Compression: codec.CompressionLZ4, Idempotent: true})
	if err != nil {
		log.Fatal(err)
	}
	res, err := p.Produce(ctx, "orders", 0,
		client.Record{Key: []byte("alice"), Value: []byte("hello")},
		client.Record{Key: []byte("bob"), Value: []byte("world")},
		client.Record{Value: []byte("no key"), Headers: []client.Header{{Key: "trace", Value: []byte("42")}}},
	)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("base offset", res.BaseOffset)

	c := client.NewConsumer(cl, client.ConsumerConfig{})
	first, err := c.EarliestOffset(ctx, "orders", 0) // ListOffsets
	if err != nil {
		log.Fatal(err)
	}
	fr, err := c.Fetch(ctx, "orders", 0, first)
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range fr.Messages {
		fmt.Printf("%d-%d key=%q value=%q headers=%d\n", m.Offset, m.NextOffset, m.Key, m.Value, len(m.Headers))
	}

	// Kafka's errors are one type, matched by errors.Is; a retriable one
	// is retried (4 attempts, 200 ms apart, metadata refreshed) first.
	_, err = c.Fetch(ctx, "orders", 7, 0)
	fmt.Println(errors.Is(err, client.ErrUnknownTopicOrPartition))
	fmt.Println(err)
	// Output:
	// base offset 0
	// 0-1 key="alice" value="hello" headers=0
	// 1-2 key="bob" value="world" headers=0
	// 2-3 key="" value="no key" headers=1
	// true
	// UNKNOWN_TOPIC_OR_PARTITION (code 3) on orders[7]: partitions of the topic: 0 to 0
}
