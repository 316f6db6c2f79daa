package capgen

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/kdissect/kdissect/codec"
)

// exchange is a request frame and its response frame, each with its 4-byte
// size prefix and CorrelationId 0 (patched per use: patchCorr).
type exchange struct {
	req, resp []byte
	records   int // records in the Produce request or the Fetch response
}

// Versions the generator speaks: those librdkafka 2 (kcat) negotiates
// with a Kafka 3 broker. They are also versions tshark 4.0 decodes, so
// that the benchmarks compare the same work (it calls Metadata v12,
// Produce v9 and Fetch v13 malformed and stops there).
const (
	produceVersion   = 7
	fetchVersion     = 11
	metadataVersion  = 4
	apiVersionsVer   = 3
	findCoordVersion = 2
	joinGroupVersion = 5
	syncGroupVersion = 3
	heartbeatVersion = 3
	commitVersion    = 7
)

// compressions are the codecs every producer and fetch uses one of.
var compressions = []codec.Compression{codec.CompressionNone, codec.CompressionGzip, codec.CompressionSnappy, codec.CompressionLZ4, codec.CompressionZstd}

// variants is how many different Produce and Fetch exchanges are built per
// codec: enough that batches differ, few enough that building them (zstd,
// gzip) costs nothing next to writing gigabytes.
const variants = 4

// topic is one synthetic topic.
type topic struct {
	name       string
	id         codec.UUID
	partitions int32
}

// traffic holds the exchanges connections are made of, built once.
type traffic struct {
	apiVersions, metadata      exchange
	findCoordinator, joinGroup exchange
	syncGroup, heartbeat       exchange
	offsetCommit               exchange
	produce, fetch, emptyFetch [][]exchange // [codec][variant]; emptyFetch: [0][0] only
	topics                     []topic
}

