package dissect

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/kdissect/kdissect/dissect/tlsdecrypt"
)

// DefaultPort is the broker port used when Options.Ports is empty.
const DefaultPort = 9092

// DefaultMaxFrameSize is the frame size limit used when
// Options.MaxFrameSize is 0: 100 MiB, Kafka's socket.request.max.bytes.
const DefaultMaxFrameSize = 100 << 20

// Defaults of the streaming limits (see Options).
const (
	DefaultReorderWindow      = 10 * time.Second
	DefaultIdleTimeout        = 2 * time.Minute
	DefaultMaxConnections     = 100_000
	DefaultMaxPendingRequests = 1000
	DefaultMaxBufferedBytes   = 256 << 20
	DefaultBacklogPackets     = 32
	DefaultBacklogBytes       = 64 << 10
	DefaultBacklogTotalBytes  = 16 << 20
)

// Options configures a Dissector. Zero values take the defaults.
type Options struct {
	// Ports are the broker TCP ports; empty means 9092. Connections with
	// one end on one of them, or on a broker learned from the capture (see
	// AnyPort), are dissected, and that end is the broker. With both ends
	// on broker ports, the end the SYN went to is the broker, or the lower
	// port when no SYN was captured.
	Ports []uint16
	// AnyPort also dissects connections on other ports whose client opens
	// with a plausible Kafka request (size, ApiKey and ApiVersion per
	// ValidRequest, CorrelationId, printable ClientId); their server joins
	// the broker set. A port 0 in Ports means AnyPort too. Brokers named in
	// Metadata, FindCoordinator and DescribeCluster responses join the set
	// either way.
	AnyPort bool
	// BrokersNamed, if set, is called from inside Session.Packet (or
	// Advance, Close) with the brokers a response names
	// (Exchange.NamedBrokers) as soon as the response is matched: before
	// its exchange is emitted, which may wait (see Session). For a live
	// capture that widens its kernel filter to them at once. The slice is
	// the exchange's: not to be changed.
	BrokersNamed func([]BrokerName)
	// MaxFrameSize is the largest frame accepted, in bytes; 0 means 100 MiB.
	// A larger size prefix is skipped by its length without buffering it.
	MaxFrameSize int
	// ValidRequest, if set, says whether an ApiKey and ApiVersion are
	// plausible for a request; it is used to find a frame boundary after a
	// gap, to tell a request from a SASL token, and to detect Kafka on any
	// port. When nil, ApiKey 0..100 is plausible. ApiVersion must be 0..50
	// either way.
	ValidRequest func(apiKey, apiVersion int16) bool

	// ReorderWindow is how long, in capture time, reassembly waits for the
	// bytes missing before out-of-order data (a retransmission) before
	// giving them up as a gap; it is also the longest a connection whose
	// detection is pending (AnyPort) holds the output back. Default 10 s.
	ReorderWindow time.Duration
	// IdleTimeout closes a connection that carried no packet for that long
	// in capture time; its requests still waiting get a note, and it keeps
	// its stream number if it wakes up. Default 2 min.
	IdleTimeout time.Duration
	// MaxConnections bounds the connections dissected at once (and the
	// unknown connections tracked). Beyond, a new connection takes the
	// place of the one silent longest among those with the least evidence
	// of being real, if they have no more than the newcomer
	// (Stats.ConnEvicted): one-packet flows without a handshake, as a
	// flood from spoofed addresses makes, do not keep a connection that
	// opens with a SYN out. Otherwise its packets are not dissected
	// (Stats.ConnLimit). Default 100 000.
	MaxConnections int
	// MaxPendingRequests bounds the requests waiting for a response on one
	// connection; beyond, the oldest completes unanswered, with a note.
	// Default 1000.
	MaxPendingRequests int
	// MaxBufferedBytes bounds the exchanges held for ordering (their frames
	// plus about 512 bytes each): beyond, the dissector stops waiting for
	// the responses of the oldest requests (each gets a note). Default 256 MiB.
	MaxBufferedBytes int64
	// BacklogPackets and BacklogBytes bound the packets kept per connection
	// not (yet) known to be Kafka, for a replay once its broker is learned;
	// BacklogTotalBytes bounds them all. Defaults 32 packets, 64 KiB and
	// 16 MiB. A negative BacklogPackets keeps none (and, without AnyPort,
	// tracks no unknown connection).
	BacklogPackets    int
	BacklogBytes      int
	BacklogTotalBytes int

	// FramePool, if set, supplies the buffers of frame bytes; the caller
	// gives them back with FramePool.Release once done with each exchange.
	// Nil: every frame is a new allocation, left to the garbage collector.
	FramePool *FramePool

	// TLSKeys, if set, gives the session secrets of TLS connections (a
	// *tlsdecrypt.KeyLog read from an SSLKEYLOGFILE, a pcapng's
	// Decryption Secrets Blocks), looked up by the ClientHello's random
	// at the connection's first encrypted record. A connection whose
	// client opens with a ClientHello is TLS whatever its port; without
	// its secrets it yields one exchange with a note (TLSInfo.Encrypted)
	// and is never framed as Kafka.
	TLSKeys tlsdecrypt.KeySource
}

