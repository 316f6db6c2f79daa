package codec

// Frames with holes, over every frame the codec's tests hold: the golden
// frames, the kmsg seed frames of the fuzz corpora (one per key, version
// and side), and a larger random value per key, version and side encoded
// by us. Each frame is cut at every byte offset (a gap [k, size): the
// capture lost its end) and punched with interior gaps [a, b) at many
// positions, and its decode with holes is held to its clean decode:
//
//   - nothing panics;
//   - the JSON of the decode with holes is the clean JSON with fields
//     left out (jsonSubset), plus only "not_captured" and the record
//     entries' "RecordsNotCaptured" and "NotCaptured";
//   - every field the decoder reports to its Tracer with a value lies
//     outside the gaps and has the clean decode's value, at the same
//     place; every field in a gap is reported as NotCapturedValue; every
//     clean field before the stop (if any) and outside the gaps is
//     reported, with its value; none after the stop is;
//   - a stop is ErrNotCaptured whose path is the stop entry's;
//   - the records counted never exceed the clean count, and the summary
//     names only topics, partitions and errors the clean one names.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// gapFrame is one frame (header and body, no size prefix) of the corpus.
type gapFrame struct {
	name     string
	api      *API
	version  int16
	response bool
	frame    []byte
}

// gapCorpus returns the frames the gap tests cut: goldens, kmsg seeds and
// random values, those the codec decodes completely.
func gapCorpus(t testing.TB) []gapFrame {
	t.Helper()
	var out []gapFrame
	add := func(name string, key, version int16, response bool, frame []byte) {
		api, ok := LookupAPI(key)
		if !ok || !api.SupportsVersion(version) {
			return
		}
		f := gapFrame{name, api, version, response, frame}
		if d := decodeGapFrame(f, frame, len(frame), nil); d.err != nil || d.rest != 0 || len(d.warnings) > 0 {
			return
		}
		out = append(out, f)
	}
	for _, c := range goldenCases() {
		add("golden "+c.name, c.key, c.version, c.response, c.frame)
	}
	for _, dir := range []string{"FuzzDecodeRequest", "FuzzDecodeResponse"} {
		paths, err := filepath.Glob(filepath.Join("testdata", "fuzz", dir, "kmsg-*"))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			content, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			response := dir == "FuzzDecodeResponse"
			key, version, frame, err := kdParseSeed(string(content), response)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			add("seed "+filepath.Base(p)+" "+dir, key, version, response, frame)
		}
	}
	for _, c := range kdAllCombos() {
		side := uint64(0)
		if c.response {
			side = 1
		}
		rng := rand.New(rand.NewPCG(uint64(c.api.Key)<<16|uint64(c.version), 0x6a95<<1|side))
		header := kdRequestHeader(c.api.Key, c.version)
		if c.response {
			header = fuzzResponseHeader(c.api.Key, c.version)
		}
		for range 5 {
			g := &kdGen{rng: rng, tags: c.api.IsFlexible(c.version)}
			m := c.newOurs()
			g.fillOurs(reflect.ValueOf(m).Elem())
			frame := m.AppendTo(append([]byte(nil), header...), c.version)
			if len(frame) > 4096 {
				continue
			}
			if d := decodeGapFrame(gapFrame{api: c.api, version: c.version, response: c.response}, frame, len(frame), nil); d.err == nil && d.rest == 0 && len(d.warnings) == 0 {
				add("random "+c.name(), c.api.Key, c.version, c.response, frame)
				break
			}
		}
	}
	return out
}

// gapDecoded is a frame decoded, with or without holes.
type gapDecoded struct {
	r        *Reader
	err      error
	rest     int
	warnings []string
	header   interface {
		WriteJSON(*JSONWriter, int16)
		NotCaptured() []NotCaptured
	}
	hv       int16
	body     Message
	json     []byte
	bodyJSON []byte
	leaves   []span
	count    int
	sum      Summary
	notCapt  []NotCaptured
	bodyNotC []NotCaptured
}

