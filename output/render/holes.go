package render

import (
	"sort"
	"strconv"
	"strings"

	"github.com/kdissect/kdissect/dissect"
)

// How the views show what a capture lacks (see "Captured length is not
// reported length" in the style guide): a frame's holes are runs of bytes
// whose position and length are known and whose content is not. The
// views never show a value or a byte of one: a field in a hole is "not
// captured", a hexdump row over a hole says how many bytes it lacks and
// why, with no hex.

// hole is a run of a frame's bytes not captured, in offsets that count
// the 4-byte size prefix, as the hexdump's do.
type hole struct {
	start, end int
	why        string // dissect.HoleCause.String(), or why the bytes were skipped
}

// frameHoles returns the holes of f, sorted and disjoint, in offsets that
// count the size prefix: its Holes, and whatever of [len(Bytes), Size)
// they leave (bytes an oversized frame skipped, or a frame handed over
// without holes though cut short).
func frameHoles(f *dissect.Frame) []hole {
	if f == nil || f.Captured() {
		return nil
	}
	var hs []hole
	for _, h := range f.Holes {
		if h.Length > 0 {
			hs = append(hs, hole{4 + h.Offset, 4 + h.End(), h.Cause.String()})
		}
	}
	sort.Slice(hs, func(i, j int) bool { return hs[i].start < hs[j].start })
	// The bytes after the last captured one that no hole covers.
	at := 4 + len(f.Bytes)
	end := 4 + int(f.Size)
	var tail []hole
	for _, h := range hs {
		if h.end <= at {
			continue
		}
		if h.start > at {
			tail = append(tail, hole{at, min(h.start, end), restWhy(f)})
		}
		at = max(at, h.end)
	}
	if at < end {
		tail = append(tail, hole{at, end, restWhy(f)})
	}
	if len(tail) > 0 {
		hs = append(hs, tail...)
		sort.Slice(hs, func(i, j int) bool { return hs[i].start < hs[j].start })
	}
	return hs
}

// restWhy says why bytes after the last captured one, which no hole
// covers, are missing.
func restWhy(f *dissect.Frame) string {
	if f.Oversized {
		return "skipped: the frame exceeds the size limit"
	}
	return "not captured"
}

// holesIn returns the parts of holes within [start, end), clipped.
func holesIn(holes []hole, start, end int) []hole {
	i := sort.Search(len(holes), func(i int) bool { return holes[i].end > start })
	var out []hole
	for ; i < len(holes) && holes[i].start < end; i++ {
		h := holes[i]
		out = append(out, hole{max(h.start, start), min(h.end, end), h.why})
	}
	return out
}

// lostIn returns how many bytes of [start, end) are in holes.
func lostIn(holes []hole, start, end int) int {
	n := 0
	for _, h := range holesIn(holes, start, end) {
		n += h.end - h.start
	}
	return n
}

// causes says why the bytes of holes were not captured, most bytes
// first: "beyond the snap length", or "packets not captured: 1460,
// beyond the snap length: 40" (bytes of each) when there are several.
func causes(holes []hole) string {
	bytes := map[string]int{}
	var order []string
	for _, h := range holes {
		if _, ok := bytes[h.why]; !ok {
			order = append(order, h.why)
		}
		bytes[h.why] += h.end - h.start
	}
	if len(order) == 1 {
		return order[0]
	}
	sort.SliceStable(order, func(i, j int) bool { return bytes[order[i]] > bytes[order[j]] })
	parts := make([]string, len(order))
	for i, w := range order {
		parts[i] = w + ": " + strconv.Itoa(bytes[w])
	}
	return strings.Join(parts, ", ")
}

// notCapturedSummary says what of a frame was not captured: "295 bytes
// not captured (beyond the snap length)"; "" for a frame captured whole.
func notCapturedSummary(f *dissect.Frame) string {
	hs := frameHoles(f)
	if len(hs) == 0 {
		return ""
	}
	n := lostIn(hs, 0, 4+int(f.Size))
	return plural(n, "byte") + " not captured (" + causes(hs) + ")"
}

// holeText is what a hexdump row over a hole says.
func holeText(h hole) string {
	return "(not captured: " + plural(h.end-h.start, "byte") + ", " + h.why + ")"
}
