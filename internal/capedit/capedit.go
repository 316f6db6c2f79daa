// Package capedit rewrites a capture file with the damage real captures
// suffer, so that tests and benchmarks can run the dissector on a damaged
// copy of a real capture and compare it with the clean original: packets
// cut to a snap length (as `editcap -s`), packets lost (chosen by index or
// at random, optionally only TCP segments that carry data), and a capture
// that ends part way; and packets split into IP fragments, as a smaller
// MTU on the path would.
//
// Rewrite reads a pcap or pcapng file, either optionally gzip-compressed,
// one packet at a time (memory does not grow with the capture), and writes
// a classic pcap with the input's link type and timestamp resolution.
// Packets are not otherwise changed: a packet's original length, timestamp
// and bytes (up to the snap length) are the input's.
//
// It reads with gopacket's pcapgo and shares no code with the dissector it
// is meant to test.
package capedit

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/klauspost/compress/gzip"
)

// ErrNotCapture is wrapped by the error Rewrite returns when the input is
// not a pcap or pcapng file (optionally gzip-compressed).
var ErrNotCapture = errors.New("not a pcap or pcapng file")

// ErrMixedLinkTypes is wrapped by the error Rewrite returns for a pcapng
// file whose packets come from interfaces of different link types: a
// classic pcap has a single link type, and Rewrite writes nothing else.
var ErrMixedLinkTypes = errors.New("packets of several link types")

// ErrTimestampPrecision is wrapped by the error Rewrite returns when a
// pcapng packet has a timestamp finer than the microsecond output Rewrite
// chose at the first packet (an interface with nanosecond timestamps that
// the file describes only after packets of microsecond interfaces).
var ErrTimestampPrecision = errors.New("timestamp finer than the output's resolution")

// Options says how Rewrite edits a capture. The zero value copies every
// packet unchanged.
type Options struct {
	// Snap, if positive, cuts each packet's captured bytes to at most Snap
	// bytes, keeping its original length, as `editcap -s Snap` does:
	// CaptureLength becomes min(CaptureLength, Snap), Length is unchanged.
	// The output's file header declares a snap length of Snap (or the
	// input's, if smaller).
	Snap int
	// Limit, if positive, ends the output with input packet Limit-1 (0-based),
	// as a capture that stopped part way: only the first Limit input packets
	// are considered (the dropped ones among them included), and the rest of
	// the input is not read.
	Limit int
	// Drop, if set, is called once for each input packet considered, in
	// input order, before Snap cuts it; the packet is left out of the output
	// when it returns true. See DropIndexes and RandomDrop.
	Drop func(p Packet) bool
	// Fragment, if positive, splits each IPv4 and IPv6 packet whose IP
	// payload is over Fragment bytes into IP fragments (see the function
	// Fragment; identification: the input index + 1), written in order
	// with the packet's timestamp, after Drop and before Snap cuts each.
	// Packets that are not IP, or are cut or fragments already, are
	// written as they are.
	Fragment int
	// Moves, if set, writes packets before packets the input has before
	// them, stamped earlier: see Move. Their spans [Before, Packet] must
	// not overlap; Rewrite holds the packets of a span in memory until
	// its moved packet is read.
	Moves []Move
}

// Move writes input packet Packet just before input packet Before
// (0-based, Before < Packet), stamped Early before Before's timestamp
// (Early ≥ 0; a multiple of the microsecond for a microsecond input): the
// packet comes first in the file and in time, as when a NIC stamps its
// queues apart, or two capture points are merged. Drop still sees each
// packet at its input index; a moved packet it drops is not written.
type Move struct {
	Packet, Before int
	Early          time.Duration
}

// Packet is one input packet as Drop sees it, before any edit.
type Packet struct {
	// Index is the packet's 0-based position in the input.
	Index int
	// LinkType is the link type its bytes start with.
	LinkType layers.LinkType
	// Info is its capture information: timestamp, captured length (==
	// len(Data)) and original length, in bytes; for pcapng, the interface.
	Info gopacket.CaptureInfo
	// Data is the captured bytes. It is valid only during the call: the
	// reader reuses it for the next packet.
	Data []byte
}

// Result says what Rewrite read and wrote.
type Result struct {
	// LinkType and Nanosecond describe the output's file header: its link
	// type, and whether timestamps are written in nanoseconds (else
	// microseconds). SnapLen is the snap length it declares, in bytes.
	LinkType   layers.LinkType
	Nanosecond bool
	SnapLen    uint32
	// Read is how many input packets were considered: all of them, or Limit.
	Read int
	// Written is how many input packets were written: Read - len(Dropped)
	// (a packet split into fragments counts once).
	Written int
	// Snapped is how many records written lost captured bytes to Snap
	// (each fragment of a packet counts).
	Snapped int
	// Fragmented is how many written packets were split into fragments,
	// and Fragments how many fragments they made.
	Fragmented, Fragments int
	// Dropped lists the 0-based input indexes of the packets Drop left out,
	// in ascending order.
	Dropped []int
	// Cut reports that Limit stopped the rewrite before the input's end.
	Cut bool
	// Moved is how many packets Moves wrote early.
	Moved int
}

