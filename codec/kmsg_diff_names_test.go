package codec

// Values by name in the kmsg differential (kmsg_diff_test.go). The byte
// comparisons there hold whatever names the fields carry: two fields of one
// type swapped consistently in a generated decoder and encoder still
// round-trip byte for byte. Here every case's two decodes of the same bytes
// (ours and kmsg's) are compared field by field by name, and so is our JSON
// for those bytes: each field the schema has at the version is matched to
// kmsg's field of the same name (kdNameKey; kdNameTable for the names kmsg
// spells otherwise), its value compared, arrays of structs and structs
// recursed into, and the JSON object's keys must be exactly the fields
// present. A schema field with no kmsg field, or a kmsg field with no schema
// field, fails unless kdNameTable or kdKmsgOnly explains it.
//
// Bookkeeping: kmsg's top-level Version must be the case's version; its
// UnknownTags and ours (and the JSON's UnknownTaggedFields) must hold the
// same tags and data, but for the tags kdKmsgUnknownTags says kmsg does not
// know. A field is present at a version when the schema's versions hold it
// and, for a tagged field, the version is flexible and in its tagged
// versions. Null and empty are told apart wherever the field is nullable at
// the version.

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kdissect/kdissect/codec/schema"
)

// kdNameTable maps a schema field, "<our Go struct type>.<field>", to the
// kmsg field of the same meaning whose name kdMatchName does not find, or to
// "" where kmsg has no field at all; each entry says what the field is.
// Listed by running TestKmsgDiff with the table empty: every unmatched
// pair was checked against kmsg's generated.go and Kafka's JSON.
var kdNameTable = map[string]string{
	"AddPartitionsToTxnResponse.ResultsByTopicV3AndBelow":                            "Topics",               // v0-3 per-topic results
	"AddPartitionsToTxnResponse.ResultsByTransaction":                                "Transactions",         // v4+ per-transaction results
	"AddPartitionsToTxnResponseAddPartitionsToTxnPartitionResult.PartitionErrorCode": "ErrorCode",            // the partition's error code
	"AddPartitionsToTxnResponseAddPartitionsToTxnResult.TopicResults":                "Topics",               // v4+ per-topic results of a transaction
	"AddPartitionsToTxnResponseAddPartitionsToTxnTopicResult.ResultsByPartition":     "Partitions",           // per-partition results
	"AlterConfigsResponse.Responses":                                                 "Resources",            // per-resource results
	"AlterPartitionReassignmentsResponse.Responses":                                  "Topics",               // per-topic results
	"AlterPartitionRequestPartitionData.NewIsrWithEpochs":                            "NewEpochISR",          // v3+ ISR with broker epochs
	"AlterPartitionResponseTopicData.TopicId":                                        "TopidID",              // kmsg's typo of TopicID
	"AlterReplicaLogDirsRequestAlterReplicaLogDir.Path":                              "Dir",                  // the log directory
	"AlterReplicaLogDirsResponse.Results":                                            "Topics",               // per-topic results
	"AlterShareGroupOffsetsResponse.Responses":                                       "Topics",               // per-topic results
	"ConsumerGroupDescribeResponseMember.SubscribedTopicNames":                       "SubscribedTopics",     // topic names subscribed to
	"ConsumerGroupHeartbeatRequest.TopicPartitions":                                  "Topics",               // owned topic partitions
	"ConsumerGroupHeartbeatResponseAssignment.TopicPartitions":                       "Topics",               // assigned topic partitions
	"ControlledShutdownResponse.RemainingPartitions":                                 "PartitionsRemaining",  // word order
	"CreatePartitionsRequestCreatePartitionsAssignment.BrokerIds":                    "Replicas",             // the new partition's replica brokers
	"CreatePartitionsRequestCreatePartitionsTopic.Assignments":                       "Assignment",           // singular in kmsg
	"CreatePartitionsResponse.Results":                                               "Topics",               // per-topic results
	"CreateTopicsRequestCreatableReplicaAssignment.BrokerIds":                        "Replicas",             // the partition's replica brokers
	"CreateTopicsRequestCreatableTopic.Assignments":                                  "ReplicaAssignment",    // replica assignment per partition
	"CreateTopicsResponseCreatableTopicConfigs.ConfigSource":                         "Source",               // the config's source
	"CreateTopicsResponseCreatableTopicResult.TopicConfigErrorCode":                  "ConfigErrorCode",      // v5+ tagged error code of the configs
	"DeleteAclsResponse.FilterResults":                                               "Results",              // per-filter results
	"DeleteGroupsRequest.GroupsNames":                                                "Groups",               // group ids
	"DeleteGroupsResponse.Results":                                                   "Groups",               // per-group results
	"DeleteShareGroupOffsetsResponse.Responses":                                      "Topics",               // per-topic results
	"DeleteShareGroupStateResponse.Results":                                          "Topics",               // per-topic results
	"DeleteTopicsResponse.Responses":                                                 "Topics",               // per-topic results
	"DescribeClusterResponseDescribeClusterBroker.BrokerId":                          "NodeID",               // the broker's node id
	"DescribeConfigsRequestDescribeConfigsResource.ConfigurationKeys":                "ConfigNames",          // config keys asked for
	"DescribeConfigsResponse.Results":                                                "Resources",            // per-resource results
	"DescribeConfigsResponseDescribeConfigsResourceResult.ConfigSource":              "Source",               // v1+ the config's source
	"DescribeConfigsResponseDescribeConfigsResourceResult.Synonyms":                  "ConfigSynonyms",       // v1+ the config's synonyms
	"DescribeDelegationTokenResponse.Tokens":                                         "TokenDetails",         // the tokens
	"DescribeGroupsResponseDescribedGroup.ProtocolData":                              "Protocol",             // the group protocol's name (Kafka: ProtocolData)
	"DescribeGroupsResponseDescribedGroupMember.MemberMetadata":                      "ProtocolMetadata",     // the member's protocol metadata
	"DescribeLogDirsResponse.Results":                                                "Dirs",                 // per-directory results
	"DescribeLogDirsResponseDescribeLogDirsPartition.IsFutureKey":                    "IsFuture",             // a future replica
	"DescribeLogDirsResponseDescribeLogDirsPartition.PartitionSize":                  "Size",                 // the partition's size in bytes
	"DescribeLogDirsResponseDescribeLogDirsResult.LogDir":                            "Dir",                  // the log directory
	"DescribeTransactionsResponseTransactionState.TransactionStartTimeMs":            "StartTimestamp",       // milliseconds since the epoch
	"DescribeTransactionsResponseTransactionState.TransactionState":                  "State",                // the transaction's state
	"DescribeTransactionsResponseTransactionState.TransactionTimeoutMs":              "TimeoutMillis",        // the transaction timeout
	"ElectLeadersRequest.TopicPartitions":                                            "Topics",               // topic partitions to elect for
	"ElectLeadersResponse.ReplicaElectionResults":                                    "Topics",               // per-topic results
	"ElectLeadersResponsePartitionResult.PartitionId":                                "Partition",            // the partition index
	"ElectLeadersResponseReplicaElectionResult.PartitionResult":                      "Partitions",           // per-partition results
	"EndTxnRequest.Committed":                                                        "Commit",               // true to commit, false to abort
	"ExpireDelegationTokenRequest.ExpiryTimePeriodMs":                                "ExpiryPeriodMillis",   // word order
	"FetchRequest.ForgottenTopicsData":                                               "ForgottenTopics",      // v7+ topics dropped from the session
	"FetchRequest.RackId":                                                            "Rack",                 // v11+ the consumer's rack
	"FetchRequestReplicaState.ReplicaEpoch":                                          "Epoch",                // v15+ tagged replica state
	"FetchRequestReplicaState.ReplicaId":                                             "ID",                   // v15+ tagged replica state
	"FetchResponse.NodeEndpoints":                                                    "Brokers",              // v16+ tagged leader endpoints
	"FetchResponse.Responses":                                                        "Topics",               // per-topic data
	"FetchResponsePartitionData.Records":                                             "RecordBatches",        // the records
	"FetchSnapshotResponsePartitionSnapshot.UnalignedRecords":                        "Bytes",                // the snapshot's bytes
	"FindCoordinatorRequest.Key":                                                     "CoordinatorKey",       // v0-3 the group or transaction id
	"FindCoordinatorRequest.KeyType":                                                 "CoordinatorType",      // v1-3 group, transaction or share
	"IncrementalAlterConfigsRequestAlterableConfig.ConfigOperation":                  "Op",                   // set, delete, append, subtract
	"IncrementalAlterConfigsResponse.Responses":                                      "Resources",            // per-resource results
	"InitializeShareGroupStateResponse.Results":                                      "Topics",               // per-topic results
	"JoinGroupResponse.Leader":                                                       "LeaderID",             // the leader's member id
	"JoinGroupResponseMember.Metadata":                                               "ProtocolMetadata",     // the member's protocol metadata
	"LeaderAndIsrRequest.UngroupedPartitionStates":                                   "PartitionStates",      // v0-1 partition states, not grouped by topic
	"LeaderAndIsrRequestLeaderAndIsrLiveLeader.HostName":                             "Host",                 // the leader's host
	"LeaderAndIsrRequestLeaderAndIsrPartitionState.PartitionEpoch":                   "ZKVersion",            // ZooKeeper's name for the partition epoch
	"LeaderAndIsrResponse.PartitionErrors":                                           "Partitions",           // v0-4 per-partition errors
	"LeaderAndIsrResponseLeaderAndIsrTopicError.PartitionErrors":                     "Partitions",           // v5+ per-partition errors
	"ListConfigResourcesResponseConfigResource.ResourceName":                         "Name",                 // the resource's name (Kafka 4.3.0: ResourceName)
	"ListConfigResourcesResponseConfigResource.ResourceType":                         "Type",                 // v1+ the config resource type
	"ListTransactionsRequest.DurationFilter":                                         "DurationFilterMillis", // v1+ milliseconds
	"MetadataResponsePartition.LeaderId":                                             "Leader",               // the leader's broker id
	"OffsetCommitRequest.GenerationIdOrMemberEpoch":                                  "Generation",           // v9 renamed it; the same int32
	"OffsetCommitRequestPartition.CommitTimestamp":                                   "Timestamp",            // v1 only
	"ProduceRequest.TopicData":                                                       "Topics",               // per-topic data
	"ProduceRequest.TransactionalId":                                                 "TransactionID",        // v3+
	"ProduceRequestTopicProduceData.PartitionData":                                   "Partitions",           // per-partition data
	"ProduceResponse.NodeEndpoints":                                                  "Brokers",              // v10+ tagged leader endpoints
	"ProduceResponse.Responses":                                                      "Topics",               // per-topic results
	"ProduceResponseBatchIndexAndErrorMessage.BatchIndex":                            "RelativeOffset",       // v8+ the record's index in its batch
	"ProduceResponseBatchIndexAndErrorMessage.BatchIndexErrorMessage":                "ErrorMessage",         // v8+ the record's error message
	"ProduceResponsePartitionProduceResponse.LogAppendTimeMs":                        "LogAppendTime",        // v2+ milliseconds, or -1
	"ProduceResponsePartitionProduceResponse.RecordErrors":                           "ErrorRecords",         // v8+ per-record errors
	"ProduceResponseTopicProduceResponse.PartitionResponses":                         "Partitions",           // per-partition results
	"VoteRequestPartitionData.ReplicaEpoch":                                          "CandidateEpoch",       // Kafka 4.0's name (4.3.0: ReplicaEpoch, KIP-996)
	"VoteRequestPartitionData.ReplicaId":                                             "CandidateID",          // Kafka 4.0's name (4.3.0: ReplicaId, KIP-996)
	"VoteRequestPartitionData.ReplicaDirectoryId":                                    "CandidateDirectoryID", // Kafka 4.0's name (4.3.0: ReplicaDirectoryId, KIP-996)
	"ReadShareGroupStateResponse.Results":                                            "Topics",               // per-topic results
	"ReadShareGroupStateSummaryResponse.Results":                                     "Topics",               // per-topic results
	"RenewDelegationTokenRequest.RenewPeriodMs":                                      "RenewTimeMillis",      // the renewal period
	"SaslAuthenticateRequest.AuthBytes":                                              "SASLAuthBytes",        // the SASL bytes
	"SaslAuthenticateResponse.AuthBytes":                                             "SASLAuthBytes",        // the SASL bytes
	"SaslHandshakeResponse.Mechanisms":                                               "SupportedMechanisms",  // the broker's mechanisms
	"ShareAcknowledgeResponse.Responses":                                             "Topics",               // per-topic results
	"ShareFetchResponse.Responses":                                                   "Topics",               // per-topic data
	"ShareGroupDescribeResponseDescribedGroup.AssignorName":                          "Assignor",             // the assignor's name
	"StopReplicaRequest.TopicStates":                                                 "Topics",               // v3+; kmsg merges Kafka's three arrays into Topics
	"StopReplicaRequest.UngroupedPartitions":                                         "Topics",               // v0; kmsg merges Kafka's three arrays into Topics
	"StopReplicaRequestStopReplicaPartitionState.DeletePartition":                    "Delete",               // v3+ whether to delete the partition
	"StopReplicaResponse.PartitionErrors":                                            "Partitions",           // per-partition errors
	"StreamsGroupDescribeResponseTopicInfo.Name":                                     "Topic",                // a topic's name (the schema has no @topic here)
	"StreamsGroupDescribeResponseTopicInfo.Partitions":                               "NumPartitions",        // the number of partitions
	"StreamsGroupDescribeResponseTopicInfo.TopicConfigs":                             "Configs",              // the topic's configs
	"StreamsGroupHeartbeatRequestTopicInfo.Name":                                     "Topic",                // a topic's name (the schema has no @topic here)
	"StreamsGroupHeartbeatRequestTopicInfo.Partitions":                               "NumPartitions",        // the number of partitions
	"StreamsGroupHeartbeatRequestTopicInfo.TopicConfigs":                             "Configs",              // the topic's configs
	"SyncGroupRequest.Assignments":                                                   "GroupAssignment",      // the leader's assignments
	"SyncGroupRequestAssignment.Assignment":                                          "MemberAssignment",     // the member's assignment
	"SyncGroupResponse.Assignment":                                                   "MemberAssignment",     // this member's assignment
	"UpdateMetadataRequest.Type":                                                     "",                     // v8+ tagged int8 that kmsg does not know: it keeps tag 0 unknown (kdKmsgUnknownTags)
	"UpdateMetadataRequest.UngroupedPartitionStates":                                 "PartitionStates",      // v0-4 partition states, not grouped by topic
	"UpdateMetadataRequestUpdateMetadataBroker.V0Host":                               "Host",                 // v0 only
	"UpdateMetadataRequestUpdateMetadataBroker.V0Port":                               "Port",                 // v0 only
	"UpdateMetadataRequestUpdateMetadataEndpoint.Listener":                           "ListenerName",         // the listener's name
	"WriteShareGroupStateResponse.Results":                                           "Topics",               // per-topic results
	"WriteTxnMarkersRequestWritableTxnMarker.TransactionResult":                      "Committed",            // true for commit
}

