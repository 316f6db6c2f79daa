// Golden ApiVersions frames: bytes encoded by franz-go's kmsg, annotated field by
// field from Kafka's message definitions. See golden_test.go.
//
// Kafka 4.0's definitions stop at v4. The v5 request was walked with them plus
// KIP-1242's ClusterId (nullable string) and NodeId (int32), untagged, after
// ClientSoftwareVersion, as kmsg v1.15.1 encodes them; the v5 response is
// laid out as v4. Kafka's own v5 definition was not available to check.

package codec

var goldenApiVersionsCases = []goldenCase{
	{
		name: "ApiVersions/v0/request",
		key:  18, version: 0,
		frame: []byte{
			0x00, 0x12, // RequestApiKey 18 (ApiVersions)
			0x00, 0x00, // RequestApiVersion 0
			0x00, 0x00, 0x00, 0x01, // CorrelationId 1
			0xff, 0xff, // ClientId null (-1)
		},
		reqHeader: &RequestHeader{
			RequestApiKey:     18,
			RequestApiVersion: 0,
			CorrelationId:     1,
			ClientId:          nil,
		},
		body: &ApiVersionsRequest{
			ClientSoftwareName:    "",
			ClientSoftwareVersion: "",
			NodeId:                -1, // v5+ only: its default
		},
	},
	{
		name: "ApiVersions/v0/response",
		key:  18, version: 0,
		response: true,
		frame: []byte{
			0x00, 0x00, 0x00, 0x01, // CorrelationId 1
			0x00, 0x00, // ErrorCode 0 (NONE)
			0x00, 0x00, 0x00, 0x03, // ApiKeys: 3 elements
			0x00, 0x00, // ApiKeys[0].ApiKey 0 (Produce)
			0x00, 0x00, // ApiKeys[0].MinVersion 0
			0x00, 0x0b, // ApiKeys[0].MaxVersion 11
			0x00, 0x01, // ApiKeys[1].ApiKey 1 (Fetch)
			0x00, 0x04, // ApiKeys[1].MinVersion 4
			0x00, 0x11, // ApiKeys[1].MaxVersion 17
			0x00, 0x12, // ApiKeys[2].ApiKey 18 (ApiVersions)
			0x00, 0x00, // ApiKeys[2].MinVersion 0
			0x00, 0x04, // ApiKeys[2].MaxVersion 4
		},
		respHeader: &ResponseHeader{
			CorrelationId: 1,
		},
		body: &ApiVersionsResponse{
			ErrorCode: 0,
			ApiKeys: []ApiVersionsResponseApiVersion{
				{
					ApiKey:     0,
					MinVersion: 0,
					MaxVersion: 11,
				},
				{
					ApiKey:     1,
					MinVersion: 4,
					MaxVersion: 17,
				},
				{
					ApiKey:     18,
					MinVersion: 0,
					MaxVersion: 4,
				},
			},
			ThrottleTimeMs:         0,
			SupportedFeatures:      nil,
			FinalizedFeaturesEpoch: -1,
			FinalizedFeatures:      nil,
			ZkMigrationReady:       false,
		},
	},
	{
		name: "ApiVersions/v3/request",
		key:  18, version: 3,
		frame: []byte{
			0x00, 0x12, // RequestApiKey 18 (ApiVersions)
			0x00, 0x03, // RequestApiVersion 3
			0x00, 0x00, 0x00, 0x02, // CorrelationId 2
			0x00, 0x03, 'c', 'l', 'i', // ClientId "cli" (header ClientId is never compact)
			0x00,                                                                  // header tagged fields: none
			0x0e, 'k', 'd', 'i', 's', 's', 'e', 'c', 't', '-', 't', 'e', 's', 't', // ClientSoftwareName "kdissect-test" (compact: length+1)
			0x06, '1', '.', '2', '.', '3', // ClientSoftwareVersion "1.2.3" (compact: length+1)
			0x00, // body tagged fields: none
		},
		reqHeader: &RequestHeader{
			RequestApiKey:     18,
			RequestApiVersion: 3,
			CorrelationId:     2,
			ClientId:          goldenStr("cli"),
		},
		body: &ApiVersionsRequest{
			ClientSoftwareName:    "kdissect-test",
			ClientSoftwareVersion: "1.2.3",
			NodeId:                -1, // v5+ only: its default
		},
	},
	{
		name: "ApiVersions/v3/response",
		key:  18, version: 3,
		response: true,
		frame: []byte{
			0x00, 0x00, 0x00, 0x02, // CorrelationId 2
			0x00, 0x00, // ErrorCode 0 (NONE)
			0x03,       // ApiKeys: 2 elements (compact: count+1)
			0x00, 0x00, // ApiKeys[0].ApiKey 0 (Produce)
			0x00, 0x03, // ApiKeys[0].MinVersion 3
			0x00, 0x0b, // ApiKeys[0].MaxVersion 11
			0x00,       // ApiKeys[0] tagged fields: none
			0x00, 0x03, // ApiKeys[1].ApiKey 3 (Metadata)
			0x00, 0x00, // ApiKeys[1].MinVersion 0
			0x00, 0x0c, // ApiKeys[1].MaxVersion 12
			0x00,                   // ApiKeys[1] tagged fields: none
			0x00, 0x00, 0x00, 0x05, // ThrottleTimeMs 5
			0x03,       // body tagged fields: 3
			0x00, 0x17, // tag 0 (SupportedFeatures), 23 bytes
			0x02,                                                                                 // SupportedFeatures: 1 element (compact: count+1)
			0x11, 'm', 'e', 't', 'a', 'd', 'a', 't', 'a', '.', 'v', 'e', 'r', 's', 'i', 'o', 'n', // SupportedFeatures[0].Name "metadata.version" (compact: length+1)
			0x00, 0x01, // SupportedFeatures[0].MinVersion 1
			0x00, 0x14, // SupportedFeatures[0].MaxVersion 20
			0x00,       // SupportedFeatures[0] tagged fields: none
			0x01, 0x08, // tag 1 (FinalizedFeaturesEpoch), 8 bytes
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2a, // FinalizedFeaturesEpoch 42
			0x02, 0x17, // tag 2 (FinalizedFeatures), 23 bytes
			0x02,                                                                                 // FinalizedFeatures: 1 element (compact: count+1)
			0x11, 'm', 'e', 't', 'a', 'd', 'a', 't', 'a', '.', 'v', 'e', 'r', 's', 'i', 'o', 'n', // FinalizedFeatures[0].Name "metadata.version" (compact: length+1)
			0x00, 0x14, // FinalizedFeatures[0].MaxVersionLevel 20
			0x00, 0x01, // FinalizedFeatures[0].MinVersionLevel 1
			0x00, // FinalizedFeatures[0] tagged fields: none
		},
		respHeader: &ResponseHeader{
			CorrelationId: 2,
		},
		body: &ApiVersionsResponse{
			ErrorCode: 0,
			ApiKeys: []ApiVersionsResponseApiVersion{
				{
					ApiKey:     0,
					MinVersion: 3,
					MaxVersion: 11,
				},
				{
					ApiKey:     3,
					MinVersion: 0,
					MaxVersion: 12,
				},
			},
			ThrottleTimeMs: 5,
			SupportedFeatures: []ApiVersionsResponseSupportedFeatureKey{
				{
					Name:       "metadata.version",
					MinVersion: 1,
					MaxVersion: 20,
				},
			},
			FinalizedFeaturesEpoch: 42,
			FinalizedFeatures: []ApiVersionsResponseFinalizedFeatureKey{
				{
					Name:            "metadata.version",
					MaxVersionLevel: 20,
					MinVersionLevel: 1,
				},
			},
			ZkMigrationReady: false,
		},
	},
	{
		name: "ApiVersions/v4/request",
		key:  18, version: 4,
		frame: []byte{
			0x00, 0x12, // RequestApiKey 18 (ApiVersions)
			0x00, 0x04, // RequestApiVersion 4
			0x00, 0x00, 0x00, 0x03, // CorrelationId 3
			0x00, 0x05, 'f', 'r', 'a', 'n', 'z', // ClientId "franz" (header ClientId is never compact)
			0x01,       // header tagged fields: 1
			0x06, 0x02, // header tag 6, 2 bytes: unknown, kept and re-encoded
			0x68, 0x69, // header tag 6 data
			0x09, 'f', 'r', 'a', 'n', 'z', '-', 'g', 'o', // ClientSoftwareName "franz-go" (compact: length+1)
			0x08, 'v', '1', '.', '1', '8', '.', '0', // ClientSoftwareVersion "v1.18.0" (compact: length+1)
			0x01,       // body tagged fields: 1
			0x09, 0x01, // body tag 9, 1 byte: unknown, kept and re-encoded
			0x01, // body tag 9 data
		},
		reqHeader: &RequestHeader{
			RequestApiKey:     18,
			RequestApiVersion: 4,
			CorrelationId:     3,
			ClientId:          goldenStr("franz"),
			UnknownTags: []TaggedField{
				{
					Tag:  6,
					Data: []byte{0x68, 0x69},
				},
			},
		},
		body: &ApiVersionsRequest{
			ClientSoftwareName:    "franz-go",
			ClientSoftwareVersion: "v1.18.0",
			NodeId:                -1, // v5+ only: its default
			UnknownTags: []TaggedField{
				{
					Tag:  9,
					Data: []byte{0x01},
				},
			},
		},
	},
	{
		name: "ApiVersions/v4/response",
		key:  18, version: 4,
		response: true,
		frame: []byte{
			0x00, 0x00, 0x00, 0x03, // CorrelationId 3
			0x00, 0x00, // ErrorCode 0 (NONE)
			0x03,       // ApiKeys: 2 elements (compact: count+1)
			0x00, 0x01, // ApiKeys[0].ApiKey 1 (Fetch)
			0x00, 0x04, // ApiKeys[0].MinVersion 4
			0x00, 0x11, // ApiKeys[0].MaxVersion 17
			0x00,       // ApiKeys[0] tagged fields: none
			0x00, 0x12, // ApiKeys[1].ApiKey 18 (ApiVersions)
			0x00, 0x00, // ApiKeys[1].MinVersion 0
			0x00, 0x04, // ApiKeys[1].MaxVersion 4
			0x01,       // ApiKeys[1] tagged fields: 1
			0x04, 0x01, // ApiKeys[1] tag 4, 1 byte: unknown, kept and re-encoded
			0x78,                   // ApiKeys[1] tag 4 data
			0x00, 0x00, 0x00, 0x00, // ThrottleTimeMs 0
			0x05,       // body tagged fields: 5
			0x00, 0x2a, // tag 0 (SupportedFeatures), 42 bytes
			0x03,                                                                  // SupportedFeatures: 2 elements (compact: count+1)
			0x0e, 'k', 'r', 'a', 'f', 't', '.', 'v', 'e', 'r', 's', 'i', 'o', 'n', // SupportedFeatures[0].Name "kraft.version" (compact: length+1)
			0x00, 0x00, // SupportedFeatures[0].MinVersion 0
			0x00, 0x01, // SupportedFeatures[0].MaxVersion 1
			0x00,                                                                                 // SupportedFeatures[0] tagged fields: none
			0x11, 'm', 'e', 't', 'a', 'd', 'a', 't', 'a', '.', 'v', 'e', 'r', 's', 'i', 'o', 'n', // SupportedFeatures[1].Name "metadata.version" (compact: length+1)
			0x00, 0x07, // SupportedFeatures[1].MinVersion 7
			0x00, 0x19, // SupportedFeatures[1].MaxVersion 25
			0x00,       // SupportedFeatures[1] tagged fields: none
			0x01, 0x08, // tag 1 (FinalizedFeaturesEpoch), 8 bytes
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0xd2, // FinalizedFeaturesEpoch 1234
			0x02, 0x17, // tag 2 (FinalizedFeatures), 23 bytes
			0x02,                                                                                 // FinalizedFeatures: 1 element (compact: count+1)
			0x11, 'm', 'e', 't', 'a', 'd', 'a', 't', 'a', '.', 'v', 'e', 'r', 's', 'i', 'o', 'n', // FinalizedFeatures[0].Name "metadata.version" (compact: length+1)
			0x00, 0x19, // FinalizedFeatures[0].MaxVersionLevel 25
			0x00, 0x19, // FinalizedFeatures[0].MinVersionLevel 25
			0x00,       // FinalizedFeatures[0] tagged fields: none
			0x03, 0x01, // tag 3 (ZkMigrationReady), 1 byte
			0x01,       // ZkMigrationReady true
			0x63, 0x02, // body tag 99, 2 bytes: unknown, kept and re-encoded
			0xca, 0xfe, // body tag 99 data
		},
		respHeader: &ResponseHeader{
			CorrelationId: 3,
		},
		body: &ApiVersionsResponse{
			ErrorCode: 0,
			ApiKeys: []ApiVersionsResponseApiVersion{
				{
					ApiKey:     1,
					MinVersion: 4,
					MaxVersion: 17,
				},
				{
					ApiKey:     18,
					MinVersion: 0,
					MaxVersion: 4,
					UnknownTags: []TaggedField{
						{
							Tag:  4,
							Data: []byte{0x78},
						},
					},
				},
			},
			ThrottleTimeMs: 0,
			SupportedFeatures: []ApiVersionsResponseSupportedFeatureKey{
				{
					Name:       "kraft.version",
					MinVersion: 0,
					MaxVersion: 1,
				},
				{
					Name:       "metadata.version",
					MinVersion: 7,
					MaxVersion: 25,
				},
			},
			FinalizedFeaturesEpoch: 1234,
			FinalizedFeatures: []ApiVersionsResponseFinalizedFeatureKey{
				{
					Name:            "metadata.version",
					MaxVersionLevel: 25,
					MinVersionLevel: 25,
				},
			},
			ZkMigrationReady: true,
			UnknownTags: []TaggedField{
				{
					Tag:  99,
					Data: []byte{0xca, 0xfe},
				},
			},
		},
	},
	{
		name: "ApiVersions/v5/request",
		key:  18, version: 5,
		frame: []byte{
			0x00, 0x12, // RequestApiKey 18 (ApiVersions)
			0x00, 0x05, // RequestApiVersion 5
			0x00, 0x00, 0x00, 0x04, // CorrelationId 4
			0x00, 0x05, 'f', 'r', 'a', 'n', 'z', // ClientId "franz" (header ClientId is never compact)
			0x00,                                         // header tagged fields: none
			0x09, 'f', 'r', 'a', 'n', 'z', '-', 'g', 'o', // ClientSoftwareName "franz-go" (compact: length+1)
			0x08, 'v', '1', '.', '2', '0', '.', '1', // ClientSoftwareVersion "v1.20.1" (compact: length+1)
			0x17, 'M', 'k', 'U', '3', 'O', 'E', 'V', 'B', 'N', 'T', 'c', 'w', 'N', 'T', 'J', 'E', 'N', 'D', 'M', '2', 'Q', 'g', // ClusterId "MkU3OEVBNTcwNTJENDM2Qg" (compact: length+1)
			0x00, 0x00, 0x00, 0x02, // NodeId 2
			0x00, // body tagged fields: none
		},
		reqHeader: &RequestHeader{
			RequestApiKey:     18,
			RequestApiVersion: 5,
			CorrelationId:     4,
			ClientId:          goldenStr("franz"),
		},
		body: &ApiVersionsRequest{
			ClientSoftwareName:    "franz-go",
			ClientSoftwareVersion: "v1.20.1",
			ClusterId:             goldenStr("MkU3OEVBNTcwNTJENDM2Qg"),
			NodeId:                2,
		},
	},
	{
		name: "ApiVersions/v5/response",
		key:  18, version: 5,
		response: true,
		frame: []byte{
			0x00, 0x00, 0x00, 0x04, // CorrelationId 4
			0x00, 0x81, // ErrorCode 129 (REBOOTSTRAP_REQUIRED)
			0x08,       // ApiKeys: 7 elements (compact: count+1)
			0x00, 0x00, // ApiKeys[0].ApiKey 0 (Produce)
			0x00, 0x03, // ApiKeys[0].MinVersion 3
			0x00, 0x0d, // ApiKeys[0].MaxVersion 13
			0x00,       // ApiKeys[0] tagged fields: none
			0x00, 0x01, // ApiKeys[1].ApiKey 1 (Fetch)
			0x00, 0x04, // ApiKeys[1].MinVersion 4
			0x00, 0x12, // ApiKeys[1].MaxVersion 18
			0x00,       // ApiKeys[1] tagged fields: none
			0x00, 0x02, // ApiKeys[2].ApiKey 2 (ListOffsets)
			0x00, 0x01, // ApiKeys[2].MinVersion 1
			0x00, 0x0b, // ApiKeys[2].MaxVersion 11
			0x00,       // ApiKeys[2] tagged fields: none
			0x00, 0x03, // ApiKeys[3].ApiKey 3 (Metadata)
			0x00, 0x00, // ApiKeys[3].MinVersion 0
			0x00, 0x0d, // ApiKeys[3].MaxVersion 13
			0x00,       // ApiKeys[3] tagged fields: none
			0x00, 0x08, // ApiKeys[4].ApiKey 8 (OffsetCommit)
			0x00, 0x02, // ApiKeys[4].MinVersion 2
			0x00, 0x0a, // ApiKeys[4].MaxVersion 10
			0x00,       // ApiKeys[4] tagged fields: none
			0x00, 0x09, // ApiKeys[5].ApiKey 9 (OffsetFetch)
			0x00, 0x01, // ApiKeys[5].MinVersion 1
			0x00, 0x0a, // ApiKeys[5].MaxVersion 10
			0x00,       // ApiKeys[5] tagged fields: none
			0x00, 0x12, // ApiKeys[6].ApiKey 18 (ApiVersions)
			0x00, 0x00, // ApiKeys[6].MinVersion 0
			0x00, 0x05, // ApiKeys[6].MaxVersion 5
			0x00,                   // ApiKeys[6] tagged fields: none
			0x00, 0x00, 0x00, 0x0a, // ThrottleTimeMs 10
			0x05,       // body tagged fields: 5
			0x00, 0x2a, // tag 0 (SupportedFeatures), 42 bytes
			0x03,                                                                  // SupportedFeatures: 2 elements (compact: count+1)
			0x0e, 'g', 'r', 'o', 'u', 'p', '.', 'v', 'e', 'r', 's', 'i', 'o', 'n', // SupportedFeatures[0].Name "group.version" (compact: length+1)
			0x00, 0x00, // SupportedFeatures[0].MinVersion 0
			0x00, 0x01, // SupportedFeatures[0].MaxVersion 1
			0x00,                                                                                 // SupportedFeatures[0] tagged fields: none
			0x11, 'm', 'e', 't', 'a', 'd', 'a', 't', 'a', '.', 'v', 'e', 'r', 's', 'i', 'o', 'n', // SupportedFeatures[1].Name "metadata.version" (compact: length+1)
			0x00, 0x07, // SupportedFeatures[1].MinVersion 7
			0x00, 0x1b, // SupportedFeatures[1].MaxVersion 27
			0x00,       // SupportedFeatures[1] tagged fields: none
			0x01, 0x08, // tag 1 (FinalizedFeaturesEpoch), 8 bytes
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x12, 0x67, // FinalizedFeaturesEpoch 4711
			0x02, 0x2a, // tag 2 (FinalizedFeatures), 42 bytes
			0x03,                                                                  // FinalizedFeatures: 2 elements (compact: count+1)
			0x0e, 'g', 'r', 'o', 'u', 'p', '.', 'v', 'e', 'r', 's', 'i', 'o', 'n', // FinalizedFeatures[0].Name "group.version" (compact: length+1)
			0x00, 0x01, // FinalizedFeatures[0].MaxVersionLevel 1
			0x00, 0x01, // FinalizedFeatures[0].MinVersionLevel 1
			0x00,                                                                                 // FinalizedFeatures[0] tagged fields: none
			0x11, 'm', 'e', 't', 'a', 'd', 'a', 't', 'a', '.', 'v', 'e', 'r', 's', 'i', 'o', 'n', // FinalizedFeatures[1].Name "metadata.version" (compact: length+1)
			0x00, 0x1b, // FinalizedFeatures[1].MaxVersionLevel 27
			0x00, 0x1b, // FinalizedFeatures[1].MinVersionLevel 27
			0x00,       // FinalizedFeatures[1] tagged fields: none
			0x03, 0x01, // tag 3 (ZkMigrationReady), 1 byte
			0x01,       // ZkMigrationReady true
			0x0c, 0x02, // body tag 12, 2 bytes: unknown, kept and re-encoded
			0x01, 0x02, // body tag 12 data
		},
		respHeader: &ResponseHeader{
			CorrelationId: 4,
		},
		body: &ApiVersionsResponse{
			ErrorCode: 129,
			ApiKeys: []ApiVersionsResponseApiVersion{
				{
					ApiKey:     0,
					MinVersion: 3,
					MaxVersion: 13,
				},
				{
					ApiKey:     1,
					MinVersion: 4,
					MaxVersion: 18,
				},
				{
					ApiKey:     2,
					MinVersion: 1,
					MaxVersion: 11,
				},
				{
					ApiKey:     3,
					MinVersion: 0,
					MaxVersion: 13,
				},
				{
					ApiKey:     8,
					MinVersion: 2,
					MaxVersion: 10,
				},
				{
					ApiKey:     9,
					MinVersion: 1,
					MaxVersion: 10,
				},
				{
					ApiKey:     18,
					MinVersion: 0,
					MaxVersion: 5,
				},
			},
			ThrottleTimeMs: 10,
			SupportedFeatures: []ApiVersionsResponseSupportedFeatureKey{
				{
					Name:       "group.version",
					MinVersion: 0,
					MaxVersion: 1,
				},
				{
					Name:       "metadata.version",
					MinVersion: 7,
					MaxVersion: 27,
				},
			},
			FinalizedFeaturesEpoch: 4711,
			FinalizedFeatures: []ApiVersionsResponseFinalizedFeatureKey{
				{
					Name:            "group.version",
					MaxVersionLevel: 1,
					MinVersionLevel: 1,
				},
				{
					Name:            "metadata.version",
					MaxVersionLevel: 27,
					MinVersionLevel: 27,
				},
			},
			ZkMigrationReady: true,
			UnknownTags: []TaggedField{
				{
					Tag:  12,
					Data: []byte{0x01, 0x02},
				},
			},
		},
	},
}
