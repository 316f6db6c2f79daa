package client

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kdissect/kdissect/codec"
)

// TestFetchFromInsideBatch: the broker returns the whole batch holding the
// requested offset; the records before it are dropped.
func TestFetchFromInsideBatch(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.SeedTopics(1, "mid"))
	cl := newClient(t, c, nil)
	ctx := testCtx(t)
	p, _ := NewProducer(cl, ProducerConfig{Compression: codec.CompressionSnappy})
	var recs []Record
	for i := range 10 {
		recs = append(recs, Record{Value: []byte{byte('0' + i)}})
	}
	if _, err := p.Produce(ctx, "mid", 0, recs...); err != nil {
		t.Fatal(err)
	}
	fr, err := NewConsumer(cl, ConsumerConfig{}).Fetch(ctx, "mid", 0, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(fr.Messages) != 5 || fr.Messages[0].Offset != 5 || string(fr.Messages[0].Value) != "5" || fr.NextOffset != 10 {
		t.Errorf("%+v", fr)
	}
}

// TestFetchErrorsAndWait: an offset past the end is OFFSET_OUT_OF_RANGE;
// an empty partition answers after MaxWait with no messages.
func TestFetchErrorsAndWait(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.SeedTopics(1, "w"))
	cl := newClient(t, c, nil)
	ctx := testCtx(t)
	co := NewConsumer(cl, ConsumerConfig{MaxWait: 300 * time.Millisecond})
	start := time.Now()
	fr, err := co.Fetch(ctx, "w", 0, 0)
	if err != nil || len(fr.Messages) != 0 || fr.NextOffset != 0 {
		t.Errorf("%v %+v", err, fr)
	}
	if d := time.Since(start); d < 250*time.Millisecond || d > 3*time.Second {
		t.Errorf("empty fetch took %v, want about MaxWait", d)
	}
	_, err = co.Fetch(ctx, "w", 0, 42)
	var ke *Error
	if !errors.Is(err, ErrOffsetOutOfRange) || !errors.As(err, &ke) || ke.Topic != "w" || ke.Partition != 0 {
		t.Errorf("offset 42: %v", err)
	}
	if _, err := co.Fetch(ctx, "nosuch", 0, 0); !errors.Is(err, ErrUnknownTopicOrPartition) {
		t.Errorf("unknown topic: %v", err)
	}
}

