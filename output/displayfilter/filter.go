// Package displayfilter evaluates display filters and field expressions
// over decoded exchanges: -Y/--display-filter and -e of read, live, stats
// and replay. An expression is written in expr
// (github.com/expr-lang/expr, https://expr-lang.org/docs/language-definition)
// over the names of the JSON Lines contract (DESIGN.md) — ts, stream,
// client, broker, api_key, api, api_version, correlation_id, client_id,
// request_size, response_size, latency_us, records, records_aborted,
// topics, errors, notes, file, request_packets, response_packets,
// packet_comments, tls — plus latency (a time.Duration: latency >
// duration("50ms")) and the decoded bodies, request and response, by
// Kafka's field names (request.Acks,
// response.Responses[0].PartitionResponses[0].ErrorCode).
//
// An expression is compiled once, checked against the names (an unknown
// name, or a body field no API has, is a compile error with its
// position), and may then be evaluated on many goroutines at once. A
// body field the exchange's API lacks is nil, and comparisons with nil
// other than == are false, as tshark treats a field a packet lacks.
package displayfilter

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/checker"
	"github.com/expr-lang/expr/compiler"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/optimizer"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"

	"github.com/kdissect/kdissect/dissect"
)

// Error is an expression that does not compile: Line and Column (1-based,
// in runes) say where, Message what was expected or is unknown.
type Error struct {
	Expr         string
	Line, Column int
	Message      string
	text         string // one line: position, message, the source from there
}

func (e *Error) Error() string { return e.text }

// program is a compiled expression and what it reads of an exchange.
type program struct {
	src   string
	prog  *vm.Program
	needs need
	sides map[string]bool // the bodies it names: "request", "response"
	// records says it reads a records field (whose records a caller that
	// only counts them, codec.RecordDecodeOptions.CountOnly, lacks).
	records bool
	vms     sync.Pool
	envs    sync.Pool
}

// compile compiles src, as a condition when asBool.
func compile(src string, asBool bool) (*program, error) {
	tree, err := parser.Parse(src)
	if err != nil {
		return nil, newError(src, err)
	}
	ast.Walk(&tree.Node, apiAliases{})
	root := tree.Node
	c := &bodyChecker{requests: bodyTypes(false), responses: bodyTypes(true)}
	ts := c.check(&tree.Node)
	if c.err != nil {
		return nil, newError(src, c.err.Bind(file.NewSource(src)))
	}
	if t, ok := bodyNotBool(ts); ok && asBool {
		return nil, newError(src, notBool(root, t).Bind(file.NewSource(src)))
	}
	if err := checkTyped(src, asBool); err != nil {
		return nil, newError(src, err)
	}
	config := conf.CreateNew()
	opts := append([]expr.Option{expr.Env(Env{})}, functions()...)
	if asBool {
		opts = append(opts, expr.AsBool())
	}
	for _, op := range opts {
		op(config)
	}
	config.Check()
	if _, err := checker.Check(tree, config); err != nil {
		return nil, newError(src, err)
	}
	if err := optimizer.Optimize(&tree.Node, config); err != nil {
		var fe *file.Error
		if errors.As(err, &fe) {
			err = fe.Bind(tree.Source)
		}
		return nil, newError(src, err)
	}
	prog, err := compiler.Compile(tree, config)
	if err != nil {
		return nil, newError(src, err)
	}
	p := &program{src: src, prog: prog, records: c.records}
	ast.Walk(&tree.Node, (*needVisitor)(&p.needs))
	p.sides = map[string]bool{}
	ast.Walk(&tree.Node, sideVisitor(p.sides))
	return p, nil
}

// maxQuoted is how many characters of the expression, from the error's
// position, an error message quotes: enough to find the place, not the
// rest of an expression of many kilobytes.
const maxQuoted = 80

// newError turns expr's error into an *Error.
func newError(src string, err error) *Error {
	e := &Error{Expr: src, Message: err.Error(), text: err.Error()}
	var fe *file.Error
	if errors.As(err, &fe) {
		e.Line, e.Column, e.Message = fe.Line, fe.Column+1, fe.Message
		// One line, as kdissect's errors are: the position, then the
		// source from there on.
		at := "at the end"
		if r := []rune(src); fe.From < len(r) && !strings.Contains(fe.Message, "EOF") {
			rest := r[fe.From:]
			if len(rest) > maxQuoted {
				rest = append(rest[:maxQuoted:maxQuoted], '…')
			}
			at = fmt.Sprintf("at %q", string(rest))
		}
		e.text = fmt.Sprintf("%d:%d: %s (%s)", e.Line, e.Column, e.Message, at)
	}
	return e
}

// needVisitor collects the Env fields an expression names.
type needVisitor need

func (v *needVisitor) Visit(node *ast.Node) {
	if id, ok := (*node).(*ast.IdentifierNode); ok {
		*v |= needVisitor(needOf[id.Value])
	}
}

// sideVisitor collects the bodies an expression names.
type sideVisitor map[string]bool

func (v sideVisitor) Visit(node *ast.Node) {
	if id, ok := (*node).(*ast.IdentifierNode); ok && (id.Value == "request" || id.Value == "response") {
		v[id.Value] = true
	}
}

// run evaluates p on ex.
func (p *program) run(ex *dissect.Exchange) (any, error) {
	env, _ := p.envs.Get().(*Env)
	if env == nil {
		env = new(Env)
	}
	m := p.vm()
	env.fill(ex, p.needs)
	out, err := m.Run(p.prog, env)
	*env = Env{} // keeps nothing of the exchange
	p.envs.Put(env)
	p.vms.Put(m)
	return out, err
}

// vm returns a VM for p; put it back into p.vms after use.
func (p *program) vm() *vm.VM {
	if m, ok := p.vms.Get().(*vm.VM); ok {
		return m
	}
	return new(vm.VM)
}

// readsBody says whether p names side ("request" or "response").
func (p *program) readsBody(side string) bool { return p.sides[side] }

// Filter is a compiled display filter (-Y): a condition over one exchange.
type Filter struct{ p *program }

// Compile compiles a display filter. Its error is an *Error.
func Compile(src string) (*Filter, error) {
	p, err := compile(src, true)
	if err != nil {
		return nil, err
	}
	return &Filter{p}, nil
}

// String returns the expression as given.
func (f *Filter) String() string { return f.p.src }

// ReadsRecords reports whether f reads a records field of a body (its
// batches and records): then the exchanges must be decoded with their
// records, not only counted (codec.RecordDecodeOptions.CountOnly).
func (f *Filter) ReadsRecords() bool { return f.p.records }

// Match reports whether ex, decoded (topic IDs resolved: after
// dissect.Decoder.Decode), passes f. A body field ex's API does not
// have, or an index past a list's end, is nil; an ordering comparison or
// != with nil is false (funcs.go). An expression that still cannot be
// evaluated on ex (a number compared with a string) does not match, and
// the error says why. Match may run on many goroutines at once.
func (f *Filter) Match(ex *dissect.Exchange) (bool, error) {
	out, err := f.p.run(ex)
	if err != nil {
		return false, err
	}
	b, _ := out.(bool)
	return b, nil
}
