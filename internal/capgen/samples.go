package capgen

import "math/rand/v2"

// Sample is one exchange the generator writes, for benchmarks of the
// decoding stages: its request and response frames, each with its 4-byte
// size prefix.
type Sample struct {
	Name               string // API name, and the codec of Produce and Fetch: "Produce/lz4"
	APIKey, APIVersion int16
	Request, Response  []byte
	Records            int // records in the Produce request or the Fetch response
}

// Samples returns one exchange of each kind the generator writes, built as
// Write builds them for the seed.
func Samples(seed uint64) ([]Sample, error) {
	t, err := newTraffic(rand.New(rand.NewPCG(seed, 7)))
	if err != nil {
		return nil, err
	}
	sample := func(name string, key, version int16, ex exchange) Sample {
		return Sample{Name: name, APIKey: key, APIVersion: version, Request: ex.req, Response: ex.resp, Records: ex.records}
	}
	out := []Sample{
		sample("ApiVersions", 18, apiVersionsVer, t.apiVersions),
		sample("Metadata", 3, metadataVersion, t.metadata),
		sample("FindCoordinator", 10, findCoordVersion, t.findCoordinator),
		sample("JoinGroup", 11, joinGroupVersion, t.joinGroup),
		sample("SyncGroup", 14, syncGroupVersion, t.syncGroup),
		sample("Heartbeat", 12, heartbeatVersion, t.heartbeat),
		sample("OffsetCommit", 8, commitVersion, t.offsetCommit),
	}
	for i, c := range compressions {
		out = append(out, sample("Produce/"+c.String(), 0, produceVersion, t.produce[i][0]))
	}
	for i, c := range compressions {
		out = append(out, sample("Fetch/"+c.String(), 1, fetchVersion, t.fetch[i][0]))
	}
	return out, nil
}
