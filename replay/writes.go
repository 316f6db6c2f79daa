package replay

// writeAPIs are the ApiKeys whose requests change the cluster: data,
// topics, configs, groups' committed offsets, transactions, ACLs, quotas,
// credentials, features, partition assignments and the like. Reads,
// group membership (JoinGroup, Heartbeat...) and the handshake
// (ApiVersions, SASL) are not writes. The broker-to-broker and
// controller APIs that change state are writes too.
var writeAPIs = map[int16]bool{
	0:  true, // Produce
	4:  true, // LeaderAndIsr
	5:  true, // StopReplica
	6:  true, // UpdateMetadata
	7:  true, // ControlledShutdown
	8:  true, // OffsetCommit
	19: true, // CreateTopics
	20: true, // DeleteTopics
	21: true, // DeleteRecords
	22: true, // InitProducerId
	24: true, // AddPartitionsToTxn
	25: true, // AddOffsetsToTxn
	26: true, // EndTxn
	27: true, // WriteTxnMarkers
	28: true, // TxnOffsetCommit
	30: true, // CreateAcls
	31: true, // DeleteAcls
	33: true, // AlterConfigs
	34: true, // AlterReplicaLogDirs
	37: true, // CreatePartitions
	38: true, // CreateDelegationToken
	39: true, // RenewDelegationToken
	40: true, // ExpireDelegationToken
	42: true, // DeleteGroups
	43: true, // ElectLeaders
	44: true, // IncrementalAlterConfigs
	45: true, // AlterPartitionReassignments
	47: true, // OffsetDelete
	49: true, // AlterClientQuotas
	51: true, // AlterUserScramCredentials
	56: true, // AlterPartition
	57: true, // UpdateFeatures
	58: true, // Envelope
	62: true, // BrokerRegistration
	63: true, // BrokerHeartbeat
	64: true, // UnregisterBroker
	67: true, // AllocateProducerIds
	70: true, // ControllerRegistration
	73: true, // AssignReplicasToDirs
	80: true, // AddRaftVoter
	81: true, // RemoveRaftVoter
	82: true, // UpdateRaftVoter
	83: true, // InitializeShareGroupState
	85: true, // WriteShareGroupState
	86: true, // DeleteShareGroupState
	91: true, // AlterShareGroupOffsets
	92: true, // DeleteShareGroupOffsets
	93: true, // StreamsGroupTopologyDescriptionUpdate
	94: true, // UnregisterController
}

// IsWrite reports whether requests of the ApiKey change the cluster's
// data or configuration, so that --read-only skips them.
func IsWrite(key int16) bool { return writeAPIs[key] }
