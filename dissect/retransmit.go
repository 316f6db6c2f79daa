package dissect

import (
	"encoding/binary"
	"fmt"
	"slices"
	"time"
)

// Retransmissions that differ. Reassembly keeps the first copy of every
// stream byte (see reassembly.go). A retransmitted segment whose bytes
// differ from that copy means corruption, a middlebox rewriting the
// stream, or a broken capture: the frame's exchange is noted. Only bytes
// still held are compared, so that a clean capture costs nothing more and
// copies nothing: those of the frame the framer is collecting (a
// retransmission comes within a round trip, often while a large frame is
// still arriving), those of out-of-order segments waiting, and those of
// the last recentFrames frames of each direction handed over whole, as
// long as their exchange is not emitted: the window is those frames, held
// by their exchanges anyway. A copy of bytes of a frame whose exchange was
// emitted, or older than the window, is not compared: it counts as a
// retransmission only.
//
// A complete exchange would be emitted at the packet that ends its last
// frame (a response, usually: as soon as it pairs), before a copy of that
// packet could be compared. So a frame handed over whole holds its
// exchange (conn.hold) until the receiver is seen to acknowledge the
// frame (it has the bytes: they are not sent again), or the next packet
// of the frame's direction came (the copy, when the sender retransmits
// at once), or holdWait of capture time passed (a sender retransmits
// after its retransmission timeout, 200 ms at the least on Linux; the
// next packet of an idle connection may not come for long). A packet of
// the receiver that does not acknowledge the frame does not end the
// hold: the frame did not reach it, and a copy is likely. The hold is a
// low-water mark of the connection (conn.computeLow), so it delays
// emission without changing its order; a connection holds one per
// direction at most.

// holdWait is how long, in capture time, a frame handed over whole holds
// its exchange for a retransmitted copy when no packet of its direction
// comes (at most Options.ReorderWindow).
const holdWait = 500 * time.Millisecond

// frameHold is what a direction of a connection holds back for a
// retransmitted copy: the exchanges of its frames handed over whole in
// its latest packet.
type frameHold struct {
	on    bool
	order int64     // the smallest order key of those exchanges
	end   int64     // stream offset just past the last of their frames
	since time.Time // session clock when the hold began
}

// heldDir is a direction of a connection whose hold began at the given
// session clock (Session.holds).
type heldDir struct {
	c     *conn
	dir   frameDir
	since time.Time
}

// recentFrames is how many frames handed over per direction a
// retransmitted copy is compared with.
const recentFrames = 4

// recentFrame is a frame of a direction handed over whole, with the
// exchange it belongs to, until that exchange is emitted (Session
// clears it then: emitted frames may go back to Options.FramePool).
type recentFrame struct {
	f   *Frame
	sl  *slot // nil: the entry is empty
	pos int64 // stream offset of the frame's size prefix
	rtx rtxDiff
	// note is the index in sl.ex.Notes of the note of differing copies
	// (-1: none yet).
	note int
}

// rtxDiff counts what the retransmissions of a frame's bytes said.
type rtxDiff struct {
	copies   int // retransmitted copies with differing bytes
	differ   int // bytes that differ
	compared int // bytes compared in those copies
}

func (r *rtxDiff) add(differ, compared int) {
	if differ > 0 {
		r.copies++
		r.differ += differ
		r.compared += compared
	}
}

// note says what was found, for the frame's exchange.
func (r *rtxDiff) note() string {
	s := fmt.Sprintf("a retransmitted TCP segment differs from the first copy: %d of %d overlapping bytes", r.differ, r.compared)
	if r.copies > 1 {
		s = fmt.Sprintf("%d retransmitted TCP segments differ from the first copy: %d of %d overlapping bytes", r.copies, r.differ, r.compared)
	}
	return s + "; the first copy is used (corruption, a middlebox rewriting the stream, or a broken capture)"
}

