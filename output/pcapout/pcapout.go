// Package pcapout writes the packets of chosen exchanges back out as
// pcapng (pcapgo.NgWriter), for Wireshark: kdissect read -w and live -w.
// Each exchange's request and response get a comment on their first
// packet (Wireshark's frame.comment), and the input's own packet comments
// are kept.
//
// Packets come in capture order (Writer.Packet) before the exchanges they
// make (Writer.Exchange), and whether a packet is written is known only
// once every exchange that could use it has been decided. So packets are
// spooled to a temporary file and written from it as soon as that is
// known: an exchange emitted with first packet n decides every packet
// before n, since exchanges come in the order of their first packets and
// none uses a packet before its own first. Memory holds only the
// exchanges whose packets are not yet all written (their spans and
// comments); the spool holds the packets not yet decided: those written
// out are dropped from it (it starts over, or the waiting ones move to its
// start).
package pcapout

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"github.com/kdissect/kdissect/internal/termsafe"
	"io"
	"net/netip"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/kdissect/kdissect/dissect"
)

// Writer writes a pcapng file of the packets of the exchanges given to
// Exchange, or (all) of every packet. Packet runs on one goroutine
// CommentPrefix starts the comments kdissect gives requests and responses
// (render.PacketComment). A packet of an input that kdissect wrote keeps
// its other comments, but not an old one of these where it gets a new one.
const CommentPrefix = "kdissect: "

// (the reader's), Exchange may run on another; Close after both ended.
type Writer struct {
	out io.Writer
	all bool

	mu       sync.Mutex
	decided  int64              // packets before it are decided: write or drop
	spans    []span             // exchanges whose packets are not all written, by first packet
	comments map[int64][]string // kdissect's comments by packet number
	err      error              // the first write error; later calls do nothing

	spool      *os.File
	spoolW     *bufio.Writer
	wpos, rpos int64 // spool offsets: written, read
	spoolBuf   []byte
	ng         *pcapgo.NgWriter
	ifaces     map[layers.LinkType]int
}

// span is an exchange's packets: those of its connection (either
// direction: segments, acknowledgments, retransmissions) from the first
// packet of its request to the last of its response.
type span struct {
	first, last int64
	a, b        netip.AddrPort
}

// New returns a Writer to out (a file; the caller closes it after Close),
// spooling in a temporary file in dir ("" for os.TempDir), which is
// removed by Close. all writes every packet, the exchanges then only add
// their comments.
func New(out io.Writer, dir string, all bool) (*Writer, error) {
	f, err := os.CreateTemp(dir, ".kdissect-spool-*")
	if err != nil {
		return nil, fmt.Errorf("spool for -w: %w", err)
	}
	w := &Writer{out: out, all: all, comments: map[int64][]string{}, spool: f, ifaces: map[layers.LinkType]int{}}
	w.spoolW = bufio.NewWriterSize(&offsetWriter{f: f, pos: &w.wpos}, 1<<16)
	return w, nil
}

// offsetWriter writes at *pos of f and advances it.
type offsetWriter struct {
	f   *os.File
	pos *int64
}

func (o *offsetWriter) Write(p []byte) (int, error) {
	n, err := o.f.WriteAt(p, *o.pos)
	*o.pos += int64(n)
	return n, err
}

// record header in the spool: packet number, time (Unix ns), captured
// and original lengths, link type, interface, bytes of comments.
const recHeader = 8 + 8 + 4 + 4 + 4 + 4 + 4

// Packet takes packet n of the capture (numbered as dissect numbers them,
// from 0 in the order handed to the Session), with its input comments.
// data is copied.
func (w *Writer) Packet(n int64, link layers.LinkType, data []byte, ci gopacket.CaptureInfo, comments []string) error {
	if w.err != nil {
		return w.err
	}
	var h [recHeader]byte
	var cl int
	for _, c := range comments {
		cl += 4 + len(c)
	}
	binary.LittleEndian.PutUint64(h[0:], uint64(n))
	binary.LittleEndian.PutUint64(h[8:], uint64(ci.Timestamp.UnixNano()))
	binary.LittleEndian.PutUint32(h[16:], uint32(len(data)))
	binary.LittleEndian.PutUint32(h[20:], uint32(max(ci.Length, len(data))))
	binary.LittleEndian.PutUint32(h[24:], uint32(link))
	binary.LittleEndian.PutUint32(h[28:], uint32(ci.InterfaceIndex))
	binary.LittleEndian.PutUint32(h[32:], uint32(cl))
	w.spoolW.Write(h[:])
	w.spoolW.Write(data)
	for _, c := range comments {
		var l [4]byte
		binary.LittleEndian.PutUint32(l[:], uint32(len(c)))
		w.spoolW.Write(l[:])
		w.spoolW.WriteString(c)
	}
	w.mu.Lock()
	decided := w.decided
	w.mu.Unlock()
	if decided > 0 {
		w.fail(w.drain(decided))
	}
	return w.err
}

