package render

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// The detail and hexdump views share one model of a frame: a tree of
// fields with their byte ranges and values, built by decoding the frame
// again with a codec.Tracer. The generated decoders report every field of
// the header and body in wire order with Kafka's names; records fields
// are traced one level further by codec.TraceRecordSet, and compressed
// record payloads are followed into their decompressed bytes. So both
// views are exact and in wire order, and the hexdump's leaves cover every
// byte of the frame once.
//
// A frame with holes is read as the decoder reads it (dissect.Frame.Reader):
// a field whose bytes the capture lacks is a leaf whose value is a
// codec.NotCapturedValue, a records field is traced around its holes
// (codec.TraceGappedRecordSet), and where what locates the rest of the
// frame was lost, the field being read holds the rest (notCapturedStop).
// Record sets are traced with the decoder's budget and choices (see
// codec.TraceRecordSet), so the views show the records JSON shows.

// Node is one field of a traced frame.
type Node struct {
	// Name is the field's name as Kafka spells it, "[i]" for an array
	// element, or a name in parentheses for what is no field of the
	// schema: "(length)", "(count)", "(tagged fields)", "(not decoded)"...
	Name string
	// Start and End are the field's byte range: offsets into the frame
	// with its 4-byte size prefix, or into Section.Data for the fields
	// inside a section.
	Start, End int
	// Value is the decoded value of a leaf (see codec.Tracer and
	// codec.TraceRecordSet; codec.NotCapturedValue for a field the capture
	// lacks), a *codec.RecordBatch, *codec.Record or *codec.LegacyMessage
	// for a record-level container, else nil.
	Value any
	// Children are the fields inside, in wire order.
	Children []*Node
	// Section, on a section node, holds the decompressed bytes its
	// children's offsets point into.
	Section *Section
	// Field is the schema's declaration of the field, when it has one
	// (as the codec's generated metadata holds it).
	Field *codec.FieldInfo
	// Secret says the value is a credential: shown only with ShowSecrets.
	Secret bool

	scope []*codec.FieldInfo // fields the children are declared among
	lazy  *lazyRecords       // entries traced when walked (FrameTree.eachChild)
}

// Section is the decompressed content of a compressed record payload.
type Section struct {
	Compression codec.Compression
	Data        []byte
	Err         error // why Data holds less than the payload, if it does
}

// IsLeaf reports whether n has no field inside.
func (n *Node) IsLeaf() bool { return len(n.Children) == 0 && n.Section == nil && n.lazy == nil }

