// Golden OffsetCommit frames: bytes encoded by franz-go's kmsg, annotated field by
// field from Kafka's message definitions. See golden_test.go.
//
// Kafka 4.0's definitions stop at v9. The v10 frames were walked with them plus
// newer Kafka's v10 change (a topic's Name ends at v9, its TopicId takes the
// place from v10), as kmsg v1.15.1 encodes it.

package codec

var goldenOffsetCommitCases = []goldenCase{
	{
		name: "OffsetCommit/v0/request",
		key:  8, version: 0,
		frame: []byte{
			0x00, 0x08, // RequestApiKey 8 (OffsetCommit)
			0x00, 0x00, // RequestApiVersion 0
			0x00, 0x00, 0x00, 0x3d, // CorrelationId 61
			0x00, 0x03, 'c', 'l', 'i', // ClientId "cli" (header ClientId is never compact)
			0x00, 0x08, 'm', 'y', '-', 'g', 'r', 'o', 'u', 'p', // GroupId "my-group"
			0x00, 0x00, 0x00, 0x01, // Topics: 1 element
			0x00, 0x06, 'o', 'r', 'd', 'e', 'r', 's', // Topics[0].Name "orders"
			0x00, 0x00, 0x00, 0x02, // Topics[0].Partitions: 2 elements
			0x00, 0x00, 0x00, 0x00, // Topics[0].Partitions[0].PartitionIndex 0
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2a, // Topics[0].Partitions[0].CommittedOffset 42
			0x00, 0x00, // Topics[0].Partitions[0].CommittedMetadata ""
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions[1].PartitionIndex 1
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x11, // Topics[0].Partitions[1].CommittedOffset 17
			0xff, 0xff, // Topics[0].Partitions[1].CommittedMetadata null (-1)
		},
		reqHeader: &RequestHeader{
			RequestApiKey:     8,
			RequestApiVersion: 0,
			CorrelationId:     61,
			ClientId:          goldenStr("cli"),
		},
		body: &OffsetCommitRequest{
			GroupId:                   "my-group",
			GenerationIdOrMemberEpoch: -1,
			MemberId:                  "",
			GroupInstanceId:           nil,
			RetentionTimeMs:           -1,
			Topics: []OffsetCommitRequestTopic{
				{
					Name: "orders",
					Partitions: []OffsetCommitRequestPartition{
						{
							PartitionIndex:       0,
							CommittedOffset:      42,
							CommittedLeaderEpoch: -1,
							CommitTimestamp:      -1,
							CommittedMetadata:    goldenStr(""),
						},
						{
							PartitionIndex:       1,
							CommittedOffset:      17,
							CommittedLeaderEpoch: -1,
							CommitTimestamp:      -1,
							CommittedMetadata:    nil,
						},
					},
				},
			},
		},
	},
	{
		name: "OffsetCommit/v0/response",
		key:  8, version: 0,
		response: true,
		frame: []byte{
			0x00, 0x00, 0x00, 0x3d, // CorrelationId 61
			0x00, 0x00, 0x00, 0x01, // Topics: 1 element
			0x00, 0x06, 'o', 'r', 'd', 'e', 'r', 's', // Topics[0].Name "orders"
			0x00, 0x00, 0x00, 0x02, // Topics[0].Partitions: 2 elements
			0x00, 0x00, 0x00, 0x00, // Topics[0].Partitions[0].PartitionIndex 0
			0x00, 0x00, // Topics[0].Partitions[0].ErrorCode 0 (NONE)
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions[1].PartitionIndex 1
			0x00, 0x16, // Topics[0].Partitions[1].ErrorCode 22 (ILLEGAL_GENERATION)
		},
		respHeader: &ResponseHeader{
			CorrelationId: 61,
		},
		body: &OffsetCommitResponse{
			ThrottleTimeMs: 0,
			Topics: []OffsetCommitResponseTopic{
				{
					Name: "orders",
					Partitions: []OffsetCommitResponsePartition{
						{
							PartitionIndex: 0,
							ErrorCode:      0,
						},
						{
							PartitionIndex: 1,
							ErrorCode:      22,
						},
					},
				},
			},
		},
	},
	{
		name: "OffsetCommit/v8/request",
		key:  8, version: 8,
		frame: []byte{
			0x00, 0x08, // RequestApiKey 8 (OffsetCommit)
			0x00, 0x08, // RequestApiVersion 8
			0x00, 0x00, 0x00, 0x3e, // CorrelationId 62
			0x00, 0x0a, 'c', 'o', 'n', 's', 'u', 'm', 'e', 'r', '-', '1', // ClientId "consumer-1" (header ClientId is never compact)
			0x00,                                         // header tagged fields: none
			0x09, 'm', 'y', '-', 'g', 'r', 'o', 'u', 'p', // GroupId "my-group" (compact: length+1)
			0x00, 0x00, 0x00, 0x05, // GenerationIdOrMemberEpoch 5
			0x10, 'c', 'o', 'n', 's', 'u', 'm', 'e', 'r', '-', '1', '-', '4', 'f', '2', 'a', // MemberId "consumer-1-4f2a" (compact: length+1)
			0x00,                               // GroupInstanceId null (compact: 0)
			0x02,                               // Topics: 1 element (compact: count+1)
			0x07, 'o', 'r', 'd', 'e', 'r', 's', // Topics[0].Name "orders" (compact: length+1)
			0x02,                   // Topics[0].Partitions: 1 element (compact: count+1)
			0x00, 0x00, 0x00, 0x00, // Topics[0].Partitions[0].PartitionIndex 0
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2a, // Topics[0].Partitions[0].CommittedOffset 42
			0x00, 0x00, 0x00, 0x07, // Topics[0].Partitions[0].CommittedLeaderEpoch 7
			0x0b, 'c', 'h', 'e', 'c', 'k', 'p', 'o', 'i', 'n', 't', // Topics[0].Partitions[0].CommittedMetadata "checkpoint" (compact: length+1)
			0x00, // Topics[0].Partitions[0] tagged fields: none
			0x00, // Topics[0] tagged fields: none
			0x00, // body tagged fields: none
		},
		reqHeader: &RequestHeader{
			RequestApiKey:     8,
			RequestApiVersion: 8,
			CorrelationId:     62,
			ClientId:          goldenStr("consumer-1"),
		},
		body: &OffsetCommitRequest{
			GroupId:                   "my-group",
			GenerationIdOrMemberEpoch: 5,
			MemberId:                  "consumer-1-4f2a",
			GroupInstanceId:           nil,
			RetentionTimeMs:           -1,
			Topics: []OffsetCommitRequestTopic{
				{
					Name: "orders",
					Partitions: []OffsetCommitRequestPartition{
						{
							PartitionIndex:       0,
							CommittedOffset:      42,
							CommittedLeaderEpoch: 7,
							CommitTimestamp:      -1,
							CommittedMetadata:    goldenStr("checkpoint"),
						},
					},
				},
			},
		},
	},
	{
		name: "OffsetCommit/v8/response",
		key:  8, version: 8,
		response: true,
		frame: []byte{
			0x00, 0x00, 0x00, 0x3e, // CorrelationId 62
			0x00,                   // header tagged fields: none
			0x00, 0x00, 0x00, 0x02, // ThrottleTimeMs 2
			0x02,                               // Topics: 1 element (compact: count+1)
			0x07, 'o', 'r', 'd', 'e', 'r', 's', // Topics[0].Name "orders" (compact: length+1)
			0x02,                   // Topics[0].Partitions: 1 element (compact: count+1)
			0x00, 0x00, 0x00, 0x00, // Topics[0].Partitions[0].PartitionIndex 0
			0x00, 0x00, // Topics[0].Partitions[0].ErrorCode 0 (NONE)
			0x00, // Topics[0].Partitions[0] tagged fields: none
			0x00, // Topics[0] tagged fields: none
			0x00, // body tagged fields: none
		},
		respHeader: &ResponseHeader{
			CorrelationId: 62,
		},
		body: &OffsetCommitResponse{
			ThrottleTimeMs: 2,
			Topics: []OffsetCommitResponseTopic{
				{
					Name: "orders",
					Partitions: []OffsetCommitResponsePartition{
						{
							PartitionIndex: 0,
							ErrorCode:      0,
						},
					},
				},
			},
		},
	},
	{
		name: "OffsetCommit/v9/request",
		key:  8, version: 9,
		frame: []byte{
			0x00, 0x08, // RequestApiKey 8 (OffsetCommit)
			0x00, 0x09, // RequestApiVersion 9
			0x00, 0x00, 0x00, 0x3f, // CorrelationId 63
			0x00, 0x0a, 'c', 'o', 'n', 's', 'u', 'm', 'e', 'r', '-', '1', // ClientId "consumer-1" (header ClientId is never compact)
			0x00,                                         // header tagged fields: none
			0x09, 'm', 'y', '-', 'g', 'r', 'o', 'u', 'p', // GroupId "my-group" (compact: length+1)
			0x00, 0x00, 0x00, 0x0c, // GenerationIdOrMemberEpoch 12
			0x0d, 'M', 'x', '3', 'v', 'V', '1', 'p', 'T', 'Q', '8', 'm', 'H', // MemberId "Mx3vV1pTQ8mH" (compact: length+1)
			0x0b, 'i', 'n', 's', 't', 'a', 'n', 'c', 'e', '-', '1', // GroupInstanceId "instance-1" (compact: length+1)
			0x02,                               // Topics: 1 element (compact: count+1)
			0x07, 'o', 'r', 'd', 'e', 'r', 's', // Topics[0].Name "orders" (compact: length+1)
			0x03,                   // Topics[0].Partitions: 2 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x00, // Topics[0].Partitions[0].PartitionIndex 0
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2b, // Topics[0].Partitions[0].CommittedOffset 43
			0x00, 0x00, 0x00, 0x07, // Topics[0].Partitions[0].CommittedLeaderEpoch 7
			0x00,                   // Topics[0].Partitions[0].CommittedMetadata null (compact: 0)
			0x00,                   // Topics[0].Partitions[0] tagged fields: none
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions[1].PartitionIndex 1
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x12, // Topics[0].Partitions[1].CommittedOffset 18
			0x00, 0x00, 0x00, 0x07, // Topics[0].Partitions[1].CommittedLeaderEpoch 7
			0x01, // Topics[0].Partitions[1].CommittedMetadata "" (compact: length+1)
			0x00, // Topics[0].Partitions[1] tagged fields: none
			0x00, // Topics[0] tagged fields: none
			0x00, // body tagged fields: none
		},
		reqHeader: &RequestHeader{
			RequestApiKey:     8,
			RequestApiVersion: 9,
			CorrelationId:     63,
			ClientId:          goldenStr("consumer-1"),
		},
		body: &OffsetCommitRequest{
			GroupId:                   "my-group",
			GenerationIdOrMemberEpoch: 12,
			MemberId:                  "Mx3vV1pTQ8mH",
			GroupInstanceId:           goldenStr("instance-1"),
			RetentionTimeMs:           -1,
			Topics: []OffsetCommitRequestTopic{
				{
					Name: "orders",
					Partitions: []OffsetCommitRequestPartition{
						{
							PartitionIndex:       0,
							CommittedOffset:      43,
							CommittedLeaderEpoch: 7,
							CommitTimestamp:      -1,
							CommittedMetadata:    nil,
						},
						{
							PartitionIndex:       1,
							CommittedOffset:      18,
							CommittedLeaderEpoch: 7,
							CommitTimestamp:      -1,
							CommittedMetadata:    goldenStr(""),
						},
					},
				},
			},
		},
	},
	{
		name: "OffsetCommit/v9/response",
		key:  8, version: 9,
		response: true,
		frame: []byte{
			0x00, 0x00, 0x00, 0x3f, // CorrelationId 63
			0x00,                   // header tagged fields: none
			0x00, 0x00, 0x00, 0x00, // ThrottleTimeMs 0
			0x02,                               // Topics: 1 element (compact: count+1)
			0x07, 'o', 'r', 'd', 'e', 'r', 's', // Topics[0].Name "orders" (compact: length+1)
			0x03,                   // Topics[0].Partitions: 2 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x00, // Topics[0].Partitions[0].PartitionIndex 0
			0x00, 0x00, // Topics[0].Partitions[0].ErrorCode 0 (NONE)
			0x00,                   // Topics[0].Partitions[0] tagged fields: none
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions[1].PartitionIndex 1
			0x00, 0x19, // Topics[0].Partitions[1].ErrorCode 25 (UNKNOWN_MEMBER_ID)
			0x00, // Topics[0].Partitions[1] tagged fields: none
			0x00, // Topics[0] tagged fields: none
			0x00, // body tagged fields: none
		},
		respHeader: &ResponseHeader{
			CorrelationId: 63,
		},
		body: &OffsetCommitResponse{
			ThrottleTimeMs: 0,
			Topics: []OffsetCommitResponseTopic{
				{
					Name: "orders",
					Partitions: []OffsetCommitResponsePartition{
						{
							PartitionIndex: 0,
							ErrorCode:      0,
						},
						{
							PartitionIndex: 1,
							ErrorCode:      25,
						},
					},
				},
			},
		},
	},
	{
		name: "OffsetCommit/v10/request",
		key:  8, version: 10,
		frame: []byte{
			0x00, 0x08, // RequestApiKey 8 (OffsetCommit)
			0x00, 0x0a, // RequestApiVersion 10
			0x00, 0x00, 0x00, 0x40, // CorrelationId 64
			0x00, 0x0a, 'c', 'o', 'n', 's', 'u', 'm', 'e', 'r', '-', '1', // ClientId "consumer-1" (header ClientId is never compact)
			0x01,       // header tagged fields: 1
			0x02, 0x02, // header tag 2, 2 bytes: unknown, kept and re-encoded
			0x6f, 0x6b, // header tag 2 data
			0x09, 'm', 'y', '-', 'g', 'r', 'o', 'u', 'p', // GroupId "my-group" (compact: length+1)
			0x00, 0x00, 0x00, 0x0e, // GenerationIdOrMemberEpoch 14
			0x0d, 'M', 'x', '3', 'v', 'V', '1', 'p', 'T', 'Q', '8', 'm', 'H', // MemberId "Mx3vV1pTQ8mH" (compact: length+1)
			0x0b, 'i', 'n', 's', 't', 'a', 'n', 'c', 'e', '-', '1', // GroupInstanceId "instance-1" (compact: length+1)
			0x03,                                                                                           // Topics: 2 elements (compact: count+1)
			0x6b, 0x1f, 0x3c, 0x52, 0x9e, 0x0a, 0x4d, 0x7b, 0x8c, 0x21, 0x55, 0xe4, 0x0f, 0x93, 0xa6, 0x17, // Topics[0].TopicId 6b1f3c52-9e0a-4d7b-8c21-55e40f93a617
			0x03,                   // Topics[0].Partitions: 2 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x00, // Topics[0].Partitions[0].PartitionIndex 0
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2c, // Topics[0].Partitions[0].CommittedOffset 44
			0x00, 0x00, 0x00, 0x07, // Topics[0].Partitions[0].CommittedLeaderEpoch 7
			0x0b, 'c', 'h', 'e', 'c', 'k', 'p', 'o', 'i', 'n', 't', // Topics[0].Partitions[0].CommittedMetadata "checkpoint" (compact: length+1)
			0x00,                   // Topics[0].Partitions[0] tagged fields: none
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions[1].PartitionIndex 1
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x13, // Topics[0].Partitions[1].CommittedOffset 19
			0x00, 0x00, 0x00, 0x07, // Topics[0].Partitions[1].CommittedLeaderEpoch 7
			0x00,                                                                                           // Topics[0].Partitions[1].CommittedMetadata null (compact: 0)
			0x00,                                                                                           // Topics[0].Partitions[1] tagged fields: none
			0x00,                                                                                           // Topics[0] tagged fields: none
			0x2d, 0x90, 0x11, 0xaf, 0x47, 0x63, 0x4b, 0x08, 0x9a, 0xc5, 0x3e, 0x71, 0xd2, 0x04, 0xb8, 0x6e, // Topics[1].TopicId 2d9011af-4763-4b08-9ac5-3e71d204b86e
			0x02,                   // Topics[1].Partitions: 1 element (compact: count+1)
			0x00, 0x00, 0x00, 0x00, // Topics[1].Partitions[0].PartitionIndex 0
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07, // Topics[1].Partitions[0].CommittedOffset 7
			0x00, 0x00, 0x00, 0x03, // Topics[1].Partitions[0].CommittedLeaderEpoch 3
			0x01, // Topics[1].Partitions[0].CommittedMetadata "" (compact: length+1)
			0x00, // Topics[1].Partitions[0] tagged fields: none
			0x00, // Topics[1] tagged fields: none
			0x00, // body tagged fields: none
		},
		reqHeader: &RequestHeader{
			RequestApiKey:     8,
			RequestApiVersion: 10,
			CorrelationId:     64,
			ClientId:          goldenStr("consumer-1"),
			UnknownTags: []TaggedField{
				{
					Tag:  2,
					Data: []byte{0x6f, 0x6b},
				},
			},
		},
		body: &OffsetCommitRequest{
			GroupId:                   "my-group",
			GenerationIdOrMemberEpoch: 14,
			MemberId:                  "Mx3vV1pTQ8mH",
			GroupInstanceId:           goldenStr("instance-1"),
			RetentionTimeMs:           -1,
			Topics: []OffsetCommitRequestTopic{
				{
					Name:    "",
					TopicId: UUID{0x6b, 0x1f, 0x3c, 0x52, 0x9e, 0x0a, 0x4d, 0x7b, 0x8c, 0x21, 0x55, 0xe4, 0x0f, 0x93, 0xa6, 0x17},
					Partitions: []OffsetCommitRequestPartition{
						{
							PartitionIndex:       0,
							CommittedOffset:      44,
							CommittedLeaderEpoch: 7,
							CommitTimestamp:      -1,
							CommittedMetadata:    goldenStr("checkpoint"),
						},
						{
							PartitionIndex:       1,
							CommittedOffset:      19,
							CommittedLeaderEpoch: 7,
							CommitTimestamp:      -1,
							CommittedMetadata:    nil,
						},
					},
				},
				{
					Name:    "",
					TopicId: UUID{0x2d, 0x90, 0x11, 0xaf, 0x47, 0x63, 0x4b, 0x08, 0x9a, 0xc5, 0x3e, 0x71, 0xd2, 0x04, 0xb8, 0x6e},
					Partitions: []OffsetCommitRequestPartition{
						{
							PartitionIndex:       0,
							CommittedOffset:      7,
							CommittedLeaderEpoch: 3,
							CommitTimestamp:      -1,
							CommittedMetadata:    goldenStr(""),
						},
					},
				},
			},
		},
	},
	{
		name: "OffsetCommit/v10/response",
		key:  8, version: 10,
		response: true,
		frame: []byte{
			0x00, 0x00, 0x00, 0x40, // CorrelationId 64
			0x00,                   // header tagged fields: none
			0x00, 0x00, 0x00, 0x02, // ThrottleTimeMs 2
			0x03,                                                                                           // Topics: 2 elements (compact: count+1)
			0x6b, 0x1f, 0x3c, 0x52, 0x9e, 0x0a, 0x4d, 0x7b, 0x8c, 0x21, 0x55, 0xe4, 0x0f, 0x93, 0xa6, 0x17, // Topics[0].TopicId 6b1f3c52-9e0a-4d7b-8c21-55e40f93a617
			0x03,                   // Topics[0].Partitions: 2 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x00, // Topics[0].Partitions[0].PartitionIndex 0
			0x00, 0x00, // Topics[0].Partitions[0].ErrorCode 0 (NONE)
			0x00,                   // Topics[0].Partitions[0] tagged fields: none
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions[1].PartitionIndex 1
			0x00, 0x00, // Topics[0].Partitions[1].ErrorCode 0 (NONE)
			0x00,                                                                                           // Topics[0].Partitions[1] tagged fields: none
			0x00,                                                                                           // Topics[0] tagged fields: none
			0x2d, 0x90, 0x11, 0xaf, 0x47, 0x63, 0x4b, 0x08, 0x9a, 0xc5, 0x3e, 0x71, 0xd2, 0x04, 0xb8, 0x6e, // Topics[1].TopicId 2d9011af-4763-4b08-9ac5-3e71d204b86e
			0x02,                   // Topics[1].Partitions: 1 element (compact: count+1)
			0x00, 0x00, 0x00, 0x00, // Topics[1].Partitions[0].PartitionIndex 0
			0x00, 0x64, // Topics[1].Partitions[0].ErrorCode 100 (UNKNOWN_TOPIC_ID)
			0x00, // Topics[1].Partitions[0] tagged fields: none
			0x00, // Topics[1] tagged fields: none
			0x00, // body tagged fields: none
		},
		respHeader: &ResponseHeader{
			CorrelationId: 64,
		},
		body: &OffsetCommitResponse{
			ThrottleTimeMs: 2,
			Topics: []OffsetCommitResponseTopic{
				{
					Name:    "",
					TopicId: UUID{0x6b, 0x1f, 0x3c, 0x52, 0x9e, 0x0a, 0x4d, 0x7b, 0x8c, 0x21, 0x55, 0xe4, 0x0f, 0x93, 0xa6, 0x17},
					Partitions: []OffsetCommitResponsePartition{
						{
							PartitionIndex: 0,
							ErrorCode:      0,
						},
						{
							PartitionIndex: 1,
							ErrorCode:      0,
						},
					},
				},
				{
					Name:    "",
					TopicId: UUID{0x2d, 0x90, 0x11, 0xaf, 0x47, 0x63, 0x4b, 0x08, 0x9a, 0xc5, 0x3e, 0x71, 0xd2, 0x04, 0xb8, 0x6e},
					Partitions: []OffsetCommitResponsePartition{
						{
							PartitionIndex: 0,
							ErrorCode:      100,
						},
					},
				},
			},
		},
	},
}
