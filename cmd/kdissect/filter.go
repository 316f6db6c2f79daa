package main

import (
	"fmt"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/dissect/capfilter"
)

// filterUsage is the help text of -f/--filter.
const filterUsage = "capture filter in tcpdump syntax, applied to every packet before dissection (built in: " + capfilter.Subset + ")"

// captureFilter parses --filter; nil when it was not given.
func (f *captureFlags) captureFilter() (*capfilter.Filter, error) {
	if f.filter == "" {
		return nil, nil
	}
	return capfilter.Parse(f.filter)
}

// session feeds packets a command reads itself (live, from an interface)
// to a dissect.Session, which emits each exchange to emit as
// soon as it is complete and in capture order.
type session struct {
	s    *dissect.Session
	emit func(*dissect.Exchange)
}

func newSession(d *dissect.Dissector, emit func(*dissect.Exchange)) *session {
	return &session{s: d.NewSession(emit), emit: emit}
}

func (s *session) packet(link layers.LinkType, data []byte, ci gopacket.CaptureInfo) {
	s.s.Packet(link, data, ci)
}

// close flushes the connections still open: their exchanges are emitted.
func (s *session) close() { s.s.Close() }

// filterPackets returns the packet filter of ReadCaptures for -f: it
// dissects only the packets in.filter matches. A link type the filter
// cannot apply to (vlan on a cooked capture) is reported once per capture
// (names by index) on in.warn, and its packets are skipped.
func (in *captureInput) filterPackets(names []string) func(c int, link layers.LinkType, data []byte) bool {
	m := capfilter.NewMatcher(in.filter)
	type warning struct {
		c    int
		link layers.LinkType
	}
	warned := map[warning]bool{}
	return func(c int, link layers.LinkType, data []byte) bool {
		ok, err := m.Match(link, data)
		if err != nil && !warned[warning{c, link}] {
			warned[warning{c, link}] = true
			fmt.Fprintf(in.warn, "kdissect: %s: %v; skipping its %s packets\n", names[c], err, link)
		}
		return ok
	}
}
