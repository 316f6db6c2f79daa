package displayfilter

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"sync"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm/runtime"

	"github.com/kdissect/kdissect/codec"
)

// Two kinds of step may find nothing on one exchange that holds on
// another: a body field another API has (request.Acks on a Fetch), and
// an ordering comparison or != with a null (latency < duration("1ms") on
// an exchange without a response). Rather than fail, as expr would, they
// give nil and false: the filter then reads like tshark's, where a field
// a packet lacks matches no comparison. The checker (bodies.go) rewrites
// those nodes into calls of these functions.

const (
	fieldFunc = "$field"
	emptyFunc = "$orEmpty" // nil: an empty list
)

// orderFuncs are the functions that replace the ordering operators.
// "!=" with a null is false too, as in tshark (but x != nil is kept).
var orderFuncs = map[string]string{"<": "$lt", "<=": "$le", ">": "$gt", ">=": "$ge", "!=": "$ne"}

// functions returns the options declaring them.
func functions() []expr.Option {
	order := func(name string, cmp func(a, b any) bool) expr.Option {
		return expr.Function(name, func(p ...any) (any, error) {
			if p[0] == nil || p[1] == nil {
				return false, nil
			}
			return cmp(p[0], p[1]), nil // panics on a type mismatch: expr reports it
		}, new(func(any, any) bool))
	}
	return []expr.Option{
		expr.Function(fieldFunc, func(p ...any) (any, error) { return field(p[0], p[1]), nil }, new(func(any, any) any)),
		expr.Function(emptyFunc, func(p ...any) (any, error) {
			if p[0] == nil {
				return []any{}, nil
			}
			return p[0], nil
		}, new(func(any) any)),
		order("$lt", runtime.Less), order("$le", runtime.LessOrEqual),
		order("$ne", func(a, b any) bool { return !runtime.Equal(a, b) }),
		order("$gt", runtime.More), order("$ge", runtime.MoreOrEqual),
	}
}

// fieldKey caches the index of a struct field.
type fieldKey struct {
	t    reflect.Type
	name string
}

var fieldIndex sync.Map // fieldKey → []int, or nil when the type has no such field

// field returns from's field name (a string) or element i (an int;
// negative counts from the end), nil when it has none. A nil pointer is
// nil, a pointer to a value the value.
func field(from, key any) any {
	v := reflect.ValueOf(from)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Struct:
		name, ok := key.(string)
		if !ok {
			return nil
		}
		k := fieldKey{v.Type(), name}
		idx, ok := fieldIndex.Load(k)
		if !ok {
			var ix []int
			if f, found := structField(v.Type(), name); found {
				ix = f.Index
			}
			idx, _ = fieldIndex.LoadOrStore(k, ix)
		}
		ix := idx.([]int)
		if ix == nil {
			return nil
		}
		return value(v.FieldByIndex(ix))
	case reflect.Slice, reflect.Array:
		i, ok := toInt(key)
		if !ok {
			return nil
		}
		if i < 0 {
			i += v.Len()
		}
		if i < 0 || i >= v.Len() {
			return nil
		}
		return value(v.Index(i))
	case reflect.Map:
		e := v.MapIndex(reflect.ValueOf(key))
		if !e.IsValid() {
			return nil
		}
		return value(e)
	}
	return nil
}

// value returns v as an interface: nil for a nil pointer, the value a
// pointer to a scalar points to (a nullable string). Topic IDs and byte
// strings are given in their JSON forms (-e prints those), so that a
// filter compares what the JSON shows: a UUID as Kafka's base64 string,
// bytes as a string when they are text (codec.IsText), else as
// {"base64": "..."}; null bytes are nil.
func value(v reflect.Value) any {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		if e := v.Elem(); e.Kind() != reflect.Struct {
			return jsonForm(e.Interface())
		}
	}
	return jsonForm(v.Interface())
}

func jsonForm(x any) any {
	switch x := x.(type) {
	case codec.Records:
		return recordsForm(&x)
	case codec.UUID:
		return x.String()
	case []byte:
		switch {
		case x == nil:
			return nil
		case codec.IsText(x):
			return string(x)
		}
		return map[string]any{"base64": base64.StdEncoding.EncodeToString(x)}
	}
	return x
}

func toInt(k any) (int, bool) {
	switch n := k.(type) {
	case int:
		return n, true
	case int64:
		return int(n), true
	case int32:
		return int(n), true
	case int16:
		return int(n), true
	case float64:
		return int(n), n == float64(int(n))
	}
	return 0, false
}

// recordsForm is a records field as the JSON shows it: the list of its
// batches and messages, each with its Records, Key, Value and Headers as
// JSON values (whole numbers int64, so that Offset == 5 compares as an
// int does); nil for a null field, the JSON's object for one not decoded
// or not captured.
func recordsForm(r *codec.Records) any {
	w := codec.NewJSONWriter(nil)
	r.WriteJSON(w)
	d := json.NewDecoder(bytes.NewReader(w.Bytes()))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil // not JSON: cannot happen (the JSON output writes it)
	}
	return wholeNumbers(v)
}

// wholeNumbers replaces the json.Numbers in v by int64 where they are
// whole and fit, else by float64.
func wholeNumbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	case []any:
		for i := range v {
			v[i] = wholeNumbers(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = wholeNumbers(v[k])
		}
	}
	return v
}
