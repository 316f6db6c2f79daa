package dissect

import (
	"net/netip"
	"slices"
)

// maxDiscoveryPasses bounds the passes of discoverBrokers: each learns
// the brokers that the connections lost in the pass before named.
const maxDiscoveryPasses = 3

// rereadable reports whether every capture can be read again (Open).
func rereadable(caps []Capture) bool {
	return len(caps) > 0 && !slices.ContainsFunc(caps, func(c Capture) bool { return c.Reader != nil || c.Open == nil })
}

// discoverBrokers reads caps without emitting anything, for the brokers
// the sessions learn (ReadOptions.Rediscover). A pass that learned
// brokers while losing packets of connections held as unknown (their
// first bytes dropped, or more than their backlog kept) may have missed
// what those connections named: the next pass starts knowing the brokers
// learned, until a pass learns nothing new or loses nothing. Errors are
// left to the pass that dissects.
func (d *Dissector) discoverBrokers(caps []Capture, opts ReadOptions) []netip.AddrPort {
	var known []netip.AddrPort
	for range maxDiscoveryPasses {
		pre := New(d.opts)
		s := pre.NewSession(nil)
		for _, ap := range known {
			s.brokers.add(ap)
		}
		pre.readInto(s, caps, ReadOptions{Filter: opts.Filter, Stop: opts.Stop}, nil)
		if opts.Stop != nil && opts.Stop() {
			return known
		}
		learned := len(s.brokers.learned) > len(known)
		known = known[:0]
		for ap := range s.brokers.learned {
			known = append(known, ap)
		}
		slices.SortFunc(known, netip.AddrPort.Compare)
		if !learned || pre.stats.LateConnectionCount == 0 {
			break
		}
	}
	return known
}

// maxLateConnections bounds Stats.LateConnections.
const maxLateConnections = 100

// LateConnection is a connection to a broker learned only after the
// connection began, of which packets were lost (Stats.LateConnections).
type LateConnection struct {
	Client, Broker netip.AddrPort
	// Lost counts its packets with payload not dissected: dropped from
	// the backlog, or never kept.
	Lost int64
}

// lateConnection records u, promoted having lost packets.
func (d *Dissector) lateConnection(u *unknownConn, lost int64) {
	d.stats.LateConnectionCount++
	if len(d.stats.LateConnections) >= maxLateConnections {
		return
	}
	client := u.key.a
	if unmap(client) == unmap(u.broker) {
		client = u.key.b
	}
	d.stats.LateConnections = append(d.stats.LateConnections, LateConnection{Client: client, Broker: u.broker, Lost: lost})
}
