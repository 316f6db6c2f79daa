package render

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// HexdumpOptions configures the hexdump view.
type HexdumpOptions struct {
	// ShowSecrets shows the bytes of credentials; by default they are
	// masked (see Hexdump).
	ShowSecrets bool
	// Records bounds the decompression of record payloads.
	Records codec.RecordDecodeOptions
	// Colors paints errors and notes; the zero value paints nothing.
	Colors Colors
}

// Hexdump writes each frame of each exchange as an annotated hexdump:
// every field with its byte range, its bytes and its value, nested as on
// the wire, like Wireshark's byte view or Data::HexDump::Range:
//
//	0x0004-0x0005  00 00                      RequestApiKey = 0 (Produce)
//
// Offsets count the 4-byte size prefix, so they are offsets into the frame
// as it crossed the wire. Every byte of the frame is under exactly one
// field (see Labels). Fields longer than 8 bytes go on over more rows, 8
// bytes each. A compressed record payload is one field; its decompressed
// bytes follow as a section of their own, whose offsets, marked "+", are
// into the decompressed data. A range of a section that is not decoded
// (the record decoding budget ran out, the bytes do not parse) shows its
// first 64 bytes and says how many more it holds: a section can be as
// large as the budget.
//
// The bytes a capture lacks (a frame's holes) are never shown: a run of
// them is one row, with its range and no hex, saying how many bytes it
// holds and why they are missing ("(not captured: 732 bytes, beyond the
// snap length)"), one row per field it falls in; a field the capture
// lacks says "not captured" and shows no value, and a field partly
// captured shows its captured bytes around such rows. Where what locates
// the rest of the frame was lost, the field being read holds the rest of
// the frame and says so.
//
// Credentials are masked ("**" for each byte) unless ShowSecrets: the
// bytes of every field the schema marks @secret (delegation token HMACs,
// SCRAM salted passwords) or @sasl (SaslAuthenticate AuthBytes), the value
// of every @config field whose config name codec.IsSensitiveConfig
// judges a password, and the client's raw SASL tokens after a
// SaslHandshake v0. The list is the schema's annotations, the same that
// the JSON output redacts by, so the two cannot disagree.
type Hexdump struct {
	w     *bufio.Writer
	opts  HexdumpOptions
	n     int
	eager bool   // trace records fields whole (for the test that lazy equals it)
	line  []byte // the line being assembled, reused
}

// NewHexdump returns a hexdump writer to w. Call Flush at the end.
func NewHexdump(w io.Writer, opts HexdumpOptions) (*Hexdump, error) {
	return &Hexdump{w: bufio.NewWriterSize(w, 64<<10), opts: opts}, nil
}

// Flush writes buffered output.
func (h *Hexdump) Flush() error { return h.w.Flush() }

// hexPerRow is how many bytes a row shows.
const hexPerRow = 8

// Write writes the request and the response of ex.
func (h *Hexdump) Write(ex *dissect.Exchange) error {
	h.n++
	// Straight to the buffered output: an exchange of 50 000 records is
	// tens of MB of text, which a builder would hold, grow and copy.
	b := h.w
	if h.n > 1 {
		b.WriteByte('\n')
	}
	c := h.opts.Colors
	exchangeHeading(b, h.n, ex, c)
	for _, response := range []bool{false, true} {
		ft := traceFrame(ex, response, TraceOptions{Records: h.opts.Records}, !h.eager)
		if ft == nil {
			continue
		}
		b.WriteByte('\n')
		h.writeFrame(b, ft)
	}
	_, err := b.WriteString("") // the first write error, kept by bufio.Writer
	return err
}

// writeFrame writes the rows of one frame.
func (h *Hexdump) writeFrame(b *bufio.Writer, ft *FrameTree) {
	c := h.opts.Colors
	f := ft.Frame
	side := "Request"
	if ft.Response {
		side = "Response"
	}
	head := fmt.Sprintf("%s: %s (4-byte size prefix, %d-byte frame)", side, plural(ft.Root.End, "byte"), f.Size)
	if nc := notCapturedSummary(f); nc != "" {
		head += "; " + nc
	}
	b.WriteString(c.Heading(head) + "\n")
	// The offsets' width: the frame's, or its largest decompressed
	// section's. Records fields are scanned for it, not kept, and their
	// entries traced as they are written.
	maxEnd := 0
	var widest func(n *Node)
	widest = func(n *Node) {
		maxEnd = max(maxEnd, n.End)
		if n.lazy != nil {
			maxEnd = max(maxEnd, ft.scan(n).maxSection)
		}
		for _, c := range n.Children {
			widest(c)
		}
	}
	for _, n := range ft.Root.Children {
		widest(n)
	}
	digits := max(4, len(strconv.FormatInt(int64(max(maxEnd-1, 0)), 16)))
	rangeWidth := 1 + 2*(digits+2) + 1
	frame := frameBytes(f)
	w := labelWalker{st: labelStyle(ft, h.opts.ShowSecrets), ft: ft, emit: func(l *Label) {
		h.writeLabel(b, l, frame, ft.holes, digits, rangeWidth)
	}}
	for _, n := range ft.Root.Children {
		w.walk(n, 0, "", 0, nil)
	}
}

