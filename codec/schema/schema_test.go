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
func TestSchemaMatchesKafka(t *testing.T) {
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
		m := byName[km.Name]
		if m == nil {
			t.Errorf("%s: %s is not in the schema", filepath.Base(p), km.Name)
			continue
		}
		seen[km.Name] = true
		if km.APIKey != nil && *km.APIKey != m.APIKey {
			t.Errorf("%s: api key %d, schema has %d", km.Name, *km.APIKey, m.APIKey)
		}
		if got := versions(t, km.ValidVersions); got != m.Valid {
			t.Errorf("%s: valid versions %v, schema has %v", km.Name, got, m.Valid)
		}
		if got := versions(t, km.FlexibleVersions); got != m.Flexible {
			t.Errorf("%s: flexible versions %v, schema has %v", km.Name, got, m.Flexible)
		}
		compareFields(t, km.Name, km.Fields, m.Fields)
		if len(km.CommonStructs) != len(m.Common) {
			t.Errorf("%s: %d common structs, schema has %d", km.Name, len(km.CommonStructs), len(m.Common))
			continue
		}
		for i, cs := range km.CommonStructs {
			if cs.Name != m.Common[i].Name {
				t.Errorf("%s: common struct %d is %s, schema has %s", km.Name, i, cs.Name, m.Common[i].Name)
				continue
			}
			compareFields(t, km.Name+"."+cs.Name, cs.Fields, m.Common[i].Fields)
		}
	}
	for name := range byName {
		if !seen[name] {
			t.Errorf("schema message %s has no Kafka definition", name)
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

func compareFields(t *testing.T, path string, kfs []*KafkaField, fs []*Field) {
	t.Helper()
	if len(kfs) != len(fs) {
		t.Errorf("%s: Kafka has %d fields, schema has %d", path, len(kfs), len(fs))
		return
	}
	for i, kf := range kfs {
		f := fs[i]
		p := path + "." + kf.Name
		if kf.Name != f.Name {
			t.Errorf("%s: field %d is %s in the schema", p, i, f.Name)
			continue
		}
		if kf.Type != f.Type {
			t.Errorf("%s: type %s, schema has %s", p, kf.Type, f.Type)
		}
		if got := versions(t, kf.Versions); got != f.Versions {
			t.Errorf("%s: versions %v, schema has %v", p, got, f.Versions)
		}
		if got := versions(t, kf.NullableVersions); got != f.Nullable {
			t.Errorf("%s: nullable versions %v, schema has %v", p, got, f.Nullable)
		}
		tag := -1
		if kf.Tag != nil {
			fmt.Sscan(fmt.Sprint(kf.Tag), &tag)
		}
		if tag != f.Tag {
			t.Errorf("%s: tag %d, schema has %d", p, tag, f.Tag)
		}
		if got := versions(t, kf.TaggedVersions); got != f.Tagged {
			t.Errorf("%s: tagged versions %v, schema has %v", p, got, f.Tagged)
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
		compareFields(t, p, kf.Fields, f.Fields)
	}
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
