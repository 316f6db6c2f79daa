package dissect

import (
	"errors"
	"io"
	"net/netip"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/kdissect/kdissect/dissect/tlsdecrypt"
)

// Capture is one of the capture files ReadCaptures reads as one capture:
// a part of a ring buffer (tcpdump -C/-G/-W, dumpcap -b, editcap -c), the
// capture of a second capture point, standard input.
type Capture struct {
	// Name names the capture in errors and in Exchange.File.
	Name string
	// Open opens the file. With several captures ReadCaptures calls it
	// twice, closing the file in between: once at the start, to read the
	// time of its first packet, and again when the capture reaches that
	// time, to read it; so only the files whose time spans overlap are
	// open at once.
	Open func() (io.ReadCloser, error)
	// Reader, when not nil, is read instead of calling Open: a capture
	// that can be read only once, such as standard input. It is read from
	// the start, its first packet then held until its turn comes.
	Reader io.Reader
	// Pipe says the input may pause for long (tcpdump -U -w - writing into
	// a pipe, a socket): before each read from it, the packets read so far
	// are dissected and ReadOptions.Paused is called, so that exchanges
	// come out as soon as they are complete rather than when a batch of
	// packets (up to 512) is full.
	Pipe bool
}

// ReadOptions are the hooks of ReadCaptures; the zero value has none.
type ReadOptions struct {
	// Filter, if set, says whether to dissect a packet of the capture of
	// index c in the list (a capture filter): the packets it refuses are
	// not handed to the Session, nor counted in Stats. data is valid only
	// during the call.
	Filter func(c int, link layers.LinkType, data []byte) bool
	// Packet, if set, is called with every packet handed to the Session,
	// just before it: its Session number (Frame.Packet counts the same),
	// link type, bytes (valid only during the call), capture information
	// and pcapng comments. It runs on the caller's goroutine, like emit.
	// For writing the packets of chosen exchanges out again (read -w).
	Packet func(n int64, link layers.LinkType, data []byte, ci gopacket.CaptureInfo, comments []string)
	// Stop, if set, is checked before each packet is read, on the reading
	// goroutine (concurrently with emit), and after each Paused: once it
	// returns true, the captures read as if they ended there, and errors
	// met after that are not reported. Should a Pipe capture be waiting
	// for input then, ReadCaptures returns without waiting for it (the
	// reading goroutine ends when that read returns).
	Stop func() bool
	// Paused, if set, is called on the caller's goroutine when a Pipe
	// capture may be about to block: every exchange the packets read so
	// far made ready has been emitted (a caller flushes its output).
	Paused func()
	// Rediscover, when every capture is read through Open (a file that
	// can be read again), reads the captures once more before dissecting
	// them, to learn the brokers that responses name (see discover.go):
	// a connection to a broker named only after the connection began is
	// then dissected from its start, as if its port had been given,
	// rather than lost or cut (Stats.LateConnections). It costs a pass
	// of reassembly and framing, without decoding or emitting.
	Rediscover bool
}

// CaptureError is the error of one capture among those ReadCaptures read:
// it is not a capture (ErrNotCapture), it could not be opened, or it is
// damaged part way (a *DamageError; its packets before the damage were
// dissected).
type CaptureError struct {
	Name  string // Capture.Name
	Index int    // the capture's index in the list
	Err   error
}

func (e *CaptureError) Error() string { return e.Name + ": " + e.Err.Error() }

// Unwrap returns the cause, so that errors.Is finds ErrNotCapture and
// ErrCaptureDamaged.
func (e *CaptureError) Unwrap() error { return e.Err }