// decodeGapFrame decodes the frame of size bytes of which b holds the
// first len(b), with gaps (nil: a Reader over the whole frame), with a
// tracer, then its summary, record sets and JSON.
func decodeGapFrame(f gapFrame, b []byte, size int, gaps []Gap) *gapDecoded {
	d := &gapDecoded{}
	if gaps == nil && len(b) == size {
		d.r = NewReader(b)
	} else {
		d.r = NewGappedReader(b, size, gaps)
	}
	tr := &spanTracer{}
	d.r.SetTracer(tr)
	if f.response {
		h := new(ResponseHeader)
		d.hv = ResponseHeaderVersion(f.api.Key, f.version)
		h.ReadFrom(d.r, d.hv)
		d.header, d.body = h, f.api.NewResponse()
	} else {
		h := new(RequestHeader)
		d.hv = RequestHeaderVersion(f.api.Key, f.version)
		h.ReadFrom(d.r, d.hv)
		d.header, d.body = h, f.api.NewRequest()
	}
	d.body.ReadFrom(d.r, f.version)
	d.err = d.r.Err()
	d.rest = d.r.Remaining()
	d.warnings = d.r.Warnings
	d.leaves = tr.leaves
	d.notCapt = d.r.NotCaptured()
	d.bodyNotC = d.body.NotCaptured()
	d.body.Summarize(&d.sum, f.version)
	for _, rr := range d.sum.Records {
		d.count += rr.Records.DecodeRecords(RecordDecodeOptions{}).Count()
	}
	w := NewJSONWriter(nil)
	w.BeginArray()
	d.header.WriteJSON(w, d.hv)
	d.body.WriteJSON(w, f.version)
	w.EndArray()
	d.json = w.Bytes()
	bw := NewJSONWriter(nil)
	d.body.WriteJSON(bw, f.version)
	d.bodyJSON = bw.Bytes()
	return d
}

// cutFrame returns frame with the bytes of gaps overwritten (their content
// must not matter) and without the bytes from held on.
func cutFrame(frame []byte, held int, gaps []Gap) []byte {
	b := append([]byte(nil), frame[:held]...)
	for _, g := range gaps {
		for i := g.Start; i < g.End && i < len(b); i++ {
			b[i] ^= 0x5a
		}
	}
	return b
}

func parseJSON(t testing.TB, js []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, js)
	}
	return v
}

// jsonSubset returns "" when cut is clean with members left out, else
// where it is not. Arrays keep their order and may end early; the entries
// of a record set ("Records") and unknown tagged fields may also lose
// elements in the middle. Keys only a decode with holes writes are
// allowed: "not_captured" in a message object (depth 1), and in record
// entries "RecordsNotCaptured" and "NotCaptured"; a records field left
// undecoded shows its "Length" and "NotCaptured" in place of its bytes.
func jsonSubset(cut, clean any, path string, depth int) string {
	switch c := cut.(type) {
	case map[string]any:
		k, ok := clean.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: object where the clean decode has %T", path, clean)
		}
		if _, und := k["Undecoded"]; und && len(c) == 2 && c["Length"] != nil && c["NotCaptured"] != nil {
			return ""
		}
		for key, v := range c {
			kv, in := k[key]
			if !in {
				if key == "not_captured" && depth == 1 || key == "RecordsNotCaptured" || key == "NotCaptured" {
					continue
				}
				return fmt.Sprintf("%s.%s: not in the clean decode", path, key)
			}
			if key == "not_captured" {
				return fmt.Sprintf("%s: not_captured in the clean decode", path)
			}
			if va, isArr := v.([]any); isArr && (key == "Records" || key == "UnknownTaggedFields") {
				ka, ok := kv.([]any)
				if !ok {
					return fmt.Sprintf("%s.%s: array where the clean decode has %T", path, key, kv)
				}
				// A subsequence: each element matches a later clean one.
				j := 0
				for i, e := range va {
					for j < len(ka) && jsonSubset(e, ka[j], "", depth+2) != "" {
						j++
					}
					if j == len(ka) {
						return fmt.Sprintf("%s.%s[%d]: matches no clean element after the previous one: %v", path, key, i, e)
					}
					j++
				}
				continue
			}
			if d := jsonSubset(v, kv, path+"."+key, depth+1); d != "" {
				return d
			}
		}
		return ""
	case []any:
		k, ok := clean.([]any)
		if !ok {
			return fmt.Sprintf("%s: array where the clean decode has %T", path, clean)
		}
		if len(c) > len(k) {
			return fmt.Sprintf("%s: %d elements, the clean decode %d", path, len(c), len(k))
		}
		for i := range c {
			if d := jsonSubset(c[i], k[i], fmt.Sprintf("%s[%d]", path, i), depth+1); d != "" {
				return d
			}
		}
		return ""
	default:
		if !reflect.DeepEqual(cut, clean) {
			return fmt.Sprintf("%s: %v, the clean decode %v", path, cut, clean)
		}
		return ""
	}
}

