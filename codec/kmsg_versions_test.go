package codec

// A guard on the schema's coverage of franz-go's kmsg: every key kmsg
// knows is known here, over at least kmsg's versions and with the same
// first flexible version; and every version the schema gained beyond Kafka
// 4.0's definitions (codec/schema/defs, taken from newer Kafka definitions
// and kmsg) decodes what kmsg encodes, byte for byte. The randomized
// differential test over all versions is kmsg_diff_test.go; this one stays
// small and names the new versions.

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// kmsgNewVersions maps each ApiKey whose versions the schema took from
// beyond Kafka 4.0's definitions to the first such version; every version
// from there to kmsg's MaxVersion is new. Keys 88 to 94 are new as a whole.
var kmsgNewVersions = map[int16]int16{
	0:  12, // Produce
	1:  18, // Fetch
	2:  11, // ListOffsets
	3:  13, // Metadata
	8:  10, // OffsetCommit
	9:  10, // OffsetFetch
	15: 6,  // DescribeGroups
	18: 5,  // ApiVersions
	27: 2,  // WriteTxnMarkers
	28: 5,  // TxnOffsetCommit
	35: 5,  // DescribeLogDirs
	42: 3,  // DeleteGroups
	45: 1,  // AlterPartitionReassignments
	52: 2,  // Vote
	60: 2,  // DescribeCluster
	63: 2,  // BrokerHeartbeat
	66: 2,  // ListTransactions
	69: 1,  // ConsumerGroupDescribe
	74: 1,  // ListConfigResources (Kafka 4.0: ListClientMetricsResources)
	76: 1,  // ShareGroupHeartbeat
	77: 1,  // ShareGroupDescribe
	78: 1,  // ShareFetch
	79: 1,  // ShareAcknowledge
	80: 1,  // AddRaftVoter
	85: 1,  // WriteShareGroupState
	87: 1,  // ReadShareGroupStateSummary
	88: 0,  // StreamsGroupHeartbeat
	89: 0,  // StreamsGroupDescribe
	90: 0,  // DescribeShareGroupOffsets
	91: 0,  // AlterShareGroupOffsets
	92: 0,  // DeleteShareGroupOffsets
	93: 0,  // StreamsGroupTopologyDescriptionUpdate
	94: 0,  // UnregisterController
}

// TestKmsgVersionCoverage checks that the codec knows every key kmsg knows,
// over at least kmsg's versions, flexible from the same version. kmsg has
// no minimum version: it encodes every version from 0 to MaxVersion.
func TestKmsgVersionCoverage(t *testing.T) {
	keys := 0
	for key := int16(0); key <= 200; key++ {
		req := kmsg.RequestForKey(key)
		if req == nil {
			continue
		}
		keys++
		api, ok := LookupAPI(key)
		if !ok {
			t.Errorf("key %d (kmsg %s): not in the codec", key, kmsg.NameForKey(key))
			continue
		}
		if api.MinVersion > 0 {
			t.Errorf("%s: codec min version %d, kmsg encodes from v0", api.Name, api.MinVersion)
		}
		if api.MaxVersion < req.MaxVersion() {
			t.Errorf("%s: codec max version %d, kmsg's %d", api.Name, api.MaxVersion, req.MaxVersion())
		}
		kflex := int16(-1)
		for v := int16(0); v <= req.MaxVersion(); v++ {
			req.SetVersion(v)
			if req.IsFlexible() {
				kflex = v
				break
			}
		}
		if api.FlexibleFrom != kflex {
			t.Errorf("%s: codec flexible from %d, kmsg from %d", api.Name, api.FlexibleFrom, kflex)
		}
	}
	if keys < 90 {
		t.Errorf("kmsg knows %d keys; expected 90 or more", keys)
	}
	for key := range kmsgNewVersions {
		if kmsg.RequestForKey(key) == nil {
			t.Errorf("kmsgNewVersions names key %d, which kmsg does not know", key)
		}
	}
}

// TestKmsgNewVersions encodes, for each version new beyond Kafka 4.0, a
// kmsg request and response with every field set to a non-zero value, and
// holds the codec to it: the body decodes without error, warning, trailing
// byte or unknown tagged field, and re-encodes to the same bytes.
func TestKmsgNewVersions(t *testing.T) {
	type kmsgMessage interface {
		SetVersion(int16)
		AppendTo([]byte) []byte
	}
	keys := make([]int16, 0, len(kmsgNewVersions))
	for key := range kmsgNewVersions {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	for _, key := range keys {
		first := kmsgNewVersions[key]
		api, ok := LookupAPI(key)
		if !ok {
			t.Errorf("key %d: not in the codec", key)
			continue
		}
		max := kmsg.RequestForKey(key).MaxVersion()
		for v := first; v <= max; v++ {
			for _, response := range []bool{false, true} {
				side, km := "request", kmsgMessage(kmsg.RequestForKey(key))
				if response {
					side, km = "response", kmsg.ResponseForKey(key)
				}
				t.Run(api.Name+"/v"+strconv.Itoa(int(v))+"/"+side, func(t *testing.T) {
					kmsgFill(reflect.ValueOf(km).Elem())
					km.SetVersion(v)
					body := km.AppendTo(nil)

					m := api.NewRequest()
					if response {
						m = api.NewResponse()
					}
					r := NewReader(body)
					m.ReadFrom(r, v)
					if err := r.Err(); err != nil {
						t.Fatalf("decoding kmsg's %d bytes: %v\n%x", len(body), err, body)
					}
					if n := r.Remaining(); n > 0 {
						t.Fatalf("%d of kmsg's %d bytes left after the body\n%x", n, len(body), body)
					}
					if len(r.Warnings) > 0 {
						t.Errorf("warnings: %v", r.Warnings)
					}
					w := NewJSONWriter(nil)
					m.WriteJSON(w, v)
					if js := string(w.Bytes()); strings.Contains(js, "UnknownTaggedFields") {
						t.Errorf("a tagged field kmsg sends is unknown to the schema: %s", js)
					}
					if re := m.AppendTo(nil, v); string(re) != string(body) {
						t.Errorf("re-encoding differs:\n got  %x\n want %x", re, body)
					}
				})
			}
		}
	}
}

// kmsgFill sets every settable field reachable from v to a non-zero value:
// strings "x", numbers 1, booleans true, uuids 1..16, byte slices "x", one
// element in other slices, and pointers to filled values. kmsg's Version
// and UnknownTags are left alone.
func kmsgFill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !f.IsExported() || f.Name == "Version" || f.Name == "UnknownTags" {
				continue
			}
			kmsgFill(v.Field(i))
		}
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Array: // uuids
		for i := 0; i < v.Len(); i++ {
			kmsgFill(v.Index(i))
			v.Index(i).SetUint(uint64(i + 1))
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes([]byte("x"))
			return
		}
		s := reflect.MakeSlice(v.Type(), 1, 1)
		kmsgFill(s.Index(0))
		v.Set(s)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		kmsgFill(p.Elem())
		v.Set(p)
	}
}
