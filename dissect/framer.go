package dissect

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
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
	seq, ack   uint32
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

// frameSink receives what a framer produces.
type frameSink interface {
	// frame takes a complete or truncated frame, the problems to note on
	// its exchange, and the stream offset of its size prefix (an ordering
	// key within the direction).
	frame(dir frameDir, f *Frame, notes []string, pos int64)
	// pendingRequest reports whether a request with this CorrelationId is
	// waiting for a response that the packet at can carry (the broker had
	// received the request by then); used to recognise a response
	// boundary when resynchronising.
	pendingRequest(correlationID int32, at pktRef) bool
	// nextRequest reports whether a request with this CorrelationId can
	// follow the requests framed so far (clients number them upward);
	// used to recognise a request boundary when resynchronising.
	nextRequest(correlationID int32) bool
	// bodyFits reports whether a whole frame (without its size prefix)
	// decodes exactly as what its header says it is, or cannot be judged;
	// used to confirm a frame start found by scanning.
	bodyFits(dir frameDir, frame []byte) bool
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
// (copied: reassembly reuses its buffers). After a gap, an implausible size,
// or when the connection was picked up mid-stream, it scans for the first
// offset where a plausible frame starts and notes what it skipped on the
// next frame it finds.
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
	skipLeft int64 // stateSkip: bytes of the frame still to skip
	keepDone bool  // stateSkip: a gap ended the kept prefix

	// A frame start found by scanning (after a gap, an implausible size, or
	// at the start of a connection picked up mid-stream) is tentative until
	// the frame is whole and confirmed (see evidence.go): its body decodes
	// as its header says, and what follows it is a plausible frame start
	// (waiting for those bytes when the frame ends with a chunk). If not,
	// it was not a frame, and its bytes are scanned again from the byte
	// after its start.
	tentative   bool
	tentLenient bool   // it was found leniently: at the first byte of a stream picked up mid-stream
	marks       []mark // which packets the bytes of the tentative frame came from
	marksLow    int64  // the smallest packet index in marks, when it is not empty
	rejects     int    // tentative frames given up since the last sure frame
	rejected    int64  // and their bytes, rescanned
	tentSkipped int64  // bytes skipped before the tentative frame began

	// raw says frames need no Kafka header and may be empty (size 0): the
	// SASL tokens that follow a SaslHandshake v0 (KIP-43). The matcher
	// switches it.
	raw bool

	// Resynchronisation.
	win     [resyncWindow]byte // undecided bytes carried between chunks
	winRef  [resyncWindow]pktRef
	nwin    int
	fresh   bool  // mid-stream start, nothing judged yet: offset 0 is judged leniently
	skipped int64 // bytes passed over since resynchronisation began
	why     *resyncCause
}

// resyncCause records why the framer lost the frame boundary, to note on
// the frame where it finds it again.
type resyncCause struct {
	midStream   bool
	missing     int64 // bytes the capture lost; -1: an unknown amount
	gaps        int
	dropped     int   // bytes of a partial frame dropped at the gap
	invalidSize int64 // the implausible size read in sync, if that was the cause
	invalid     bool
}

func newFramer(dir frameDir, maxSize int, valid func(int16, int16) bool, sink frameSink, midStream bool, pool *FramePool) *framer {
	f := &framer{dir: dir, max: maxSize, valid: valid, sink: sink, pool: pool}
	if midStream {
		f.state = stateResync
		f.fresh = true
		f.why = &resyncCause{midStream: true}
	}
	return f
}

// feed frames the next bytes of the stream; loc.at(i) is the packet that
// carried data[i].
func (f *framer) feed(data []byte, loc locator) {
	base := f.pos
	f.pos += int64(len(data))
	f.run(data, loc, base)
}

