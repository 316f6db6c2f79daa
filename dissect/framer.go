package dissect

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kdissect/kdissect/codec"
)

// frameDir is the direction frames flow in on a connection.
type frameDir uint8

const (
	toBroker frameDir = iota // client → broker: requests
	toClient                 // broker → client: responses
)

func (d frameDir) String() string {
	if d == toBroker {
		return "client→broker"
	}
	return "broker→client"
}

// pktRef identifies the packet that carried a byte of a stream. A framer
// keeps a few dozen (a size prefix's, the resynchronisation window's), so
// it is kept small.
type pktRef struct {
	index int64 // 0-based packet number in the capture
	time  int64 // its capture time, Unix nanoseconds (see captureTime)
	// TCP facts, for pairing a response with a request by what the
	// broker had acknowledged (conn.pairable): the packet's sequence
	// number and acknowledgment number, valid when tcp and ackOK.
	seq, ack uint32
	// Where it came from: its 0-based number in its own capture (modulo
	// 2^32), and that capture's index in ReadCaptures' list (modulo 2^16;
	// see captureIndex).
	num        uint32
	src        uint16
	tcp, ackOK bool
}

// captureTime turns a pktRef time back into a time.Time, as capture
// readers make them (time.Unix).
func captureTime(ns int64) time.Time { return time.Unix(0, ns) }

// locator maps an offset in the chunk being framed to the packet that
// carried that byte.
type locator interface {
	at(off int) pktRef
}

// refLocator says every byte of a chunk came in one packet: reassembly
// hands over the bytes of one segment at a time.
type refLocator struct{ ref pktRef }

func (l *refLocator) at(int) pktRef { return l.ref }

// frameSink receives what a framer produces.
type frameSink interface {
	// frame takes a complete or truncated frame, the problems to note on
	// its exchange, and the stream offset of its size prefix (an ordering
	// key within the direction).
	frame(dir frameDir, f *Frame, notes []Note, pos int64)
	// pendingRequest reports whether a request with this CorrelationId is
	// waiting for a response that the packet at can carry (the broker had
	// received the request by then); used to recognise a response
	// boundary when resynchronising.
	pendingRequest(correlationID int32, at pktRef) bool
	// nextRequest reports whether a request with this CorrelationId can
	// follow the requests framed so far (clients number them upward);
	// used to recognise a request boundary when resynchronising.
	nextRequest(correlationID int32) bool
	// bodyFits reports whether a frame (without its size prefix) of size
	// bytes, of which b holds the first len(b) with holes not captured,
	// decodes as what its header says it is as far as it was captured, or
	// cannot be judged; used to confirm a frame start found by scanning.
	bodyFits(dir frameDir, b []byte, size int, holes []Hole) bool
	// responseNumbered reports whether a response with this
	// CorrelationId can answer a request of the connection's numbering,
	// captured or not (near the CorrelationIds of the requests framed),
	// and whether that numbering is known (a request was framed); used to
	// recognise a response at the first byte after a hole, whose request
	// may have been lost too.
	responseNumbered(correlationID int32) (ok, known bool)
	// requestsHeld reports whether bytes of the client's stream were
	// captured but wait behind a hole, not framed yet: a response's
	// request may be among them.
	requestsHeld() bool
	// sameClient reports whether a request frame (without its size
	// prefix) names the ClientId of the request framed before it on the
	// connection; false when there is none to compare. Evidence for a
	// request found by scanning that cannot be checked by what follows it.
	sameClient(b []byte) bool
	// lost reports stream bytes that were dropped without any frame to
	// carry a note about them (the stream ended before the next frame).
	lost(dir frameDir, bytes int64, why string)
}

const (
	// reqHeaderMin is ApiKey int16 + ApiVersion int16 + CorrelationId int32.
	reqHeaderMin = 8
	// respHeaderMin is CorrelationId int32.
	respHeaderMin = 4
	// resyncWindow is the most bytes a frame-start candidate needs to be
	// judged: size prefix 4 + request header 8 + ClientId length 2.
	resyncWindow = 14
	// oversizedKeep is how many leading bytes of a frame above the size
	// limit are kept (for its header), while the rest is skipped.
	oversizedKeep = 4096
	// maxRejects and rejectBudget bound the tentative frames given up in
	// a row: each costs a rescan of its bytes, so without a bound a hostile
	// stream could make the work quadratic. Past both (more than 8 frames
	// and 256 KiB rescanned), a frame start found by scanning is taken as
	// sure. The byte budget keeps doubting cheap small false frames, which
	// bodies full of small integers offer many of.
	maxRejects   = 8
	rejectBudget = 256 << 10
	// bodyChunk is the most a frame buffer is grown by before its bytes
	// arrive: a size prefix alone never makes us allocate more.
	bodyChunk = 64 << 10
)

type framerState uint8

const (
	stateHeader framerState = iota // collecting a 4-byte size prefix
	stateBody                      // collecting a frame's bytes
	stateSkip                      // skipping a frame above the size limit
	stateResync                    // looking for a plausible frame start
)

