package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"slices"
	"time"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/dissect/capfilter"
	"github.com/kdissect/kdissect/dissect/live"
)

// resolveTimeout bounds the lookup of a broker's host name.
const resolveTimeout = 5 * time.Second

// widener widens live's default kernel filter ("tcp and port (P...)") as
// responses name brokers on other ports (Metadata, FindCoordinator,
// DescribeCluster: a cluster whose brokers listen on 9092 and 9093, given
// -p 9092), and resolves the brokers' host names, which a capture cannot,
// for the session. Its methods run on the capture goroutine; lookups run
// on their own and hand their answers over.
type widener struct {
	ctx      context.Context
	ports    []uint16
	warn     io.Writer
	pending  []dissect.BrokerName // named since the last apply
	asked    map[string]bool      // host names looked up
	resolved chan netip.AddrPort
}

func newWidener(ctx context.Context, ports []uint16, warn io.Writer) *widener {
	return &widener{ctx: ctx, ports: slices.Clone(ports), warn: warn, asked: map[string]bool{}, resolved: make(chan netip.AddrPort, 64)}
}

// named takes the brokers a response names (dissect.Options.BrokersNamed,
// called as soon as the response is matched, before its exchange is
// emitted: the filter changes after the packet).
func (w *widener) named(brokers []dissect.BrokerName) {
	w.pending = append(w.pending, brokers...)
}

// apply widens the filter for the ports named since the last call, starts
// the lookups of new host names, and gives the session the addresses
// resolved so far.
func (w *widener) apply(h *live.Handle, s *dissect.Session) {
	for drained := false; !drained; {
		select {
		case ap := <-w.resolved:
			s.LearnBroker(ap)
		default:
			drained = true
		}
	}
	if len(w.pending) == 0 {
		return
	}
	var added []uint16
	for _, b := range w.pending {
		if b.Port <= 0 || b.Port > 65535 {
			continue
		}
		if p := uint16(b.Port); !slices.Contains(w.ports, p) {
			w.ports = append(w.ports, p)
			added = append(added, p)
		}
		if _, err := netip.ParseAddr(b.Host); err != nil && b.Host != "localhost" && b.Host != "" && !w.asked[b.Host] {
			w.asked[b.Host] = true
			go w.lookup(b.Host, uint16(b.Port))
		}
	}
	w.pending = w.pending[:0]
	if len(added) == 0 {
		return
	}
	expr := defaultLiveFilter(w.ports)
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
func (w *widener) lookup(host string, port uint16) {
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
