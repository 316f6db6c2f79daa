package codec

import "testing"

// TestKmsgDiffFuzzFindings holds what fuzzing from the kmsg seeds
// (kmsg_diff_seeds_test.go) found, as in TestFuzzFindings: each subtest
// must pass the fuzz properties (fuzzFrame).
//
// A nullable struct (ConsumerGroupHeartbeatResponse.Assignment,
// DescribeTopicPartitions Cursor and NextCursor, ShareGroupHeartbeat
// Assignment, ...) is preceded by a marker byte. Kafka writes -1 for null
// and 1 for a struct, and reads any negative marker as null and any other as
// a struct (MessageDataGenerator: "if (_readable.readByte() < 0)"). The
// decoder reads it the same way (generated "r.Int8() < 0") but without a
// warning, so a frame with another marker is fully accepted and re-encodes
// with -1 or 1 instead (found by FuzzDecodeResponse; crasher in
// testdata/fuzz/FuzzDecodeResponse/crasher-nullable-struct-marker). The
// marker should be a warning, like a boolean byte other than 0 or 1.
func TestKmsgDiffFuzzFindings(t *testing.T) {
	consumerGroupHeartbeatV0 := func(marker byte, assignment ...byte) []byte {
		frame := append(fuzzResponseHeader(68, 0),
			0x00, 0x00, 0x00, 0x00, // ThrottleTimeMs 0
			0x00, 0x00, // ErrorCode 0
			0x00,                   // ErrorMessage null
			0x00,                   // MemberId null
			0x00, 0x00, 0x00, 0x01, // MemberEpoch 1
			0x00, 0x00, 0x13, 0x88, // HeartbeatIntervalMs 5000
			marker, // Assignment marker
		)
		frame = append(frame, assignment...)
		return append(frame, 0x00) // body tagged fields: none
	}

	// Marker -121: null for Kafka, re-encoded as -1.
	t.Run("NullableStructMarkerNegative", func(t *testing.T) {
		fuzzCheckFrame(t, consumerGroupHeartbeatV0(0x87), 68, 0, true)
	})

	// Marker 0: a struct for Kafka, re-encoded with marker 1.
	t.Run("NullableStructMarkerZero", func(t *testing.T) {
		fuzzCheckFrame(t, consumerGroupHeartbeatV0(0x00,
			0x01, // Assignment.TopicPartitions: 0 elements
			0x00, // Assignment tagged fields: none
		), 68, 0, true)
	})

	// The same in a request: DescribeTopicPartitions v0 Cursor, marker 2.
	t.Run("NullableStructMarkerRequest", func(t *testing.T) {
		frame := append(fuzzRequestHeader(75, 0),
			0x01,                   // Topics: 0 elements
			0x00, 0x00, 0x07, 0xd0, // ResponsePartitionLimit 2000
			0x02,      // Cursor marker 2: a struct for Kafka
			0x02, 't', // Cursor.TopicName "t"
			0x00, 0x00, 0x00, 0x00, // Cursor.PartitionIndex 0
			0x00, // Cursor tagged fields: none
			0x00, // body tagged fields: none
		)
		fuzzCheckFrame(t, frame, 75, 0, false)
	})
}