// kdKmsgOnly lists kmsg fields, "<kmsg struct type>.<field>", that no schema
// field matches, and why. None today: kmsg has no field Kafka lacks.
var kdKmsgOnly = map[string]string{}

// kdNameKey is the key under which a schema field and a kmsg field name
// must agree: lower case, and for the schema's name the renames kmsg's
// generator applies throughout (each rule below removed the most unmatched
// pairs of those listed over every API; the rest are in kdNameTable).
func kdNameKey(f *schema.Field, kmsgName string) string {
	if f == nil {
		return strings.ToLower(kmsgName)
	}
	k := strings.ToLower(f.Name)
	switch {
	case f.Has(schema.Topic) && (k == "name" || k == "topicname"):
		return "topic" // Name/TopicName of a topic: kmsg's Topic (22 + 15 pairs)
	case f.Has(schema.Partition) && (k == "partitionindex" || k == "index"):
		return "partition" // kmsg's Partition (24)
	case f.Has(schema.Partitions) && k == "partitionindexes":
		return "partitions" // kmsg's Partitions (6)
	case k == "throttletimems":
		return "throttlemillis" // 48
	}
	for _, r := range []struct{ from, to, why string }{
		{"committed", "", "CommittedOffset, CommittedLeaderEpoch, CommittedMetadata: kmsg's Offset, ... (10)"},
		{"entity", "", "EntityName, EntityType: kmsg's Name, Type (6)"},
		{"groupstate", "state", "kmsg's State (3)"},
		{"groupepoch", "epoch", "kmsg's Epoch (3)"},
		{"v3andbelow", "", "AddPartitionsToTxn v0-3's fields: kmsg's ProducerID, ... (4)"},
		{"topicauthorizedoperations", "authorizedoperations", "(2)"},
		{"clusterauthorizedoperations", "authorizedoperations", "(1)"},
	} {
		if rest, ok := strings.CutPrefix(k, r.from); ok && rest != "" || r.to != "" && k == r.from {
			k = r.to + rest
		}
	}
	switch k {
	case "protocolname":
		return "protocol" // (3)
	case "isrnodes":
		return "isr" // (2)
	case "replicanodes":
		return "replicas" // (2)
	case "patterntype", "patterntypefilter":
		return "resourcepatterntype" // (3)
	}
	if base, ok := strings.CutSuffix(k, "filter"); ok {
		return base // HostFilter, PrincipalFilter, ...: kmsg's Host, Principal, ... (8)
	}
	k = strings.Replace(k, "groupinstanceid", "instanceid", 1) // kmsg's InstanceID (9)
	k = strings.Replace(k, "generationid", "generation", 1)    // kmsg's Generation (4)
	if strings.HasPrefix(k, "groupid") {
		k = "group" + strings.TrimPrefix(k, "groupid") // GroupId, GroupIds: kmsg's Group, Groups (10)
	}
	if strings.HasSuffix(k, "timestampms") {
		return strings.TrimSuffix(k, "ms") // ExpiryTimestampMs: kmsg's ExpiryTimestamp (5)
	}
	if strings.HasSuffix(k, "ms") {
		k = strings.TrimSuffix(k, "ms") + "millis" // TimeoutMs: kmsg's TimeoutMillis (20)
	}
	return k
}

