package replay

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kdissect/kdissect/codec"
)

// produceMagic returns the record format Produce version v carries:
// record batches v2 (magic 2) from v3 on, message sets with timestamps
// (magic 1) at v2, message sets of magic 0 at v0 and v1. A broker
// refuses the other format (CORRUPT_MESSAGE, INVALID_RECORD).
func produceMagic(v int16) int8 {
	switch {
	case v >= 3:
		return 2
	case v == 2:
		return 1
	}
	return 0
}

// Paths of the record fields a conversion of format can lose, as
// lostFields writes paths (Kafka's field names).
const (
	lostRecordHeaders     = "TopicData.PartitionData.Records.Headers"
	lostRecordTimestamp   = "TopicData.PartitionData.Records.Timestamp"
	lostRecordCompression = "TopicData.PartitionData.Records.Compression"
)

// convertProduceRecords rewrites, in place, the records of every
// partition of p that are in another format than Produce version v
// carries (see produceMagic): message sets become one record batch v2
// (Produce v3+ takes exactly one batch per partition), record batches
// become message sets of magic 1 (v2) or 0 (v0, v1). Keys, values,
// their order, timestamps (magic 0 has none: -1 in a batch) and the
// compression codec are kept; zstd, which message sets cannot carry, is
// sent uncompressed. It returns the fields the conversion lost (paths
// as lostFields writes them: record headers, timestamps, the codec),
// sorted, and whether it converted anything.
//
// Errors: a batch that is idempotent, transactional or holds control
// records cannot be represented as a message set (they have no producer
// id, epoch or sequence); a records field that does not decode cleanly
// (CRC mismatch, truncated entry, unknown codec) is not converted; nor
// is one mixing both formats.
func convertProduceRecords(p *codec.ProduceRequest, v int16) (lost []string, converted bool, err error) {
	want := produceMagic(v)
	for ti := range p.TopicData {
		td := &p.TopicData[ti]
		for pi := range td.PartitionData {
			pd := &td.PartitionData[pi]
			if len(pd.Records.Raw) == 0 {
				continue
			}
			out, l, err := convertRecords(pd.Records.Raw, want)
			if err != nil {
				name := td.Name
				if name == "" {
					name = td.TopicId.String()
				}
				return nil, false, fmt.Errorf("%s[%d]: Produce v%d: %w", name, pd.Index, v, err)
			}
			if out != nil {
				pd.Records = codec.Records{Raw: out}
				converted = true
				lost = append(lost, l...)
			}
		}
	}
	slices.Sort(lost)
	return slices.Compact(lost), converted, nil
}

// convertRecords returns raw (one partition's records) in the format of
// magic want (0, 1 or 2), with the fields lost; out nil when raw is in
// that format already.
func convertRecords(raw []byte, want int8) (out []byte, lost []string, err error) {
	set := codec.DecodeRecordSet(raw, codec.RecordDecodeOptions{})
	var batches, messages int
	for _, e := range set.Entries {
		if e.Batch != nil {
			batches++
		} else {
			messages++
		}
	}
	needed := want == 2 && messages > 0 || want < 2 && batches > 0
	if !needed {
		return nil, nil, nil
	}
	if len(set.Notes) > 0 || set.PartialBytes > 0 {
		return nil, nil, fmt.Errorf("records cannot be converted to magic %d: they do not decode cleanly: %s", want, strings.Join(set.Notes, "; "))
	}
	if batches > 0 && messages > 0 {
		return nil, nil, fmt.Errorf("records cannot be converted to magic %d: they mix message sets and record batches", want)
	}
	if want == 2 {
		return messagesToBatch(set.Entries), nil, nil
	}
	return batchesToMessages(set.Entries, want)
}

// messagesToBatch returns the messages of entries (the inner messages
// of compressed wrappers in their place) as one record batch v2,
// compressed with the codec of the first compressed wrapper, without a
// producer id.
func messagesToBatch(entries []codec.RecordEntry) []byte {
	var msgs []*codec.LegacyMessage
	comp := codec.CompressionNone
	for _, e := range entries {
		m := e.Message
		if c := m.Compression(); c != codec.CompressionNone {
			if comp == codec.CompressionNone {
				comp = c
			}
			for i := range m.Inner {
				msgs = append(msgs, &m.Inner[i])
			}
			continue
		}
		msgs = append(msgs, m)
	}
	ts := func(m *codec.LegacyMessage) int64 {
		if m.Magic == 0 {
			return -1 // NO_TIMESTAMP, as Kafka up-converts magic 0
		}
		return m.Timestamp
	}
	b := codec.RecordBatch{PartitionLeaderEpoch: -1, Attributes: int16(comp), ProducerId: -1, ProducerEpoch: -1, BaseSequence: -1}
	if len(msgs) > 0 {
		b.BaseTimestamp = ts(msgs[0])
		b.MaxTimestamp = b.BaseTimestamp
		b.LastOffsetDelta = int32(len(msgs) - 1)
	}
	for i, m := range msgs {
		t := ts(m)
		b.MaxTimestamp = max(b.MaxTimestamp, t)
		b.Records = append(b.Records, codec.Record{TimestampDelta: t - b.BaseTimestamp, OffsetDelta: int32(i), Key: m.Key, Value: m.Value})
	}
	return b.AppendTo(nil)
}

// batchesToMessages returns the records of the batches of entries as a
// message set of magic (0 or 1): one group of messages per batch,
// compressed into one wrapper as the batch was compressed.
func batchesToMessages(entries []codec.RecordEntry, magic int8) (out []byte, lost []string, err error) {
	for _, e := range entries {
		b := e.Batch
		switch {
		case b.IsControl():
			return nil, nil, fmt.Errorf("a record batch of control records cannot be represented as a message set (magic %d)", magic)
		case b.IsTransactional() || b.ProducerId >= 0:
			return nil, nil, fmt.Errorf("an idempotent or transactional record batch (producer id %d, epoch %d, base sequence %d) cannot be represented as a message set (magic %d): message sets carry no producer id, epoch or sequence", b.ProducerId, b.ProducerEpoch, b.BaseSequence, magic)
		}
		comp := b.Compression()
		if comp == codec.CompressionZstd || !comp.Valid() {
			comp = codec.CompressionNone
			lost = append(lost, lostRecordCompression)
		}
		msgs := make([]codec.LegacyMessage, 0, len(b.Records))
		for i := range b.Records {
			r := &b.Records[i]
			if len(r.Headers) > 0 {
				lost = append(lost, lostRecordHeaders)
			}
			if magic == 0 && r.Timestamp >= 0 {
				lost = append(lost, lostRecordTimestamp)
			}
			msgs = append(msgs, codec.LegacyMessage{Offset: int64(i), Timestamp: r.Timestamp, Key: r.Key, Value: r.Value})
		}
		out = codec.AppendMessageSet(out, magic, comp, msgs)
	}
	if out == nil {
		out = []byte{} // batches without records: an empty, not a null, field
	}
	return out, lost, nil
}
