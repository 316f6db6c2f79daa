package codec

// Removal is a range of versions of one API that a Kafka release removed:
// brokers of that release and later refuse them (UNSUPPORTED_VERSION, or
// close the connection), so a client still using them cannot talk to them.
type Removal struct {
	Key int16
	// Below: versions below it are removed; -1 when the whole API is
	// (every version, as "validVersions": "none" says).
	Below   int16
	Release string // the Kafka release that removed them: "4.0", "4.1"
	// LastServed is the newest release that still serves them: the one
	// before Release ("3.9" before "4.0").
	LastServed string
	KIP        string // the KIP that removed them: "KIP-896"
}

// Whole reports whether the whole API was removed.
func (r Removal) Whole() bool { return r.Below < 0 }

// removals is Kafka 4.3.0's message definitions' word on removed versions
// (the comments "Version(s) N were removed in Apache Kafka R" beside a
// validVersions minimum above 0, or "none"), by ApiKey. removed_test.go
// derives the same from the definitions in ../shared when present.
var removals = []Removal{
	// KIP-896: client protocol versions older than Kafka 2.1, removed in 4.0.
	{ApiKeyProduce, 3, "4.0", "3.9", "KIP-896"},
	{ApiKeyFetch, 4, "4.0", "3.9", "KIP-896"},
	{ApiKeyListOffsets, 1, "4.0", "3.9", "KIP-896"},
	{ApiKeyOffsetCommit, 2, "4.0", "3.9", "KIP-896"},
	{ApiKeyOffsetFetch, 1, "4.0", "3.9", "KIP-896"},
	{ApiKeyCreateTopics, 2, "4.0", "3.9", "KIP-896"},
	{ApiKeyDeleteTopics, 1, "4.0", "3.9", "KIP-896"},
	{ApiKeyOffsetForLeaderEpoch, 2, "4.0", "3.9", "KIP-896"},
	{ApiKeyWriteTxnMarkers, 1, "4.0", "3.9", "KIP-896"},
	{ApiKeyDescribeAcls, 1, "4.0", "3.9", "KIP-896"},
	{ApiKeyCreateAcls, 1, "4.0", "3.9", "KIP-896"},
	{ApiKeyDeleteAcls, 1, "4.0", "3.9", "KIP-896"},
	{ApiKeyDescribeConfigs, 1, "4.0", "3.9", "KIP-896"},
	{ApiKeyAlterReplicaLogDirs, 1, "4.0", "3.9", "KIP-896"},
	{ApiKeyDescribeLogDirs, 1, "4.0", "3.9", "KIP-896"},
	{ApiKeyCreateDelegationToken, 1, "4.0", "3.9", "KIP-896"},
	{ApiKeyRenewDelegationToken, 1, "4.0", "3.9", "KIP-896"},
	{ApiKeyExpireDelegationToken, 1, "4.0", "3.9", "KIP-896"},
	{ApiKeyDescribeDelegationToken, 1, "4.0", "3.9", "KIP-896"},
	{ApiKeyAlterPartition, 2, "4.0", "3.9", "KIP-896"},
	// ZooKeeper mode's controller-to-broker APIs, gone with it in 4.0.
	{ApiKeyLeaderAndIsr, -1, "4.0", "3.9", "KIP-500"},
	{ApiKeyStopReplica, -1, "4.0", "3.9", "KIP-500"},
	{ApiKeyUpdateMetadata, -1, "4.0", "3.9", "KIP-500"},
	{ApiKeyControlledShutdown, -1, "4.0", "3.9", "KIP-500"},
	// KIP-932's early access versions (Kafka 4.0), removed when share
	// groups became a preview in 4.1.
	{ApiKeyShareGroupHeartbeat, 1, "4.1", "4.0", "KIP-932"},
	{ApiKeyShareGroupDescribe, 1, "4.1", "4.0", "KIP-932"},
	{ApiKeyShareFetch, 1, "4.1", "4.0", "KIP-932"},
	{ApiKeyShareAcknowledge, 1, "4.1", "4.0", "KIP-932"},
}

// Removals lists every removal, by ApiKey. The slice is the caller's.
func Removals() []Removal { return append([]Removal(nil), removals...) }

// RemovedVersion says whether Kafka removed version of API key, and when:
// ok is false for a version every release since 4.0 still serves (or one
// of a key it does not know).
func RemovedVersion(key, version int16) (r Removal, ok bool) {
	for _, r := range removals {
		if r.Key == key && (r.Whole() || version < r.Below) {
			return r, true
		}
	}
	return Removal{}, false
}