// kdMatchName returns the field of kmsg's struct type kt that matches the
// schema field f: the same name but for case, or else the same kdNameKey;
// "" when none does.
func kdMatchName(f *schema.Field, kt reflect.Type) string {
	var byKey string
	for i := 0; i < kt.NumField(); i++ {
		name := kt.Field(i).Name
		switch {
		case !kt.Field(i).IsExported():
		case strings.EqualFold(name, f.Name):
			return name
		case kdNameKey(nil, name) == kdNameKey(f, ""):
			byKey = name
		}
	}
	return byKey
}

var kdSchema = sync.OnceValues(schema.Load)

// kdSchemaMessage returns the schema's request or response of c.
func kdSchemaMessage(t *testing.T, c kdCombo) *schema.Message {
	t.Helper()
	s, err := kdSchema()
	if err != nil {
		t.Fatalf("schema: %v", err)
	}
	for _, a := range s.APIs {
		if a.Key == c.api.Key {
			if c.response {
				return a.Response
			}
			return a.Request
		}
	}
	t.Fatalf("schema has no ApiKey %d", c.api.Key)
	return nil
}

// kdNames compares values by name for one case.
type kdNames struct {
	msg      *schema.Message
	version  int16
	flexible bool
	problems []string
	names    *kdNameStats
}

