package codec

import "strconv"

// ErrorCode is a Kafka protocol error code as carried in ErrorCode fields (int16).
type ErrorCode int16

// ErrorInfo describes one Kafka error code.
type ErrorInfo struct {
	Code        ErrorCode
	Name        string // as Kafka spells it, e.g. "NOT_LEADER_OR_FOLLOWER"
	Description string // Kafka's message text
	Retriable   bool   // a client may retry the request after a metadata refresh or backoff
}

// LookupError returns what Kafka defines for code; ok is false for codes Kafka does not define.
func LookupError(code int16) (info ErrorInfo, ok bool) {
	i := int(code) - minErrorCode
	if i < 0 || i >= len(errorTable) {
		return ErrorInfo{}, false
	}
	return errorTable[i], true
}

// ErrorName returns the Kafka name of code, "NONE" for 0, and "UNKNOWN_ERROR_CODE_<n>" for codes Kafka does not define.
func ErrorName(code int16) string {
	if info, ok := LookupError(code); ok {
		return info.Name
	}
	return "UNKNOWN_ERROR_CODE_" + strconv.Itoa(int(code))
}

// Errors returns every defined code in ascending order (a copy).
func Errors() []ErrorInfo {
	return append([]ErrorInfo(nil), errorTable[:]...)
}

// String returns the Kafka name of c, as ErrorName does.
func (c ErrorCode) String() string { return ErrorName(int16(c)) }

// minErrorCode is the lowest code Kafka defines (UNKNOWN_SERVER_ERROR); the
// codes are dense from there, so errorTable[code-minErrorCode] describes code.
const minErrorCode = -1

