//go:build linux && !libpcap

package live

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/kdissect/kdissect/dissect/capfilter"
)

// maxKernelInsns is the longest classic BPF program Linux takes
// (BPF_MAXINSNS).
const maxKernelInsns = 4096

// socketBuffer is the receive buffer asked of the kernel, in bytes: what
// absorbs a burst while the reader is busy or descheduled. The default
// (net.core.rmem_default, 208 KiB) holds three 64 KiB segments of lo or
// of a NIC with receive offload; a 20 MB produce burst on lo then lost a
// third of its packets, and none with this.
const socketBuffer = 64 << 20

// ARPHRD hardware types (/sys/class/net/IFACE/type) and the link type a
// SOCK_RAW packet socket delivers on them.
const (
	arphrdEther    = "1"
	arphrdLoopback = "772"
	arphrdNone     = "65534" // tun and other devices without a link header
)

// Sizes of the control messages a read receives.
var (
	cmsgHdrLen = unix.CmsgLen(0)
	auxSpace   = unix.CmsgSpace(int(unsafe.Sizeof(unix.TpacketAuxdata{})))
	tsSpace    = unix.CmsgSpace(int(unsafe.Sizeof(unix.Timespec{})))
)

// afPacket reads an AF_PACKET SOCK_RAW socket bound to one interface. It
// is what gopacket's pcapgo.EthernetHandle does, plus what that handle
// offers no way to do: size the socket buffer, and attach the filter
// before the socket is bound, so no unfiltered packet is ever queued.
type afPacket struct {
	file     *os.File // nonblocking, in the runtime's poller
	rc       syscall.RawConn
	link     layers.LinkType
	loopback bool

	// Read state, owned by next. A packet is read to buf[tagRoom:], so
	// that a VLAN tag can be put back in front of its EtherType in place.
	buf []byte
	oob []byte
	msg unix.Msghdr
	iov unix.Iovec
	sa  unix.RawSockaddrLinklayer

	mu       sync.Mutex
	stopping bool // stop was called: deliver what is queued, then errStopped
	closed   bool
	recv     uint64 // kernel counters, summed: PACKET_STATISTICS resets them on every read
	drops    uint64
}

// tagRoom is the room kept before a packet for an 802.1Q tag.
const tagRoom = 4

func open(opts Options) (opened, error) {
	name := opts.Interface
	if name == "any" {
		return opened{}, fmt.Errorf("interface any: %w without libpcap: one packet socket on every interface would mix link types; name one interface, or build kdissect with -tags libpcap", ErrUnsupported)
	}
	ifi, err := net.InterfaceByName(name)
	if err != nil {
		return opened{}, fmt.Errorf("interface %q: %w%s", name, ErrNoInterface, interfaceList())
	}
	link, err := linkTypeOf(ifi)
	if err != nil {
		return opened{}, err
	}
	loopback := ifi.Flags&net.FlagLoopback != 0
	kernel, user, err := programs(opts.Filter, link, loopback)
	if err != nil {
		return opened{}, err
	}

	// Protocol 0: the socket receives nothing until bound below.
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	switch {
	case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES):
		return opened{}, fmt.Errorf("%w: opening a packet socket: %v", ErrPermission, err)
	case errors.Is(err, unix.EAFNOSUPPORT):
		return opened{}, fmt.Errorf("%w: this kernel has no AF_PACKET sockets: %v", ErrUnsupported, err)
	case err != nil:
		return opened{}, fmt.Errorf("opening a packet socket: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			unix.Close(fd)
		}
	}()
	if err := setup(fd, ifi, kernel, opts.Promiscuous); err != nil {
		return opened{}, fmt.Errorf("packet socket on %s: %w", name, err)
	}
	s := &afPacket{file: os.NewFile(uintptr(fd), "packet socket "+name), link: link, loopback: loopback}
	ok = true
	if s.rc, err = s.file.SyscallConn(); err != nil {
		s.file.Close()
		return opened{}, fmt.Errorf("packet socket on %s: %w", name, err)
	}
	s.buf = make([]byte, tagRoom+opts.SnapLen)
	s.oob = make([]byte, auxSpace+tsSpace)
	s.iov.Base = &s.buf[tagRoom]
	s.iov.SetLen(opts.SnapLen)
	s.msg.Name = (*byte)(unsafe.Pointer(&s.sa))
	s.msg.Namelen = uint32(unsafe.Sizeof(s.sa))
	s.msg.Iov = &s.iov
	s.msg.Iovlen = 1
	s.msg.Control = &s.oob[0]
	return opened{src: s, link: link, user: user}, nil
}