// TestListOffsets: earliest, latest, by timestamp and max timestamp at
// every ListOffsets version kfake serves (v0 through the old-style offset
// list).
func TestListOffsets(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.SeedTopics(1, "lo"))
	ctx := testCtx(t)
	setup := newClient(t, c, nil)
	p, _ := NewProducer(setup, ProducerConfig{})
	t0 := time.UnixMilli(1700000000000)
	for i := range 3 {
		if _, err := p.Produce(ctx, "lo", 0, Record{Value: []byte("x"), Timestamp: t0.Add(time.Duration(i) * time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	for v := int16(0); v <= 10; v++ {
		cl := newClient(t, c, func(cfg *Config) { cfg.MaxVersions = map[int16]int16{2: v} })
		co := NewConsumer(cl, ConsumerConfig{})
		if off, err := co.EarliestOffset(ctx, "lo", 0); err != nil || off != 0 {
			t.Errorf("v%d earliest: %d %v", v, off, err)
		}
		if off, err := co.LatestOffset(ctx, "lo", 0); err != nil || off != 3 {
			t.Errorf("v%d latest: %d %v", v, off, err)
		}
		if v >= 1 {
			if off, err := co.OffsetForTime(ctx, "lo", 0, t0.Add(1500*time.Millisecond)); err != nil || off != 2 {
				t.Errorf("v%d at t0+1.5s: %d %v", v, off, err)
			}
			if off, err := co.OffsetForTime(ctx, "lo", 0, t0.Add(time.Hour)); err != nil || off != -1 {
				t.Errorf("v%d after the last: %d %v", v, off, err)
			}
		}
		if v >= 7 {
			if off, err := co.ListOffset(ctx, "lo", 0, OffsetMaxTimestamp); err != nil || off != 2 {
				t.Errorf("v%d max timestamp: %d %v", v, off, err)
			}
		}
		cl.Close()
	}
}

// TestCommittedOffsets: a simple (standalone) commit through the group's
// coordinator, read back, at every OffsetCommit/OffsetFetch version and
// the FindCoordinator versions kfake serves; -1 before any commit.
func TestCommittedOffsets(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.NumBrokers(3), kfake.SeedTopics(2, "co"))
	ctx := testCtx(t)
	for v := int16(0); v <= 10; v++ {
		cl := newClient(t, c, func(cfg *Config) {
			cfg.MaxVersions = map[int16]int16{8: v, 9: v, 10: min(v, 6)}
		})
		co := NewConsumer(cl, ConsumerConfig{})
		group := "g" + string(rune('a'+v))
		if off, _, err := co.CommittedOffset(ctx, group, "co", 1); err != nil || off != -1 {
			t.Errorf("v%d before commit: %d %v", v, off, err)
		}
		if err := co.CommitOffset(ctx, group, "co", 1, 40+int64(v), "meta"); err != nil {
			t.Fatalf("v%d commit: %v", v, err)
		}
		off, meta, err := co.CommittedOffset(ctx, group, "co", 1)
		if err != nil || off != 40+int64(v) || meta != "meta" {
			t.Errorf("v%d committed: %d %q %v", v, off, meta, err)
		}
		co.mu.Lock()
		addr := co.coordinators[group]
		co.mu.Unlock()
		if addr == "" {
			t.Errorf("v%d: coordinator not cached", v)
		}
		cl.Close()
	}
}

// TestCoordinatorMoves: after the coordinator changes, NOT_COORDINATOR
// makes the consumer find it again and retry.
func TestCoordinatorMoves(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.NumBrokers(3), kfake.SeedTopics(1, "cm"))
	cl := newClient(t, c, func(cfg *Config) { cfg.RetryBackoff = 10 * time.Millisecond })
	ctx := testCtx(t)
	co := NewConsumer(cl, ConsumerConfig{})
	if err := co.CommitOffset(ctx, "grp", "cm", 0, 1, ""); err != nil {
		t.Fatal(err)
	}
	// Point the cache at a broker that is not the coordinator.
	co.mu.Lock()
	wrong := (c.CoordinatorFor("grp") + 1) % 3
	co.mu.Unlock()
	md, _ := cl.Metadata(ctx)
	co.mu.Lock()
	co.coordinators["grp"] = md.Brokers[wrong].Addr()
	co.mu.Unlock()
	if err := co.CommitOffset(ctx, "grp", "cm", 0, 2, ""); err != nil {
		t.Fatal(err)
	}
	if off, _, err := co.CommittedOffset(ctx, "grp", "cm", 0); err != nil || off != 2 {
		t.Errorf("%d %v", off, err)
	}
}

// TestTransactions: with records of a committed and an aborted
// transaction (written by franz-go's transactional producer), a
// read-uncommitted fetch returns both, a read-committed fetch skips the
// aborted ones; control records (the markers) are never returned but
// counted, and NextOffset goes past the last marker.
func TestTransactions(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.SeedTopics(1, "tx"))
	ctx := testCtx(t)
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.TransactionalID("txid"), kgo.DefaultProduceTopic("tx"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer kc.Close()
	txn := func(commit bool, vals ...string) {
		if err := kc.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		for _, v := range vals {
			if err := kc.ProduceSync(ctx, &kgo.Record{Value: []byte(v)}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
		if err := kc.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
			t.Fatal(err)
		}
	}
	txn(true, "c1", "c2")
	txn(false, "a1", "a2", "a3")
	txn(true, "c3")
	cl := newClient(t, c, nil)
	hwm := int64(9) // 6 records and 3 markers
	for _, iso := range []IsolationLevel{ReadUncommitted, ReadCommitted} {
		co := NewConsumer(cl, ConsumerConfig{IsolationLevel: iso, MaxWait: 10 * time.Millisecond})
		var vals []string
		var control, aborted int
		for off := int64(0); off < hwm; {
			fr, err := co.Fetch(ctx, "tx", 0, off)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range fr.Messages {
				vals = append(vals, string(m.Value))
			}
			control += fr.ControlRecords
			aborted += fr.AbortedRecords
			if fr.NextOffset <= off {
				t.Fatalf("no progress at %d", off)
			}
			off = fr.NextOffset
		}
		want := "c1 c2 a1 a2 a3 c3"
		if iso == ReadCommitted {
			want = "c1 c2 c3"
		}
		if got := join(vals); got != want || control != 3 || iso == ReadCommitted && aborted != 3 || iso == ReadUncommitted && aborted != 0 {
			t.Errorf("isolation %d: %q, %d control, %d aborted", iso, got, control, aborted)
		}
	}
}

func join(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += " "
		}
		out += v
	}
	return out
}

// batchBytes encodes a v2 batch of values at base offset.
func batchBytes(base int64, comp codec.Compression, vals ...string) []byte {
	b := codec.RecordBatch{BaseOffset: base, Attributes: int16(comp), LastOffsetDelta: int32(len(vals) - 1), ProducerId: -1, ProducerEpoch: -1, BaseSequence: -1}
	for i, v := range vals {
		b.Records = append(b.Records, codec.Record{OffsetDelta: int32(i), Value: []byte(v)})
	}
	return b.AppendTo(nil)
}