// ReadCaptures reads several captures as one: the parts of one capture
// split into files, or captures of the same traffic at several points,
// in whatever order the list gives them. They make one packet sequence,
// dissected by one Session, so connections continue from one file into
// the next: files are ordered by the time of their first packet, and
// their packets merged by time (equal times in that file order), which
// for the parts of a ring buffer is their concatenation. A packet seen at
// two capture points is a retransmission to reassembly, which keeps the
// first copy. Exchanges are emitted as ReadCapture emits them (see
// Session), with Exchange.File naming the capture of their request when
// there are several.
//
// Memory does not grow with the number of captures: only the files whose
// time spans overlap are open at once (one for a ring buffer), each
// holding one packet ahead. Reading runs on a goroutine of its own.
//
// The error is nil when every capture was read to its end; otherwise it
// joins (errors.Join) a *CaptureError per capture that failed, in the
// order they failed. The others are read whole either way.
func (d *Dissector) ReadCaptures(caps []Capture, opts ReadOptions, emit func(*Exchange)) error {
	var spans *captureSpans
	if len(caps) > 1<<16 {
		spans = newCaptureSpans(len(caps))
	}
	if len(caps) > 1 && emit != nil {
		inner := emit
		emit = func(ex *Exchange) {
			for _, f := range [2]*Frame{ex.Response, ex.Request} {
				if f == nil {
					continue
				}
				i := int(f.capture)
				if spans != nil {
					i = spans.index(f.capture, f.Packet)
				}
				f.File = caps[i].Name
				if f.lastCapture != f.capture || spans != nil && f.LastPacket != f.Packet {
					j := int(f.lastCapture)
					if spans != nil {
						j = spans.index(f.lastCapture, f.LastPacket)
					}
					if j != i {
						f.LastFile = caps[j].Name
					}
				}
				ex.File = f.File // the request's, when there is one
			}
			inner(ex)
		}
	}
	var known []netip.AddrPort
	// With AnyPort every connection is recognised by its first bytes, so
	// none waits for its broker to be named: no pass to learn them.
	if opts.Rediscover && !d.opts.AnyPort && rereadable(caps) {
		known = d.discoverBrokers(caps, opts)
	}
	s := d.NewSession(emit)
	for _, ap := range known {
		if s.brokers.add(ap) {
			d.stats.LearnedBrokers++ // as the pass that learned it counted
		}
	}
	errs, patched := d.readInto(s, caps, opts, spans)
	d.stats.PatchedRecords += patched
	return errors.Join(errs...)
}

// readInto reads caps into s, then closes it, and returns the captures'
// errors and the records patched (see mergeSource.result).
func (d *Dissector) readInto(s *Session, caps []Capture, opts ReadOptions, spans *captureSpans) ([]error, int64) {
	// The TLS secrets the files embed (pcapng Decryption Secrets
	// Blocks), in one key log whichever file holds them.
	m := &mergeSource{caps: caps, stop: opts.Stop, secrets: tlsdecrypt.NewKeyLog()}
	s.addTLSKeys(m.secrets)
	quit := make(chan struct{})
	full, free := readAhead(m, quit)
	for b := range full {
		start := 0
		for _, p := range b.pkts {
			data := b.data[start:p.end:p.end]
			start = p.end
			if opts.Filter != nil && !opts.Filter(int(p.src), p.link, data) {
				continue
			}
			if spans != nil {
				spans.add(int(p.src), s.n)
			}
			if opts.Packet != nil {
				opts.Packet(s.n, p.link, data, p.ci, p.comments)
			}
			s.comments.pending = p.comments // nil but for a commented pcapng packet
			s.packet(p.link, data, p.ci, uint16(p.src), p.num)
			s.comments.pending = nil
		}
		if b.pause {
			if opts.Paused != nil {
				opts.Paused()
			}
			if opts.Stop != nil && opts.Stop() {
				close(quit) // the reader may wait on its pipe for long: leave it
				break
			}
		}
		if b.err != nil {
			break // the reading goroutine has ended
		}
		free <- b
	}
	s.Close()
	return m.result()
}

// captureSpans finds the capture of a packet when there are more than
// 2^16 of them (pktRef.src holds the index modulo 2^16): by the span of
// Session packet numbers each capture covered. Captures of the same
// residue cannot overlap in time (that would need 2^16 files open at
// once), so one of them holds the packet.
type captureSpans struct{ first, last []int64 }

func newCaptureSpans(n int) *captureSpans {
	c := &captureSpans{first: make([]int64, n), last: make([]int64, n)}
	for i := range c.first {
		c.first[i] = -1
	}
	return c
}

// add says capture i carried Session packet n.
func (c *captureSpans) add(i int, n int64) {
	if c.first[i] < 0 {
		c.first[i] = n
	}
	c.last[i] = n
}

// index returns the capture, of index src modulo 2^16, that carried
// Session packet n.
func (c *captureSpans) index(src uint16, n int64) int {
	for i := int(src); i < len(c.first); i += 1 << 16 {
		if c.first[i] >= 0 && c.first[i] <= n && n <= c.last[i] {
			return i
		}
	}
	return int(src)
}
