// Golden OffsetFetch frames: bytes encoded by franz-go's kmsg, annotated field by
// field from Kafka's message definitions. See golden_test.go.
//
// Kafka 4.0's definitions stop at v9. The v10 frames were walked with them plus
// newer Kafka's v10 change (a group topic's Name ends at v9, its TopicId takes
// the place from v10), as kmsg v1.15.1 encodes it.

package codec

var goldenOffsetFetchCases = []goldenCase{
	{
		name: "OffsetFetch/v0/request",
		key:  9, version: 0,
		frame: []byte{
			0x00, 0x09, // RequestApiKey 9 (OffsetFetch)
			0x00, 0x00, // RequestApiVersion 0
			0x00, 0x00, 0x00, 0x47, // CorrelationId 71
			0x00, 0x03, 'c', 'l', 'i', // ClientId "cli" (header ClientId is never compact)
			0x00, 0x08, 'm', 'y', '-', 'g', 'r', 'o', 'u', 'p', // GroupId "my-group"
			0x00, 0x00, 0x00, 0x01, // Topics: 1 element
			0x00, 0x06, 'o', 'r', 'd', 'e', 'r', 's', // Topics[0].Name "orders"
			0x00, 0x00, 0x00, 0x02, // Topics[0].PartitionIndexes: 2 elements
			0x00, 0x00, 0x00, 0x00, // Topics[0].PartitionIndexes[0] 0
			0x00, 0x00, 0x00, 0x01, // Topics[0].PartitionIndexes[1] 1
		},
		reqHeader: &RequestHeader{
			RequestApiKey:     9,
			RequestApiVersion: 0,
			CorrelationId:     71,
			ClientId:          goldenStr("cli"),
		},
		body: &OffsetFetchRequest{
			GroupId: "my-group",
			Topics: []OffsetFetchRequestTopic{
				{
					Name:             "orders",
					PartitionIndexes: []int32{0, 1},
				},
			},
			Groups:        nil,
			RequireStable: false,
		},
	},
	{
		name: "OffsetFetch/v0/response",
		key:  9, version: 0,
		response: true,
		frame: []byte{
			0x00, 0x00, 0x00, 0x47, // CorrelationId 71
			0x00, 0x00, 0x00, 0x01, // Topics: 1 element
			0x00, 0x06, 'o', 'r', 'd', 'e', 'r', 's', // Topics[0].Name "orders"
			0x00, 0x00, 0x00, 0x02, // Topics[0].Partitions: 2 elements
			0x00, 0x00, 0x00, 0x00, // Topics[0].Partitions[0].PartitionIndex 0
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2a, // Topics[0].Partitions[0].CommittedOffset 42
			0x00, 0x00, // Topics[0].Partitions[0].Metadata ""
			0x00, 0x00, // Topics[0].Partitions[0].ErrorCode 0 (NONE)
			0x00, 0x00, 0x00, 0x01, // Topics[0].Partitions[1].PartitionIndex 1
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Topics[0].Partitions[1].CommittedOffset -1
			0xff, 0xff, // Topics[0].Partitions[1].Metadata null (-1)
			0x00, 0x00, // Topics[0].Partitions[1].ErrorCode 0 (NONE)
		},
		respHeader: &ResponseHeader{
			CorrelationId: 71,
		},
		body: &OffsetFetchResponse{
			ThrottleTimeMs: 0,
			Topics: []OffsetFetchResponseTopic{
				{
					Name: "orders",
					Partitions: []OffsetFetchResponsePartition{
						{
							PartitionIndex:       0,
							CommittedOffset:      42,
							CommittedLeaderEpoch: -1,
							Metadata:             goldenStr(""),
							ErrorCode:            0,
						},
						{
							PartitionIndex:       1,
							CommittedOffset:      -1,
							CommittedLeaderEpoch: -1,
							Metadata:             nil,
							ErrorCode:            0,
						},
					},
				},
			},
			ErrorCode: 0,
			Groups:    nil,
		},
	},
	{
		name: "OffsetFetch/v6/request",
		key:  9, version: 6,
		frame: []byte{
			0x00, 0x09, // RequestApiKey 9 (OffsetFetch)
			0x00, 0x06, // RequestApiVersion 6
			0x00, 0x00, 0x00, 0x48, // CorrelationId 72
			0x00, 0x0a, 'c', 'o', 'n', 's', 'u', 'm', 'e', 'r', '-', '1', // ClientId "consumer-1" (header ClientId is never compact)
			0x00,                                         // header tagged fields: none
			0x09, 'm', 'y', '-', 'g', 'r', 'o', 'u', 'p', // GroupId "my-group" (compact: length+1)
			0x00, // Topics: null (compact: 0)
			0x00, // body tagged fields: none
		},
		reqHeader: &RequestHeader{
			RequestApiKey:     9,
			RequestApiVersion: 6,
			CorrelationId:     72,
			ClientId:          goldenStr("consumer-1"),
		},
		body: &OffsetFetchRequest{
			GroupId:       "my-group",
			Topics:        nil,
			Groups:        nil,
			RequireStable: false,
		},
	},
	{
		name: "OffsetFetch/v6/response",
		key:  9, version: 6,
		response: true,
		frame: []byte{
			0x00, 0x00, 0x00, 0x48, // CorrelationId 72
			0x00,                   // header tagged fields: none
			0x00, 0x00, 0x00, 0x04, // ThrottleTimeMs 4
			0x02,                               // Topics: 1 element (compact: count+1)
			0x07, 'o', 'r', 'd', 'e', 'r', 's', // Topics[0].Name "orders" (compact: length+1)
			0x02,                   // Topics[0].Partitions: 1 element (compact: count+1)
			0x00, 0x00, 0x00, 0x00, // Topics[0].Partitions[0].PartitionIndex 0
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2a, // Topics[0].Partitions[0].CommittedOffset 42
			0x00, 0x00, 0x00, 0x07, // Topics[0].Partitions[0].CommittedLeaderEpoch 7
			0x0b, 'c', 'h', 'e', 'c', 'k', 'p', 'o', 'i', 'n', 't', // Topics[0].Partitions[0].Metadata "checkpoint" (compact: length+1)
			0x00, 0x00, // Topics[0].Partitions[0].ErrorCode 0 (NONE)
			0x00,       // Topics[0].Partitions[0] tagged fields: none
			0x00,       // Topics[0] tagged fields: none
			0x00, 0x00, // ErrorCode 0 (NONE)
			0x00, // body tagged fields: none
		},
		respHeader: &ResponseHeader{
			CorrelationId: 72,
		},
		body: &OffsetFetchResponse{
			ThrottleTimeMs: 4,
			Topics: []OffsetFetchResponseTopic{
				{
					Name: "orders",
					Partitions: []OffsetFetchResponsePartition{
						{
							PartitionIndex:       0,
							CommittedOffset:      42,
							CommittedLeaderEpoch: 7,
							Metadata:             goldenStr("checkpoint"),
							ErrorCode:            0,
						},
					},
				},
			},
			ErrorCode: 0,
			Groups:    nil,
		},
	},
	{
		name: "OffsetFetch/v9/request",
		key:  9, version: 9,
		frame: []byte{
			0x00, 0x09, // RequestApiKey 9 (OffsetFetch)
			0x00, 0x09, // RequestApiVersion 9
			0x00, 0x00, 0x00, 0x49, // CorrelationId 73
			0x00, 0x0a, 'c', 'o', 'n', 's', 'u', 'm', 'e', 'r', '-', '1', // ClientId "consumer-1" (header ClientId is never compact)
			0x00,                                         // header tagged fields: none
			0x03,                                         // Groups: 2 elements (compact: count+1)
			0x09, 'm', 'y', '-', 'g', 'r', 'o', 'u', 'p', // Groups[0].GroupId "my-group" (compact: length+1)
			0x0d, 'M', 'x', '3', 'v', 'V', '1', 'p', 'T', 'Q', '8', 'm', 'H', // Groups[0].MemberId "Mx3vV1pTQ8mH" (compact: length+1)
			0x00, 0x00, 0x00, 0x0c, // Groups[0].MemberEpoch 12
			0x02,                               // Groups[0].Topics: 1 element (compact: count+1)
			0x07, 'o', 'r', 'd', 'e', 'r', 's', // Groups[0].Topics[0].Name "orders" (compact: length+1)
			0x03,                   // Groups[0].Topics[0].PartitionIndexes: 2 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x00, // Groups[0].Topics[0].PartitionIndexes[0] 0
			0x00, 0x00, 0x00, 0x01, // Groups[0].Topics[0].PartitionIndexes[1] 1
			0x00,                                                        // Groups[0].Topics[0] tagged fields: none
			0x00,                                                        // Groups[0] tagged fields: none
			0x0c, 'o', 't', 'h', 'e', 'r', '-', 'g', 'r', 'o', 'u', 'p', // Groups[1].GroupId "other-group" (compact: length+1)
			0x00,                   // Groups[1].MemberId null (compact: 0)
			0xff, 0xff, 0xff, 0xff, // Groups[1].MemberEpoch -1
			0x00,       // Groups[1].Topics: null (compact: 0)
			0x00,       // Groups[1] tagged fields: none
			0x01,       // RequireStable true
			0x01,       // body tagged fields: 1
			0x0b, 0x02, // body tag 11, 2 bytes: unknown, kept and re-encoded
			0xff, 0x00, // body tag 11 data
		},
		reqHeader: &RequestHeader{
			RequestApiKey:     9,
			RequestApiVersion: 9,
			CorrelationId:     73,
			ClientId:          goldenStr("consumer-1"),
		},
		body: &OffsetFetchRequest{
			GroupId: "",
			Topics:  nil,
			Groups: []OffsetFetchRequestGroup{
				{
					GroupId:     "my-group",
					MemberId:    goldenStr("Mx3vV1pTQ8mH"),
					MemberEpoch: 12,
					Topics: []OffsetFetchRequestTopics{
						{
							Name:             "orders",
							PartitionIndexes: []int32{0, 1},
						},
					},
				},
				{
					GroupId:     "other-group",
					MemberId:    nil,
					MemberEpoch: -1,
					Topics:      nil,
				},
			},
			RequireStable: true,
			UnknownTags: []TaggedField{
				{
					Tag:  11,
					Data: []byte{0xff, 0x00},
				},
			},
		},
	},
	{
		name: "OffsetFetch/v9/response",
		key:  9, version: 9,
		response: true,
		frame: []byte{
			0x00, 0x00, 0x00, 0x49, // CorrelationId 73
			0x00,                   // header tagged fields: none
			0x00, 0x00, 0x00, 0x00, // ThrottleTimeMs 0
			0x03,                                         // Groups: 2 elements (compact: count+1)
			0x09, 'm', 'y', '-', 'g', 'r', 'o', 'u', 'p', // Groups[0].GroupId "my-group" (compact: length+1)
			0x02,                               // Groups[0].Topics: 1 element (compact: count+1)
			0x07, 'o', 'r', 'd', 'e', 'r', 's', // Groups[0].Topics[0].Name "orders" (compact: length+1)
			0x03,                   // Groups[0].Topics[0].Partitions: 2 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x00, // Groups[0].Topics[0].Partitions[0].PartitionIndex 0
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2b, // Groups[0].Topics[0].Partitions[0].CommittedOffset 43
			0x00, 0x00, 0x00, 0x07, // Groups[0].Topics[0].Partitions[0].CommittedLeaderEpoch 7
			0x00,       // Groups[0].Topics[0].Partitions[0].Metadata null (compact: 0)
			0x00, 0x00, // Groups[0].Topics[0].Partitions[0].ErrorCode 0 (NONE)
			0x00,                   // Groups[0].Topics[0].Partitions[0] tagged fields: none
			0x00, 0x00, 0x00, 0x01, // Groups[0].Topics[0].Partitions[1].PartitionIndex 1
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x12, // Groups[0].Topics[0].Partitions[1].CommittedOffset 18
			0x00, 0x00, 0x00, 0x07, // Groups[0].Topics[0].Partitions[1].CommittedLeaderEpoch 7
			0x01,       // Groups[0].Topics[0].Partitions[1].Metadata "" (compact: length+1)
			0x00, 0x00, // Groups[0].Topics[0].Partitions[1].ErrorCode 0 (NONE)
			0x00,       // Groups[0].Topics[0].Partitions[1] tagged fields: none
			0x00,       // Groups[0].Topics[0] tagged fields: none
			0x00, 0x00, // Groups[0].ErrorCode 0 (NONE)
			0x00,                                                        // Groups[0] tagged fields: none
			0x0c, 'o', 't', 'h', 'e', 'r', '-', 'g', 'r', 'o', 'u', 'p', // Groups[1].GroupId "other-group" (compact: length+1)
			0x01,       // Groups[1].Topics: 0 elements (compact: count+1)
			0x00, 0x10, // Groups[1].ErrorCode 16 (NOT_COORDINATOR)
			0x00, // Groups[1] tagged fields: none
			0x00, // body tagged fields: none
		},
		respHeader: &ResponseHeader{
			CorrelationId: 73,
		},
		body: &OffsetFetchResponse{
			ThrottleTimeMs: 0,
			Topics:         nil,
			ErrorCode:      0,
			Groups: []OffsetFetchResponseGroup{
				{
					GroupId: "my-group",
					Topics: []OffsetFetchResponseTopics{
						{
							Name: "orders",
							Partitions: []OffsetFetchResponsePartitions{
								{
									PartitionIndex:       0,
									CommittedOffset:      43,
									CommittedLeaderEpoch: 7,
									Metadata:             nil,
									ErrorCode:            0,
								},
								{
									PartitionIndex:       1,
									CommittedOffset:      18,
									CommittedLeaderEpoch: 7,
									Metadata:             goldenStr(""),
									ErrorCode:            0,
								},
							},
						},
					},
					ErrorCode: 0,
				},
				{
					GroupId:   "other-group",
					Topics:    []OffsetFetchResponseTopics{},
					ErrorCode: 16,
				},
			},
		},
	},
	{
		name: "OffsetFetch/v10/request",
		key:  9, version: 10,
		frame: []byte{
			0x00, 0x09, // RequestApiKey 9 (OffsetFetch)
			0x00, 0x0a, // RequestApiVersion 10
			0x00, 0x00, 0x00, 0x4a, // CorrelationId 74
			0x00, 0x0a, 'c', 'o', 'n', 's', 'u', 'm', 'e', 'r', '-', '1', // ClientId "consumer-1" (header ClientId is never compact)
			0x00,                                         // header tagged fields: none
			0x03,                                         // Groups: 2 elements (compact: count+1)
			0x09, 'm', 'y', '-', 'g', 'r', 'o', 'u', 'p', // Groups[0].GroupId "my-group" (compact: length+1)
			0x0d, 'M', 'x', '3', 'v', 'V', '1', 'p', 'T', 'Q', '8', 'm', 'H', // Groups[0].MemberId "Mx3vV1pTQ8mH" (compact: length+1)
			0x00, 0x00, 0x00, 0x0e, // Groups[0].MemberEpoch 14
			0x03,                                                                                           // Groups[0].Topics: 2 elements (compact: count+1)
			0x6b, 0x1f, 0x3c, 0x52, 0x9e, 0x0a, 0x4d, 0x7b, 0x8c, 0x21, 0x55, 0xe4, 0x0f, 0x93, 0xa6, 0x17, // Groups[0].Topics[0].TopicId 6b1f3c52-9e0a-4d7b-8c21-55e40f93a617
			0x03,                   // Groups[0].Topics[0].PartitionIndexes: 2 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x00, // Groups[0].Topics[0].PartitionIndexes[0] 0
			0x00, 0x00, 0x00, 0x01, // Groups[0].Topics[0].PartitionIndexes[1] 1
			0x00,                                                                                           // Groups[0].Topics[0] tagged fields: none
			0x2d, 0x90, 0x11, 0xaf, 0x47, 0x63, 0x4b, 0x08, 0x9a, 0xc5, 0x3e, 0x71, 0xd2, 0x04, 0xb8, 0x6e, // Groups[0].Topics[1].TopicId 2d9011af-4763-4b08-9ac5-3e71d204b86e
			0x02,                   // Groups[0].Topics[1].PartitionIndexes: 1 element (compact: count+1)
			0x00, 0x00, 0x00, 0x00, // Groups[0].Topics[1].PartitionIndexes[0] 0
			0x00,                                                        // Groups[0].Topics[1] tagged fields: none
			0x00,                                                        // Groups[0] tagged fields: none
			0x0c, 'o', 't', 'h', 'e', 'r', '-', 'g', 'r', 'o', 'u', 'p', // Groups[1].GroupId "other-group" (compact: length+1)
			0x00,                   // Groups[1].MemberId null (compact: 0)
			0xff, 0xff, 0xff, 0xff, // Groups[1].MemberEpoch -1
			0x00, // Groups[1].Topics: null (compact: 0)
			0x00, // Groups[1] tagged fields: none
			0x01, // RequireStable true
			0x00, // body tagged fields: none
		},
		reqHeader: &RequestHeader{
			RequestApiKey:     9,
			RequestApiVersion: 10,
			CorrelationId:     74,
			ClientId:          goldenStr("consumer-1"),
		},
		body: &OffsetFetchRequest{
			GroupId: "",
			Topics:  nil,
			Groups: []OffsetFetchRequestGroup{
				{
					GroupId:     "my-group",
					MemberId:    goldenStr("Mx3vV1pTQ8mH"),
					MemberEpoch: 14,
					Topics: []OffsetFetchRequestTopics{
						{
							Name:             "",
							TopicId:          UUID{0x6b, 0x1f, 0x3c, 0x52, 0x9e, 0x0a, 0x4d, 0x7b, 0x8c, 0x21, 0x55, 0xe4, 0x0f, 0x93, 0xa6, 0x17},
							PartitionIndexes: []int32{0, 1},
						},
						{
							Name:             "",
							TopicId:          UUID{0x2d, 0x90, 0x11, 0xaf, 0x47, 0x63, 0x4b, 0x08, 0x9a, 0xc5, 0x3e, 0x71, 0xd2, 0x04, 0xb8, 0x6e},
							PartitionIndexes: []int32{0},
						},
					},
				},
				{
					GroupId:     "other-group",
					MemberId:    nil,
					MemberEpoch: -1,
					Topics:      nil,
				},
			},
			RequireStable: true,
		},
	},
	{
		name: "OffsetFetch/v10/response",
		key:  9, version: 10,
		response: true,
		frame: []byte{
			0x00, 0x00, 0x00, 0x4a, // CorrelationId 74
			0x00,                   // header tagged fields: none
			0x00, 0x00, 0x00, 0x04, // ThrottleTimeMs 4
			0x03,                                         // Groups: 2 elements (compact: count+1)
			0x09, 'm', 'y', '-', 'g', 'r', 'o', 'u', 'p', // Groups[0].GroupId "my-group" (compact: length+1)
			0x03,                                                                                           // Groups[0].Topics: 2 elements (compact: count+1)
			0x6b, 0x1f, 0x3c, 0x52, 0x9e, 0x0a, 0x4d, 0x7b, 0x8c, 0x21, 0x55, 0xe4, 0x0f, 0x93, 0xa6, 0x17, // Groups[0].Topics[0].TopicId 6b1f3c52-9e0a-4d7b-8c21-55e40f93a617
			0x03,                   // Groups[0].Topics[0].Partitions: 2 elements (compact: count+1)
			0x00, 0x00, 0x00, 0x00, // Groups[0].Topics[0].Partitions[0].PartitionIndex 0
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2c, // Groups[0].Topics[0].Partitions[0].CommittedOffset 44
			0x00, 0x00, 0x00, 0x07, // Groups[0].Topics[0].Partitions[0].CommittedLeaderEpoch 7
			0x0b, 'c', 'h', 'e', 'c', 'k', 'p', 'o', 'i', 'n', 't', // Groups[0].Topics[0].Partitions[0].Metadata "checkpoint" (compact: length+1)
			0x00, 0x00, // Groups[0].Topics[0].Partitions[0].ErrorCode 0 (NONE)
			0x00,                   // Groups[0].Topics[0].Partitions[0] tagged fields: none
			0x00, 0x00, 0x00, 0x01, // Groups[0].Topics[0].Partitions[1].PartitionIndex 1
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x13, // Groups[0].Topics[0].Partitions[1].CommittedOffset 19
			0x00, 0x00, 0x00, 0x07, // Groups[0].Topics[0].Partitions[1].CommittedLeaderEpoch 7
			0x01,       // Groups[0].Topics[0].Partitions[1].Metadata "" (compact: length+1)
			0x00, 0x00, // Groups[0].Topics[0].Partitions[1].ErrorCode 0 (NONE)
			0x00,                                                                                           // Groups[0].Topics[0].Partitions[1] tagged fields: none
			0x00,                                                                                           // Groups[0].Topics[0] tagged fields: none
			0x2d, 0x90, 0x11, 0xaf, 0x47, 0x63, 0x4b, 0x08, 0x9a, 0xc5, 0x3e, 0x71, 0xd2, 0x04, 0xb8, 0x6e, // Groups[0].Topics[1].TopicId 2d9011af-4763-4b08-9ac5-3e71d204b86e
			0x02,                   // Groups[0].Topics[1].Partitions: 1 element (compact: count+1)
			0x00, 0x00, 0x00, 0x00, // Groups[0].Topics[1].Partitions[0].PartitionIndex 0
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Groups[0].Topics[1].Partitions[0].CommittedOffset -1
			0xff, 0xff, 0xff, 0xff, // Groups[0].Topics[1].Partitions[0].CommittedLeaderEpoch -1
			0x01,       // Groups[0].Topics[1].Partitions[0].Metadata "" (compact: length+1)
			0x00, 0x64, // Groups[0].Topics[1].Partitions[0].ErrorCode 100 (UNKNOWN_TOPIC_ID)
			0x00,       // Groups[0].Topics[1].Partitions[0] tagged fields: none
			0x00,       // Groups[0].Topics[1] tagged fields: none
			0x00, 0x00, // Groups[0].ErrorCode 0 (NONE)
			0x00,                                                        // Groups[0] tagged fields: none
			0x0c, 'o', 't', 'h', 'e', 'r', '-', 'g', 'r', 'o', 'u', 'p', // Groups[1].GroupId "other-group" (compact: length+1)
			0x01,       // Groups[1].Topics: 0 elements (compact: count+1)
			0x00, 0x10, // Groups[1].ErrorCode 16 (NOT_COORDINATOR)
			0x01,       // Groups[1] tagged fields: 1
			0x06, 0x02, // Groups[1] tag 6, 2 bytes: unknown, kept and re-encoded
			0x00, 0x07, // Groups[1] tag 6 data
			0x00, // body tagged fields: none
		},
		respHeader: &ResponseHeader{
			CorrelationId: 74,
		},
		body: &OffsetFetchResponse{
			ThrottleTimeMs: 4,
			Topics:         nil,
			ErrorCode:      0,
			Groups: []OffsetFetchResponseGroup{
				{
					GroupId: "my-group",
					Topics: []OffsetFetchResponseTopics{
						{
							Name:    "",
							TopicId: UUID{0x6b, 0x1f, 0x3c, 0x52, 0x9e, 0x0a, 0x4d, 0x7b, 0x8c, 0x21, 0x55, 0xe4, 0x0f, 0x93, 0xa6, 0x17},
							Partitions: []OffsetFetchResponsePartitions{
								{
									PartitionIndex:       0,
									CommittedOffset:      44,
									CommittedLeaderEpoch: 7,
									Metadata:             goldenStr("checkpoint"),
									ErrorCode:            0,
								},
								{
									PartitionIndex:       1,
									CommittedOffset:      19,
									CommittedLeaderEpoch: 7,
									Metadata:             goldenStr(""),
									ErrorCode:            0,
								},
							},
						},
						{
							Name:    "",
							TopicId: UUID{0x2d, 0x90, 0x11, 0xaf, 0x47, 0x63, 0x4b, 0x08, 0x9a, 0xc5, 0x3e, 0x71, 0xd2, 0x04, 0xb8, 0x6e},
							Partitions: []OffsetFetchResponsePartitions{
								{
									PartitionIndex:       0,
									CommittedOffset:      -1,
									CommittedLeaderEpoch: -1,
									Metadata:             goldenStr(""),
									ErrorCode:            100,
								},
							},
						},
					},
					ErrorCode: 0,
				},
				{
					GroupId:   "other-group",
					Topics:    []OffsetFetchResponseTopics{},
					ErrorCode: 16,
					UnknownTags: []TaggedField{
						{
							Tag:  6,
							Data: []byte{0x00, 0x07},
						},
					},
				},
			},
		},
	},
}