// Exchange takes every exchange in the order they are emitted (capture
// order), decided: write says to write its packets, with comment (if not
// empty) on the first packet of its request and of its response. An
// exchange not written still says that the packets before its first are
// decided.
func (w *Writer) Exchange(ex *dissect.Exchange, write bool, comment string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.decided = max(w.decided, ex.Order())
	if !write {
		return
	}
	sp := span{first: -1, last: -1, a: ex.Client, b: ex.Broker}
	for _, f := range [2]*dissect.Frame{ex.Request, ex.Response} {
		if f == nil {
			continue
		}
		if sp.first < 0 || f.Packet < sp.first {
			sp.first = f.Packet
		}
		sp.last = max(sp.last, f.LastPacket)
		if comment != "" {
			w.comments[f.Packet] = append(w.comments[f.Packet], comment)
		}
	}
	if sp.first < 0 {
		return
	}
	if !w.all {
		w.spans = append(w.spans, sp)
	}
}

func (w *Writer) fail(err error) {
	if err != nil && w.err == nil {
		w.err = err
	}
}

// drain writes out the spooled packets numbered below upto (all of them
// when upto < 0).
func (w *Writer) drain(upto int64) error {
	if err := w.spoolW.Flush(); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	var h [recHeader]byte
	for w.rpos < w.wpos {
		if _, err := w.spool.ReadAt(h[:], w.rpos); err != nil {
			return fmt.Errorf("spool: %w", err)
		}
		n := int64(binary.LittleEndian.Uint64(h[0:]))
		if upto >= 0 && n >= upto {
			break
		}
		caplen := int(binary.LittleEndian.Uint32(h[16:]))
		cl := int(binary.LittleEndian.Uint32(h[32:]))
		if cap(w.spoolBuf) < caplen+cl {
			w.spoolBuf = make([]byte, caplen+cl)
		}
		buf := w.spoolBuf[:caplen+cl]
		if _, err := w.spool.ReadAt(buf, w.rpos+recHeader); err != nil {
			return fmt.Errorf("spool: %w", err)
		}
		w.rpos += recHeader + int64(len(buf))
		link := layers.LinkType(binary.LittleEndian.Uint32(h[24:]))
		data := buf[:caplen]
		w.mu.Lock()
		keep := w.all || w.covered(n, link, data)
		mine := w.comments[n]
		delete(w.comments, n)
		w.mu.Unlock()
		if !keep {
			continue
		}
		var comments []string
		for c := buf[caplen:]; len(c) >= 4; {
			l := int(binary.LittleEndian.Uint32(c))
			// A file kdissect wrote, read and written again: its own
			// comments are made anew, not repeated.
			// An input's comment is escaped as kdissect's own are (a
			// person's lines and tabs kept): tshark -V prints it to a
			// terminal.
			if text := string(c[4 : 4+l]); len(mine) == 0 || !strings.HasPrefix(text, CommentPrefix) {
				comments = append(comments, termsafe.EscapeKeepLines(text))
			}
			c = c[4+l:]
		}
		ci := gopacket.CaptureInfo{
			Timestamp:     time.Unix(0, int64(binary.LittleEndian.Uint64(h[8:]))),
			CaptureLength: caplen,
			Length:        int(binary.LittleEndian.Uint32(h[20:])),
		}
		if err := w.write(link, ci, data, append(comments, mine...)); err != nil {
			return err
		}
	}
	switch {
	case w.rpos == w.wpos:
		w.rpos, w.wpos = 0, 0 // all written: the spool starts over
	case w.rpos >= compactAfter && w.wpos-w.rpos <= w.rpos:
		// Packets still wait (the exchange in progress): they move to
		// the start, which costs no more than the bytes written since
		// the last move, and the spool stays the size of what waits.
		if err := w.compact(); err != nil {
			return fmt.Errorf("spool: %w", err)
		}
	}
	return nil
}

