package displayfilter

import (
	"fmt"
	"reflect"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/checker"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"
)

// Env types the keys the contract may write as null as any, so that expr's
// checker cannot see a mistake in them (latency > "1ms", -Y api): it
// would only show on each exchange. typedEnv is Env with the types those
// keys have when they are not null; an expression is checked against it
// too, before its nodes are rewritten (bodies.go), so that such a mistake
// is a compile error with its position. Comparing with nil still checks
// (expr allows nil on either side of == and of ??), and the bodies stay
// any: bodyChecker types them.
type typedEnv struct {
	TS                 string        `expr:"ts"`
	Stream             int           `expr:"stream"`
	Client             string        `expr:"client"`
	Broker             string        `expr:"broker"`
	APIKey             int           `expr:"api_key"`
	API                string        `expr:"api"`
	APIVersion         int           `expr:"api_version"`
	CorrelationID      int           `expr:"correlation_id"`
	ClientID           string        `expr:"client_id"`
	Request            any           `expr:"request"`
	Response           any           `expr:"response"`
	RequestSize        int           `expr:"request_size"`
	ResponseSize       int           `expr:"response_size"`
	LatencyUS          int64         `expr:"latency_us"`
	Latency            time.Duration `expr:"latency"`
	Topics             []Topic       `expr:"topics"`
	Errors             []ErrorEntry  `expr:"errors"`
	ErrorsNotCaptured  bool          `expr:"errors_not_captured"`
	Records            int           `expr:"records"`
	RecordsAborted     int           `expr:"records_aborted"`
	RecordsNotCaptured bool          `expr:"records_not_captured"`
	RequestPackets     []int         `expr:"request_packets"`
	ResponsePackets    []int         `expr:"response_packets"`
	PacketComments     []string      `expr:"packet_comments"`
	Notes              []string      `expr:"notes"`
	File               string        `expr:"file"`
	TLS                *TLS          `expr:"tls"`
}

// checkTyped checks src against typedEnv; a condition (asBool) must give
// a bool, or a type only the exchange decides (a body's field, typed
// apart by bodyChecker: bodyType).
func checkTyped(src string, asBool bool) error {
	config := conf.CreateNew()
	for _, op := range append([]expr.Option{expr.Env(typedEnv{})}, functions()...) {
		op(config)
	}
	config.Check()
	tree, err := parser.ParseWithConfig(src, config)
	if err != nil {
		return err
	}
	t, err := checker.Check(tree, config)
	if err != nil {
		return err
	}
	var d durationVisitor
	ast.Walk(&tree.Node, &d)
	if d.err != nil {
		return d.err.Bind(tree.Source)
	}
	if asBool && t != nil && t.Kind() != reflect.Bool && t.Kind() != reflect.Interface {
		return notBool(tree.Node, t).Bind(tree.Source)
	}
	return nil
}

// notBool is the error of a condition whose value at node is of type t.
func notBool(node ast.Node, t reflect.Type) *file.Error {
	return &file.Error{Location: node.Location(), Message: fmt.Sprintf("expected bool, but got %v: -Y is a condition (api == \"Produce\", request.Acks == -1, latency > duration(\"50ms\"))", t)}
}

// bodyNotBool says whether a condition whose value has the types ts (a
// body's field, nil when unknown) can never be a bool.
func bodyNotBool(ts typeSet) (reflect.Type, bool) {
	if len(ts) == 0 {
		return nil, false
	}
	for _, t := range ts {
		if t.Kind() == reflect.Bool || t.Kind() == reflect.Interface {
			return nil, false
		}
	}
	return ts[0], true
}

// durationVisitor finds the first duration("...") whose constant text
// time.ParseDuration rejects (duration("1xs")): expr would fail on it on
// every exchange.
type durationVisitor struct{ err *file.Error }

func (v *durationVisitor) Visit(node *ast.Node) {
	b, ok := (*node).(*ast.BuiltinNode)
	if !ok || b.Name != "duration" || len(b.Arguments) != 1 || v.err != nil {
		return
	}
	s, ok := b.Arguments[0].(*ast.StringNode)
	if !ok {
		return
	}
	if _, err := time.ParseDuration(s.Value); err != nil {
		v.err = &file.Error{Location: s.Location(), Message: err.Error() + ` (units: ns, us, ms, s, m, h: duration("50ms"))`}
	}
}