func overlapsGaps(gaps []Gap, s, e int) bool {
	for _, g := range gaps {
		if g.Start < e && g.End > s {
			return true
		}
	}
	return false
}

type leafKey struct {
	path       string
	start, end int
}

// checkGapDecode holds the decode of f with gaps (the frame's size is
// len(f.frame)) to its clean decode.
func checkGapDecode(t *testing.T, f gapFrame, clean, cut *gapDecoded, gaps []Gap, cleanJSON any) bool {
	t.Helper()
	size := len(f.frame)
	fail := func(format string, args ...any) bool {
		t.Errorf("%s, gaps %v: %s", f.name, gaps, fmt.Sprintf(format, args...))
		return false
	}
	// The stop, if any.
	stop := size
	for i, e := range cut.notCapt {
		if e.Start < 0 || e.End > size || e.Start >= e.End {
			return fail("entry %+v outside the frame", e)
		}
		if i > 0 && e.Start < cut.notCapt[i-1].Start {
			return fail("entries out of wire order: %+v", cut.notCapt)
		}
		if e.Stop {
			if i != len(cut.notCapt)-1 || e.End != size {
				return fail("stop entry %+v not last or not to the end: %+v", e, cut.notCapt)
			}
			stop = e.Start
		} else if !overlapsGaps(gaps, e.Start, e.End) {
			return fail("entry %+v meets no gap", e)
		}
	}
	var de *DecodeError
	switch {
	case stop < size && (!errors.As(cut.err, &de) || !errors.Is(cut.err, ErrNotCaptured)):
		return fail("stopped, but Err is %v", cut.err)
	case stop < size && de.Path != cut.notCapt[len(cut.notCapt)-1].Path:
		return fail("stop entry path %q, Err's %q", cut.notCapt[len(cut.notCapt)-1].Path, de.Path)
	case stop == size && cut.err != nil:
		return fail("no stop, but Err is %v", cut.err)
	}
	if len(cut.notCapt) > 0 && !overlapsGaps(gaps, cut.notCapt[0].Start, size) {
		return fail("entries without gaps: %+v", cut.notCapt)
	}
	// Fields reported to the Tracer.
	cleanAt := map[leafKey]span{}
	for _, l := range clean.leaves {
		cleanAt[leafKey{l.path, l.start, l.end}] = l
	}
	cutAt := map[leafKey]span{}
	for _, l := range cut.leaves {
		k := leafKey{l.path, l.start, l.end}
		cutAt[k] = l
		cl, ok := cleanAt[k]
		if !ok {
			return fail("field %s [%d,%d) reported, not in the clean decode", l.path, l.start, l.end)
		}
		if l.start >= stop && l.end > l.start {
			return fail("field %s [%d,%d) reported after the stop at %d", l.path, l.start, l.end, stop)
		}
		switch v := l.value.(type) {
		case NotCapturedValue:
			if !overlapsGaps(gaps, l.start, l.end) {
				return fail("field %s [%d,%d) not captured, outside the gaps", l.path, l.start, l.end)
			}
		case *Records:
			if (v.Gaps != nil) != overlapsGaps(gaps, l.start, l.end) {
				return fail("records %s [%d,%d): Gaps %v", l.path, l.start, l.end, v.Gaps)
			}
		default:
			if overlapsGaps(gaps, l.start, l.end) {
				return fail("field %s [%d,%d) = %v reported though it meets a gap", l.path, l.start, l.end, v)
			}
			if !reflect.DeepEqual(v, cl.value) {
				return fail("field %s [%d,%d) = %v, clean %v", l.path, l.start, l.end, v, cl.value)
			}
		}
	}
	for _, l := range clean.leaves {
		if l.end > stop || l.start >= stop {
			continue
		}
		if _, ok := cutAt[leafKey{l.path, l.start, l.end}]; !ok {
			return fail("field %s [%d,%d) before the stop at %d not reported", l.path, l.start, l.end, stop)
		}
	}
	if stop == size && len(cut.leaves) != len(clean.leaves) {
		return fail("no stop, %d fields reported, clean %d", len(cut.leaves), len(clean.leaves))
	}
	// JSON.
	if d := jsonSubset(parseJSON(t, cut.json), cleanJSON, "", 0); d != "" {
		return fail("JSON not a subset of the clean one: %s\n  cut:   %s\n  clean: %s", d, cut.json, clean.json)
	}
	if (len(cut.bodyNotC) > 0) != bytes.Contains(cut.bodyJSON, []byte(`"not_captured"`)) {
		return fail("body NotCaptured %v, JSON %s", cut.bodyNotC, cut.bodyJSON)
	}
	// Records and summary.
	if cut.count > clean.count {
		return fail("%d records counted, clean %d", cut.count, clean.count)
	}
	// A topic of the summary with holes may lack its name or its ID (not
	// captured), never both, nor have one the clean summary lacks.
	sameTopic := func(name string, id UUID, cname string, cid UUID) bool {
		return (name == cname || name == "" && !id.IsZero()) && (id == cid || id.IsZero() && name != "")
	}
	for _, tp := range cut.sum.Topics {
		for _, p := range append([]int32{-1}, tp.Partitions...) {
			if !slices.ContainsFunc(clean.sum.Topics, func(c TopicPartitions) bool {
				return (sameTopic(tp.Topic, tp.TopicID, c.Topic, c.TopicID) || tp.Topic == c.Topic && tp.TopicID == c.TopicID) && (p == -1 || slices.Contains(c.Partitions, p))
			}) {
				return fail("topic %q %v partition %d not in the clean summary %+v", tp.Topic, tp.TopicID, p, clean.sum.Topics)
			}
		}
	}
	used := make([]bool, len(clean.sum.Errors))
	for _, e := range cut.sum.Errors {
		found := false
		for j, c := range clean.sum.Errors {
			if !used[j] && c.Code == e.Code && (e.Topic == c.Topic && e.TopicID == c.TopicID || e.Topic == "" && e.TopicID.IsZero() || sameTopic(e.Topic, e.TopicID, c.Topic, c.TopicID)) && (e.Partition == c.Partition || e.Partition == -1) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			return fail("error %+v not in the clean summary %+v", e, clean.sum.Errors)
		}
	}
	if len(cut.sum.Records) > len(clean.sum.Records) {
		return fail("%d record sets, clean %d", len(cut.sum.Records), len(clean.sum.Records))
	}
	return true
}

