// Package live captures packets from a network interface as they arrive,
// for a dissect.Session.
//
// The default build needs no cgo: on Linux it reads an AF_PACKET socket
// (golang.org/x/sys/unix) with the capture filter (package capfilter)
// attached in the kernel before the socket is bound, so packets the
// filter rejects are never copied to user space, and with a 64 MiB
// receive buffer to ride out bursts. Ethernet and loopback interfaces
// give Ethernet frames, tun-style interfaces (no link header) raw IP;
// capturing on every interface at once ("any") is not supported there,
// because one socket would mix link types. Built with the libpcap tag
// (cgo and libpcap's headers), live captures go through libpcap instead:
// every system libpcap runs on, the "any" interface, and libpcap's full
// filter syntax.
package live

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"golang.org/x/net/bpf"

	"github.com/kdissect/kdissect/dissect/capfilter"
)

// DefaultSnapLen is the snap length used when Options.SnapLen is 0, in
// bytes: libpcap's largest, which keeps whole segments even with
// segmentation offload.
const DefaultSnapLen = 262144

// drainTimeout bounds how long the libpcap build goes on delivering
// packets after Run's context was cancelled.
const drainTimeout = 2 * time.Second

var (
	// ErrPermission is wrapped by Open's error when the process may not
	// open a packet capture (Linux: neither root nor CAP_NET_RAW).
	ErrPermission = errors.New("live capture needs root or CAP_NET_RAW")
	// ErrNoInterface is wrapped by Open's error when the interface does
	// not exist.
	ErrNoInterface = errors.New("no such network interface")
	// ErrUnsupported is wrapped by Open's error when this build cannot
	// capture on the interface: another system, the "any" interface, or a
	// link type the default build does not handle.
	ErrUnsupported = errors.New("live capture not supported")
)

// errStopped is returned by a source's next once the capture was stopped
// and what the kernel had queued has been delivered.
var errStopped = errors.New("capture stopped")

// Options configures a live capture.
type Options struct {
	// Interface is the network interface to capture on, as the system
	// names it ("eth0", "lo").
	Interface string
	// Filter selects the packets to capture; nil captures all of them.
	Filter *capfilter.Filter
	// Promiscuous puts the interface in promiscuous mode for the capture,
	// to see traffic addressed to other hosts.
	Promiscuous bool
	// SnapLen is the most bytes kept of each packet; 0 means
	// DefaultSnapLen. It cannot exceed DefaultSnapLen.
	SnapLen int
}

// Stats counts packets over a whole capture.
type Stats struct {
	// Received counts the packets the kernel's filter passed to the
	// capture, Dropped included.
	Received uint64
	// Dropped counts packets the kernel dropped because the capture fell
	// behind and its buffer was full.
	Dropped uint64
	// Captured counts the packets Run handed to its callback.
	Captured uint64
	// Rejected counts packets the filter rejected in user space: the
	// kernel cannot run it as it is (see capfilter.Filter.UsesVLAN).
	Rejected uint64
}

// source is a packet source of one build: AF_PACKET or libpcap.
type source interface {
	// next returns the next packet. data is valid until the next call;
	// ci.CaptureLength is len(data). After stop, it returns what the
	// kernel had queued, then errStopped.
	next() (data []byte, ci gopacket.CaptureInfo, err error)
	// stop ends the capture; it may be called from another goroutine
	// while next blocks, and more than once.
	stop()
	// counters returns the kernel's counts so far: received (dropped
	// included) and dropped.
	counters() (received, dropped uint64)
	// close releases the source; it is idempotent.
	close() error
	// setFilter replaces the filter, in the kernel where it can run
	// there; it returns the program to run in user space, or nil.
	setFilter(f *capfilter.Filter) (user []bpf.Instruction, err error)
}

// opened is what a build's open returns.
type opened struct {
	src  source
	link layers.LinkType
	// user is the filter program to run in user space on what the kernel
	// delivers, or nil when the kernel runs the whole filter.
	user []bpf.Instruction
}

