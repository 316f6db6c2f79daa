package codec

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Frames with holes.
//
// A capture can lose bytes of a frame whose position and length it still
// knows: packets dropped in the middle of a frame, a snap length that keeps
// only the first bytes of each packet, a frame cut at the end of a file.
// Those bytes are a hole of known size, not damage (see "Captured length is
// not reported length" in the style guide): a gapped Reader steps over the
// fields that fall in one, marks them not captured, and goes on where the
// structure says the next field starts. Only a lost length, count or varint
// (which locates what follows) ends decoding early.

// Gap is a byte range [Start, End) of a frame whose bytes the capture does
// not hold. Offsets count from the start of the buffer the Reader reads (a
// frame without its size prefix).
type Gap struct{ Start, End int }

// NotCaptured is one field (or the rest of a structure) whose bytes fell in
// a gap.
type NotCaptured struct {
	// Path is the field's path as DecodeError.Path spells it:
	// "Responses[0].Partitions[2].Records". A records field with holes is
	// listed once per hole with the hole's range (its records are decoded
	// around them: see Records.Gaps); an unknown tagged field is
	// "<struct>.(unknown tag)".
	Path       string
	Start, End int // byte range in the Reader's buffer
	// Stop says the structure was lost here: every field after it in the
	// message is unknown (End is the frame's size).
	Stop bool
}

// NotCapturedValue is the value a Tracer's End reports for a field whose
// bytes fell in a gap: a view labels it "(not captured)".
type NotCapturedValue struct{}

// errSkip is held in Reader.err from the moment a field that falls in a
// gap has been stepped over until the generated decoder takes note of it
// (Reader.skipped), so that the decoders' existing error check is the only
// test a field costs. Err never returns it: a caller that reads primitives
// by hand sees the first field not captured as the place decoding stopped.
var errSkip = errors.New("codec: field not captured (internal)")

// gapped is the state of a gapped Reader.
type gapped struct {
	b    []byte // the captured bytes: the frame's first len(b)
	size int    // the frame's size
	gaps []Gap  // sorted, disjoint, non-empty, within [0, size); cover [len(b), size)
	tail int    // start of the gap that reaches size, size when none
	gi   int    // hint: gaps[gi] is the first gap ending after the offset last looked up
	nc   []NotCaptured
	stop bool // decoding stopped at a gap: the last entry of nc
	tr   gapTracer
}

// NewGappedReader returns a Reader over a frame of size bytes of which b
// holds the first len(b) <= size; gaps (sorted, non-overlapping, within
// [0,size)) say which bytes were not captured; their bytes in b are zero
// and meaningless; [len(b), size) must be covered by gaps. With no gaps
// and len(b)==size it behaves exactly like NewReader. (Gaps that break
// those rules are clipped, sorted and merged, and [len(b), size) is added:
// a caller's mistake costs bytes taken as not captured, never a panic.)
//
// Reading goes on past the fields whose bytes fall in a gap:
//   - a fixed-width field (int8 ... int64, uint16, uint32, float64, bool,
//     UUID) and the content of a string or bytes field whose length was
//     read are stepped over: the generated decoders mark the field not
//     captured (WriteJSON omits it, Summarize ignores it);
//   - a records field whose length was read takes its bytes, holes and
//     all, with Records.Gaps saying where the holes are, so that record
//     decoding works around them;
//   - a length, count, varint, tag count or tag size, or nullable-struct
//     marker in a gap stops decoding with ErrNotCaptured: what follows
//     cannot be located. So does a field in the gap that reaches the end
//     of the frame: nothing after it can be captured.
//
// Lengths are checked against the frame's size, not against len(b):
// reading past size is ErrTruncated or ErrInvalidLength, as in a Reader
// over a whole frame. NotCaptured lists what was not captured, in wire
// order.
//
// A gapped Reader reports to its Tracer (SetTracer) every field as a
// Reader over a whole frame does; a field not captured is begun and ended
// with a NotCapturedValue. After a stop, as after an error, the fields
// begun last stay open.
func NewGappedReader(b []byte, size int, gaps []Gap) *Reader {
	if len(b) > size {
		b = b[:size]
	}
	gs := normalizeGaps(gaps, len(b), size)
	if len(gs) == 0 {
		return NewReader(b)
	}
	g := &gapped{b: b, size: size, gaps: gs, tail: size}
	if last := gs[len(gs)-1]; last.End == size {
		g.tail = last.Start
	}
	r := &Reader{g: g, hidden: size}
	r.tr = &g.tr
	r.refresh()
	return r
}

