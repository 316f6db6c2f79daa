package schema

import (
	"fmt"
	"path/filepath"
	"testing"
)

// kafkaDefs is Apache Kafka's message definitions, shared beside the
// project; tests that need them skip when the folder is absent.
const kafkaDefs = "../../../shared/kafka-protocol/message"

func TestSchemaParses(t *testing.T) {
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.APIs) < 80 {
		t.Errorf("schema has %d APIs, want every Kafka API (80+)", len(s.APIs))
	}
	if len(s.Headers) != 2 {
		t.Errorf("schema has %d headers, want RequestHeader and ResponseHeader", len(s.Headers))
	}
}

// TestSchemaMatchesKafka holds every message of the schema against Kafka's
// own definition: the key, valid and flexible versions, and every field's
// name, order, type, versions, nullability, tag, tagged versions,
// flexibility override and default.
//
// The schema may go beyond the definitions shared with the project (Kafka
// 4.0): newer versions, and fields or messages that only exist in them,
// taken from franz-go's kmsg and newer Kafka releases (their differential
// test holds those). So versions are compared within the versions Kafka's
// definition declares valid, and a field the definition lacks must not
// exist in any of those versions.
func TestSchemaMatchesKafka(t *testing.T) {
	matchKafka(t, kafkaDefs, false, differences{
		renamed: map[string]string{
			// KIP-1142 renamed the API and its fields, in v0 too.
			"ListClientMetricsResourcesRequest":                              "ListConfigResourcesRequest",
			"ListClientMetricsResourcesResponse":                             "ListConfigResourcesResponse",
			"ListClientMetricsResourcesResponse.ClientMetricsResources":      "ConfigResources",
			"ListClientMetricsResourcesResponse.ClientMetricsResources.Name": "ResourceName",
			"[]ClientMetricsResource":                                        "[]ConfigResource",
			// KIP-996: the sender of a Vote may be a pre-voter, not a candidate.
			"VoteRequest.Topics.Partitions.CandidateEpoch":       "ReplicaEpoch",
			"VoteRequest.Topics.Partitions.CandidateId":          "ReplicaId",
			"VoteRequest.Topics.Partitions.CandidateDirectoryId": "ReplicaDirectoryId",
		},
		revised: map[string]string{
			"ReadShareGroupStateSummaryResponse.Results.Partitions.LeaderEpoch": "v0 as released (Kafka 4.3.0, kmsg) carries it; the 2024 draft did not",
		},
	})
}

// kafka43Defs are Kafka 4.3.0's message definitions.
const kafka43Defs = "../../../shared/kafka-protocol-4.3/message"

// TestSchemaMatchesKafka43 holds the schema to Kafka 4.3.0's definitions
// in the same way, except that 4.x removed the oldest versions of many
// APIs (KIP-896) which the schema keeps, to read old clients: the
// schema's versions must cover the definition's, and fields are compared
// within the definition's versions.
func TestSchemaMatchesKafka43(t *testing.T) {
	matchKafka(t, kafka43Defs, true, differences{
		renamed: map[string]string{
			// KIP-1331 (kmsg v1.15.1, after 4.3.0) gave v1 an int64
			// AcceptableRecoveryLag and renamed v0's int32 one.
			"StreamsGroupHeartbeatResponse.AcceptableRecoveryLag": "AcceptableRecoveryLagLegacy",
		},
		revised: map[string]string{
			// Kafka 4.0 and kmsg v1.15.1 let Records be null at every
			// version, 4.3.0 at v0 only; the schema reads a null at any
			// version as null rather than warn of what older peers send.
			"ShareFetchResponse.Responses.Partitions.Records": "nullable at every version, as Kafka 4.0 and kmsg have it",
		},
	})
}

// differences are what the schema knowingly holds otherwise than a
// snapshot of Kafka's definitions.
type differences struct {
	// renamed maps a message, a field's path or a struct type ("[]T") in
	// the definitions to the schema's newer name for it.
	renamed map[string]string
	// revised are the schema's field paths that a later definition
	// changed; the snapshot's versions of them are not held against it.
	revised map[string]string
}