// Handle is a live capture on one interface. Run reads it; Stats and
// Close may be called from any goroutine.
type Handle struct {
	iface    string
	src      source
	link     layers.LinkType
	snapLen  int
	vm       *bpf.VM
	captured atomic.Uint64
	rejected atomic.Uint64
}

// Open starts capturing on opts.Interface: from here on the kernel queues
// the packets the filter accepts until Run reads them. The error wraps
// ErrPermission, ErrNoInterface or ErrUnsupported when one of them is the
// reason.
func Open(opts Options) (*Handle, error) {
	if opts.SnapLen == 0 {
		opts.SnapLen = DefaultSnapLen
	}
	if opts.SnapLen < 0 || opts.SnapLen > DefaultSnapLen {
		return nil, fmt.Errorf("snap length %d: want 1 to %d bytes", opts.SnapLen, DefaultSnapLen)
	}
	if opts.Interface == "" {
		return nil, fmt.Errorf("no interface given: %w", ErrNoInterface)
	}
	o, err := open(opts)
	if err != nil {
		return nil, err
	}
	h := &Handle{iface: opts.Interface, src: o.src, link: o.link, snapLen: opts.SnapLen}
	if o.user != nil {
		if h.vm, err = bpf.NewVM(o.user); err != nil {
			o.src.close()
			return nil, fmt.Errorf("filter %q: %w", opts.Filter, err)
		}
	}
	return h, nil
}

// Interface returns the name of the interface captured on.
func (h *Handle) Interface() string { return h.iface }

// LinkType returns the link type of the packets Run delivers.
func (h *Handle) LinkType() layers.LinkType { return h.link }

// SnapLen returns the most bytes kept of a packet.
func (h *Handle) SnapLen() int { return h.snapLen }

// Run reads packets and calls fn for each, in arrival order, until ctx is
// cancelled, fn returns false or reading fails. data is valid only during
// the call, and ci.CaptureLength is len(data).
//
// When ctx is cancelled, the capture stops taking new packets and Run
// first delivers those the kernel had already queued, so that a capture
// stopped right after some traffic still sees it; then it returns nil.
// (The libpcap build cannot tell when its queue is empty: it stops at the
// first quiet read timeout, or after two seconds.) Run is not safe for
// concurrent use.
func (h *Handle) Run(ctx context.Context, fn func(data []byte, ci gopacket.CaptureInfo) bool) error {
	stop := context.AfterFunc(ctx, h.src.stop)
	defer stop()
	for {
		data, ci, err := h.src.next()
		switch {
		case errors.Is(err, errStopped):
			return nil
		case err != nil && ctx.Err() != nil:
			return nil // the stop closed the source under the read
		case err != nil:
			return fmt.Errorf("reading packets on %s: %w", h.iface, err)
		}
		if h.vm != nil {
			if n, err := h.vm.Run(data); err != nil || n == 0 {
				h.rejected.Add(1)
				continue
			}
		}
		h.captured.Add(1)
		if !fn(data, ci) {
			return nil
		}
	}
}

// SetFilter replaces the capture filter: from the next packet on, the
// kernel passes what f accepts (packets it had already queued under the
// old filter still come). Call it from Run's callback, or while Run is
// not running. After the capture was stopped it does nothing.
func (h *Handle) SetFilter(f *capfilter.Filter) error {
	user, err := h.src.setFilter(f)
	if err != nil {
		return fmt.Errorf("filter %q on %s: %w", f, h.iface, err)
	}
	h.vm = nil
	if user != nil {
		if h.vm, err = bpf.NewVM(user); err != nil {
			return fmt.Errorf("filter %q: %w", f, err)
		}
	}
	return nil
}

// Stats returns the counts so far; after Close, the final counts.
func (h *Handle) Stats() Stats {
	recv, drop := h.src.counters()
	return Stats{Received: recv, Dropped: drop, Captured: h.captured.Load(), Rejected: h.rejected.Load()}
}

// Close ends the capture and releases the interface.
func (h *Handle) Close() error { return h.src.close() }