// normalizeGaps returns gaps clipped to [0, size), without empty ones,
// sorted and merged, with [captured, size) added.
func normalizeGaps(gaps []Gap, captured, size int) []Gap {
	out := make([]Gap, 0, len(gaps)+1)
	for _, g := range gaps {
		g.Start, g.End = max(g.Start, 0), min(g.End, size)
		if g.Start < g.End {
			out = append(out, g)
		}
	}
	if captured < size {
		out = append(out, Gap{captured, size})
	}
	slices.SortFunc(out, func(a, b Gap) int { return a.Start - b.Start })
	merged := out[:0]
	for _, g := range out {
		if n := len(merged); n > 0 && g.Start <= merged[n-1].End {
			merged[n-1].End = max(merged[n-1].End, g.End)
			continue
		}
		merged = append(merged, g)
	}
	return merged
}

// NotCaptured returns the fields (and the rest of a structure after a stop)
// that fell in a gap, in wire order; nil for a Reader that is not gapped or
// met no gap.
func (r *Reader) NotCaptured() []NotCaptured {
	if r.g == nil {
		return nil
	}
	r.Err() // settles a pending skip and the path of a stop
	return r.g.nc
}

// notCapturedSince returns the entries listed since the reader held from
// of them, settled: for the message that was decoded meanwhile.
func (r *Reader) notCapturedSince(from int) []NotCaptured {
	g := r.g
	r.Err()
	if len(g.nc) == from {
		return nil
	}
	return slices.Clone(g.nc[from:])
}

// ncCount returns how many entries are listed (for notCapturedSince).
func (r *Reader) ncCount() int { return len(r.g.nc) }

// needSlow is need's path for n bytes that are not all in buf: beyond the
// frame (truncated), or in a gapped Reader past the end of the captured
// run buf holds, which may continue after it (buf is refreshed) or meet a
// gap. A field that meets a gap is stepped over (errSkip), or, when locates
// says it locates what follows or the gap is the one at the frame's end,
// decoding stops there.
func (r *Reader) needSlow(n int, locates bool) bool {
	if r.g == nil || n > r.Remaining() {
		r.err = &DecodeError{Offset: r.off, Err: fmt.Errorf("%w: need %d bytes, %d remain", ErrTruncated, n, r.Remaining())}
		return false
	}
	if r.refresh(); n <= len(r.buf)-r.off {
		return true
	}
	if locates || r.off+n > r.g.tail {
		r.stopAt(r.off)
		return false
	}
	r.skip(r.off, r.off+n)
	return false
}

// moreSlow is for a varint byte at off, past buf: it reports whether the
// byte is captured, else fails (truncated, or not captured: the varint
// starting at start stops decoding).
func (r *Reader) moreSlow(start int) bool {
	if r.g == nil || r.Remaining() <= 0 {
		r.Fail(fmt.Errorf("%w: varint", ErrTruncated))
		return false
	}
	if r.refresh(); r.off < len(r.buf) {
		return true
	}
	r.stopAt(start)
	return false
}

// refresh makes buf end where the bytes captured from off on end: at the
// next gap, the frame's end or the end of a limit (a tagged field), and
// hidden count the bytes after it up to that end.
func (r *Reader) refresh() {
	g := r.g
	end := len(r.buf) + r.hidden
	for g.gi > 0 && g.gaps[g.gi-1].End > r.off {
		g.gi--
	}
	for g.gi < len(g.gaps) && g.gaps[g.gi].End <= r.off {
		g.gi++
	}
	run := end
	if g.gi < len(g.gaps) {
		run = min(run, max(g.gaps[g.gi].Start, r.off))
	}
	run = min(run, len(g.b))
	r.buf, r.hidden = g.b[:run:run], end-run
}

// skip steps over the field [start, end) that meets a gap.
func (r *Reader) skip(start, end int) {
	g := r.g
	g.nc = append(g.nc, NotCaptured{Path: g.tr.path(), Start: start, End: end})
	r.off = end
	r.err = errSkip
}

// stopAt stops decoding at start, where what locates the rest is lost.
func (r *Reader) stopAt(start int) {
	g := r.g
	g.nc = append(g.nc, NotCaptured{Path: g.tr.path(), Start: start, End: g.size, Stop: true})
	g.stop = true
	r.off = start
	r.err = &DecodeError{Offset: start, Err: ErrNotCaptured}
}

// skipped reports whether the error held is a field stepped over, and then
// clears it and ends the field for the Tracer. Generated decoders call it
// when r.err is set after a field.
func (r *Reader) skipped() bool {
	if r.err != errSkip {
		return false
	}
	r.err = nil
	if r.tr != nil {
		r.tr.End(r.off, NotCapturedValue{})
	}
	return true
}

// unskip turns a field stepped over that no decoder took note of into a
// stop there: the caller read it by hand and is not gap-aware.
func (r *Reader) unskip() {
	g := r.g
	last := &g.nc[len(g.nc)-1]
	last.Stop, last.End = true, g.size
	g.stop = true
	r.off = last.Start
	r.err = &DecodeError{Offset: last.Start, Err: ErrNotCaptured}
}