// matchKafka compares the schema with the definitions in dir; with
// keepsOlder the schema may declare versions older than the definition's.
func matchKafka(t *testing.T, kafkaDefs string, keepsOlder bool, diff differences) {
	paths, _ := filepath.Glob(filepath.Join(kafkaDefs, "*.json"))
	if len(paths) == 0 {
		t.Skipf("Kafka message definitions not found at %s", kafkaDefs)
	}
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*Message{}
	for _, a := range s.APIs {
		byName[a.Request.Name] = a.Request
		byName[a.Response.Name] = a.Response
	}
	for _, h := range s.Headers {
		byName[h.Name] = h
	}
	seen := map[string]bool{}
	for _, p := range paths {
		km, err := ReadKafkaMessage(p)
		if err != nil {
			t.Fatal(err)
		}
		switch km.Type {
		case "request", "response", "header":
		default:
			continue // data and metadata records are not on the wire of the protocol
		}
		name := km.Name
		if n, ok := diff.renamed[name]; ok {
			name = n
		}
		m := byName[name]
		if m == nil {
			t.Errorf("%s: %s is not in the schema", filepath.Base(p), km.Name)
			continue
		}
		seen[name] = true
		if km.APIKey != nil && *km.APIKey != m.APIKey {
			t.Errorf("%s: api key %d, schema has %d", km.Name, *km.APIKey, m.APIKey)
		}
		kv := versions(t, km.ValidVersions)
		if (m.Valid.Min != kv.Min && !(keepsOlder && m.Valid.Min < kv.Min)) || m.Valid.Intersect(kv) != kv {
			t.Errorf("%s: valid versions %v, schema has %v (it may only add newer ones)", km.Name, kv, m.Valid)
		}
		if got := versions(t, km.FlexibleVersions).Intersect(kv); got != m.Flexible.Intersect(kv) {
			t.Errorf("%s: flexible versions %v, schema has %v", km.Name, got, m.Flexible)
		}
		c := comparer{t: t, kv: kv, diff: diff}
		c.fields(km.Name, km.Fields, m.Fields)
		common := map[string]*Struct{}
		for _, cs := range m.Common {
			common[cs.Name] = cs
		}
		for _, cs := range km.CommonStructs {
			ours := common[cs.Name]
			if ours == nil {
				t.Errorf("%s: common struct %s is not in the schema", km.Name, cs.Name)
				continue
			}
			c.fields(km.Name+"."+cs.Name, cs.Fields, ours.Fields)
		}
	}
	for name := range byName {
		if !seen[name] {
			t.Logf("schema message %s has no definition in %s (newer than those)", name, kafkaDefs)
		}
	}
}

