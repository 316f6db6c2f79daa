package replay

import (
	"reflect"
	"sync"

	"github.com/kdissect/kdissect/codec"
)

// typePlan says, for one generated struct type, which of its fields the
// rewriting touches and which lead to nested structs.
type typePlan struct {
	topicName  []int // string or *string @topic fields
	topicNames []int // []string @topic fields
	topicID    []int // codec.UUID @topicid fields

	producerID    []int // int64 ProducerId (and V3AndBelowProducerId)
	producerEpoch []int // int16 epoch paired with producerID, same index; -1 none

	memberID    []int // string MemberId, Leader
	generation  []int // int32 GenerationId, GenerationIdOrMemberEpoch, MemberEpoch
	groupID     int   // string GroupId, -1 none
	txnID       int   // string or *string TransactionalId, -1 none
	children    []int // struct, *struct or []struct fields
	hasAnything bool  // some rewritable field is here or below
}

var (
	uuidType    = reflect.TypeFor[codec.UUID]()
	recordsType = reflect.TypeFor[codec.Records]()
)

// plans caches typePlans; it is safe for concurrent use.
type plans struct {
	mu sync.Mutex
	m  map[reflect.Type]*typePlan
}

func (p *plans) get(t reflect.Type) *typePlan {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = make(map[reflect.Type]*typePlan)
	}
	return p.build(t)
}

// build makes the plan of t and of the types below it; p.mu is held.
func (p *plans) build(t reflect.Type) *typePlan {
	if tp, ok := p.m[t]; ok {
		return tp
	}
	tp := &typePlan{groupID: -1, txnID: -1}
	p.m[t] = tp // a recursive type finds itself
	for i := range t.NumField() {
		f := t.Field(i)
		key := t.Name() + "." + f.Name
		ft := f.Type
		switch {
		case topicFields[key] && ft == uuidType:
			tp.topicID = append(tp.topicID, i)
		case topicFields[key] && (ft.Kind() == reflect.String || ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.String):
			tp.topicName = append(tp.topicName, i)
		case topicFields[key] && ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.String:
			tp.topicNames = append(tp.topicNames, i)
		case (f.Name == "ProducerId" || f.Name == "V3AndBelowProducerId") && ft.Kind() == reflect.Int64:
			tp.producerID = append(tp.producerID, i)
			ep := -1
			if g, ok := t.FieldByName(f.Name[:len(f.Name)-2] + "Epoch"); ok && g.Type.Kind() == reflect.Int16 {
				ep = g.Index[0]
			}
			tp.producerEpoch = append(tp.producerEpoch, ep)
		case (f.Name == "MemberId" || f.Name == "Leader") && ft.Kind() == reflect.String:
			tp.memberID = append(tp.memberID, i)
		case (f.Name == "GenerationId" || f.Name == "GenerationIdOrMemberEpoch" || f.Name == "MemberEpoch") && ft.Kind() == reflect.Int32:
			tp.generation = append(tp.generation, i)
		case f.Name == "GroupId" && ft.Kind() == reflect.String:
			tp.groupID = i
		case f.Name == "TransactionalId" && (ft.Kind() == reflect.String || ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.String):
			tp.txnID = i
		}
		if ft == recordsType || ft == uuidType {
			continue
		}
		elem := ft
		if elem.Kind() == reflect.Slice || elem.Kind() == reflect.Pointer {
			elem = elem.Elem()
		}
		if elem.Kind() == reflect.Struct && elem != recordsType {
			if p.build(elem).hasAnything || p.m[elem] == tp {
				tp.children = append(tp.children, i)
			}
		}
	}
	tp.hasAnything = len(tp.topicName)+len(tp.topicNames)+len(tp.topicID)+len(tp.producerID)+len(tp.memberID)+len(tp.generation)+len(tp.children) > 0
	return tp
}

// visit calls fn on every struct reachable from v (a struct value that can
// be set), outer structs first, with its plan; fn may set fields.
func (p *plans) visit(v reflect.Value, fn func(s reflect.Value, tp *typePlan)) {
	tp := p.get(v.Type())
	if !tp.hasAnything {
		return
	}
	fn(v, tp)
	for _, i := range tp.children {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Struct:
			p.visit(f, fn)
		case reflect.Pointer:
			if !f.IsNil() {
				p.visit(f.Elem(), fn)
			}
		case reflect.Slice:
			for j := range f.Len() {
				p.visit(f.Index(j), fn)
			}
		}
	}
}

// stringField reads a string or *string field ("" for nil).
func stringField(f reflect.Value) string {
	if f.Kind() == reflect.Pointer {
		if f.IsNil() {
			return ""
		}
		return f.Elem().String()
	}
	return f.String()
}

// setStringField sets a string or *string field (a nil *string stays nil).
func setStringField(f reflect.Value, s string) {
	if f.Kind() == reflect.Pointer {
		if f.IsNil() {
			return
		}
		f.Set(reflect.ValueOf(&s))
		return
	}
	f.SetString(s)
}
