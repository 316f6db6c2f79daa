// Golden records fields: entries encoded with franz-go's kmsg record types,
// CRCs computed independently, annotated entry by entry. See golden_test.go.

package codec

// goldenMessageSetProduce is a magic 0 message set of one message, as Produce v0 carries.
var goldenMessageSetProduce = []byte{
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // entry[0] Offset 0
	0x00, 0x00, 0x00, 0x1a, // entry[0] MessageSize 26
	0x9c, 0x1e, 0x34, 0x05, // entry[0] Crc 0x9c1e3405 (CRC-32 of Magic..end)
	0x00,                                                 // entry[0] Magic 0
	0x00,                                                 // entry[0] Attributes 0
	0x00, 0x00, 0x00, 0x06, 'u', 's', 'e', 'r', '-', '1', // entry[0] Key "user-1"
	0x00, 0x00, 0x00, 0x06, 's', 'i', 'g', 'n', 'u', 'p', // entry[0] Value "signup"
}

// goldenMessageSetFetch is a magic 0 message set of two messages at offsets 40 and 41, as Fetch v0 returns.
var goldenMessageSetFetch = []byte{
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x28, // entry[0] Offset 40
	0x00, 0x00, 0x00, 0x13, // entry[0] MessageSize 19
	0x87, 0xa7, 0x7a, 0xb2, // entry[0] Crc 0x87a77ab2 (CRC-32 of Magic..end)
	0x00,                   // entry[0] Magic 0
	0x00,                   // entry[0] Attributes 0
	0xff, 0xff, 0xff, 0xff, // entry[0] Key null (-1)
	0x00, 0x00, 0x00, 0x05, 'h', 'e', 'l', 'l', 'o', // entry[0] Value "hello"
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x29, // entry[1] Offset 41
	0x00, 0x00, 0x00, 0x15, // entry[1] MessageSize 21
	0x96, 0xbf, 0x5b, 0xb6, // entry[1] Crc 0x96bf5bb6 (CRC-32 of Magic..end)
	0x00,                             // entry[1] Magic 0
	0x00,                             // entry[1] Attributes 0
	0x00, 0x00, 0x00, 0x02, 'k', '2', // entry[1] Key "k2"
	0x00, 0x00, 0x00, 0x05, 'w', 'o', 'r', 'l', 'd', // entry[1] Value "world"
}

// goldenRecordBatchProduce is an idempotent v2 record batch of two records, one with a header, as a producer sends it.
var goldenRecordBatchProduce = []byte{
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // entry[0] BaseOffset 0
	0x00, 0x00, 0x00, 0x5a, // entry[0] BatchLength 90 (bytes after this field)
	0xff, 0xff, 0xff, 0xff, // entry[0] PartitionLeaderEpoch -1
	0x02,                   // entry[0] Magic 2 (record batch v2)
	0x22, 0x28, 0xe0, 0xed, // entry[0] Crc 0x2228e0ed (CRC-32C of Attributes..end)
	0x00, 0x00, // entry[0] Attributes 0x0000 (no compression, CreateTime)
	0x00, 0x00, 0x00, 0x01, // entry[0] LastOffsetDelta 1
	0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00, // entry[0] BaseTimestamp 1700000000000
	0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x05, // entry[0] MaxTimestamp 1700000000005
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0f, 0xa0, // entry[0] ProducerId 4000
	0x00, 0x01, // entry[0] ProducerEpoch 1
	0x00, 0x00, 0x00, 0x0a, // entry[0] BaseSequence 10
	0x00, 0x00, 0x00, 0x02, // entry[0] RecordCount 2
	0x38,                               // entry[0] record[0] Length 28 (varint)
	0x00,                               // entry[0] record[0] Attributes 0
	0x00,                               // entry[0] record[0] TimestampDelta 0 (varint)
	0x00,                               // entry[0] record[0] OffsetDelta 0 (varint)
	0x0c, 'u', 's', 'e', 'r', '-', '1', // entry[0] record[0] Key "user-1" (varint length)
	0x0c, 's', 'i', 'g', 'n', 'u', 'p', // entry[0] record[0] Value "signup" (varint length)
	0x02,                          // entry[0] record[0] Headers: 1 (varint)
	0x0a, 't', 'r', 'a', 'c', 'e', // entry[0] record[0] header[0] Key "trace" (varint length)
	0x06, 'a', 'b', 'c', // entry[0] record[0] header[0] Value "abc" (varint length)
	0x16,                          // entry[0] record[1] Length 11 (varint)
	0x00,                          // entry[0] record[1] Attributes 0
	0x0a,                          // entry[0] record[1] TimestampDelta 5 (varint)
	0x02,                          // entry[0] record[1] OffsetDelta 1 (varint)
	0x01,                          // entry[0] record[1] Key null (varint -1)
	0x0a, 'l', 'o', 'g', 'i', 'n', // entry[0] record[1] Value "login" (varint length)
	0x00, // entry[0] record[1] Headers: 0 (varint)
}

