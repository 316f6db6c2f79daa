package dissect

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/reassembly"
)

// DefaultPort is the broker port used when Options.Ports is empty.
const DefaultPort = 9092

// DefaultMaxFrameSize is the frame size limit used when
// Options.MaxFrameSize is 0: 100 MiB, Kafka's socket.request.max.bytes.
const DefaultMaxFrameSize = 100 << 20

// Options configures a Dissector.
type Options struct {
	// Ports are the broker TCP ports; empty means 9092. Only connections
	// with one end on one of them are dissected, and that end is the
	// broker. With both ends on broker ports, the end the SYN went to is
	// the broker, or the lower port when no SYN was captured.
	Ports []uint16
	// MaxFrameSize is the largest frame accepted, in bytes; 0 means 100 MiB.
	// A larger size prefix is skipped by its length without buffering it.
	MaxFrameSize int
	// ValidRequest, if set, says whether an ApiKey and ApiVersion are
	// plausible for a request; it is used to find a frame boundary after a
	// gap. When nil, ApiKey 0..100 is plausible. ApiVersion must be 0..50
	// either way.
	ValidRequest func(apiKey, apiVersion int16) bool
}

// Stats counts what a Dissector read, over every capture it read.
type Stats struct {
	Packets      int64 // packets read
	TCPPackets   int64 // packets that decoded to TCP over IPv4 or IPv6
	KafkaPackets int64 // TCP packets with one end on a broker port: the ones reassembled
	// Skipped counts packets not dissected; the fields below break it down.
	Skipped         int64
	NotTCP          int64 // not IP, or IP but not TCP
	Fragments       int64 // IP fragments (not reassembled)
	Malformed       int64 // headers that do not decode, or a TCP header cut off
	UnsupportedLink int64 // link types we do not decode
	OtherPorts      int64 // TCP with neither end on a broker port
	// SnapTruncated counts TCP packets the snap length cut short; the lost
	// bytes are gaps in their stream.
	SnapTruncated int64
	// PatchedRecords counts classic pcap records whose original length was
	// below their captured length (a writer bug) and was raised to it.
	PatchedRecords int64
	Connections    int   // TCP connections to a broker
	Frames         int64 // Kafka frames (requests and responses)
	Exchanges      int64 // exchanges emitted
	// LostBytes counts stream bytes dropped without an exchange to note
	// them on (the stream ended while looking for a frame boundary);
	// Problems says what happened, for the first few such cases.
	LostBytes int64
	Problems  []string
}

const maxProblems = 100

// Dissector turns captures into Kafka exchanges. It is not safe for
// concurrent use. Stream numbers continue across the captures it reads.
type Dissector struct {
	opts       Options
	ports      []uint16
	maxFrame   int
	stats      Stats
	nextStream int
}

// New returns a Dissector.
func New(opts Options) *Dissector {
	d := &Dissector{opts: opts, ports: slices.Clone(opts.Ports), maxFrame: opts.MaxFrameSize}
	if len(d.ports) == 0 {
		d.ports = []uint16{DefaultPort}
	}
	if d.maxFrame <= 0 {
		d.maxFrame = DefaultMaxFrameSize
	}
	d.maxFrame = min(d.maxFrame, 1<<31-1) // a size prefix is an int32
	return d
}

// Stats returns the counts so far.
func (d *Dissector) Stats() Stats {
	s := d.stats
	s.Problems = slices.Clone(s.Problems)
	return s
}

func (d *Dissector) isKafkaPort(p uint16) bool {
	return slices.Contains(d.ports, p)
}

// ReadFile reads the capture at path ("-" for standard input); see
// ReadCapture.
func (d *Dissector) ReadFile(path string, emit func(*Exchange)) error {
	if path == "-" {
		if err := d.ReadCapture(os.Stdin, emit); err != nil {
			return fmt.Errorf("standard input: %w", err)
		}
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := d.ReadCapture(f, emit); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// ReadCapture reads a whole pcap or pcapng capture (gzip-compressed or not)
// and calls emit once per exchange, in capture order (Exchange.Order, then
// stream and position in the stream), after the capture has been read.
//
// The error is nil at the end of a sound capture. It wraps ErrNotCapture
// when the input is empty or not a capture, and ErrCaptureDamaged (as a
// *DamageError) when the file is damaged part way; every exchange before
// the damage has been emitted by then.
func (d *Dissector) ReadCapture(r io.Reader, emit func(*Exchange)) error {
	cr, err := openCapture(r)
	if err != nil {
		return err
	}
	s := d.NewSession()
	var readErr error
	for {
		data, ci, link, err := cr.next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				readErr = err
			}
			break
		}
		s.Packet(link, data, ci)
	}
	d.stats.PatchedRecords += cr.patched()
	s.Close(emit)
	return readErr
}

