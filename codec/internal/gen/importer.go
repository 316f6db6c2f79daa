package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/kdissect/kdissect/codec/schema"
)

// importDefs writes one schema file per API key found in dir (Kafka's
// message definitions) into out. It is how the schema was bootstrapped and
// how a new API is added; the files it writes are then the source of truth
// and may be edited by hand (for example to add versions Kafka has not
// published yet), so keys already present in out are skipped unless force.
func importDefs(dir, out string, force bool) error {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return err
	}
	type pair struct{ req, resp *schema.KafkaMessage }
	apis := map[int16]*pair{}
	for _, p := range paths {
		m, err := schema.ReadKafkaMessage(p)
		if err != nil {
			return err
		}
		if m.APIKey == nil || (m.Type != "request" && m.Type != "response") {
			continue
		}
		pr := apis[*m.APIKey]
		if pr == nil {
			pr = &pair{}
			apis[*m.APIKey] = pr
		}
		if m.Type == "request" {
			pr.req = m
		} else {
			pr.resp = m
		}
	}
	keys := make([]int, 0, len(apis))
	for k := range apis {
		keys = append(keys, int(k))
	}
	sort.Ints(keys)
	for _, k := range keys {
		pr := apis[int16(k)]
		if pr.req == nil || pr.resp == nil {
			return fmt.Errorf("api key %d lacks a request or response definition", k)
		}
		name := strings.TrimSuffix(pr.req.Name, "Request")
		file := filepath.Join(out, snake(name)+".schema")
		if _, err := os.Stat(file); err == nil && !force {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "# %s (ApiKey %d), from Apache Kafka's %s.json and %s.json.\n", name, k, pr.req.Name, pr.resp.Name)
		fmt.Fprintf(&b, "api %d %s\n", k, name)
		for _, m := range []*schema.KafkaMessage{pr.req, pr.resp} {
			fmt.Fprintf(&b, "%s versions %s flexible %s\n", m.Type, m.ValidVersions, m.FlexibleVersions)
			for _, cs := range m.CommonStructs {
				fmt.Fprintf(&b, "  struct %s\n", cs.Name)
				writeFields(&b, cs.Fields, 2, cs.Name)
			}
			writeFields(&b, m.Fields, 1, "")
		}
		if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func writeFields(b *strings.Builder, fs []*schema.KafkaField, indent int, parent string) {
	for _, f := range fs {
		b.WriteString(strings.Repeat("  ", indent))
		fmt.Fprintf(b, "%s %s v%s", f.Name, f.Type, f.Versions)
		if f.NullableVersions != "" {
			fmt.Fprintf(b, " nullable %s", f.NullableVersions)
		}
		if f.Tag != nil {
			// Kafka writes most tags as numbers and a few as strings.
			fmt.Fprintf(b, " tag %v tagged %s", f.Tag, f.TaggedVersions)
		}
		if f.FlexibleVersions != nil {
			fmt.Fprintf(b, " flexible %s", *f.FlexibleVersions)
		}
		if f.Default != nil {
			d := fmt.Sprint(f.Default)
			if d == "" || strings.ContainsAny(d, " \t#\"") {
				d = fmt.Sprintf("%q", d)
			}
			fmt.Fprintf(b, " default %s", d)
		}
		for _, a := range annotations(f, parent) {
			fmt.Fprintf(b, " @%s", a)
		}
		b.WriteByte('\n')
		writeFields(b, f.Fields, indent+1, f.Name)
	}
}

// annotations infers a field's summary role from Kafka's entityType and
// naming conventions.
func annotations(f *schema.KafkaField, parent string) []string {
	switch {
	case f.EntityType == "topicName" && (f.Type == "string" || f.Type == "[]string"):
		return []string{"topic"}
	case f.Type == "uuid" && f.Name == "TopicId":
		return []string{"topicid"}
	case f.Type == "int32" && (f.Name == "PartitionIndex" || f.Name == "Partition" || f.Name == "PartitionId" ||
		f.Name == "Index" && strings.Contains(parent, "Partition")):
		return []string{"partition"}
	case f.Type == "[]int32" && (f.Name == "Partitions" || f.Name == "PartitionIndexes"):
		return []string{"partitions"}
	case f.Type == "int16" && strings.HasSuffix(f.Name, "ErrorCode"):
		return []string{"error"}
	}
	return nil
}

// snake turns "OffsetForLeaderEpoch" into "offset_for_leader_epoch".
func snake(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		if unicode.IsUpper(r) && i > 0 && (unicode.IsLower(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
