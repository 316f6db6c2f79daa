package displayfilter

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"

	"github.com/kdissect/kdissect/codec"
)

// The bodies are typed any in Env (their type depends on the ApiKey), so
// expr cannot check their field names. bodyChecker does, against the
// generated message types (codec, from Kafka's message definitions): a
// path such as request.TopicData[0].Name must name, at each step, a field
// of some request body of some API. A path that holds for some API only
// is valid; on the exchanges of the others it is nil (funcs.go).

// bodyTypes returns the body types of every API, requests or responses.
func bodyTypes(responses bool) []reflect.Type {
	var ts []reflect.Type
	for _, a := range codec.APIs() {
		m := a.NewRequest()
		if responses {
			m = a.NewResponse()
		}
		ts = append(ts, reflect.TypeOf(m))
	}
	return ts
}

var (
	bytesType, stringType = reflect.TypeOf([]byte(nil)), reflect.TypeOf("")
	// A records field is the JSON's list of batches (funcs.go:
	// recordsForm): its steps are JSON values, checked by no type but
	// still nil where an exchange has no such key or index.
	recordsType = reflect.TypeOf(codec.Records{})
	jsonType    = reflect.TypeFor[any]()
)

// typeSet is the types a node may have; nil is unknown (no check).
type typeSet []reflect.Type

// field returns the types of field name in any of ts.
func (ts typeSet) field(name string) typeSet {
	var out typeSet
	for _, t := range ts {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t == jsonType {
			if !slices.Contains(out, jsonType) {
				out = append(out, jsonType)
			}
			continue
		}
		if t == bytesType && name == "base64" {
			// Bytes that are not text are {"base64": "..."}, as in
			// the JSON (funcs.go: jsonForm).
			if !slices.Contains(out, stringType) {
				out = append(out, stringType)
			}
			continue
		}
		if t.Kind() != reflect.Struct {
			continue
		}
		f, ok := structField(t, name)
		if !ok {
			continue
		}
		if !slices.Contains(out, f.Type) {
			out = append(out, f.Type)
		}
	}
	return out
}

