package client

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kdissect/kdissect/codec"
)

// TestMurmur2: the Java client's own test vectors (UtilsTest.testMurmur2
// in Apache Kafka), and agreement with franz-go's Java-compatible
// partitioner on random keys and partition counts.
func TestMurmur2(t *testing.T) {
	for s, want := range map[string]int32{
		"21":                         -973932308,
		"foobar":                     -790332482,
		"a-little-bit-long-string":   -985981536,
		"a-little-bit-longer-string": -1486304829,
		"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971,
		"abc": 479470107,
	} {
		if got := Murmur2([]byte(s)); got != want {
			t.Errorf("murmur2(%q) = %d, want %d", s, got, want)
		}
	}
	part := kgo.StickyKeyPartitioner(nil).ForTopic("t")
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		key := make([]byte, r.IntN(40))
		for i := range key {
			key[i] = byte(r.UintN(256))
		}
		n := int32(1 + r.IntN(100))
		if got, want := KeyPartition(key, n), part.Partition(&kgo.Record{Key: key}, int(n)); int(got) != want {
			t.Fatalf("key %x, %d partitions: %d, franz-go %d", key, n, got, want)
		}
	}
}

// TestProduceCompressionRoundTrip: records with keys, null keys, null
// values, headers and timestamps, produced with each codec, come back
// byte-exact, with the batch's codec and consecutive offsets.
func TestProduceCompressionRoundTrip(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.SeedTopics(1, "none", "gzip", "snappy", "lz4", "zstd"))
	cl := newClient(t, c, nil)
	ctx := testCtx(t)
	ts := time.UnixMilli(1700000000123)
	recs := []Record{
		{Key: []byte("k1"), Value: []byte("v1"), Headers: []Header{{Key: "h", Value: []byte("x")}, {Key: "null", Value: nil}}, Timestamp: ts},
		{Key: nil, Value: bytes.Repeat([]byte("compressible "), 100), Timestamp: ts.Add(time.Second)},
		{Key: []byte{0, 0xff, '\n'}, Value: nil, Timestamp: ts.Add(-time.Second)},
		{Key: []byte(""), Value: []byte(""), Timestamp: ts},
	}
	for _, comp := range []codec.Compression{codec.CompressionNone, codec.CompressionGzip, codec.CompressionSnappy, codec.CompressionLZ4, codec.CompressionZstd} {
		topic := comp.String()
		p, err := NewProducer(cl, ProducerConfig{Compression: comp})
		if err != nil {
			t.Fatal(err)
		}
		for round := range 2 {
			res, err := p.Produce(ctx, topic, 0, recs...)
			if err != nil {
				t.Fatalf("%s: %v", topic, err)
			}
			if res.BaseOffset != int64(round*len(recs)) || res.Records != len(recs) {
				t.Errorf("%s: %+v", topic, res)
			}
		}
		fr, err := NewConsumer(cl, ConsumerConfig{}).Fetch(ctx, topic, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(fr.Messages) != 2*len(recs) || fr.HighWatermark != int64(2*len(recs)) || fr.NextOffset != int64(2*len(recs)) {
			t.Fatalf("%s: %d messages, hwm %d, next %d", topic, len(fr.Messages), fr.HighWatermark, fr.NextOffset)
		}
		for i, m := range fr.Messages {
			want := recs[i%len(recs)]
			if !m.Valid || m.Error != nil || m.Offset != int64(i) || m.NextOffset != int64(i+1) || m.Compression != comp || m.Magic != 2 {
				t.Errorf("%s[%d]: %+v", topic, i, m)
			}
			if !sameBytes(m.Key, want.Key) || !sameBytes(m.Value, want.Value) || !m.Timestamp.Equal(want.Timestamp) {
				t.Errorf("%s[%d]: key %q value %.20q ts %v, want %q %.20q %v", topic, i, m.Key, m.Value, m.Timestamp, want.Key, want.Value, want.Timestamp)
			}
			if fmt.Sprint(m.Headers) != fmt.Sprint(want.Headers) || len(m.Headers) > 1 && m.Headers[1].Value != nil {
				t.Errorf("%s[%d]: headers %v", topic, i, m.Headers)
			}
		}
	}
}

// sameBytes compares with nil and empty distinct.
func sameBytes(a, b []byte) bool {
	return (a == nil) == (b == nil) && bytes.Equal(a, b)
}