// Child returns the first child called name, or nil.
func (n *Node) Child(name string) *Node {
	for _, c := range n.Children {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// undecoded is the value of a field whose decoding failed.
type undecoded struct{ err error }

// notCapturedStop is the value of the field being read where decoding
// stopped because what locates the rest of the frame (a length, a count,
// a tag) was not captured: the field holds the rest of the frame, of
// which captured bytes were captured yet cannot be located.
type notCapturedStop struct{ captured int }

// text says why decoding stopped.
func (v notCapturedStop) text() string {
	if v.captured == 0 {
		return "decoding stopped here: the rest of the frame was not captured"
	}
	return fmt.Sprintf("decoding stopped here: what locates the rest of the frame was not captured (%s after it captured, not decoded)", plural(v.captured, "byte"))
}

// isNotCaptured reports a leaf whose value the capture lacks.
func isNotCaptured(n *Node) bool {
	switch n.Value.(type) {
	case codec.NotCapturedValue, notCapturedStop:
		return true
	}
	return false
}

// FrameTree is the traced model of one frame of an exchange.
type FrameTree struct {
	Response bool
	Frame    *dissect.Frame
	// Root spans the frame with its size prefix: the Size field, the
	// header, the body and whatever could not be decoded.
	Root *Node

	holes      []hole                // what the capture lacks of the frame
	topicNames map[codec.UUID]string // topic IDs the decoder named

	// For a tree whose records fields are lazy: the options (and budget)
	// their entries are traced with, and those they are scanned with;
	// each budget is spent field by field in wire order, as one trace of
	// the whole frame spends its one budget.
	traceOpts, scanOpts codec.RecordDecodeOptions
	scanned             map[*Node]recordScan // records fields scanned
}

// lazyRecords is a records field, or the records of a v2 batch, whose
// entries are traced only when a view walks them, one at a time: a view
// then holds the fields of one record, not of a whole Fetch response
// (50 000 records take hundreds of MB as a tree).
type lazyRecords struct {
	// A records field (Raw and Gaps), at base in the frame; or the
	// records of a batch, to whose offsets base is added (0 in a
	// decompressed section).
	rec   codec.Records
	batch *codec.BatchRecords
	base  int
}

// eachChild calls fn with the children of n in wire order. The entries of
// a lazy records field are traced one at a time, and let go once fn
// returns: fn must not keep them.
func (ft *FrameTree) eachChild(n *Node, fn func(*Node)) {
	for _, c := range n.Children {
		fn(c)
	}
	l := n.lazy
	if l == nil {
		return
	}
	// In place of n, so that the entries get what they would under n.
	at := &Node{Field: n.Field, scope: n.scope}
	t := &frameTracer{stack: []*Node{at}, bases: []int{l.base}, opts: ft.traceOpts, lazy: true}
	each := func() {
		for _, c := range at.Children {
			fn(c)
		}
		clear(at.Children)
		at.Children = at.Children[:0]
	}
	if l.batch == nil {
		l.rec.Trace(t, ft.traceOpts, each)
		return
	}
	// The records end where the field does (the last reaches its end,
	// or "(after the records)" does), so frameTracer.End would add no
	// "(unread)" to the field.
	l.batch.Trace(t, each)
}

// batchRecordsCount is how many records the records of a batch hold (n a
// batch's "Records"), counted without keeping them.
func (ft *FrameTree) batchRecordsCount(n *Node) int {
	if l := n.lazy; l != nil && l.batch != nil {
		return l.batch.Count()
	}
	k := 0
	for _, c := range n.Children {
		if _, ok := c.Value.(*codec.Record); ok {
			k++
		}
	}
	return k
}

// recordScan is what a records field holds, counted without keeping its
// fields, as codec.RecordSet.Count counts.
type recordScan struct {
	batches, records, messages int
	// notCaptured is how many records batches with holes lack (their
	// RecordCount less the records decoded); unknown counts the batches
	// whose RecordCount was not captured either.
	notCaptured, unknown int
	// maxSection is the size of its largest decompressed section.
	maxSection int
	section    int // depth of decompressed sections, while scanning
}

// scan counts the entries of the records field n. Call it once per field,
// in wire order, before its entries are walked.
func (ft *FrameTree) scan(n *Node) recordScan {
	if s, ok := ft.scanned[n]; ok {
		return s // the scan budget is spent once per field
	}
	var s recordScan
	defer func() {
		if ft.scanned == nil {
			ft.scanned = map[*Node]recordScan{}
		}
		ft.scanned[n] = s
	}()
	if n.lazy != nil {
		n.lazy.rec.Trace((*scanTracer)(&s), ft.scanOpts, nil)
		return s
	}
	var walk func(*Node)
	walk = func(n *Node) {
		s.count(n.Value)
		if n.Section != nil {
			s.maxSection = max(s.maxSection, len(n.Section.Data))
			s.section++
		}
		for _, c := range n.Children {
			walk(c)
		}
		if n.Section != nil {
			s.section--
		}
	}
	walk(n)
	return s
}

func (s *recordScan) count(v any) {
	switch v := v.(type) {
	case *codec.RecordBatch:
		s.batches++
		switch {
		case v.RecordsNotCaptured > 0:
			s.notCaptured += int(v.RecordsNotCaptured)
		case v.RecordsNotCaptured < 0 && v.Gaps != nil:
			s.unknown++
		}
	case *codec.Record:
		s.records++
	case *codec.LegacyMessage:
		// A wrapper's inner messages count, not it; a message with
		// bytes not captured is no complete record.
		if s.section > 0 || v.Compression() == codec.CompressionNone && v.Gaps == nil {
			s.messages++
		}
	}
}

// counts says what the field holds: "1 batch", "3 records", "5 messages"
// (only what it has; nothing for a field of neither).
func (s recordScan) counts() []string {
	var parts []string
	if s.batches > 0 {
		parts = append(parts, plural(s.batches, "batch"), plural(s.records, "record"))
	}
	if s.messages > 0 {
		parts = append(parts, plural(s.messages, "message"))
	}
	return parts
}

// lacks says how many records the field's batches with holes lack, ""
// when none.
func (s recordScan) lacks() string {
	switch {
	case s.notCaptured > 0 && s.unknown > 0:
		return fmt.Sprintf("%s not captured, and those of %s whose RecordCount was not captured", plural(s.notCaptured, "record"), plural(s.unknown, "batch"))
	case s.notCaptured > 0:
		return plural(s.notCaptured, "record") + " not captured"
	case s.unknown > 0:
		return fmt.Sprintf("the records of %s not captured", plural(s.unknown, "batch"))
	}
	return ""
}

// scanTracer counts what a record set holds (a codec.SectionTracer).
type scanTracer recordScan

func (s *scanTracer) Begin(string, int)   {}
func (s *scanTracer) BeginIndex(int, int) {}
func (s *scanTracer) End(_ int, v any)    { (*recordScan)(s).count(v) }
func (s *scanTracer) EndSection()         { s.section-- }
func (s *scanTracer) BeginSection(_ codec.Compression, data []byte, _ error) {
	s.maxSection = max(s.maxSection, len(data))
	s.section++
}

// frameTracer builds a Node tree from Tracer calls.
type frameTracer struct {
	stack []*Node
	bases []int // offset added to reported offsets, per open section level
	opts  codec.RecordDecodeOptions
	lazy  bool // records fields left to FrameTree.eachChild
	// r is the reader traced. Once it has failed, End calls are ignored:
	// the generated decoders still end a leaf whose read failed, and an
	// array element whose decoding failed inside, which would end the
	// innermost field begun instead; fail closes what is open.
	r *codec.Reader
}

func (t *frameTracer) top() *Node { return t.stack[len(t.stack)-1] }

func (t *frameTracer) base() int { return t.bases[len(t.bases)-1] }

func (t *frameTracer) push(n *Node) {
	p := t.top()
	p.Children = append(p.Children, n)
	t.stack = append(t.stack, n)
}

// Begin implements codec.Tracer.
func (t *frameTracer) Begin(name string, off int) {
	p := t.top()
	n := &Node{Name: name, Start: off + t.base(), End: -1}
	if strings.HasPrefix(name, "(") {
		// "(tagged fields)" holds its struct's tagged fields; "(length)"
		// and the like hold none.
		n.scope = p.scope
	} else if p.scope != nil {
		for _, f := range p.scope {
			if f.Name == name {
				n.Field = f
				n.scope = f.Fields
				break
			}
		}
	}
	t.push(n)
}

// BeginIndex implements codec.Tracer.
func (t *frameTracer) BeginIndex(i, off int) {
	p := t.top()
	t.push(&Node{Name: "[" + strconv.Itoa(i) + "]", Start: off + t.base(), End: -1, Field: p.Field, scope: p.scope})
}

// End implements codec.Tracer.
func (t *frameTracer) End(off int, value any) {
	if t.r != nil && t.r.Failed() {
		return
	}
	n := t.top()
	n.End = off + t.base()
	n.Value = value
	if last := lastInSpace(n); last != nil && last.End < n.End {
		// A known tagged field whose decoder left bytes unread (a
		// newer version of its struct): the reader skipped them.
		n.Children = append(n.Children, &Node{Name: "(unread)", Start: last.End, End: n.End,
			Value: codec.TraceNote(fmt.Sprintf("%s the field's decoder did not read", plural(n.End-last.End, "byte")))})
	}
	if r, ok := value.(*codec.Records); ok && r.Raw != nil {
		// The field is its length, then the record set (with its
		// holes): trace that.
		rawStart := n.End - r.Len()
		if rawStart > n.Start {
			n.Children = append(n.Children, &Node{Name: "(length)", Start: n.Start, End: rawStart, Value: int32(r.Len())})
		}
		if t.lazy {
			n.lazy = &lazyRecords{rec: codec.Records{Raw: r.Raw, Gaps: r.Gaps}, base: rawStart}
		} else {
			t.bases = append(t.bases, rawStart)
			r.Trace(t, t.opts, nil)
			t.bases = t.bases[:len(t.bases)-1]
		}
	}
	if _, ok := value.(*codec.LegacyMessage); ok {
		if a := n.Child("Attributes"); a != nil {
			if v, ok := a.Value.(int8); ok {
				a.Value = msgAttributes(v)
			}
		}
	}
	if n.Field != nil {
		n.Secret = n.Field.Has(codec.FieldSecret) || n.Field.Has(codec.FieldSASL) ||
			n.Field.Has(codec.FieldConfig) && t.sensitiveConfig()
	}
	t.stack = t.stack[:len(t.stack)-1]
}

// lastInSpace returns the last child of n whose offsets are in n's space
// (not a decompressed section), or nil.
func lastInSpace(n *Node) *Node {
	for i := len(n.Children) - 1; i >= 0; i-- {
		if n.Children[i].Section == nil {
			return n.Children[i]
		}
	}
	return nil
}

// sensitiveConfig reports whether the config value ending is one of a
// password-like config: its struct's Name field says.
func (t *frameTracer) sensitiveConfig() bool {
	if len(t.stack) < 2 {
		return false
	}
	if name := t.stack[len(t.stack)-2].Child("Name"); name != nil {
		if s, ok := name.Value.(string); ok {
			return codec.IsSensitiveConfig(s)
		}
	}
	return false
}

// DeferRecords implements codec.RecordsDeferrer, for a lazy tree: the
// records of a batch are traced when walked (FrameTree.eachChild).
func (t *frameTracer) DeferRecords(r *codec.BatchRecords) {
	from, to := r.Range()
	if !t.lazy {
		t.Begin("Records", from)
		r.Trace(t, nil)
		t.End(to, nil)
		return
	}
	p := t.top()
	base := t.base()
	p.Children = append(p.Children, &Node{Name: "Records", Start: from + base, End: to + base,
		lazy: &lazyRecords{batch: r, base: base}})
}

// BeginSection implements codec.SectionTracer.
func (t *frameTracer) BeginSection(c codec.Compression, data []byte, err error) {
	n := &Node{Name: "(decompressed)", Start: 0, End: len(data), Section: &Section{Compression: c, Data: data, Err: err}}
	t.push(n)
	t.bases = append(t.bases, 0)
}

// EndSection implements codec.SectionTracer.
func (t *frameTracer) EndSection() {
	t.bases = t.bases[:len(t.bases)-1]
	t.stack = t.stack[:len(t.stack)-1]
}

// fail closes the fields left open by a decoding error: the innermost
// becomes the undecoded field (or gets one, when part of it decoded),
// whose value is v (undecoded, or notCapturedStop), and which with every
// field around it extends to end.
func (t *frameTracer) fail(depth, end int, v any) {
	if len(t.stack) <= depth {
		return
	}
	in := t.top()
	if len(in.Children) == 0 && in.Value == nil {
		in.Value = v
	} else {
		start := in.Start
		if k := len(in.Children); k > 0 {
			start = in.Children[k-1].End
		}
		in.Children = append(in.Children, &Node{Name: "(not decoded)", Start: start, End: end, Value: v})
	}
	for len(t.stack) > depth {
		t.top().End = end
		t.stack = t.stack[:len(t.stack)-1]
	}
}

// TraceOptions configures tracing.
type TraceOptions struct {
	// Records bounds the decompression of record payloads.
	Records codec.RecordDecodeOptions
}

// TraceFrame builds the field tree of the request (response false) or the
// response of ex. ex must have been decoded (ex.Decoded set): the tree
// follows the decoder's choices (header version, the ApiVersions v0
// fallback).
func TraceFrame(ex *dissect.Exchange, response bool, opts TraceOptions) *FrameTree {
	return traceFrame(ex, response, opts, false)
}

// traceFrame is TraceFrame; lazy leaves the entries of records fields to
// FrameTree.eachChild.
func traceFrame(ex *dissect.Exchange, response bool, opts TraceOptions, lazy bool) *FrameTree {
	f := ex.Request
	if response {
		f = ex.Response
	}
	if f == nil {
		return nil
	}
	ft := &FrameTree{Response: response, Frame: f, holes: frameHoles(f)}
	if ex.Decoded != nil {
		for _, t := range ex.Decoded.Topics {
			if t.Topic != "" && !t.TopicID.IsZero() {
				if ft.topicNames == nil {
					ft.topicNames = map[codec.UUID]string{}
				}
				ft.topicNames[t.TopicID] = t.Topic
			}
		}
	}
	// The frame as its size prefix has it, captured or not.
	size := max(int(f.Size), len(f.Bytes))
	root := &Node{Name: "Request", Start: 0, End: 4 + size}
	if response {
		root.Name = "Response"
	}
	ft.Root = root
	root.Children = append(root.Children, &Node{Name: "Size", Start: 0, End: 4, Value: f.Size})
	b := f.Bytes
	switch {
	case size == 0:
		return ft
	case len(b) == 0:
		root.Children = append(root.Children, &Node{Name: "(not captured)", Start: 4, End: root.End, Value: codec.NotCapturedValue{}})
		return ft
	case ex.SASLToken:
		// Raw SASL tokens (KIP-43): the client's carry the credential.
		var v any = b
		if !f.Captured() {
			v = codec.NotCapturedValue{}
		}
		root.Children = append(root.Children, &Node{Name: "(SASL token)", Start: 4, End: root.End, Value: v, Secret: !response, Field: saslTokenField})
		return ft
	}
	dec := ex.Decoded
	if dec == nil {
		dec = &dissect.Decoded{}
	}
	records := opts.Records
	if records.Budget == nil {
		// One budget for the frame, as the decoder has: a frame of
		// many compressed record sets holds at most that much.
		records.Budget = codec.NewRecordBudget(records.MaxDecompressedBytes)
	}
	t := &frameTracer{stack: []*Node{root}, bases: []int{4}, opts: records, lazy: lazy}
	ft.traceOpts, ft.scanOpts = records, records
	ft.scanOpts.Budget = codec.NewRecordBudget(records.MaxDecompressedBytes)
	r := f.Reader(0)
	r.SetTracer(t)
	t.r = r
	// failed closes what decoding left open at its error.
	failed := func(err error) {
		var v any = undecoded{err}
		var de *codec.DecodeError
		if errors.Is(err, codec.ErrNotCaptured) && errors.As(err, &de) {
			// What was captured after the hole decoding stopped at.
			after := root.End
			if hs := holesIn(ft.holes, 4+de.Offset, root.End); len(hs) > 0 {
				after = hs[0].end
			}
			v = notCapturedStop{captured: root.End - after - lostIn(ft.holes, after, root.End)}
		}
		t.fail(1, root.End, v)
	}

	var api *codec.API
	if ex.APIKey >= 0 {
		api, _ = codec.LookupAPI(ex.APIKey)
	}
	version := ex.APIVersion
	var hv int16
	var hdr interface{ ReadFrom(*codec.Reader, int16) }
	var hdrName string
	if response {
		hdr, hdrName = new(codec.ResponseHeader), "ResponseHeader"
		if api != nil && api.SupportsVersion(ex.APIVersion) {
			hv = codec.ResponseHeaderVersion(ex.APIKey, ex.APIVersion)
			version = dec.ResponseVersion
		}
	} else {
		hdr, hdrName = new(codec.RequestHeader), "RequestHeader"
		hv = requestHeaderVersion(api, f, ex.APIKey, ex.APIVersion)
	}
	if api == nil && !response && len(b) >= 8 {
		hv = 1 // unknown key: a v1 header (key, version, correlation id, client id) is the best guess
	}
	hnode := &Node{Name: hdrName + " v" + strconv.Itoa(int(hv)), Start: 4, End: -1}
	hnode.scope = codec.HeaderFields(hdrName)
	t.push(hnode)
	hdr.ReadFrom(r, hv)
	if err := r.Err(); err != nil {
		failed(err)
		return ft
	}
	hnode.End = 4 + r.Offset()
	t.stack = t.stack[:1]

	bodyStart := r.Offset()
	rest := func(name, why string) {
		if r.Offset() < size {
			root.Children = append(root.Children, &Node{Name: name, Start: 4 + r.Offset(), End: root.End, Value: codec.TraceNote(why)})
		}
	}
	switch {
	case api == nil:
		rest("(body)", bodyWhy(ex, "unknown API key"))
		return ft
	case !api.SupportsVersion(ex.APIVersion):
		rest("(body)", fmt.Sprintf("%s v%d: a version the codec does not know", api.Name, ex.APIVersion))
		return ft
	case f.Oversized:
		rest("(body)", "oversized frame: body skipped")
		return ft
	}
	var body codec.Message
	if response {
		body = api.NewResponse()
	} else {
		body = api.NewRequest()
	}
	bnode := &Node{Name: fmt.Sprintf("%s v%d", messageName(api, response), version), Start: 4 + bodyStart, End: -1}
	bnode.scope = api.RequestFields()
	if response {
		bnode.scope = api.ResponseFields()
	}
	t.push(bnode)
	body.ReadFrom(r, version)
	if err := r.Err(); err != nil {
		failed(err)
		return ft
	}
	bnode.End = 4 + r.Offset()
	t.stack = t.stack[:1]
	rest("(trailing bytes)", "bytes after the body")
	return ft
}

// saslTokenField marks a raw SASL token as @sasl, for its redaction.
var saslTokenField = &codec.FieldInfo{Name: "(SASL token)", Type: "bytes", Flags: codec.FieldSASL}

// requestHeaderVersion is the request header version the decoder takes
// (dissect.Decoder): Kafka's, except that ControlledShutdown v0 sent with
// header v1 by some clients is read so when the frame then decodes
// exactly.
func requestHeaderVersion(api *codec.API, f *dissect.Frame, key, version int16) int16 {
	hv := codec.RequestHeaderVersion(key, version)
	if hv != 0 || api == nil || !api.SupportsVersion(version) {
		return hv
	}
	exact := func(hv int16) bool {
		r := f.Reader(0)
		new(codec.RequestHeader).ReadFrom(r, hv)
		api.NewRequest().ReadFrom(r, version)
		return r.Err() == nil && r.Remaining() == 0
	}
	if !exact(0) && exact(1) {
		return 1
	}
	return 0
}

func bodyWhy(ex *dissect.Exchange, why string) string {
	if ex.APIKey < 0 {
		return "response to a request not captured: its ApiKey and version are unknown"
	}
	return fmt.Sprintf("%s %d", why, ex.APIKey)
}

// messageName is the schema's name of a body: "ProduceRequest".
func messageName(api *codec.API, response bool) string {
	if response {
		return api.Name + "Response"
	}
	return api.Name + "Request"
}