// limits are the Options' limits with defaults applied.
type limits struct {
	window, idle    time.Duration
	connections     int
	pendingRequests int
	earlyResponses  int
	bufferedBytes   int64
	backlogPackets  int
	backlogBytes    int
	backlogTotal    int
}

// maxEarlyResponses bounds the responses a connection holds while their
// request may still be framed; beyond, the oldest stands alone.
const maxEarlyResponses = 256

func (o *Options) limits() limits {
	def := func(v, d int) int {
		if v == 0 {
			return d
		}
		return v
	}
	l := limits{
		window:          o.ReorderWindow,
		idle:            o.IdleTimeout,
		connections:     max(1, def(o.MaxConnections, DefaultMaxConnections)),
		pendingRequests: max(1, def(o.MaxPendingRequests, DefaultMaxPendingRequests)),
		earlyResponses:  maxEarlyResponses,
		bufferedBytes:   o.MaxBufferedBytes,
		backlogPackets:  def(o.BacklogPackets, DefaultBacklogPackets),
		backlogBytes:    def(o.BacklogBytes, DefaultBacklogBytes),
		backlogTotal:    def(o.BacklogTotalBytes, DefaultBacklogTotalBytes),
	}
	if l.window <= 0 {
		l.window = DefaultReorderWindow
	}
	if l.idle <= 0 {
		l.idle = DefaultIdleTimeout
	}
	if l.bufferedBytes <= 0 {
		l.bufferedBytes = DefaultMaxBufferedBytes
	}
	return l
}