// defaultSnapLen is the snap length written for a pcapng input whose
// interfaces declare none (libpcap's MAXIMUM_SNAPLEN).
const defaultSnapLen = 262144

// Rewrite reads the capture src (pcap or pcapng, optionally gzip-compressed),
// applies opts and writes the result to dst as a classic pcap: the input's
// link type, nanosecond timestamps if the input has them (a pcap file's
// resolution; for pcapng, nanoseconds if an interface described before the
// first packet has finer than microsecond timestamps), little-endian.
//
// A pcapng file whose packets have different link types is refused with
// ErrMixedLinkTypes; its other metadata (interface names, comments,
// statistics) is not carried over. When the input is damaged part way,
// Rewrite returns an error naming the packet it could not read, with the
// file header and every packet before it written; the Result counts what
// was written.
func Rewrite(dst io.Writer, src io.Reader, opts Options) (Result, error) {
	var res Result
	in, err := open(src)
	if err != nil {
		return res, err
	}
	bw := bufio.NewWriterSize(dst, 64<<10)
	var w *pcapgo.Writer
	// begin writes the file header, once the first packet (or the end of
	// the input) says what the input is.
	begin := func(link layers.LinkType) error {
		res.LinkType, res.Nanosecond, res.SnapLen = link, in.nanosecond(), in.snapLen()
		if opts.Snap > 0 && (res.SnapLen == 0 || uint32(opts.Snap) < res.SnapLen) {
			res.SnapLen = uint32(opts.Snap)
		}
		w = pcapgo.NewWriter(bw)
		if res.Nanosecond {
			w = pcapgo.NewWriterNanos(bw)
		}
		return w.WriteFileHeader(res.SnapLen, link)
	}
	// fail returns err with what was written so far flushed to dst.
	fail := func(err error) (Result, error) {
		if w == nil {
			err = errors.Join(err, begin(in.firstLink()))
		}
		return res, errors.Join(err, bw.Flush())
	}
	moves, err := sortMoves(opts.Moves)
	if err != nil {
		return res, err
	}
	// out writes input packet i: split into fragments, cut to the snap
	// length.
	out := func(i int, data []byte, ci gopacket.CaptureInfo) error {
		pkts := [][]byte{data}
		if opts.Fragment > 0 && len(data) == ci.Length {
			if frags, err := Fragment(res.LinkType, data, opts.Fragment, uint32(i+1)); err == nil && len(frags) > 1 {
				pkts = frags
				res.Fragmented++
				res.Fragments += len(frags)
			}
		}
		for _, data := range pkts {
			length := ci.Length
			if len(pkts) > 1 {
				length = len(data)
			}
			if err := write(w, bw, data, ci.Timestamp, length, opts.Snap, res.Nanosecond, &res); err != nil {
				return fmt.Errorf("writing packet %d: %w", i, err)
			}
		}
		res.Written++
		return nil
	}
	var mv mover
	for opts.Limit <= 0 || res.Read < opts.Limit {
		data, ci, link, err := in.next()
		if err == io.EOF {
			break
		}
		i := res.Read
		if err != nil {
			return fail(fmt.Errorf("reading packet %d: %w", i, err))
		}
		res.Read++
		if w == nil {
			if err := begin(link); err != nil {
				return fail(err)
			}
		}
		if link != res.LinkType {
			return fail(fmt.Errorf("packet %d: link type %v after packets of link type %v: %w", i, link, res.LinkType, ErrMixedLinkTypes))
		}
		if !res.Nanosecond && ci.Timestamp.Nanosecond()%int(time.Microsecond) != 0 {
			return fail(fmt.Errorf("packet %d: timestamp %s in a file begun with microsecond timestamps: %w",
				i, ci.Timestamp.Format(time.RFC3339Nano), ErrTimestampPrecision))
		}
		dropped := opts.Drop != nil && opts.Drop(Packet{Index: i, LinkType: link, Info: ci, Data: data})
		if dropped {
			res.Dropped = append(res.Dropped, i)
		}
		if err := mv.packet(&moves, i, data, ci, dropped, out, &res); err != nil {
			return fail(err)
		}
	}
	if err := mv.flush(out); err != nil {
		return fail(err)
	}
	if opts.Limit > 0 && res.Read == opts.Limit {
		// Cut only if the input had more (or damage) after packet Limit-1.
		_, _, _, err := in.next()
		res.Cut = err != io.EOF
	}
	if w == nil {
		// No packet: the header still says what the input was.
		if err := begin(in.firstLink()); err != nil {
			return fail(err)
		}
	}
	return res, bw.Flush()
}