// framer cuts one direction of a TCP stream into Kafka frames: a 4-byte
// big-endian size, then that many bytes. It holds at most one partial frame
// (copied: reassembly reuses its buffers).
//
// Reassembly tells it of holes: stream bytes whose position and length are
// known but whose content the capture does not hold (hole). A hole inside
// a frame whose size prefix was read is part of the frame (Frame.Holes):
// the framer keeps its position, and the next frame starts exactly where
// the size said. Only a hole that swallows a size prefix loses the frame
// boundary. Then, as after an implausible size or when the connection was
// picked up mid-stream, it scans for the first offset where a plausible
// frame starts and notes what it skipped on the next frame it finds.
type framer struct {
	dir   frameDir
	max   int
	valid func(apiKey, apiVersion int16) bool
	sink  frameSink
	pool  *FramePool // where frame buffers come from; nil: allocated

	state framerState
	pos   int64 // stream offset of the next byte fed

	// The frame being collected.
	pre      [4]byte
	preRef   [4]pktRef
	npre     int
	start    pktRef // packet of the size prefix's first byte
	last     pktRef // packet of the latest byte collected
	startPos int64
	size     int32
	buf      []byte
	// holes are the frame's bytes not captured; the last pend bytes of
	// the frame so far are a hole not yet written into buf (zeros are
	// written only when captured bytes follow, so a frame cut short
	// costs only what was captured).
	holes    []Hole
	pend     int
	skipLeft int64 // stateSkip: bytes of the frame still to skip
	keepDone bool  // stateSkip: a hole ended the kept prefix

	// A frame start found by scanning (after a hole, an implausible size,
	// or at the start of a connection picked up mid-stream) is tentative
	// until the frame is whole and confirmed (see evidence.go): its body
	// decodes as its header says, and what follows it is a plausible frame
	// start (waiting for those bytes when the frame ends with a chunk). If
	// not, it was not a frame, and its bytes are scanned again from the
	// byte after its start.
	tentative   bool
	tentLenient bool   // it was found leniently: at the first byte of a stream picked up mid-stream
	tentAligned bool   // it was found at the first byte after a hole (see judgeAligned)
	tentChunk   bool   // it starts at the first byte of a segment
	tentChecked bool   // its bytes before its first hole were found to fit
	marks       []mark // which packets the bytes of the tentative frame came from
	marksLow    int64  // the smallest packet index in marks, when it is not empty
	rejects     int    // tentative frames given up since the last sure frame
	rejected    int64  // and their bytes, rescanned
	tentSkipped int64  // bytes skipped before the tentative frame began

	// raw says frames need no Kafka header and may be empty (size 0): the
	// SASL tokens that follow a SaslHandshake v0 (KIP-43). The matcher
	// switches it.
	raw bool
	// resynced says the frame handed over last was found by scanning.
	resynced bool
	// rtx counts the retransmitted copies of the frame's bytes that
	// differ (retransmit.go), noted on the frame.
	rtx rtxDiff

	// Resynchronisation.
	win     [resyncWindow]byte // undecided bytes carried between chunks
	winRef  [resyncWindow]pktRef
	nwin    int
	fresh   bool  // mid-stream start, nothing judged yet: offset 0 is judged leniently
	skipped int64 // bytes passed over since resynchronisation began
	why     *resyncCause
	// holeEnd is the stream offset right after the latest hole that left
	// the framer resynchronising, while holeEndOK: the bytes there are
	// judged as judgeAligned says.
	holeEnd   int64
	holeEndOK bool
	// lastResp is the CorrelationId of the last response framed, when
	// haveResp: responses come in request order.
	lastResp int32
	haveResp bool
	// midStream says the stream was picked up after its start.
	midStream bool
}

// resyncCause records why the framer lost the frame boundary, to note on
// the frame where it finds it again.
type resyncCause struct {
	midStream   bool
	missing     int64 // bytes the capture lost
	gaps        int
	causes      holeCauses
	dropped     int   // bytes of a partial size prefix dropped at the hole
	invalidSize int64 // the implausible size read in sync, if that was the cause
	invalid     bool
}

// holeCauses counts holes by cause.
type holeCauses [numHoleCauses]int

func (h *holeCauses) String() string {
	var parts []string
	for c, n := range h {
		if n > 0 {
			parts = append(parts, HoleCause(c).String())
		}
	}
	return strings.Join(parts, ", ")
}

func newFramer(dir frameDir, maxSize int, valid func(int16, int16) bool, sink frameSink, midStream bool, pool *FramePool) *framer {
	f := &framer{dir: dir, max: maxSize, valid: valid, sink: sink, pool: pool, midStream: midStream}
	if midStream {
		f.state = stateResync
		f.fresh = true
		f.why = &resyncCause{midStream: true}
	}
	return f
}

// feed frames the next bytes of the stream, the captured payload of one
// segment (or what of it is new); loc.at(i) is the packet that carried
// data[i].
func (f *framer) feed(data []byte, loc locator) {
	base := f.pos
	f.pos += int64(len(data))
	f.run(data, loc, base, true)
}

// hole tells the framer that the next n bytes of the stream (n > 0) were
// not captured, for cause.
func (f *framer) hole(n int64, cause HoleCause) {
	if n <= 0 {
		return
	}
	f.pos += n
	f.skipHole(n, cause)
	if f.state == stateResync {
		// TCP says where the hole ends: when it took whole frames, the
		// next frame starts right there.
		f.holeEnd, f.holeEndOK = f.pos, true
	}
}

// have is how many bytes of the frame being collected have passed,
// captured or not.
func (f *framer) have() int { return len(f.buf) + f.pend }