// Stats counts what a Dissector read, over every capture it read.
type Stats struct {
	Packets      int64 // packets read
	TCPPackets   int64 // packets that decoded to TCP over IPv4 or IPv6
	KafkaPackets int64 // TCP packets with one end on a broker: the ones reassembled
	// First is the capture time of the first packet read: stats
	// --interval aligns its intervals there, as tshark's -z io,stat.
	First time.Time
	// Skipped counts packets not dissected; the fields below break it down.
	Skipped         int64
	NotTCP          int64 // not IP, or IP but not TCP
	Fragments       int64 // IP fragments not dissected by themselves (see Reassembled)
	Malformed       int64 // headers that do not decode, or a TCP header cut off
	UnsupportedLink int64 // link types we do not decode
	OtherPorts      int64 // TCP with neither end on a broker
	// SnapTruncated counts TCP packets the snap length cut short, and
	// SnapBytes the payload bytes it cut: holes of known length in their
	// stream, stepped over by the framer.
	SnapTruncated int64
	// TLSConnections counts connections whose client opened with a TLS
	// ClientHello, and TLSEncrypted those of them not decrypted (no keys,
	// a cipher suite not supported, a wrong key).
	TLSConnections int64
	TLSEncrypted   int64
	SnapBytes      int64
	// Holes and HoleBytes count the runs of TCP stream the capture lacks
	// (segments not captured), as reassembly gave them up, and their
	// bytes (from the sequence numbers around them).
	Holes     int64
	HoleBytes int64
	// Retransmitted counts segments that brought no new byte (copies of
	// bytes already seen); Reordered the segments that waited for bytes
	// before them.
	Retransmitted int64
	Reordered     int64
	// RetransmittedDiffering counts retransmitted copies whose bytes
	// differ from the first copy's (of the bytes still held to compare:
	// see retransmit.go), RetransmittedDifferingBytes those bytes.
	RetransmittedDiffering      int64
	RetransmittedDifferingBytes int64
	// Reassembled counts the IP datagrams reassembled from fragments, and
	// FragmentsReassembled the fragments they were made of. The fragment
	// that completes a datagram stands for it: it counts as the datagram
	// does (TCPPackets and so on), the others among Fragments.
	// FragmentsDropped counts the fragments given up: their datagram
	// overlapped, was incomplete 30 s after its first fragment or at the
	// end of the capture, or went beyond the limits on fragments pending
	// (1024 datagrams, 4 MiB), or the fragment was invalid by itself.
	// Copies of fragments held are ignored. Fragments of other protocols
	// than TCP are not reassembled.
	Reassembled          int64
	FragmentsReassembled int64
	FragmentsDropped     int64
	// PatchedRecords counts classic pcap records whose original length was
	// below their captured length (a writer bug) and was raised to it.
	PatchedRecords int64
	Connections    int   // TCP connections to a broker
	Frames         int64 // Kafka frames (requests, responses, SASL tokens)
	Exchanges      int64 // exchanges emitted
	// LostBytes counts stream bytes dropped without an exchange to note
	// them on (the stream ended while looking for a frame boundary);
	// Problems says what happened, for the first few such cases.
	LostBytes int64
	Problems  []string

	// LearnedBrokers counts brokers added to the broker set from the
	// capture (responses naming brokers, AnyPort detection);
	// DetectedConnections the connections AnyPort recognised.
	LearnedBrokers      int
	DetectedConnections int
	// Replayed counts packets kept while their connection was unknown and
	// replayed once it was recognised (moved from OtherPorts to
	// KafkaPackets); BacklogDropped those kept but not replayed, because
	// exchanges captured after them had already been emitted.
	Replayed       int64
	BacklogDropped int64
	// LateConnections are the connections (the first
	// maxLateConnections; LateConnectionCount counts them all) to a
	// broker learned after they began, of which packets were lost:
	// dropped from the backlog (BacklogDropped), or never kept, the
	// backlog being full. ReadOptions.Rediscover finds their brokers
	// first, when the capture can be read twice.
	LateConnections     []LateConnection
	LateConnectionCount int
	// AfterClose counts packets of a connection that closed moments
	// before (its last ACKs); ConnLimit packets of connections beyond
	// Options.MaxConnections, refused because every connection open had
	// more evidence of being real (see ConnEvicted). Both are among
	// KafkaPackets, not dissected.
	AfterClose int64
	ConnLimit  int64
	// ConnEvicted counts the connections ended to make room for a new
	// one beyond Options.MaxConnections: of those open, one with no more
	// evidence of being real than the newcomer (a completed handshake,
	// packets both ways, a SYN, a request framed, in that order of
	// weight), silent longest. Its requests waiting get a note
	// (ConnectionEvicted).
	ConnEvicted int64
	// ReusedPorts counts connections ended by a new connection on the
	// same 4-tuple (a SYN with a new initial sequence number).
	ReusedPorts int64
	// PeakOpenConnections and PeakBufferedExchanges are the most
	// connections open and exchanges held for ordering at once: what
	// memory grows with.
	PeakOpenConnections   int
	PeakBufferedExchanges int
}

