package codec

// Null and empty at every position the schema has: for every ApiKey,
// version and side both we and kmsg know, and every string, bytes,
// records, array and nullable struct field present at the version (nested
// ones reached through one-element arrays), a default value with that one
// field set to null, and one with it empty, is encoded by us. Our decode
// must hold exactly that (null where the field is nullable at the version;
// empty where it is not, as Kafka writes a null there), re-encode to the
// same bytes, and kmsg must decode the bytes to the same values by name
// (kdCompareByName) and re-encode them exactly.

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/codec/schema"
)

// kdEdgeTarget reports whether f can be null or empty.
func kdEdgeTarget(f *schema.Field) bool {
	switch {
	case f.IsArray():
		return true
	case f.IsStruct():
		return !f.Nullable.IsNone()
	}
	switch f.Type {
	case "string", "bytes", "records":
		return true
	}
	return false
}

// positions lists the paths (fields from the message down) of every edge
// target present at the version.
func (n *kdNames) positions(fields []*schema.Field, prefix []*schema.Field) [][]*schema.Field {
	var out [][]*schema.Field
	for _, f := range fields {
		if !n.present(f) {
			continue
		}
		path := append(prefix[:len(prefix):len(prefix)], f)
		if kdEdgeTarget(f) {
			out = append(out, path)
		}
		if f.IsStruct() {
			out = append(out, n.positions(n.fieldsOf(f), path)...)
		}
	}
	return out
}

func kdSetDefaults(v reflect.Value) {
	if m := v.Addr().MethodByName("SetDefaults"); m.IsValid() {
		m.Call(nil)
	}
}

// kdSetAt sets the field at path in struct v to null or empty, making one
// element of each array and a value of each nullable struct on the way.
func kdSetAt(v reflect.Value, path []*schema.Field, null bool) {
	fv := v.FieldByName(path[0].Name)
	if len(path) > 1 {
		switch fv.Kind() {
		case reflect.Slice:
			s := reflect.MakeSlice(fv.Type(), 1, 1)
			kdSetDefaults(s.Index(0))
			kdSetAt(s.Index(0), path[1:], null)
			fv.Set(s)
		case reflect.Pointer:
			p := reflect.New(fv.Type().Elem())
			kdSetDefaults(p.Elem())
			kdSetAt(p.Elem(), path[1:], null)
			fv.Set(p)
		default:
			kdSetAt(fv, path[1:], null)
		}
		return
	}
	if fv.Type() == kdTypeRecords {
		fv = fv.FieldByName("Raw")
	}
	switch {
	case null:
		fv.SetZero()
	case fv.Kind() == reflect.Slice:
		fv.Set(reflect.MakeSlice(fv.Type(), 0, 0))
	case fv.Kind() == reflect.String:
		fv.SetString("")
	case fv.Kind() == reflect.Pointer:
		p := reflect.New(fv.Type().Elem())
		if p.Elem().Kind() == reflect.Struct {
			kdSetDefaults(p.Elem())
		}
		fv.Set(p)
	default:
		panic("kmsg edge: cannot empty " + fv.Type().String())
	}
}

// kdGetAt returns "null", "empty" or what else the field at path holds.
func kdGetAt(v reflect.Value, path []*schema.Field) string {
	fv := v.FieldByName(path[0].Name)
	if len(path) > 1 {
		switch fv.Kind() {
		case reflect.Slice:
			if fv.Len() != 1 {
				return fmt.Sprintf("%d elements on the way", fv.Len())
			}
			return kdGetAt(fv.Index(0), path[1:])
		case reflect.Pointer:
			if fv.IsNil() {
				return "null on the way"
			}
			return kdGetAt(fv.Elem(), path[1:])
		}
		return kdGetAt(fv, path[1:])
	}
	if fv.Type() == kdTypeRecords {
		fv = fv.FieldByName("Raw")
	}
	switch fv.Kind() {
	case reflect.Slice:
		if fv.IsNil() {
			return "null"
		}
		if fv.Len() == 0 {
			return "empty"
		}
		return fmt.Sprintf("%d elements", fv.Len())
	case reflect.String:
		if fv.String() == "" {
			return "empty"
		}
		return fmt.Sprintf("%q", fv.String())
	case reflect.Pointer:
		if fv.IsNil() {
			return "null"
		}
		if fv.Elem().Kind() == reflect.String && fv.Elem().String() != "" {
			return fmt.Sprintf("%q", fv.Elem().String())
		}
		return "empty"
	}
	return "?" + fv.Type().String()
}

func kdPathName(path []*schema.Field) string {
	names := make([]string, len(path))
	for i, f := range path {
		names[i] = f.Name
	}
	return strings.Join(names, ".")
}

func TestKmsgDiffNullAndEmpty(t *testing.T) {
	names := newKdNameStats()
	var cases, nullable int
	for _, c := range kdCombos() {
		skipped := false
		for _, dir := range []string{"kmsg→ours", "ours→kmsg"} {
			_, s := kdSkips[c.name()+"/"+dir]
			skipped = skipped || s
		}
		if skipped {
			continue
		}
		n := &kdNames{msg: kdSchemaMessage(t, c), version: c.version, names: names}
		n.flexible = n.msg.Flexible.Contains(c.version)
		for _, path := range n.positions(n.msg.Fields, nil) {
			target := path[len(path)-1]
			isNullable := target.Nullable.Contains(c.version)
			if isNullable {
				nullable++
			}
			for _, null := range []bool{true, false} {
				cases++
				what := fmt.Sprintf("%s %s empty", c.name(), kdPathName(path))
				want := "empty"
				if null {
					what = fmt.Sprintf("%s %s null", c.name(), kdPathName(path))
					if isNullable {
						want = "null"
					}
				}
				x := c.newOurs()
				kdSetDefaults(reflect.ValueOf(x).Elem())
				kdSetAt(reflect.ValueOf(x).Elem(), path, null)
				b := x.AppendTo(nil, c.version)
				d, problem := kdDecode(c, b)
				if problem != "" {
					t.Errorf("%s: %s\n bytes %s", what, problem, kdHex(b))
					continue
				}
				if re := d.AppendTo(nil, c.version); string(re) != string(b) {
					t.Errorf("%s: re-encoding differs: %s", what, kdBytesDiff(re, b))
					continue
				}
				// A tagged field at its default is not written: it comes
				// back as the default, whatever was set.
				if got := kdGetAt(reflect.ValueOf(d).Elem(), path); got != want && !target.IsTagged() {
					t.Errorf("%s: decoded %s, want %s\n bytes %s", what, got, want, kdHex(b))
				}
				km := c.newKmsg()
				if err := km.ReadFrom(b); err != nil {
					t.Errorf("%s: kmsg cannot decode our bytes: %v\n bytes %s", what, err, kdHex(b))
					continue
				}
				if kb := km.AppendTo(nil); string(kb) != string(b) {
					t.Errorf("%s: kmsg re-encodes differently: %s", what, kdBytesDiff(kb, b))
					continue
				}
				if problems := kdCompareByName(t, c, d, km, names); len(problems) != 0 {
					t.Errorf("%s: our decode and kmsg's differ by name:\n %s\n bytes %s", what, strings.Join(problems, "\n "), kdHex(b))
				}
			}
		}
	}
	if um := names.unmatched(); len(um) != 0 {
		t.Errorf("unmatched names: %s", strings.Join(um, ", "))
	}
	t.Logf("%d null/empty cases over %d positions (%d nullable at their version)", cases, cases/2, nullable)
}