// run frames data, whose first byte is at stream offset base.
func (f *framer) run(data []byte, loc locator, base int64) {
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
			n := min(int(f.size)-len(f.buf), len(data)-i)
			if f.tentative {
				had := len(f.marks)
				f.marks = appendMarks(f.marks, loc, len(f.buf), i, i+n)
				if had == 0 {
					f.marksLow = noLow
				}
				// Kept as marks grow: lowMark runs on every packet, and a
				// tentative frame may span tens of thousands of them.
				for _, m := range f.marks[had:] {
					f.marksLow = min(f.marksLow, m.ref.index)
				}
			}
			if len(f.buf)+n > cap(f.buf) {
				// Grow by what has arrived, at most bodyChunk ahead.
				grown := f.pool.get(min(int(f.size), max(2*cap(f.buf), len(f.buf)+n, bodyChunk)))[:len(f.buf)]
				copy(grown, f.buf)
				f.pool.put(f.buf) // only the framer ever saw it
				f.buf = grown
			}
			if n > 0 {
				f.buf = append(f.buf, data[i:i+n]...)
				i += n
				f.last = loc.at(i - 1)
			}
			if len(f.buf) == int(f.size) {
				if f.tentative && n > 0 && !f.sink.bodyFits(f.dir, f.buf) {
					// Just whole, and not what its header says it is.
					b, l, base := f.reject()
					f.run(b, l, base)
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
					b, l, base := f.reject()
					f.run(b, l, base)
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
				f.emit(f.last, []string{f.oversizedNote()})
			}
		case stateResync:
			i = f.resync(data, i, loc, base)
		}
	}
}