// run frames data, whose first byte is at stream offset base; chunk says
// data starts at the first byte of a segment.
func (f *framer) run(data []byte, loc locator, base int64, chunk bool) {
	for i := 0; i < len(data); {
		switch f.state {
		case stateHeader:
			if f.npre == 0 {
				f.start = loc.at(i)
				f.startPos = base + int64(i)
			}
			for f.npre < 4 && i < len(data) {
				f.pre[f.npre] = data[i]
				f.preRef[f.npre] = loc.at(i)
				f.npre++
				i++
			}
			if f.npre == 4 {
				f.npre = 0
				f.last = f.preRef[3]
				f.begin()
			}
		case stateBody:
			if f.pend > 0 {
				f.fill() // captured bytes follow a hole: it takes its place
			}
			n := min(int(f.size)-len(f.buf), len(data)-i)
			if f.tentative && chunk && i == 0 && len(f.buf) > 0 && n > 0 && f.swallows(data, loc) {
				// A segment inside the frame starts with a frame of its
				// own: the tentative frame was a pattern in a body, and
				// would swallow the frames after it.
				f.rescan(f.reject())
				continue
			}
			if f.tentative {
				had := len(f.marks)
				f.marks = appendMarks(f.marks, loc, len(f.buf), i, i+n, chunk && i == 0)
				if had == 0 {
					f.marksLow = noLow
				}
				// Kept as marks grow: lowMark runs on every packet, and a
				// tentative frame may span tens of thousands of them.
				for _, m := range f.marks[had:] {
					f.marksLow = min(f.marksLow, m.ref.index)
				}
			}
			f.reserve(n)
			if n > 0 {
				f.buf = append(f.buf, data[i:i+n]...)
				i += n
				f.last = loc.at(i - 1)
			}
			if len(f.buf) == int(f.size) {
				if f.tentative && n > 0 && !f.sink.bodyFits(f.dir, f.buf, int(f.size), f.holes) {
					// Just whole, and not what its header says it is.
					f.rescan(f.reject())
					continue
				}
				if f.awaitsFollower() && i == len(data) {
					// What follows decides, and it is not here yet: the
					// frame waits, whole, for the next bytes (at most
					// Options.ReorderWindow, see acceptWaiting).
					return
				}
				// A request found at the first byte of a stream picked up
				// mid-stream rests on its header and body: what follows it
				// may be anything (a broken client's lying size).
				firstRequest := f.tentLenient && f.dir == toBroker
				if f.tentative && !firstRequest && !f.followerOK(data[i:], loc, i) {
					f.rescan(f.reject())
					continue
				}
				f.accept()
			}
		case stateSkip:
			n := int(min(f.skipLeft, int64(len(data)-i)))
			if keep := min(oversizedKeep-len(f.buf), n); keep > 0 && !f.keepDone {
				f.buf = append(f.buf, data[i:i+keep]...)
			}
			f.skipLeft -= int64(n)
			i += n
			f.last = loc.at(i - 1)
			if f.skipLeft == 0 {
				f.emit(f.last, []Note{NewNote(NoteOversized, f.oversizedNote())})
			}
		case stateResync:
			i = f.resync(data, i, loc, base, chunk)
		}
	}
}

// reserve makes room in the frame buffer for n more bytes: it grows by
// what has arrived, at most bodyChunk ahead of it.
func (f *framer) reserve(n int) {
	if len(f.buf)+n <= cap(f.buf) {
		return
	}
	grown := f.pool.get(min(int(f.size), max(2*cap(f.buf), len(f.buf)+n, bodyChunk)))[:len(f.buf)]
	copy(grown, f.buf)
	f.pool.put(f.buf) // only the framer ever saw it
	f.buf = grown
}

// fill writes the pending hole into the frame buffer as zeros.
func (f *framer) fill() {
	f.reserve(f.pend)
	n := len(f.buf)
	f.buf = f.buf[:n+f.pend]
	clear(f.buf[n:])
	f.pend = 0
}

// addHole adds n bytes not captured at the end of the frame so far.
func (f *framer) addHole(n int, cause HoleCause) {
	off := f.have()
	if k := len(f.holes); k > 0 && f.holes[k-1].Offset+f.holes[k-1].Length == off && f.holes[k-1].Cause == cause {
		f.holes[k-1].Length += n
	} else {
		f.holes = append(f.holes, Hole{Offset: off, Length: n, Cause: cause})
	}
	f.pend += n
}

// begin starts a frame once its size prefix is complete.
func (f *framer) begin() {
	size := int32(binary.BigEndian.Uint32(f.pre[:]))
	f.size = size
	f.holes, f.pend = nil, 0
	switch {
	case int64(size) < int64(f.minSize()):
		// Lost in the stream (or a broken peer): look for the next frame,
		// starting with the prefix's last three bytes.
		f.enterResync(&resyncCause{invalid: true, invalidSize: int64(size)})
		f.skipped = 1
		copy(f.win[:], f.pre[1:])
		copy(f.winRef[:], f.preRef[1:])
		f.nwin = 3
	case int(size) > f.max:
		f.state = stateSkip
		f.skipLeft = int64(size)
		f.keepDone = false
		f.buf = make([]byte, 0, min(int(size), oversizedKeep))
	case size == 0:
		// An empty SASL token (raw mode only: minSize is 0 there).
		f.state = stateBody
		f.buf = []byte{}
		f.tentative, f.marks = false, nil
		f.emit(f.last, nil)
	default:
		f.state = stateBody
		f.tentChecked = false
		f.buf = f.pool.get(min(int(size), bodyChunk))
	}
}

// minSize is the smallest plausible frame: a request or response header,
// or nothing at all for a raw SASL token.
func (f *framer) minSize() int {
	if f.raw {
		return 0
	}
	if f.dir == toBroker {
		return reqHeaderMin
	}
	return respHeaderMin
}

func (f *framer) oversizedNote() string {
	return fmt.Sprintf("frame of %d bytes exceeds the %s limit; skipped", f.size, sizeString(f.max))
}

// sizeString writes a byte count in MiB when it is a whole number of them.
func sizeString(n int) string {
	if n > 0 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d-byte", n)
}

// awaitsFollower reports whether a tentative frame, once whole, must wait
// for the bytes after it to be judged: a frame start found by scanning
// rests on a few bytes, and bodies are full of such patterns (a response
// start is a size and a CorrelationId). It waits at most
// Options.ReorderWindow; a hole or the end of the stream right after it
// confirms it. A frame found at the first byte of a stream picked up
// mid-stream and ending with a segment is taken at once: both its ends
// fall on segment boundaries, as frames written one at a time do.
func (f *framer) awaitsFollower() bool {
	return f.tentative && !f.tentLenient
}

// waiting reports whether a whole frame waits for the bytes after it.
func (f *framer) waiting() bool {
	return f.state == stateBody && f.awaitsFollower() && f.have() == int(f.size)
}