// sectionNoteBytes is how many bytes of a range not decoded a section
// row shows.
const sectionNoteBytes = 64

// writeLabel writes the rows of one label: its range, its bytes (8 a
// row) and its name and value; holes are rows of their own. Lines are
// assembled by hand, not with fmt: a Fetch response of 50 000 records is
// millions of rows.
func (h *Hexdump) writeLabel(b *bufio.Writer, l *Label, frame []byte, holes []hole, digits, rangeWidth int) {
	c := h.opts.Colors
	data := frame
	mark := byte(' ')
	if l.Section > 0 {
		data, mark = l.data, '+'
	}
	text := l.Name
	if l.Text != "" {
		if l.Leaf {
			text += " = " + l.Text
		} else {
			text += ": " + l.Text
		}
	}
	switch l.Style {
	case StyleError:
		text = c.Error(text)
	case StyleNote:
		text = c.Note(text)
	}
	line := h.line[:0]
	// The range column: "+0x0010-0x0017", or "+0x0010" for an empty field.
	line = append(line, mark)
	line = appendOffset(line, l.Start, digits)
	if l.End > l.Start {
		line = append(line, '-')
		line = appendOffset(line, l.End-1, digits)
	}
	line = appendSpaces(line, rangeWidth-len(line)+2)
	if !l.Leaf {
		line = appendSpaces(line, hexWidth+2)
		line = appendSpaces(line, 2*l.Depth)
		line = append(line, text...)
		line = append(line, '\n')
		b.Write(line)
		h.line = line
		return
	}
	if l.Section == 0 {
		if hs := holesIn(holes, l.Start, l.End); len(hs) > 0 {
			h.line = h.writeHoled(b, line, l, text, frame, hs, digits, rangeWidth)
			return
		}
	}
	bs := data[l.Start:l.End]
	elided := 0
	if l.Section > 0 && l.note && len(bs) > sectionNoteBytes {
		bs, elided = bs[:sectionNoteBytes], len(bs)-sectionNoteBytes
	}
	for row := 0; row == 0 || row*hexPerRow < len(bs); row++ {
		chunk := bs[row*hexPerRow : min(len(bs), (row+1)*hexPerRow)]
		if row > 0 {
			line = append(line[:0], mark)
			line = appendOffset(line, l.Start+row*hexPerRow, digits)
			line = appendSpaces(line, rangeWidth-len(line)+2)
		}
		line = appendHexCell(line, chunk, l.Masked, c)
		line = appendSpaces(line, 2*l.Depth)
		if row == 0 {
			line = append(line, text...)
		} else {
			line = append(line, "  |"...)
			line = appendASCIIRow(line, chunk, l.Masked)
			line = append(line, '|')
		}
		line = append(line, '\n')
		b.Write(line)
	}
	if elided > 0 {
		line = append(line[:0], mark)
		line = appendOffset(line, l.Start+len(bs), digits)
		line = append(line, '-')
		line = appendOffset(line, l.End-1, digits)
		line = appendSpaces(line, rangeWidth-len(line)+2+hexWidth+2+2*l.Depth)
		line = append(line, c.Note(fmt.Sprintf("  (%s more, not shown)", plural(elided, "byte")))...)
		line = append(line, '\n')
		b.Write(line)
	}
	h.line = line
}