// newTraffic encodes the exchanges with the codec.
func newTraffic(rng *rand.Rand) (*traffic, error) {
	t := &traffic{}
	for i, name := range []string{"orders", "payments", "clicks", "audit-log"} {
		var id codec.UUID
		for j := range id {
			id[j] = byte(rng.UintN(256))
		}
		t.topics = append(t.topics, topic{name: name, id: id, partitions: int32(3 + 3*(i%2))})
	}
	var err error
	build := func(dst *exchange, key, version int16, clientID string, req, resp codec.Message) {
		if err != nil {
			return
		}
		*dst, err = encodeExchange(key, version, clientID, req, resp)
	}
	build(&t.apiVersions, 18, apiVersionsVer, "rdkafka", t.apiVersionsRequest(), t.apiVersionsResponse())
	build(&t.metadata, 3, metadataVersion, "rdkafka", &codec.MetadataRequest{AllowAutoTopicCreation: true}, t.metadataResponse())
	build(&t.findCoordinator, 10, findCoordVersion, "rdkafka", &codec.FindCoordinatorRequest{Key: "billing"},
		&codec.FindCoordinatorResponse{NodeId: 2, Host: "broker-2.kafka", Port: 9092})
	member := "consumer-1-4f7c2a3e-9b1d-4c55-8e0f-2d6a7b8c9d01"
	// ConsumerProtocol v0 subscription (version, topics, user data) and
	// assignment (version, topic partitions, user data), which tshark
	// decodes too.
	meta := append([]byte{0, 0, 0, 0, 0, 1, 0, 6}, "orders\x00\x00\x00\x00"...)
	assignment := append([]byte{0, 0, 0, 0, 0, 1, 0, 6}, "orders\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00\x00"...)
	build(&t.joinGroup, 11, joinGroupVersion, "rdkafka",
		&codec.JoinGroupRequest{GroupId: "billing", SessionTimeoutMs: 45000, RebalanceTimeoutMs: 300000, MemberId: member, ProtocolType: "consumer",
			Protocols: []codec.JoinGroupRequestProtocol{{Name: "range", Metadata: meta}, {Name: "cooperative-sticky", Metadata: meta}}},
		&codec.JoinGroupResponse{GenerationId: 7, ProtocolType: ptr("consumer"), ProtocolName: ptr("range"), Leader: member, MemberId: member,
			Members: []codec.JoinGroupResponseMember{{MemberId: member, Metadata: meta}}})
	build(&t.syncGroup, 14, syncGroupVersion, "rdkafka",
		&codec.SyncGroupRequest{GroupId: "billing", GenerationId: 7, MemberId: member, ProtocolType: ptr("consumer"), ProtocolName: ptr("range"),
			Assignments: []codec.SyncGroupRequestAssignment{{MemberId: member, Assignment: assignment}}},
		&codec.SyncGroupResponse{ProtocolType: ptr("consumer"), ProtocolName: ptr("range"), Assignment: assignment})
	build(&t.heartbeat, 12, heartbeatVersion, "rdkafka", &codec.HeartbeatRequest{GroupId: "billing", GenerationId: 7, MemberId: member}, &codec.HeartbeatResponse{})
	commitReq := &codec.OffsetCommitRequest{GroupId: "billing", GenerationIdOrMemberEpoch: 7, MemberId: member}
	commitResp := &codec.OffsetCommitResponse{}
	for _, tp := range t.topics[:2] {
		rt := codec.OffsetCommitRequestTopic{Name: tp.name}
		st := codec.OffsetCommitResponseTopic{Name: tp.name}
		for p := range tp.partitions {
			rt.Partitions = append(rt.Partitions, codec.OffsetCommitRequestPartition{PartitionIndex: p, CommittedOffset: int64(1000 * (p + 1)), CommittedLeaderEpoch: 3})
			st.Partitions = append(st.Partitions, codec.OffsetCommitResponsePartition{PartitionIndex: p})
		}
		commitReq.Topics = append(commitReq.Topics, rt)
		commitResp.Topics = append(commitResp.Topics, st)
	}
	build(&t.offsetCommit, 8, commitVersion, "rdkafka", commitReq, commitResp)
	t.produce = make([][]exchange, len(compressions))
	t.fetch = make([][]exchange, len(compressions))
	for ci, c := range compressions {
		for v := range variants {
			var p, f exchange
			req, resp, n := t.produceExchange(rng, c, v)
			build(&p, 0, produceVersion, "rdkafka", req, resp)
			p.records = n
			freq, fresp, fn := t.fetchExchange(rng, c, v)
			build(&f, 1, fetchVersion, "rdkafka", freq, fresp)
			f.records = fn
			t.produce[ci] = append(t.produce[ci], p)
			t.fetch[ci] = append(t.fetch[ci], f)
		}
	}
	// A long poll that found nothing: the most common Fetch of an idle consumer.
	freq, _, _ := t.fetchExchange(rng, codec.CompressionNone, 0)
	empty := &codec.FetchResponse{SessionId: 1}
	empty.Responses = []codec.FetchResponseFetchableTopicResponse{{Topic: t.topics[0].name, Partitions: []codec.FetchResponsePartitionData{{
		PartitionIndex: 0, HighWatermark: 5000, LastStableOffset: 5000, LogStartOffset: 0, PreferredReadReplica: -1, Records: codec.Records{Raw: []byte{}}}}}}
	var e exchange
	build(&e, 1, fetchVersion, "rdkafka", freq, empty)
	t.emptyFetch = [][]exchange{{e}}
	if err != nil {
		return nil, fmt.Errorf("encode synthetic traffic: %w", err)
	}
	return t, nil
}

func ptr(s string) *string { return &s }

// encodeExchange encodes a request and its response as frames with their
// size prefixes, CorrelationId 0.
func encodeExchange(key, version int16, clientID string, req, resp codec.Message) (exchange, error) {
	api, ok := codec.LookupAPI(key)
	if !ok || !api.SupportsVersion(version) {
		return exchange{}, fmt.Errorf("API key %d v%d: not in the codec", key, version)
	}
	hdr := codec.RequestHeader{RequestApiKey: key, RequestApiVersion: version, ClientId: &clientID}
	b := make([]byte, 4, 256)
	b = hdr.AppendTo(b, codec.RequestHeaderVersion(key, version))
	b = req.AppendTo(b, version)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	rh := codec.ResponseHeader{}
	r := make([]byte, 4, 256)
	r = rh.AppendTo(r, codec.ResponseHeaderVersion(key, version))
	r = resp.AppendTo(r, version)
	binary.BigEndian.PutUint32(r, uint32(len(r)-4))
	return exchange{req: b, resp: r}, nil
}

