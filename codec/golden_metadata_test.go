// Golden Metadata frames: bytes encoded by franz-go's kmsg, annotated field by
// field from Kafka's message definitions. See golden_test.go.
//
// Kafka 4.0's definitions stop at v12. The v13 frames were walked with them
// plus newer Kafka's top-level response ErrorCode (KIP-1102), the last field
// of the body, as kmsg v1.15.1 encodes it; the request is laid out as v12.

package codec

var goldenMetadataCases = []goldenCase{
	{
		name: "Metadata/v0/request",
		key:  3, version: 0,
		frame: []byte{
			0x00, 0x03, // RequestApiKey 3 (Metadata)
			0x00, 0x00, // RequestApiVersion 0
			0x00, 0x00, 0x00, 0x0b, // CorrelationId 11
			0x00, 0x10, 'c', 'o', 'n', 's', 'o', 'l', 'e', '-', 'c', 'o', 'n', 's', 'u', 'm', 'e', 'r', // ClientId "console-consumer" (header ClientId is never compact)
			0x00, 0x00, 0x00, 0x02, // Topics: 2 elements
			0x00, 0x06, 'o', 'r', 'd', 'e', 'r', 's', // Topics[0].Name "orders"
			0x00, 0x08, 'p', 'a', 'y', 'm', 'e', 'n', 't', 's', // Topics[1].Name "payments"
		},
		reqHeader: &RequestHeader{
			RequestApiKey:     3,
			RequestApiVersion: 0,
			CorrelationId:     11,
			ClientId:          goldenStr("console-consumer"),
		},
		body: &MetadataRequest{
			Topics: []MetadataRequestTopic{
				{
					TopicId: UUID{0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00},
					Name:    goldenStr("orders"),
				},
				{
					TopicId: UUID{0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00},
					Name:    goldenStr("payments"),
				},
			},
			AllowAutoTopicCreation:             true,
			IncludeClusterAuthorizedOperations: false,
			IncludeTopicAuthorizedOperations:   false,
		},
	},
	{
		name: "Metadata/v0/response",
		key:  3, version: 0,
		response: true,
		frame: []byte{
			0x00, 0x00, 0x00, 0x0b, // CorrelationId 11
			0x00, 0x00, 0x00, 0x02, // Brokers: 2 elements
			0x00, 0x00, 0x00, 0x01, // Brokers[0].NodeId 1
			0x00, 0x10, 'b', 'r', 'o', 'k', 'e', 'r', '-', '1', '.', 'e', 'x', 'a', 'm', 'p', 'l', 'e', // Brokers[0].Host "broker-1.example"
			0x00, 0x00, 0x23, 0x84, // Brokers[0].Port 9092
			0x00, 0x00, 0x00, 0x02, // Brokers[1].NodeId 2
			0x00, 0x10, 'b', 'r', 'o', 'k', 'e', 'r', '-', '2', '.', 'e', 'x', 'a', 'm', 'p', 'l', 'e', // Brokers[1].Host "broker-2.example"
			0x00, 0x00, 0x23, 0x85, // Brokers[1].Port 9093
			0x00, 0x00, 0x00, 0x02, // Topics: 2 elements
			0x00, 0x00, // Topics[0].ErrorCode 0 (NONE)
			0x00, 0x06, 'o', 'r', 'd', 'e', 'r', 's', // Topics[0].Name "orders"
			0x00, 0x00, 0x00, 0x02, // Topics[0].Partitions: 2 elements
			0x00, 0x00, // Topics[0].Partitions[0].ErrorCode 0 (NONE)
			0x00, 0x00, 0x00, 0x00, // Topics[0].Partitions[0].PartitionIndex 0
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions[0].LeaderId 1
			0x00, 0x00, 0x00, 0x02, // Topics[0].Partitions[0].ReplicaNodes: 2 elements
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions[0].ReplicaNodes[0] 1
			0x00, 0x00, 0x00, 0x02, // Topics[0].Partitions[0].ReplicaNodes[1] 2
			0x00, 0x00, 0x00, 0x02, // Topics[0].Partitions[0].IsrNodes: 2 elements
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions[0].IsrNodes[0] 1
			0x00, 0x00, 0x00, 0x02, // Topics[0].Partitions[0].IsrNodes[1] 2
			0x00, 0x09, // Topics[0].Partitions[1].ErrorCode 9 (REPLICA_NOT_AVAILABLE)
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions[1].PartitionIndex 1
			0x00, 0x00, 0x00, 0x02, // Topics[0].Partitions[1].LeaderId 2
			0x00, 0x00, 0x00, 0x02, // Topics[0].Partitions[1].ReplicaNodes: 2 elements
			0x00, 0x00, 0x00, 0x02, // Topics[0].Partitions[1].ReplicaNodes[0] 2
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions[1].ReplicaNodes[1] 1
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions[1].IsrNodes: 1 element
			0x00, 0x00, 0x00, 0x02, // Topics[0].Partitions[1].IsrNodes[0] 2
			0x00, 0x03, // Topics[1].ErrorCode 3 (UNKNOWN_TOPIC_OR_PARTITION)
			0x00, 0x08, 'p', 'a', 'y', 'm', 'e', 'n', 't', 's', // Topics[1].Name "payments"
			0x00, 0x00, 0x00, 0x00, // Topics[1].Partitions: 0 elements
		},
		respHeader: &ResponseHeader{
			CorrelationId: 11,
		},
		body: &MetadataResponse{
			ThrottleTimeMs: 0,
			Brokers: []MetadataResponseBroker{
				{
					NodeId: 1,
					Host:   "broker-1.example",
					Port:   9092,
					Rack:   nil,
				},
				{
					NodeId: 2,
					Host:   "broker-2.example",
					Port:   9093,
					Rack:   nil,
				},
			},
			ClusterId:    nil,
			ControllerId: -1,
			Topics: []MetadataResponseTopic{
				{
					ErrorCode:  0,
					Name:       goldenStr("orders"),
					TopicId:    UUID{0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00},
					IsInternal: false,
					Partitions: []MetadataResponsePartition{
						{
							ErrorCode:       0,
							PartitionIndex:  0,
							LeaderId:        1,
							LeaderEpoch:     -1,
							ReplicaNodes:    []int32{1, 2},
							IsrNodes:        []int32{1, 2},
							OfflineReplicas: nil,
						},
						{
							ErrorCode:       9,
							PartitionIndex:  1,
							LeaderId:        2,
							LeaderEpoch:     -1,
							ReplicaNodes:    []int32{2, 1},
							IsrNodes:        []int32{2},
							OfflineReplicas: nil,
						},
					},
					TopicAuthorizedOperations: -2147483648,
				},
				{
					ErrorCode:                 3,
					Name:                      goldenStr("payments"),
					TopicId:                   UUID{0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00},
					IsInternal:                false,
					Partitions:                []MetadataResponsePartition{},
					TopicAuthorizedOperations: -2147483648,
				},
			},
			ClusterAuthorizedOperations: -2147483648,
		},
	},
	{
		name: "Metadata/v9/request",
		key:  3, version: 9,
		frame: []byte{
			0x00, 0x03, // RequestApiKey 3 (Metadata)
			0x00, 0x09, // RequestApiVersion 9
			0x00, 0x00, 0x00, 0x0c, // CorrelationId 12
			0x00, 0x03, 'c', 'l', 'i', // ClientId "cli" (header ClientId is never compact)
			0x00, // header tagged fields: none
			0x00, // Topics: null (compact: 0)
			0x00, // AllowAutoTopicCreation false
			0x01, // IncludeClusterAuthorizedOperations true
			0x01, // IncludeTopicAuthorizedOperations true
			0x00, // body tagged fields: none
		},
		reqHeader: &RequestHeader{
			RequestApiKey:     3,
			RequestApiVersion: 9,
			CorrelationId:     12,
			ClientId:          goldenStr("cli"),
		},
		body: &MetadataRequest{
			Topics:                             nil,
			AllowAutoTopicCreation:             false,
			IncludeClusterAuthorizedOperations: true,
			IncludeTopicAuthorizedOperations:   true,
		},
	},
	{
		name: "Metadata/v9/response",
		key:  3, version: 9,
		response: true,
		frame: []byte{
			0x00, 0x00, 0x00, 0x0c, // CorrelationId 12
			0x00,                   // header tagged fields: none
			0x00, 0x00, 0x00, 0x0a, // ThrottleTimeMs 10
			0x03,                   // Brokers: 2 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x01, // Brokers[0].NodeId 1
			0x11, 'b', 'r', 'o', 'k', 'e', 'r', '-', '1', '.', 'e', 'x', 'a', 'm', 'p', 'l', 'e', // Brokers[0].Host "broker-1.example" (compact: length+1)
			0x00, 0x00, 0x23, 0x84, // Brokers[0].Port 9092
			0x0b, 'u', 's', '-', 'e', 'a', 's', 't', '-', '1', 'a', // Brokers[0].Rack "us-east-1a" (compact: length+1)
			0x00,                   // Brokers[0] tagged fields: none
			0x00, 0x00, 0x00, 0x02, // Brokers[1].NodeId 2
			0x11, 'b', 'r', 'o', 'k', 'e', 'r', '-', '2', '.', 'e', 'x', 'a', 'm', 'p', 'l', 'e', // Brokers[1].Host "broker-2.example" (compact: length+1)
			0x00, 0x00, 0x23, 0x84, // Brokers[1].Port 9092
			0x00,                                                                                 // Brokers[1].Rack null (compact: 0)
			0x00,                                                                                 // Brokers[1] tagged fields: none
			0x11, 'k', 'a', 'f', 'k', 'a', '-', 'c', 'l', 'u', 's', 't', 'e', 'r', '-', 'i', 'd', // ClusterId "kafka-cluster-id" (compact: length+1)
			0x00, 0x00, 0x00, 0x01, // ControllerId 1
			0x02,       // Topics: 1 element (compact: count+1)
			0x00, 0x00, // Topics[0].ErrorCode 0 (NONE)
			0x13, '_', '_', 'c', 'o', 'n', 's', 'u', 'm', 'e', 'r', '_', 'o', 'f', 'f', 's', 'e', 't', 's', // Topics[0].Name "__consumer_offsets" (compact: length+1)
			0x01,       // Topics[0].IsInternal true
			0x02,       // Topics[0].Partitions: 1 element (compact: count+1)
			0x00, 0x00, // Topics[0].Partitions[0].ErrorCode 0 (NONE)
			0x00, 0x00, 0x00, 0x00, // Topics[0].Partitions[0].PartitionIndex 0
			0x00, 0x00, 0x00, 0x02, // Topics[0].Partitions[0].LeaderId 2
			0x00, 0x00, 0x00, 0x0c, // Topics[0].Partitions[0].LeaderEpoch 12
			0x04,                   // Topics[0].Partitions[0].ReplicaNodes: 3 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x02, // Topics[0].Partitions[0].ReplicaNodes[0] 2
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions[0].ReplicaNodes[1] 1
			0x00, 0x00, 0x00, 0x03, // Topics[0].Partitions[0].ReplicaNodes[2] 3
			0x03,                   // Topics[0].Partitions[0].IsrNodes: 2 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x02, // Topics[0].Partitions[0].IsrNodes[0] 2
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions[0].IsrNodes[1] 1
			0x02,                   // Topics[0].Partitions[0].OfflineReplicas: 1 element (compact: count+1)
			0x00, 0x00, 0x00, 0x03, // Topics[0].Partitions[0].OfflineReplicas[0] 3
			0x00,                   // Topics[0].Partitions[0] tagged fields: none
			0x00, 0x00, 0x0f, 0xf8, // Topics[0].TopicAuthorizedOperations 4088
			0x00,                   // Topics[0] tagged fields: none
			0x00, 0x00, 0x0f, 0xb8, // ClusterAuthorizedOperations 4024
			0x00, // body tagged fields: none
		},
		respHeader: &ResponseHeader{
			CorrelationId: 12,
		},
		body: &MetadataResponse{
			ThrottleTimeMs: 10,
			Brokers: []MetadataResponseBroker{
				{
					NodeId: 1,
					Host:   "broker-1.example",
					Port:   9092,
					Rack:   goldenStr("us-east-1a"),
				},
				{
					NodeId: 2,
					Host:   "broker-2.example",
					Port:   9092,
					Rack:   nil,
				},
			},
			ClusterId:    goldenStr("kafka-cluster-id"),
			ControllerId: 1,
			Topics: []MetadataResponseTopic{
				{
					ErrorCode:  0,
					Name:       goldenStr("__consumer_offsets"),
					TopicId:    UUID{0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00},
					IsInternal: true,
					Partitions: []MetadataResponsePartition{
						{
							ErrorCode:       0,
							PartitionIndex:  0,
							LeaderId:        2,
							LeaderEpoch:     12,
							ReplicaNodes:    []int32{2, 1, 3},
							IsrNodes:        []int32{2, 1},
							OfflineReplicas: []int32{3},
						},
					},
					TopicAuthorizedOperations: 4088,
				},
			},
			ClusterAuthorizedOperations: 4024,
		},
	},
	{
		name: "Metadata/v12/request",
		key:  3, version: 12,
		frame: []byte{
			0x00, 0x03, // RequestApiKey 3 (Metadata)
			0x00, 0x0c, // RequestApiVersion 12
			0x00, 0x00, 0x00, 0x0d, // CorrelationId 13
			0x00, 0x03, 'c', 'l', 'i', // ClientId "cli" (header ClientId is never compact)
			0x00,                                                                                           // header tagged fields: none
			0x03,                                                                                           // Topics: 2 elements (compact: count+1)
			0x6b, 0x1f, 0x3c, 0x52, 0x9e, 0x0a, 0x4d, 0x7b, 0x8c, 0x21, 0x55, 0xe4, 0x0f, 0x93, 0xa6, 0x17, // Topics[0].TopicId 6b1f3c52-9e0a-4d7b-8c21-55e40f93a617
			0x00,                                                                                           // Topics[0].Name null (compact: 0)
			0x00,                                                                                           // Topics[0] tagged fields: none
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // Topics[1].TopicId 00000000-0000-0000-0000-000000000000
			0x09, 'p', 'a', 'y', 'm', 'e', 'n', 't', 's', // Topics[1].Name "payments" (compact: length+1)
			0x00, // Topics[1] tagged fields: none
			0x01, // AllowAutoTopicCreation true
			0x00, // IncludeTopicAuthorizedOperations false
			0x00, // body tagged fields: none
		},
		reqHeader: &RequestHeader{
			RequestApiKey:     3,
			RequestApiVersion: 12,
			CorrelationId:     13,
			ClientId:          goldenStr("cli"),
		},
		body: &MetadataRequest{
			Topics: []MetadataRequestTopic{
				{
					TopicId: UUID{0x6b, 0x1f, 0x3c, 0x52, 0x9e, 0x0a, 0x4d, 0x7b, 0x8c, 0x21, 0x55, 0xe4, 0x0f, 0x93, 0xa6, 0x17},
					Name:    nil,
				},
				{
					TopicId: UUID{0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00},
					Name:    goldenStr("payments"),
				},
			},
			AllowAutoTopicCreation:             true,
			IncludeClusterAuthorizedOperations: false,
			IncludeTopicAuthorizedOperations:   false,
		},
	},
	{
		name: "Metadata/v12/response",
		key:  3, version: 12,
		response: true,
		frame: []byte{
			0x00, 0x00, 0x00, 0x0d, // CorrelationId 13
			0x00,                   // header tagged fields: none
			0x00, 0x00, 0x00, 0x00, // ThrottleTimeMs 0
			0x02,                   // Brokers: 1 element (compact: count+1)
			0x00, 0x00, 0x00, 0x03, // Brokers[0].NodeId 3
			0x11, 'b', 'r', 'o', 'k', 'e', 'r', '-', '3', '.', 'e', 'x', 'a', 'm', 'p', 'l', 'e', // Brokers[0].Host "broker-3.example" (compact: length+1)
			0x00, 0x00, 0x23, 0x86, // Brokers[0].Port 9094
			0x07, 'r', 'a', 'c', 'k', '-', 'c', // Brokers[0].Rack "rack-c" (compact: length+1)
			0x01,       // Brokers[0] tagged fields: 1
			0x07, 0x02, // Brokers[0] tag 7, 2 bytes: unknown, kept and re-encoded
			0x00, 0x01, // Brokers[0] tag 7 data
			0x00,                   // ClusterId null (compact: 0)
			0x00, 0x00, 0x00, 0x03, // ControllerId 3
			0x03,       // Topics: 2 elements (compact: count+1)
			0x00, 0x64, // Topics[0].ErrorCode 100 (UNKNOWN_TOPIC_ID)
			0x00,                                                                                           // Topics[0].Name null (compact: 0)
			0x6b, 0x1f, 0x3c, 0x52, 0x9e, 0x0a, 0x4d, 0x7b, 0x8c, 0x21, 0x55, 0xe4, 0x0f, 0x93, 0xa6, 0x17, // Topics[0].TopicId 6b1f3c52-9e0a-4d7b-8c21-55e40f93a617
			0x00,                   // Topics[0].IsInternal false
			0x01,                   // Topics[0].Partitions: 0 elements (compact: count+1)
			0x80, 0x00, 0x00, 0x00, // Topics[0].TopicAuthorizedOperations -2147483648
			0x00,       // Topics[0] tagged fields: none
			0x00, 0x00, // Topics[1].ErrorCode 0 (NONE)
			0x09, 'p', 'a', 'y', 'm', 'e', 'n', 't', 's', // Topics[1].Name "payments" (compact: length+1)
			0x2d, 0x90, 0x11, 0xaf, 0x47, 0x63, 0x4b, 0x08, 0x9a, 0xc5, 0x3e, 0x71, 0xd2, 0x04, 0xb8, 0x6e, // Topics[1].TopicId 2d9011af-4763-4b08-9ac5-3e71d204b86e
			0x00,       // Topics[1].IsInternal false
			0x02,       // Topics[1].Partitions: 1 element (compact: count+1)
			0x00, 0x00, // Topics[1].Partitions[0].ErrorCode 0 (NONE)
			0x00, 0x00, 0x00, 0x00, // Topics[1].Partitions[0].PartitionIndex 0
			0x00, 0x00, 0x00, 0x03, // Topics[1].Partitions[0].LeaderId 3
			0x00, 0x00, 0x00, 0x04, // Topics[1].Partitions[0].LeaderEpoch 4
			0x02,                   // Topics[1].Partitions[0].ReplicaNodes: 1 element (compact: count+1)
			0x00, 0x00, 0x00, 0x03, // Topics[1].Partitions[0].ReplicaNodes[0] 3
			0x02,                   // Topics[1].Partitions[0].IsrNodes: 1 element (compact: count+1)
			0x00, 0x00, 0x00, 0x03, // Topics[1].Partitions[0].IsrNodes[0] 3
			0x01,                   // Topics[1].Partitions[0].OfflineReplicas: 0 elements (compact: count+1)
			0x00,                   // Topics[1].Partitions[0] tagged fields: none
			0x00, 0x00, 0x0f, 0xf8, // Topics[1].TopicAuthorizedOperations 4088
			0x00, // Topics[1] tagged fields: none
			0x00, // body tagged fields: none
		},
		respHeader: &ResponseHeader{
			CorrelationId: 13,
		},
		body: &MetadataResponse{
			ThrottleTimeMs: 0,
			Brokers: []MetadataResponseBroker{
				{
					NodeId: 3,
					Host:   "broker-3.example",
					Port:   9094,
					Rack:   goldenStr("rack-c"),
					UnknownTags: []TaggedField{
						{
							Tag:  7,
							Data: []byte{0x00, 0x01},
						},
					},
				},
			},
			ClusterId:    nil,
			ControllerId: 3,
			Topics: []MetadataResponseTopic{
				{
					ErrorCode:                 100,
					Name:                      nil,
					TopicId:                   UUID{0x6b, 0x1f, 0x3c, 0x52, 0x9e, 0x0a, 0x4d, 0x7b, 0x8c, 0x21, 0x55, 0xe4, 0x0f, 0x93, 0xa6, 0x17},
					IsInternal:                false,
					Partitions:                []MetadataResponsePartition{},
					TopicAuthorizedOperations: -2147483648,
				},
				{
					ErrorCode:  0,
					Name:       goldenStr("payments"),
					TopicId:    UUID{0x2d, 0x90, 0x11, 0xaf, 0x47, 0x63, 0x4b, 0x08, 0x9a, 0xc5, 0x3e, 0x71, 0xd2, 0x04, 0xb8, 0x6e},
					IsInternal: false,
					Partitions: []MetadataResponsePartition{
						{
							ErrorCode:       0,
							PartitionIndex:  0,
							LeaderId:        3,
							LeaderEpoch:     4,
							ReplicaNodes:    []int32{3},
							IsrNodes:        []int32{3},
							OfflineReplicas: []int32{},
						},
					},
					TopicAuthorizedOperations: 4088,
				},
			},
			ClusterAuthorizedOperations: -2147483648,
		},
	},
	{
		name: "Metadata/v13/request",
		key:  3, version: 13,
		frame: []byte{
			0x00, 0x03, // RequestApiKey 3 (Metadata)
			0x00, 0x0d, // RequestApiVersion 13
			0x00, 0x00, 0x00, 0x0e, // CorrelationId 14
			0x00, 0x07, 'a', 'd', 'm', 'i', 'n', '-', '1', // ClientId "admin-1" (header ClientId is never compact)
			0x00,                                                                                           // header tagged fields: none
			0x04,                                                                                           // Topics: 3 elements (compact: count+1)
			0x6b, 0x1f, 0x3c, 0x52, 0x9e, 0x0a, 0x4d, 0x7b, 0x8c, 0x21, 0x55, 0xe4, 0x0f, 0x93, 0xa6, 0x17, // Topics[0].TopicId 6b1f3c52-9e0a-4d7b-8c21-55e40f93a617
			0x00,                                                                                           // Topics[0].Name null (compact: 0)
			0x00,                                                                                           // Topics[0] tagged fields: none
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // Topics[1].TopicId 00000000-0000-0000-0000-000000000000
			0x13, '_', '_', 'c', 'o', 'n', 's', 'u', 'm', 'e', 'r', '_', 'o', 'f', 'f', 's', 'e', 't', 's', // Topics[1].Name "__consumer_offsets" (compact: length+1)
			0x00,                                                                                           // Topics[1] tagged fields: none
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // Topics[2].TopicId 00000000-0000-0000-0000-000000000000
			0x09, 'p', 'a', 'y', 'm', 'e', 'n', 't', 's', // Topics[2].Name "payments" (compact: length+1)
			0x00, // Topics[2] tagged fields: none
			0x00, // AllowAutoTopicCreation false
			0x01, // IncludeTopicAuthorizedOperations true
			0x00, // body tagged fields: none
		},
		reqHeader: &RequestHeader{
			RequestApiKey:     3,
			RequestApiVersion: 13,
			CorrelationId:     14,
			ClientId:          goldenStr("admin-1"),
		},
		body: &MetadataRequest{
			Topics: []MetadataRequestTopic{
				{
					TopicId: UUID{0x6b, 0x1f, 0x3c, 0x52, 0x9e, 0x0a, 0x4d, 0x7b, 0x8c, 0x21, 0x55, 0xe4, 0x0f, 0x93, 0xa6, 0x17},
					Name:    nil,
				},
				{
					TopicId: UUID{0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00},
					Name:    goldenStr("__consumer_offsets"),
				},
				{
					TopicId: UUID{0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00},
					Name:    goldenStr("payments"),
				},
			},
			AllowAutoTopicCreation:             false,
			IncludeClusterAuthorizedOperations: false,
			IncludeTopicAuthorizedOperations:   true,
		},
	},
	{
		name: "Metadata/v13/response",
		key:  3, version: 13,
		response: true,
		frame: []byte{
			0x00, 0x00, 0x00, 0x0e, // CorrelationId 14
			0x00,                   // header tagged fields: none
			0x00, 0x00, 0x00, 0x1e, // ThrottleTimeMs 30
			0x03,                   // Brokers: 2 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x01, // Brokers[0].NodeId 1
			0x11, 'b', 'r', 'o', 'k', 'e', 'r', '-', '1', '.', 'e', 'x', 'a', 'm', 'p', 'l', 'e', // Brokers[0].Host "broker-1.example" (compact: length+1)
			0x00, 0x00, 0x23, 0x84, // Brokers[0].Port 9092
			0x07, 'r', 'a', 'c', 'k', '-', 'a', // Brokers[0].Rack "rack-a" (compact: length+1)
			0x00,                   // Brokers[0] tagged fields: none
			0x00, 0x00, 0x00, 0x02, // Brokers[1].NodeId 2
			0x11, 'b', 'r', 'o', 'k', 'e', 'r', '-', '2', '.', 'e', 'x', 'a', 'm', 'p', 'l', 'e', // Brokers[1].Host "broker-2.example" (compact: length+1)
			0x00, 0x00, 0x23, 0x84, // Brokers[1].Port 9092
			0x00,                                                                                                               // Brokers[1].Rack null (compact: 0)
			0x00,                                                                                                               // Brokers[1] tagged fields: none
			0x17, 'M', 'k', 'U', '3', 'O', 'E', 'V', 'B', 'N', 'T', 'c', 'w', 'N', 'T', 'J', 'E', 'N', 'D', 'M', '2', 'Q', 'g', // ClusterId "MkU3OEVBNTcwNTJENDM2Qg" (compact: length+1)
			0x00, 0x00, 0x00, 0x01, // ControllerId 1
			0x04,       // Topics: 3 elements (compact: count+1)
			0x00, 0x00, // Topics[0].ErrorCode 0 (NONE)
			0x07, 'o', 'r', 'd', 'e', 'r', 's', // Topics[0].Name "orders" (compact: length+1)
			0x6b, 0x1f, 0x3c, 0x52, 0x9e, 0x0a, 0x4d, 0x7b, 0x8c, 0x21, 0x55, 0xe4, 0x0f, 0x93, 0xa6, 0x17, // Topics[0].TopicId 6b1f3c52-9e0a-4d7b-8c21-55e40f93a617
			0x00,       // Topics[0].IsInternal false
			0x03,       // Topics[0].Partitions: 2 elements (compact: count+1)
			0x00, 0x00, // Topics[0].Partitions[0].ErrorCode 0 (NONE)
			0x00, 0x00, 0x00, 0x00, // Topics[0].Partitions[0].PartitionIndex 0
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions[0].LeaderId 1
			0x00, 0x00, 0x00, 0x0e, // Topics[0].Partitions[0].LeaderEpoch 14
			0x04,                   // Topics[0].Partitions[0].ReplicaNodes: 3 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions[0].ReplicaNodes[0] 1
			0x00, 0x00, 0x00, 0x02, // Topics[0].Partitions[0].ReplicaNodes[1] 2
			0x00, 0x00, 0x00, 0x03, // Topics[0].Partitions[0].ReplicaNodes[2] 3
			0x03,                   // Topics[0].Partitions[0].IsrNodes: 2 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions[0].IsrNodes[0] 1
			0x00, 0x00, 0x00, 0x02, // Topics[0].Partitions[0].IsrNodes[1] 2
			0x02,                   // Topics[0].Partitions[0].OfflineReplicas: 1 element (compact: count+1)
			0x00, 0x00, 0x00, 0x03, // Topics[0].Partitions[0].OfflineReplicas[0] 3
			0x00,       // Topics[0].Partitions[0] tagged fields: none
			0x00, 0x09, // Topics[0].Partitions[1].ErrorCode 9 (REPLICA_NOT_AVAILABLE)
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions[1].PartitionIndex 1
			0x00, 0x00, 0x00, 0x02, // Topics[0].Partitions[1].LeaderId 2
			0x00, 0x00, 0x00, 0x06, // Topics[0].Partitions[1].LeaderEpoch 6
			0x04,                   // Topics[0].Partitions[1].ReplicaNodes: 3 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x02, // Topics[0].Partitions[1].ReplicaNodes[0] 2
			0x00, 0x00, 0x00, 0x03, // Topics[0].Partitions[1].ReplicaNodes[1] 3
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions[1].ReplicaNodes[2] 1
			0x02,                   // Topics[0].Partitions[1].IsrNodes: 1 element (compact: count+1)
			0x00, 0x00, 0x00, 0x02, // Topics[0].Partitions[1].IsrNodes[0] 2
			0x01,                   // Topics[0].Partitions[1].OfflineReplicas: 0 elements (compact: count+1)
			0x00,                   // Topics[0].Partitions[1] tagged fields: none
			0x00, 0x00, 0x0d, 0xf8, // Topics[0].TopicAuthorizedOperations 3576
			0x01,       // Topics[0] tagged fields: 1
			0x04, 0x01, // Topics[0] tag 4, 1 byte: unknown, kept and re-encoded
			0x2a,       // Topics[0] tag 4 data
			0x00, 0x00, // Topics[1].ErrorCode 0 (NONE)
			0x13, '_', '_', 'c', 'o', 'n', 's', 'u', 'm', 'e', 'r', '_', 'o', 'f', 'f', 's', 'e', 't', 's', // Topics[1].Name "__consumer_offsets" (compact: length+1)
			0x91, 0x3e, 0x5a, 0x07, 0xd2, 0x4c, 0x4f, 0x81, 0xb6, 0x0d, 0x7a, 0x2e, 0x19, 0xc8, 0x53, 0xf4, // Topics[1].TopicId 913e5a07-d24c-4f81-b60d-7a2e19c853f4
			0x01,       // Topics[1].IsInternal true
			0x02,       // Topics[1].Partitions: 1 element (compact: count+1)
			0x00, 0x00, // Topics[1].Partitions[0].ErrorCode 0 (NONE)
			0x00, 0x00, 0x00, 0x00, // Topics[1].Partitions[0].PartitionIndex 0
			0x00, 0x00, 0x00, 0x02, // Topics[1].Partitions[0].LeaderId 2
			0x00, 0x00, 0x00, 0x03, // Topics[1].Partitions[0].LeaderEpoch 3
			0x03,                   // Topics[1].Partitions[0].ReplicaNodes: 2 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x02, // Topics[1].Partitions[0].ReplicaNodes[0] 2
			0x00, 0x00, 0x00, 0x01, // Topics[1].Partitions[0].ReplicaNodes[1] 1
			0x03,                   // Topics[1].Partitions[0].IsrNodes: 2 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x02, // Topics[1].Partitions[0].IsrNodes[0] 2
			0x00, 0x00, 0x00, 0x01, // Topics[1].Partitions[0].IsrNodes[1] 1
			0x01,                   // Topics[1].Partitions[0].OfflineReplicas: 0 elements (compact: count+1)
			0x00,                   // Topics[1].Partitions[0] tagged fields: none
			0x00, 0x00, 0x01, 0x00, // Topics[1].TopicAuthorizedOperations 256
			0x00,       // Topics[1] tagged fields: none
			0x00, 0x1d, // Topics[2].ErrorCode 29 (TOPIC_AUTHORIZATION_FAILED)
			0x09, 'p', 'a', 'y', 'm', 'e', 'n', 't', 's', // Topics[2].Name "payments" (compact: length+1)
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // Topics[2].TopicId 00000000-0000-0000-0000-000000000000
			0x00,                   // Topics[2].IsInternal false
			0x01,                   // Topics[2].Partitions: 0 elements (compact: count+1)
			0x80, 0x00, 0x00, 0x00, // Topics[2].TopicAuthorizedOperations -2147483648
			0x00,       // Topics[2] tagged fields: none
			0x00, 0x81, // ErrorCode 129 (REBOOTSTRAP_REQUIRED)
			0x00, // body tagged fields: none
		},
		respHeader: &ResponseHeader{
			CorrelationId: 14,
		},
		body: &MetadataResponse{
			ThrottleTimeMs: 30,
			Brokers: []MetadataResponseBroker{
				{
					NodeId: 1,
					Host:   "broker-1.example",
					Port:   9092,
					Rack:   goldenStr("rack-a"),
				},
				{
					NodeId: 2,
					Host:   "broker-2.example",
					Port:   9092,
					Rack:   nil,
				},
			},
			ClusterId:    goldenStr("MkU3OEVBNTcwNTJENDM2Qg"),
			ControllerId: 1,
			Topics: []MetadataResponseTopic{
				{
					ErrorCode:  0,
					Name:       goldenStr("orders"),
					TopicId:    UUID{0x6b, 0x1f, 0x3c, 0x52, 0x9e, 0x0a, 0x4d, 0x7b, 0x8c, 0x21, 0x55, 0xe4, 0x0f, 0x93, 0xa6, 0x17},
					IsInternal: false,
					Partitions: []MetadataResponsePartition{
						{
							ErrorCode:       0,
							PartitionIndex:  0,
							LeaderId:        1,
							LeaderEpoch:     14,
							ReplicaNodes:    []int32{1, 2, 3},
							IsrNodes:        []int32{1, 2},
							OfflineReplicas: []int32{3},
						},
						{
							ErrorCode:       9,
							PartitionIndex:  1,
							LeaderId:        2,
							LeaderEpoch:     6,
							ReplicaNodes:    []int32{2, 3, 1},
							IsrNodes:        []int32{2},
							OfflineReplicas: []int32{},
						},
					},
					TopicAuthorizedOperations: 3576,
					UnknownTags: []TaggedField{
						{
							Tag:  4,
							Data: []byte{0x2a},
						},
					},
				},
				{
					ErrorCode:  0,
					Name:       goldenStr("__consumer_offsets"),
					TopicId:    UUID{0x91, 0x3e, 0x5a, 0x07, 0xd2, 0x4c, 0x4f, 0x81, 0xb6, 0x0d, 0x7a, 0x2e, 0x19, 0xc8, 0x53, 0xf4},
					IsInternal: true,
					Partitions: []MetadataResponsePartition{
						{
							ErrorCode:       0,
							PartitionIndex:  0,
							LeaderId:        2,
							LeaderEpoch:     3,
							ReplicaNodes:    []int32{2, 1},
							IsrNodes:        []int32{2, 1},
							OfflineReplicas: []int32{},
						},
					},
					TopicAuthorizedOperations: 256,
				},
				{
					ErrorCode:                 29,
					Name:                      goldenStr("payments"),
					TopicId:                   UUID{0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00},
					IsInternal:                false,
					Partitions:                []MetadataResponsePartition{},
					TopicAuthorizedOperations: -2147483648,
				},
			},
			ClusterAuthorizedOperations: -2147483648,
			ErrorCode:                   129,
		},
	},
}
