// Golden Fetch frames: bytes encoded by franz-go's kmsg, annotated field by
// field from Kafka's message definitions. See golden_test.go.
//
// Kafka 4.0's definitions stop at v17. The v18 frames were walked with them
// plus Kafka 4.1's v18 change (KIP-1166: a partition's tagged HighWatermark,
// tag 1, default 9223372036854775807), as kmsg v1.15.1 encodes it; the response
// is laid out as v17.

package codec

var goldenFetchCases = []goldenCase{
	{
		name: "Fetch/v0/request",
		key:  1, version: 0,
		frame: []byte{
			0x00, 0x01, // RequestApiKey 1 (Fetch)
			0x00, 0x00, // RequestApiVersion 0
			0x00, 0x00, 0x00, 0x1f, // CorrelationId 31
			0x00, 0x10, 'c', 'o', 'n', 's', 'o', 'l', 'e', '-', 'c', 'o', 'n', 's', 'u', 'm', 'e', 'r', // ClientId "console-consumer" (header ClientId is never compact)
			0xff, 0xff, 0xff, 0xff, // ReplicaId -1
			0x00, 0x00, 0x01, 0xf4, // MaxWaitMs 500
			0x00, 0x00, 0x00, 0x01, // MinBytes 1
			0x00, 0x00, 0x00, 0x01, // Topics: 1 element
			0x00, 0x06, 'o', 'r', 'd', 'e', 'r', 's', // Topics[0].Topic "orders"
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions: 1 element
			0x00, 0x00, 0x00, 0x00, // Topics[0].Partitions[0].Partition 0
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x28, // Topics[0].Partitions[0].FetchOffset 40
			0x00, 0x10, 0x00, 0x00, // Topics[0].Partitions[0].PartitionMaxBytes 1048576
		},
		reqHeader: &RequestHeader{
			RequestApiKey:     1,
			RequestApiVersion: 0,
			CorrelationId:     31,
			ClientId:          goldenStr("console-consumer"),
		},
		body: &FetchRequest{
			ClusterId: nil,
			ReplicaId: -1,
			ReplicaState: FetchRequestReplicaState{
				ReplicaId:    -1,
				ReplicaEpoch: -1,
			},
			MaxWaitMs:      500,
			MinBytes:       1,
			MaxBytes:       2147483647,
			IsolationLevel: 0,
			SessionId:      0,
			SessionEpoch:   -1,
			Topics: []FetchRequestFetchTopic{
				{
					Topic:   "orders",
					TopicId: UUID{0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00},
					Partitions: []FetchRequestFetchPartition{
						{
							Partition:          0,
							CurrentLeaderEpoch: -1,
							FetchOffset:        40,
							LastFetchedEpoch:   -1,
							LogStartOffset:     -1,
							PartitionMaxBytes:  1048576,
							ReplicaDirectoryId: UUID{0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00},
							HighWatermark:      9223372036854775807, // v18+ only: its default
						},
					},
				},
			},
			ForgottenTopicsData: nil,
			RackId:              "",
		},
	},
	{
		name: "Fetch/v0/response",
		key:  1, version: 0,
		response: true,
		frame: goldenJoin([]byte{
			0x00, 0x00, 0x00, 0x1f, // CorrelationId 31
			0x00, 0x00, 0x00, 0x01, // Responses: 1 element
			0x00, 0x06, 'o', 'r', 'd', 'e', 'r', 's', // Responses[0].Topic "orders"
			0x00, 0x00, 0x00, 0x02, // Responses[0].Partitions: 2 elements
			0x00, 0x00, 0x00, 0x00, // Responses[0].Partitions[0].PartitionIndex 0
			0x00, 0x00, // Responses[0].Partitions[0].ErrorCode 0 (NONE)
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2a, // Responses[0].Partitions[0].HighWatermark 42
			0x00, 0x00, 0x00, 0x40, // Responses[0].Partitions[0].Records: 64 bytes: goldenMessageSetFetch
		}, goldenMessageSetFetch, []byte{
			0x00, 0x00, 0x00, 0x01, // Responses[0].Partitions[1].PartitionIndex 1
			0x00, 0x01, // Responses[0].Partitions[1].ErrorCode 1 (OFFSET_OUT_OF_RANGE)
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Responses[0].Partitions[1].HighWatermark -1
			0xff, 0xff, 0xff, 0xff, // Responses[0].Partitions[1].Records null (-1)
		}),
		respHeader: &ResponseHeader{
			CorrelationId: 31,
		},
		body: &FetchResponse{
			ThrottleTimeMs: 0,
			ErrorCode:      0,
			SessionId:      0,
			Responses: []FetchResponseFetchableTopicResponse{
				{
					Topic:   "orders",
					TopicId: UUID{0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00},
					Partitions: []FetchResponsePartitionData{
						{
							PartitionIndex:   0,
							ErrorCode:        0,
							HighWatermark:    42,
							LastStableOffset: -1,
							LogStartOffset:   -1,
							DivergingEpoch: FetchResponseEpochEndOffset{
								Epoch:     -1,
								EndOffset: -1,
							},
							CurrentLeader: FetchResponseLeaderIdAndEpoch{
								LeaderId:    -1,
								LeaderEpoch: -1,
							},
							SnapshotId: FetchResponseSnapshotId{
								EndOffset: -1,
								Epoch:     -1,
							},
							AbortedTransactions:  nil,
							PreferredReadReplica: -1,
							Records:              Records{Raw: goldenMessageSetFetch},
						},
						{
							PartitionIndex:   1,
							ErrorCode:        1,
							HighWatermark:    -1,
							LastStableOffset: -1,
							LogStartOffset:   -1,
							DivergingEpoch: FetchResponseEpochEndOffset{
								Epoch:     -1,
								EndOffset: -1,
							},
							CurrentLeader: FetchResponseLeaderIdAndEpoch{
								LeaderId:    -1,
								LeaderEpoch: -1,
							},
							SnapshotId: FetchResponseSnapshotId{
								EndOffset: -1,
								Epoch:     -1,
							},
							AbortedTransactions:  nil,
							PreferredReadReplica: -1,
							Records:              Records{},
						},
					},
				},
			},
			NodeEndpoints: nil,
		},
	},
	{
		name: "Fetch/v12/request",
		key:  1, version: 12,
		frame: []byte{
			0x00, 0x01, // RequestApiKey 1 (Fetch)
			0x00, 0x0c, // RequestApiVersion 12
			0x00, 0x00, 0x00, 0x20, // CorrelationId 32
			0x00, 0x0a, 'c', 'o', 'n', 's', 'u', 'm', 'e', 'r', '-', '1', // ClientId "consumer-1" (header ClientId is never compact)
			0x00,                   // header tagged fields: none
			0xff, 0xff, 0xff, 0xff, // ReplicaId -1
			0x00, 0x00, 0x01, 0xf4, // MaxWaitMs 500
			0x00, 0x00, 0x00, 0x01, // MinBytes 1
			0x03, 0x20, 0x00, 0x00, // MaxBytes 52428800
			0x01,                   // IsolationLevel 1
			0x00, 0x00, 0x00, 0x7b, // SessionId 123
			0x00, 0x00, 0x00, 0x04, // SessionEpoch 4
			0x02,                               // Topics: 1 element (compact: count+1)
			0x07, 'o', 'r', 'd', 'e', 'r', 's', // Topics[0].Topic "orders" (compact: length+1)
			0x02,                   // Topics[0].Partitions: 1 element (compact: count+1)
			0x00, 0x00, 0x00, 0x00, // Topics[0].Partitions[0].Partition 0
			0x00, 0x00, 0x00, 0x05, // Topics[0].Partitions[0].CurrentLeaderEpoch 5
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x64, // Topics[0].Partitions[0].FetchOffset 100
			0x00, 0x00, 0x00, 0x04, // Topics[0].Partitions[0].LastFetchedEpoch 4
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Topics[0].Partitions[0].LogStartOffset -1
			0x00, 0x10, 0x00, 0x00, // Topics[0].Partitions[0].PartitionMaxBytes 1048576
			0x00,                                              // Topics[0].Partitions[0] tagged fields: none
			0x00,                                              // Topics[0] tagged fields: none
			0x02,                                              // ForgottenTopicsData: 1 element (compact: count+1)
			0x0a, 'o', 'l', 'd', '-', 't', 'o', 'p', 'i', 'c', // ForgottenTopicsData[0].Topic "old-topic" (compact: length+1)
			0x03,                   // ForgottenTopicsData[0].Partitions: 2 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x03, // ForgottenTopicsData[0].Partitions[0] 3
			0x00, 0x00, 0x00, 0x04, // ForgottenTopicsData[0].Partitions[1] 4
			0x00,                               // ForgottenTopicsData[0] tagged fields: none
			0x07, 'r', 'a', 'c', 'k', '-', 'a', // RackId "rack-a" (compact: length+1)
			0x01,       // body tagged fields: 1
			0x00, 0x11, // tag 0 (ClusterId), 17 bytes
			0x11, 'k', 'a', 'f', 'k', 'a', '-', 'c', 'l', 'u', 's', 't', 'e', 'r', '-', 'i', 'd', // ClusterId "kafka-cluster-id" (compact: length+1)
		},
		reqHeader: &RequestHeader{
			RequestApiKey:     1,
			RequestApiVersion: 12,
			CorrelationId:     32,
			ClientId:          goldenStr("consumer-1"),
		},
		body: &FetchRequest{
			ClusterId: goldenStr("kafka-cluster-id"),
			ReplicaId: -1,
			ReplicaState: FetchRequestReplicaState{
				ReplicaId:    -1,
				ReplicaEpoch: -1,
			},
			MaxWaitMs:      500,
			MinBytes:       1,
			MaxBytes:       52428800,
			IsolationLevel: 1,
			SessionId:      123,
			SessionEpoch:   4,
			Topics: []FetchRequestFetchTopic{
				{
					Topic:   "orders",
					TopicId: UUID{0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00},
					Partitions: []FetchRequestFetchPartition{
						{
							Partition:          0,
							CurrentLeaderEpoch: 5,
							FetchOffset:        100,
							LastFetchedEpoch:   4,
							LogStartOffset:     -1,
							PartitionMaxBytes:  1048576,
							ReplicaDirectoryId: UUID{0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00},
							HighWatermark:      9223372036854775807, // v18+ only: its default
						},
					},
				},
			},
			ForgottenTopicsData: []FetchRequestForgottenTopic{
				{
					Topic:      "old-topic",
					TopicId:    UUID{0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00},
					Partitions: []int32{3, 4},
				},
			},
			RackId: "rack-a",
		},
	},
	{
		name: "Fetch/v12/response",
		key:  1, version: 12,
		response: true,
		frame: goldenJoin([]byte{
			0x00, 0x00, 0x00, 0x20, // CorrelationId 32
			0x00,                   // header tagged fields: none
			0x00, 0x00, 0x00, 0x03, // ThrottleTimeMs 3
			0x00, 0x00, // ErrorCode 0 (NONE)
			0x00, 0x00, 0x00, 0x7b, // SessionId 123
			0x02,                               // Responses: 1 element (compact: count+1)
			0x07, 'o', 'r', 'd', 'e', 'r', 's', // Responses[0].Topic "orders" (compact: length+1)
			0x03,                   // Responses[0].Partitions: 2 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x00, // Responses[0].Partitions[0].PartitionIndex 0
			0x00, 0x00, // Responses[0].Partitions[0].ErrorCode 0 (NONE)
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x6e, // Responses[0].Partitions[0].HighWatermark 110
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x66, // Responses[0].Partitions[0].LastStableOffset 102
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // Responses[0].Partitions[0].LogStartOffset 0
			0x02,                                           // Responses[0].Partitions[0].AbortedTransactions: 1 element (compact: count+1)
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x23, 0x28, // Responses[0].Partitions[0].AbortedTransactions[0].ProducerId 9000
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x64, // Responses[0].Partitions[0].AbortedTransactions[0].FirstOffset 100
			0x00,                   // Responses[0].Partitions[0].AbortedTransactions[0] tagged fields: none
			0x00, 0x00, 0x00, 0x02, // Responses[0].Partitions[0].PreferredReadReplica 2
			0x55, // Responses[0].Partitions[0].Records: 84 bytes (compact: length+1): goldenRecordBatchFetch
		}, goldenRecordBatchFetch, []byte{
			0x00,                   // Responses[0].Partitions[0] tagged fields: none
			0x00, 0x00, 0x00, 0x01, // Responses[0].Partitions[1].PartitionIndex 1
			0x00, 0x01, // Responses[0].Partitions[1].ErrorCode 1 (OFFSET_OUT_OF_RANGE)
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xf4, // Responses[0].Partitions[1].HighWatermark 500
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xf4, // Responses[0].Partitions[1].LastStableOffset 500
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc8, // Responses[0].Partitions[1].LogStartOffset 200
			0x00,                   // Responses[0].Partitions[1].AbortedTransactions: null (compact: 0)
			0xff, 0xff, 0xff, 0xff, // Responses[0].Partitions[1].PreferredReadReplica -1
			0x01,       // Responses[0].Partitions[1].Records: 0 bytes (compact: length+1)
			0x02,       // Responses[0].Partitions[1] tagged fields: 2
			0x00, 0x0d, // tag 0 (Responses[0].Partitions[1].DivergingEpoch), 13 bytes
			0x00, 0x00, 0x00, 0x04, // Responses[0].Partitions[1].DivergingEpoch.Epoch 4
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x5f, // Responses[0].Partitions[1].DivergingEpoch.EndOffset 95
			0x00,       // Responses[0].Partitions[1].DivergingEpoch tagged fields: none
			0x02, 0x0d, // tag 2 (Responses[0].Partitions[1].SnapshotId), 13 bytes
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xb4, // Responses[0].Partitions[1].SnapshotId.EndOffset 180
			0x00, 0x00, 0x00, 0x03, // Responses[0].Partitions[1].SnapshotId.Epoch 3
			0x00, // Responses[0].Partitions[1].SnapshotId tagged fields: none
			0x00, // Responses[0] tagged fields: none
			0x00, // body tagged fields: none
		}),
		respHeader: &ResponseHeader{
			CorrelationId: 32,
		},
		body: &FetchResponse{
			ThrottleTimeMs: 3,
			ErrorCode:      0,
			SessionId:      123,
			Responses: []FetchResponseFetchableTopicResponse{
				{
					Topic:   "orders",
					TopicId: UUID{0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00},
					Partitions: []FetchResponsePartitionData{
						{
							PartitionIndex:   0,
							ErrorCode:        0,
							HighWatermark:    110,
							LastStableOffset: 102,
							LogStartOffset:   0,
							DivergingEpoch: FetchResponseEpochEndOffset{
								Epoch:     -1,
								EndOffset: -1,
							},
							CurrentLeader: FetchResponseLeaderIdAndEpoch{
								LeaderId:    -1,
								LeaderEpoch: -1,
							},
							SnapshotId: FetchResponseSnapshotId{
								EndOffset: -1,
								Epoch:     -1,
							},
							AbortedTransactions: []FetchResponseAbortedTransaction{
								{
									ProducerId:  9000,
									FirstOffset: 100,
								},
							},
							PreferredReadReplica: 2,
							Records:              Records{Raw: goldenRecordBatchFetch},
						},
						{
							PartitionIndex:   1,
							ErrorCode:        1,
							HighWatermark:    500,
							LastStableOffset: 500,
							LogStartOffset:   200,
							DivergingEpoch: FetchResponseEpochEndOffset{
								Epoch:     4,
								EndOffset: 95,
							},
							CurrentLeader: FetchResponseLeaderIdAndEpoch{
								LeaderId:    -1,
								LeaderEpoch: -1,
							},
							SnapshotId: FetchResponseSnapshotId{
								EndOffset: 180,
								Epoch:     3,
							},
							AbortedTransactions:  nil,
							PreferredReadReplica: -1,
							Records:              Records{Raw: []byte{}},
						},
					},
				},
			},
			NodeEndpoints: nil,
		},
	},
	{
		name: "Fetch/v17/request",
		key:  1, version: 17,
		frame: []byte{
			0x00, 0x01, // RequestApiKey 1 (Fetch)
			0x00, 0x11, // RequestApiVersion 17
			0x00, 0x00, 0x00, 0x21, // CorrelationId 33
			0x00, 0x10, 'b', 'r', 'o', 'k', 'e', 'r', '-', '2', '-', 'f', 'e', 't', 'c', 'h', 'e', 'r', // ClientId "broker-2-fetcher" (header ClientId is never compact)
			0x01,       // header tagged fields: 1
			0x05, 0x02, // header tag 5, 2 bytes: unknown, kept and re-encoded
			0x61, 0x62, // header tag 5 data
			0x00, 0x00, 0x01, 0xf4, // MaxWaitMs 500
			0x00, 0x00, 0x00, 0x01, // MinBytes 1
			0x00, 0xa0, 0x00, 0x00, // MaxBytes 10485760
			0x00,                   // IsolationLevel 0
			0x00, 0x00, 0x00, 0x00, // SessionId 0
			0xff, 0xff, 0xff, 0xff, // SessionEpoch -1
			0x02,                                                                                           // Topics: 1 element (compact: count+1)
			0x6b, 0x1f, 0x3c, 0x52, 0x9e, 0x0a, 0x4d, 0x7b, 0x8c, 0x21, 0x55, 0xe4, 0x0f, 0x93, 0xa6, 0x17, // Topics[0].TopicId 6b1f3c52-9e0a-4d7b-8c21-55e40f93a617
			0x02,                   // Topics[0].Partitions: 1 element (compact: count+1)
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions[0].Partition 1
			0x00, 0x00, 0x00, 0x08, // Topics[0].Partitions[0].CurrentLeaderEpoch 8
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07, 0xd0, // Topics[0].Partitions[0].FetchOffset 2000
			0x00, 0x00, 0x00, 0x08, // Topics[0].Partitions[0].LastFetchedEpoch 8
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x96, // Topics[0].Partitions[0].LogStartOffset 150
			0x00, 0x10, 0x00, 0x00, // Topics[0].Partitions[0].PartitionMaxBytes 1048576
			0x02,       // Topics[0].Partitions[0] tagged fields: 2
			0x00, 0x10, // tag 0 (Topics[0].Partitions[0].ReplicaDirectoryId), 16 bytes
			0xc4, 0x5e, 0x02, 0x9b, 0x71, 0xf8, 0x46, 0x3d, 0xa0, 0x1c, 0x88, 0x6f, 0x23, 0xe7, 0x5a, 0x90, // Topics[0].Partitions[0].ReplicaDirectoryId c45e029b-71f8-463d-a01c-886f23e75a90
			0x07, 0x03, // Topics[0].Partitions[0] tag 7, 3 bytes: unknown, kept and re-encoded
			0x01, 0x02, 0x03, // Topics[0].Partitions[0] tag 7 data
			0x00,       // Topics[0] tagged fields: none
			0x01,       // ForgottenTopicsData: 0 elements (compact: count+1)
			0x01,       // RackId "" (compact: length+1)
			0x02,       // body tagged fields: 2
			0x00, 0x11, // tag 0 (ClusterId), 17 bytes
			0x11, 'k', 'a', 'f', 'k', 'a', '-', 'c', 'l', 'u', 's', 't', 'e', 'r', '-', 'i', 'd', // ClusterId "kafka-cluster-id" (compact: length+1)
			0x01, 0x0d, // tag 1 (ReplicaState), 13 bytes
			0x00, 0x00, 0x00, 0x02, // ReplicaState.ReplicaId 2
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x11, // ReplicaState.ReplicaEpoch 17
			0x00, // ReplicaState tagged fields: none
		},
		reqHeader: &RequestHeader{
			RequestApiKey:     1,
			RequestApiVersion: 17,
			CorrelationId:     33,
			ClientId:          goldenStr("broker-2-fetcher"),
			UnknownTags: []TaggedField{
				{
					Tag:  5,
					Data: []byte{0x61, 0x62},
				},
			},
		},
		body: &FetchRequest{
			ClusterId: goldenStr("kafka-cluster-id"),
			ReplicaId: -1,
			ReplicaState: FetchRequestReplicaState{
				ReplicaId:    2,
				ReplicaEpoch: 17,
			},
			MaxWaitMs:      500,
			MinBytes:       1,
			MaxBytes:       10485760,
			IsolationLevel: 0,
			SessionId:      0,
			SessionEpoch:   -1,
			Topics: []FetchRequestFetchTopic{
				{
					Topic:   "",
					TopicId: UUID{0x6b, 0x1f, 0x3c, 0x52, 0x9e, 0x0a, 0x4d, 0x7b, 0x8c, 0x21, 0x55, 0xe4, 0x0f, 0x93, 0xa6, 0x17},
					Partitions: []FetchRequestFetchPartition{
						{
							Partition:          1,
							CurrentLeaderEpoch: 8,
							FetchOffset:        2000,
							LastFetchedEpoch:   8,
							LogStartOffset:     150,
							PartitionMaxBytes:  1048576,
							ReplicaDirectoryId: UUID{0xc4, 0x5e, 0x02, 0x9b, 0x71, 0xf8, 0x46, 0x3d, 0xa0, 0x1c, 0x88, 0x6f, 0x23, 0xe7, 0x5a, 0x90},
							HighWatermark:      9223372036854775807, // v18+ only: its default
							UnknownTags: []TaggedField{
								{
									Tag:  7,
									Data: []byte{0x01, 0x02, 0x03},
								},
							},
						},
					},
				},
			},
			ForgottenTopicsData: []FetchRequestForgottenTopic{},
			RackId:              "",
		},
	},
	{
		name: "Fetch/v17/response",
		key:  1, version: 17,
		response: true,
		frame: goldenJoin([]byte{
			0x00, 0x00, 0x00, 0x21, // CorrelationId 33
			0x00,                   // header tagged fields: none
			0x00, 0x00, 0x00, 0x00, // ThrottleTimeMs 0
			0x00, 0x00, // ErrorCode 0 (NONE)
			0x00, 0x00, 0x00, 0x00, // SessionId 0
			0x02,                                                                                           // Responses: 1 element (compact: count+1)
			0x6b, 0x1f, 0x3c, 0x52, 0x9e, 0x0a, 0x4d, 0x7b, 0x8c, 0x21, 0x55, 0xe4, 0x0f, 0x93, 0xa6, 0x17, // Responses[0].TopicId 6b1f3c52-9e0a-4d7b-8c21-55e40f93a617
			0x03,                   // Responses[0].Partitions: 2 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x00, // Responses[0].Partitions[0].PartitionIndex 0
			0x00, 0x00, // Responses[0].Partitions[0].ErrorCode 0 (NONE)
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x6e, // Responses[0].Partitions[0].HighWatermark 110
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x6e, // Responses[0].Partitions[0].LastStableOffset 110
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // Responses[0].Partitions[0].LogStartOffset 0
			0x01,                   // Responses[0].Partitions[0].AbortedTransactions: 0 elements (compact: count+1)
			0xff, 0xff, 0xff, 0xff, // Responses[0].Partitions[0].PreferredReadReplica -1
			0x55, // Responses[0].Partitions[0].Records: 84 bytes (compact: length+1): goldenRecordBatchFetch
		}, goldenRecordBatchFetch, []byte{
			0x00,                   // Responses[0].Partitions[0] tagged fields: none
			0x00, 0x00, 0x00, 0x01, // Responses[0].Partitions[1].PartitionIndex 1
			0x00, 0x06, // Responses[0].Partitions[1].ErrorCode 6 (NOT_LEADER_OR_FOLLOWER)
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Responses[0].Partitions[1].HighWatermark -1
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Responses[0].Partitions[1].LastStableOffset -1
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Responses[0].Partitions[1].LogStartOffset -1
			0x00,                   // Responses[0].Partitions[1].AbortedTransactions: null (compact: 0)
			0xff, 0xff, 0xff, 0xff, // Responses[0].Partitions[1].PreferredReadReplica -1
			0x00,       // Responses[0].Partitions[1].Records null (compact: 0)
			0x02,       // Responses[0].Partitions[1] tagged fields: 2
			0x01, 0x09, // tag 1 (Responses[0].Partitions[1].CurrentLeader), 9 bytes
			0x00, 0x00, 0x00, 0x03, // Responses[0].Partitions[1].CurrentLeader.LeaderId 3
			0x00, 0x00, 0x00, 0x09, // Responses[0].Partitions[1].CurrentLeader.LeaderEpoch 9
			0x00,       // Responses[0].Partitions[1].CurrentLeader tagged fields: none
			0x2a, 0x01, // Responses[0].Partitions[1] tag 42, 1 byte: unknown, kept and re-encoded
			0x3f,       // Responses[0].Partitions[1] tag 42 data
			0x00,       // Responses[0] tagged fields: none
			0x01,       // body tagged fields: 1
			0x00, 0x1c, // tag 0 (NodeEndpoints), 28 bytes
			0x02,                   // NodeEndpoints: 1 element (compact: count+1)
			0x00, 0x00, 0x00, 0x03, // NodeEndpoints[0].NodeId 3
			0x11, 'b', 'r', 'o', 'k', 'e', 'r', '-', '3', '.', 'e', 'x', 'a', 'm', 'p', 'l', 'e', // NodeEndpoints[0].Host "broker-3.example" (compact: length+1)
			0x00, 0x00, 0x23, 0x86, // NodeEndpoints[0].Port 9094
			0x00, // NodeEndpoints[0].Rack null (compact: 0)
			0x00, // NodeEndpoints[0] tagged fields: none
		}),
		respHeader: &ResponseHeader{
			CorrelationId: 33,
		},
		body: &FetchResponse{
			ThrottleTimeMs: 0,
			ErrorCode:      0,
			SessionId:      0,
			Responses: []FetchResponseFetchableTopicResponse{
				{
					Topic:   "",
					TopicId: UUID{0x6b, 0x1f, 0x3c, 0x52, 0x9e, 0x0a, 0x4d, 0x7b, 0x8c, 0x21, 0x55, 0xe4, 0x0f, 0x93, 0xa6, 0x17},
					Partitions: []FetchResponsePartitionData{
						{
							PartitionIndex:   0,
							ErrorCode:        0,
							HighWatermark:    110,
							LastStableOffset: 110,
							LogStartOffset:   0,
							DivergingEpoch: FetchResponseEpochEndOffset{
								Epoch:     -1,
								EndOffset: -1,
							},
							CurrentLeader: FetchResponseLeaderIdAndEpoch{
								LeaderId:    -1,
								LeaderEpoch: -1,
							},
							SnapshotId: FetchResponseSnapshotId{
								EndOffset: -1,
								Epoch:     -1,
							},
							AbortedTransactions:  []FetchResponseAbortedTransaction{},
							PreferredReadReplica: -1,
							Records:              Records{Raw: goldenRecordBatchFetch},
						},
						{
							PartitionIndex:   1,
							ErrorCode:        6,
							HighWatermark:    -1,
							LastStableOffset: -1,
							LogStartOffset:   -1,
							DivergingEpoch: FetchResponseEpochEndOffset{
								Epoch:     -1,
								EndOffset: -1,
							},
							CurrentLeader: FetchResponseLeaderIdAndEpoch{
								LeaderId:    3,
								LeaderEpoch: 9,
							},
							SnapshotId: FetchResponseSnapshotId{
								EndOffset: -1,
								Epoch:     -1,
							},
							AbortedTransactions:  nil,
							PreferredReadReplica: -1,
							Records:              Records{},
							UnknownTags: []TaggedField{
								{
									Tag:  42,
									Data: []byte{0x3f},
								},
							},
						},
					},
				},
			},
			NodeEndpoints: []FetchResponseNodeEndpoint{
				{
					NodeId: 3,
					Host:   "broker-3.example",
					Port:   9094,
					Rack:   nil,
				},
			},
		},
	},
	{
		name: "Fetch/v18/request",
		key:  1, version: 18,
		frame: []byte{
			0x00, 0x01, // RequestApiKey 1 (Fetch)
			0x00, 0x12, // RequestApiVersion 18
			0x00, 0x00, 0x00, 0x22, // CorrelationId 34
			0x00, 0x10, 'b', 'r', 'o', 'k', 'e', 'r', '-', '2', '-', 'f', 'e', 't', 'c', 'h', 'e', 'r', // ClientId "broker-2-fetcher" (header ClientId is never compact)
			0x00,                   // header tagged fields: none
			0x00, 0x00, 0x01, 0xf4, // MaxWaitMs 500
			0x00, 0x00, 0x00, 0x01, // MinBytes 1
			0x00, 0xa0, 0x00, 0x00, // MaxBytes 10485760
			0x01,                   // IsolationLevel 1
			0x00, 0x00, 0x03, 0x67, // SessionId 871
			0x00, 0x00, 0x00, 0x0c, // SessionEpoch 12
			0x02,                                                                                           // Topics: 1 element (compact: count+1)
			0x6b, 0x1f, 0x3c, 0x52, 0x9e, 0x0a, 0x4d, 0x7b, 0x8c, 0x21, 0x55, 0xe4, 0x0f, 0x93, 0xa6, 0x17, // Topics[0].TopicId 6b1f3c52-9e0a-4d7b-8c21-55e40f93a617
			0x02,                   // Topics[0].Partitions: 1 element (compact: count+1)
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions[0].Partition 1
			0x00, 0x00, 0x00, 0x05, // Topics[0].Partitions[0].CurrentLeaderEpoch 5
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x64, // Topics[0].Partitions[0].FetchOffset 100
			0x00, 0x00, 0x00, 0x05, // Topics[0].Partitions[0].LastFetchedEpoch 5
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x28, // Topics[0].Partitions[0].LogStartOffset 40
			0x00, 0x10, 0x00, 0x00, // Topics[0].Partitions[0].PartitionMaxBytes 1048576
			0x03,       // Topics[0].Partitions[0] tagged fields: 3
			0x00, 0x10, // tag 0 (Topics[0].Partitions[0].ReplicaDirectoryId), 16 bytes
			0xc4, 0x5e, 0x02, 0x9b, 0x71, 0xf8, 0x46, 0x3d, 0xa0, 0x1c, 0x88, 0x6f, 0x23, 0xe7, 0x5a, 0x90, // Topics[0].Partitions[0].ReplicaDirectoryId c45e029b-71f8-463d-a01c-886f23e75a90
			0x01, 0x08, // tag 1 (Topics[0].Partitions[0].HighWatermark), 8 bytes
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x62, // Topics[0].Partitions[0].HighWatermark 98
			0x07, 0x03, // Topics[0].Partitions[0] tag 7, 3 bytes: unknown, kept and re-encoded
			0x01, 0x02, 0x03, // Topics[0].Partitions[0] tag 7 data
			0x00,                                                                                           // Topics[0] tagged fields: none
			0x02,                                                                                           // ForgottenTopicsData: 1 element (compact: count+1)
			0x2d, 0x90, 0x11, 0xaf, 0x47, 0x63, 0x4b, 0x08, 0x9a, 0xc5, 0x3e, 0x71, 0xd2, 0x04, 0xb8, 0x6e, // ForgottenTopicsData[0].TopicId 2d9011af-4763-4b08-9ac5-3e71d204b86e
			0x03,                   // ForgottenTopicsData[0].Partitions: 2 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x00, // ForgottenTopicsData[0].Partitions[0] 0
			0x00, 0x00, 0x00, 0x03, // ForgottenTopicsData[0].Partitions[1] 3
			0x00,                               // ForgottenTopicsData[0] tagged fields: none
			0x07, 'r', 'a', 'c', 'k', '-', 'b', // RackId "rack-b" (compact: length+1)
			0x02,       // body tagged fields: 2
			0x00, 0x17, // tag 0 (ClusterId), 23 bytes
			0x17, 'M', 'k', 'U', '3', 'O', 'E', 'V', 'B', 'N', 'T', 'c', 'w', 'N', 'T', 'J', 'E', 'N', 'D', 'M', '2', 'Q', 'g', // ClusterId "MkU3OEVBNTcwNTJENDM2Qg" (compact: length+1)
			0x01, 0x0d, // tag 1 (ReplicaState), 13 bytes
			0x00, 0x00, 0x00, 0x02, // ReplicaState.ReplicaId 2
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x11, // ReplicaState.ReplicaEpoch 17
			0x00, // ReplicaState tagged fields: none
		},
		reqHeader: &RequestHeader{
			RequestApiKey:     1,
			RequestApiVersion: 18,
			CorrelationId:     34,
			ClientId:          goldenStr("broker-2-fetcher"),
		},
		body: &FetchRequest{
			ClusterId: goldenStr("MkU3OEVBNTcwNTJENDM2Qg"),
			ReplicaId: -1,
			ReplicaState: FetchRequestReplicaState{
				ReplicaId:    2,
				ReplicaEpoch: 17,
			},
			MaxWaitMs:      500,
			MinBytes:       1,
			MaxBytes:       10485760,
			IsolationLevel: 1,
			SessionId:      871,
			SessionEpoch:   12,
			Topics: []FetchRequestFetchTopic{
				{
					Topic:   "",
					TopicId: UUID{0x6b, 0x1f, 0x3c, 0x52, 0x9e, 0x0a, 0x4d, 0x7b, 0x8c, 0x21, 0x55, 0xe4, 0x0f, 0x93, 0xa6, 0x17},
					Partitions: []FetchRequestFetchPartition{
						{
							Partition:          1,
							CurrentLeaderEpoch: 5,
							FetchOffset:        100,
							LastFetchedEpoch:   5,
							LogStartOffset:     40,
							PartitionMaxBytes:  1048576,
							ReplicaDirectoryId: UUID{0xc4, 0x5e, 0x02, 0x9b, 0x71, 0xf8, 0x46, 0x3d, 0xa0, 0x1c, 0x88, 0x6f, 0x23, 0xe7, 0x5a, 0x90},
							HighWatermark:      98,
							UnknownTags: []TaggedField{
								{
									Tag:  7,
									Data: []byte{0x01, 0x02, 0x03},
								},
							},
						},
					},
				},
			},
			ForgottenTopicsData: []FetchRequestForgottenTopic{
				{
					Topic:      "",
					TopicId:    UUID{0x2d, 0x90, 0x11, 0xaf, 0x47, 0x63, 0x4b, 0x08, 0x9a, 0xc5, 0x3e, 0x71, 0xd2, 0x04, 0xb8, 0x6e},
					Partitions: []int32{0, 3},
				},
			},
			RackId: "rack-b",
		},
	},
	{
		name: "Fetch/v18/response",
		key:  1, version: 18,
		response: true,
		frame: goldenJoin([]byte{
			0x00, 0x00, 0x00, 0x22, // CorrelationId 34
			0x00,                   // header tagged fields: none
			0x00, 0x00, 0x00, 0x05, // ThrottleTimeMs 5
			0x00, 0x47, // ErrorCode 71 (INVALID_FETCH_SESSION_EPOCH)
			0x00, 0x00, 0x03, 0x67, // SessionId 871
			0x02,                                                                                           // Responses: 1 element (compact: count+1)
			0x6b, 0x1f, 0x3c, 0x52, 0x9e, 0x0a, 0x4d, 0x7b, 0x8c, 0x21, 0x55, 0xe4, 0x0f, 0x93, 0xa6, 0x17, // Responses[0].TopicId 6b1f3c52-9e0a-4d7b-8c21-55e40f93a617
			0x04,                   // Responses[0].Partitions: 3 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x01, // Responses[0].Partitions[0].PartitionIndex 1
			0x00, 0x00, // Responses[0].Partitions[0].ErrorCode 0 (NONE)
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x6e, // Responses[0].Partitions[0].HighWatermark 110
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x66, // Responses[0].Partitions[0].LastStableOffset 102
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x28, // Responses[0].Partitions[0].LogStartOffset 40
			0x02,                                           // Responses[0].Partitions[0].AbortedTransactions: 1 element (compact: count+1)
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x23, 0x28, // Responses[0].Partitions[0].AbortedTransactions[0].ProducerId 9000
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x64, // Responses[0].Partitions[0].AbortedTransactions[0].FirstOffset 100
			0x00,                   // Responses[0].Partitions[0].AbortedTransactions[0] tagged fields: none
			0xff, 0xff, 0xff, 0xff, // Responses[0].Partitions[0].PreferredReadReplica -1
			0x55, // Responses[0].Partitions[0].Records: 84 bytes (compact: length+1): goldenRecordBatchFetch
		}, goldenRecordBatchFetch, []byte{
			0x00,                   // Responses[0].Partitions[0] tagged fields: none
			0x00, 0x00, 0x00, 0x00, // Responses[0].Partitions[1].PartitionIndex 0
			0x00, 0x00, // Responses[0].Partitions[1].ErrorCode 0 (NONE)
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xf4, // Responses[0].Partitions[1].HighWatermark 500
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xf4, // Responses[0].Partitions[1].LastStableOffset 500
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc8, // Responses[0].Partitions[1].LogStartOffset 200
			0x01,                   // Responses[0].Partitions[1].AbortedTransactions: 0 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x03, // Responses[0].Partitions[1].PreferredReadReplica 3
			0x01,       // Responses[0].Partitions[1].Records: 0 bytes (compact: length+1)
			0x02,       // Responses[0].Partitions[1] tagged fields: 2
			0x00, 0x0d, // tag 0 (Responses[0].Partitions[1].DivergingEpoch), 13 bytes
			0x00, 0x00, 0x00, 0x04, // Responses[0].Partitions[1].DivergingEpoch.Epoch 4
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x5f, // Responses[0].Partitions[1].DivergingEpoch.EndOffset 95
			0x00,       // Responses[0].Partitions[1].DivergingEpoch tagged fields: none
			0x02, 0x0d, // tag 2 (Responses[0].Partitions[1].SnapshotId), 13 bytes
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xb4, // Responses[0].Partitions[1].SnapshotId.EndOffset 180
			0x00, 0x00, 0x00, 0x03, // Responses[0].Partitions[1].SnapshotId.Epoch 3
			0x00,                   // Responses[0].Partitions[1].SnapshotId tagged fields: none
			0x00, 0x00, 0x00, 0x02, // Responses[0].Partitions[2].PartitionIndex 2
			0x00, 0x06, // Responses[0].Partitions[2].ErrorCode 6 (NOT_LEADER_OR_FOLLOWER)
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Responses[0].Partitions[2].HighWatermark -1
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Responses[0].Partitions[2].LastStableOffset -1
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Responses[0].Partitions[2].LogStartOffset -1
			0x00,                   // Responses[0].Partitions[2].AbortedTransactions: null (compact: 0)
			0xff, 0xff, 0xff, 0xff, // Responses[0].Partitions[2].PreferredReadReplica -1
			0x00,       // Responses[0].Partitions[2].Records null (compact: 0)
			0x01,       // Responses[0].Partitions[2] tagged fields: 1
			0x01, 0x09, // tag 1 (Responses[0].Partitions[2].CurrentLeader), 9 bytes
			0x00, 0x00, 0x00, 0x03, // Responses[0].Partitions[2].CurrentLeader.LeaderId 3
			0x00, 0x00, 0x00, 0x09, // Responses[0].Partitions[2].CurrentLeader.LeaderEpoch 9
			0x00,       // Responses[0].Partitions[2].CurrentLeader tagged fields: none
			0x00,       // Responses[0] tagged fields: none
			0x01,       // body tagged fields: 1
			0x00, 0x22, // tag 0 (NodeEndpoints), 34 bytes
			0x02,                   // NodeEndpoints: 1 element (compact: count+1)
			0x00, 0x00, 0x00, 0x03, // NodeEndpoints[0].NodeId 3
			0x11, 'b', 'r', 'o', 'k', 'e', 'r', '-', '3', '.', 'e', 'x', 'a', 'm', 'p', 'l', 'e', // NodeEndpoints[0].Host "broker-3.example" (compact: length+1)
			0x00, 0x00, 0x23, 0x86, // NodeEndpoints[0].Port 9094
			0x07, 'r', 'a', 'c', 'k', '-', 'c', // NodeEndpoints[0].Rack "rack-c" (compact: length+1)
			0x00, // NodeEndpoints[0] tagged fields: none
		}),
		respHeader: &ResponseHeader{
			CorrelationId: 34,
		},
		body: &FetchResponse{
			ThrottleTimeMs: 5,
			ErrorCode:      71,
			SessionId:      871,
			Responses: []FetchResponseFetchableTopicResponse{
				{
					Topic:   "",
					TopicId: UUID{0x6b, 0x1f, 0x3c, 0x52, 0x9e, 0x0a, 0x4d, 0x7b, 0x8c, 0x21, 0x55, 0xe4, 0x0f, 0x93, 0xa6, 0x17},
					Partitions: []FetchResponsePartitionData{
						{
							PartitionIndex:   1,
							ErrorCode:        0,
							HighWatermark:    110,
							LastStableOffset: 102,
							LogStartOffset:   40,
							DivergingEpoch: FetchResponseEpochEndOffset{
								Epoch:     -1,
								EndOffset: -1,
							},
							CurrentLeader: FetchResponseLeaderIdAndEpoch{
								LeaderId:    -1,
								LeaderEpoch: -1,
							},
							SnapshotId: FetchResponseSnapshotId{
								EndOffset: -1,
								Epoch:     -1,
							},
							AbortedTransactions: []FetchResponseAbortedTransaction{
								{
									ProducerId:  9000,
									FirstOffset: 100,
								},
							},
							PreferredReadReplica: -1,
							Records:              Records{Raw: goldenRecordBatchFetch},
						},
						{
							PartitionIndex:   0,
							ErrorCode:        0,
							HighWatermark:    500,
							LastStableOffset: 500,
							LogStartOffset:   200,
							DivergingEpoch: FetchResponseEpochEndOffset{
								Epoch:     4,
								EndOffset: 95,
							},
							CurrentLeader: FetchResponseLeaderIdAndEpoch{
								LeaderId:    -1,
								LeaderEpoch: -1,
							},
							SnapshotId: FetchResponseSnapshotId{
								EndOffset: 180,
								Epoch:     3,
							},
							AbortedTransactions:  []FetchResponseAbortedTransaction{},
							PreferredReadReplica: 3,
							Records:              Records{Raw: []byte{}},
						},
						{
							PartitionIndex:   2,
							ErrorCode:        6,
							HighWatermark:    -1,
							LastStableOffset: -1,
							LogStartOffset:   -1,
							DivergingEpoch: FetchResponseEpochEndOffset{
								Epoch:     -1,
								EndOffset: -1,
							},
							CurrentLeader: FetchResponseLeaderIdAndEpoch{
								LeaderId:    3,
								LeaderEpoch: 9,
							},
							SnapshotId: FetchResponseSnapshotId{
								EndOffset: -1,
								Epoch:     -1,
							},
							AbortedTransactions:  nil,
							PreferredReadReplica: -1,
							Records:              Records{},
						},
					},
				},
			},
			NodeEndpoints: []FetchResponseNodeEndpoint{
				{
					NodeId: 3,
					Host:   "broker-3.example",
					Port:   9094,
					Rack:   goldenStr("rack-c"),
				},
			},
		},
	},
}