// writeHoled writes the rows of a leaf of the frame that meets holes
// (hs, clipped to it, in order): its captured bytes as writeLabel writes
// them, each hole as a row of its own with no hex. A leaf wholly in one
// hole is one row. It returns the line buffer.
func (h *Hexdump) writeHoled(b *bufio.Writer, line []byte, l *Label, text string, frame []byte, hs []hole, digits, rangeWidth int) []byte {
	c := h.opts.Colors
	// head starts a row: its range column ("0x0010-0x0017"; "0x0010"
	// for a row that goes on with a field's bytes).
	head := func(start, end int) {
		line = append(line[:0], ' ')
		line = appendOffset(line, start, digits)
		if end > start {
			line = append(line, '-')
			line = appendOffset(line, end-1, digits)
		}
		line = appendSpaces(line, rangeWidth-len(line)+2)
	}
	write := func() {
		line = append(line, '\n')
		b.Write(line)
	}
	if len(hs) == 1 && hs[0].start == l.Start && hs[0].end == l.End {
		// Wholly in one hole: one row saying so.
		t := l.Name + " " + holeText(hs[0])
		switch {
		case l.Name == "(not captured)":
			t = holeText(hs[0])
		case !l.nc && l.Text != "":
			t = l.Name + " = " + l.Text + " " + holeText(hs[0])
		case l.stop != "":
			t = l.Name + " " + holeText(hs[0]) + "; " + l.stop
		}
		head(l.Start, l.End)
		line = appendSpaces(line, hexWidth+2+2*l.Depth)
		line = append(line, c.Note(t)...)
		write()
		return line
	}
	first := true
	at := l.Start
	captured := func(from, to int) {
		for p := from; p < to; p += hexPerRow {
			chunk := frame[p:min(to, p+hexPerRow)]
			if first {
				head(l.Start, l.End)
			} else {
				head(p, p)
			}
			line = appendHexCell(line, chunk, l.Masked, c)
			line = appendSpaces(line, 2*l.Depth)
			if first {
				line = append(line, text...)
			} else {
				line = append(line, "  |"...)
				line = appendASCIIRow(line, chunk, l.Masked)
				line = append(line, '|')
			}
			write()
			first = false
		}
	}
	for _, hl := range hs {
		captured(at, hl.start)
		if first {
			// The label's own row, before its first bytes, a hole.
			head(l.Start, l.End)
			line = appendSpaces(line, hexWidth+2+2*l.Depth)
			line = append(line, text...)
			write()
			first = false
		}
		head(hl.start, hl.end)
		line = appendSpaces(line, hexWidth+2+2*(l.Depth+1))
		line = append(line, c.Note(holeText(hl))...)
		write()
		at = hl.end
	}
	captured(at, l.End)
	return line
}

// appendOffset appends v in hex, zero-padded to digits, after "0x".
func appendOffset(dst []byte, v, digits int) []byte {
	dst = append(dst, '0', 'x')
	var buf [16]byte
	hex := strconv.AppendInt(buf[:0], int64(v), 16)
	for range digits - len(hex) {
		dst = append(dst, '0')
	}
	return append(dst, hex...)
}

func appendSpaces(dst []byte, n int) []byte {
	for range n {
		dst = append(dst, ' ')
	}
	return dst
}

// frameBytes returns the frame as it crossed the wire: the size prefix,
// then the bytes captured.
func frameBytes(f *dissect.Frame) []byte {
	b := make([]byte, 4, 4+len(f.Bytes))
	binary.BigEndian.PutUint32(b, uint32(f.Size))
	return append(b, f.Bytes...)
}

// hexWidth is the width of the hex column: hexPerRow bytes, "0a " each.
const hexWidth = 3*hexPerRow - 1

// appendHexCell appends a row's hex column: its bytes (dimmed when
// masked), padded to the column's width and the gap after it.
func appendHexCell(line, chunk []byte, masked bool, c Colors) []byte {
	hexStart := len(line)
	line = appendHexRow(line, chunk, masked)
	hexLen := len(line) - hexStart
	if masked {
		dim := c.Dim(string(line[hexStart:]))
		line = append(line[:hexStart], dim...)
	}
	return appendSpaces(line, hexWidth-hexLen+2)
}

// appendHexRow appends bytes as "0a 1b 2c", or "** ** **" masked.
func appendHexRow(dst, b []byte, masked bool) []byte {
	const digits = "0123456789abcdef"
	for i, x := range b {
		if i > 0 {
			dst = append(dst, ' ')
		}
		if masked {
			dst = append(dst, '*', '*')
		} else {
			dst = append(dst, digits[x>>4], digits[x&0xf])
		}
	}
	return dst
}

// appendASCIIRow appends the printable ASCII of b, dots for the rest.
func appendASCIIRow(dst, b []byte, masked bool) []byte {
	for _, x := range b {
		switch {
		case masked:
			dst = append(dst, '*')
		case x >= 0x20 && x < 0x7f:
			dst = append(dst, x)
		default:
			dst = append(dst, '.')
		}
	}
	return dst
}

// LabelStyle says how a label is painted.
type LabelStyle uint8

// The label styles.
const (
	StylePlain LabelStyle = iota // nothing to point out
	StyleError                   // a non-zero error code, a CRC mismatch
	StyleNote                    // what was not decoded and why
)