// TestAcks: acks 0 gets no answer (offset -1) yet the record is written;
// acks 1 and all get offsets; an idempotent producer refuses acks 1.
func TestAcks(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.SeedTopics(1, "acks"))
	cl := newClient(t, c, nil)
	ctx := testCtx(t)
	for i, a := range []Acks{AcksNone, AcksLeader, AcksAll, AcksDefault} {
		p, _ := NewProducer(cl, ProducerConfig{Acks: a})
		res, err := p.Produce(ctx, "acks", 0, Record{Value: []byte{byte(i)}})
		if err != nil {
			t.Fatal(err)
		}
		want := int64(i)
		if a == AcksNone {
			want = -1
		}
		if res.BaseOffset != want {
			t.Errorf("acks %d: offset %d, want %d", a, res.BaseOffset, want)
		}
	}
	fr, err := NewConsumer(cl, ConsumerConfig{MaxWait: time.Second}).Fetch(ctx, "acks", 0, 0)
	if err != nil || len(fr.Messages) != 4 || fr.Messages[0].Value[0] != 0 {
		t.Errorf("%v %+v", err, fr)
	}
	if _, err := NewProducer(cl, ProducerConfig{Acks: AcksLeader, Idempotent: true}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("idempotent with acks 1: %v", err)
	}
	if _, err := NewProducer(cl, ProducerConfig{Compression: 9}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("compression 9: %v", err)
	}
}

// TestIdempotentProducer: batches carry the producer id, epoch and
// consecutive sequence numbers per partition, as the broker checks them.
func TestIdempotentProducer(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.NumBrokers(2), kfake.SeedTopics(2, "idem"))
	cl := newClient(t, c, nil)
	ctx := testCtx(t)
	p, _ := NewProducer(cl, ProducerConfig{Idempotent: true, Compression: codec.CompressionLZ4})
	for i := range 5 {
		for part := range int32(2) {
			res, err := p.Produce(ctx, "idem", part, Record{Value: []byte("a")}, Record{Value: []byte("b")})
			if err != nil {
				t.Fatalf("round %d partition %d: %v", i, part, err)
			}
			if res.BaseOffset != int64(2*i) {
				t.Errorf("round %d: offset %d", i, res.BaseOffset)
			}
		}
	}
	fr, err := NewConsumer(cl, ConsumerConfig{}).Fetch(ctx, "idem", 1, 0)
	if err != nil || len(fr.Messages) != 10 {
		t.Fatalf("%v %+v", err, fr)
	}
	if fr.Messages[0].ProducerID < 0 || fr.Messages[0].ProducerID != p.pid {
		t.Errorf("producer id %d, producer has %d", fr.Messages[0].ProducerID, p.pid)
	}
	p.mu.Lock()
	seq := p.seqs[topicPartition{"idem", 1}]
	p.mu.Unlock()
	if seq != 10 {
		t.Errorf("next sequence %d, want 10", seq)
	}
}

// TestProduceByKey: keyed records go where the Java partitioner sends
// them; null keys go round robin.
func TestProduceByKey(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.SeedTopics(5, "keys"))
	cl := newClient(t, c, nil)
	ctx := testCtx(t)
	p, _ := NewProducer(cl, ProducerConfig{})
	var recs []Record
	for i := range 40 {
		recs = append(recs, Record{Key: fmt.Appendf(nil, "key-%d", i), Value: fmt.Appendf(nil, "%d", i)})
	}
	recs = append(recs, Record{Value: []byte("nokey1")}, Record{Value: []byte("nokey2")})
	results, err := p.ProduceByKey(ctx, "keys", recs...)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, r := range results {
		total += r.Records
	}
	if total != len(recs) {
		t.Errorf("results count %d records", total)
	}
	co := NewConsumer(cl, ConsumerConfig{MaxWait: 10 * time.Millisecond})
	nokey := map[int32]bool{}
	for part := range int32(5) {
		fr, err := co.Fetch(ctx, "keys", part, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range fr.Messages {
			if m.Key == nil {
				nokey[part] = true
				continue
			}
			if want := KeyPartition(m.Key, 5); want != part {
				t.Errorf("key %s in partition %d, want %d", m.Key, part, want)
			}
		}
	}
	if len(nokey) != 2 {
		t.Errorf("null keys went to partitions %v, want two different ones", nokey)
	}
	if _, err := p.ProduceByKey(ctx, "nosuchtopic", recs...); !errors.Is(err, ErrUnknownTopicOrPartition) {
		t.Errorf("unknown topic: %v", err)
	}
	if _, err := p.Produce(ctx, "keys", 9, recs[0]); !errors.Is(err, ErrUnknownTopicOrPartition) {
		t.Errorf("partition 9 of 5: %v", err)
	}
}