// acceptWaiting takes the frame waiting for what follows it: nothing came
// in time to judge it (the session calls it once the frame's last byte is
// older than Options.ReorderWindow).
func (f *framer) acceptWaiting() {
	if f.waiting() {
		f.accept()
	}
}

// accept hands over the whole frame collected, tentative or not.
func (f *framer) accept() {
	if !f.tentative {
		f.rejects, f.rejected = 0, 0
	}
	f.tentative, f.tentAligned, f.marks = false, false, nil
	var notes []Note
	if len(f.holes) > 0 {
		notes = []Note{NewNote(NoteTruncated, holesNote(f.holes, int(f.size)))}
	}
	f.emit(f.last, notes)
}

// emit hands the collected frame to the sink and waits for the next one.
func (f *framer) emit(end pktRef, notes []Note) {
	fr := &Frame{Bytes: f.buf, Size: f.size, Time: captureTime(f.start.time), EndTime: captureTime(end.time), Packet: f.start.index,
		Oversized: f.state == stateSkip, Holes: f.holes, FilePacket: int64(f.start.num), capture: f.start.src,
		LastPacket: end.index, LastFilePacket: int64(end.num), lastCapture: end.src}
	if f.dir == toClient && !f.raw && fr.HeadLen() >= respHeaderMin {
		f.lastResp, f.haveResp = int32(binary.BigEndian.Uint32(f.buf)), true
	}
	f.buf, f.holes, f.pend = nil, nil, 0
	f.state = stateHeader
	f.resynced = f.why != nil
	if f.why != nil {
		// This is the first frame since the boundary was found again; a
		// stream picked up exactly on a boundary has nothing to note.
		if !(f.why.midStream && f.why.gaps == 0 && !f.why.invalid && f.skipped == 0) {
			notes = append([]Note{NewNote(f.resyncNote())}, notes...)
		}
		f.why = nil
	}
	if f.rtx.copies > 0 {
		notes = append(notes, NewNote(NoteRetransmission, f.rtx.note()))
	}
	f.sink.frame(f.dir, fr, notes, f.startPos) // the sink reads rtx too
	f.rtx = rtxDiff{}
}

// holesNote says which bytes of a frame of size bytes were not captured.
// Offsets count the 4-byte size prefix, as the hexdump does.
func holesNote(holes []Hole, size int) string {
	if len(holes) == 1 && holes[0].Offset+holes[0].Length == size {
		switch h := holes[0]; h.Cause {
		case HoleCaptureEnded, HoleConnectionEnded:
			return fmt.Sprintf("truncated frame: got %d of %d bytes (%s)", h.Offset, size, h.Cause)
		}
	}
	missing := 0
	var c holeCauses
	for _, h := range holes {
		missing += h.Length
		c[h.Cause]++
	}
	var ranges []string
	for i, h := range holes {
		if i == 3 {
			ranges = append(ranges, "...")
			break
		}
		ranges = append(ranges, fmt.Sprintf("%d-%d", 4+h.Offset, 4+h.Offset+h.Length))
	}
	where := "bytes " + strings.Join(ranges, ", ")
	if len(holes) > 1 {
		where = fmt.Sprintf("%d holes: %s", len(holes), where)
	}
	return fmt.Sprintf("%d of the frame's %d bytes not captured (%s; %s)", missing, size, c.String(), where)
}

// skipHole takes n bytes not captured (already counted in pos).
func (f *framer) skipHole(n int64, cause HoleCause) {
	f.fresh = false
	switch f.state {
	case stateBody:
		rest := int64(f.size) - int64(f.have())
		k := min(n, rest)
		if f.tentative && !f.tentChecked && len(f.holes) == 0 {
			// The first hole in a frame found by scanning: what came before
			// it must fit, or the frame was not one.
			f.tentChecked = true
			if !f.sink.bodyFits(f.dir, f.buf, int(f.size), []Hole{{Offset: len(f.buf), Length: int(f.size) - len(f.buf), Cause: cause}}) {
				f.rescan(f.reject())
				f.skipHole(n, cause)
				return
			}
		}
		if k > 0 {
			f.addHole(int(k), cause)
		}
		if k < rest {
			return // the hole lies inside the frame
		}
		// The frame ends in the hole, or right where it begins.
		if f.tentative && k > 0 && (cause == HoleConnectionEnded || cause == HoleCaptureEnded) {
			// The stream ended inside it: nothing after it can confirm
			// it, and a pattern in a body with a large size would take
			// every frame after it (peers do not stop inside a frame,
			// and a capture rarely ends right after a resynchronisation).
			f.rescan(f.reject())
			f.skipHole(n-k, cause)
			return
		}
		if f.tentative {
			// A frame whole before the hole waits for its follower: the
			// hole confirms it, as the end of a segment does.
			if whole := k == 0; !whole && !f.holeConfirms() {
				f.rescan(f.reject())
				f.skipHole(n-k, cause)
				return
			}
		}
		f.accept()
		if n > k {
			// The next frame's size prefix is in the hole.
			f.enterResync(&resyncCause{missing: n - k, causes: causeOf(cause)})
		}
	case stateSkip:
		if n < f.skipLeft {
			// The hole lies inside a frame we skip anyway; what we keep of
			// it must stay contiguous, so keeping ends here.
			f.skipLeft -= n
			f.keepDone = true
			return
		}
		n -= f.skipLeft
		f.skipLeft = 0
		f.emit(f.last, []Note{NewNote(NoteOversized, f.oversizedNote())})
		if n > 0 {
			f.enterResync(&resyncCause{missing: n, causes: causeOf(cause)})
		}
	case stateHeader:
		if f.tentative {
			// Cannot happen (a candidate is judged on its whole prefix),
			// but a tentative frame must never outlive its doubt.
			f.tentative, f.marks = false, nil
		}
		f.enterResync(&resyncCause{missing: n, causes: causeOf(cause), dropped: f.npre})
		f.npre = 0
	case stateResync:
		if f.why == nil {
			f.why = &resyncCause{}
		}
		f.why.missing += n
		f.why.gaps++
		f.why.causes[cause]++
		// Bytes before the hole can no longer start a frame that continues
		// after it.
		f.skipped += int64(f.nwin)
		f.nwin = 0
	}
}