// errorTable is Kafka's org.apache.kafka.common.protocol.Errors enum, one row
// per code in ascending order, as of Kafka 4.4 (apache/kafka trunk): the newest
// codes are GROUP_DELETION_FAILED (134) and
// STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED (135) from KIP-1331 (KAFKA-20620)
// and CONTROLLER_ID_NOT_REGISTERED (136) from KAFKA-20395, all first shipped
// in Kafka 4.4; 4.1 through 4.3 end at SHARE_SESSION_LIMIT_REACHED (133).
//
//   - Name is the enum constant's current name. Kafka has renamed some codes
//     (6 was NOT_LEADER_FOR_PARTITION before 2.6, -1 was UNKNOWN, 14-16 were
//     GROUP_*); the numbers never change.
//   - Description is the default message string given in the enum, verbatim
//     (including Kafka's own wording slips, e.g. "the either" in 94). Kafka
//     gives NONE no message, so its Description is empty.
//   - Retriable is true when the code's exception class extends Kafka's
//     RetriableException (directly or via InvalidMetadataException, the
//     "refresh metadata, then retry" subclass), which is also what the
//     Retriable column of Kafka's protocol documentation shows.
//
// The table is static because error codes are part of the wire protocol:
// Kafka only ever appends codes and never reuses or renumbers one ("The names
// can be changed but the error code cannot", Errors.java). A dissector decodes
// captured traffic with no broker to ask, so the facts have to be compiled in;
// a literal costs nothing at start-up and is easy to audit against Errors.java.
// To pick up a new Kafka release, append its rows here.
var errorTable = [...]ErrorInfo{
	{-1, "UNKNOWN_SERVER_ERROR", "The server experienced an unexpected error when processing the request.", false},
	{0, "NONE", "", false},
	{1, "OFFSET_OUT_OF_RANGE", "The requested offset is not within the range of offsets maintained by the server.", false},
	{2, "CORRUPT_MESSAGE", "This message has failed its CRC checksum, exceeds the valid size, has a null key for a compacted topic, or is otherwise corrupt.", true},
	{3, "UNKNOWN_TOPIC_OR_PARTITION", "This server does not host this topic-partition.", true},
	{4, "INVALID_FETCH_SIZE", "The requested fetch size is invalid.", false},
	{5, "LEADER_NOT_AVAILABLE", "There is no leader for this topic-partition as we are in the middle of a leadership election.", true},
	{6, "NOT_LEADER_OR_FOLLOWER", "For requests intended only for the leader, this error indicates that the broker is not the current leader. For requests intended for any replica, this error indicates that the broker is not a replica of the topic partition.", true},
	{7, "REQUEST_TIMED_OUT", "The request timed out.", true},
	{8, "BROKER_NOT_AVAILABLE", "The broker is not available.", false},
	{9, "REPLICA_NOT_AVAILABLE", "The replica is not available for the requested topic-partition. Produce/Fetch requests and other requests intended only for the leader or follower return NOT_LEADER_OR_FOLLOWER if the broker is not a replica of the topic-partition.", true},
	{10, "MESSAGE_TOO_LARGE", "The request included a message larger than the max message size the server will accept.", false},
	{11, "STALE_CONTROLLER_EPOCH", "The controller moved to another broker.", false},
	{12, "OFFSET_METADATA_TOO_LARGE", "The metadata field of the offset request was too large.", false},
	{13, "NETWORK_EXCEPTION", "The server disconnected before a response was received.", true},
	{14, "COORDINATOR_LOAD_IN_PROGRESS", "The coordinator is loading and hence can't process requests.", true},
	{15, "COORDINATOR_NOT_AVAILABLE", "The coordinator is not available.", true},
	{16, "NOT_COORDINATOR", "This is not the correct coordinator.", true},
	{17, "INVALID_TOPIC_EXCEPTION", "The request attempted to perform an operation on an invalid topic.", false},
	{18, "RECORD_LIST_TOO_LARGE", "The request included message batch larger than the configured segment size on the server.", false},
	{19, "NOT_ENOUGH_REPLICAS", "Messages are rejected since there are fewer in-sync replicas than required.", true},
	{20, "NOT_ENOUGH_REPLICAS_AFTER_APPEND", "Messages are written to the log, but to fewer in-sync replicas than required.", true},
	{21, "INVALID_REQUIRED_ACKS", "Produce request specified an invalid value for required acks.", false},
	{22, "ILLEGAL_GENERATION", "Specified group generation id is not valid.", false},
	{23, "INCONSISTENT_GROUP_PROTOCOL", "The group member's supported protocols are incompatible with those of existing members or first group member tried to join with empty protocol type or empty protocol list.", false},
	{24, "INVALID_GROUP_ID", "The group id is invalid.", false},
	{25, "UNKNOWN_MEMBER_ID", "The coordinator is not aware of this member.", false},
	{26, "INVALID_SESSION_TIMEOUT", "The session timeout is not within the range allowed by the broker (as configured by group.min.session.timeout.ms and group.max.session.timeout.ms).", false},
	{27, "REBALANCE_IN_PROGRESS", "The group is rebalancing, so a rejoin is needed.", false},
	{28, "INVALID_COMMIT_OFFSET_SIZE", "The committing offset data size is not valid.", false},
	{29, "TOPIC_AUTHORIZATION_FAILED", "Topic authorization failed.", false},
	{30, "GROUP_AUTHORIZATION_FAILED", "Group authorization failed.", false},
	{31, "CLUSTER_AUTHORIZATION_FAILED", "Cluster authorization failed.", false},
	{32, "INVALID_TIMESTAMP", "The timestamp of the message is out of acceptable range.", false},
	{33, "UNSUPPORTED_SASL_MECHANISM", "The broker does not support the requested SASL mechanism.", false},
	{34, "ILLEGAL_SASL_STATE", "Request is not valid given the current SASL state.", false},
	{35, "UNSUPPORTED_VERSION", "The version of API is not supported.", false},
	{36, "TOPIC_ALREADY_EXISTS", "Topic with this name already exists.", false},
	{37, "INVALID_PARTITIONS", "Number of partitions is below 1.", false},
	{38, "INVALID_REPLICATION_FACTOR", "Replication factor is below 1 or larger than the number of available brokers.", false},
	{39, "INVALID_REPLICA_ASSIGNMENT", "Replica assignment is invalid.", false},
	{40, "INVALID_CONFIG", "Configuration is invalid.", false},
	{41, "NOT_CONTROLLER", "This is not the correct controller for this cluster.", true},
	{42, "INVALID_REQUEST", "This most likely occurs because of a request being malformed by the client library or the message was sent to an incompatible broker. See the broker logs for more details.", false},
	{43, "UNSUPPORTED_FOR_MESSAGE_FORMAT", "The message format version on the broker does not support the request.", false},
	{44, "POLICY_VIOLATION", "Request parameters do not satisfy the configured policy.", false},
	{45, "OUT_OF_ORDER_SEQUENCE_NUMBER", "The broker received an out of order sequence number.", false},
	{46, "DUPLICATE_SEQUENCE_NUMBER", "The broker received a duplicate sequence number.", false},
	{47, "INVALID_PRODUCER_EPOCH", "Producer attempted to produce with an old epoch.", false},
	{48, "INVALID_TXN_STATE", "The producer attempted a transactional operation in an invalid state.", false},
	{49, "INVALID_PRODUCER_ID_MAPPING", "The producer attempted to use a producer id which is not currently assigned to its transactional id.", false},
	{50, "INVALID_TRANSACTION_TIMEOUT", "The transaction timeout is larger than the maximum value allowed by the broker (as configured by transaction.max.timeout.ms).", false},
	{51, "CONCURRENT_TRANSACTIONS", "The producer attempted to update a transaction while another concurrent operation on the same transaction was ongoing.", true},
	{52, "TRANSACTION_COORDINATOR_FENCED", "Indicates that the transaction coordinator sending a WriteTxnMarker is no longer the current coordinator for a given producer.", false},
	{53, "TRANSACTIONAL_ID_AUTHORIZATION_FAILED", "Transactional Id authorization failed.", false},
	{54, "SECURITY_DISABLED", "Security features are disabled.", false},
	{55, "OPERATION_NOT_ATTEMPTED", "The broker did not attempt to execute this operation. This may happen for batched RPCs where some operations in the batch failed, causing the broker to respond without trying the rest.", false},
	{56, "KAFKA_STORAGE_ERROR", "Disk error when trying to access log file on the disk.", true},
	{57, "LOG_DIR_NOT_FOUND", "The user-specified log directory is not found in the broker config.", false},
	{58, "SASL_AUTHENTICATION_FAILED", "SASL Authentication failed.", false},
	{59, "UNKNOWN_PRODUCER_ID", "This exception is raised by the broker if it could not locate the producer metadata associated with the producerId in question. This could happen if, for instance, the producer's records were deleted because their retention time had elapsed. Once the last records of the producerId are removed, the producer's metadata is removed from the broker, and future appends by the producer will return this exception.", false},
	{60, "REASSIGNMENT_IN_PROGRESS", "A partition reassignment is in progress.", false},
	{61, "DELEGATION_TOKEN_AUTH_DISABLED", "Delegation Token feature is not enabled.", false},
	{62, "DELEGATION_TOKEN_NOT_FOUND", "Delegation Token is not found on server.", false},
	{63, "DELEGATION_TOKEN_OWNER_MISMATCH", "Specified Principal is not valid Owner/Renewer.", false},
	{64, "DELEGATION_TOKEN_REQUEST_NOT_ALLOWED", "Delegation Token requests are not allowed on PLAINTEXT/1-way SSL channels and on delegation token authenticated channels.", false},
	{65, "DELEGATION_TOKEN_AUTHORIZATION_FAILED", "Delegation Token authorization failed.", false},
	{66, "DELEGATION_TOKEN_EXPIRED", "Delegation Token is expired.", false},
	{67, "INVALID_PRINCIPAL_TYPE", "Supplied principalType is not supported.", false},
	{68, "NON_EMPTY_GROUP", "The group is not empty.", false},
	{69, "GROUP_ID_NOT_FOUND", "The group id does not exist.", false},
	{70, "FETCH_SESSION_ID_NOT_FOUND", "The fetch session ID was not found.", true},
	{71, "INVALID_FETCH_SESSION_EPOCH", "The fetch session epoch is invalid.", true},
	{72, "LISTENER_NOT_FOUND", "There is no listener on the leader broker that matches the listener on which metadata request was processed.", true},
	{73, "TOPIC_DELETION_DISABLED", "Topic deletion is disabled.", false},
	{74, "FENCED_LEADER_EPOCH", "The leader epoch in the request is older than the epoch on the broker.", true},
	{75, "UNKNOWN_LEADER_EPOCH", "The leader epoch in the request is newer than the epoch on the broker.", true},
	{76, "UNSUPPORTED_COMPRESSION_TYPE", "The requesting client does not support the compression type of given partition.", false},
	{77, "STALE_BROKER_EPOCH", "Broker epoch has changed.", false},
	{78, "OFFSET_NOT_AVAILABLE", "The leader high watermark has not caught up from a recent leader election so the offsets cannot be guaranteed to be monotonically increasing.", true},
	{79, "MEMBER_ID_REQUIRED", "The group member needs to have a valid member id before actually entering a consumer group.", false},
	{80, "PREFERRED_LEADER_NOT_AVAILABLE", "The preferred leader was not available.", true},
	{81, "GROUP_MAX_SIZE_REACHED", "The group has reached its maximum size.", false},
	{82, "FENCED_INSTANCE_ID", "The broker rejected this static consumer since another consumer with the same group.instance.id has registered with a different member.id.", false},
	{83, "ELIGIBLE_LEADERS_NOT_AVAILABLE", "Eligible topic partition leaders are not available.", true},
	{84, "ELECTION_NOT_NEEDED", "Leader election not needed for topic partition.", true},
	{85, "NO_REASSIGNMENT_IN_PROGRESS", "No partition reassignment is in progress.", false},
	{86, "GROUP_SUBSCRIBED_TO_TOPIC", "Deleting offsets of a topic is forbidden while the consumer group is actively subscribed to it.", false},
	{87, "INVALID_RECORD", "This record has failed the validation on broker and hence will be rejected.", false},
	{88, "UNSTABLE_OFFSET_COMMIT", "There are unstable offsets that need to be cleared.", true},
	{89, "THROTTLING_QUOTA_EXCEEDED", "The throttling quota has been exceeded.", true},
	{90, "PRODUCER_FENCED", "There is a newer producer with the same transactionalId which fences the current one.", false},
	{91, "RESOURCE_NOT_FOUND", "A request illegally referred to a resource that does not exist.", false},
	{92, "DUPLICATE_RESOURCE", "A request illegally referred to the same resource twice.", false},
	{93, "UNACCEPTABLE_CREDENTIAL", "Requested credential would not meet criteria for acceptability.", false},
	{94, "INCONSISTENT_VOTER_SET", "Indicates that the either the sender or recipient of a voter-only request is not one of the expected voters.", false},
	{95, "INVALID_UPDATE_VERSION", "The given update version was invalid.", false},
	{96, "FEATURE_UPDATE_FAILED", "Unable to update finalized features due to an unexpected server error.", false},
	{97, "PRINCIPAL_DESERIALIZATION_FAILURE", "Request principal deserialization failed during forwarding. This indicates an internal error on the broker cluster security setup.", false},
	{98, "SNAPSHOT_NOT_FOUND", "Requested snapshot was not found.", false},
	{99, "POSITION_OUT_OF_RANGE", "Requested position is not greater than or equal to zero, and less than the size of the snapshot.", false},
	{100, "UNKNOWN_TOPIC_ID", "This server does not host this topic ID.", true},
	{101, "DUPLICATE_BROKER_REGISTRATION", "This broker ID is already in use.", false},
	{102, "BROKER_ID_NOT_REGISTERED", "The given broker ID was not registered.", false},
	{103, "INCONSISTENT_TOPIC_ID", "The log's topic ID did not match the topic ID in the request.", true},
	{104, "INCONSISTENT_CLUSTER_ID", "The clusterId in the request does not match that found on the server.", false},
	{105, "TRANSACTIONAL_ID_NOT_FOUND", "The transactionalId could not be found.", false},
	{106, "FETCH_SESSION_TOPIC_ID_ERROR", "The fetch session encountered inconsistent topic ID usage.", true},
	{107, "INELIGIBLE_REPLICA", "The new ISR contains at least one ineligible replica.", false},
	{108, "NEW_LEADER_ELECTED", "The AlterPartition request successfully updated the partition state but the leader has changed.", false},
	{109, "OFFSET_MOVED_TO_TIERED_STORAGE", "The requested offset is moved to tiered storage.", false},
	{110, "FENCED_MEMBER_EPOCH", "The member epoch is fenced by the group coordinator. The member must abandon all its partitions and rejoin.", false},
	{111, "UNRELEASED_INSTANCE_ID", "The instance ID is still used by another member in the consumer group. That member must leave first.", false},
	{112, "UNSUPPORTED_ASSIGNOR", "The assignor or its version range is not supported by the consumer group.", false},
	{113, "STALE_MEMBER_EPOCH", "The member epoch is stale. The member must retry after receiving its updated member epoch via the ConsumerGroupHeartbeat API.", false},
	{114, "MISMATCHED_ENDPOINT_TYPE", "The request was sent to an endpoint of the wrong type.", false},
	{115, "UNSUPPORTED_ENDPOINT_TYPE", "This endpoint type is not supported yet.", false},
	{116, "UNKNOWN_CONTROLLER_ID", "This controller ID is not known.", false},
	{117, "UNKNOWN_SUBSCRIPTION_ID", "Client sent a push telemetry request with an invalid or outdated subscription ID.", false},
	{118, "TELEMETRY_TOO_LARGE", "Client sent a push telemetry request larger than the maximum size the broker will accept.", false},
	{119, "INVALID_REGISTRATION", "The controller has considered the broker registration to be invalid.", false},
	{120, "TRANSACTION_ABORTABLE", "The server encountered an error with the transaction. The client can abort the transaction to continue using this transactional ID.", false},
	{121, "INVALID_RECORD_STATE", "The record state is invalid. The acknowledgement of delivery could not be completed.", false},
	{122, "SHARE_SESSION_NOT_FOUND", "The share session was not found.", true},
	{123, "INVALID_SHARE_SESSION_EPOCH", "The share session epoch is invalid.", true},
	{124, "FENCED_STATE_EPOCH", "The share coordinator rejected the request because the share-group state epoch did not match.", false},
	{125, "INVALID_VOTER_KEY", "The voter key doesn't match the receiving replica's key.", false},
	{126, "DUPLICATE_VOTER", "The voter is already part of the set of voters.", false},
	{127, "VOTER_NOT_FOUND", "The voter is not part of the set of voters.", false},
	{128, "INVALID_REGULAR_EXPRESSION", "The regular expression is not valid.", false},
	{129, "REBOOTSTRAP_REQUIRED", "Client metadata is stale. The client should rebootstrap to obtain new metadata.", false},
	{130, "STREAMS_INVALID_TOPOLOGY", "The supplied topology is invalid.", false},
	{131, "STREAMS_INVALID_TOPOLOGY_EPOCH", "The supplied topology epoch is invalid.", false},
	{132, "STREAMS_TOPOLOGY_FENCED", "The supplied topology epoch is outdated.", false},
	{133, "SHARE_SESSION_LIMIT_REACHED", "The limit of share sessions has been reached.", true},
	{134, "GROUP_DELETION_FAILED", "DeleteGroups could not complete; see the error message on the per-group result for details.", false},
	{135, "STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED", "The broker could not process the topology description update; see the error message for details.", false},
	{136, "CONTROLLER_ID_NOT_REGISTERED", "The given controller ID was not registered.", false},
}