// kdNameStats gathers the names matched over a whole run. A kmsg field is
// unmatched only when no schema field ever matched it: kmsg merges arrays
// that Kafka declares apart by version into one struct (StopReplica's
// UngroupedPartitions, Topics and TopicStates are kmsg's Topics), so one
// pairing of structs holds only some of its fields.
type kdNameStats struct {
	schemaUnmatched map[string]bool // "<our type>.<field> (kmsg <type>)"
	kmsgSeen        map[string]bool // "<kmsg type>.<field>"
	kmsgMatched     map[string]bool
	compared        int // fields compared by value
}

func newKdNameStats() *kdNameStats {
	return &kdNameStats{schemaUnmatched: map[string]bool{}, kmsgSeen: map[string]bool{}, kmsgMatched: map[string]bool{}}
}

// unmatched lists the names that fail the test, sorted.
func (s *kdNameStats) unmatched() []string {
	var out []string
	for k := range s.schemaUnmatched {
		out = append(out, "schema "+k)
	}
	for k := range s.kmsgSeen {
		if _, ok := kdKmsgOnly[k]; !ok && !s.kmsgMatched[k] {
			out = append(out, "kmsg "+k)
		}
	}
	sort.Strings(out)
	return out
}

func (n *kdNames) errorf(path, format string, args ...any) {
	if len(n.problems) < 20 {
		n.problems = append(n.problems, path+": "+fmt.Sprintf(format, args...))
	}
}