// Label is one labelled byte range of a hexdump: a field.
type Label struct {
	// Section is 0 for a range of the frame, whose offsets count the
	// 4-byte size prefix; k > 0 for a range of the k-th decompressed
	// section of the frame (in order of appearance), whose offsets are
	// into its decompressed data.
	Section int
	// Start and End delimit the range [Start, End).
	Start, End int
	// Depth is the nesting depth: 0 for the size prefix, the header, the
	// body.
	Depth int
	// Path names the field from the frame down:
	// "ProduceRequest v7.TopicData[0].PartitionData[0].Records[0].BaseOffset".
	Path string
	// Name and Text are what the row shows: "RequestApiKey", "0 (Produce)".
	Name, Text string
	// Leaf says the field has no field inside: the leaves of section 0
	// cover the frame exactly once, those of section k its data.
	Leaf bool
	// Masked says the bytes are a credential, not shown.
	Masked bool
	Style  LabelStyle

	data []byte // the section's data, for Section > 0
	nc   bool   // the leaf's value was not captured
	stop string // where decoding stopped: why
	note bool   // a range that holds no field (a TraceNote)
}

// Labels returns the labels of a frame's hexdump in the order they are
// written: every field of the tree, depth first. Secret fields are masked
// unless showSecrets.
func Labels(ft *FrameTree, showSecrets bool) []Label {
	var out []Label
	w := labelWalker{st: labelStyle(ft, showSecrets), ft: ft, paths: true, emit: func(l *Label) { out = append(out, *l) }}
	for _, n := range ft.Root.Children {
		w.walk(n, 0, "", 0, nil)
	}
	return out
}

// labelStyle is how a hexdump's labels show values: short.
func labelStyle(ft *FrameTree, showSecrets bool) valueStyle {
	return valueStyle{showSecrets: showSecrets, maxText: 64, maxHex: 16}.forFrame(ft)
}

// labelWalker hands the labels of a frame to emit, depth first, one at a
// time: the label and the entries of a records field are not kept.
type labelWalker struct {
	st       valueStyle
	ft       *FrameTree
	paths    bool         // fill Label.Path
	emit     func(*Label) // must not keep the label
	sections int
	label    Label
	batch    *codec.RecordBatch // the record batch being walked, for its records' times
}

func (w *labelWalker) walk(n *Node, depth int, path string, section int, data []byte) {
	var p string
	if w.paths {
		p = n.Name
		if path != "" {
			if strings.HasPrefix(n.Name, "[") {
				p = path + n.Name
			} else {
				p = path + "." + n.Name
			}
		}
	}
	if n.Section != nil {
		w.sections++
		section, data = w.sections, n.Section.Data
	}
	// One Label for every call: emit does not keep it, and a label of
	// each field allocated anew is millions of them for a Fetch.
	l := &w.label
	*l = Label{Section: section, Start: n.Start, End: n.End, Depth: depth, Path: p, Name: n.Name, Leaf: n.IsLeaf(), data: data}
	if l.Leaf {
		l.Text = formatValue(n, w.st)
		l.Masked = n.Secret && !w.st.showSecrets
		switch v := n.Value.(type) {
		case codec.NotCapturedValue:
			l.nc = true
		case notCapturedStop:
			l.nc, l.stop = true, v.text()
		case codec.TraceNote:
			l.note = true
		}
	} else {
		l.Text = containerText(n, w.batch)
		if r, ok := n.Value.(*codec.Records); ok && !r.IsNull() {
			// What the set holds, as the detail view and JSON count it.
			sc := w.ft.scan(n)
			parts := sc.counts()
			if lc := sc.lacks(); lc != "" {
				parts = append(parts, lc)
			}
			if len(parts) > 0 {
				l.Text += ": " + strings.Join(parts, ", ")
			}
		}
	}
	l.Style = nodeStyle(n)
	w.emit(l)
	if b, ok := n.Value.(*codec.RecordBatch); ok {
		outer := w.batch
		w.batch = b
		defer func() { w.batch = outer }()
	}
	w.ft.eachChild(n, func(c *Node) { w.walk(c, depth+1, p, section, data) })
}

// nodeStyle says how a node is painted.
func nodeStyle(n *Node) LabelStyle {
	switch v := n.Value.(type) {
	case undecoded, codec.TraceNote, codec.NotCapturedValue, notCapturedStop:
		return StyleNote
	case codec.Checksum:
		if !v.Valid {
			return StyleError
		}
	case int16:
		if v != 0 && isErrorField(n) {
			return StyleError
		}
	}
	if n.Section != nil && n.Section.Err != nil {
		return StyleNote
	}
	return StylePlain
}