// goldenRecordBatchFetch is a transactional v2 record batch at offset 100 with a null value and a null header value, as a broker returns it.
var goldenRecordBatchFetch = []byte{
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x64, // entry[0] BaseOffset 100
	0x00, 0x00, 0x00, 0x48, // entry[0] BatchLength 72 (bytes after this field)
	0x00, 0x00, 0x00, 0x05, // entry[0] PartitionLeaderEpoch 5
	0x02,                   // entry[0] Magic 2 (record batch v2)
	0xf4, 0x1e, 0xf6, 0x8d, // entry[0] Crc 0xf41ef68d (CRC-32C of Attributes..end)
	0x00, 0x10, // entry[0] Attributes 0x0010 (no compression, CreateTime, transactional)
	0x00, 0x00, 0x00, 0x01, // entry[0] LastOffsetDelta 1
	0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x6b, 0xe8, // entry[0] BaseTimestamp 1700000001000
	0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x6b, 0xea, // entry[0] MaxTimestamp 1700000001002
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x23, 0x28, // entry[0] ProducerId 9000
	0x00, 0x02, // entry[0] ProducerEpoch 2
	0x00, 0x00, 0x00, 0x00, // entry[0] BaseSequence 0
	0x00, 0x00, 0x00, 0x02, // entry[0] RecordCount 2
	0x14,           // entry[0] record[0] Length 10 (varint)
	0x00,           // entry[0] record[0] Attributes 0
	0x00,           // entry[0] record[0] TimestampDelta 0 (varint)
	0x00,           // entry[0] record[0] OffsetDelta 0 (varint)
	0x04, 'k', '1', // entry[0] record[0] Key "k1" (varint length)
	0x04, 'v', '1', // entry[0] record[0] Value "v1" (varint length)
	0x00,           // entry[0] record[0] Headers: 0 (varint)
	0x16,           // entry[0] record[1] Length 11 (varint)
	0x00,           // entry[0] record[1] Attributes 0
	0x04,           // entry[0] record[1] TimestampDelta 2 (varint)
	0x02,           // entry[0] record[1] OffsetDelta 1 (varint)
	0x04, 'k', '2', // entry[0] record[1] Key "k2" (varint length)
	0x01,      // entry[0] record[1] Value null (varint -1)
	0x02,      // entry[0] record[1] Headers: 1 (varint)
	0x02, 'h', // entry[0] record[1] header[0] Key "h" (varint length)
	0x01, // entry[0] record[1] header[0] Value null (varint -1)
}

// goldenRecordBatchProduceTxnA is a transactional v2 record batch of two records, one with a header, as a transactional producer sends it.
var goldenRecordBatchProduceTxnA = []byte{
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // entry[0] BaseOffset 0
	0x00, 0x00, 0x00, 0x70, // entry[0] BatchLength 112 (bytes after this field)
	0xff, 0xff, 0xff, 0xff, // entry[0] PartitionLeaderEpoch -1
	0x02,                   // entry[0] Magic 2 (record batch v2)
	0xbf, 0x1f, 0x50, 0x0e, // entry[0] Crc 0xbf1f500e (CRC-32C of Attributes..end)
	0x00, 0x10, // entry[0] Attributes 0x0010 (no compression, CreateTime, transactional)
	0x00, 0x00, 0x00, 0x01, // entry[0] LastOffsetDelta 1
	0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x6f, 0xd0, // entry[0] BaseTimestamp 1700000002000
	0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x6f, 0xd3, // entry[0] MaxTimestamp 1700000002003
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0f, 0xa1, // entry[0] ProducerId 4001
	0x00, 0x03, // entry[0] ProducerEpoch 3
	0x00, 0x00, 0x00, 0x2a, // entry[0] BaseSequence 42
	0x00, 0x00, 0x00, 0x02, // entry[0] RecordCount 2
	0x48,                                                   // entry[0] record[0] Length 36 (varint)
	0x00,                                                   // entry[0] record[0] Attributes 0
	0x00,                                                   // entry[0] record[0] TimestampDelta 0 (varint)
	0x00,                                                   // entry[0] record[0] OffsetDelta 0 (varint)
	0x14, 'o', 'r', 'd', 'e', 'r', '-', '1', '0', '0', '1', // entry[0] record[0] Key "order-1001" (varint length)
	0x12, '{', '"', 'q', 't', 'y', '"', ':', '2', '}', // entry[0] record[0] Value "{\"qty\":2}" (varint length)
	0x02,                               // entry[0] record[0] Headers: 1 (varint)
	0x0c, 's', 'o', 'u', 'r', 'c', 'e', // entry[0] record[0] header[0] Key "source" (varint length)
	0x06, 'w', 'e', 'b', // entry[0] record[0] header[0] Value "web" (varint length)
	0x32,                                                   // entry[0] record[1] Length 25 (varint)
	0x00,                                                   // entry[0] record[1] Attributes 0
	0x06,                                                   // entry[0] record[1] TimestampDelta 3 (varint)
	0x02,                                                   // entry[0] record[1] OffsetDelta 1 (varint)
	0x14, 'o', 'r', 'd', 'e', 'r', '-', '1', '0', '0', '2', // entry[0] record[1] Key "order-1002" (varint length)
	0x12, '{', '"', 'q', 't', 'y', '"', ':', '1', '}', // entry[0] record[1] Value "{\"qty\":1}" (varint length)
	0x00, // entry[0] record[1] Headers: 0 (varint)
}

