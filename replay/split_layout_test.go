package replay

import (
	"reflect"
	"testing"

	"github.com/kdissect/kdissect/codec"
)

// TestRoutedTypesMatchAPIs holds leaderRouted and keyRouted to the
// codec's API table: each splits the request and reads the response
// types of its ApiKey (a wrong type would panic on the assertion).
func TestRoutedTypesMatchAPIs(t *testing.T) {
	for key, l := range leaderRouted {
		api, ok := codec.LookupAPI(key)
		if !ok {
			t.Fatalf("ApiKey %d unknown", key)
		}
		if n := len(l.partitions(api.NewRequest())); n != 0 {
			t.Errorf("%s: an empty request names %d partitions", api.Name, n)
		}
		if got := l.subset(api.NewRequest(), func(tpKey) bool { return true }, func(tpKey) int32 { return -1 }); got.APIKey() != key || got.IsResponse() {
			t.Errorf("%s: subset is a %T", api.Name, got)
		}
		if n := len(l.results(api.NewResponse())); n != 0 {
			t.Errorf("%s: an empty response answers %d partitions", api.Name, n)
		}
	}
	for key, l := range keyRouted {
		api, ok := codec.LookupAPI(key)
		if !ok {
			t.Fatalf("ApiKey %d unknown", key)
		}
		if n := len(l.keys(api.NewRequest())); n != 0 {
			t.Errorf("%s: an empty request names %d keys", api.Name, n)
		}
		if n := len(l.results(api.NewResponse())); n != 0 {
			t.Errorf("%s: an empty response answers %d keys", api.Name, n)
		}
	}
}

// TestLeaderSplitFetch splits a Fetch by partition and merges two
// answers: the parts keep their topics' other fields, take the leader's
// epoch where the captured one named one, and the merged answer lists
// the partitions in the request's order, with the larger throttle and
// both brokers.
func TestLeaderSplitFetch(t *testing.T) {
	l := leaderRouted[codec.ApiKeyFetch]
	id := codec.UUID{1}
	req := &codec.FetchRequest{MaxWaitMs: 500, Topics: []codec.FetchRequestFetchTopic{
		{Topic: "a", Partitions: []codec.FetchRequestFetchPartition{{Partition: 0, CurrentLeaderEpoch: 3}, {Partition: 1, CurrentLeaderEpoch: -1}}},
		{TopicId: id, Partitions: []codec.FetchRequestFetchPartition{{Partition: 7, CurrentLeaderEpoch: 4, FetchOffset: 99}}},
	}}
	order := l.partitions(req)
	want := []tpKey{{"a", codec.UUID{}, 0}, {"a", codec.UUID{}, 1}, {"", id, 7}}
	if !reflect.DeepEqual(order, want) {
		t.Fatalf("partitions %v, want %v", order, want)
	}
	part := l.subset(req, func(k tpKey) bool { return k.partition != 0 }, func(tpKey) int32 { return 9 }).(*codec.FetchRequest)
	wantPart := &codec.FetchRequest{MaxWaitMs: 500, Topics: []codec.FetchRequestFetchTopic{
		{Topic: "a", Partitions: []codec.FetchRequestFetchPartition{{Partition: 1, CurrentLeaderEpoch: -1}}},
		{TopicId: id, Partitions: []codec.FetchRequestFetchPartition{{Partition: 7, CurrentLeaderEpoch: 9, FetchOffset: 99}}},
	}}
	if !reflect.DeepEqual(part, wantPart) {
		t.Fatalf("subset\n%+v\nwant\n%+v", part, wantPart)
	}
	if req.Topics[1].Partitions[0].CurrentLeaderEpoch != 4 || len(req.Topics[0].Partitions) != 2 {
		t.Fatal("subset modified the request")
	}

	a1 := &codec.FetchResponse{ThrottleTimeMs: 5, Responses: []codec.FetchResponseFetchableTopicResponse{
		{TopicId: id, Partitions: []codec.FetchResponsePartitionData{{PartitionIndex: 7, HighWatermark: 70}}},
	}, NodeEndpoints: []codec.FetchResponseNodeEndpoint{{NodeId: 1}}}
	a2 := &codec.FetchResponse{ThrottleTimeMs: 8, ErrorCode: 0, Responses: []codec.FetchResponseFetchableTopicResponse{
		{Topic: "a", Partitions: []codec.FetchResponsePartitionData{{PartitionIndex: 1, ErrorCode: 6}, {PartitionIndex: 0, HighWatermark: 10}}},
	}, NodeEndpoints: []codec.FetchResponseNodeEndpoint{{NodeId: 1}, {NodeId: 2}}}
	results := l.results(a1)
	for k, r := range l.results(a2) {
		results[k] = r
	}
	if r := results[tpKey{"a", codec.UUID{}, 1}]; r.code != 6 {
		t.Fatalf("a[1] answered %d, want 6", r.code)
	}
	merged := l.merge([]codec.Message{a1, a2}, order, results).(*codec.FetchResponse)
	wantMerged := &codec.FetchResponse{ThrottleTimeMs: 8, Responses: []codec.FetchResponseFetchableTopicResponse{
		{Topic: "a", Partitions: []codec.FetchResponsePartitionData{{PartitionIndex: 0, HighWatermark: 10}, {PartitionIndex: 1, ErrorCode: 6}}},
		{TopicId: id, Partitions: []codec.FetchResponsePartitionData{{PartitionIndex: 7, HighWatermark: 70}}},
	}, NodeEndpoints: []codec.FetchResponseNodeEndpoint{{NodeId: 1}, {NodeId: 2}}}
	if !reflect.DeepEqual(merged, wantMerged) {
		t.Fatalf("merged\n%+v\nwant\n%+v", merged, wantMerged)
	}
	if len(a1.NodeEndpoints) != 1 || a1.ThrottleTimeMs != 5 {
		t.Fatal("merge modified the first answer")
	}
}