const maxProblems = 100

// Dissector turns captures into Kafka exchanges. It is not safe for
// concurrent use. Stream numbers continue across the captures it reads.
type Dissector struct {
	opts       Options
	ports      []uint16
	anyPort    bool
	maxFrame   int
	lim        limits
	stats      Stats
	problems   map[string]bool // in Stats.Problems already
	nextStream int
}

// New returns a Dissector.
func New(opts Options) *Dissector {
	d := &Dissector{opts: opts, maxFrame: opts.MaxFrameSize, anyPort: opts.AnyPort, lim: opts.limits(), problems: map[string]bool{}}
	for _, p := range opts.Ports {
		if p == 0 {
			d.anyPort = true
		} else if !slices.Contains(d.ports, p) {
			d.ports = append(d.ports, p)
		}
	}
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
	s.LateConnections = slices.Clone(s.LateConnections)
	return s
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
// and calls emit once per exchange, in capture order, while it reads: see
// Session for when each exchange comes out. Memory does not grow with the
// capture's length.
//
// The error is nil at the end of a sound capture. It wraps ErrNotCapture
// when the input is empty or not a capture, and ErrCaptureDamaged (as a
// *DamageError) when the file is damaged part way; every exchange before
// the damage has been emitted by then.
func (d *Dissector) ReadCapture(r io.Reader, emit func(*Exchange)) error {
	err := d.ReadCaptures([]Capture{{Reader: r}}, ReadOptions{}, emit)
	if ce := (*CaptureError)(nil); errors.As(err, &ce) {
		return ce.Err // the caller names its one capture
	}
	return err
}

// Session dissects packets handed to it one at a time: a capture file read
// by ReadCapture, or a live capture. Packets are numbered from 0 in the
// order they are handed over. A Session belongs to its Dissector, whose
// Stats it updates; use one at a time.
//
// # Order
//
// Exchanges are emitted in capture order: by Exchange.Order (the packet
// that carried the request's first byte, or the response's when no request
// was captured), then by stream, then by position in the stream. This
// holds absolutely: an exchange is emitted only when no exchange with a
// smaller key can still appear.
//
// # When an exchange is emitted
//
// An exchange is emitted, from inside Packet, Advance or Close, as soon as
// (1) it is complete: its response was matched, or it will get none (a
// Produce with Acks=0 at once; a request whose connection answered a later
// request, closed, went idle, or hit a limit), and (2) every exchange with
// a smaller key has been emitted, and no byte that could still start such
// an exchange's first frame remains unframed. Such bytes are a framer's
// partial frame, bytes reassembly holds behind a hole, responses waiting
// for their request (after a hole), and connections whose Kafka detection
// is pending (AnyPort); and (3) a complete exchange no longer waits for a
// retransmitted copy of its last frame, which it would note if it
// differed (see retransmit.go): the receiver acknowledged the frame, or
// the next packet of the frame's direction came, or 500 ms
// (ReorderWindow, if shorter) of capture time passed.
//
// So after its own completion an exchange waits at most for: the
// exchanges captured before it to complete (a request's response time;
// when a connection goes silent, Options.IdleTimeout); a hole before it in
// any connection to be filled or given up (Options.ReorderWindow, checked
// every quarter window: 1.25 × ReorderWindow); a frame in transit when it
// was captured to be received whole; a frame found by scanning after a
// hole to be confirmed by the frame after it (ReorderWindow); a pending
// Kafka detection (AnyPort: ReorderWindow); a retransmitted copy of its
// last frame (500 ms at most). In a sound capture, that is the response
// time of the requests captured before it: an exchange comes out at the
// client's acknowledgment of its response (or the broker's next packet on
// the connection), or as soon as every earlier one did. The capture time
// that counts is the newest seen so far (timestamps going backwards do not
// move it back; one far in the future makes the time-based bounds wait
// until then, and the limits below still hold); Advance moves it without a
// packet.
//
// # Memory
//
// What a Session holds is bounded by the rate of traffic times these
// delays, and by the limits in Options: open connections, requests
// waiting per connection, exchanges held for ordering
// (MaxBufferedBytes), reassembly pages, frame size, the backlog of
// connections not yet known to be Kafka, and the IP fragments waiting for
// the rest of their datagram (at most 30 s, 1024 datagrams, 4 MiB). Closed and idle connections are
// freed. None of it grows with the capture's length.
type Session struct {
	// tlsKeys are Options.TLSKeys and the secrets the capture embeds.
	tlsKeys tlsdecrypt.KeySource
	d       *Dissector
	dec     *linkDecoder
	cur     tcpPacket
	n       int64     // packets so far
	src     uint16    // the packet being dissected: its capture (pktRef.src)
	num     uint32    // and its number there (pktRef.num)
	clock   time.Time // newest capture time so far
	brokers brokerSet
	anyPort bool

	flows  map[flowKey]*conn // open connections by 4-tuple
	last   *conn             // the connection of the previous packet
	loc    refLocator        // where the segment being framed came from
	queued int               // bytes of out-of-order segments, all connections
	arena  []byte            // where they are copied (Session.keep)
	acked  []ackedHole       // holes the receiver acknowledged, in clock order
	holds  []heldDir         // holds for retransmitted copies begun, in clock order

	ord      orderer
	comments struct {
		pending []string   // the comments of the packet being dissected (ReadCaptures)
		log     commentLog // comments.go
	}
	lows  lowHeap            // connections and detections that may still produce exchanges
	dirty []*conn            // connections to look at after the current packet
	conns map[*conn]struct{} // open connections
	open  int
	table connTable // the open connections by evidence, for eviction

	frags   *defragger     // IP datagrams being reassembled; nil before the first fragment
	unknown *unknownTable  // nil: none tracked
	promote []*unknownConn // recognised, to replay

	closed   map[flowKey]closedConn // recently closed connections
	closedQ  []closedEntry          // their expiry order: FIN/RST-closed
	dormantQ []closedEntry          // idle-flushed

	nextFlush time.Time
	closing   NoResponseReason // why reassembly closes connections now
	ending    bool             // Close is running
	done      bool
}

// NewSession starts dissecting a new packet sequence (a new capture);
// emit receives every exchange, in capture order (see Session).
func (d *Dissector) NewSession(emit func(*Exchange)) *Session {
	s := &Session{
		d: d, dec: newLinkDecoder(),
		brokers: brokerSet{ports: d.ports},
		anyPort: d.anyPort,
		conns:   make(map[*conn]struct{}),
		flows:   make(map[flowKey]*conn),
		closed:  make(map[flowKey]closedConn),
		tlsKeys: d.opts.TLSKeys,
	}
	s.ord = orderer{emit: func(ex *Exchange) {
		d.stats.Exchanges++
		s.comments.log.attach(ex)
		if emit != nil {
			emit(ex)
		}
	}, maxBytes: d.lim.bufferedBytes}
	if d.anyPort || d.lim.backlogPackets > 0 {
		lim := d.lim
		lim.backlogPackets = max(lim.backlogPackets, 0)
		s.unknown = &unknownTable{lim: lim, m: make(map[flowKey]*unknownConn)}
	}
	return s
}

// Packet dissects one packet of the given link type, and emits the
// exchanges it makes ready. data is not kept.
func (s *Session) Packet(link layers.LinkType, data []byte, ci gopacket.CaptureInfo) {
	s.packet(link, data, ci, 0, uint32(s.n))
}

// packet is Packet of the packet numbered num in capture src.
func (s *Session) packet(link layers.LinkType, data []byte, ci gopacket.CaptureInfo, src uint16, num uint32) {
	if s.done {
		return
	}
	s.src, s.num = src, num
	st := &s.d.stats
	st.Packets++
	if st.Packets == 1 {
		st.First = ci.Timestamp
	}
	idx := s.n
	s.n++
	if ci.Timestamp.After(s.clock) {
		s.clock = ci.Timestamp
	}
	kind := s.dec.decode(link, data, &s.cur)
	if kind == kindFragment {
		// A datagram this fragment completes is dissected in its place.
		kind, link, data = s.fragment(data)
	}
	switch kind {
	case kindTCP:
		st.TCPPackets++
		if s.comments.pending != nil {
			s.noteComments(idx)
		}
		if s.brokers.has(s.cur.Src) || s.brokers.has(s.cur.Dst) {
			s.assemble(ci.Timestamp, idx, s.clock)
		} else {
			s.unknownPacket(link, data, ci.Timestamp, idx)
		}
	case kindNotTCP:
		st.Skipped++
		st.NotTCP++
	case kindFragment:
		st.Skipped++
		st.Fragments++
	case kindUnsupported:
		st.Skipped++
		st.UnsupportedLink++
	default:
		st.Skipped++
		st.Malformed++
	}
	s.maintain()
}

// assemble hands the decoded packet (s.cur) to reassembly.
func (s *Session) assemble(ts time.Time, idx int64, clock time.Time) {
	st := &s.d.stats
	st.KafkaPackets++
	p := &s.cur
	if p.Missing > 0 {
		st.SnapTruncated++
	}
	c := s.last
	if c == nil || !c.is(p.Src, p.Dst) {
		key := flowKeyOf(p.Src, p.Dst)
		if c = s.flows[key]; c == nil {
			if c = s.newConn(key); c == nil {
				return
			}
		}
		s.last = c
	}
	dir := toClient
	if p.Src == c.client {
		dir = toBroker
	}
	tcp := p.TCP
	c.segment(dir, tcp, p.Missing, pktRef{index: idx, time: ts.UnixNano(), seq: tcp.Seq, ack: tcp.Ack, num: s.num, src: s.src, tcp: true, ackOK: tcp.ACK})
	if c = s.last; c != nil && !c.done {
		// s.last, not c: a SYN may have replaced c (Session.reused).
		s.table.saw(c, p.Src == c.client, tcp)
	}
}

// Advance moves the session's capture time to t, if later, without a
// packet: a live capture calls it while no packet comes, so that holes are
// given up, idle connections flushed, and the exchanges waiting for them
// emitted.
func (s *Session) Advance(t time.Time) {
	if s.done {
		return
	}
	if t.After(s.clock) {
		s.clock = t
	}
	s.maintain()
}

// Buffered returns how many exchanges the session holds for ordering.
func (s *Session) Buffered() int { return len(s.ord.h) }

// Close ends the packet sequence: every connection still open is flushed
// (partial frames become truncated frames, requests without a response get
// a note), and every exchange left is emitted. The Session is done.
func (s *Session) Close() {
	if s.done {
		return
	}
	s.ending = true
	s.closing = CaptureEnded
	s.endFragments()
	for {
		for c := range s.conns {
			c.flushAll()
			c.complete()
		}
		if len(s.promote) == 0 {
			break
		}
		// The last responses named brokers with unknown connections.
		s.replayPromoted()
	}
	s.closing = ResponseSeen
	s.refresh()
	s.ord.release(noLow)
	s.updatePeaks()
	s.done = true
	s.unknown = nil
	s.closed = nil
}

// maintain runs after each packet: the periodic flush, replays of
// connections just recognised, and the emission of what is ready.
func (s *Session) maintain() {
	if !s.clock.Before(s.nextFlush) && !s.clock.IsZero() {
		s.flush()
	}
	s.giveUpAcked()
	s.expireHolds()
	for len(s.promote) > 0 || len(s.dirty) > 0 {
		s.replayPromoted()
		s.refresh()
	}
	s.ord.release(s.lowWater())
	s.updatePeaks()
}

// flush gives up holes older than the reorder window and closes the
// connections idle for longer than the idle timeout.
func (s *Session) flush() {
	lim := &s.d.lim
	older := s.clock.Add(-lim.window)
	idle := s.clock.Add(-lim.idle)
	s.closing = ConnectionIdle
	for c := range s.conns {
		// Holes before bytes that waited since before older are given up.
		toB, toC := c.flushHalf(toBroker, older), c.flushHalf(toClient, older)
		if c.seen.Before(idle) {
			c.releaseHeld()
			for d := range c.tcp {
				if len(c.tcp[d].queue) == 0 {
					c.endHalf(frameDir(d), false)
				}
			}
		}
		if c.done {
			continue
		}
		if toB || toC || len(c.early) > 0 {
			c.touch() // and responses waiting for their request may have waited long enough
		}
		for _, f := range c.fr {
			if f != nil && f.waiting() && f.last.time <= older.UnixNano() {
				f.acceptWaiting() // no follower came in time to judge it
				c.touch()
			}
		}
	}
	s.closing = ResponseSeen
	s.expireFragments()
	s.expireUnknown()
	s.expireClosed()
	s.nextFlush = s.clock.Add(max(lim.window/4, time.Millisecond))
}

func (s *Session) replayPromoted() {
	for len(s.promote) > 0 {
		u := s.promote[0]
		s.promote = s.promote[1:]
		s.replay(u)
	}
	s.promote = nil
}

// refresh looks at the connections touched since the last time: responses
// waiting for their request may be decidable, and low-water marks moved.
func (s *Session) refresh() {
	for len(s.dirty) > 0 {
		c := s.dirty[len(s.dirty)-1]
		s.dirty = s.dirty[:len(s.dirty)-1]
		c.dirty = false
		if c.done {
			continue
		}
		c.settleEarly()
		s.lows.set(&c.blocker, c.computeLow())
	}
}

// lowWater is the smallest packet index that may still begin an exchange:
// exchanges with a smaller order can be emitted.
func (s *Session) lowWater() int64 {
	return min(s.n, s.lows.min())
}

func (s *Session) updatePeaks() {
	st := &s.d.stats
	st.PeakBufferedExchanges = max(st.PeakBufferedExchanges, s.ord.peak)
}

// lost records bytes dropped with no exchange to note them on.
func (s *Session) lost(problem string, n int64) {
	s.d.stats.LostBytes += n
	s.problem(problem)
}

// problem records a problem for Stats, once.
func (s *Session) problem(p string) {
	d := s.d
	if len(d.stats.Problems) < maxProblems && !d.problems[p] {
		d.problems[p] = true
		d.stats.Problems = append(d.stats.Problems, p)
	}
}

// ackedHole is a hole the receiver acknowledged at the given capture time.
type ackedHole struct {
	c   *conn
	dir frameDir
	at  time.Time
}

// giveUpAcked gives up the holes acknowledged at least ackedHoleGrace ago:
// the receiver had their bytes, so they will not be sent again.
func (s *Session) giveUpAcked() {
	k := 0
	for ; k < len(s.acked) && s.clock.Sub(s.acked[k].at) >= ackedHoleGrace; k++ {
		e := s.acked[k]
		h := &e.c.tcp[e.dir]
		if e.c.done || h.closed || !h.ackedAt.Equal(e.at) || len(h.queue) == 0 {
			continue // filled, given up or closed since
		}
		h.ackedAt = time.Time{}
		e.c.giveUpHole(e.dir)
	}
	if k > 0 {
		clear(s.acked[:k])
		s.acked = s.acked[k:]
		if len(s.acked) == 0 {
			s.acked = nil
		}
	}
}