// swallows reports whether data, a segment that continues a tentative
// frame, starts with a frame the segment itself confirms (see confirmer).
func (f *framer) swallows(data []byte, loc locator) bool {
	c := confirmer{f: f, data: data, loc: loc, at: -1}
	return c.confirmed(0)
}

func causeOf(c HoleCause) (h holeCauses) {
	h[c] = 1
	return h
}

// holeConfirms reports whether a tentative frame that ends in a hole may
// be taken: what follows it cannot be judged, so the frame must fit as
// far as it was captured and its start must be more than a pattern.
func (f *framer) holeConfirms() bool {
	if !f.sink.bodyFits(f.dir, f.buf, int(f.size), f.holes) {
		return false
	}
	switch {
	case f.dir == toClient:
		// A response start is a size and a CorrelationId waiting: bodies
		// are full of such small integers, and a hole hides where the
		// frame ends. It must start a segment (brokers write each
		// response on its own) and answer a request waiting, even if it
		// was found leniently (on its size alone).
		return f.tentChunk && len(f.buf) >= respHeaderMin && f.sink.pendingRequest(int32(binary.BigEndian.Uint32(f.buf)), f.start)
	case f.tentLenient:
		return f.tentChunk
	}
	return f.tentChunk || f.sink.sameClient(f.buf)
}

func (f *framer) enterResync(why *resyncCause) {
	if why.missing != 0 {
		why.gaps = 1
	}
	if f.why != nil && f.why.midStream {
		why.midStream = true
	}
	f.state = stateResync
	f.why = why
	f.rejects, f.rejected = 0, 0
	f.skipped = 0
	f.nwin = 0
	f.fresh = false
}

// resyncNote describes, for the frame where the boundary was found again,
// what happened before it, and returns the note's kind.
func (f *framer) resyncNote() (NoteKind, string) {
	w := f.why
	var s string
	kind := NoteResync
	switch {
	case w.gaps > 0:
		kind = NoteGap
		s = fmt.Sprintf("gap in the capture: %s of the %s stream not captured (%s)", bytesString(w.missing), f.dir, w.causes.String())
		if w.gaps > 1 {
			s += fmt.Sprintf(" in %d holes", w.gaps)
		}
		if w.dropped > 0 {
			s += fmt.Sprintf("; %d bytes of a size prefix before it were dropped", w.dropped)
		}
	case w.invalid:
		s = fmt.Sprintf("implausible frame size %d in the %s stream", w.invalidSize, f.dir)
	case w.midStream:
		s = fmt.Sprintf("connection picked up mid-stream: %d bytes of the %s stream before the first frame boundary skipped", f.skipped, f.dir)
		return NoteMidStream, s
	default:
		s = fmt.Sprintf("lost the frame boundary in the %s stream", f.dir)
	}
	return kind, fmt.Sprintf("%s; resynchronised on this frame after skipping %d bytes", s, f.skipped)
}

