package dissect

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/codec"
)

// This file cuts every frame of the project's captures at every byte
// offset (a frame the capture ended inside, or the snap length cut) and
// decodes what is left: nothing panics, every field wholly before the cut
// decodes to what it is in the whole frame, nothing after it is stated,
// and no record is counted that the whole frame does not hold.

// bodyJSON writes a decoded body as JSON, decoded to Go values.
func bodyJSON(t *testing.T, m codec.Message, version int16) any {
	t.Helper()
	w := codec.NewJSONWriter(nil)
	m.WriteJSON(w, version)
	var v any
	if err := json.Unmarshal(w.Bytes(), &v); err != nil {
		t.Fatalf("body JSON: %v\n%s", err, w.Bytes())
	}
	return v
}

// partOf reports where cut, the JSON of a body decoded from a frame with
// holes, states something whole, the JSON of the same body decoded from
// the whole frame, does not: every member of an object is in whole with
// the same value (as far as cut goes), arrays are no longer, and the
// members that say what was not captured are allowed.
func partOf(cut, whole any, path string) string {
	switch c := cut.(type) {
	case map[string]any:
		w, ok := whole.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: an object where the whole frame has %v", path, whole)
		}
		for k, v := range c {
			switch k {
			case "not_captured", "NotCaptured", "RecordsNotCaptured":
				continue
			}
			wv, ok := w[k]
			if !ok {
				return fmt.Sprintf("%s.%s: not in the whole frame", path, k)
			}
			if d := partOf(v, wv, path+"."+k); d != "" {
				return d
			}
		}
	case []any:
		w, ok := whole.([]any)
		if !ok || len(c) > len(w) {
			return fmt.Sprintf("%s: %d elements, the whole frame %v", path, len(c), whole)
		}
		for i := range c {
			if d := partOf(c[i], w[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
	default:
		if !reflect.DeepEqual(cut, whole) {
			return fmt.Sprintf("%s: %v, the whole frame %v", path, cut, whole)
		}
	}
	return ""
}

// cutOffsets are the offsets a frame of size bytes is cut at: every one
// for frames up to 2 KiB, else every one in the first 2 KiB and 256 (64
// past 64 KiB) spread over the rest.
func cutOffsets(size int) []int {
	var out []int
	for k := 0; k < min(size, 2048); k++ {
		out = append(out, k)
	}
	if size > 2048 {
		n := 256
		if size > 64<<10 {
			n = 64
		}
		for i := range n {
			out = append(out, 2048+i*(size-2048)/n)
		}
	}
	return out
}

// leafEnds records where each field of a whole frame that is a value of
// its own in the JSON ends: primitives, not the wire mechanics (names in
// parentheses: lengths, counts, tags, null markers), nor records fields
// and tagged fields, whose JSON is a structure of its own.
type leafEnds struct {
	names []string
	ends  []int
}

func (l *leafEnds) Begin(name string, off int) { l.names = append(l.names, name) }
func (l *leafEnds) BeginIndex(i, off int)      { l.names = append(l.names, "[]") }
func (l *leafEnds) End(off int, v any) {
	name := l.names[len(l.names)-1]
	l.names = l.names[:len(l.names)-1]
	switch v.(type) {
	case nil, *codec.Records, codec.TaggedField:
		return
	}
	if strings.HasPrefix(name, "(") {
		return
	}
	for _, n := range l.names {
		if n == "Records" || strings.HasPrefix(n, "(") {
			return // inside a records field, or a tagged section
		}
	}
	l.ends = append(l.ends, off)
}

// leaves counts the values of a body's JSON, not those under the members
// the leafEnds does not count either.
func leaves(v any) int {
	switch x := v.(type) {
	case map[string]any:
		n := 0
		for k, e := range x {
			switch k {
			case "not_captured", "Records", "UnknownTaggedFields":
				continue
			}
			n += leaves(e)
		}
		return n
	case []any:
		n := 0
		for _, e := range x {
			n += leaves(e)
		}
		return n
	}
	return 1
}

// wholeLeafEnds traces the body of a whole frame: where each of its
// values ends, in the Reader's offsets (after the header).
func wholeLeafEnds(f *Frame, ex *Exchange, response bool, version int16) []int {
	api, _ := codec.LookupAPI(ex.APIKey)
	r := codec.NewReader(f.Bytes)
	if response {
		new(codec.ResponseHeader).ReadFrom(r, codec.ResponseHeaderVersion(ex.APIKey, ex.APIVersion))
	} else {
		new(codec.RequestHeader).ReadFrom(r, codec.RequestHeaderVersion(ex.APIKey, ex.APIVersion))
	}
	var l leafEnds
	r.SetTracer(&l)
	if response {
		api.NewResponse().ReadFrom(r, version)
	} else {
		api.NewRequest().ReadFrom(r, version)
	}
	return l.ends
}

func TestCutEveryFrameAtEveryOffset(t *testing.T) {
	frames, cuts := 0, 0
	for _, c := range allCaptures(t) {
		if !strings.Contains(c.path, "testdata/pcaps") {
			continue
		}
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			lost := 0
			for _, ex := range decodeCapture(t, c) {
				for _, response := range []bool{false, true} {
					f, m, version := ex.Request, ex.Decoded.Request, ex.APIVersion
					if response {
						f, m, version = ex.Response, ex.Decoded.Response, ex.Decoded.ResponseVersion
					}
					if f == nil || m == nil || !f.Captured() {
						continue
					}
					whole := bodyJSON(t, m, version)
					ends := wholeLeafEnds(f, ex, response, version)
					frames++
					for _, k := range cutOffsets(int(f.Size)) {
						cuts++
						cf := *f
						cf.Bytes = f.Bytes[:k]
						cf.Holes = []Hole{{Offset: k, Length: int(f.Size) - k, Cause: HoleCaptureEnded}}
						cx := &Exchange{Stream: ex.Stream, Client: ex.Client, Broker: ex.Broker, APIKey: ex.APIKey, APIVersion: ex.APIVersion, CorrelationID: ex.CorrelationID}
						if response {
							cx.Request, cx.Response = ex.Request, &cf
						} else {
							cx.Request = &cf
						}
						NewDecoder(DecodeOptions{}).DecodeFrames(cx)
						cm := cx.Decoded.Request
						if response {
							cm = cx.Decoded.Response
						}
						name := fmt.Sprintf("%s v%d %s cut at %d of %d", codec.APIName(ex.APIKey), ex.APIVersion, side(response), k, f.Size)
						if cx.Decoded.Records > ex.Decoded.Records {
							t.Fatalf("%s: %d records, the whole frame %d", name, cx.Decoded.Records, ex.Decoded.Records)
						}
						if cm == nil {
							// A header cut short: the body is not begun.
							if k >= 64 && !response {
								t.Fatalf("%s: no body: %v", name, cx.Notes)
							}
							continue
						}
						cut := bodyJSON(t, cm, version)
						if d := partOf(cut, whole, "body"); d != "" {
							t.Fatalf("%s: %s", name, d)
						}
						// Every value captured whole is there.
						want := 0
						for _, e := range ends {
							if e <= k {
								want++
							}
						}
						if got := leaves(cut); got < want {
							t.Errorf("%s: %d values, %d of the whole frame's end before the cut", name, got, want)
							if lost++; lost > 20 {
								t.FailNow()
							}
						}
						if k > 0 && len(cx.Notes) == 0 {
							t.Fatalf("%s: no note", name)
						}
					}
				}
			}
		})
	}
	t.Logf("%d frames cut at %d offsets", frames, cuts)
}

func side(response bool) string {
	if response {
		return "response"
	}
	return "request"
}
