package main

import "strings"

// reviewed is a mutant read and found equivalent: it changes nothing a
// test could observe (output, notes, errors, memory bounds), only how the
// same answer is reached. A survivor that matches one is reported as
// equivalent with its reason and left out of the score, as mutation tools
// leave out the equivalent mutants they are told of. An entry matches by
// file, kind, the mutated line's text (old and new, trimmed) and the
// line above it, not by line number: it follows its line when others move and lapses when the
// line changes, so that a changed line is judged again. A mutant that is
// killed is reported killed, listed here or not.
type reviewed struct {
	op, file string
	prev     string // the line above, trimmed: the same text recurs in a file
	old, new string
	why      string
}

var equivalent = []reviewed{
	{"boundary", "dissect/framer.go", `if c.at > from {`, "return c.at < limit", "return c.at <= limit",
		"the only caller's limit is the chunk's length, which c.at never reaches"},
	{"boundary", "dissect/framer.go", `case stateBody:`, "if f.pend > 0 {", "if f.pend >= 0 {",
		"fill with nothing pending appends nothing"},
	{"boundary", "codec/tagged.go", `var f TaggedField`, "if j >= len(unknown) || (i < len(known) && known[i].Tag <= unknown[j].Tag) {", "if j >= len(unknown) || (i < len(known) && known[i].Tag < unknown[j].Tag) {",
		"a known and an unknown tag are never equal: a tag the codec knows is decoded as its field"},
	{"drop-check", "codec/decode_support.go", `r.checkCount(n, 2)`, "if r.err != nil {", "if (r.err != nil) && false {",
		"tagCount's count after an error is never read: every caller checks the error first"},
	{"drop-check", "codec/compression.go", `}`, "if err := zw.Close(); err != nil {", "if err := zw.Close(); (err != nil) && false {",
		"the writers write to a slice in memory, which cannot fail (gzip's and lz4's Close)"},
	{"drop-check", "codec/compression.go", `defer gzipReaders.Put(zr)`, "if err := zr.Reset(bytes.NewReader(src)); err != nil {", "if err := zr.Reset(bytes.NewReader(src)); (err != nil) && false {",
		"gzip.Reader keeps Reset's error and its next Read returns it: readCapped fails the same"},
	{"drop-check", "codec/compression.go", `// decoder's history buffer).`, "if err := zd.ResetWithOptions(bytes.NewReader(src), zstd.WithDecoderMaxMemory(uint64(maxWindow))); err != nil {", "if err := zd.ResetWithOptions(bytes.NewReader(src), zstd.WithDecoderMaxMemory(uint64(maxWindow))); (err != nil) && false {",
		"fails only on bad options (the window is between 1 and 2^63) or a closed decoder (the pool never closes one)"},
	{"boundary", "codec/gaps.go", `i, _ := slices.BinarySearchFunc(g.gaps, off, func(gp Gap, off int) int {`, "if gp.End <= off {", "if gp.End < off {",
		"a gap that ends where a records field's bytes start covers the last byte of its length, and a length in a gap stops the decoding before recordsSlow"},
	{"off-by-one", "dissect/matcher.go", `if n := c.byCorr[id]; n > 1 {`, "c.byCorr[id] = n - 1", "c.byCorr[id] = n",
		"byCorr only filters: match and pendingRequest confirm on the waiting requests themselves, so a count left high lets more through, never a different match"},
	{"boundary", "dissect/matcher.go", `c.expireOvertaken()`, "if c.byCorr[id] > 0 {", "if c.byCorr[id] >= 0 {",
		"byCorr only spares the scan: with no waiting request of that CorrelationId the scan of the waiting requests finds none"},
	{"boundary", "dissect/reassembly.go", `end := h.queue[last].end()`, "for !h.closed && len(h.queue) > 0 && seqDiff(h.next, end) > 0 {", "for !h.closed && len(h.queue) >= 0 && seqDiff(h.next, end) > 0 {",
		"the queue empties only once next has reached end (the segment ending there was delivered, or lay behind next), so the seqDiff condition ends the loop first"},
	{"off-by-one", "dissect/framer.go", `for p := max(from+1, c.next); p < min(limit, len(c.data)); p++ {`, "c.next = p + 1", "c.next = p",
		"the confirmer judges offset p again, and judging is a function of the bytes: the same answer"},
	{"off-by-one", "dissect/framer.go", `copy(pre, f.pre[1:])`, "pieces := []scanPiece{{b: pre, loc: windowLocator(slices.Clone(f.preRef[1:])), base: f.startPos + 1}}", "pieces := []scanPiece{{b: pre, loc: windowLocator(slices.Clone(f.preRef[1:])), base: f.startPos}}",
		"stream positions only order the frames of one packet and direction, and the shift keeps that order"},
	{"drop-check", "codec/record_batch.go", "dst, err = Compress(c, dst, raw)", "if err != nil {", "if (err != nil) && false {",
		"AppendTo panics on an invalid codec before it compresses, and Compress fails only for one (its writers write to memory)"},
	{"drop-check", "codec/compression.go", "zstd.WithDecoderMaxMemory(DefaultMaxDecompressedBytes))", "if err != nil {", "if (err != nil) && false {",
		"zstd.NewReader fails only on bad options, and these are constants"},
	{"drop-check", "codec/compression.go", "n, err := fillFrom(r, buf)", "if err != nil {", "if (err != nil) && false {",
		"the next read meets the same end or error again (io.EOF repeats, the decompressors' errors are sticky), and what was read is copied out the same: one more buffer, the same bytes"},
	{"drop-check", "codec/compression.go", "n, err := snappy.DecodedLen(block)", "if err != nil {", "if (err != nil) && false {",
		"the block then counts 0 bytes, and snappy.Decode, which reads the same length first, fails on it with the same error (the caller wraps it the same)"},
	{"drop-check", "codec/compression.go", "ze, err = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))", "if err != nil {", "if (err != nil) && false {",
		"zstd.NewWriter fails only on bad options, and this one is a constant"},
}

// equivalentOf returns the review of m, if it has one.
func equivalentOf(m mutant, lines []string) (reviewed, bool) {
	if len(m.edits) != 1 || m.edits[0].line < 2 || m.edits[0].line > len(lines) {
		return reviewed{}, false
	}
	e := m.edits[0]
	prev := strings.TrimSpace(lines[e.line-2])
	for _, r := range equivalent {
		if r.op == m.op && r.file == m.file && r.prev == prev && r.old == strings.TrimSpace(e.old) && r.new == strings.TrimSpace(e.new) {
			return r, true
		}
	}
	return reviewed{}, false
}
