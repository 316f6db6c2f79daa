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