// containerText says what a field with fields inside holds; batch is the
// record batch n is in, if any.
func containerText(n *Node, batch *codec.RecordBatch) string {
	switch v := n.Value.(type) {
	case undecoded:
		return "not decoded: " + sanitize(v.err.Error())
	case *codec.Records:
		s := "record set, " + plural(v.Len(), "byte")
		if lost := gapBytes(v.Gaps); lost > 0 {
			s += fmt.Sprintf(" (%d not captured)", lost)
		}
		return s
	case *codec.RecordBatch:
		if v.Gaps != nil {
			return "record batch (magic 2)" + holedBatchText(n, v)
		}
		return fmt.Sprintf("record batch (magic %d), BaseOffset %d, RecordCount %d, %s", v.Magic, v.BaseOffset, v.RecordCount, v.Compression())
	case *codec.Record:
		s := fmt.Sprintf("record, offset %d", v.Offset)
		if t, ok := timeText(recordTime(v, batch)); ok {
			s += ", " + t
		}
		return s
	case *codec.LegacyMessage:
		s := fmt.Sprintf("message (magic %d), %s", v.Magic, legacyOffset(v))
		if t, ok := timeText(v.Time()); ok {
			s += ", " + t
		}
		if v.Gaps != nil {
			s += fmt.Sprintf("; %d of its %s not captured", gapBytes(v.Gaps), plural(n.End-n.Start, "byte"))
		}
		return s
	}
	if s := n.Section; s != nil {
		t := fmt.Sprintf("%s decompressed by %s; offsets marked + are into them", plural(len(s.Data), "byte"), s.Compression)
		if s.Err != nil {
			t += "; " + sanitize(s.Err.Error())
		}
		return t
	}
	if l := n.Child("(length)"); l != nil && n.Field != nil && n.Field.IsArray() {
		switch v := l.Value.(type) {
		case int:
			return arrayCount(v)
		}
	}
	if c := n.Child("(count)"); c != nil {
		switch v := c.Value.(type) {
		case int:
			return arrayCount(v)
		case int32:
			return arrayCount(int(v))
		}
	}
	return ""
}

// legacyOffset says a legacy message's offset: for the inner message of a
// magic-1 wrapper, its offset in the partition with the relative one on
// the wire; in a Produce request, where the broker has not assigned
// offsets yet, the relative one.
func legacyOffset(m *codec.LegacyMessage) string {
	if !m.Captured("Offset") {
		return "offset not captured"
	}
	if m.AbsoluteOffset != m.Offset && m.AbsoluteOffset >= 0 {
		return fmt.Sprintf("offset %d (relative %d)", m.AbsoluteOffset, m.Offset)
	}
	return fmt.Sprintf("offset %d", m.Offset)
}

func arrayCount(n int) string {
	switch {
	case n < 0:
		return "null"
	case n == 1:
		return "1 item"
	}
	return strconv.Itoa(n) + " items"
}

// gapBytes is how many bytes gaps hold.
func gapBytes(gaps []codec.Gap) int {
	n := 0
	for _, g := range gaps {
		n += g.End - g.Start
	}
	return n
}

// holedBatchText says, after "record batch (magic 2)", what is known of
// a batch with bytes not captured (n its node): the header fields
// captured, never a value of one that was not, and the records it lacks.
func holedBatchText(n *Node, b *codec.RecordBatch) string {
	var parts []string
	if b.Captured("BaseOffset") {
		parts = append(parts, fmt.Sprintf("BaseOffset %d", b.BaseOffset))
	}
	if b.Captured("RecordCount") {
		parts = append(parts, fmt.Sprintf("RecordCount %d", b.RecordCount))
	}
	if b.Captured("Attributes") {
		parts = append(parts, b.Compression().String())
	}
	parts = append(parts, fmt.Sprintf("%d of its %s not captured", gapBytes(b.Gaps), plural(n.End-n.Start, "byte")))
	if nc := recordsNotCaptured(b); nc != "" {
		parts = append(parts, nc)
	}
	return ", " + strings.Join(parts, ", ")
}

// recordsNotCaptured says how many records a batch with holes lacks:
// "18 records not captured", "records not captured" when RecordCount was
// not captured; "" when it lacks none.
func recordsNotCaptured(b *codec.RecordBatch) string {
	switch {
	case b.Gaps == nil || b.RecordsNotCaptured == 0:
		return ""
	case b.RecordsNotCaptured < 0 && b.Captured("RecordCount"):
		return "records not captured"
	case b.RecordsNotCaptured < 0:
		return "records not captured (RecordCount not captured)"
	}
	return plural(int(b.RecordsNotCaptured), "record") + " not captured"
}
