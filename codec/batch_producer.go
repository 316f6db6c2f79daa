package codec

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// Offsets of the v2 batch header fields a producer owns (see RecordBatch
// for the whole layout). The CRC-32C covers Attributes to the end, so
// rewriting any of them means computing it again.
const (
	batchLengthAt        = 8  // BatchLength int32: bytes after this field
	batchCrcAt           = 17 // Crc uint32: CRC-32C of bytes batchCrcStart to the end
	batchLastOffsetDelta = 23 // LastOffsetDelta int32: the batch holds LastOffsetDelta+1 offsets
	batchProducerIDAt    = 43 // ProducerId int64: -1 when the producer is not idempotent
	batchProducerEpochAt = 51 // ProducerEpoch int16: the producer's epoch, bumped by InitProducerId
	batchBaseSequenceAt  = 53 // BaseSequence int32: the first record's sequence, -1 when not idempotent
)

// BatchProducer is what a v2 record batch says of its producer (KIP-98):
// which producer wrote it and where its records fall in that producer's
// sequence of the partition.
type BatchProducer struct {
	// ProducerId is the idempotent or transactional producer's id; -1
	// when the producer is neither.
	ProducerId int64
	// ProducerEpoch is the producer's epoch; -1 with ProducerId -1.
	ProducerEpoch int16
	// BaseSequence is the sequence number of the batch's first record;
	// the records that follow take the next ones. -1 when not idempotent.
	BaseSequence int32
	// Records is how many offsets the batch spans: LastOffsetDelta+1
	// (read only: SetBatchProducer leaves LastOffsetDelta alone).
	Records int32
}

// NextRawBatch splits the first entry off a record set in wire bytes: a
// v2 batch or a legacy message, framed by its 8-byte offset and 4-byte
// size, which both formats share. ok is false when raw does not start
// with a whole entry (fewer than 12 bytes, a negative size, or fewer
// bytes than the size says). ReadBatchProducer tells a v2 batch.
func NextRawBatch(raw []byte) (entry, rest []byte, ok bool) {
	if len(raw) < entryHeaderLen {
		return nil, raw, false
	}
	size := int64(int32(binary.BigEndian.Uint32(raw[batchLengthAt:])))
	if size < 0 || int64(entryHeaderLen)+size > int64(len(raw)) {
		return nil, raw, false
	}
	end := entryHeaderLen + int(size)
	return raw[:end], raw[end:], true
}

// ReadBatchProducer returns the producer fields of the v2 batch at the
// start of b. ok is false when b is shorter than a v2 batch header (61
// bytes) or its magic is not 2.
func ReadBatchProducer(b []byte) (p BatchProducer, ok bool) {
	if len(b) < recordBatchHeaderLen || b[entryMagicAt] != 2 {
		return BatchProducer{}, false
	}
	be := binary.BigEndian
	return BatchProducer{
		ProducerId:    int64(be.Uint64(b[batchProducerIDAt:])),
		ProducerEpoch: int16(be.Uint16(b[batchProducerEpochAt:])),
		BaseSequence:  int32(be.Uint32(b[batchBaseSequenceAt:])),
		Records:       int32(be.Uint32(b[batchLastOffsetDelta:])) + 1,
	}, true
}

// SetBatchProducer writes p's ProducerId, ProducerEpoch and BaseSequence
// (not Records) into the v2 batch b, in place, and sets its CRC-32C to
// the new bytes' (whatever it was before: a batch with a bad CRC gets a
// good one). b must be one whole batch, as NextRawBatch returns it: an
// error says it is not (too short, magic not 2, or BatchLength not its
// length), and then b is unchanged.
func SetBatchProducer(b []byte, p BatchProducer) error {
	if len(b) < recordBatchHeaderLen {
		return fmt.Errorf("record batch of %d bytes: shorter than the %d-byte v2 header", len(b), recordBatchHeaderLen)
	}
	if m := int8(b[entryMagicAt]); m != 2 {
		return fmt.Errorf("record batch magic %d: only v2 batches carry producer fields", m)
	}
	be := binary.BigEndian
	if n := int64(int32(be.Uint32(b[batchLengthAt:]))); n != int64(len(b)-entryHeaderLen) {
		return fmt.Errorf("record batch of %d bytes: its BatchLength %d says %d", len(b), n, n+entryHeaderLen)
	}
	be.PutUint64(b[batchProducerIDAt:], uint64(p.ProducerId))
	be.PutUint16(b[batchProducerEpochAt:], uint16(p.ProducerEpoch))
	be.PutUint32(b[batchBaseSequenceAt:], uint32(p.BaseSequence))
	be.PutUint32(b[batchCrcAt:], crc32.Checksum(b[batchCrcStart:], castagnoli))
	return nil
}
