package dissect

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"time"
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

// pktRef identifies the packet that carried a byte of a stream.
type pktRef struct {
	index int64     // 0-based packet number in the capture
	time  time.Time // its capture time
}

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
	// waiting for its response; used to recognise a response boundary
	// when resynchronising.
	pendingRequest(correlationID int32) bool
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
	// maxRejects bounds the tentative frames given up in a row: each costs
	// a rescan of its bytes, so without a bound a hostile stream could make
	// the work quadratic.
	maxRejects = 8
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
	// its end is seen: if what follows it is not a plausible frame start
	// either, it was not a frame, and its bytes are scanned again from the
	// byte after its start.
	tentative   bool
	marks       []mark // which packets the bytes of the tentative frame came from
	rejects     int    // tentative frames given up since the last sure frame
	tentSkipped int64  // bytes skipped before the tentative frame began

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

func newFramer(dir frameDir, maxSize int, valid func(int16, int16) bool, sink frameSink, midStream bool) *framer {
	f := &framer{dir: dir, max: maxSize, valid: valid, sink: sink}
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
				f.marks = appendMarks(f.marks, loc, len(f.buf), i, i+n)
			}
			if len(f.buf)+n > cap(f.buf) {
				// Grow by what has arrived, at most bodyChunk ahead.
				grown := make([]byte, len(f.buf), min(int(f.size), max(2*cap(f.buf), len(f.buf)+n, bodyChunk)))
				copy(grown, f.buf)
				f.buf = grown
			}
			f.buf = append(f.buf, data[i:i+n]...)
			i += n
			f.last = loc.at(i - 1)
			if len(f.buf) == int(f.size) {
				if f.tentative && !f.followerOK(data[i:]) {
					b, l, base := f.reject()
					f.run(b, l, base)
					continue
				}
				if !f.tentative {
					f.rejects = 0
				}
				f.tentative, f.marks = false, nil
				f.emit(f.last, nil)
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
	default:
		f.state = stateBody
		f.buf = make([]byte, 0, min(int(size), bodyChunk))
	}
}

func (f *framer) minSize() int {
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

// emit hands the collected frame to the sink and waits for the next one.
func (f *framer) emit(end pktRef, notes []string) {
	fr := &Frame{Bytes: f.buf, Size: f.size, Time: f.start.time, EndTime: end.time, Packet: f.start.index,
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
		b, l, base := f.reject()
		f.run(b, l, base)
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
	f.rejects = 0
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
// what has arrived) starts a frame. lenient judges a response by its size
// alone: at the start of a connection picked up mid-stream the response may
// answer a request that was never captured.
func (f *framer) judge(b []byte, lenient bool) verdict {
	return f.judgeSize(b, lenient, f.max)
}

// judgeSize is judge with maxSize as the largest plausible size.
func (f *framer) judgeSize(b []byte, lenient bool, maxSize int) verdict {
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
		if lenient || f.sink.pendingRequest(int32(binary.BigEndian.Uint32(b[4:8]))) {
			return plausible
		}
		return implausible
	}
	if len(b) < 12 {
		return needMore
	}
	key, ver := int16(binary.BigEndian.Uint16(b[4:6])), int16(binary.BigEndian.Uint16(b[6:8]))
	if ver < 0 || ver > 50 {
		return implausible
	}
	if f.valid != nil {
		if !f.valid(key, ver) {
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
	if len(b) < 14 {
		return needMore
	}
	// ClientId: a nullable int16-length string that must fit in the frame.
	if n := int16(binary.BigEndian.Uint16(b[12:14])); n < -1 || int(n)+reqHeaderMin+2 > int(size) {
		return implausible
	}
	return plausible
}

// resync scans data[i:], after the carried window, for a plausible frame
// start. It returns how far into data it got.
func (f *framer) resync(data []byte, i int, loc locator, base int64) int {
	total := f.nwin + len(data) - i
	var tmp [resyncWindow]byte
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
		switch f.judge(b, lenient) {
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
			// shows it was one; after a few wrong guesses we stop doubting
			// (and bound the rescanning).
			// A mid-stream start on a boundary that passes the strict test
			// is sure enough.
			sure := lenient && (f.dir == toBroker || f.sink.pendingRequest(int32(binary.BigEndian.Uint32(b[4:8]))))
			f.tentative = !sure && f.rejects < maxRejects
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
// segment) or before something frame-like is evidence it was one.
func (f *framer) followerOK(b []byte) bool {
	if len(b) == 0 {
		return true
	}
	// A frame above the size limit is still frame-like: it is skipped by
	// its length, not a sign that we are lost.
	return f.judgeSize(b[:min(len(b), resyncWindow)], true, 1<<31-1) != implausible
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
	return !(apiKey == 7 && apiVersion == 0)
}