// kdCompareByName compares ours (our decode) and km (kmsg's decode of the
// same bytes) and our JSON for them by name. It returns the differences and
// adds the names it matched and did not to names.
func kdCompareByName(t *testing.T, c kdCombo, ours Message, km kdMessage, names *kdNameStats) []string {
	t.Helper()
	n := &kdNames{msg: kdSchemaMessage(t, c), version: c.version, names: names}
	n.flexible = n.msg.Flexible.Contains(c.version)
	kv := reflect.ValueOf(km).Elem()
	if v := kv.FieldByName("Version"); !v.IsValid() || v.Int() != int64(c.version) {
		n.errorf("Version", "kmsg's Version is %v, want %d", v, c.version)
	}
	w := NewJSONWriter(nil)
	w.ShowSecrets = true
	ours.WriteJSON(w, c.version)
	dec := json.NewDecoder(bytes.NewReader(w.Bytes()))
	dec.UseNumber()
	var js any
	if err := dec.Decode(&js); err != nil {
		n.errorf("json", "our JSON does not parse: %v", err)
	}
	n.structs(c.api.Name, n.msg.Fields, reflect.ValueOf(ours).Elem(), kv, js, true)
	return n.problems
}

// fieldsOf returns the fields of the struct f holds.
func (n *kdNames) fieldsOf(f *schema.Field) []*schema.Field {
	if f.Fields != nil {
		return f.Fields
	}
	for _, s := range n.msg.Common {
		if s.Name == f.ElemType() {
			return s.Fields
		}
	}
	return nil
}

