package capfilter

import (
	"errors"
	"fmt"
)

// ErrUnsupported is wrapped by the error for an expression that is valid
// tcpdump syntax, or may be, but lies outside the subset this package
// compiles: the libpcap build (see Parse) compiles it instead.
var ErrUnsupported = errors.New("outside the supported filter subset")

// Subset lists what the pure-Go compiler understands, for error messages
// and help text.
const Subset = "host, net, port, portrange, src/dst, ip, ip6, tcp, udp, sctp, vlan, and/or/not, parentheses"

// Error says why an expression cannot be compiled and which part of it is
// to blame. It wraps ErrUnsupported for syntax outside the subset.
type Error struct {
	Expr  string // the whole expression
	Pos   int    // byte offset in Expr of the part to blame
	Token string // the part to blame, as written
	Msg   string // what is wrong, naming Token

	unsupported bool
}

func (e *Error) Error() string {
	s := fmt.Sprintf("filter %q: %s", e.Expr, e.Msg)
	if e.unsupported {
		s += " (built-in subset: " + Subset + "; a -tags libpcap build takes libpcap's full syntax)"
	}
	return s
}

// Unwrap returns ErrUnsupported for syntax outside the subset, else nil.
func (e *Error) Unwrap() error {
	if e.unsupported {
		return ErrUnsupported
	}
	return nil
}

func syntaxf(expr string, pos int, tok, format string, args ...any) *Error {
	return &Error{Expr: expr, Pos: pos, Token: tok, Msg: fmt.Sprintf(format, args...)}
}

func unsupportedf(expr string, pos int, tok, format string, args ...any) *Error {
	e := syntaxf(expr, pos, tok, format, args...)
	e.unsupported = true
	return e
}