// setup configures the socket, filter first, and binds it to the
// interface last.
func setup(fd int, ifi *net.Interface, kernel []bpf.Instruction, promisc bool) error {
	if kernel != nil {
		if err := attach(fd, kernel); err != nil {
			return fmt.Errorf("attaching the filter: %w", err)
		}
	}
	// Beyond net.core.rmem_max needs CAP_NET_ADMIN (SO_RCVBUFFORCE); without
	// it, take what rmem_max allows.
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, socketBuffer); err != nil {
		unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, socketBuffer)
	}
	// The VLAN tag the kernel takes out of a frame, and the packet's
	// length before the snap length cut it, come as PACKET_AUXDATA.
	if err := unix.SetsockoptInt(fd, unix.SOL_PACKET, unix.PACKET_AUXDATA, 1); err != nil {
		return fmt.Errorf("PACKET_AUXDATA: %w", err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1); err != nil {
		return fmt.Errorf("SO_TIMESTAMPNS: %w", err)
	}
	if promisc {
		mreq := unix.PacketMreq{Ifindex: int32(ifi.Index), Type: unix.PACKET_MR_PROMISC}
		if err := unix.SetsockoptPacketMreq(fd, unix.SOL_PACKET, unix.PACKET_ADD_MEMBERSHIP, &mreq); err != nil {
			return fmt.Errorf("promiscuous mode: %w", err)
		}
	}
	sa := &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_ALL), Ifindex: ifi.Index}
	if err := unix.Bind(fd, sa); err != nil {
		return fmt.Errorf("binding: %w", err)
	}
	return nil
}

// attach attaches a classic BPF program to the socket (SO_ATTACH_FILTER).
func attach(fd int, prog []bpf.Instruction) error {
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return err
	}
	f := make([]unix.SockFilter, len(raw))
	for i, ins := range raw {
		f[i] = unix.SockFilter{Code: ins.Op, Jt: ins.Jt, Jf: ins.Jf, K: ins.K}
	}
	return unix.SetsockoptSockFprog(fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, &unix.SockFprog{Len: uint16(len(f)), Filter: &f[0]})
}

// htons converts a 16-bit value to network byte order, as the kernel
// wants the protocol of a packet socket.
func htons(v uint16) uint16 {
	var b [2]byte
	binary.BigEndian.PutUint16(b[:], v)
	return binary.NativeEndian.Uint16(b[:])
}

// programs splits the filter between the kernel and user space. The
// kernel runs it unless it tests VLAN tags: Linux takes the tag out of
// the frame before packet sockets see it (the filter would look for it in
// vain), so such a filter runs in user space on the frame with its tag
// put back, and the kernel passes everything. On a loopback interface the
// kernel program first drops the outgoing copy of each packet: lo hands
// packet sockets every packet twice, going out and coming back in, and
// libpcap keeps only the incoming one too.
func programs(f *capfilter.Filter, link layers.LinkType, loopback bool) (kernel, user []bpf.Instruction, err error) {
	switch {
	case f == nil || f.MatchesAll():
	case link == layers.LinkTypeEthernet && f.UsesVLAN():
		if user, err = f.Compile(link); err != nil {
			return nil, nil, err
		}
	default:
		if kernel, err = f.Compile(link); err != nil {
			return nil, nil, err
		}
	}
	if loopback {
		if kernel == nil {
			kernel = []bpf.Instruction{bpf.RetConstant{Val: capfilter.AcceptLength}}
		}
		kernel = append([]bpf.Instruction{
			bpf.LoadExtension{Num: bpf.ExtType},
			bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: unix.PACKET_OUTGOING, SkipTrue: 1},
			bpf.RetConstant{Val: 0},
		}, kernel...)
	}
	if len(kernel) > maxKernelInsns {
		return nil, nil, fmt.Errorf("filter %q compiles to %d BPF instructions; the kernel takes at most %d", f, len(kernel), maxKernelInsns)
	}
	return kernel, user, nil
}