// countDiff returns how many bytes of a and b differ, over the shorter.
func countDiff(a, b []byte) int {
	n := 0
	b = b[:min(len(a), len(b))]
	for i := range b {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

// overlapDiff compares b, retransmitted bytes at stream offset off, with
// held, the bytes at stream offset at, where they overlap, and returns
// how many differ and how many were compared.
func overlapDiff(at int64, held []byte, off int64, b []byte) (differ, compared int) {
	lo, hi := max(off, at), min(off+int64(len(b)), at+int64(len(held)))
	if lo >= hi {
		return 0, 0
	}
	return countDiff(held[lo-at:hi-at], b[lo-off:hi-off]), int(hi - lo)
}

// compareHeld compares b, retransmitted bytes at stream offset off, with
// the bytes of the frame being collected that the framer holds, and
// returns how many differ and how many were compared. The size prefix
// and bytes after a hole (zeros written in its place) are not compared.
func (f *framer) compareHeld(off int64, b []byte) (differ, compared int) {
	if f.state != stateBody || len(f.holes) > 0 || len(b) == 0 {
		return 0, 0
	}
	return overlapDiff(f.startPos+4, f.buf, off, b) // buf[0] is at startPos+4
}

// compare compares b, retransmitted bytes at stream offset off, with the
// frame's, its size prefix included; differing bytes are noted on its
// exchange. It returns how many differ.
func (r *recentFrame) compare(off int64, b []byte) int {
	if r.sl == nil {
		return 0
	}
	var pre [4]byte
	binary.BigEndian.PutUint32(pre[:], uint32(r.f.Size))
	d1, n1 := overlapDiff(r.pos, pre[:], off, b)
	d2, n2 := overlapDiff(r.pos+4, r.f.Bytes, off, b)
	if d1+d2 == 0 {
		return 0
	}
	r.rtx.add(d1+d2, n1+n2)
	ex := r.sl.ex
	if r.note < 0 {
		r.note = len(ex.Notes)
		ex.AddNote(NoteRetransmission, r.rtx.note())
	} else {
		ex.Notes[r.note] = NewNote(NoteRetransmission, r.rtx.note())
	}
	return d1 + d2
}

// keepRecent keeps frame r of direction dir, handed over whole, for
// comparison with retransmitted copies while its exchange (sl) is not
// emitted. Frames with holes (zeros in their place), cut short, or
// decrypted from TLS are not kept.
func (c *conn) keepRecent(dir frameDir, r framed, sl *slot) {
	if c.tls != nil || !r.f.Captured() || r.f.Oversized {
		return
	}
	e := &c.recent[dir][c.nextRecent[dir]]
	c.nextRecent[dir] = (c.nextRecent[dir] + 1) % recentFrames
	if e.sl != nil && e.sl.recent[dir] == e {
		e.sl.recent[dir] = nil
	}
	*e = recentFrame{f: r.f, sl: sl, pos: r.pos, rtx: r.rtx, note: -1}
	if r.rtx.copies > 0 {
		// The framer noted the copies that came while it collected
		// the frame: later ones add to that note.
		e.note = slices.Index(sl.ex.Notes, NewNote(NoteRetransmission, r.rtx.note()))
	}
	sl.recent[dir] = e
	c.holdFor(dir, sl, r.pos+4+int64(r.f.Size))
}

// holdFor holds the exchange of sl, whose frame of direction dir, ending
// at stream offset end, was handed over whole (see frameHold), when it is
// complete (an exchange still waiting is held anyway) and the receiver
// did not acknowledge the frame yet (a response framed before its
// request, paired later).
func (c *conn) holdFor(dir frameDir, sl *slot, end int64) {
	if !sl.done || c.acks(dir, c.tcp[dir].acked, end) {
		return
	}
	h := &c.hold[dir]
	if h.on {
		h.order, h.end = min(h.order, sl.key.order), max(h.end, end)
		return
	}
	s := c.s
	*h = frameHold{on: true, order: sl.key.order, end: end, since: s.clock}
	s.holds = append(s.holds, heldDir{c, dir, s.clock})
	c.touch()
}

// holdAcked ends the hold of direction dir when ack, the receiver's
// acknowledgment, covers its frames: the receiver has them, the sender
// will not send them again.
func (c *conn) holdAcked(dir frameDir, ack uint32) {
	if h := &c.hold[dir]; h.on && c.acks(dir, ack, h.end) {
		h.on = false
		c.touch()
	}
}

// acks reports whether ack, an acknowledgment of direction dir's bytes,
// covers them up to stream offset end.
func (c *conn) acks(dir frameDir, ack uint32, end int64) bool {
	h := &c.tcp[dir]
	return h.ackOK && h.pos+int64(seqDiff(h.next, ack)) >= end
}

// holdLow is the smallest order key the connection's holds keep from
// being emitted (noLow: none).
func (c *conn) holdLow() int64 {
	low := int64(noLow)
	for _, h := range c.hold {
		if h.on {
			low = min(low, h.order)
		}
	}
	return low
}

// expireHolds ends the holds that began holdWait (or the reorder window,
// if shorter) of capture time ago.
func (s *Session) expireHolds() {
	wait := min(holdWait, s.d.lim.window)
	k := 0
	for ; k < len(s.holds) && s.clock.Sub(s.holds[k].since) >= wait; k++ {
		e := s.holds[k]
		if h := &e.c.hold[e.dir]; h.on && h.since.Equal(e.since) {
			h.on = false // not ended by a packet since
			e.c.touch()
		}
	}
	if k > 0 {
		clear(s.holds[:k])
		s.holds = s.holds[k:]
		if len(s.holds) == 0 {
			s.holds = nil
		}
	}
}

// forgetRecent empties the entries that hold the frames of a slot being
// emitted.
func (s *slot) forgetRecent() {
	for d, e := range s.recent {
		if e != nil && e.sl == s {
			*e = recentFrame{}
		}
		s.recent[d] = nil
	}
}

// retransmitted compares the bytes of a retransmitted segment of
// direction dir at sequence number seq that lie before the next byte
// expected (h.next) with the bytes still held.
func (c *conn) retransmitted(dir frameDir, seq uint32, payload []byte) {
	h := &c.tcp[dir]
	fr := c.fr[dir]
	if fr == nil || c.tls != nil {
		return // TLS: the framer holds plaintext, not the segment's bytes
	}
	back := -int64(seqDiff(h.next, seq)) // bytes before next the segment starts
	if back <= 0 {
		return
	}
	payload = payload[:min(int64(len(payload)), back)]
	off := fr.pos - back
	differ, compared := fr.compareHeld(off, payload)
	fr.rtx.add(differ, compared)
	for k := range c.recent[dir] {
		differ += c.recent[dir][k].compare(off, payload)
	}
	c.countDiffering(differ)
}

// differingCopy counts a retransmitted copy of direction dir whose
// differ of compared bytes differ, on the frame being collected.
func (c *conn) differingCopy(dir frameDir, differ, compared int) {
	c.fr[dir].rtx.add(differ, compared)
	c.countDiffering(differ)
}

// countDiffering counts a retransmitted copy in which differ bytes differ
// from the first copy (none: nothing to count).
func (c *conn) countDiffering(differ int) {
	if differ == 0 {
		return
	}
	st := &c.s.d.stats
	st.RetransmittedDiffering++
	st.RetransmittedDifferingBytes += int64(differ)
}
