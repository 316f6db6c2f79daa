//go:build libpcap

package live

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/pcap"
	"golang.org/x/net/bpf"

	"github.com/kdissect/kdissect/dissect/capfilter"
)

// readTimeout is how long a libpcap read waits for a packet before
// returning, so that a stopped capture notices.
const readTimeout = 200 * time.Millisecond

// ringBuffer is the size of libpcap's packet ring, in bytes.
const ringBuffer = 128 << 20

// pcapSource reads a libpcap live capture. libpcap compiles the filter
// itself, from the expression text, for the interface's link type and
// its own live-capture rules (VLAN tags on Linux, the "any" device).
type pcapSource struct {
	h *pcap.Handle

	mu       sync.Mutex
	stopping bool
	deadline time.Time // once stopping: when to give up delivering what is queued
	closed   bool
	recv     uint64
	drops    uint64
}

func open(opts Options) (opened, error) {
	name := opts.Interface
	inactive, err := pcap.NewInactiveHandle(name)
	if err != nil {
		return opened{}, fmt.Errorf("opening %s: %w", name, err)
	}
	defer inactive.CleanUp()
	for _, set := range []func() error{
		func() error { return inactive.SetSnapLen(opts.SnapLen) },
		func() error { return inactive.SetPromisc(opts.Promiscuous) },
		func() error { return inactive.SetTimeout(readTimeout) },
		// Deliver each packet as it arrives, not when a buffer fills.
		func() error { return inactive.SetImmediateMode(true) },
		// In immediate mode libpcap's ring has one snap-length slot per
		// packet: its default 2 MiB holds 8 at 256 KiB, and a burst on
		// lo overran it.
		func() error { return inactive.SetBufferSize(ringBuffer) },
	} {
		if err := set(); err != nil {
			return opened{}, fmt.Errorf("opening %s: %w", name, err)
		}
	}
	h, err := inactive.Activate()
	if err != nil {
		msg := err.Error()
		switch {
		case strings.Contains(msg, "Permission Denied"), strings.Contains(strings.ToLower(msg), "permission"):
			return opened{}, fmt.Errorf("%w: opening %s: %v", ErrPermission, name, err)
		case strings.Contains(msg, "No Such Device"), strings.Contains(msg, "No such device"):
			return opened{}, fmt.Errorf("interface %q: %w", name, ErrNoInterface)
		}
		return opened{}, fmt.Errorf("opening %s: %w", name, err)
	}
	if f := opts.Filter; f != nil && !f.MatchesAll() {
		if err := h.SetBPFFilter(f.String()); err != nil {
			h.Close()
			return opened{}, fmt.Errorf("filter %q on %s: %w", f, name, err)
		}
	}
	return opened{src: &pcapSource{h: h}, link: h.LinkType()}, nil
}

// setFilter compiles f with libpcap and sets it on the handle.
func (s *pcapSource) setFilter(f *capfilter.Filter) ([]bpf.Instruction, error) {
	expr := ""
	if f != nil && !f.MatchesAll() {
		expr = f.String()
	}
	return nil, s.h.SetBPFFilter(expr)
}

func (s *pcapSource) next() ([]byte, gopacket.CaptureInfo, error) {
	for {
		data, ci, err := s.h.ZeroCopyReadPacketData()
		s.mu.Lock()
		stopping, late := s.stopping, s.stopping && time.Now().After(s.deadline)
		s.mu.Unlock()
		switch {
		case late:
			return nil, ci, errStopped
		case errors.Is(err, pcap.NextErrorTimeoutExpired):
			// Quiet for a read timeout: after a stop, the queue is empty.
			if stopping {
				return nil, ci, errStopped
			}
			continue
		case errors.Is(err, io.EOF) && stopping:
			return nil, ci, errStopped
		case err != nil:
			return nil, ci, err
		}
		return data, ci, nil
	}
}

// stop lets next deliver what libpcap has queued until a read times out
// with nothing (or the drain timeout passes).
func (s *pcapSource) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.stopping {
		s.stopping = true
		s.deadline = time.Now().Add(drainTimeout)
	}
}

func (s *pcapSource) counters() (received, dropped uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pollLocked()
	return s.recv, s.drops
}

// pollLocked reads libpcap's counters, which are totals.
func (s *pcapSource) pollLocked() {
	if s.closed {
		return
	}
	if st, err := s.h.Stats(); err == nil {
		s.recv = uint64(st.PacketsReceived)
		s.drops = uint64(st.PacketsDropped + st.PacketsIfDropped)
	}
}

func (s *pcapSource) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.pollLocked()
		s.closed = true
		s.h.Close()
	}
	return nil
}