// present reports whether f is on the wire at the version.
func (n *kdNames) present(f *schema.Field) bool {
	if !f.Versions.Contains(n.version) {
		return false
	}
	return !f.IsTagged() || n.flexible && f.Tagged.Contains(n.version)
}

// structs compares one struct: ov ours, kv kmsg's, js our JSON object.
func (n *kdNames) structs(path string, fields []*schema.Field, ov, kv reflect.Value, js any, top bool) {
	obj, ok := js.(map[string]any)
	if !ok {
		n.errorf(path, "JSON is %T, want an object", js)
	}
	kt := kv.Type()
	matched := map[string]bool{}
	keys := map[string]bool{}
	used := map[string]string{} // kmsg field → the present schema field matched to it
	for _, f := range fields {
		ofv := ov.FieldByName(f.Name)
		if !ofv.IsValid() {
			n.errorf(path, "our %s has no Go field %s", ov.Type().Name(), f.Name)
			continue
		}
		if n.present(f) {
			keys[f.Name] = true
		}
		kname, ok := kdNameTable[ov.Type().Name()+"."+f.Name]
		if !ok {
			kname = kdMatchName(f, kt)
			if kname == "" {
				// A field only of versions beyond kmsg's (InitProducerId
				// v6's, say) has nothing to match at the versions compared.
				if n.present(f) || f.Versions.Min <= kdKmsgMaxVersion(n.msg.APIKey, n.msg.Kind == "response") {
					n.names.schemaUnmatched[fmt.Sprintf("%s.%s (kmsg %s)", ov.Type().Name(), f.Name, kt.Name())] = true
				}
				continue
			}
		}
		if kname == "" {
			continue // kmsg has no such field (kdNameTable says why)
		}
		matched[kname] = true
		n.names.kmsgMatched[kt.Name()+"."+kname] = true
		if !n.present(f) {
			continue
		}
		if other, dup := used[kname]; dup {
			n.errorf(path, "schema fields %s and %s both match kmsg's %s at v%d", other, f.Name, kname, n.version)
		}
		used[kname] = f.Name
		n.names.compared++
		jv, inJSON := obj[f.Name]
		if !inJSON {
			n.errorf(path+"."+f.Name, "not in our JSON")
		}
		n.field(path+"."+f.Name, f, ofv, kv.FieldByName(kname), jv)
	}
	for i := 0; i < kt.NumField(); i++ {
		sf := kt.Field(i)
		switch {
		case !sf.IsExported() || matched[sf.Name]:
		case sf.Name == "Version" && top:
		case sf.Type == kdTypeKmsgTags:
			n.tags(path, ov.FieldByName("UnknownTags"), kv.Field(i), obj["UnknownTaggedFields"], kt.Name())
		default:
			n.names.kmsgSeen[kt.Name()+"."+sf.Name] = true
		}
	}
	keys["UnknownTaggedFields"] = true
	for k := range obj {
		if !keys[k] {
			n.errorf(path, "our JSON has key %q, not a field at v%d", k, n.version)
		}
	}
}