// elem returns the element types of the lists in ts.
func (ts typeSet) elem() typeSet {
	var out typeSet
	for _, t := range ts {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		e := t
		switch {
		case t == recordsType || t == jsonType:
			e = jsonType
		case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
			e = t.Elem()
		default:
			continue
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// fieldNames lists the exported fields of the structs in ts, for the
// error message.
func (ts typeSet) fieldNames() []string {
	var names []string
	for _, t := range ts {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			continue
		}
		for i := range t.NumField() {
			f := t.Field(i)
			name := f.Name
			if isEnvType(t) {
				name = f.Tag.Get("expr")
			}
			if f.IsExported() && name != "" && !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	return names
}

// envLists are the lists of Env, typed as the bodies are so that an
// index past their end is nil, as in a body (errors[0].name == "X" on an
// exchange without errors), rather than an error on that exchange.
var envLists = func() map[string]reflect.Type {
	m := map[string]reflect.Type{}
	t := reflect.TypeOf(typedEnv{})
	for _, name := range []string{"topics", "errors", "notes", "request_packets", "response_packets", "packet_comments"} {
		for i := range t.NumField() {
			if f := t.Field(i); f.Tag.Get("expr") == name {
				m[name] = f.Type
			}
		}
	}
	return m
}()

// envPkg is this package's path: its types (Topic, ErrorEntry) name their
// fields by their expr tags.
var envPkg = reflect.TypeOf(Env{}).PkgPath()

func isEnvType(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	return t.PkgPath() == envPkg
}

// structField returns struct t's exported field name: by its expr tag in
// this package's types, by its Go name (Kafka's) in the bodies.
func structField(t reflect.Type, name string) (reflect.StructField, bool) {
	if !isEnvType(t) {
		f, ok := t.FieldByName(name)
		return f, ok && f.IsExported()
	}
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() && f.Tag.Get("expr") == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// bodyChecker walks an expression's syntax tree.
type bodyChecker struct {
	requests, responses typeSet
	pointers            []typeSet // the element types of the enclosing predicates' lists (#)
	records             bool      // a step reads a records field
	err                 *file.Error
}

// predicateBuiltins are expr's builtins whose second argument is a
// predicate over the elements of the first.
var predicateBuiltins = []string{"all", "none", "any", "one", "filter", "map", "count", "sum", "find", "findIndex", "findLast", "findLastIndex", "groupBy", "sortBy", "reduce"}

// check returns the types *p may have (nil: unknown), records the first
// unknown body field in c.err, and rewrites each step into a body —
// request.X, .Y inside a predicate over a body's list, [i] — into a call
// of fieldFunc, which gives nil where the exchange's body has no such
// field or index (another API, a shorter list) instead of failing.
func (c *bodyChecker) check(p *ast.Node) typeSet {
	if c.err != nil {
		return nil
	}
	switch n := (*p).(type) {
	case *ast.IdentifierNode:
		switch n.Value {
		case "request":
			return c.requests
		case "response":
			return c.responses
		}
		if t, ok := envLists[n.Value]; ok {
			return typeSet{t}
		}
		return nil
	case *ast.PointerNode:
		if n.Name == "" && len(c.pointers) > 0 {
			return c.pointers[len(c.pointers)-1]
		}
		return nil
	case *ast.MemberNode:
		base := c.check(&n.Node)
		if n.Method {
			return nil
		}
		var out typeSet
		if s, ok := n.Property.(*ast.StringNode); ok {
			if base == nil {
				return nil
			}
			if out = base.field(s.Value); len(out) == 0 {
				msg := fmt.Sprintf("unknown field %s: no body of any API has it here", s.Value)
				if isEnvType(base[0]) {
					msg = "unknown field " + s.Value
				}
				if names := base.fieldNames(); len(names) > 0 && len(names) <= 40 {
					msg += " (fields here: " + strings.Join(names, ", ") + ")"
				}
				c.err = &file.Error{Location: n.Property.Location(), Message: msg}
				return nil
			}
		} else {
			c.check(&n.Property)
			if base == nil {
				return nil
			}
			out = base.elem()
		}
		if slices.Contains(out, recordsType) {
			c.records = true
		}
		call := &ast.CallNode{Callee: &ast.IdentifierNode{Value: fieldFunc}, Arguments: []ast.Node{n.Node, n.Property}}
		call.SetLocation(n.Location())
		*p = call
		return out
	case *ast.ChainNode:
		return c.check(&n.Node)
	case *ast.BuiltinNode:
		if slices.Contains(predicateBuiltins, n.Name) && len(n.Arguments) >= 2 {
			list := c.check(&n.Arguments[0])
			var el typeSet
			if list != nil {
				el = list.elem()
				orEmpty(&n.Arguments[0])
			}
			c.pointers = append(c.pointers, el)
			for i := 1; i < len(n.Arguments); i++ {
				c.check(&n.Arguments[i])
			}
			c.pointers = c.pointers[:len(c.pointers)-1]
			return nil
		}
		if n.Name == "len" && len(n.Arguments) == 1 {
			if c.check(&n.Arguments[0]) != nil {
				orEmpty(&n.Arguments[0])
			}
			return nil
		}
	case *ast.BinaryNode:
		c.check(&n.Left)
		if c.check(&n.Right) != nil && (n.Operator == "in" || n.Operator == "not in") {
			orEmpty(&n.Right)
		}
		_, lnil := n.Left.(*ast.NilNode)
		_, rnil := n.Right.(*ast.NilNode)
		if fn, ok := orderFuncs[n.Operator]; ok && !(n.Operator == "!=" && (lnil || rnil)) {
			call := &ast.CallNode{Callee: &ast.IdentifierNode{Value: fn}, Arguments: []ast.Node{n.Left, n.Right}}
			call.SetLocation(n.Location())
			*p = call
		}
		return nil
	}
	// Any other node: check its children, its own type is unknown.
	for _, ch := range children(*p) {
		c.check(ch)
	}
	return nil
}

// orEmpty wraps *p, a list of a body, into a call of emptyFunc: a list
// the exchange's body lacks is then empty for len, in and the predicates.
func orEmpty(p *ast.Node) {
	call := &ast.CallNode{Callee: &ast.IdentifierNode{Value: emptyFunc}, Arguments: []ast.Node{*p}}
	call.SetLocation((*p).Location())
	*p = call
}

// children returns the direct sub-expressions of node.
func children(node ast.Node) []*ast.Node {
	switch n := node.(type) {
	case *ast.UnaryNode:
		return []*ast.Node{&n.Node}
	case *ast.CallNode:
		return append([]*ast.Node{&n.Callee}, ptrs(n.Arguments)...)
	case *ast.BuiltinNode:
		return ptrs(n.Arguments)
	case *ast.PredicateNode:
		return []*ast.Node{&n.Node}
	case *ast.SliceNode:
		out := []*ast.Node{&n.Node}
		if n.From != nil {
			out = append(out, &n.From)
		}
		if n.To != nil {
			out = append(out, &n.To)
		}
		return out
	case *ast.ConditionalNode:
		return []*ast.Node{&n.Cond, &n.Exp1, &n.Exp2}
	case *ast.ArrayNode:
		return ptrs(n.Nodes)
	case *ast.MapNode:
		return ptrs(n.Pairs)
	case *ast.PairNode:
		return []*ast.Node{&n.Key, &n.Value}
	case *ast.VariableDeclaratorNode:
		return []*ast.Node{&n.Value, &n.Expr}
	case *ast.SequenceNode:
		return ptrs(n.Nodes)
	}
	return nil
}

// ptrs returns pointers to the nodes of ns.
func ptrs(ns []ast.Node) []*ast.Node {
	out := make([]*ast.Node, len(ns))
	for i := range ns {
		out[i] = &ns[i]
	}
	return out
}
