package dissect

import "fmt"

// Retransmissions that differ. Reassembly keeps the first copy of every
// stream byte (see reassembly.go). A retransmitted segment whose bytes
// differ from that copy means corruption, a middlebox rewriting the
// stream, or a broken capture: the frame is noted. Only bytes still held
// are compared, so that a clean capture costs nothing more: those of the
// frame the framer is collecting (the usual case: a retransmission comes
// within a round trip, while a large frame is still arriving), and those
// of out-of-order segments waiting. A retransmission of bytes of a frame
// already handed over is not compared.

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

// compareHeld compares b, retransmitted bytes at stream offset off, with
// the bytes of the frame being collected that the framer holds, and
// returns how many differ and how many were compared. The size prefix
// and bytes after a hole (zeros written in its place) are not compared.
func (f *framer) compareHeld(off int64, b []byte) (differ, compared int) {
	if f.state != stateBody || len(f.holes) > 0 || len(b) == 0 {
		return 0, 0
	}
	from := f.startPos + 4 // the stream offset of buf[0]
	lo, hi := max(off, from), min(off+int64(len(b)), from+int64(len(f.buf)))
	if lo >= hi {
		return 0, 0
	}
	held := f.buf[lo-from : hi-from]
	return countDiff(held, b[lo-off:hi-off]), int(hi - lo)
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
	differ, compared := fr.compareHeld(fr.pos-back, payload)
	c.differingCopy(dir, differ, compared)
}

// differingCopy counts a retransmitted copy of direction dir whose
// differ of compared bytes differ, on the frame being collected.
func (c *conn) differingCopy(dir frameDir, differ, compared int) {
	if differ == 0 {
		return
	}
	st := &c.s.d.stats
	st.RetransmittedDiffering++
	st.RetransmittedDifferingBytes += int64(differ)
	c.fr[dir].rtx.add(differ, compared)
}