// tags compares the unknown tagged fields, but for those kmsg does not
// know (kdKmsgUnknownTags: we decode them as fields).
func (n *kdNames) tags(path string, ov, kv reflect.Value, js any, kmsgType string) {
	var kmsgTags []string
	kv.Addr().Interface().(*kmsg.Tags).Each(func(tag uint32, data []byte) {
		if _, ok := kdKmsgUnknownTags[fmt.Sprintf("%s %d", kmsgType, tag)]; !ok {
			kmsgTags = append(kmsgTags, fmt.Sprintf("%d:0x%x", tag, data))
		}
	})
	sort.Strings(kmsgTags)
	var ourTags []string
	if ov.IsValid() {
		for _, tf := range ov.Interface().([]TaggedField) {
			ourTags = append(ourTags, fmt.Sprintf("%d:0x%x", tf.Tag, tf.Data))
		}
	}
	sort.Strings(ourTags)
	var jsonTags []string
	if arr, ok := js.([]any); ok {
		for _, e := range arr {
			o, _ := e.(map[string]any)
			jsonTags = append(jsonTags, fmt.Sprintf("%v:%s", o["Tag"], n.jsonBytes(o["Data"])))
		}
	}
	sort.Strings(jsonTags)
	k, o, j := strings.Join(kmsgTags, " "), strings.Join(ourTags, " "), strings.Join(jsonTags, " ")
	if o != k {
		n.errorf(path, "unknown tags: ours [%s], kmsg's [%s]", o, k)
	}
	if j != k {
		n.errorf(path, "unknown tags: our JSON [%s], kmsg's [%s]", j, k)
	}
}

// field compares one present field.
func (n *kdNames) field(path string, f *schema.Field, ov, kv reflect.Value, js any) {
	nullable := f.Nullable.Contains(n.version)
	et := f.ElemType()
	if f.IsArray() {
		ov, kv = kdDeref(ov), kdDeref(kv)
		if ov.Kind() != reflect.Slice || kv.Kind() != reflect.Slice {
			n.errorf(path, "array kinds: ours %s, kmsg's %s", ov.Type(), kv.Type())
			return
		}
		arr, isArr := js.([]any)
		switch {
		case nullable && (ov.IsNil() != kv.IsNil()):
			n.errorf(path, "null: ours %v, kmsg's %v", ov.IsNil(), kv.IsNil())
			return
		case nullable && kv.IsNil():
			if js != nil {
				n.errorf(path, "our JSON has %v for a null array", js)
			}
			return
		case ov.Len() != kv.Len():
			n.errorf(path, "length: ours %d, kmsg's %d", ov.Len(), kv.Len())
			return
		case !isArr || len(arr) != kv.Len():
			n.errorf(path, "our JSON has %v for %d elements", js, kv.Len())
			return
		}
		for i := 0; i < kv.Len(); i++ {
			p := fmt.Sprintf("%s[%d]", path, i)
			if f.IsStruct() {
				n.structs(p, n.fieldsOf(f), kdDeref(ov.Index(i)), kdDeref(kv.Index(i)), arr[i], false)
			} else {
				n.scalar(p, et, ov.Index(i), kv.Index(i), arr[i])
			}
		}
		return
	}
	if f.IsStruct() {
		oNil := ov.Kind() == reflect.Pointer && ov.IsNil()
		kNil := kv.Kind() == reflect.Pointer && kv.IsNil()
		if oNil != kNil {
			n.errorf(path, "null: ours %v, kmsg's %v", oNil, kNil)
			return
		}
		if oNil {
			if js != nil {
				n.errorf(path, "our JSON has %v for a null struct", js)
			}
			return
		}
		n.structs(path, n.fieldsOf(f), kdDeref(ov), kdDeref(kv), js, false)
		return
	}
	n.scalar(path, et, ov, kv, js)
}

