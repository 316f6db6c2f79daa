// Golden Produce frames: bytes encoded by franz-go's kmsg, annotated field by
// field from Kafka's message definitions. See golden_test.go.
//
// Kafka 4.0's definitions stop at v11. The v13 frames were walked with them
// plus Kafka 4.1's change (v12: none, KIP-890; v13: a topic's Name ends at v12
// and its TopicId takes the place from v13, KIP-516), as kmsg v1.15.1 encodes it.

package codec

var goldenProduceCases = []goldenCase{
	{
		name: "Produce/v0/request",
		key:  0, version: 0,
		frame: goldenJoin([]byte{
			0x00, 0x00, // RequestApiKey 0 (Produce)
			0x00, 0x00, // RequestApiVersion 0
			0x00, 0x00, 0x00, 0x15, // CorrelationId 21
			0x00, 0x00, // ClientId "" (header ClientId is never compact)
			0x00, 0x01, // Acks 1
			0x00, 0x00, 0x05, 0xdc, // TimeoutMs 1500
			0x00, 0x00, 0x00, 0x01, // TopicData: 1 element
			0x00, 0x06, 'o', 'r', 'd', 'e', 'r', 's', // TopicData[0].Name "orders"
			0x00, 0x00, 0x00, 0x01, // TopicData[0].PartitionData: 1 element
			0x00, 0x00, 0x00, 0x02, // TopicData[0].PartitionData[0].Index 2
			0x00, 0x00, 0x00, 0x26, // TopicData[0].PartitionData[0].Records: 38 bytes: goldenMessageSetProduce
		}, goldenMessageSetProduce),
		reqHeader: &RequestHeader{
			RequestApiKey:     0,
			RequestApiVersion: 0,
			CorrelationId:     21,
			ClientId:          goldenStr(""),
		},
		body: &ProduceRequest{
			TransactionalId: nil,
			Acks:            1,
			TimeoutMs:       1500,
			TopicData: []ProduceRequestTopicProduceData{
				{
					Name: "orders",
					PartitionData: []ProduceRequestPartitionProduceData{
						{
							Index:   2,
							Records: Records{Raw: goldenMessageSetProduce},
						},
					},
				},
			},
		},
	},
	{
		name: "Produce/v0/response",
		key:  0, version: 0,
		response: true,
		frame: []byte{
			0x00, 0x00, 0x00, 0x15, // CorrelationId 21
			0x00, 0x00, 0x00, 0x01, // Responses: 1 element
			0x00, 0x06, 'o', 'r', 'd', 'e', 'r', 's', // Responses[0].Name "orders"
			0x00, 0x00, 0x00, 0x01, // Responses[0].PartitionResponses: 1 element
			0x00, 0x00, 0x00, 0x02, // Responses[0].PartitionResponses[0].Index 2
			0x00, 0x00, // Responses[0].PartitionResponses[0].ErrorCode 0 (NONE)
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0xd2, // Responses[0].PartitionResponses[0].BaseOffset 1234
		},
		respHeader: &ResponseHeader{
			CorrelationId: 21,
		},
		body: &ProduceResponse{
			Responses: []ProduceResponseTopicProduceResponse{
				{
					Name: "orders",
					PartitionResponses: []ProduceResponsePartitionProduceResponse{
						{
							Index:           2,
							ErrorCode:       0,
							BaseOffset:      1234,
							LogAppendTimeMs: -1,
							LogStartOffset:  -1,
							RecordErrors:    nil,
							ErrorMessage:    nil,
							CurrentLeader: ProduceResponseLeaderIdAndEpoch{
								LeaderId:    -1,
								LeaderEpoch: -1,
							},
						},
					},
				},
			},
			ThrottleTimeMs: 0,
			NodeEndpoints:  nil,
		},
	},
	{
		name: "Produce/v9/request",
		key:  0, version: 9,
		frame: goldenJoin([]byte{
			0x00, 0x00, // RequestApiKey 0 (Produce)
			0x00, 0x09, // RequestApiVersion 9
			0x00, 0x00, 0x00, 0x16, // CorrelationId 22
			0x00, 0x0a, 'p', 'r', 'o', 'd', 'u', 'c', 'e', 'r', '-', '1', // ClientId "producer-1" (header ClientId is never compact)
			0x00,       // header tagged fields: none
			0x00,       // TransactionalId null (compact: 0)
			0xff, 0xff, // Acks -1
			0x00, 0x00, 0x75, 0x30, // TimeoutMs 30000
			0x02,                               // TopicData: 1 element (compact: count+1)
			0x07, 'o', 'r', 'd', 'e', 'r', 's', // TopicData[0].Name "orders" (compact: length+1)
			0x02,                   // TopicData[0].PartitionData: 1 element (compact: count+1)
			0x00, 0x00, 0x00, 0x02, // TopicData[0].PartitionData[0].Index 2
			0x67, // TopicData[0].PartitionData[0].Records: 102 bytes (compact: length+1): goldenRecordBatchProduce
		}, goldenRecordBatchProduce, []byte{
			0x00, // TopicData[0].PartitionData[0] tagged fields: none
			0x00, // TopicData[0] tagged fields: none
			0x00, // body tagged fields: none
		}),
		reqHeader: &RequestHeader{
			RequestApiKey:     0,
			RequestApiVersion: 9,
			CorrelationId:     22,
			ClientId:          goldenStr("producer-1"),
		},
		body: &ProduceRequest{
			TransactionalId: nil,
			Acks:            -1,
			TimeoutMs:       30000,
			TopicData: []ProduceRequestTopicProduceData{
				{
					Name: "orders",
					PartitionData: []ProduceRequestPartitionProduceData{
						{
							Index:   2,
							Records: Records{Raw: goldenRecordBatchProduce},
						},
					},
				},
			},
		},
	},
	{
		name: "Produce/v9/response",
		key:  0, version: 9,
		response: true,
		frame: []byte{
			0x00, 0x00, 0x00, 0x16, // CorrelationId 22
			0x00,                               // header tagged fields: none
			0x02,                               // Responses: 1 element (compact: count+1)
			0x07, 'o', 'r', 'd', 'e', 'r', 's', // Responses[0].Name "orders" (compact: length+1)
			0x02,                   // Responses[0].PartitionResponses: 1 element (compact: count+1)
			0x00, 0x00, 0x00, 0x02, // Responses[0].PartitionResponses[0].Index 2
			0x00, 0x57, // Responses[0].PartitionResponses[0].ErrorCode 87 (INVALID_RECORD)
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Responses[0].PartitionResponses[0].BaseOffset -1
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Responses[0].PartitionResponses[0].LogAppendTimeMs -1
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, // Responses[0].PartitionResponses[0].LogStartOffset 5
			0x03,                   // Responses[0].PartitionResponses[0].RecordErrors: 2 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x01, // Responses[0].PartitionResponses[0].RecordErrors[0].BatchIndex 1
			0x08, 'b', 'a', 'd', ' ', 'k', 'e', 'y', // Responses[0].PartitionResponses[0].RecordErrors[0].BatchIndexErrorMessage "bad key" (compact: length+1)
			0x00,                   // Responses[0].PartitionResponses[0].RecordErrors[0] tagged fields: none
			0x00, 0x00, 0x00, 0x03, // Responses[0].PartitionResponses[0].RecordErrors[1].BatchIndex 3
			0x00,                                                                                 // Responses[0].PartitionResponses[0].RecordErrors[1].BatchIndexErrorMessage null (compact: 0)
			0x00,                                                                                 // Responses[0].PartitionResponses[0].RecordErrors[1] tagged fields: none
			0x11, 'r', 'e', 'c', 'o', 'r', 'd', 's', ' ', 'r', 'e', 'j', 'e', 'c', 't', 'e', 'd', // Responses[0].PartitionResponses[0].ErrorMessage "records rejected" (compact: length+1)
			0x00,                   // Responses[0].PartitionResponses[0] tagged fields: none
			0x00,                   // Responses[0] tagged fields: none
			0x00, 0x00, 0x00, 0x14, // ThrottleTimeMs 20
			0x00, // body tagged fields: none
		},
		respHeader: &ResponseHeader{
			CorrelationId: 22,
		},
		body: &ProduceResponse{
			Responses: []ProduceResponseTopicProduceResponse{
				{
					Name: "orders",
					PartitionResponses: []ProduceResponsePartitionProduceResponse{
						{
							Index:           2,
							ErrorCode:       87,
							BaseOffset:      -1,
							LogAppendTimeMs: -1,
							LogStartOffset:  5,
							RecordErrors: []ProduceResponseBatchIndexAndErrorMessage{
								{
									BatchIndex:             1,
									BatchIndexErrorMessage: goldenStr("bad key"),
								},
								{
									BatchIndex:             3,
									BatchIndexErrorMessage: nil,
								},
							},
							ErrorMessage: goldenStr("records rejected"),
							CurrentLeader: ProduceResponseLeaderIdAndEpoch{
								LeaderId:    -1,
								LeaderEpoch: -1,
							},
						},
					},
				},
			},
			ThrottleTimeMs: 20,
			NodeEndpoints:  nil,
		},
	},
	{
		name: "Produce/v11/request",
		key:  0, version: 11,
		frame: goldenJoin([]byte{
			0x00, 0x00, // RequestApiKey 0 (Produce)
			0x00, 0x0b, // RequestApiVersion 11
			0x00, 0x00, 0x00, 0x17, // CorrelationId 23
			0x00, 0x0a, 'p', 'r', 'o', 'd', 'u', 'c', 'e', 'r', '-', '1', // ClientId "producer-1" (header ClientId is never compact)
			0x00,                          // header tagged fields: none
			0x06, 't', 'x', 'n', '-', '1', // TransactionalId "txn-1" (compact: length+1)
			0xff, 0xff, // Acks -1
			0x00, 0x00, 0x75, 0x30, // TimeoutMs 30000
			0x02,                               // TopicData: 1 element (compact: count+1)
			0x07, 'o', 'r', 'd', 'e', 'r', 's', // TopicData[0].Name "orders" (compact: length+1)
			0x02,                   // TopicData[0].PartitionData: 1 element (compact: count+1)
			0x00, 0x00, 0x00, 0x02, // TopicData[0].PartitionData[0].Index 2
			0x67, // TopicData[0].PartitionData[0].Records: 102 bytes (compact: length+1): goldenRecordBatchProduce
		}, goldenRecordBatchProduce, []byte{
			0x00, // TopicData[0].PartitionData[0] tagged fields: none
			0x00, // TopicData[0] tagged fields: none
			0x00, // body tagged fields: none
		}),
		reqHeader: &RequestHeader{
			RequestApiKey:     0,
			RequestApiVersion: 11,
			CorrelationId:     23,
			ClientId:          goldenStr("producer-1"),
		},
		body: &ProduceRequest{
			TransactionalId: goldenStr("txn-1"),
			Acks:            -1,
			TimeoutMs:       30000,
			TopicData: []ProduceRequestTopicProduceData{
				{
					Name: "orders",
					PartitionData: []ProduceRequestPartitionProduceData{
						{
							Index:   2,
							Records: Records{Raw: goldenRecordBatchProduce},
						},
					},
				},
			},
		},
	},
	{
		name: "Produce/v11/response",
		key:  0, version: 11,
		response: true,
		frame: []byte{
			0x00, 0x00, 0x00, 0x17, // CorrelationId 23
			0x01,       // header tagged fields: 1
			0x03, 0x01, // header tag 3, 1 byte: unknown, kept and re-encoded
			0x07,                               // header tag 3 data
			0x02,                               // Responses: 1 element (compact: count+1)
			0x07, 'o', 'r', 'd', 'e', 'r', 's', // Responses[0].Name "orders" (compact: length+1)
			0x03,                   // Responses[0].PartitionResponses: 2 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x02, // Responses[0].PartitionResponses[0].Index 2
			0x00, 0x06, // Responses[0].PartitionResponses[0].ErrorCode 6 (NOT_LEADER_OR_FOLLOWER)
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Responses[0].PartitionResponses[0].BaseOffset -1
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Responses[0].PartitionResponses[0].LogAppendTimeMs -1
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Responses[0].PartitionResponses[0].LogStartOffset -1
			0x01,       // Responses[0].PartitionResponses[0].RecordErrors: 0 elements (compact: count+1)
			0x00,       // Responses[0].PartitionResponses[0].ErrorMessage null (compact: 0)
			0x01,       // Responses[0].PartitionResponses[0] tagged fields: 1
			0x00, 0x09, // tag 0 (Responses[0].PartitionResponses[0].CurrentLeader), 9 bytes
			0x00, 0x00, 0x00, 0x03, // Responses[0].PartitionResponses[0].CurrentLeader.LeaderId 3
			0x00, 0x00, 0x00, 0x08, // Responses[0].PartitionResponses[0].CurrentLeader.LeaderEpoch 8
			0x00,                   // Responses[0].PartitionResponses[0].CurrentLeader tagged fields: none
			0x00, 0x00, 0x00, 0x03, // Responses[0].PartitionResponses[1].Index 3
			0x00, 0x00, // Responses[0].PartitionResponses[1].ErrorCode 0 (NONE)
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x13, 0x88, // Responses[0].PartitionResponses[1].BaseOffset 5000
			0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x7b, // Responses[0].PartitionResponses[1].LogAppendTimeMs 1700000000123
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x64, // Responses[0].PartitionResponses[1].LogStartOffset 100
			0x01,                   // Responses[0].PartitionResponses[1].RecordErrors: 0 elements (compact: count+1)
			0x00,                   // Responses[0].PartitionResponses[1].ErrorMessage null (compact: 0)
			0x00,                   // Responses[0].PartitionResponses[1] tagged fields: none
			0x00,                   // Responses[0] tagged fields: none
			0x00, 0x00, 0x00, 0x00, // ThrottleTimeMs 0
			0x02,       // body tagged fields: 2
			0x00, 0x3d, // tag 0 (NodeEndpoints), 61 bytes
			0x03,                   // NodeEndpoints: 2 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x03, // NodeEndpoints[0].NodeId 3
			0x11, 'b', 'r', 'o', 'k', 'e', 'r', '-', '3', '.', 'e', 'x', 'a', 'm', 'p', 'l', 'e', // NodeEndpoints[0].Host "broker-3.example" (compact: length+1)
			0x00, 0x00, 0x23, 0x86, // NodeEndpoints[0].Port 9094
			0x07, 'r', 'a', 'c', 'k', '-', 'c', // NodeEndpoints[0].Rack "rack-c" (compact: length+1)
			0x00,                   // NodeEndpoints[0] tagged fields: none
			0x00, 0x00, 0x00, 0x04, // NodeEndpoints[1].NodeId 4
			0x11, 'b', 'r', 'o', 'k', 'e', 'r', '-', '4', '.', 'e', 'x', 'a', 'm', 'p', 'l', 'e', // NodeEndpoints[1].Host "broker-4.example" (compact: length+1)
			0x00, 0x00, 0x23, 0x87, // NodeEndpoints[1].Port 9095
			0x00,       // NodeEndpoints[1].Rack null (compact: 0)
			0x00,       // NodeEndpoints[1] tagged fields: none
			0x05, 0x01, // body tag 5, 1 byte: unknown, kept and re-encoded
			0x2a, // body tag 5 data
		},
		respHeader: &ResponseHeader{
			CorrelationId: 23,
			UnknownTags: []TaggedField{
				{
					Tag:  3,
					Data: []byte{0x07},
				},
			},
		},
		body: &ProduceResponse{
			Responses: []ProduceResponseTopicProduceResponse{
				{
					Name: "orders",
					PartitionResponses: []ProduceResponsePartitionProduceResponse{
						{
							Index:           2,
							ErrorCode:       6,
							BaseOffset:      -1,
							LogAppendTimeMs: -1,
							LogStartOffset:  -1,
							RecordErrors:    []ProduceResponseBatchIndexAndErrorMessage{},
							ErrorMessage:    nil,
							CurrentLeader: ProduceResponseLeaderIdAndEpoch{
								LeaderId:    3,
								LeaderEpoch: 8,
							},
						},
						{
							Index:           3,
							ErrorCode:       0,
							BaseOffset:      5000,
							LogAppendTimeMs: 1700000000123,
							LogStartOffset:  100,
							RecordErrors:    []ProduceResponseBatchIndexAndErrorMessage{},
							ErrorMessage:    nil,
							CurrentLeader: ProduceResponseLeaderIdAndEpoch{
								LeaderId:    -1,
								LeaderEpoch: -1,
							},
						},
					},
				},
			},
			ThrottleTimeMs: 0,
			NodeEndpoints: []ProduceResponseNodeEndpoint{
				{
					NodeId: 3,
					Host:   "broker-3.example",
					Port:   9094,
					Rack:   goldenStr("rack-c"),
				},
				{
					NodeId: 4,
					Host:   "broker-4.example",
					Port:   9095,
					Rack:   nil,
				},
			},
			UnknownTags: []TaggedField{
				{
					Tag:  5,
					Data: []byte{0x2a},
				},
			},
		},
	},
	{
		name: "Produce/v13/request",
		key:  0, version: 13,
		frame: goldenJoin([]byte{
			0x00, 0x00, // RequestApiKey 0 (Produce)
			0x00, 0x0d, // RequestApiVersion 13
			0x00, 0x00, 0x00, 0x18, // CorrelationId 24
			0x00, 0x0a, 'p', 'r', 'o', 'd', 'u', 'c', 'e', 'r', '-', '1', // ClientId "producer-1" (header ClientId is never compact)
			0x00,                                                             // header tagged fields: none
			0x0d, 't', 'x', 'n', '-', 'o', 'r', 'd', 'e', 'r', 's', '-', '1', // TransactionalId "txn-orders-1" (compact: length+1)
			0xff, 0xff, // Acks -1
			0x00, 0x00, 0x75, 0x30, // TimeoutMs 30000
			0x02,                                                                                           // TopicData: 1 element (compact: count+1)
			0x6b, 0x1f, 0x3c, 0x52, 0x9e, 0x0a, 0x4d, 0x7b, 0x8c, 0x21, 0x55, 0xe4, 0x0f, 0x93, 0xa6, 0x17, // TopicData[0].TopicId 6b1f3c52-9e0a-4d7b-8c21-55e40f93a617
			0x04,                   // TopicData[0].PartitionData: 3 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x02, // TopicData[0].PartitionData[0].Index 2
			0x7d, // TopicData[0].PartitionData[0].Records: 124 bytes (compact: length+1): goldenRecordBatchProduceTxnA
		}, goldenRecordBatchProduceTxnA, []byte{
			0x00,                   // TopicData[0].PartitionData[0] tagged fields: none
			0x00, 0x00, 0x00, 0x03, // TopicData[0].PartitionData[1].Index 3
			0x4b, // TopicData[0].PartitionData[1].Records: 74 bytes (compact: length+1): goldenRecordBatchProduceTxnB
		}, goldenRecordBatchProduceTxnB, []byte{
			0x00,                   // TopicData[0].PartitionData[1] tagged fields: none
			0x00, 0x00, 0x00, 0x05, // TopicData[0].PartitionData[2].Index 5
			0x58, // TopicData[0].PartitionData[2].Records: 87 bytes (compact: length+1): goldenRecordBatchProduceTxnC
		}, goldenRecordBatchProduceTxnC, []byte{
			0x00, // TopicData[0].PartitionData[2] tagged fields: none
			0x00, // TopicData[0] tagged fields: none
			0x00, // body tagged fields: none
		}),
		reqHeader: &RequestHeader{
			RequestApiKey:     0,
			RequestApiVersion: 13,
			CorrelationId:     24,
			ClientId:          goldenStr("producer-1"),
		},
		body: &ProduceRequest{
			TransactionalId: goldenStr("txn-orders-1"),
			Acks:            -1,
			TimeoutMs:       30000,
			TopicData: []ProduceRequestTopicProduceData{
				{
					Name:    "",
					TopicId: UUID{0x6b, 0x1f, 0x3c, 0x52, 0x9e, 0x0a, 0x4d, 0x7b, 0x8c, 0x21, 0x55, 0xe4, 0x0f, 0x93, 0xa6, 0x17},
					PartitionData: []ProduceRequestPartitionProduceData{
						{
							Index:   2,
							Records: Records{Raw: goldenRecordBatchProduceTxnA},
						},
						{
							Index:   3,
							Records: Records{Raw: goldenRecordBatchProduceTxnB},
						},
						{
							Index:   5,
							Records: Records{Raw: goldenRecordBatchProduceTxnC},
						},
					},
				},
			},
		},
	},
	{
		name: "Produce/v13/response",
		key:  0, version: 13,
		response: true,
		frame: []byte{
			0x00, 0x00, 0x00, 0x18, // CorrelationId 24
			0x00,                                                                                           // header tagged fields: none
			0x02,                                                                                           // Responses: 1 element (compact: count+1)
			0x6b, 0x1f, 0x3c, 0x52, 0x9e, 0x0a, 0x4d, 0x7b, 0x8c, 0x21, 0x55, 0xe4, 0x0f, 0x93, 0xa6, 0x17, // Responses[0].TopicId 6b1f3c52-9e0a-4d7b-8c21-55e40f93a617
			0x04,                   // Responses[0].PartitionResponses: 3 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x02, // Responses[0].PartitionResponses[0].Index 2
			0x00, 0x00, // Responses[0].PartitionResponses[0].ErrorCode 0 (NONE)
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, // Responses[0].PartitionResponses[0].BaseOffset 5120
			0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x6f, 0xda, // Responses[0].PartitionResponses[0].LogAppendTimeMs 1700000002010
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x64, // Responses[0].PartitionResponses[0].LogStartOffset 100
			0x01,                   // Responses[0].PartitionResponses[0].RecordErrors: 0 elements (compact: count+1)
			0x00,                   // Responses[0].PartitionResponses[0].ErrorMessage null (compact: 0)
			0x00,                   // Responses[0].PartitionResponses[0] tagged fields: none
			0x00, 0x00, 0x00, 0x03, // Responses[0].PartitionResponses[1].Index 3
			0x00, 0x57, // Responses[0].PartitionResponses[1].ErrorCode 87 (INVALID_RECORD)
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Responses[0].PartitionResponses[1].BaseOffset -1
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Responses[0].PartitionResponses[1].LogAppendTimeMs -1
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Responses[0].PartitionResponses[1].LogStartOffset -1
			0x02,                   // Responses[0].PartitionResponses[1].RecordErrors: 1 element (compact: count+1)
			0x00, 0x00, 0x00, 0x00, // Responses[0].PartitionResponses[1].RecordErrors[0].BatchIndex 0
			0x4f, 'C', 'o', 'm', 'p', 'a', 'c', 't', 'e', 'd', ' ', 't', 'o', 'p', 'i', 'c', ' ', 'c', 'a', 'n', 'n', 'o', 't', ' ', 'a', 'c', 'c', 'e', 'p', 't', ' ', 'm', 'e', 's', 's', 'a', 'g', 'e', ' ', 'w', 'i', 't', 'h', 'o', 'u', 't', ' ', 'k', 'e', 'y', ' ', 'i', 'n', ' ', 't', 'o', 'p', 'i', 'c', ' ', 'p', 'a', 'r', 't', 'i', 't', 'i', 'o', 'n', ' ', 'o', 'r', 'd', 'e', 'r', 's', '-', '3', '.', // Responses[0].PartitionResponses[1].RecordErrors[0].BatchIndexErrorMessage "Compacted topic cannot accept message without key in topic partition orders-3." (compact: length+1)
			0x00,                                                                                                                                                                                               // Responses[0].PartitionResponses[1].RecordErrors[0] tagged fields: none
			0x27, 'O', 'n', 'e', ' ', 'o', 'r', ' ', 'm', 'o', 'r', 'e', ' ', 'r', 'e', 'c', 'o', 'r', 'd', 's', ' ', 'h', 'a', 'v', 'e', ' ', 'b', 'e', 'e', 'n', ' ', 'r', 'e', 'j', 'e', 'c', 't', 'e', 'd', // Responses[0].PartitionResponses[1].ErrorMessage "One or more records have been rejected" (compact: length+1)
			0x00,                   // Responses[0].PartitionResponses[1] tagged fields: none
			0x00, 0x00, 0x00, 0x05, // Responses[0].PartitionResponses[2].Index 5
			0x00, 0x06, // Responses[0].PartitionResponses[2].ErrorCode 6 (NOT_LEADER_OR_FOLLOWER)
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Responses[0].PartitionResponses[2].BaseOffset -1
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Responses[0].PartitionResponses[2].LogAppendTimeMs -1
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Responses[0].PartitionResponses[2].LogStartOffset -1
			0x01,       // Responses[0].PartitionResponses[2].RecordErrors: 0 elements (compact: count+1)
			0x00,       // Responses[0].PartitionResponses[2].ErrorMessage null (compact: 0)
			0x01,       // Responses[0].PartitionResponses[2] tagged fields: 1
			0x00, 0x09, // tag 0 (Responses[0].PartitionResponses[2].CurrentLeader), 9 bytes
			0x00, 0x00, 0x00, 0x04, // Responses[0].PartitionResponses[2].CurrentLeader.LeaderId 4
			0x00, 0x00, 0x00, 0x0c, // Responses[0].PartitionResponses[2].CurrentLeader.LeaderEpoch 12
			0x00,                   // Responses[0].PartitionResponses[2].CurrentLeader tagged fields: none
			0x00,                   // Responses[0] tagged fields: none
			0x00, 0x00, 0x00, 0x0a, // ThrottleTimeMs 10
			0x01,       // body tagged fields: 1
			0x00, 0x22, // tag 0 (NodeEndpoints), 34 bytes
			0x02,                   // NodeEndpoints: 1 element (compact: count+1)
			0x00, 0x00, 0x00, 0x04, // NodeEndpoints[0].NodeId 4
			0x11, 'b', 'r', 'o', 'k', 'e', 'r', '-', '4', '.', 'e', 'x', 'a', 'm', 'p', 'l', 'e', // NodeEndpoints[0].Host "broker-4.example" (compact: length+1)
			0x00, 0x00, 0x23, 0x87, // NodeEndpoints[0].Port 9095
			0x07, 'r', 'a', 'c', 'k', '-', 'b', // NodeEndpoints[0].Rack "rack-b" (compact: length+1)
			0x00, // NodeEndpoints[0] tagged fields: none
		},
		respHeader: &ResponseHeader{
			CorrelationId: 24,
		},
		body: &ProduceResponse{
			Responses: []ProduceResponseTopicProduceResponse{
				{
					Name:    "",
					TopicId: UUID{0x6b, 0x1f, 0x3c, 0x52, 0x9e, 0x0a, 0x4d, 0x7b, 0x8c, 0x21, 0x55, 0xe4, 0x0f, 0x93, 0xa6, 0x17},
					PartitionResponses: []ProduceResponsePartitionProduceResponse{
						{
							Index:           2,
							ErrorCode:       0,
							BaseOffset:      5120,
							LogAppendTimeMs: 1700000002010,
							LogStartOffset:  100,
							RecordErrors:    []ProduceResponseBatchIndexAndErrorMessage{},
							ErrorMessage:    nil,
							CurrentLeader: ProduceResponseLeaderIdAndEpoch{
								LeaderId:    -1,
								LeaderEpoch: -1,
							},
						},
						{
							Index:           3,
							ErrorCode:       87,
							BaseOffset:      -1,
							LogAppendTimeMs: -1,
							LogStartOffset:  -1,
							RecordErrors: []ProduceResponseBatchIndexAndErrorMessage{
								{
									BatchIndex:             0,
									BatchIndexErrorMessage: goldenStr("Compacted topic cannot accept message without key in topic partition orders-3."),
								},
							},
							ErrorMessage: goldenStr("One or more records have been rejected"),
							CurrentLeader: ProduceResponseLeaderIdAndEpoch{
								LeaderId:    -1,
								LeaderEpoch: -1,
							},
						},
						{
							Index:           5,
							ErrorCode:       6,
							BaseOffset:      -1,
							LogAppendTimeMs: -1,
							LogStartOffset:  -1,
							RecordErrors:    []ProduceResponseBatchIndexAndErrorMessage{},
							ErrorMessage:    nil,
							CurrentLeader: ProduceResponseLeaderIdAndEpoch{
								LeaderId:    4,
								LeaderEpoch: 12,
							},
						},
					},
				},
			},
			ThrottleTimeMs: 10,
			NodeEndpoints: []ProduceResponseNodeEndpoint{
				{
					NodeId: 4,
					Host:   "broker-4.example",
					Port:   9095,
					Rack:   goldenStr("rack-b"),
				},
			},
		},
	},
}