// linkTypeOf returns the link type a SOCK_RAW packet socket delivers on
// the interface, from its hardware type.
func linkTypeOf(ifi *net.Interface) (layers.LinkType, error) {
	b, err := os.ReadFile(filepath.Join("/sys/class/net", ifi.Name, "type"))
	if err != nil {
		// No sysfs: an interface with a MAC address, or loopback (whose
		// header has all-zero addresses), frames packets in Ethernet.
		if len(ifi.HardwareAddr) == 6 || ifi.Flags&net.FlagLoopback != 0 {
			return layers.LinkTypeEthernet, nil
		}
		return 0, fmt.Errorf("interface %s: %w without libpcap: cannot tell its link type (%v)", ifi.Name, ErrUnsupported, err)
	}
	switch t := strings.TrimSpace(string(b)); t {
	case arphrdEther, arphrdLoopback:
		return layers.LinkTypeEthernet, nil
	case arphrdNone:
		return layers.LinkTypeRaw, nil
	default:
		return 0, fmt.Errorf("interface %s has hardware type %s: %w without libpcap, which takes Ethernet, loopback and tun (raw IP) interfaces", ifi.Name, t, ErrUnsupported)
	}
}

// interfaceList names the interfaces there are, for an error message.
func interfaceList() string {
	ifs, err := net.Interfaces()
	if err != nil || len(ifs) == 0 {
		return ""
	}
	var names []string
	for _, i := range ifs {
		names = append(names, i.Name)
	}
	slices.Sort(names)
	return " (interfaces: " + strings.Join(names, ", ") + ")"
}

func (s *afPacket) isStopping() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopping
}

func (s *afPacket) next() ([]byte, gopacket.CaptureInfo, error) {
	for {
		var n int
		var errno syscall.Errno
		if s.isStopping() {
			// The kernel queues nothing more (stop attached a filter that
			// rejects everything): read what is queued without waiting.
			if err := s.rc.Control(func(fd uintptr) { n, errno = s.recvmsg(fd, unix.MSG_DONTWAIT) }); err != nil {
				return nil, gopacket.CaptureInfo{}, errStopped // closed
			}
			if errno == unix.EAGAIN || errno == unix.EWOULDBLOCK {
				return nil, gopacket.CaptureInfo{}, errStopped
			}
		} else {
			err := s.rc.Read(func(fd uintptr) bool {
				n, errno = s.recvmsg(fd, 0)
				return errno != unix.EAGAIN && errno != unix.EWOULDBLOCK
			})
			if err != nil {
				if errors.Is(err, os.ErrDeadlineExceeded) {
					continue // stop woke the read: drain what is queued
				}
				return nil, gopacket.CaptureInfo{}, err
			}
		}
		switch errno {
		case 0:
		case unix.EINTR:
			continue
		default:
			return nil, gopacket.CaptureInfo{}, fmt.Errorf("recvmsg: %w", errno)
		}
		data, ci := s.packet(n)
		return data, ci, nil
	}
}

// recvmsg reads one packet into buf[tagRoom:] with its control messages,
// without allocating. MSG_TRUNC makes it return the packet's full length.
func (s *afPacket) recvmsg(fd uintptr, flags int) (int, syscall.Errno) {
	s.msg.SetControllen(len(s.oob))
	n, _, errno := unix.Syscall(unix.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&s.msg)), uintptr(flags|unix.MSG_TRUNC))
	return int(n), errno
}

