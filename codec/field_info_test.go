package codec

import (
	"reflect"
	"testing"

	"github.com/kdissect/kdissect/codec/schema"
)

// annotationFlag is the FieldFlags bit of each schema annotation.
var annotationFlag = map[schema.Annotation]FieldFlags{
	schema.Topic: FieldTopic, schema.TopicID: FieldTopicID, schema.Partition: FieldPartition,
	schema.Partitions: FieldPartitions, schema.Error: FieldError, schema.Secret: FieldSecret,
	schema.SASL: FieldSASL, schema.Config: FieldConfig, schema.Unaligned: FieldUnaligned,
}

const annotationFlags = FieldTopic | FieldTopicID | FieldPartition | FieldPartitions | FieldError |
	FieldSecret | FieldSASL | FieldConfig | FieldUnaligned

// sameFields holds the generated FieldInfo of a struct to the schema's
// declaration of it: names, types, annotations, nested structs.
func sameFields(t *testing.T, path string, want []*schema.Field, common []*schema.Struct, got []*FieldInfo) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d fields generated, the schema declares %d", path, len(got), len(want))
		return
	}
	for i, f := range want {
		g := got[i]
		p := path + "." + f.Name
		if g.Name != f.Name || g.Type != f.Type {
			t.Errorf("%s: generated %s %s, the schema says %s %s", p, g.Name, g.Type, f.Name, f.Type)
			continue
		}
		var flags FieldFlags
		for _, a := range f.Annotations {
			flags |= annotationFlag[a]
		}
		if g.Flags&annotationFlags != flags {
			t.Errorf("%s: annotation flags %#x, the schema's %v make %#x", p, g.Flags&annotationFlags, f.Annotations, flags)
		}
		fs := f.Fields
		if f.IsStruct() && fs == nil {
			for _, c := range common {
				if c.Name == f.ElemType() {
					fs = c.Fields
				}
			}
		}
		if !f.IsStruct() && g.Fields != nil {
			t.Errorf("%s: a %s with fields", p, f.Type)
		}
		sameFields(t, p, fs, common, g.Fields)
	}
}

func TestFieldInfoMatchesSchema(t *testing.T) {
	s, err := schema.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range s.APIs {
		api, ok := LookupAPI(a.Key)
		if !ok {
			t.Fatalf("api %d %s not in the codec", a.Key, a.Name)
		}
		sameFields(t, a.Request.Name, a.Request.Fields, a.Request.Common, api.RequestFields())
		sameFields(t, a.Response.Name, a.Response.Fields, a.Response.Common, api.ResponseFields())
	}
	for _, h := range s.Headers {
		sameFields(t, h.Name, h.Fields, h.Common, HeaderFields(h.Name))
	}
	if HeaderFields("NoSuchHeader") != nil {
		t.Error("HeaderFields of an unknown name is not nil")
	}
}

// fill gives every slice of structs in v one element and every nil
// pointer to a struct a struct, recursively, so that a walk meets every
// struct a message can hold.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.Type().Elem().Kind() != reflect.Struct {
			return
		}
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		fill(v.Elem())
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Struct && v.Len() == 0 {
			v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		}
		for i := range v.Len() {
			fill(v.Index(i))
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[Records]() || v.Type() == reflect.TypeFor[UUID]() {
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	}
}

// walkedFlags are the flags whose fields WalkFields reports.
const walkedFlags = FieldTopic | FieldTopicID | FieldProducerID | FieldProducerEpoch | FieldMemberID |
	FieldGeneration | FieldGroupID | FieldTransactionalID

// countWalked counts the fields with a walked flag in a tree of FieldInfo
// as fill fills a message: one element per array.
func countWalked(fs []*FieldInfo) int {
	n := 0
	for _, f := range fs {
		if f.Flags&walkedFlags != 0 {
			n++
		}
		n += countWalked(f.Fields)
	}
	return n
}

// TestWalkFields checks that WalkFields reports every field with a role
// of a message whose every array holds one struct, once, with a pointer
// to the very field its FieldInfo names.
func TestWalkFields(t *testing.T) {
	for _, api := range APIs() {
		for _, response := range []bool{false, true} {
			m, fields := api.NewRequest(), api.RequestFields()
			if response {
				m, fields = api.NewResponse(), api.ResponseFields()
			}
			fill(reflect.ValueOf(m))
			n := 0
			m.WalkFields(func(refs []FieldRef) {
				for _, r := range refs {
					n++
					if r.Info.Flags&walkedFlags == 0 {
						t.Errorf("%T: %s reported without a role", m, r.Info.Name)
					}
					p := reflect.ValueOf(r.Ptr)
					if p.Kind() != reflect.Pointer {
						t.Errorf("%T: %s: Ptr is a %T", m, r.Info.Name, r.Ptr)
						continue
					}
					switch r.Ptr.(type) {
					case *string, **string, *[]string, *UUID, *int64, *int32, *int16:
					default:
						t.Errorf("%T: %s: Ptr is a %T", m, r.Info.Name, r.Ptr)
					}
					// The pointer is into a struct whose field of that name it is.
					found := false
					var search func(v reflect.Value)
					search = func(v reflect.Value) {
						switch v.Kind() {
						case reflect.Pointer:
							if !v.IsNil() {
								search(v.Elem())
							}
						case reflect.Slice:
							for i := range v.Len() {
								search(v.Index(i))
							}
						case reflect.Struct:
							if f := v.FieldByName(r.Info.Name); f.IsValid() && f.Addr().UnsafePointer() == p.UnsafePointer() {
								found = true
							}
							for i := range v.NumField() {
								if v.Type().Field(i).IsExported() {
									search(v.Field(i))
								}
							}
						}
					}
					search(reflect.ValueOf(m))
					if !found {
						t.Errorf("%T: %s: Ptr points at no field of that name", m, r.Info.Name)
					}
				}
			})
			if want := countWalked(fields); n != want {
				t.Errorf("%T: WalkFields reported %d fields, the metadata has %d with a role", m, n, want)
			}
		}
	}
}
