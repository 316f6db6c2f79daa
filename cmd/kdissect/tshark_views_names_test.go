package main

import (
	"sort"
	"strings"
)

// tsharkName is what one tshark Kafka field stands for: the Kafka field
// names (as the schema spells them, as our views label them) it may be,
// whether tshark shows it as bytes (hex), and why its value is not
// compared when it is not.
type tsharkName struct {
	names    map[string]bool // "[]": an element of an array of such values
	bytes    bool
	why      string
	detailAt string // the detail view shows tshark's value as this sibling
}

func (n tsharkName) String() string {
	var s []string
	for k := range n.names {
		s = append(s, k)
	}
	sort.Strings(s)
	return strings.Join(s, " or ")
}

func kafka(names ...string) tsharkName {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return tsharkName{names: m}
}

func (n tsharkName) hex() tsharkName { n.bytes = true; return n }

func (n tsharkName) nameOnly(why string) tsharkName { n.why = why; return n }

// tsharkFieldNames maps tshark 4.0's kafka.* field names (its
// epan/dissectors/packet-kafka.c hf_kafka_* abbreviations) to the names
// of the fields they decode in Kafka's message definitions
// (clients/src/main/resources/common/message/*.json, the names our views
// label). tshark uses one name for a kind of value wherever it appears
// (kafka.offset is every offset, kafka.topic_name every topic), so one
// maps to several Kafka names; each is the one Kafka gives that value in
// some message. Reviewed by reading packet-kafka.c's dissect_kafka_*
// functions against the message definitions; a field tshark reads at a
// range where we label something else fails the test.
var tsharkFieldNames = map[string]tsharkName{
	// The size prefix and the headers.
	"kafka.len":            kafka("Size"),
	"kafka.api_key":        kafka("RequestApiKey"),
	"kafka.api_version":    kafka("RequestApiVersion"),
	"kafka.correlation_id": kafka("CorrelationId"),
	"kafka.client_id":      kafka("ClientId"),

	// Common to many messages.
	"kafka.error":            kafka("ErrorCode"),
	"kafka.error_message":    kafka("ErrorMessage"),
	"kafka.throttle_time":    kafka("ThrottleTimeMs"),
	"kafka.topic_name":       kafka("Name", "Topic", "TopicName", "[]"),
	"kafka.partition_id":     kafka("PartitionIndex", "Index", "Partition", "[]"),
	"kafka.leader_epoch":     kafka("LeaderEpoch", "CurrentLeaderEpoch", "CommittedLeaderEpoch", "PartitionLeaderEpoch"),
	"kafka.leader_id":        kafka("LeaderId"),
	"kafka.replica_id":       kafka("ReplicaId", "PreferredReadReplica", "[]"),
	"kafka.isr_id":           kafka("[]"),
	"kafka.offline_id":       kafka("[]"),
	"kafka.node_id":          kafka("NodeId", "ControllerId"),
	"kafka.host":             kafka("Host"),
	"kafka.port":             kafka("Port"),
	"kafka.rack":             kafka("Rack", "RackId"),
	"kafka.cluster_id":       kafka("ClusterId"),
	"kafka.timeout":          kafka("TimeoutMs", "timeoutMs"), // CreateTopics spells it timeoutMs
	"kafka.validate_only":    kafka("ValidateOnly", "validateOnly"),
	"kafka.offset":           kafka("Offset", "BaseOffset", "FetchOffset", "CommittedOffset", "HighWatermark", "[]"),
	"kafka.first_offset":     kafka("FirstOffset", "BaseOffset"),
	"kafka.offset_time":      kafka("Timestamp", "LogAppendTimeMs"),
	"kafka.max_offsets":      kafka("MaxNumOffsets"),
	"kafka.metadata":         kafka("CommittedMetadata", "Metadata"),
	"kafka.commit_timestamp": kafka("CommitTimestamp"),
	"kafka.retention_time":   kafka("RetentionTimeMs"),

	// ApiVersions.
	"kafka.api_versions.api_key":     kafka("ApiKey"),
	"kafka.api_versions.min_version": kafka("MinVersion"),
	"kafka.api_versions.max_version": kafka("MaxVersion"),
	"kafka.client_software_name":     kafka("ClientSoftwareName"),
	"kafka.client_software_version":  kafka("ClientSoftwareVersion"),

	// Metadata.
	"kafka.is_internal":                    kafka("IsInternal"),
	"kafka.allow_auto_topic_creation":      kafka("AllowAutoTopicCreation"),
	"kafka.include_cluster_authorized_ops": kafka("IncludeClusterAuthorizedOperations"),
	"kafka.include_topic_authorized_ops":   kafka("IncludeTopicAuthorizedOperations"),
	"kafka.topic_authorized_ops":           kafka("TopicAuthorizedOperations"),

	// Produce and Fetch.
	"kafka.required_acks":             kafka("Acks"),
	"kafka.transactional_id":          kafka("TransactionalId"),
	"kafka.isolation_level":           kafka("IsolationLevel"),
	"kafka.max_bytes":                 kafka("MaxBytes", "PartitionMaxBytes"),
	"kafka.min_bytes":                 kafka("MinBytes"),
	"kafka.max_wait_time":             kafka("MaxWaitMs"),
	"kafka.fetch_session_epoch":       kafka("SessionEpoch"),
	"kafka.fetch_session_id":          kafka("SessionId"),
	"kafka.log_start_offset":          kafka("LogStartOffset"),
	"kafka.last_stable_offset":        kafka("LastStableOffset"),
	"kafka.producer_id":               kafka("ProducerId"),
	"kafka.producer_epoch":            kafka("ProducerEpoch"),
	"kafka.batch_index":               kafka("BatchIndex"),
	"kafka.batch_index_error_message": kafka("BatchIndexErrorMessage"),

	// Record batches (v2) and legacy messages.
	"kafka.message_size":            kafka("BatchLength", "MessageSize"),
	"kafka.message_magic":           kafka("Magic"),
	"kafka.batch_crc":               kafka("Crc"),
	"kafka.message_crc":             kafka("Crc"),
	"kafka.batch_codec":             kafka("Attributes").nameOnly("tshark shows one bit field of Attributes"),
	"kafka.batch_timestamp_type":    kafka("Attributes").nameOnly("tshark shows one bit field of Attributes"),
	"kafka.batch_transactional":     kafka("Attributes").nameOnly("tshark shows one bit field of Attributes"),
	"kafka.batch_control_batch":     kafka("Attributes").nameOnly("tshark shows one bit field of Attributes"),
	"kafka.message_codec":           kafka("Attributes").nameOnly("tshark shows one bit field of Attributes"),
	"kafka.batch_last_offset_delta": kafka("LastOffsetDelta"),
	"kafka.batch_first_timestamp":   kafka("BaseTimestamp").nameOnly("tshark 4.0 reads the milliseconds as nanoseconds (a 1970 date)"),
	"kafka.batch_last_timestamp":    kafka("MaxTimestamp").nameOnly("tshark 4.0 reads the milliseconds as nanoseconds (a 1970 date)"),
	"kafka.batch_base_sequence":     kafka("BaseSequence"),
	"kafka.batch_size":              kafka("RecordCount"),
	"kafka.record_attributes":       kafka("Attributes"),
	"kafka.message_key":             kafka("Key").hex(),
	"kafka.message_value":           kafka("Value").hex(),
	"kafka.header_key":              kafka("Key"),
	"kafka.header_value":            kafka("Value").hex(),

	// Groups.
	"kafka.consumer_group":               kafka("GroupId", "[]"),
	"kafka.consumer_group_instance":      kafka("GroupInstanceId"),
	"kafka.member_id":                    kafka("MemberId"),
	"kafka.generation_id":                kafka("GenerationId", "GenerationIdOrMemberEpoch"),
	"kafka.group_leader_id":              kafka("Leader"),
	"kafka.group_state":                  kafka("GroupState"),
	"kafka.group_authorized_ops":         kafka("AuthorizedOperations"),
	"kafka.include_group_authorized_ops": kafka("IncludeAuthorizedOperations"),
	"kafka.protocol_type":                kafka("ProtocolType"),
	"kafka.protocol_name":                kafka("ProtocolName", "Name"),
	"kafka.protocol_metadata":            kafka("Metadata").hex(),
	"kafka.member_metadata":              kafka("Metadata").hex(),
	"kafka.member_assignment":            kafka("Assignment").hex(),
	"kafka.session_timeout":              kafka("SessionTimeoutMs"),
	"kafka.rebalance_timeout":            kafka("RebalanceTimeoutMs"),
	"kafka.coordinator_key":              kafka("Key"),
	"kafka.coordinator_type":             kafka("KeyType"),
	"kafka.require_stable_offset":        kafka("RequireStable"),

	// Transactions.
	"kafka.transaction_timeout": kafka("TransactionTimeoutMs"),
	"kafka.transaction_result":  kafka("Committed"),

	// Admin.
	"kafka.num_partitions":            kafka("NumPartitions"),
	"kafka.replication_factor":        kafka("ReplicationFactor"),
	"kafka.partition_count":           kafka("Count"),
	"kafka.config_key":                kafka("Name"),
	"kafka.config_value":              kafka("Value"),
	"kafka.config_operation":          kafka("ConfigOperation"),
	"kafka.config_resource_name":      kafka("ResourceName"),
	"kafka.config_resource_type":      kafka("ResourceType"),
	"kafka.election_type":             kafka("ElectionType"),
	"kafka.acl_resource_type":         kafka("ResourceType", "ResourceTypeFilter"),
	"kafka.acl_resource_name":         kafka("ResourceName", "ResourceNameFilter"),
	"kafka.acl_resource_pattern_type": kafka("PatternType", "PatternTypeFilter", "ResourcePatternType"),
	"kafka.acl_principal":             kafka("Principal", "PrincipalFilter"),
	"kafka.acl_host":                  kafka("Host", "HostFilter"),
	"kafka.acl_operation":             kafka("Operation"),
	"kafka.acl_permission_type":       kafka("PermissionType"),
}

// Not mapped: kafka.tagged_field_tag and kafka.tagged_field_data, an
// unknown tagged field's tag and data as tshark reads them; we label the
// whole entry (tag, size and data) "(unknown tag)", and a tag the schema
// knows by its field's name, so no range of ours is one of tshark's.

// tsharkRecordFieldNames are the names tshark gives a v2 record's fields
// that mean another thing inside a record.
var tsharkRecordFieldNames = map[string]tsharkName{
	// tshark shows the record's offset, BaseOffset + OffsetDelta, which
	// the detail view shows in the record's heading.
	"kafka.offset": {names: map[string]bool{"OffsetDelta": true}, detailAt: "(offset)"},
	// Likewise the record's time, BaseTimestamp + TimestampDelta.
	"kafka.message_timestamp": {names: map[string]bool{"TimestampDelta": true}, detailAt: "(time)"},
}