// TestDamagedEntries: a CRC mismatch marks the batch's messages invalid
// with CORRUPT_MESSAGE but still returns them; a compressed payload that
// does not decompress (CRC recomputed so only decompression fails) yields
// one placeholder with ErrCompression whose NextOffset skips the batch; a
// trailing partial batch is counted in PartialBytes; good batches around
// them are untouched.
func TestDamagedEntries(t *testing.T) {
	good1 := batchBytes(0, codec.CompressionNone, "a", "b")
	crcBad := batchBytes(2, codec.CompressionNone, "c", "d")
	crcBad[len(crcBad)-2] ^= 0xff // the last value byte: the CRC no longer matches
	zBad := batchBytes(4, codec.CompressionGzip, "e", "f", "g")
	zBad[61+10] = 0xff // the first deflate block header after the gzip header: reserved type
	binary.BigEndian.PutUint32(zBad[17:], crc32.Checksum(zBad[21:], crc32.MakeTable(crc32.Castagnoli)))
	good2 := batchBytes(7, codec.CompressionNone, "h")
	partial := batchBytes(8, codec.CompressionNone, "i")[:30]
	raw := concat(good1, crcBad, zBad, good2, partial)

	fr := FetchResult{Topic: "d", Partition: 3}
	decodeMessages(&fr, raw, 0, nil, false, codec.RecordDecodeOptions{})
	type want struct {
		off, next int64
		val       string
		valid     bool
		err       *Error
	}
	wants := []want{
		{0, 1, "a", true, nil}, {1, 2, "b", true, nil},
		{2, 3, "c", false, ErrCorruptMessage}, {3, 4, "\x9b", false, ErrCorruptMessage},
		{4, 7, "", false, ErrCompression},
		{7, 8, "h", true, nil},
	}
	if len(fr.Messages) != len(wants) {
		t.Fatalf("%d messages: %+v", len(fr.Messages), fr.Messages)
	}
	for i, w := range wants {
		m := fr.Messages[i]
		if m.Offset != w.off || m.NextOffset != w.next || m.Valid != w.valid {
			t.Errorf("[%d]: offset %d next %d valid %v", i, m.Offset, m.NextOffset, m.Valid)
		}
		if w.err == nil && m.Error != nil || w.err != nil && !errors.Is(m.Error, w.err) {
			t.Errorf("[%d]: error %v, want %v", i, m.Error, w.err)
		}
		if w.valid && string(m.Value) != w.val {
			t.Errorf("[%d]: value %q", i, m.Value)
		}
	}
	if fr.PartialBytes != 30 || fr.NextOffset != 8 {
		t.Errorf("partial %d, next %d", fr.PartialBytes, fr.NextOffset)
	}
	var ke *Error
	if errors.As(fr.Messages[2].Error, &ke); ke == nil || ke.Topic != "d" || ke.Partition != 3 {
		t.Errorf("error context: %v", fr.Messages[2].Error)
	}
}

// TestLegacyMessageSets: message sets v0 and v1, plain and compressed
// (inner offsets relative for magic 1), as old brokers return them, mixed
// with a v2 batch as a partition upgraded in place returns them.
func TestLegacyMessageSets(t *testing.T) {
	ts := int64(1600000000000)
	v0 := codec.AppendMessageSet(nil, 0, codec.CompressionNone, []codec.LegacyMessage{{Offset: 0, Value: []byte("m0")}, {Offset: 1, Key: []byte("k"), Value: []byte("m1")}})
	v0z := codec.AppendMessageSet(nil, 0, codec.CompressionGzip, []codec.LegacyMessage{{Offset: 2, Value: []byte("m2")}, {Offset: 3, Value: []byte("m3")}})
	// A magic-1 wrapper: inner offsets 0, 1 relative, wrapper offset 5.
	v1z := codec.AppendMessageSet(nil, 1, codec.CompressionLZ4, []codec.LegacyMessage{{Offset: 0, Timestamp: ts, Value: []byte("m4")}, {Offset: 1, Timestamp: ts + 1, Value: []byte("m5")}})
	binary.BigEndian.PutUint64(v1z, 5)
	binary.BigEndian.PutUint32(v1z[12:], crc32.ChecksumIEEE(v1z[16:]))
	v1 := codec.AppendMessageSet(nil, 1, codec.CompressionNone, []codec.LegacyMessage{{Offset: 6, Timestamp: ts, Value: []byte("m6")}})
	v2 := batchBytes(7, codec.CompressionZstd, "m7")
	raw := concat(v0, v0z, v1z, v1, v2)
	var fr FetchResult
	decodeMessages(&fr, raw, 1, nil, false, codec.RecordDecodeOptions{})
	var vals []string
	for i, m := range fr.Messages {
		vals = append(vals, string(m.Value))
		if !m.Valid || m.Offset != int64(i+1) {
			t.Errorf("[%d]: %+v", i, m)
		}
	}
	if join(vals) != "m1 m2 m3 m4 m5 m6 m7" || fr.NextOffset != 8 {
		t.Errorf("%v, next %d", vals, fr.NextOffset)
	}
	if m := fr.Messages[3]; m.Magic != 1 || m.Timestamp.UnixMilli() != ts || m.Compression != codec.CompressionLZ4 {
		t.Errorf("magic 1 inner: %+v", m)
	}
	// A flipped byte in a magic-0 message: CRC-32 mismatch.
	bad := append([]byte(nil), v0...)
	bad[len(bad)-1] ^= 1
	fr = FetchResult{}
	decodeMessages(&fr, bad, 0, nil, false, codec.RecordDecodeOptions{})
	if len(fr.Messages) != 2 || !fr.Messages[0].Valid || fr.Messages[1].Valid || !errors.Is(fr.Messages[1].Error, ErrCorruptMessage) {
		t.Errorf("CRC-32: %+v", fr.Messages)
	}
}

func concat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