// compactAfter is how many spooled bytes written out make the spool move
// the packets still waiting to its start.
const compactAfter = 64 << 10

// compact moves the spool's unread records [rpos, wpos) to offset 0; they
// are no longer than rpos, so source and destination do not overlap.
func (w *Writer) compact() error {
	n := w.wpos - w.rpos
	if _, err := io.Copy(io.NewOffsetWriter(w.spool, 0), io.NewSectionReader(w.spool, w.rpos, n)); err != nil {
		return err
	}
	w.rpos, w.wpos = 0, n
	return w.spool.Truncate(n)
}

// covered says whether packet n, of link type link, belongs to an
// exchange to write; it forgets the exchanges whose packets are all
// behind n. Called with mu held.
func (w *Writer) covered(n int64, link layers.LinkType, data []byte) bool {
	keep := w.spans[:0]
	var src, dst netip.AddrPort
	parsed, found := false, false
	for _, sp := range w.spans {
		if sp.last < n {
			continue
		}
		keep = append(keep, sp)
		if found || sp.first > n {
			continue
		}
		if !parsed {
			src, dst = endpoints(link, data)
			parsed = true
		}
		found = src == sp.a && dst == sp.b || src == sp.b && dst == sp.a
	}
	w.spans = keep
	return found
}

// endpoints returns the TCP endpoints of a packet; zero values when it is
// not TCP (an IP fragment after the first, ARP...).
func endpoints(link layers.LinkType, data []byte) (src, dst netip.AddrPort) {
	p := gopacket.NewPacket(data, link, gopacket.DecodeOptions{Lazy: true, NoCopy: true})
	nl, tl := p.NetworkLayer(), p.TransportLayer()
	tcp, ok := tl.(*layers.TCP)
	if nl == nil || !ok {
		return
	}
	s, _ := netip.AddrFromSlice(nl.NetworkFlow().Src().Raw())
	d, _ := netip.AddrFromSlice(nl.NetworkFlow().Dst().Raw())
	return netip.AddrPortFrom(s.Unmap(), uint16(tcp.SrcPort)), netip.AddrPortFrom(d.Unmap(), uint16(tcp.DstPort))
}

// write writes one packet, on the output interface of its link type.
func (w *Writer) write(link layers.LinkType, ci gopacket.CaptureInfo, data []byte, comments []string) error {
	id, ok := w.ifaces[link]
	if !ok {
		intf := pcapgo.NgInterface{Name: fmt.Sprintf("kdissect%d", len(w.ifaces)), LinkType: link, TimestampResolution: 9}
		var err error
		if w.ng == nil {
			w.ng, err = pcapgo.NewNgWriterInterface(w.out, intf, pcapgo.NgWriterOptions{SectionInfo: pcapgo.NgSectionInfo{Application: "kdissect"}})
		} else {
			id, err = w.ng.AddInterface(intf)
		}
		if err != nil {
			return err
		}
		w.ifaces[link] = id
	}
	ci.InterfaceIndex = id
	return w.ng.WritePacketWithOptions(ci, data, pcapgo.NgPacketOptions{Comments: comments})
}

// Close writes the packets still spooled (all exchanges given), flushes
// the pcapng and removes the spool. A capture without a packet to write
// still makes a valid pcapng file (an Ethernet interface, no packets).
// It returns the first error met by Packet or Close.
func (w *Writer) Close() error {
	if w.err == nil {
		w.fail(w.drain(-1))
	}
	if w.err == nil && w.ng == nil {
		var err error
		w.ng, err = pcapgo.NewNgWriterInterface(w.out, pcapgo.NgInterface{Name: "kdissect0", LinkType: layers.LinkTypeEthernet, TimestampResolution: 9},
			pcapgo.NgWriterOptions{SectionInfo: pcapgo.NgSectionInfo{Application: "kdissect"}})
		w.fail(err)
	}
	if w.ng != nil {
		w.fail(w.ng.Flush())
	}
	name := w.spool.Name()
	w.fail(w.spool.Close())
	w.fail(os.Remove(name))
	return w.err
}
