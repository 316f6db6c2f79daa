package main

import (
	"errors"
	"fmt"
	"io"

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

// session feeds packets a command reads itself (a filtered file, a live
// interface) to a dissect.Session, which emits each exchange to emit as
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

// readFiltered reads one capture from r (named name in warnings) into d,
// as Dissector.ReadCapture does, dissecting only the packets filter
// matches. A link type the filter cannot apply to (vlan on a cooked
// capture) is reported once on warn, and its packets are skipped.
func readFiltered(d *dissect.Dissector, r io.Reader, name string, filter *capfilter.Filter, warn io.Writer, emit func(*dissect.Exchange)) error {
	pr, err := dissect.NewPacketReader(r)
	if err != nil {
		return err
	}
	m := capfilter.NewMatcher(filter)
	s := newSession(d, emit)
	warned := map[layers.LinkType]bool{}
	var readErr error
	for {
		data, ci, link, err := pr.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				readErr = err
			}
			break
		}
		ok, err := m.Match(link, data)
		if err != nil && !warned[link] {
			warned[link] = true
			fmt.Fprintf(warn, "kdissect: %s: %v; skipping its %s packets\n", name, err, link)
		}
		if ok {
			s.packet(link, data, ci)
		}
	}
	// Every exchange before damage is emitted, as ReadCapture does.
	s.close()
	return readErr
}