// patchCorr sets the CorrelationId of a request frame (after size, ApiKey
// and ApiVersion) or of a response frame (after size).
func patchCorr(frame []byte, response bool, corr int32) {
	at := 8
	if response {
		at = 4
	}
	binary.BigEndian.PutUint32(frame[at:], uint32(corr))
}

func (t *traffic) apiVersionsRequest() codec.Message {
	return &codec.ApiVersionsRequest{ClientSoftwareName: "librdkafka", ClientSoftwareVersion: "2.3.0"}
}

func (t *traffic) apiVersionsResponse() codec.Message {
	resp := &codec.ApiVersionsResponse{FinalizedFeaturesEpoch: -1}
	for _, key := range []int16{0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 18, 19, 20, 22, 36, 60} {
		if api, ok := codec.LookupAPI(key); ok {
			resp.ApiKeys = append(resp.ApiKeys, codec.ApiVersionsResponseApiVersion{ApiKey: key, MinVersion: api.MinVersion, MaxVersion: api.MaxVersion})
		}
	}
	return resp
}

func (t *traffic) metadataResponse() codec.Message {
	resp := &codec.MetadataResponse{ClusterId: ptr("kdissect-bench-cluster"), ControllerId: 1, ClusterAuthorizedOperations: -2147483648}
	for n := int32(1); n <= 3; n++ {
		resp.Brokers = append(resp.Brokers, codec.MetadataResponseBroker{NodeId: n, Host: "broker-" + strconv.Itoa(int(n)) + ".kafka", Port: 9092, Rack: ptr("rack-" + strconv.Itoa(int(n)))})
	}
	for _, tp := range t.topics {
		mt := codec.MetadataResponseTopic{Name: ptr(tp.name), TopicId: tp.id, TopicAuthorizedOperations: -2147483648}
		for p := range tp.partitions {
			leader := 1 + p%3
			mt.Partitions = append(mt.Partitions, codec.MetadataResponsePartition{PartitionIndex: p, LeaderId: leader, LeaderEpoch: 3,
				ReplicaNodes: []int32{leader, 1 + (p+1)%3, 1 + (p+2)%3}, IsrNodes: []int32{leader, 1 + (p+1)%3, 1 + (p+2)%3}, OfflineReplicas: []int32{}})
		}
		resp.Topics = append(resp.Topics, mt)
	}
	return resp
}

// batch builds a record batch of n records of JSON-like values, as a
// client library writes them: keys from a small set, one header. Not
// idempotent: each exchange is encoded once and sent again on many
// connections, so a producer id would send the same BaseSequence again
// and again, which the dissector rightly notes as duplicates.
func batch(rng *rand.Rand, c codec.Compression, baseOffset int64, n int) []byte {
	b := codec.RecordBatch{BaseOffset: baseOffset, PartitionLeaderEpoch: 3, Attributes: int16(c), LastOffsetDelta: int32(n - 1),
		BaseTimestamp: 1764460800000, MaxTimestamp: 1764460800000 + int64(n), ProducerId: -1, ProducerEpoch: -1, BaseSequence: -1}
	for i := range n {
		user := rng.IntN(5000)
		v := fmt.Appendf(nil, `{"event_id":%d,"user":"user-%d","amount":%d.%02d,"currency":"EUR","status":%q,"items":%d,"note":"%s"}`,
			baseOffset+int64(i), user, rng.IntN(500), rng.IntN(100), []string{"created", "paid", "shipped", "refunded"}[rng.IntN(4)],
			1+rng.IntN(9), words(rng, 2+rng.IntN(12)))
		trace := fmt.Appendf(nil, "%016x", rng.Uint64())
		b.Records = append(b.Records, codec.Record{TimestampDelta: int64(i), OffsetDelta: int32(i),
			Key: []byte("user-" + strconv.Itoa(user)), Value: v, Headers: []codec.RecordHeader{{Key: "trace-id", Value: trace}}})
	}
	return b.AppendTo(nil)
}

