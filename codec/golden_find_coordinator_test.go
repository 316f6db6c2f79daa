// Golden FindCoordinator frames: bytes encoded by franz-go's kmsg, annotated field by
// field from Kafka's message definitions. See golden_test.go.

package codec

var goldenFindCoordinatorCases = []goldenCase{
	{
		name: "FindCoordinator/v0/request",
		key:  10, version: 0,
		frame: []byte{
			0x00, 0x0a, // RequestApiKey 10 (FindCoordinator)
			0x00, 0x00, // RequestApiVersion 0
			0x00, 0x00, 0x00, 0x33, // CorrelationId 51
			0x00, 0x03, 'c', 'l', 'i', // ClientId "cli" (header ClientId is never compact)
			0x00, 0x08, 'm', 'y', '-', 'g', 'r', 'o', 'u', 'p', // Key "my-group"
		},
		reqHeader: &RequestHeader{
			RequestApiKey:     10,
			RequestApiVersion: 0,
			CorrelationId:     51,
			ClientId:          goldenStr("cli"),
		},
		body: &FindCoordinatorRequest{
			Key:             "my-group",
			KeyType:         0,
			CoordinatorKeys: nil,
		},
	},
	{
		name: "FindCoordinator/v0/response",
		key:  10, version: 0,
		response: true,
		frame: []byte{
			0x00, 0x00, 0x00, 0x33, // CorrelationId 51
			0x00, 0x00, // ErrorCode 0 (NONE)
			0x00, 0x00, 0x00, 0x02, // NodeId 2
			0x00, 0x10, 'b', 'r', 'o', 'k', 'e', 'r', '-', '2', '.', 'e', 'x', 'a', 'm', 'p', 'l', 'e', // Host "broker-2.example"
			0x00, 0x00, 0x23, 0x85, // Port 9093
		},
		respHeader: &ResponseHeader{
			CorrelationId: 51,
		},
		body: &FindCoordinatorResponse{
			ThrottleTimeMs: 0,
			ErrorCode:      0,
			ErrorMessage:   goldenStr(""),
			NodeId:         2,
			Host:           "broker-2.example",
			Port:           9093,
			Coordinators:   nil,
		},
	},
	{
		name: "FindCoordinator/v3/request",
		key:  10, version: 3,
		frame: []byte{
			0x00, 0x0a, // RequestApiKey 10 (FindCoordinator)
			0x00, 0x03, // RequestApiVersion 3
			0x00, 0x00, 0x00, 0x34, // CorrelationId 52
			0x00, 0x0a, 'p', 'r', 'o', 'd', 'u', 'c', 'e', 'r', '-', '1', // ClientId "producer-1" (header ClientId is never compact)
			0x00,                                              // header tagged fields: none
			0x0a, 't', 'x', 'n', '-', 'a', 'p', 'p', '-', '1', // Key "txn-app-1" (compact: length+1)
			0x01, // KeyType 1
			0x00, // body tagged fields: none
		},
		reqHeader: &RequestHeader{
			RequestApiKey:     10,
			RequestApiVersion: 3,
			CorrelationId:     52,
			ClientId:          goldenStr("producer-1"),
		},
		body: &FindCoordinatorRequest{
			Key:             "txn-app-1",
			KeyType:         1,
			CoordinatorKeys: nil,
		},
	},
	{
		name: "FindCoordinator/v3/response",
		key:  10, version: 3,
		response: true,
		frame: []byte{
			0x00, 0x00, 0x00, 0x34, // CorrelationId 52
			0x00,                   // header tagged fields: none
			0x00, 0x00, 0x00, 0x00, // ThrottleTimeMs 0
			0x00, 0x0f, // ErrorCode 15 (COORDINATOR_NOT_AVAILABLE)
			0x22, 'T', 'h', 'e', ' ', 'c', 'o', 'o', 'r', 'd', 'i', 'n', 'a', 't', 'o', 'r', ' ', 'i', 's', ' ', 'n', 'o', 't', ' ', 'a', 'v', 'a', 'i', 'l', 'a', 'b', 'l', 'e', '.', // ErrorMessage "The coordinator is not available." (compact: length+1)
			0xff, 0xff, 0xff, 0xff, // NodeId -1
			0x01,                   // Host "" (compact: length+1)
			0xff, 0xff, 0xff, 0xff, // Port -1
			0x00, // body tagged fields: none
		},
		respHeader: &ResponseHeader{
			CorrelationId: 52,
		},
		body: &FindCoordinatorResponse{
			ThrottleTimeMs: 0,
			ErrorCode:      15,
			ErrorMessage:   goldenStr("The coordinator is not available."),
			NodeId:         -1,
			Host:           "",
			Port:           -1,
			Coordinators:   nil,
		},
	},
	{
		name: "FindCoordinator/v6/request",
		key:  10, version: 6,
		frame: []byte{
			0x00, 0x0a, // RequestApiKey 10 (FindCoordinator)
			0x00, 0x06, // RequestApiVersion 6
			0x00, 0x00, 0x00, 0x35, // CorrelationId 53
			0x00, 0x0a, 'c', 'o', 'n', 's', 'u', 'm', 'e', 'r', '-', '1', // ClientId "consumer-1" (header ClientId is never compact)
			0x00,                                    // header tagged fields: none
			0x00,                                    // KeyType 0
			0x03,                                    // CoordinatorKeys: 2 elements (compact: count+1)
			0x08, 'g', 'r', 'o', 'u', 'p', '-', 'a', // CoordinatorKeys[0] "group-a" (compact: length+1)
			0x08, 'g', 'r', 'o', 'u', 'p', '-', 'b', // CoordinatorKeys[1] "group-b" (compact: length+1)
			0x00, // body tagged fields: none
		},
		reqHeader: &RequestHeader{
			RequestApiKey:     10,
			RequestApiVersion: 6,
			CorrelationId:     53,
			ClientId:          goldenStr("consumer-1"),
		},
		body: &FindCoordinatorRequest{
			Key:             "",
			KeyType:         0,
			CoordinatorKeys: []string{"group-a", "group-b"},
		},
	},
	{
		name: "FindCoordinator/v6/response",
		key:  10, version: 6,
		response: true,
		frame: []byte{
			0x00, 0x00, 0x00, 0x35, // CorrelationId 53
			0x00,                   // header tagged fields: none
			0x00, 0x00, 0x00, 0x07, // ThrottleTimeMs 7
			0x03,                                    // Coordinators: 2 elements (compact: count+1)
			0x08, 'g', 'r', 'o', 'u', 'p', '-', 'a', // Coordinators[0].Key "group-a" (compact: length+1)
			0x00, 0x00, 0x00, 0x01, // Coordinators[0].NodeId 1
			0x11, 'b', 'r', 'o', 'k', 'e', 'r', '-', '1', '.', 'e', 'x', 'a', 'm', 'p', 'l', 'e', // Coordinators[0].Host "broker-1.example" (compact: length+1)
			0x00, 0x00, 0x23, 0x84, // Coordinators[0].Port 9092
			0x00, 0x00, // Coordinators[0].ErrorCode 0 (NONE)
			0x00,                                    // Coordinators[0].ErrorMessage null (compact: 0)
			0x00,                                    // Coordinators[0] tagged fields: none
			0x08, 'g', 'r', 'o', 'u', 'p', '-', 'b', // Coordinators[1].Key "group-b" (compact: length+1)
			0xff, 0xff, 0xff, 0xff, // Coordinators[1].NodeId -1
			0x01,                   // Coordinators[1].Host "" (compact: length+1)
			0xff, 0xff, 0xff, 0xff, // Coordinators[1].Port -1
			0x00, 0x0f, // Coordinators[1].ErrorCode 15 (COORDINATOR_NOT_AVAILABLE)
			0x22, 'T', 'h', 'e', ' ', 'c', 'o', 'o', 'r', 'd', 'i', 'n', 'a', 't', 'o', 'r', ' ', 'i', 's', ' ', 'n', 'o', 't', ' ', 'a', 'v', 'a', 'i', 'l', 'a', 'b', 'l', 'e', '.', // Coordinators[1].ErrorMessage "The coordinator is not available." (compact: length+1)
			0x01,       // Coordinators[1] tagged fields: 1
			0x03, 0x01, // Coordinators[1] tag 3, 1 byte: unknown, kept and re-encoded
			0x00, // Coordinators[1] tag 3 data
			0x00, // body tagged fields: none
		},
		respHeader: &ResponseHeader{
			CorrelationId: 53,
		},
		body: &FindCoordinatorResponse{
			ThrottleTimeMs: 7,
			ErrorCode:      0,
			ErrorMessage:   goldenStr(""),
			NodeId:         0,
			Host:           "",
			Port:           0,
			Coordinators: []FindCoordinatorResponseCoordinator{
				{
					Key:          "group-a",
					NodeId:       1,
					Host:         "broker-1.example",
					Port:         9092,
					ErrorCode:    0,
					ErrorMessage: nil,
				},
				{
					Key:          "group-b",
					NodeId:       -1,
					Host:         "",
					Port:         -1,
					ErrorCode:    15,
					ErrorMessage: goldenStr("The coordinator is not available."),
					UnknownTags: []TaggedField{
						{
							Tag:  3,
							Data: []byte{0x00},
						},
					},
				},
			},
		},
	},
}
