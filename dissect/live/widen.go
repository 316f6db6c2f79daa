package live

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"slices"
	"time"

	"github.com/kdissect/kdissect/dissect/capfilter"
)

// resolveTimeout bounds the lookup of a broker's host name.
const resolveTimeout = 5 * time.Second

// Widener widens a capture's port filter (such as "tcp and port
// (P...)") as responses name brokers on other ports (Metadata,
// FindCoordinator, DescribeCluster: a cluster whose brokers listen on
// 9092 and 9093, captured with port 9092 only), and resolves the
// brokers' host names, which a capture cannot. Named and Apply run on
// the capture's goroutine; lookups run on their own, bounded by the
// context given to NewWidener, and hand their answers to Apply.
type Widener struct {
	ctx      context.Context
	ports    []uint16
	filter   func(ports []uint16) string
	warn     io.Writer
	pending  []namedBroker // named since the last apply
	asked    map[string]bool
	resolved chan netip.AddrPort
}

type namedBroker struct {
	host string
	port int32
}

// FilterSetter is what Apply replaces the filter of: a *Handle.
type FilterSetter interface {
	SetFilter(f *capfilter.Filter) error
}

// NewWidener starts from the capture filter of ports: filter(ports) is
// the filter's expression for a list of ports (in capfilter's syntax).
// warn gets a line for each widening, each filter that could not be set
// and each host name that did not resolve.
func NewWidener(ctx context.Context, ports []uint16, filter func(ports []uint16) string, warn io.Writer) *Widener {
	return &Widener{ctx: ctx, ports: slices.Clone(ports), filter: filter, warn: warn, asked: map[string]bool{}, resolved: make(chan netip.AddrPort, 64)}
}

// Named takes a broker a response named (dissect.Exchange.NamedBrokers):
// Apply widens the filter for it after the packet.
func (w *Widener) Named(host string, port int32) {
	w.pending = append(w.pending, namedBroker{host, port})
}

// Apply sets a filter widened for the ports named since the last call
// (ports outside 1-65535 ignored), starts the lookups of new host names
// (not of addresses, nor localhost), and gives learn each address
// resolved since the last call with its broker's port.
func (w *Widener) Apply(h FilterSetter, learn func(netip.AddrPort)) {
	for drained := false; !drained; {
		select {
		case ap := <-w.resolved:
			learn(ap)
		default:
			drained = true
		}
	}
	if len(w.pending) == 0 {
		return
	}
	var added []uint16
	for _, b := range w.pending {
		if b.port <= 0 || b.port > 65535 {
			continue
		}
		if p := uint16(b.port); !slices.Contains(w.ports, p) {
			w.ports = append(w.ports, p)
			added = append(added, p)
		}
		if _, err := netip.ParseAddr(b.host); err != nil && b.host != "localhost" && b.host != "" && !w.asked[b.host] {
			w.asked[b.host] = true
			go w.lookup(b.host, uint16(b.port))
		}
	}
	w.pending = w.pending[:0]
	if len(added) == 0 {
		return
	}
	expr := w.filter(w.ports)
	f, err := capfilter.Parse(expr)
	if err == nil {
		err = h.SetFilter(f)
	}
	if err != nil {
		fmt.Fprintf(w.warn, "kdissect: brokers named on port %v, but the capture filter could not be widened: %v\n", added, err)
		return
	}
	fmt.Fprintf(w.warn, "kdissect: a response named brokers on port %v: capture filter now %q\n", added, expr)
}

// lookup resolves a broker's host name and hands over its addresses.
func (w *Widener) lookup(host string, port uint16) {
	ctx, cancel := context.WithTimeout(w.ctx, resolveTimeout)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		fmt.Fprintf(w.warn, "kdissect: broker %s:%d named by a response: %v (its connections are dissected once a response names its address)\n", host, port, err)
		return
	}
	for _, a := range addrs {
		select {
		case w.resolved <- netip.AddrPortFrom(a.Unmap(), port):
		case <-w.ctx.Done():
			return
		}
	}
}
