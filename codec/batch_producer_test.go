package codec

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"testing"
)

// TestSetBatchProducerGolden rewrites the producer fields of the golden
// control batch and holds the result to bytes made by hand: the golden
// batch with bytes 43-60 replaced and the CRC-32C recomputed by
// hash/crc32 over bytes 21 to the end (Kafka's DefaultRecordBatch).
func TestSetBatchProducerGolden(t *testing.T) {
	p, ok := ReadBatchProducer(goldenControlBatch)
	if !ok || p != (BatchProducer{ProducerId: 4000, ProducerEpoch: 2, BaseSequence: -1, Records: 1}) {
		t.Fatalf("ReadBatchProducer = %+v, %v; want the golden batch's 4000, 2, -1, 1 record", p, ok)
	}
	want := bytes.Clone(goldenControlBatch)
	copy(want[43:], []byte{0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xe2, 0x40}) // ProducerId 123456
	copy(want[51:], []byte{0x00, 0x07})                                     // ProducerEpoch 7
	copy(want[53:], []byte{0x00, 0x00, 0x00, 0x2a})                         // BaseSequence 42
	binary.BigEndian.PutUint32(want[17:], crc32.Checksum(want[21:], crc32.MakeTable(crc32.Castagnoli)))

	got := bytes.Clone(goldenControlBatch)
	if err := SetBatchProducer(got, BatchProducer{ProducerId: 123456, ProducerEpoch: 7, BaseSequence: 42, Records: 99}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("rewritten\n% x\nwant\n% x", got, want)
	}
	b := decodeOneBatch(t, got, RecordDecodeOptions{})
	if !b.CrcValid || b.ProducerId != 123456 || b.ProducerEpoch != 7 || b.BaseSequence != 42 || b.LastOffsetDelta != 0 {
		t.Fatalf("decoded %+v: want a valid CRC, producer 123456 epoch 7 sequence 42, LastOffsetDelta kept", *b)
	}
}

func TestSetBatchProducerRefuses(t *testing.T) {
	legacy := bytes.Clone(goldenControlBatch)
	legacy[16] = 1
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"short", goldenControlBatch[:60]},
		{"magic 1", legacy},
		{"one byte more than BatchLength", append(bytes.Clone(goldenControlBatch), 0)},
		{"one byte less than BatchLength", goldenControlBatch[:len(goldenControlBatch)-1]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := bytes.Clone(tc.b)
			if err := SetBatchProducer(tc.b, BatchProducer{ProducerId: 1}); err == nil {
				t.Fatal("no error")
			}
			if !bytes.Equal(tc.b, before) {
				t.Fatal("the bytes changed")
			}
		})
	}
}

func TestNextRawBatch(t *testing.T) {
	set := append(bytes.Clone(goldenBatchV2), goldenControlBatch...)
	set = append(set, 0, 0, 0) // a partial entry at the end
	var got [][]byte
	rest := set
	for {
		e, r, ok := NextRawBatch(rest)
		if !ok {
			break
		}
		got, rest = append(got, e), r
	}
	if len(got) != 2 || !bytes.Equal(got[0], goldenBatchV2) || !bytes.Equal(got[1], goldenControlBatch) || len(rest) != 3 {
		t.Fatalf("entries %d, rest %d bytes: want the two golden batches and 3 bytes", len(got), len(rest))
	}
	neg := bytes.Clone(goldenControlBatch)
	binary.BigEndian.PutUint32(neg[8:], 0xffffffff)
	if _, _, ok := NextRawBatch(neg); ok {
		t.Error("a negative BatchLength framed an entry")
	}
}