func versions(t *testing.T, s string) Versions {
	t.Helper()
	v, err := ParseVersions(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// comparer compares fields within kv, the versions Kafka's definition declares.
type comparer struct {
	t    *testing.T
	kv   Versions
	diff differences
}

func (c comparer) in(v Versions) Versions { return v.Intersect(c.kv) }

// fields walks Kafka's fields and ours in order; ours may hold extra fields
// that exist only in versions beyond kv.
func (c comparer) fields(path string, kfs []*KafkaField, fs []*Field) {
	t := c.t
	t.Helper()
	j := 0
	for _, kf := range kfs {
		name := kf.Name
		if n, ok := c.diff.renamed[path+"."+kf.Name]; ok {
			name = n
		}
		for j < len(fs) && fs[j].Name != name {
			if _, ok := c.diff.revised[path+"."+fs[j].Name]; !ok && !c.in(fs[j].Versions).IsNone() {
				t.Errorf("%s.%s: in the schema at versions %v, but not in Kafka's definition", path, fs[j].Name, c.in(fs[j].Versions))
			}
			j++
		}
		if j == len(fs) {
			t.Errorf("%s.%s: in Kafka's definition, missing or out of order in the schema", path, kf.Name)
			return
		}
		c.field(path+"."+kf.Name, kf, fs[j])
		j++
	}
	for ; j < len(fs); j++ {
		if _, ok := c.diff.revised[path+"."+fs[j].Name]; !ok && !c.in(fs[j].Versions).IsNone() {
			t.Errorf("%s.%s: in the schema at versions %v, but not in Kafka's definition", path, fs[j].Name, c.in(fs[j].Versions))
		}
	}
}

func (c comparer) field(p string, kf *KafkaField, f *Field) {
	t := c.t
	t.Helper()
	if typ, ok := c.diff.renamed[kf.Type]; (!ok || typ != f.Type) && kf.Type != f.Type {
		t.Errorf("%s: type %s, schema has %s", p, kf.Type, f.Type)
	}
	kver := versions(t, kf.Versions)
	if got, want := c.in(f.Versions), c.in(kver); got != want {
		t.Errorf("%s: versions %v, schema has %v (compared within %v)", p, kver, f.Versions, c.kv)
	}
	if _, ok := c.diff.revised[p]; ok {
		// the schema knowingly differs here (differences.revised)
	} else if got, want := c.in(f.Nullable.Intersect(f.Versions)), c.in(versions(t, kf.NullableVersions).Intersect(kver)); got != want {
		t.Errorf("%s: nullable versions %s, schema has %v", p, kf.NullableVersions, f.Nullable)
	}
	tag := -1
	if kf.Tag != nil {
		fmt.Sscan(fmt.Sprint(kf.Tag), &tag)
	}
	if tag != f.Tag {
		t.Errorf("%s: tag %d, schema has %d", p, tag, f.Tag)
	}
	if got, want := c.in(f.Tagged), c.in(versions(t, kf.TaggedVersions)); got != want {
		t.Errorf("%s: tagged versions %s, schema has %v", p, kf.TaggedVersions, f.Tagged)
	}
	switch {
	case kf.FlexibleVersions == nil && f.Flexible != nil:
		t.Errorf("%s: schema overrides flexible versions, Kafka does not", p)
	case kf.FlexibleVersions != nil && (f.Flexible == nil || versions(t, *kf.FlexibleVersions) != *f.Flexible):
		t.Errorf("%s: flexible versions %s, schema has %v", p, *kf.FlexibleVersions, f.Flexible)
	}
	wantDefault, hasDefault := "", kf.Default != nil
	if hasDefault {
		wantDefault = fmt.Sprint(kf.Default)
	}
	if hasDefault != f.HasDefault || wantDefault != f.Default {
		t.Errorf("%s: default %q (present %v), schema has %q (present %v)", p, wantDefault, hasDefault, f.Default, f.HasDefault)
	}
	c.fields(p, kf.Fields, f.Fields)
}

// TestSchemaAnnotations checks the summary annotations sit on fields of the
// right type, and that every topic-bearing struct Kafka marks with
// entityType topicName carries @topic.
func TestSchemaAnnotations(t *testing.T) {
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	want := map[Annotation][]string{
		Topic:      {"string", "[]string"},
		TopicID:    {"uuid"},
		Partition:  {"int32"},
		Partitions: {"[]int32"},
		Error:      {"int16"},
		Secret:     {"bytes"},
		SASL:       {"bytes"},
		Config:     {"string"},
		Unaligned:  {"records"},
	}
	var walk func(path string, fs []*Field)
	walk = func(path string, fs []*Field) {
		for _, f := range fs {
			for _, a := range f.Annotations {
				ok := false
				for _, ty := range want[a] {
					ok = ok || ty == f.Type
				}
				if !ok {
					t.Errorf("%s.%s: @%s on a field of type %s", path, f.Name, a, f.Type)
				}
			}
			walk(path+"."+f.Name, f.Fields)
		}
	}
	count := 0
	for _, a := range s.APIs {
		for _, m := range []*Message{a.Request, a.Response} {
			walk(m.Name, m.Fields)
			for _, c := range m.Common {
				walk(m.Name+"."+c.Name, c.Fields)
			}
		}
	}
	// Every API that names topics must be able to report them.
	for _, name := range []string{"Produce", "Fetch", "ListOffsets", "Metadata", "OffsetCommit", "OffsetFetch", "DeleteTopics", "CreateTopics"} {
		found := false
		for _, a := range s.APIs {
			if a.Name != name {
				continue
			}
			var has func(fs []*Field) bool
			has = func(fs []*Field) bool {
				for _, f := range fs {
					if f.Has(Topic) || f.Has(TopicID) || has(f.Fields) {
						return true
					}
				}
				return false
			}
			found = has(a.Request.Fields) || has(a.Response.Fields)
			count++
		}
		if !found {
			t.Errorf("%s: no field carries @topic or @topicid", name)
		}
	}
	if count != 8 {
		t.Errorf("found %d of 8 topic-bearing APIs", count)
	}
}