// begin starts a frame once its size prefix is complete.
func (f *framer) begin() {
	size := int32(binary.BigEndian.Uint32(f.pre[:]))
	f.size = size
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
// Options.ReorderWindow; a gap or the end of the stream right after it
// confirms it. A frame found at the first byte of a stream picked up
// mid-stream and ending with a segment is taken at once: both its ends
// fall on segment boundaries, as frames written one at a time do.
func (f *framer) awaitsFollower() bool {
	return f.tentative && !f.tentLenient
}

// waiting reports whether a whole frame waits for the bytes after it.
func (f *framer) waiting() bool {
	return f.state == stateBody && f.awaitsFollower() && len(f.buf) == int(f.size)
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
	f.tentative, f.marks = false, nil
	f.emit(f.last, nil)
}

// emit hands the collected frame to the sink and waits for the next one.
func (f *framer) emit(end pktRef, notes []string) {
	fr := &Frame{Bytes: f.buf, Size: f.size, Time: captureTime(f.start.time), EndTime: captureTime(end.time), Packet: f.start.index,
		Oversized: f.state == stateSkip}
	f.buf = nil
	f.state = stateHeader
	if f.why != nil {
		// This is the first frame since the boundary was found again; a
		// stream picked up exactly on a boundary has nothing to note.
		if !(f.why.midStream && f.why.gaps == 0 && !f.why.invalid && f.skipped == 0) {
			notes = append([]string{f.resyncNote()}, notes...)
		}
		f.why = nil
	}
	f.sink.frame(f.dir, fr, notes, f.startPos)
}

// gap tells the framer that n bytes (-1: an unknown number) are missing
// from the stream before the next bytes fed.
func (f *framer) gap(n int64) {
	if f.state == stateBody && f.tentative {
		if len(f.buf) == int(f.size) {
			f.accept() // whole, and ending where the stream breaks off
		} else {
			b, l, base := f.reject()
			f.run(b, l, base)
		}
	}
	f.fresh = false
	if n > 0 {
		f.pos += n
	}
	switch f.state {
	case stateSkip:
		if n >= 0 && n < f.skipLeft {
			// The hole lies inside a frame we skip anyway; what we keep of
			// it must stay contiguous, so keeping ends here.
			f.skipLeft -= n
			f.keepDone = true
			return
		}
		f.emitPartial(n, f.oversizedNote())
		f.enterResync(&resyncCause{missing: n})
	case stateBody:
		if len(f.buf) >= f.minSize() {
			// Keep what we have: its header still tells the exchange.
			f.emitPartial(n, "")
			f.enterResync(&resyncCause{missing: n})
		} else {
			f.enterResync(&resyncCause{missing: n, dropped: 4 + len(f.buf)})
			f.buf = nil
		}
	case stateHeader:
		f.enterResync(&resyncCause{missing: n, dropped: f.npre})
		f.npre = 0
	case stateResync:
		if f.why == nil {
			f.why = &resyncCause{}
		}
		switch {
		case n < 0 || f.why.missing < 0:
			f.why.missing = -1
		default:
			f.why.missing += n
		}
		f.why.gaps++
		// Bytes before the hole can no longer start a frame that continues
		// after it.
		f.skipped += int64(f.nwin)
		f.nwin = 0
	}
}

// emitPartial hands over a frame cut by a gap as a truncated frame.
func (f *framer) emitPartial(missing int64, extra string) {
	var notes []string
	if extra != "" {
		notes = append(notes, extra)
	}
	got := int64(len(f.buf))
	if f.state == stateSkip {
		got = int64(f.size) - f.skipLeft
	}
	notes = append(notes, fmt.Sprintf("truncated frame: got %d of %d bytes before a gap of %s in the capture", got, f.size, missingString(missing)))
	f.emit(f.last, notes)
}

func missingString(n int64) string {
	if n < 0 {
		return "an unknown number of bytes"
	}
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
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
// what happened before it.
func (f *framer) resyncNote() string {
	w := f.why
	var s string
	switch {
	case w.gaps > 0:
		s = fmt.Sprintf("gap in the capture: %s of the %s stream missing", missingString(w.missing), f.dir)
		if w.gaps > 1 {
			s += fmt.Sprintf(" in %d holes", w.gaps)
		}
		if w.dropped > 0 {
			s += fmt.Sprintf("; a partial frame of %d bytes before it was dropped", w.dropped)
		}
	case w.invalid:
		s = fmt.Sprintf("implausible frame size %d in the %s stream", w.invalidSize, f.dir)
	case w.midStream:
		s = fmt.Sprintf("connection picked up mid-stream: %d bytes of the %s stream before the first frame boundary skipped", f.skipped, f.dir)
		return s
	default:
		s = fmt.Sprintf("lost the frame boundary in the %s stream", f.dir)
	}
	return fmt.Sprintf("%s; resynchronised on this frame after skipping %d bytes", s, f.skipped)
}

// verdict is what a frame-start candidate looks like.
type verdict uint8

const (
	implausible verdict = iota
	plausible
	needMore
)

// judge decides whether b (at most resyncWindow bytes, fewer at the end of
// what has arrived) starts a frame; at returns the packet of its first
// byte. lenient judges a response by its size alone: at the start of a
// connection picked up mid-stream the response may answer a request that
// was never captured.
func (f *framer) judge(b []byte, at func() pktRef, lenient bool) verdict {
	return f.judgeWith(b, at, lenient, f.max)
}

// judgeWith is judge with maxSize as the largest plausible size; at may be
// nil when lenient.
func (f *framer) judgeWith(b []byte, at func() pktRef, lenient bool, maxSize int) verdict {
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
		if lenient || f.sink.pendingRequest(int32(binary.BigEndian.Uint32(b[4:8])), at()) {
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
// start. It returns how far into data it got.
func (f *framer) resync(data []byte, i int, loc locator, base int64) int {
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
		verdict := f.judge(b, at, lenient)
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
				f.run(wb[v:nw], windowLocator(wr[v:nw]), winBase+int64(v))
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
// offset off on (until the next mark).
type mark struct {
	off int
	ref pktRef
}

// appendMarks appends to marks, for data[from:to] kept at buffer offset
// off, one mark per packet those bytes came from. A packet's bytes are
// contiguous in the stream, so two offsets carried by the same packet
// enclose only bytes of it: bisection finds every change of packet with
// O(packets × log bytes) lookups.
func appendMarks(marks []mark, loc locator, off, from, to int) []mark {
	if from >= to {
		return marks
	}
	first := loc.at(from)
	marks = append(marks, mark{off, first})
	var split func(lo, hi int, rlo, rhi pktRef)
	split = func(lo, hi int, rlo, rhi pktRef) {
		if rlo.index == rhi.index {
			return
		}
		if hi-lo == 1 {
			marks = append(marks, mark{off + hi - from, rhi})
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

// markLocator locates bytes of a rejected tentative frame.
type markLocator []mark

func (m markLocator) at(off int) pktRef {
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
		return f.judgeWith(b, nil, true, 1<<31-1) != implausible
	}
	return f.judge(b, func() pktRef { return loc.at(off) }, false) != implausible
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
	case !f.sink.bodyFits(f.dir, d[p+4:end]):
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

// reject gives up a tentative frame: it returns the frame's bytes after its
// first byte, to be scanned again strictly, with their locator and stream
// offset, and leaves the framer resynchronising.
func (f *framer) reject() ([]byte, locator, int64) {
	b := make([]byte, 0, 3+len(f.buf))
	b = append(b, f.pre[1:]...)
	b = append(b, f.buf...)
	marks := make(markLocator, 0, 3+len(f.marks))
	for k := 1; k < 4; k++ {
		marks = append(marks, mark{k - 1, f.preRef[k]})
	}
	for _, m := range f.marks {
		marks = append(marks, mark{m.off + 3, m.ref})
	}
	base := f.startPos + 1
	f.rejects++
	f.rejected += int64(len(f.buf))
	f.buf, f.marks, f.tentative = nil, nil, false
	f.state = stateResync
	f.fresh = false
	f.skipped = f.tentSkipped + 1 // the bytes before the frame, and its first byte
	f.nwin = 0
	return b, marks, base
}

// windowLocator locates the bytes carried in the resynchronisation window.
type windowLocator []pktRef

func (w windowLocator) at(off int) pktRef { return w[off] }

// finish ends the stream: a partial frame is handed over as truncated.
func (f *framer) finish() {
	for f.state == stateBody && f.tentative {
		if len(f.buf) == int(f.size) {
			f.accept() // whole, and ending with the stream
			break
		}
		// A tentative frame the stream ended inside is not trusted.
		b, l, base := f.reject()
		f.run(b, l, base)
	}
	switch f.state {
	case stateBody:
		f.emit(f.last, []string{fmt.Sprintf("truncated frame: got %d of %d bytes", len(f.buf), f.size)})
	case stateSkip:
		f.emit(f.last, []string{f.oversizedNote(), fmt.Sprintf("truncated frame: got %d of %d bytes", int64(f.size)-f.skipLeft, f.size)})
	case stateHeader:
		if f.npre > 0 {
			f.sink.lost(f.dir, int64(f.npre), fmt.Sprintf("stream ends inside a size prefix (%d of 4 bytes)", f.npre))
			f.npre = 0
		}
	case stateResync:
		if n := f.skipped + int64(f.nwin); n > 0 || (f.why != nil && f.why.gaps > 0) {
			why := "no frame boundary found after it"
			if f.why != nil && !(f.why.midStream && f.why.gaps == 0 && !f.why.invalid) {
				why = f.resyncNote() + "; stream ended before a frame boundary was found"
			}
			f.sink.lost(f.dir, n, why)
		}
		f.nwin, f.skipped = 0, 0
	}
	f.why = nil
	f.state = stateHeader
}

// hasClientID reports whether a request header carries a ClientId: every
// request header version from 1 on does; only ControlledShutdown v0 is sent
// with header v0.
func hasClientID(apiKey, apiVersion int16) bool {
	return !(apiKey == codec.ApiKeyControlledShutdown && apiVersion == 0)
}