// TestGappedFramesCut cuts every frame of the corpus at every byte
// offset: the capture lost [k, size).
func TestGappedFramesCut(t *testing.T) {
	corpus := gapCorpus(t)
	if len(corpus) < 1000 {
		t.Fatalf("corpus of %d frames", len(corpus))
	}
	cuts := 0
	for _, f := range corpus {
		clean := decodeGapFrame(f, f.frame, len(f.frame), nil)
		cleanJSON := parseJSON(t, clean.json)
		for k := 0; k < len(f.frame); k++ {
			gaps := []Gap{{k, len(f.frame)}}
			cut := decodeGapFrame(f, cutFrame(f.frame, k, nil), len(f.frame), nil)
			cuts++
			if !checkGapDecode(t, f, clean, cut, gaps, cleanJSON) {
				break
			}
			if cut.err == nil {
				// No stop: only records fields (which take their
				// bytes, holes and all) met the lost end.
				for _, l := range clean.leaves {
					if _, rec := l.value.(*Records); l.end > k && l.end > l.start && !rec {
						t.Errorf("%s cut at %d: no stop, yet field %s [%d,%d) is in the lost end", f.name, k, l.path, l.start, l.end)
						break
					}
				}
			}
		}
	}
	t.Logf("%d frames, %d cuts", len(corpus), cuts)
}