// TestProduceFetchVersions: every Produce version kfake serves (v3-v13)
// with every codec it allows, read back with Fetch pinned to a range of
// versions (v4-v18), topic names below v13 and topic IDs from it.
func TestProduceFetchVersions(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.SeedTopics(1, "vers"))
	ctx := testCtx(t)
	next := int64(0)
	for pv := int16(3); pv <= 13; pv++ {
		fv := int16(4 + (pv-3)*14/10)
		cl := newClient(t, c, func(cfg *Config) { cfg.MaxVersions = map[int16]int16{0: pv, 1: fv} })
		comp := codec.Compression(int(pv) % 5)
		if comp == codec.CompressionZstd && pv < 7 {
			comp = codec.CompressionGzip
		}
		p, _ := NewProducer(cl, ProducerConfig{Compression: comp})
		res, err := p.Produce(ctx, "vers", 0, Record{Key: []byte{byte(pv)}, Value: []byte("v"), Headers: []Header{{Key: "pv", Value: []byte{byte(pv)}}}})
		if err != nil {
			t.Fatalf("Produce v%d: %v", pv, err)
		}
		if res.BaseOffset != next {
			t.Errorf("Produce v%d: offset %d, want %d", pv, res.BaseOffset, next)
		}
		fr, err := NewConsumer(cl, ConsumerConfig{}).Fetch(ctx, "vers", 0, next)
		if err != nil {
			t.Fatalf("Fetch v%d: %v", fv, err)
		}
		if len(fr.Messages) != 1 || fr.Messages[0].Key[0] != byte(pv) || fr.Messages[0].Headers[0].Value[0] != byte(pv) || fr.Messages[0].Compression != comp {
			t.Errorf("Fetch v%d after Produce v%d: %+v", fv, pv, fr.Messages)
		}
		next++
		cl.Close()
	}
	// zstd needs Produce v7 (KIP-110).
	cl := newClient(t, c, func(cfg *Config) { cfg.MaxVersions = map[int16]int16{0: 6} })
	p, _ := NewProducer(cl, ProducerConfig{Compression: codec.CompressionZstd})
	if _, err := p.Produce(ctx, "vers", 0, Record{Value: []byte("z")}); !errors.Is(err, ErrUnsupportedCompressionType) {
		t.Errorf("zstd at v6: %v", err)
	}
}

// TestEncodeLegacy: below Produce v3 records go as message sets, magic 0
// (v0, v1) or magic 1 with timestamps (v2), compressed in a wrapper;
// headers cannot be carried and idempotence is refused.
func TestEncodeLegacy(t *testing.T) {
	ts := time.UnixMilli(1600000000000)
	recs := []Record{{Key: []byte("a"), Value: []byte("1"), Timestamp: ts}, {Value: []byte("2"), Timestamp: ts}}
	for _, v := range []int16{0, 1, 2} {
		for _, comp := range []codec.Compression{codec.CompressionNone, codec.CompressionGzip, codec.CompressionSnappy, codec.CompressionLZ4} {
			p := &Producer{cfg: ProducerConfig{Compression: comp}}
			raw, err := p.encodeRecords(v, recs, -1, -1, -1)
			if err != nil {
				t.Fatal(err)
			}
			var fr FetchResult
			decodeMessages(&fr, raw, 0, nil, false, codec.RecordDecodeOptions{})
			if len(fr.Messages) != 2 {
				t.Fatalf("v%d %s: %+v", v, comp, fr)
			}
			wantMagic := int8(0)
			if v == 2 {
				wantMagic = 1
			}
			for i, m := range fr.Messages {
				if !m.Valid || m.Magic != wantMagic || m.Compression != comp || m.Offset != int64(i) || string(m.Value) != string(recs[i].Value) || !sameBytes(m.Key, recs[i].Key) {
					t.Errorf("v%d %s [%d]: %+v", v, comp, i, m)
				}
				if wantMagic == 1 && !m.Timestamp.Equal(ts) || wantMagic == 0 && !m.Timestamp.IsZero() {
					t.Errorf("v%d %s: timestamp %v", v, comp, m.Timestamp)
				}
			}
		}
		p := &Producer{cfg: ProducerConfig{}}
		if _, err := p.encodeRecords(v, []Record{{Value: []byte("x"), Headers: []Header{{Key: "h"}}}}, -1, -1, -1); !errors.Is(err, ErrUnsupportedVersion) {
			t.Errorf("headers at v%d: %v", v, err)
		}
		if _, err := p.encodeRecords(v, recs, 5, 0, 0); !errors.Is(err, ErrUnsupportedVersion) {
			t.Errorf("idempotent at v%d: %v", v, err)
		}
	}
}
