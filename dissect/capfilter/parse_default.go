//go:build !libpcap

package capfilter

// Parse parses a capture filter expression. This build compiles the subset
// described in the package documentation; an expression outside it is an
// *Error wrapping ErrUnsupported. An empty expression matches every
// packet.
func Parse(expr string) (*Filter, error) { return ParseSubset(expr) }