// goldenRecordBatchProduceTxnB is a transactional v2 record batch of one record with a null key, from the same producer.
var goldenRecordBatchProduceTxnB = []byte{
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // entry[0] BaseOffset 0
	0x00, 0x00, 0x00, 0x3e, // entry[0] BatchLength 62 (bytes after this field)
	0xff, 0xff, 0xff, 0xff, // entry[0] PartitionLeaderEpoch -1
	0x02,                   // entry[0] Magic 2 (record batch v2)
	0x53, 0x66, 0xff, 0x87, // entry[0] Crc 0x5366ff87 (CRC-32C of Attributes..end)
	0x00, 0x10, // entry[0] Attributes 0x0010 (no compression, CreateTime, transactional)
	0x00, 0x00, 0x00, 0x00, // entry[0] LastOffsetDelta 0
	0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x6f, 0xd1, // entry[0] BaseTimestamp 1700000002001
	0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x6f, 0xd1, // entry[0] MaxTimestamp 1700000002001
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0f, 0xa1, // entry[0] ProducerId 4001
	0x00, 0x03, // entry[0] ProducerEpoch 3
	0x00, 0x00, 0x00, 0x11, // entry[0] BaseSequence 17
	0x00, 0x00, 0x00, 0x01, // entry[0] RecordCount 1
	0x18,                               // entry[0] record[0] Length 12 (varint)
	0x00,                               // entry[0] record[0] Attributes 0
	0x00,                               // entry[0] record[0] TimestampDelta 0 (varint)
	0x00,                               // entry[0] record[0] OffsetDelta 0 (varint)
	0x01,                               // entry[0] record[0] Key null (varint -1)
	0x0c, 'o', 'r', 'p', 'h', 'a', 'n', // entry[0] record[0] Value "orphan" (varint length)
	0x00, // entry[0] record[0] Headers: 0 (varint)
}

// goldenRecordBatchProduceTxnC is a transactional v2 record batch of one record, from the same producer.
var goldenRecordBatchProduceTxnC = []byte{
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // entry[0] BaseOffset 0
	0x00, 0x00, 0x00, 0x4b, // entry[0] BatchLength 75 (bytes after this field)
	0xff, 0xff, 0xff, 0xff, // entry[0] PartitionLeaderEpoch -1
	0x02,                   // entry[0] Magic 2 (record batch v2)
	0xc9, 0x46, 0x12, 0xb9, // entry[0] Crc 0xc94612b9 (CRC-32C of Attributes..end)
	0x00, 0x10, // entry[0] Attributes 0x0010 (no compression, CreateTime, transactional)
	0x00, 0x00, 0x00, 0x00, // entry[0] LastOffsetDelta 0
	0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x6f, 0xd2, // entry[0] BaseTimestamp 1700000002002
	0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x6f, 0xd2, // entry[0] MaxTimestamp 1700000002002
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0f, 0xa1, // entry[0] ProducerId 4001
	0x00, 0x03, // entry[0] ProducerEpoch 3
	0x00, 0x00, 0x00, 0x08, // entry[0] BaseSequence 8
	0x00, 0x00, 0x00, 0x01, // entry[0] RecordCount 1
	0x32,                                                   // entry[0] record[0] Length 25 (varint)
	0x00,                                                   // entry[0] record[0] Attributes 0
	0x00,                                                   // entry[0] record[0] TimestampDelta 0 (varint)
	0x00,                                                   // entry[0] record[0] OffsetDelta 0 (varint)
	0x14, 'o', 'r', 'd', 'e', 'r', '-', '1', '0', '0', '3', // entry[0] record[0] Key "order-1003" (varint length)
	0x12, '{', '"', 'q', 't', 'y', '"', ':', '5', '}', // entry[0] record[0] Value "{\"qty\":5}" (varint length)
	0x00, // entry[0] record[0] Headers: 0 (varint)
}