// TestLeaderSplitIndexes splits a request whose partitions are a list of
// indexes (DescribeProducers).
func TestLeaderSplitIndexes(t *testing.T) {
	l := leaderRouted[codec.ApiKeyDescribeProducers]
	req := &codec.DescribeProducersRequest{Topics: []codec.DescribeProducersRequestTopicRequest{{Name: "t", PartitionIndexes: []int32{0, 1, 2}}}}
	part := l.subset(req, func(k tpKey) bool { return k.partition != 1 }, func(tpKey) int32 { return 5 }).(*codec.DescribeProducersRequest)
	if got := part.Topics[0].PartitionIndexes; !reflect.DeepEqual(got, []int32{0, 2}) {
		t.Fatalf("subset kept %v, want [0 2]", got)
	}
}

// TestKeySplit splits a DescribeGroups by group and merges the answers
// in the request's order.
func TestKeySplit(t *testing.T) {
	l := keyRouted[codec.ApiKeyDescribeGroups]
	req := &codec.DescribeGroupsRequest{Groups: []string{"g1", "g2", "g3"}, IncludeAuthorizedOperations: true}
	if got := l.keys(req); !reflect.DeepEqual(got, req.Groups) {
		t.Fatalf("keys %v", got)
	}
	part := l.subset(req, func(k string) bool { return k != "g2" }).(*codec.DescribeGroupsRequest)
	if !reflect.DeepEqual(part.Groups, []string{"g1", "g3"}) || !part.IncludeAuthorizedOperations || len(req.Groups) != 3 {
		t.Fatalf("subset %+v (request now %v)", part, req.Groups)
	}
	a1 := &codec.DescribeGroupsResponse{ThrottleTimeMs: 1, Groups: []codec.DescribeGroupsResponseDescribedGroup{{GroupId: "g3"}, {GroupId: "g1", ErrorCode: 16}}}
	a2 := &codec.DescribeGroupsResponse{ThrottleTimeMs: 4, Groups: []codec.DescribeGroupsResponseDescribedGroup{{GroupId: "g2", GroupState: "Stable"}}}
	results := l.results(a1)
	if results["g1"].code != 16 {
		t.Fatalf("g1 answered %d, want 16", results["g1"].code)
	}
	for k, r := range l.results(a2) {
		results[k] = r
	}
	merged := l.merge([]codec.Message{a1, a2}, l.keys(req), results).(*codec.DescribeGroupsResponse)
	want := &codec.DescribeGroupsResponse{ThrottleTimeMs: 4, Groups: []codec.DescribeGroupsResponseDescribedGroup{{GroupId: "g1", ErrorCode: 16}, {GroupId: "g2", GroupState: "Stable"}, {GroupId: "g3"}}}
	if !reflect.DeepEqual(merged, want) {
		t.Fatalf("merged\n%+v\nwant\n%+v", merged, want)
	}
}
