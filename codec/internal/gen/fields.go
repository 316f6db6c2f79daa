package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kdissect/kdissect/codec/schema"
)

// ---- field metadata and walkers ----

// annotationFlags are the codec.FieldFlags of the schema's annotations.
var annotationFlags = map[schema.Annotation]string{
	schema.Topic: "FieldTopic", schema.TopicID: "FieldTopicID", schema.Partition: "FieldPartition",
	schema.Partitions: "FieldPartitions", schema.Error: "FieldError", schema.Secret: "FieldSecret",
	schema.SASL: "FieldSASL", schema.Config: "FieldConfig", schema.Unaligned: "FieldUnaligned",
}

// role is a flag the generator gives a field by Kafka's name and Go type:
// fields replay rewrites or routes by, which the schema does not annotate
// because Kafka names them the same in every message.
type role struct {
	flag  string
	names []string
	types []string // Go types the field must have
}

var roles = []role{
	{"FieldProducerID", []string{"ProducerId", "V3AndBelowProducerId"}, []string{"int64"}},
	{"FieldProducerEpoch", []string{"ProducerEpoch", "V3AndBelowProducerEpoch"}, []string{"int16"}},
	{"FieldMemberID", []string{"MemberId", "Leader"}, []string{"string"}},
	{"FieldGeneration", []string{"GenerationId", "GenerationIdOrMemberEpoch", "MemberEpoch"}, []string{"int32"}},
	{"FieldGroupID", []string{"GroupId"}, []string{"string"}},
	{"FieldTransactionalID", []string{"TransactionalId"}, []string{"string", "*string"}},
}

// walked are the flags whose fields WalkFields reports.
var walked = map[string]bool{"FieldTopic": true, "FieldTopicID": true}

func init() {
	for _, r := range roles {
		walked[r.flag] = true
	}
}

// flags returns the codec.FieldFlags of f, sorted.
func (g *gen) flags(f *schema.Field) []string {
	var fl []string
	for _, a := range f.Annotations {
		fl = append(fl, annotationFlags[a])
	}
	t := g.goType(f)
	for _, r := range roles {
		for _, n := range r.names {
			for _, rt := range r.types {
				if f.Name == n && t == rt {
					fl = append(fl, r.flag)
				}
			}
		}
	}
	sort.Strings(fl)
	return fl
}

// walkedField reports whether WalkFields reports f.
func (g *gen) walkedField(f *schema.Field) bool {
	for _, fl := range g.flags(f) {
		if walked[fl] {
			return true
		}
	}
	return false
}

// walks reports whether the struct or a struct inside has walked fields.
func (g *gen) walks(gs *gstruct) bool {
	if v, ok := g.walkMemo[gs]; ok {
		return v
	}
	g.walkMemo[gs] = false // guards recursion
	w := false
	for _, f := range gs.fields {
		if g.walkedField(f) || f.IsStruct() && g.walks(g.byKafka[f.ElemType()]) {
			w = true
		}
	}
	g.walkMemo[gs] = w
	return w
}

func fieldsVar(gs *gstruct) string { return "fieldsOf" + gs.goName }

// fieldInfos declares the FieldInfo of the struct's fields.
func (g *gen) fieldInfos(gs *gstruct) {
	g.p("// %s are the fields of %s, as the schema declares them.", fieldsVar(gs), gs.goName)
	g.p("var %s = []*FieldInfo{", fieldsVar(gs))
	for _, f := range gs.fields {
		var attrs []string
		attrs = append(attrs, fmt.Sprintf("Name: %q", f.Name), fmt.Sprintf("Type: %q", f.Type))
		if fl := g.flags(f); len(fl) > 0 {
			attrs = append(attrs, "Flags: "+strings.Join(fl, " | "))
		}
		if f.IsStruct() {
			attrs = append(attrs, "Fields: "+fieldsVar(g.byKafka[f.ElemType()]))
		}
		g.p("\t{%s},", strings.Join(attrs, ", "))
	}
	g.p("}\n")
}

