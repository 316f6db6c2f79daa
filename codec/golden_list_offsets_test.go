// Golden ListOffsets frames: bytes encoded by franz-go's kmsg, annotated field by
// field from Kafka's message definitions. See golden_test.go.
//
// Kafka 4.0's definitions stop at v10. v11 (KIP-1023: Timestamp -6, the
// earliest pending upload offset) changes no field; its frames were walked as
// v10, and kmsg v1.15.1 encodes them so.

package codec

var goldenListOffsetsCases = []goldenCase{
	{
		name: "ListOffsets/v0/request",
		key:  2, version: 0,
		frame: []byte{
			0x00, 0x02, // RequestApiKey 2 (ListOffsets)
			0x00, 0x00, // RequestApiVersion 0
			0x00, 0x00, 0x00, 0x29, // CorrelationId 41
			0x00, 0x03, 'c', 'l', 'i', // ClientId "cli" (header ClientId is never compact)
			0xff, 0xff, 0xff, 0xff, // ReplicaId -1
			0x00, 0x00, 0x00, 0x01, // Topics: 1 element
			0x00, 0x06, 'o', 'r', 'd', 'e', 'r', 's', // Topics[0].Name "orders"
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions: 1 element
			0x00, 0x00, 0x00, 0x00, // Topics[0].Partitions[0].PartitionIndex 0
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Topics[0].Partitions[0].Timestamp -1
			0x00, 0x00, 0x00, 0x03, // Topics[0].Partitions[0].MaxNumOffsets 3
		},
		reqHeader: &RequestHeader{
			RequestApiKey:     2,
			RequestApiVersion: 0,
			CorrelationId:     41,
			ClientId:          goldenStr("cli"),
		},
		body: &ListOffsetsRequest{
			ReplicaId:      -1,
			IsolationLevel: 0,
			Topics: []ListOffsetsRequestListOffsetsTopic{
				{
					Name: "orders",
					Partitions: []ListOffsetsRequestListOffsetsPartition{
						{
							PartitionIndex:     0,
							CurrentLeaderEpoch: -1,
							Timestamp:          -1,
							MaxNumOffsets:      3,
						},
					},
				},
			},
			TimeoutMs: 0,
		},
	},
	{
		name: "ListOffsets/v0/response",
		key:  2, version: 0,
		response: true,
		frame: []byte{
			0x00, 0x00, 0x00, 0x29, // CorrelationId 41
			0x00, 0x00, 0x00, 0x01, // Topics: 1 element
			0x00, 0x06, 'o', 'r', 'd', 'e', 'r', 's', // Topics[0].Name "orders"
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions: 1 element
			0x00, 0x00, 0x00, 0x00, // Topics[0].Partitions[0].PartitionIndex 0
			0x00, 0x00, // Topics[0].Partitions[0].ErrorCode 0 (NONE)
			0x00, 0x00, 0x00, 0x03, // Topics[0].Partitions[0].OldStyleOffsets: 3 elements
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x78, // Topics[0].Partitions[0].OldStyleOffsets[0] 120
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x3c, // Topics[0].Partitions[0].OldStyleOffsets[1] 60
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // Topics[0].Partitions[0].OldStyleOffsets[2] 0
		},
		respHeader: &ResponseHeader{
			CorrelationId: 41,
		},
		body: &ListOffsetsResponse{
			ThrottleTimeMs: 0,
			Topics: []ListOffsetsResponseListOffsetsTopicResponse{
				{
					Name: "orders",
					Partitions: []ListOffsetsResponseListOffsetsPartitionResponse{
						{
							PartitionIndex:  0,
							ErrorCode:       0,
							OldStyleOffsets: []int64{120, 60, 0},
							Timestamp:       -1,
							Offset:          -1,
							LeaderEpoch:     -1,
						},
					},
				},
			},
		},
	},
	{
		name: "ListOffsets/v6/request",
		key:  2, version: 6,
		frame: []byte{
			0x00, 0x02, // RequestApiKey 2 (ListOffsets)
			0x00, 0x06, // RequestApiVersion 6
			0x00, 0x00, 0x00, 0x2a, // CorrelationId 42
			0x00, 0x03, 'c', 'l', 'i', // ClientId "cli" (header ClientId is never compact)
			0x00,                   // header tagged fields: none
			0xff, 0xff, 0xff, 0xff, // ReplicaId -1
			0x01,                               // IsolationLevel 1
			0x02,                               // Topics: 1 element (compact: count+1)
			0x07, 'o', 'r', 'd', 'e', 'r', 's', // Topics[0].Name "orders" (compact: length+1)
			0x03,                   // Topics[0].Partitions: 2 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x00, // Topics[0].Partitions[0].PartitionIndex 0
			0x00, 0x00, 0x00, 0x07, // Topics[0].Partitions[0].CurrentLeaderEpoch 7
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, // Topics[0].Partitions[0].Timestamp -2
			0x00,                   // Topics[0].Partitions[0] tagged fields: none
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions[1].PartitionIndex 1
			0xff, 0xff, 0xff, 0xff, // Topics[0].Partitions[1].CurrentLeaderEpoch -1
			0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00, // Topics[0].Partitions[1].Timestamp 1700000000000
			0x00, // Topics[0].Partitions[1] tagged fields: none
			0x00, // Topics[0] tagged fields: none
			0x00, // body tagged fields: none
		},
		reqHeader: &RequestHeader{
			RequestApiKey:     2,
			RequestApiVersion: 6,
			CorrelationId:     42,
			ClientId:          goldenStr("cli"),
		},
		body: &ListOffsetsRequest{
			ReplicaId:      -1,
			IsolationLevel: 1,
			Topics: []ListOffsetsRequestListOffsetsTopic{
				{
					Name: "orders",
					Partitions: []ListOffsetsRequestListOffsetsPartition{
						{
							PartitionIndex:     0,
							CurrentLeaderEpoch: 7,
							Timestamp:          -2,
							MaxNumOffsets:      1,
						},
						{
							PartitionIndex:     1,
							CurrentLeaderEpoch: -1,
							Timestamp:          1700000000000,
							MaxNumOffsets:      1,
						},
					},
				},
			},
			TimeoutMs: 0,
		},
	},
	{
		name: "ListOffsets/v6/response",
		key:  2, version: 6,
		response: true,
		frame: []byte{
			0x00, 0x00, 0x00, 0x2a, // CorrelationId 42
			0x00,                   // header tagged fields: none
			0x00, 0x00, 0x00, 0x01, // ThrottleTimeMs 1
			0x02,                               // Topics: 1 element (compact: count+1)
			0x07, 'o', 'r', 'd', 'e', 'r', 's', // Topics[0].Name "orders" (compact: length+1)
			0x03,                   // Topics[0].Partitions: 2 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x00, // Topics[0].Partitions[0].PartitionIndex 0
			0x00, 0x00, // Topics[0].Partitions[0].ErrorCode 0 (NONE)
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Topics[0].Partitions[0].Timestamp -1
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // Topics[0].Partitions[0].Offset 0
			0x00, 0x00, 0x00, 0x07, // Topics[0].Partitions[0].LeaderEpoch 7
			0x00,                   // Topics[0].Partitions[0] tagged fields: none
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions[1].PartitionIndex 1
			0x00, 0x00, // Topics[0].Partitions[1].ErrorCode 0 (NONE)
			0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x7b, // Topics[0].Partitions[1].Timestamp 1700000000123
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x39, // Topics[0].Partitions[1].Offset 57
			0x00, 0x00, 0x00, 0x07, // Topics[0].Partitions[1].LeaderEpoch 7
			0x00, // Topics[0].Partitions[1] tagged fields: none
			0x00, // Topics[0] tagged fields: none
			0x00, // body tagged fields: none
		},
		respHeader: &ResponseHeader{
			CorrelationId: 42,
		},
		body: &ListOffsetsResponse{
			ThrottleTimeMs: 1,
			Topics: []ListOffsetsResponseListOffsetsTopicResponse{
				{
					Name: "orders",
					Partitions: []ListOffsetsResponseListOffsetsPartitionResponse{
						{
							PartitionIndex:  0,
							ErrorCode:       0,
							OldStyleOffsets: nil,
							Timestamp:       -1,
							Offset:          0,
							LeaderEpoch:     7,
						},
						{
							PartitionIndex:  1,
							ErrorCode:       0,
							OldStyleOffsets: nil,
							Timestamp:       1700000000123,
							Offset:          57,
							LeaderEpoch:     7,
						},
					},
				},
			},
		},
	},
	{
		name: "ListOffsets/v10/request",
		key:  2, version: 10,
		frame: []byte{
			0x00, 0x02, // RequestApiKey 2 (ListOffsets)
			0x00, 0x0a, // RequestApiVersion 10
			0x00, 0x00, 0x00, 0x2b, // CorrelationId 43
			0x00, 0x07, 'a', 'd', 'm', 'i', 'n', '-', '1', // ClientId "admin-1" (header ClientId is never compact)
			0x00,                   // header tagged fields: none
			0xff, 0xff, 0xff, 0xff, // ReplicaId -1
			0x00,                               // IsolationLevel 0
			0x02,                               // Topics: 1 element (compact: count+1)
			0x07, 'o', 'r', 'd', 'e', 'r', 's', // Topics[0].Name "orders" (compact: length+1)
			0x03,                   // Topics[0].Partitions: 2 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x00, // Topics[0].Partitions[0].PartitionIndex 0
			0x00, 0x00, 0x00, 0x07, // Topics[0].Partitions[0].CurrentLeaderEpoch 7
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfd, // Topics[0].Partitions[0].Timestamp -3
			0x00,                   // Topics[0].Partitions[0] tagged fields: none
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions[1].PartitionIndex 1
			0x00, 0x00, 0x00, 0x07, // Topics[0].Partitions[1].CurrentLeaderEpoch 7
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfb, // Topics[0].Partitions[1].Timestamp -5
			0x00,                   // Topics[0].Partitions[1] tagged fields: none
			0x00,                   // Topics[0] tagged fields: none
			0x00, 0x00, 0x13, 0x88, // TimeoutMs 5000
			0x00, // body tagged fields: none
		},
		reqHeader: &RequestHeader{
			RequestApiKey:     2,
			RequestApiVersion: 10,
			CorrelationId:     43,
			ClientId:          goldenStr("admin-1"),
		},
		body: &ListOffsetsRequest{
			ReplicaId:      -1,
			IsolationLevel: 0,
			Topics: []ListOffsetsRequestListOffsetsTopic{
				{
					Name: "orders",
					Partitions: []ListOffsetsRequestListOffsetsPartition{
						{
							PartitionIndex:     0,
							CurrentLeaderEpoch: 7,
							Timestamp:          -3,
							MaxNumOffsets:      1,
						},
						{
							PartitionIndex:     1,
							CurrentLeaderEpoch: 7,
							Timestamp:          -5,
							MaxNumOffsets:      1,
						},
					},
				},
			},
			TimeoutMs: 5000,
		},
	},
	{
		name: "ListOffsets/v10/response",
		key:  2, version: 10,
		response: true,
		frame: []byte{
			0x00, 0x00, 0x00, 0x2b, // CorrelationId 43
			0x00,                   // header tagged fields: none
			0x00, 0x00, 0x00, 0x00, // ThrottleTimeMs 0
			0x02,                               // Topics: 1 element (compact: count+1)
			0x07, 'o', 'r', 'd', 'e', 'r', 's', // Topics[0].Name "orders" (compact: length+1)
			0x03,                   // Topics[0].Partitions: 2 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x00, // Topics[0].Partitions[0].PartitionIndex 0
			0x00, 0x00, // Topics[0].Partitions[0].ErrorCode 0 (NONE)
			0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x69, 0xf4, // Topics[0].Partitions[0].Timestamp 1700000000500
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x63, // Topics[0].Partitions[0].Offset 99
			0x00, 0x00, 0x00, 0x07, // Topics[0].Partitions[0].LeaderEpoch 7
			0x00,                   // Topics[0].Partitions[0] tagged fields: none
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions[1].PartitionIndex 1
			0x00, 0x4a, // Topics[0].Partitions[1].ErrorCode 74 (FENCED_LEADER_EPOCH)
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Topics[0].Partitions[1].Timestamp -1
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Topics[0].Partitions[1].Offset -1
			0xff, 0xff, 0xff, 0xff, // Topics[0].Partitions[1].LeaderEpoch -1
			0x00, // Topics[0].Partitions[1] tagged fields: none
			0x00, // Topics[0] tagged fields: none
			0x00, // body tagged fields: none
		},
		respHeader: &ResponseHeader{
			CorrelationId: 43,
		},
		body: &ListOffsetsResponse{
			ThrottleTimeMs: 0,
			Topics: []ListOffsetsResponseListOffsetsTopicResponse{
				{
					Name: "orders",
					Partitions: []ListOffsetsResponseListOffsetsPartitionResponse{
						{
							PartitionIndex:  0,
							ErrorCode:       0,
							OldStyleOffsets: nil,
							Timestamp:       1700000000500,
							Offset:          99,
							LeaderEpoch:     7,
						},
						{
							PartitionIndex:  1,
							ErrorCode:       74,
							OldStyleOffsets: nil,
							Timestamp:       -1,
							Offset:          -1,
							LeaderEpoch:     -1,
						},
					},
				},
			},
		},
	},
	{
		name: "ListOffsets/v11/request",
		key:  2, version: 11,
		frame: []byte{
			0x00, 0x02, // RequestApiKey 2 (ListOffsets)
			0x00, 0x0b, // RequestApiVersion 11
			0x00, 0x00, 0x00, 0x2c, // CorrelationId 44
			0x00, 0x07, 'a', 'd', 'm', 'i', 'n', '-', '1', // ClientId "admin-1" (header ClientId is never compact)
			0x00,                   // header tagged fields: none
			0xff, 0xff, 0xff, 0xff, // ReplicaId -1
			0x01,                               // IsolationLevel 1
			0x02,                               // Topics: 1 element (compact: count+1)
			0x07, 'o', 'r', 'd', 'e', 'r', 's', // Topics[0].Name "orders" (compact: length+1)
			0x04,                   // Topics[0].Partitions: 3 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x00, // Topics[0].Partitions[0].PartitionIndex 0
			0x00, 0x00, 0x00, 0x07, // Topics[0].Partitions[0].CurrentLeaderEpoch 7
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfa, // Topics[0].Partitions[0].Timestamp -6
			0x00,                   // Topics[0].Partitions[0] tagged fields: none
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions[1].PartitionIndex 1
			0x00, 0x00, 0x00, 0x07, // Topics[0].Partitions[1].CurrentLeaderEpoch 7
			0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00, // Topics[0].Partitions[1].Timestamp 1700000000000
			0x00,                   // Topics[0].Partitions[1] tagged fields: none
			0x00, 0x00, 0x00, 0x02, // Topics[0].Partitions[2].PartitionIndex 2
			0x00, 0x00, 0x00, 0x06, // Topics[0].Partitions[2].CurrentLeaderEpoch 6
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Topics[0].Partitions[2].Timestamp -1
			0x00,                   // Topics[0].Partitions[2] tagged fields: none
			0x00,                   // Topics[0] tagged fields: none
			0x00, 0x00, 0x13, 0x88, // TimeoutMs 5000
			0x00, // body tagged fields: none
		},
		reqHeader: &RequestHeader{
			RequestApiKey:     2,
			RequestApiVersion: 11,
			CorrelationId:     44,
			ClientId:          goldenStr("admin-1"),
		},
		body: &ListOffsetsRequest{
			ReplicaId:      -1,
			IsolationLevel: 1,
			Topics: []ListOffsetsRequestListOffsetsTopic{
				{
					Name: "orders",
					Partitions: []ListOffsetsRequestListOffsetsPartition{
						{
							PartitionIndex:     0,
							CurrentLeaderEpoch: 7,
							Timestamp:          -6,
							MaxNumOffsets:      1,
						},
						{
							PartitionIndex:     1,
							CurrentLeaderEpoch: 7,
							Timestamp:          1700000000000,
							MaxNumOffsets:      1,
						},
						{
							PartitionIndex:     2,
							CurrentLeaderEpoch: 6,
							Timestamp:          -1,
							MaxNumOffsets:      1,
						},
					},
				},
			},
			TimeoutMs: 5000,
		},
	},
	{
		name: "ListOffsets/v11/response",
		key:  2, version: 11,
		response: true,
		frame: []byte{
			0x00, 0x00, 0x00, 0x2c, // CorrelationId 44
			0x00,                   // header tagged fields: none
			0x00, 0x00, 0x00, 0x03, // ThrottleTimeMs 3
			0x02,                               // Topics: 1 element (compact: count+1)
			0x07, 'o', 'r', 'd', 'e', 'r', 's', // Topics[0].Name "orders" (compact: length+1)
			0x04,                   // Topics[0].Partitions: 3 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x00, // Topics[0].Partitions[0].PartitionIndex 0
			0x00, 0x00, // Topics[0].Partitions[0].ErrorCode 0 (NONE)
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Topics[0].Partitions[0].Timestamp -1
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x60, // Topics[0].Partitions[0].Offset 96
			0x00, 0x00, 0x00, 0x07, // Topics[0].Partitions[0].LeaderEpoch 7
			0x00,                   // Topics[0].Partitions[0] tagged fields: none
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions[1].PartitionIndex 1
			0x00, 0x00, // Topics[0].Partitions[1].ErrorCode 0 (NONE)
			0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x7b, // Topics[0].Partitions[1].Timestamp 1700000000123
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x39, // Topics[0].Partitions[1].Offset 57
			0x00, 0x00, 0x00, 0x07, // Topics[0].Partitions[1].LeaderEpoch 7
			0x00,                   // Topics[0].Partitions[1] tagged fields: none
			0x00, 0x00, 0x00, 0x02, // Topics[0].Partitions[2].PartitionIndex 2
			0x00, 0x4a, // Topics[0].Partitions[2].ErrorCode 74 (FENCED_LEADER_EPOCH)
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Topics[0].Partitions[2].Timestamp -1
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Topics[0].Partitions[2].Offset -1
			0xff, 0xff, 0xff, 0xff, // Topics[0].Partitions[2].LeaderEpoch -1
			0x00, // Topics[0].Partitions[2] tagged fields: none
			0x00, // Topics[0] tagged fields: none
			0x00, // body tagged fields: none
		},
		respHeader: &ResponseHeader{
			CorrelationId: 44,
		},
		body: &ListOffsetsResponse{
			ThrottleTimeMs: 3,
			Topics: []ListOffsetsResponseListOffsetsTopicResponse{
				{
					Name: "orders",
					Partitions: []ListOffsetsResponseListOffsetsPartitionResponse{
						{
							PartitionIndex:  0,
							ErrorCode:       0,
							OldStyleOffsets: nil,
							Timestamp:       -1,
							Offset:          96,
							LeaderEpoch:     7,
						},
						{
							PartitionIndex:  1,
							ErrorCode:       0,
							OldStyleOffsets: nil,
							Timestamp:       1700000000123,
							Offset:          57,
							LeaderEpoch:     7,
						},
						{
							PartitionIndex:  2,
							ErrorCode:       74,
							OldStyleOffsets: nil,
							Timestamp:       -1,
							Offset:          -1,
							LeaderEpoch:     -1,
						},
					},
				},
			},
		},
	},
}
