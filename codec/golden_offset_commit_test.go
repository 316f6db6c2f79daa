// Golden OffsetCommit frames: bytes encoded by franz-go's kmsg, annotated field by
// field from Kafka's message definitions. See golden_test.go.

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
}