// records reads a records field: its length, then its bytes even where
// the capture lost some (Records.Gaps says where).
func (r *Reader) records(rec *Records, compact, nullable bool) {
	var n int
	var null bool
	if compact {
		n, null = r.length(int64(r.Uvarint())-1, "compact bytes")
	} else {
		n, null = r.length(int64(r.int32Len()), "bytes")
	}
	rec.Gaps = nil
	switch {
	case null:
		rec.Raw = nil
		if !nullable {
			r.Warn("null bytes in a non-nullable field, read as empty")
			rec.Raw = []byte{}
		}
	case r.err != nil:
		rec.Raw = nil
	case n <= len(r.buf)-r.off:
		rec.Raw = r.buf[r.off : r.off+n : r.off+n]
		r.off += n
	default:
		r.recordsSlow(rec, n)
	}
}

// recordsSlow takes the n bytes (within the frame) of a records field that
// meets a gap: the captured bytes of b, and the gaps, relative to the
// field. Raw is as long as the field, but where the field runs into the
// bytes after len(b) (all in a gap): there it ends early, and Records.Len
// gives the field's length.
func (r *Reader) recordsSlow(rec *Records, n int) {
	g := r.g
	start, end := r.off, r.off+n
	path := g.tr.path()
	for _, gp := range g.gaps[g.firstGapEndingAfter(start):] {
		if gp.Start >= end {
			break
		}
		s, e := max(gp.Start, start), min(gp.End, end)
		rec.Gaps = append(rec.Gaps, Gap{s - start, e - start})
		g.nc = append(g.nc, NotCaptured{Path: path, Start: s, End: e})
	}
	rec.Raw = []byte{}
	if c := min(end, len(g.b)); start < c {
		rec.Raw = g.b[start:c:c]
	}
	r.off = end
}

// firstGapEndingAfter returns the index of the first gap ending after off.
func (g *gapped) firstGapEndingAfter(off int) int {
	i, _ := slices.BinarySearchFunc(g.gaps, off, func(gp Gap, off int) int {
		if gp.End <= off {
			return -1
		}
		return 1
	})
	return i
}

// gapTracer is the Tracer of a gapped Reader: it keeps the path of the
// field being read, for the NotCaptured entries, and passes every call on
// to the caller's Tracer.
type gapTracer struct {
	user  Tracer
	stack []traceName
}

// traceName is a field name, or an array index when name is "".
type traceName struct {
	name string
	i    int
}

func (t *gapTracer) Begin(name string, off int) {
	t.stack = append(t.stack, traceName{name: name})
	if t.user != nil {
		t.user.Begin(name, off)
	}
}

func (t *gapTracer) BeginIndex(i, off int) {
	t.stack = append(t.stack, traceName{i: i})
	if t.user != nil {
		t.user.BeginIndex(i, off)
	}
}

func (t *gapTracer) End(off int, value any) {
	if len(t.stack) > 0 {
		t.stack = t.stack[:len(t.stack)-1]
	}
	if t.user != nil {
		t.user.End(off, value)
	}
}

// path is the path of the field being read, spelt as DecodeError.Path:
// names in parentheses (a tagged-field section, a length) are left out,
// but for the innermost.
func (t *gapTracer) path() string {
	var b strings.Builder
	for k, e := range t.stack {
		switch {
		case e.name == "":
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(e.i))
			b.WriteByte(']')
		case strings.HasPrefix(e.name, "(") && k < len(t.stack)-1:
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(e.name)
		}
	}
	return b.String()
}

// writeNotCapturedJSON writes the "not_captured" member of a message
// object: [{"path", "start", "end", "stop": true (on a stop only)}], the
// offsets plus w.OffsetBase.
func writeNotCapturedJSON(w *JSONWriter, nc []NotCaptured) {
	if len(nc) == 0 {
		return
	}
	w.Key("not_captured")
	w.BeginArray()
	for _, e := range nc {
		w.BeginObject()
		w.Key("path")
		w.Text(e.Path)
		w.Key("start")
		w.Int(int64(e.Start + w.OffsetBase))
		w.Key("end")
		w.Int(int64(e.End + w.OffsetBase))
		if e.Stop {
			w.Key("stop")
			w.Bool(true)
		}
		w.EndObject()
	}
	w.EndArray()
}

// readTopGapped is the top-level ReadFrom of a message over a gapped
// Reader: it decodes with read and returns what the message lost (nil
// when nothing). A body read after the Reader already stopped (in the
// header) is all lost: one stop entry with an empty path says so.
func (r *Reader) readTopGapped(read func()) *[]NotCaptured {
	if r.err != nil {
		if r.Err(); r.g.stop {
			n := len(r.path)
			read() // marks every field not captured
			r.path = r.path[:n]
			last := r.g.nc[len(r.g.nc)-1]
			return &[]NotCaptured{{Start: last.Start, End: r.g.size, Stop: true}}
		}
		read()
		return nil
	}
	from := r.ncCount()
	read()
	nc := r.notCapturedSince(from)
	if nc == nil {
		return nil
	}
	return &nc
}