// walker writes the struct's walkFields (WalkFields for a message).
func (g *gen) walker(gs *gstruct) {
	name := "walkFields"
	if gs.top {
		name = "WalkFields"
		g.p("// WalkFields calls fn with pointers to the fields with a role of each struct of the body (see Message).")
	} else if !g.walks(gs) {
		return
	}
	g.p("func (s *%s) %s(fn func([]FieldRef)) {", gs.goName, name)
	var refs []string
	for k, f := range gs.fields {
		if !g.walkedField(f) {
			continue
		}
		switch t := g.goType(f); t {
		case "string", "*string", "[]string", "UUID", "int64", "int32", "int16":
		default:
			panic(fmt.Sprintf("%s.%s: a field with a role has Go type %s", gs.goName, f.Name, t))
		}
		refs = append(refs, fmt.Sprintf("{%s[%d], &s.%s}", fieldsVar(gs), k, f.Name))
	}
	if len(refs) > 0 {
		g.p("fn([]FieldRef{%s})", strings.Join(refs, ", "))
	}
	for _, f := range gs.fields {
		if !f.IsStruct() || !g.walks(g.byKafka[f.ElemType()]) {
			continue
		}
		switch {
		case f.IsArray():
			g.p("for i := range s.%s {\ns.%s[i].walkFields(fn)\n}", f.Name, f.Name)
		case strings.HasPrefix(g.goType(f), "*"):
			g.p("if s.%s != nil {\ns.%s.walkFields(fn)\n}", f.Name, f.Name)
		default:
			g.p("s.%s.walkFields(fn)", f.Name)
		}
	}
	g.p("}\n")
}

// topicPartitions writes, for each top-level list of topics of the
// message whose topics hold partitions, the PartitionsOf function that
// locates them (codec.PartitionLayout).
func (g *gen) topicPartitions() {
	top := g.structs[0]
	for _, tf := range top.fields {
		if !tf.IsArray() || !tf.IsStruct() {
			continue
		}
		ts := g.byKafka[tf.ElemType()]
		var name, id, parts *schema.Field
		n := 0
		for _, f := range ts.fields {
			switch {
			case f.Has(schema.Topic) && g.goType(f) == "string" && name == nil:
				name = f
			case f.Has(schema.TopicID) && id == nil:
				id = f
			case f.Has(schema.Partitions) && g.goType(f) == "[]int32":
				parts, n = f, n+1
			case f.IsArray() && f.IsStruct() && partitionField(g.byKafka[f.ElemType()]) != nil:
				parts, n = f, n+1
			}
		}
		if name == nil && id == nil || n != 1 {
			continue
		}
		T := ts.goName
		P, index, errField := "int32", "p", (*schema.Field)(nil)
		if parts.IsStruct() {
			ps := g.byKafka[parts.ElemType()]
			P, index = ps.goName, "&p."+partitionField(ps).Name
			for _, f := range ps.fields {
				if f.Has(schema.Error) && g.goType(f) == "int16" && errField == nil {
					errField = f
				}
			}
		}
		typ := fmt.Sprintf("PartitionLayout[%s, %s, %s]", top.goName, T, P)
		g.p("// PartitionsOf%s%s locates the topics of %s's %s and their partitions.", top.goName, tf.Name, top.goName, tf.Name)
		g.p("func PartitionsOf%s%s() %s {", top.goName, tf.Name, typ)
		g.p("return %s{", typ)
		g.p("Topics: func(m *%s) *[]%s { return &m.%s },", top.goName, T, tf.Name)
		if name != nil {
			g.p("Name: func(t *%s) *string { return &t.%s },", T, name.Name)
		}
		if id != nil {
			g.p("ID: func(t *%s) *UUID { return &t.%s },", T, id.Name)
		}
		g.p("Partitions: func(t *%s) *[]%s { return &t.%s },", T, P, parts.Name)
		g.p("Index: func(p *%s) *int32 { return %s },", P, index)
		if errField != nil {
			g.p("ErrorCode: func(p *%s) *int16 { return &p.%s },", P, errField.Name)
		}
		g.p("}\n}\n")
	}
}

// partitionField returns the int32 @partition field of a struct, or nil.
func partitionField(gs *gstruct) *schema.Field {
	for _, f := range gs.fields {
		if f.Has(schema.Partition) && f.Type == "int32" {
			return f
		}
	}
	return nil
}