// write writes one packet of the original length, cut to snap (if
// positive).
func write(w *pcapgo.Writer, bw io.Writer, data []byte, ts time.Time, length, snap int, nano bool, res *Result) error {
	if snap > 0 && len(data) > snap {
		data = data[:snap]
		res.Snapped++
	}
	out := gopacket.CaptureInfo{Timestamp: ts, CaptureLength: len(data), Length: length}
	if out.Timestamp.IsZero() {
		// A pcapng simple packet block has no timestamp; pcapgo.Writer
		// would write the time of day.
		out.Timestamp = time.Unix(0, 0)
	}
	if out.CaptureLength > out.Length {
		return writeRecord(bw, out, data, nano) // see lengths.go
	}
	return w.WritePacket(out, data)
}

// input reads packets from a pcap or a pcapng file.
type input struct {
	pcap *pcapgo.Reader
	fix  *lengthFix // between the file and pcap
	ng   *pcapgo.NgReader
}

const (
	pcapMagicMicro = 0xa1b2c3d4
	pcapMagicNano  = 0xa1b23c4d
	pcapngMagic    = 0x0a0d0d0a
)

// open detects gzip compression and the capture format, and reads the file
// header.
func open(r io.Reader) (*input, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(2)
	if len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("gzip header: %w", err)
		}
		br = bufio.NewReaderSize(zr, 64<<10)
	}
	head, err := br.Peek(4)
	if len(head) < 4 {
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("reading file header: %w", err)
		}
		return nil, fmt.Errorf("%w: only %d bytes", ErrNotCapture, len(head))
	}
	le, be := binary.LittleEndian.Uint32(head), binary.BigEndian.Uint32(head)
	switch {
	case le == pcapngMagic:
		ng, err := pcapgo.NewNgReader(br, pcapgo.NgReaderOptions{WantMixedLinkType: true})
		if err != nil {
			return nil, fmt.Errorf("pcapng section header: %w", err)
		}
		return &input{ng: ng}, nil
	case le == pcapMagicMicro || le == pcapMagicNano || be == pcapMagicMicro || be == pcapMagicNano:
		fix := &lengthFix{r: br, order: binary.LittleEndian}
		if be == pcapMagicMicro || be == pcapMagicNano {
			fix.order = binary.BigEndian
		}
		pr, err := pcapgo.NewReader(fix)
		if err != nil {
			return nil, fmt.Errorf("pcap file header: %w", err)
		}
		return &input{pcap: pr, fix: fix}, nil
	}
	return nil, fmt.Errorf("%w: file magic % x", ErrNotCapture, head)
}

// next returns the next packet and its link type; data is valid until the
// next call. It returns io.EOF at the end of the input.
func (in *input) next() (data []byte, ci gopacket.CaptureInfo, link layers.LinkType, err error) {
	if in.pcap != nil {
		data, ci, err = in.pcap.ZeroCopyReadPacketData()
		if err == nil {
			in.fix.restore(&ci)
		}
		return data, ci, in.pcap.LinkType(), err
	}
	data, ci, err = in.ng.ZeroCopyReadPacketData()
	if err == nil {
		// WantMixedLinkType: the packet's interface's link type, in a
		// slice the reader reuses.
		link, _ = ci.AncillaryData[0].(layers.LinkType)
		ci.AncillaryData = nil
	}
	return data, ci, link, err
}

// nanosecond reports whether the output should have nanosecond timestamps:
// a nanosecond pcap file, or a pcapng interface read so far with
// timestamps finer than a microsecond.
func (in *input) nanosecond() bool {
	if in.pcap != nil {
		return in.pcap.Resolution().ToDuration() < time.Microsecond
	}
	for i := range in.ng.NInterfaces() {
		intf, _ := in.ng.Interface(i)
		if intf.Resolution().ToDuration() < time.Microsecond {
			return true
		}
	}
	return false
}

// snapLen returns the input's snap length: the pcap file header's, or the
// largest of the pcapng interfaces read so far (defaultSnapLen if none
// declares one).
func (in *input) snapLen() uint32 {
	if in.pcap != nil {
		return in.pcap.Snaplen()
	}
	var n uint32
	for i := range in.ng.NInterfaces() {
		intf, _ := in.ng.Interface(i)
		if intf.SnapLength == 0 {
			return defaultSnapLen
		}
		n = max(n, intf.SnapLength)
	}
	if n == 0 {
		return defaultSnapLen
	}
	return n
}

// firstLink returns the input's link type when it has no packet: the pcap
// file header's, or the first pcapng interface's (Ethernet if none).
func (in *input) firstLink() layers.LinkType {
	if in.pcap != nil {
		return in.pcap.LinkType()
	}
	if intf, err := in.ng.Interface(0); err == nil {
		return intf.LinkType
	}
	return layers.LinkTypeEthernet
}