// words returns n words of lower-case text, for values that compress as
// real text does.
func words(rng *rand.Rand, n int) string {
	vocab := []string{"the", "order", "was", "placed", "by", "customer", "with", "express", "delivery", "to", "warehouse", "north", "south", "gift", "wrap", "priority", "standard", "return", "label", "invoice"}
	var b []byte
	for i := range n {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, vocab[rng.IntN(len(vocab))]...)
	}
	return string(b)
}

// produceExchange returns a Produce request of 1-3 partitions of one
// topic, a batch of 10-80 records each, its response and its record count.
func (t *traffic) produceExchange(rng *rand.Rand, c codec.Compression, v int) (codec.Message, codec.Message, int) {
	tp := t.topics[v%len(t.topics)]
	req := &codec.ProduceRequest{Acks: -1, TimeoutMs: 30000}
	resp := &codec.ProduceResponse{}
	rt := codec.ProduceRequestTopicProduceData{Name: tp.name}
	st := codec.ProduceResponseTopicProduceResponse{Name: tp.name}
	records := 0
	for p := range int32(1 + rng.IntN(3)) {
		n := 10 + rng.IntN(70)
		records += n
		base := int64(rng.IntN(1 << 20))
		rt.PartitionData = append(rt.PartitionData, codec.ProduceRequestPartitionProduceData{Index: p, Records: codec.Records{Raw: batch(rng, c, 0, n)}})
		st.PartitionResponses = append(st.PartitionResponses, codec.ProduceResponsePartitionProduceResponse{Index: p, BaseOffset: base, LogAppendTimeMs: -1, LogStartOffset: 0})
	}
	req.TopicData = []codec.ProduceRequestTopicProduceData{rt}
	resp.Responses = []codec.ProduceResponseTopicProduceResponse{st}
	return req, resp, records
}

// fetchExchange returns a Fetch request for every partition of a topic, a response with 1-2 batches for some of them, and the
// response's record count.
func (t *traffic) fetchExchange(rng *rand.Rand, c codec.Compression, v int) (codec.Message, codec.Message, int) {
	tp := t.topics[v%len(t.topics)]
	req := &codec.FetchRequest{ReplicaId: -1, MaxWaitMs: 500, MinBytes: 1, MaxBytes: 52428800, SessionId: 1, SessionEpoch: int32(1 + v), RackId: ""} // no session: full fetches
	rt := codec.FetchRequestFetchTopic{Topic: tp.name}
	st := codec.FetchResponseFetchableTopicResponse{Topic: tp.name}
	records := 0
	for p := range tp.partitions {
		offset := int64(rng.IntN(1 << 20))
		rt.Partitions = append(rt.Partitions, codec.FetchRequestFetchPartition{Partition: p, CurrentLeaderEpoch: 3, FetchOffset: offset, LastFetchedEpoch: -1, LogStartOffset: -1, PartitionMaxBytes: 1048576})
		pd := codec.FetchResponsePartitionData{PartitionIndex: p, HighWatermark: offset + 500, LastStableOffset: offset + 500, LogStartOffset: 0,
			PreferredReadReplica: -1, Records: codec.Records{Raw: []byte{}}}
		pd.DivergingEpoch.Epoch, pd.DivergingEpoch.EndOffset = -1, -1
		pd.CurrentLeader.LeaderId, pd.CurrentLeader.LeaderEpoch = -1, -1
		pd.SnapshotId.EndOffset, pd.SnapshotId.Epoch = -1, -1
		if rng.IntN(2) == 0 {
			for range 1 + rng.IntN(2) {
				n := 20 + rng.IntN(100)
				pd.Records.Raw = append(pd.Records.Raw, batch(rng, c, offset, n)...)
				offset += int64(n)
				records += n
			}
		}
		st.Partitions = append(st.Partitions, pd)
	}
	req.Topics = []codec.FetchRequestFetchTopic{rt}
	resp := &codec.FetchResponse{SessionId: 1, Responses: []codec.FetchResponseFetchableTopicResponse{st}}
	return req, resp, records
}