// packet turns the n bytes just read, and their control messages, into
// the packet and its capture information.
func (s *afPacket) packet(n int) ([]byte, gopacket.CaptureInfo) {
	snap := len(s.buf) - tagRoom
	ci := gopacket.CaptureInfo{CaptureLength: min(n, snap), Length: n, InterfaceIndex: int(s.sa.Ifindex)}
	var aux *unix.TpacketAuxdata
	oob := s.oob[:s.msg.Controllen]
	for len(oob) >= cmsgHdrLen {
		h := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
		if int(h.Len) < cmsgHdrLen || int(h.Len) > len(oob) {
			break
		}
		body := oob[cmsgHdrLen:h.Len]
		switch {
		case h.Level == unix.SOL_PACKET && h.Type == unix.PACKET_AUXDATA && len(body) >= int(unsafe.Sizeof(unix.TpacketAuxdata{})):
			aux = (*unix.TpacketAuxdata)(unsafe.Pointer(&body[0]))
		case h.Level == unix.SOL_SOCKET && h.Type == unix.SO_TIMESTAMPNS && len(body) >= int(unsafe.Sizeof(unix.Timespec{})):
			ts := (*unix.Timespec)(unsafe.Pointer(&body[0]))
			ci.Timestamp = time.Unix(int64(ts.Sec), int64(ts.Nsec))
		}
		next := unix.CmsgSpace(int(h.Len) - cmsgHdrLen)
		if next > len(oob) {
			break
		}
		oob = oob[next:]
	}
	if ci.Timestamp.IsZero() {
		ci.Timestamp = time.Now()
	}
	if aux != nil {
		ci.Length = int(aux.Len)
	}
	start := tagRoom
	if aux != nil && aux.Status&unix.TP_STATUS_VLAN_VALID != 0 && s.link == layers.LinkTypeEthernet && ci.CaptureLength >= 12 {
		tpid := uint16(layers.EthernetTypeDot1Q)
		if aux.Status&unix.TP_STATUS_VLAN_TPID_VALID != 0 {
			tpid = aux.Vlan_tpid
		}
		insertTag(s.buf, tpid, aux.Vlan_tci)
		start = 0
		ci.CaptureLength += tagRoom
		ci.Length += tagRoom
	}
	return s.buf[start : start+ci.CaptureLength], ci
}

// insertTag puts back the 802.1Q tag the kernel took out of the Ethernet
// frame at buf[tagRoom:], as libpcap does, so the frame is what crossed
// the wire: the dissector, the filter and a pcap file see the tag. The
// frame then starts at buf[0].
func insertTag(buf []byte, tpid, tci uint16) {
	copy(buf[:12], buf[tagRoom:tagRoom+12]) // the MAC addresses move forward
	binary.BigEndian.PutUint16(buf[12:], tpid)
	binary.BigEndian.PutUint16(buf[14:], tci)
}

// setFilter attaches the kernel part of f in place of the filter there
// (SO_ATTACH_FILTER replaces it atomically), unless the capture is
// stopping: its reject-all filter stays.
func (s *afPacket) setFilter(f *capfilter.Filter) ([]bpf.Instruction, error) {
	kernel, user, err := programs(f, s.link, s.loopback)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping || s.closed {
		return user, nil
	}
	if kernel == nil {
		kernel = []bpf.Instruction{bpf.RetConstant{Val: capfilter.AcceptLength}}
	}
	var aerr error
	if cerr := s.rc.Control(func(fd uintptr) { aerr = attach(int(fd), kernel) }); cerr != nil {
		return nil, cerr
	}
	return user, aerr
}

// stop makes the kernel queue nothing more, by attaching a filter that
// rejects everything, and wakes a read waiting for a packet: next then
// reads what is queued without waiting, and stops when nothing is left.
func (s *afPacket) stop() {
	s.mu.Lock()
	if s.stopping || s.closed {
		s.mu.Unlock()
		return
	}
	s.stopping = true
	s.mu.Unlock()
	var err error
	if cerr := s.rc.Control(func(fd uintptr) {
		err = attach(int(fd), []bpf.Instruction{bpf.RetConstant{Val: 0}})
	}); cerr != nil || err != nil {
		// Without it the queue would not run dry: end now.
		s.close()
		return
	}
	s.file.SetReadDeadline(time.Now())
}

// pollStatsLocked adds the kernel's counters since the last poll.
func (s *afPacket) pollStatsLocked() {
	if s.closed {
		return
	}
	s.rc.Control(func(fd uintptr) {
		if st, err := unix.GetsockoptTpacketStats(int(fd), unix.SOL_PACKET, unix.PACKET_STATISTICS); err == nil {
			s.recv += uint64(st.Packets)
			s.drops += uint64(st.Drops)
		}
	})
}

func (s *afPacket) counters() (received, dropped uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pollStatsLocked()
	return s.recv, s.drops
}

func (s *afPacket) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.pollStatsLocked() // the counters die with the socket
	s.closed = true
	// Closing waits for a read in progress to let go of the socket, which
	// it does without taking s.mu.
	return s.file.Close()
}
