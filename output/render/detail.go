package render

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"strings"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// DetailOptions configures the detail view.
type DetailOptions struct {
	// ShowSecrets shows credentials; by default they are redacted, as in
	// JSON (see Hexdump for which).
	ShowSecrets bool
	// Records bounds the decompression of record payloads.
	Records codec.RecordDecodeOptions
	// Colors paints errors and notes; the zero value paints nothing.
	Colors Colors
}

// Detail writes every field of each exchange's request and response as
// an indented tree, in wire order, with Kafka's field names; values with
// their units (durations, sizes, times), error codes with their name,
// description and whether they are retriable, records with their offset,
// time, key, value and headers. Each exchange starts with a heading: API,
// time, stream, client → broker, correlation id, client id, latency,
// sizes, topics, errors and notes.
//
// What the hexdump shows as wire mechanics (lengths, counts, null
// markers, tags) is left out; the hexdump shows every byte. Long values
// are cut, with their full size said.
//
// A field the capture lacks reads "not captured", with its byte range
// and why, never a value; where decoding stopped because what locates
// the rest of the frame was not captured, a line says so. A record batch
// with bytes not captured shows the header fields captured and how many
// records it lacks, and is never decompressed.
type Detail struct {
	w     *bufio.Writer
	opts  DetailOptions
	base  valueStyle // st without the frame's context
	st    valueStyle
	n     int
	ft    *FrameTree // the frame being written
	txn   detailTxn  // the transactions of the records fields being written
	eager bool       // trace records fields whole (for the test that lazy equals it)
}

// NewDetail returns a detail writer to w. Call Flush at the end.
func NewDetail(w io.Writer, opts DetailOptions) (*Detail, error) {
	return &Detail{
		w: bufio.NewWriterSize(w, 64<<10), opts: opts,
		base: valueStyle{showSecrets: opts.ShowSecrets, maxText: 1024, maxHex: 256},
	}, nil
}

// Flush writes buffered output.
func (d *Detail) Flush() error { return d.w.Flush() }

// Write writes one exchange.
func (d *Detail) Write(ex *dissect.Exchange) error {
	d.n++
	// Straight to the buffered output: an exchange of 50 000 records is
	// tens of MB of text, which a builder would hold, grow and copy.
	b := d.w
	if d.n > 1 {
		b.WriteByte('\n')
	}
	exchangeHeading(b, d.n, ex, d.opts.Colors)
	for _, response := range []bool{false, true} {
		ft := traceFrame(ex, response, TraceOptions{Records: d.opts.Records}, !d.eager)
		if ft == nil {
			continue
		}
		d.ft = ft
		d.txn = newDetailTxn(ex, response)
		b.WriteString(d.opts.Colors.Heading(ft.Root.Name) + "\n")
		d.st = d.base.forFrame(ft)
		for _, n := range ft.Root.Children {
			if n.Name == "Size" {
				continue // in the heading
			}
			d.node(b, n, 1, nil)
		}
	}
	_, err := b.WriteString("") // the first write error, kept by bufio.Writer
	return err
}

// batchCtx is the batch whose records are being written, for control
// records.
type batchCtx struct{ batch *codec.RecordBatch }

// hiddenLeaves are the wire mechanics the detail view leaves out.
var hiddenLeaves = map[string]bool{
	"(length)": true, "(count)": true, "(tag)": true, "(null marker)": true,
	"KeyLength": true, "ValueLength": true,
}