// Session dissects packets handed to it one at a time, for a caller that
// reads packets itself (a live capture). Packets are numbered from 0 in the
// order they are handed over. A Session belongs to its Dissector, whose
// Stats it updates; use one at a time.
type Session struct {
	d     *Dissector
	dec   *linkDecoder
	asm   *reassembly.Assembler
	cur   tcpPacket
	n     int64 // packets so far
	slab  []pktCtx
	conns []*conn
	out   []ordered
}

// ordered is an exchange with its sort key.
type ordered struct {
	ex     *Exchange
	order  int64
	stream int
	pos    int64
}

// NewSession starts dissecting a new packet sequence: a new capture.
func (d *Dissector) NewSession() *Session {
	s := &Session{d: d, dec: newLinkDecoder()}
	pool := reassembly.NewStreamPool(streamFactory{s})
	s.asm = reassembly.NewAssembler(pool)
	s.asm.MaxBufferedPagesPerConnection = maxPagesPerConn
	s.asm.MaxBufferedPagesTotal = maxPagesTotal
	return s
}

// Packet dissects one packet of the given link type. data is not kept.
func (s *Session) Packet(link layers.LinkType, data []byte, ci gopacket.CaptureInfo) {
	st := &s.d.stats
	st.Packets++
	idx := s.n
	s.n++
	switch s.dec.decode(link, data, &s.cur) {
	case kindTCP:
		st.TCPPackets++
	case kindNotTCP:
		st.Skipped++
		st.NotTCP++
		return
	case kindFragment:
		st.Skipped++
		st.Fragments++
		return
	case kindUnsupported:
		st.Skipped++
		st.UnsupportedLink++
		return
	default:
		st.Skipped++
		st.Malformed++
		return
	}
	if !s.d.isKafkaPort(s.cur.Src.Port()) && !s.d.isKafkaPort(s.cur.Dst.Port()) {
		st.Skipped++
		st.OtherPorts++
		return
	}
	st.KafkaPackets++
	if s.cur.Missing > 0 {
		// Reassembly sees the missing bytes as a hole before the next
		// segment and reports them as skipped.
		st.SnapTruncated++
	}
	s.asm.AssembleWithContext(s.cur.NetFlow, s.cur.TCP, s.newCtx(ci.Timestamp, idx))
}

// Close ends the packet sequence: every connection still open is flushed
// (partial frames become truncated frames, requests without a response
// stand alone), and emit is called once per exchange in capture order.
func (s *Session) Close(emit func(*Exchange)) {
	s.asm.FlushAll()
	for _, c := range s.conns {
		c.finish() // connections reassembly no longer held
	}
	s.conns = nil
	slices.SortStableFunc(s.out, func(a, b ordered) int {
		return cmp.Or(cmp.Compare(a.order, b.order), cmp.Compare(a.stream, b.stream), cmp.Compare(a.pos, b.pos))
	})
	out := s.out
	s.out = nil
	s.d.stats.Exchanges += int64(len(out))
	for _, o := range out {
		if emit != nil {
			emit(o.ex)
		}
	}
}

// add collects an exchange for Close; pos is the stream offset of its
// first frame.
func (s *Session) add(ex *Exchange, pos int64) {
	s.out = append(s.out, ordered{ex: ex, order: ex.Order(), stream: ex.Stream, pos: pos})
}

// lost records bytes dropped with no exchange to note them on.
func (s *Session) lost(problem string, n int64) {
	s.d.stats.LostBytes += n
	if len(s.d.stats.Problems) < maxProblems {
		s.d.stats.Problems = append(s.d.stats.Problems, problem)
	}
}