func kdDeref(v reflect.Value) reflect.Value {
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	return v
}

// scalar compares a primitive of Kafka type typ.
func (n *kdNames) scalar(path, typ string, ov, kv reflect.Value, js any) {
	o, k := kdCanon(ov), kdCanon(kv)
	if o != k {
		n.errorf(path, "ours %s, kmsg's %s", o, k)
	}
	if typ == "records" {
		return // the JSON holds the decoded batches, compared in TestRecordTraceAgree and the goldens
	}
	if j := n.jsonCanon(typ, js); j != k {
		n.errorf(path, "our JSON %s, kmsg's %s", j, k)
	}
}

// kdCanon formats a Go value of either side alike.
func kdCanon(v reflect.Value) string {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "null"
		}
		v = v.Elem()
	}
	if v.Type() == kdTypeRecords {
		v = v.FieldByName("Raw")
	}
	switch v.Kind() {
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10)
	case reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.String:
		return strconv.Quote(v.String())
	case reflect.Slice:
		if v.IsNil() {
			return "null"
		}
		return "0x" + hex.EncodeToString(v.Bytes())
	case reflect.Array:
		b := make([]byte, v.Len())
		reflect.Copy(reflect.ValueOf(b), v)
		return "0x" + hex.EncodeToString(b)
	}
	return "?" + v.Type().String()
}

// jsonCanon formats our JSON value of Kafka type typ as kdCanon does.
func (n *kdNames) jsonCanon(typ string, js any) string {
	if js == nil {
		return "null"
	}
	switch typ {
	case "bool":
		if b, ok := js.(bool); ok {
			return strconv.FormatBool(b)
		}
	case "float64":
		if num, ok := js.(json.Number); ok {
			if f, err := num.Float64(); err == nil {
				return strconv.FormatFloat(f, 'g', -1, 64)
			}
		}
	case "string":
		switch s := js.(type) {
		case string:
			return strconv.Quote(s)
		case map[string]any:
			return strconv.Quote(string(n.jsonRaw(s)))
		}
	case "bytes":
		return n.jsonBytes(js)
	case "uuid":
		if s, ok := js.(string); ok {
			if b, err := base64.RawURLEncoding.DecodeString(s); err == nil {
				return "0x" + hex.EncodeToString(b)
			}
		}
	default: // integers
		if num, ok := js.(json.Number); ok {
			return num.String()
		}
	}
	return fmt.Sprintf("unexpected %T %v", js, js)
}

// jsonBytes formats a JSON byte string (a string or {"base64": ...}).
func (n *kdNames) jsonBytes(js any) string {
	switch s := js.(type) {
	case nil:
		return "null"
	case string:
		return "0x" + hex.EncodeToString([]byte(s))
	case map[string]any:
		return "0x" + hex.EncodeToString(n.jsonRaw(s))
	}
	return fmt.Sprintf("unexpected %T %v", js, js)
}

func (n *kdNames) jsonRaw(o map[string]any) []byte {
	s, _ := o["base64"].(string)
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(o) != 1 {
		return []byte(fmt.Sprintf("bad byte string %v", o))
	}
	return b
}

// kdByName runs kdCompareByName on one case of direction dir, whose bytes
// are b, and reports its differences.
func kdByName(t *testing.T, c kdCombo, dir string, i int, ours Message, km kdMessage, b []byte, names *kdNameStats) bool {
	t.Helper()
	problems := kdCompareByName(t, c, ours, km, names)
	if len(problems) != 0 {
		t.Errorf("%s case %d: our decode and kmsg's differ by name:\n %s\n bytes %s\n ours %s", dir, i, strings.Join(problems, "\n "), kdHex(b), kdJSON(ours, c.version))
		return false
	}
	return true
}