// node writes n at depth.
func (d *Detail) node(b *bufio.Writer, n *Node, depth int, bc *batchCtx) {
	c := d.opts.Colors
	indent := strings.Repeat("  ", depth)
	line := func(s string) { b.WriteString(indent + s + "\n") }
	switch v := n.Value.(type) {
	case *codec.Records:
		d.records(b, n, v, depth)
		return
	case *codec.RecordBatch:
		head := fmt.Sprintf("%s record batch", n.Name)
		if v.Gaps != nil {
			head += fmt.Sprintf(": %d of its %s not captured (%s)", gapBytes(v.Gaps), plural(n.End-n.Start, "byte"), causes(holesIn(d.ft.holes, n.Start, n.End)))
		}
		line(head + d.txn.batch(v))
		d.entryFields(b, n, depth+1, &batchCtx{batch: v})
		return
	case *codec.Record:
		d.record(b, n, v, depth, bc)
		return
	case *codec.LegacyMessage:
		head := fmt.Sprintf("%s message (magic %d): %s", n.Name, v.Magic, legacyOffset(v))
		if t, ok := timeText(v.Time()); ok {
			head += " · " + t
		}
		if v.Gaps != nil {
			head += fmt.Sprintf(" · %d of its %s not captured (%s)", gapBytes(v.Gaps), plural(n.End-n.Start, "byte"), causes(holesIn(d.ft.holes, n.Start, n.End)))
		}
		line(head)
		d.entryFields(b, n, depth+1, bc)
		return
	}
	switch {
	case n.IsLeaf() && isNotCaptured(n):
		line(c.Note(d.notCaptured(n)))
		return
	case n.Section != nil:
		// The records or inner messages of a compressed payload, under
		// the payload's line (see entryFields).
		if n.Section.Err != nil {
			line(c.Note("decompression: " + sanitize(n.Section.Err.Error())))
		}
		for _, ch := range n.Children {
			if ch.Name == "Records" && !ch.IsLeaf() {
				d.ft.eachChild(ch, func(r *Node) { d.node(b, r, depth, bc) })
				continue
			}
			d.node(b, ch, depth, bc)
		}
		return
	case n.Name == "Records" && n.Field == nil && !n.IsLeaf() && bc != nil && bc.batch.Gaps != nil &&
		bc.batch.Captured("Attributes") && bc.batch.Compression() != codec.CompressionNone:
		// The compressed records of a batch with holes: never
		// decompressed.
		hs := holesIn(d.ft.holes, n.Start, n.End)
		ranges := make([]string, len(hs))
		for i, h := range hs {
			ranges[i] = fmt.Sprintf("%d-%d", h.start, h.end)
		}
		s := fmt.Sprintf("Records: %s-compressed, %s (%d not captured: bytes %s, %s): not decompressed",
			bc.batch.Compression(), plural(n.End-n.Start, "byte"), lostIn(hs, n.Start, n.End), strings.Join(ranges, ", "), causes(hs))
		if nc := recordsNotCaptured(bc.batch); nc != "" {
			s += "; " + nc
		}
		line(c.Note(s))
		return
	case n.Name == "Records" && n.Field == nil && !n.IsLeaf():
		// The uncompressed records of a batch.
		s := "Records: " + plural(d.ft.batchRecordsCount(n), "record")
		if bc != nil {
			if nc := recordsNotCaptured(bc.batch); nc != "" {
				s += "; " + nc
			}
		}
		line(s)
		d.ft.eachChild(n, func(ch *Node) { d.node(b, ch, depth+1, bc) })
		return
	case n.Name == "(tagged fields)":
		for _, ch := range n.Children {
			d.node(b, ch, depth, bc)
		}
		return
	case n.IsLeaf():
		if hiddenLeaves[n.Name] {
			return
		}
		name := n.Name
		if name == "(unknown tag)" {
			name = "unknown tagged field"
		}
		text := name + ": " + formatValue(n, d.st)
		switch nodeStyle(n) {
		case StyleError:
			text = c.Error(text)
		case StyleNote:
			text = c.Note(text)
		}
		line(text)
		return
	}
	// A struct or an array.
	if m := n.Child("(null marker)"); m != nil {
		if null, _ := m.Value.(bool); null {
			line(n.Name + ": null")
			return
		}
	}
	if l := n.Child("(length)"); l != nil && n.Field != nil && n.Field.IsArray() {
		count, _ := l.Value.(int)
		switch {
		case count < 0:
			line(n.Name + ": null")
			return
		case count == 0:
			line(n.Name + ": []")
			return
		}
		if s, ok := d.inlineArray(n); ok {
			line(n.Name + ": " + s)
			return
		}
		line(fmt.Sprintf("%s: %s", n.Name, arrayCount(count)))
	} else if s, ok := d.inlineStruct(n); ok {
		line(n.Name + " " + s)
		return
	} else {
		line(n.Name)
	}
	for _, ch := range n.Children {
		d.node(b, ch, depth+1, bc)
	}
}

// entryFields writes the fields of a batch or legacy message: a
// compressed payload as one line saying both sizes, with what it holds
// under it.
func (d *Detail) entryFields(b *bufio.Writer, n *Node, depth int, bc *batchCtx) {
	indent := strings.Repeat("  ", depth)
	for i, ch := range n.Children {
		if ch.Section != nil {
			d.node(b, ch, depth+1, bc) // under the payload's line
			continue
		}
		comp, ok := ch.Value.(codec.Compression)
		if !ok || !ch.IsLeaf() {
			if m, ok := n.Value.(*codec.LegacyMessage); ok && ch.Name == "Offset" && m.AbsoluteOffset == m.Offset {
				continue // in the heading
			}
			d.node(b, ch, depth, bc)
			continue
		}
		s := fmt.Sprintf("%s: %s-compressed, %s", ch.Name, comp, plural(ch.End-ch.Start, "byte"))
		if i+1 < len(n.Children) && n.Children[i+1].Section != nil {
			s += fmt.Sprintf(", %s decompressed", plural(len(n.Children[i+1].Section.Data), "byte"))
			if ch.Name == "Value" {
				s += " (the inner messages)"
			}
		}
		b.WriteString(indent + s + "\n")
	}
}