func bytesString(n int64) string {
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

// verdict is what a frame-start candidate looks like.
type verdict uint8

const (
	implausible verdict = iota
	plausible
	needMore
)

// judgement says how strictly a frame start is judged.
type judgement uint8

const (
	// judgeStrict: a response must answer a request waiting that the
	// broker had received (pendingRequest).
	judgeStrict judgement = iota
	// judgeAligned: at the first byte after a hole whose length TCP
	// gave, a frame starts when the hole took whole frames (a lost packet
	// holds whole responses more often than not). A response there may
	// answer a request lost too, or not framed yet: its CorrelationId
	// need only follow the last response's and be of the connection's
	// numbering (numbered). So it is too while the client's stream waits
	// behind a hole of its own (requestsHeld): the request a response
	// answers may be held there. What follows it is judged the same way,
	// so only a chain of such frames is taken.
	judgeAligned
	// judgeLenient: a response by its size alone, at the start of a
	// connection picked up mid-stream (it may answer a request never
	// captured).
	judgeLenient
)

// judge decides whether b (at most resyncWindow bytes, fewer at the end of
// what has arrived) starts a frame; at returns the packet of its first
// byte. lenient judges a response by its size alone: at the start of a
// connection picked up mid-stream the response may answer a request that
// was never captured.
func (f *framer) judge(b []byte, at func() pktRef, lenient bool) verdict {
	how := judgeStrict
	if lenient {
		how = judgeLenient
	}
	return f.judgeWith(b, at, how, f.max)
}

// judgeWith is judge with how as the strictness and maxSize as the largest
// plausible size; at may be nil unless how is judgeStrict.
func (f *framer) judgeWith(b []byte, at func() pktRef, how judgement, maxSize int) verdict {
	lenient := how == judgeLenient
	if len(b) < 4 {
		return needMore
	}
	size := int32(binary.BigEndian.Uint32(b))
	if int64(size) < int64(f.minSize()) || int(size) > maxSize {
		return implausible
	}
	if f.dir == toClient {
		if len(b) < 8 {
			return needMore
		}
		id := int32(binary.BigEndian.Uint32(b[4:8]))
		switch how {
		case judgeLenient:
			return plausible
		case judgeAligned:
			if f.numbered(id) {
				return plausible
			}
		}
		if at != nil && f.sink.pendingRequest(id, at()) {
			return plausible
		}
		return implausible
	}
	v := judgeRequestHeader(b[4:], int(size), f.valid)
	if v == plausible && !lenient && len(b) >= 12 && !f.sink.nextRequest(int32(binary.BigEndian.Uint32(b[8:12]))) {
		return implausible
	}
	return v
}

// judgeRequestHeader decides whether h, the first bytes of a frame of size
// bytes (after its size prefix), can be a request header: a plausible
// ApiKey and ApiVersion (valid, or ApiKey 0..100, and ApiVersion 0..50
// either way) and a ClientId that fits in the frame.
func judgeRequestHeader(h []byte, size int, valid func(apiKey, apiVersion int16) bool) verdict {
	if len(h) < reqHeaderMin {
		return needMore
	}
	key, ver := int16(binary.BigEndian.Uint16(h[0:2])), int16(binary.BigEndian.Uint16(h[2:4]))
	if ver < 0 || ver > 50 {
		return implausible
	}
	if valid != nil {
		if !valid(key, ver) {
			return implausible
		}
	} else if key < 0 || key > 100 {
		return implausible
	}
	if !hasClientID(key, ver) {
		return plausible
	}
	if size < reqHeaderMin+2 {
		return implausible
	}
	if len(h) < reqHeaderMin+2 {
		return needMore
	}
	// ClientId: a nullable int16-length string that must fit in the frame.
	if n := int16(binary.BigEndian.Uint16(h[8:10])); n < -1 || int(n)+reqHeaderMin+2 > size {
		return implausible
	}
	return plausible
}

// numbered reports whether a response with CorrelationId id found at the
// first byte after a hole is of the connection's numbering
// (judgeAligned): after the last response framed and near it, and near
// the requests framed, as far as either is known (the client's stream
// may wait behind a hole of its own). When neither is, on a connection
// seen from its start: near its first CorrelationId (librdkafka and
// franz-go number a connection's requests from 0 or 1; Kafka's Java
// client numbers all of a client's requests, which leaves its later
// connections to the stricter rules).
func (f *framer) numbered(id int32) bool {
	near, known := f.sink.responseNumbered(id)
	switch {
	case f.haveResp:
		d := id - f.lastResp // wraps around as the ids do
		return d > 0 && d <= numberedSlack && (near || !known)
	case known:
		return near
	}
	return !f.midStream && id >= 0 && id <= numberedSlack
}

// numberedSlack bounds how far the CorrelationId of a response found
// after a hole may be from the last response's and the last request's:
// clients keep a few requests in flight on a connection (5 by default for
// Kafka's and librdkafka's producers), and a hole that lost hundreds of
// responses leaves the next to be found by the stricter rules.
const numberedSlack = 256

// lowMark returns the smallest packet index among the bytes the framer
// holds that may still begin a frame (a partial frame, a size prefix, the
// resynchronisation window); ok is false when it holds none. A frame
// handed over later starts either there or in bytes not fed yet.
func (f *framer) lowMark() (low int64, ok bool) {
	low = noLow
	switch f.state {
	case stateHeader:
		for _, r := range f.preRef[:f.npre] {
			low = min(low, r.index)
		}
	case stateBody, stateSkip:
		low = f.start.index
		if f.tentative {
			// Given up, its bytes are scanned again: a frame may start at
			// any of them, and reordered segments may have brought later
			// bytes in earlier packets.
			for _, r := range f.preRef {
				low = min(low, r.index)
			}
			if len(f.marks) > 0 {
				low = min(low, f.marksLow)
			}
		}
	case stateResync:
		for _, r := range f.winRef[:f.nwin] {
			low = min(low, r.index)
		}
	}
	return low, low != noLow
}

// resync scans data[i:], after the carried window, for a plausible frame
// start. It returns how far into data it got. chunk says data[0] is the
// first byte of a segment.
func (f *framer) resync(data []byte, i int, loc locator, base int64, chunk bool) int {
	total := f.nwin + len(data) - i
	var tmp [resyncWindow]byte
	var conf *confirmer // made when first needed
	for v := 0; v < total; v++ {
		n := min(resyncWindow, total-v)
		var b []byte
		if v >= f.nwin {
			b = data[i+v-f.nwin : i+v-f.nwin+n]
		} else {
			// The candidate starts in the carried window.
			b = tmp[:n]
			c := copy(b, f.win[v:f.nwin])
			copy(b[c:], data[i:])
		}
		lenient := f.fresh && v == 0
		at := func() pktRef {
			if v < f.nwin {
				return f.winRef[v]
			}
			return loc.at(i + v - f.nwin)
		}
		how := judgeStrict
		switch {
		case lenient:
			how = judgeLenient
		case f.holeEndOK && base+int64(i-f.nwin+v) == f.holeEnd, f.dir == toClient && f.sink.requestsHeld():
			how = judgeAligned
		}
		verdict := f.judgeWith(b, at, how, f.max)
		if verdict == plausible && v >= f.nwin && !lenient {
			// A start whose frame ends beyond the bytes at hand cannot be
			// checked by what follows it: if a start the bytes do confirm
			// lies inside its span, that one is the frame boundary, and
			// this one a pattern inside a body (a false start with a large
			// size would swallow the frames after it).
			o := i + v - f.nwin
			if end := int64(o) + 4 + int64(binary.BigEndian.Uint32(b)); end > int64(len(data)) {
				if conf == nil {
					conf = &confirmer{f: f, data: data, loc: loc, at: -1}
				}
				if conf.within(o, int(min(end, int64(len(data))))) {
					verdict = implausible
				}
			}
		}
		switch verdict {
		case needMore:
			// Carry the undecided tail to the next chunk.
			f.skipped += int64(v)
			var win [resyncWindow]byte
			var refs [resyncWindow]pktRef
			k := 0
			for w := v; w < total; w++ {
				if w < f.nwin {
					win[k], refs[k] = f.win[w], f.winRef[w]
				} else {
					win[k], refs[k] = data[i+w-f.nwin], loc.at(i+w-f.nwin)
				}
				k++
			}
			f.win, f.winRef, f.nwin = win, refs, k
			return len(data)
		case plausible:
			f.skipped += int64(v)
			// A frame start found by scanning is tentative until its end
			// shows it was one (its body decodes, a plausible frame
			// follows); after enough wrong guesses we stop doubting (and
			// bound the rescanning). A start at the first byte of a stream
			// picked up mid-stream is no exception: segments need not
			// start on frame boundaries.
			f.tentative = f.rejects < maxRejects || f.rejected < rejectBudget
			f.tentLenient = lenient
			f.tentAligned = how == judgeAligned
			f.holeEndOK = false
			f.tentChunk = chunk && v == f.nwin && i == 0
			f.tentSkipped = f.skipped
			f.fresh = false
			f.state = stateHeader
			if v < f.nwin {
				// Frame the carried bytes first, then go on with data.
				wb := f.win
				wr := f.winRef
				nw := f.nwin
				f.nwin = 0
				winBase := base + int64(i) - int64(nw)
				f.run(wb[v:nw], windowLocator(wr[v:nw]), winBase+int64(v), false)
				return i
			}
			next := i + v - f.nwin
			f.nwin = 0
			return next
		}
		f.fresh = false
	}
	f.skipped += int64(total)
	f.nwin = 0
	return len(data)
}

// mark says which packet carried the bytes of a tentative frame from
// offset off on (until the next mark), and whether off is the first byte
// of a segment.
type mark struct {
	off   int
	ref   pktRef
	chunk bool
}

// appendMarks appends to marks, for data[from:to] kept at buffer offset
// off, one mark per packet those bytes came from. A packet's bytes are
// contiguous in the stream, so two offsets carried by the same packet
// enclose only bytes of it: bisection finds every change of packet with
// O(packets × log bytes) lookups. chunk says data[from] starts a segment.
func appendMarks(marks []mark, loc locator, off, from, to int, chunk bool) []mark {
	if from >= to {
		return marks
	}
	first := loc.at(from)
	marks = append(marks, mark{off, first, chunk})
	var split func(lo, hi int, rlo, rhi pktRef)
	split = func(lo, hi int, rlo, rhi pktRef) {
		if rlo.index == rhi.index {
			return
		}
		if hi-lo == 1 {
			marks = append(marks, mark{off + hi - from, rhi, false})
			return
		}
		mid := lo + (hi-lo)/2
		rmid := loc.at(mid)
		split(lo, mid, rlo, rmid)
		split(mid, hi, rmid, rhi)
	}
	split(from, to-1, first, loc.at(to-1))
	return marks
}

// markLocator locates bytes of a rejected tentative frame, offsets counted
// from base.
type markLocator struct {
	m    []mark
	base int
}

func (l markLocator) at(off int) pktRef {
	m := l.m
	off += l.base
	i, _ := slices.BinarySearchFunc(m, off, func(x mark, off int) int { return cmp.Compare(x.off, off+1) })
	if i == 0 {
		return m[0].ref
	}
	return m[i-1].ref
}

// followerOK reports whether b, the bytes right after a tentative frame,
// can start a frame: the frame ending where a chunk ends (usually a TCP
// segment) or before a plausible frame start is evidence it was one. The
// follower is judged as strictly as a frame start found by scanning (a
// size within the limit; for a response, a CorrelationId waiting): a
// false frame found inside a body is followed by body bytes, and taking
// them for a size prefix would swallow the stream (a size above the
// limit is skipped by its length, one below it buffered).
func (f *framer) followerOK(b []byte, loc locator, off int) bool {
	if len(b) == 0 {
		return true
	}
	if !f.corrFollows(f.buf, b) {
		return false
	}
	b = b[:min(len(b), resyncWindow)]
	if f.tentLenient {
		// After a frame found at the first byte of a stream picked up
		// mid-stream, the follower is judged as leniently (responses may
		// answer requests never captured), and a size above the limit is
		// still frame-like: it is skipped by its length.
		return f.judgeWith(b, nil, judgeLenient, 1<<31-1) != implausible
	}
	how := judgeStrict
	if f.tentAligned {
		how = judgeAligned
	}
	return f.judgeWith(b, func() pktRef { return loc.at(off) }, how, f.max) != implausible
}

// corrFollows reports whether next, the bytes after frame (without its
// size prefix), may start the next frame as far as CorrelationIds go:
// clients number the requests of a connection upward, and responses come
// in request order, so the next frame's id is higher (by a bounded step,
// or wrapped around). True when either id is not there to compare.
func (f *framer) corrFollows(frame, next []byte) bool {
	at := 0 // offset of the CorrelationId in a frame
	if f.dir == toBroker {
		at = 4
	}
	if len(frame) < at+4 || len(next) < 4+at+4 {
		return true
	}
	return corrStep(int32(binary.BigEndian.Uint32(frame[at:])), int32(binary.BigEndian.Uint32(next[4+at:])))
}

// corrStep reports whether CorrelationId next may follow last: higher by
// at most maxCorrelationStep, or wrapped around.
func corrStep(last, next int32) bool {
	d := int64(next) - int64(last)
	return d > 0 && d <= maxCorrelationStep || d < -(1<<31)+maxCorrelationStep
}

// maxCorrelationStep is how far a CorrelationId may be ahead of the one
// before it on a connection: requests lost in a gap, or a client
// numbering the requests of all its connections in one sequence.
const maxCorrelationStep = 1 << 20

// confirmer finds, in a chunk, the frame starts the chunk itself
// confirms: a plausible start whose frame ends inside the chunk, followed
// there by another plausible start or by the chunk's end. Offsets are
// judged in increasing order, each at most once per chunk, so that a scan
// using it stays linear.
type confirmer struct {
	f    *framer
	data []byte
	loc  locator
	next int // offsets below next have been judged
	at   int // the last confirmed start found; -1: none yet
}

// within reports whether a confirmed start lies strictly after from and
// before limit.
func (c *confirmer) within(from, limit int) bool {
	if c.at > from {
		return c.at < limit
	}
	for p := max(from+1, c.next); p < min(limit, len(c.data)); p++ {
		c.next = p + 1
		if c.confirmed(p) {
			c.at = p
			return true
		}
	}
	return false
}

func (c *confirmer) confirmed(p int) bool {
	f, d := c.f, c.data
	b := d[p:min(p+resyncWindow, len(d))]
	if f.judge(b, func() pktRef { return c.loc.at(p) }, false) != plausible {
		return false
	}
	end := int64(p) + 4 + int64(binary.BigEndian.Uint32(b))
	switch {
	case end > int64(len(d)):
		return false
	case !f.sink.bodyFits(f.dir, d[p+4:end], int(end)-p-4, nil):
		return false
	case end == int64(len(d)):
		return true
	}
	next := d[end:min(int(end)+resyncWindow, len(d))]
	if !f.corrFollows(b[4:], next) {
		return false
	}
	return f.judge(next, func() pktRef { return c.loc.at(int(end)) }, false) != implausible
}

// scanPiece is a run of a rejected tentative frame's bytes to scan again:
// captured bytes at stream offset base, or a hole.
type scanPiece struct {
	b     []byte
	loc   locator
	base  int64
	chunk bool
	hole  int
	cause HoleCause
}

// reject gives up a tentative frame: it returns the frame's bytes after
// its first byte, with its holes, to be scanned again strictly, and
// leaves the framer resynchronising.
func (f *framer) reject() []scanPiece {
	pre := make([]byte, 3)
	copy(pre, f.pre[1:])
	pieces := []scanPiece{{b: pre, loc: windowLocator(slices.Clone(f.preRef[1:])), base: f.startPos + 1}}
	body := f.startPos + 4
	// Captured runs between the holes, split where a segment starts, so
	// that a frame start there is known to start a segment. Marks and
	// holes are both in offset order: one pass over each.
	m := 0
	run := func(from, to int) {
		for from < to {
			for m < len(f.marks) && f.marks[m].off <= from {
				m++
			}
			chunk := m > 0 && f.marks[m-1].off == from && f.marks[m-1].chunk
			end := to
			for k := m; k < len(f.marks) && f.marks[k].off < to; k++ {
				if f.marks[k].chunk {
					end = f.marks[k].off
					break
				}
			}
			pieces = append(pieces, scanPiece{b: f.buf[from:end], loc: markLocator{m: f.marks, base: from}, base: body + int64(from), chunk: chunk})
			from = end
		}
	}
	at := 0
	for _, h := range f.holes {
		run(at, min(h.Offset, len(f.buf)))
		pieces = append(pieces, scanPiece{hole: h.Length, cause: h.Cause})
		at = h.Offset + h.Length
	}
	run(at, len(f.buf))
	f.rejects++
	f.rejected += int64(len(f.buf))
	f.buf, f.marks, f.tentative, f.tentAligned = nil, nil, false, false
	f.holes, f.pend = nil, 0
	f.state = stateResync
	f.fresh = false
	f.skipped = f.tentSkipped + 1 // the bytes before the frame, and its first byte
	f.nwin = 0
	return pieces
}

// rescan scans the pieces of a rejected frame again.
func (f *framer) rescan(pieces []scanPiece) {
	for _, p := range pieces {
		if p.hole > 0 {
			f.skipHole(int64(p.hole), p.cause)
			continue
		}
		f.run(p.b, p.loc, p.base, p.chunk)
	}
}

// windowLocator locates the bytes carried in the resynchronisation window.
type windowLocator []pktRef

func (w windowLocator) at(off int) pktRef { return w[off] }

// finish ends the stream for cause (HoleCaptureEnded, or
// HoleConnectionEnded): a partial frame is handed over with the rest of
// it a hole. It returns how many bytes of the stream after the last frame
// handed over were not captured (holes before the end with no frame
// found after them): bytes the peer sent, which were lost.
func (f *framer) finish(cause HoleCause) (lost int64) {
	for f.state == stateBody {
		if rest := int(f.size) - f.have(); rest > 0 {
			if f.tentative {
				// A candidate after a resynchronisation that the stream
				// ended inside: nothing confirmed its size, so the rest
				// it announces is no hole of the stream (a 27-byte
				// stream must not be said to miss megabytes).
				f.rescan(f.reject())
				continue
			}
			f.skipHole(int64(rest), cause)
			continue
		}
		// Whole, and waiting for what follows: nothing will.
		f.accept()
	}
	switch f.state {
	case stateSkip:
		f.emit(f.last, []Note{NewNote(NoteOversized, f.oversizedNote()), NewNote(NoteTruncated, fmt.Sprintf("truncated frame: got %d of %d bytes (%s)", int64(f.size)-f.skipLeft, f.size, cause))})
	case stateHeader:
		if f.npre > 0 {
			f.sink.lost(f.dir, int64(f.npre), fmt.Sprintf("stream ends inside a size prefix (%d of 4 bytes)", f.npre))
			f.npre = 0
		}
	case stateResync:
		if f.why != nil && f.why.gaps > 0 {
			lost = f.why.missing
		}
		if n := f.skipped + int64(f.nwin); n > 0 || (f.why != nil && f.why.gaps > 0) {
			why := "no frame boundary found after it"
			if f.why != nil && !(f.why.midStream && f.why.gaps == 0 && !f.why.invalid) {
				_, note := f.resyncNote()
				why = note + "; stream ended before a frame boundary was found"
			}
			f.sink.lost(f.dir, n, why)
		}
		f.nwin, f.skipped = 0, 0
	}
	f.why = nil
	f.state = stateHeader
	return lost
}

// hasClientID reports whether a request header carries a ClientId: every
// request header version from 1 on does; only ControlledShutdown v0 is sent
// with header v0.
func hasClientID(apiKey, apiVersion int16) bool {
	return !(apiKey == codec.ApiKeyControlledShutdown && apiVersion == 0)
}