// TestGappedFramesInterior punches interior gaps [a, b) of several lengths
// at every offset of every frame of the corpus.
func TestGappedFramesInterior(t *testing.T) {
	corpus := gapCorpus(t)
	lengths := []int{1, 3, 8, 17}
	stride := 1
	if testing.Short() {
		lengths, stride = []int{1, 4}, 3
	}
	holes := 0
	for _, f := range corpus {
		clean := decodeGapFrame(f, f.frame, len(f.frame), nil)
		cleanJSON := parseJSON(t, clean.json)
		ok := true
		for _, n := range lengths {
			for a := 0; a+n < len(f.frame) && ok; a += stride {
				gaps := []Gap{{a, a + n}}
				cut := decodeGapFrame(f, cutFrame(f.frame, len(f.frame), gaps), len(f.frame), gaps)
				holes++
				ok = checkGapDecode(t, f, clean, cut, gaps, cleanJSON)
			}
		}
		// Two gaps at once, and one with the end cut too.
		for a := 0; a+6 < len(f.frame) && ok; a += 7 {
			gaps := []Gap{{a, a + 2}, {a + 4, a + 5}}
			cut := decodeGapFrame(f, cutFrame(f.frame, len(f.frame), gaps), len(f.frame), gaps)
			holes++
			ok = checkGapDecode(t, f, clean, cut, gaps, cleanJSON)
			if end := len(f.frame) - 1; ok && a+5 < end {
				gaps := []Gap{{a, a + 2}, {end, len(f.frame)}}
				cut := decodeGapFrame(f, cutFrame(f.frame, end, gaps[:1]), len(f.frame), gaps[:1])
				holes++
				ok = checkGapDecode(t, f, clean, cut, gaps, cleanJSON)
			}
		}
	}
	t.Logf("%d frames, %d gapped decodes", len(corpus), holes)
}

// TestGappedFramesPaths checks the paths of entries on a golden frame
// whose layout is known: a Metadata v12 response.
func TestGappedFramesPaths(t *testing.T) {
	f := metadataV12Response(t)
	// Header (5 bytes), ThrottleTimeMs [5,9), Brokers count at 9, then
	// NodeId [10,14), Host (compact string) at 14.
	gaps := []Gap{{11, 13}, {16, 17}}
	cut := decodeGapFrame(f, cutFrame(f.frame, len(f.frame), gaps), len(f.frame), gaps)
	want := []NotCaptured{{Path: "Brokers[0].NodeId", Start: 10, End: 14}, {Path: "Brokers[0].Host", Start: 15, End: 31}}
	if !reflect.DeepEqual(cut.bodyNotC, want) || cut.err != nil {
		t.Fatalf("NotCaptured %+v (err %v), want %+v", cut.bodyNotC, cut.err, want)
	}
	w := NewJSONWriter(nil)
	w.OffsetBase = 4
	cut.body.WriteJSON(w, f.version)
	if !bytes.HasSuffix(w.Bytes(), []byte(`"not_captured":[{"path":"Brokers[0].NodeId","start":14,"end":18},{"path":"Brokers[0].Host","start":19,"end":35}]}`)) {
		t.Fatalf("JSON with OffsetBase 4: %s", w.Bytes())
	}
	if bytes.Contains(w.Bytes(), []byte(`"NodeId"`)) || bytes.Contains(w.Bytes(), []byte(`"Host"`)) {
		t.Fatalf("fields not captured written: %s", w.Bytes())
	}
	// The Brokers count lost: a stop at 9, Brokers left out.
	gaps = []Gap{{9, 10}}
	cut = decodeGapFrame(f, cutFrame(f.frame, len(f.frame), gaps), len(f.frame), gaps)
	want = []NotCaptured{{Path: "Brokers", Start: 9, End: len(f.frame), Stop: true}}
	if !reflect.DeepEqual(cut.bodyNotC, want) {
		t.Fatalf("NotCaptured %+v, want %+v", cut.bodyNotC, want)
	}
	if js := string(cut.json); !strings.Contains(js, `{"ThrottleTimeMs":0,"not_captured":[{"path":"Brokers","start":9,"end":`) || !strings.HasSuffix(js, `"stop":true}]}]`) {
		t.Fatalf("JSON after a lost count: %s", js)
	}
}