// inlineStruct writes an array element of a few plain fields on one
// line: "ApiKey: 0 (Produce) · MinVersion: 0 · MaxVersion: 13".
func (d *Detail) inlineStruct(n *Node) (string, bool) {
	if !strings.HasPrefix(n.Name, "[") {
		return "", false
	}
	var parts []string
	for _, ch := range n.Children {
		if ch.Name == "(tagged fields)" && len(ch.Children) == 1 {
			continue // none: its count alone
		}
		if !ch.IsLeaf() || nodeStyle(ch) != StylePlain || isErrorField(ch) || ch.Value == nil {
			return "", false
		}
		if hiddenLeaves[ch.Name] {
			continue
		}
		parts = append(parts, ch.Name+": "+formatValue(ch, d.st))
	}
	s := strings.Join(parts, " · ")
	if len(parts) == 0 || len(parts) > 6 || len(s) > 100 {
		return "", false
	}
	return s, true
}

// inlineArray writes an array of primitives on one line: [0, 1, 2].
func (d *Detail) inlineArray(n *Node) (string, bool) {
	var parts []string
	for _, ch := range n.Children {
		if ch.Name == "(length)" {
			continue
		}
		if !ch.IsLeaf() || nodeStyle(ch) != StylePlain {
			return "", false
		}
		parts = append(parts, formatValue(ch, d.st))
	}
	s := "[" + strings.Join(parts, ", ") + "]"
	if len(s) > 120 {
		return "", false
	}
	return s, true
}

// records writes a records field: what the set holds, then its entries.
func (d *Detail) records(b *bufio.Writer, n *Node, r *codec.Records, depth int) {
	indent := strings.Repeat("  ", depth)
	if r.IsNull() {
		b.WriteString(indent + n.Name + ": null\n")
		return
	}
	sc := d.ft.scan(n)
	parts := sc.counts()
	size := plural(r.Len(), "byte")
	if lost := gapBytes(r.Gaps); lost > 0 {
		size += fmt.Sprintf(" (%d not captured)", lost)
	}
	parts = append(parts, size)
	if l := sc.lacks(); l != "" {
		parts = append(parts, l)
	}
	b.WriteString(indent + n.Name + ": " + strings.Join(parts, ", ") + "\n")
	if s := d.txn.field(); s != "" {
		b.WriteString(indent + "  " + s + "\n")
	}
	d.ft.eachChild(n, func(ch *Node) { d.node(b, ch, depth+1, nil) })
}

// record writes a v2 record: offset and time, then key, value, headers.
func (d *Detail) record(b *bufio.Writer, n *Node, r *codec.Record, depth int, bc *batchCtx) {
	indent := strings.Repeat("  ", depth)
	head := fmt.Sprintf("%s offset %d", n.Name, r.Offset)
	var batch *codec.RecordBatch
	if bc != nil {
		batch = bc.batch
	}
	if t, ok := timeText(recordTime(r, batch)); ok {
		head += " · " + t
	}
	b.WriteString(indent + head + "\n")
	in := indent + "  "
	if bc != nil && bc.batch.IsControl() && len(r.Key) >= 4 {
		ct := codec.ControlType(int16(r.Key[2])<<8 | int16(r.Key[3]))
		s := "Control: " + ct.String()
		if (ct == codec.ControlAbort || ct == codec.ControlCommit) && len(r.Value) >= 6 {
			s += fmt.Sprintf(" (coordinator epoch %d)", int32(binary.BigEndian.Uint32(r.Value[2:])))
		}
		b.WriteString(in + s + "\n")
	}
	if r.Attributes != 0 {
		fmt.Fprintf(b, "%sAttributes: %d\n", in, r.Attributes)
	}
	b.WriteString(in + "Key: " + formatBytes(r.Key, d.st) + "\n")
	b.WriteString(in + "Value: " + formatBytes(r.Value, d.st) + "\n")
	if len(r.Headers) > 0 {
		b.WriteString(in + "Headers:\n")
		for _, h := range r.Headers {
			b.WriteString(in + "  " + quote(h.Key, d.st.maxText) + ": " + formatBytes(h.Value, d.st) + "\n")
		}
	}
	// What did not decode in the record.
	for _, ch := range n.Children {
		if nodeStyle(ch) == StyleNote {
			d.node(b, ch, depth+1, bc)
		}
	}
}

// notCaptured is the line of a leaf the capture lacks: "ThrottleTimeMs:
// not captured (bytes 59-63, beyond the snap length)"; where decoding
// stopped, what it stopped at and why.
func (d *Detail) notCaptured(n *Node) string {
	where := fmt.Sprintf("bytes %d-%d", n.Start, n.End)
	why := ""
	if hs := holesIn(d.ft.holes, n.Start, n.End); len(hs) > 0 {
		why = ", " + causes(hs)
	}
	switch v := n.Value.(type) {
	case notCapturedStop:
		return fmt.Sprintf("%s: not captured; %s (%s%s)", n.Name, v.text(), where, why)
	case codec.NotCapturedValue:
		if n.Name == "(not captured)" {
			return fmt.Sprintf("(not captured: %s, %s%s)", where, plural(n.End-n.Start, "byte"), why)
		}
	}
	where += why
	return fmt.Sprintf("%s: not captured (%s)", n.Name, where)
}
