package codec

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// spanTracer records the leaf fields a decoder reports: fields with no
// field inside them.
type spanTracer struct {
	stack  []spanOpen
	leaves []span
}

type spanOpen struct {
	name     string
	start    int
	children int
}

type span struct {
	path       string
	start, end int
	value      any
}

func (t *spanTracer) Begin(name string, off int) {
	if n := len(t.stack); n > 0 {
		t.stack[n-1].children++
	}
	t.stack = append(t.stack, spanOpen{name: name, start: off})
}

func (t *spanTracer) BeginIndex(i, off int) { t.Begin("["+strconv.Itoa(i)+"]", off) }

func (t *spanTracer) End(off int, value any) {
	top := t.stack[len(t.stack)-1]
	t.stack = t.stack[:len(t.stack)-1]
	if top.children == 0 {
		var names []string
		for _, o := range t.stack {
			names = append(names, o.name)
		}
		names = append(names, top.name)
		t.leaves = append(t.leaves, span{strings.Join(names, "."), top.start, off, value})
	}
}

// checkCover fails unless the leaves tile [from, to) with no gap or overlap.
// A field of zero bytes (an absent tagged section is never zero: it is
// one byte) is allowed.
func checkCover(t *testing.T, name string, leaves []span, from, to int) {
	t.Helper()
	at := from
	for _, l := range leaves {
		if l.start != at {
			t.Errorf("%s: %s starts at %d, the previous field ended at %d", name, l.path, l.start, at)
			return
		}
		if l.end < l.start {
			t.Errorf("%s: %s ends before it starts", name, l.path)
			return
		}
		at = l.end
	}
	if at != to {
		t.Errorf("%s: fields end at %d, the body at %d", name, at, to)
	}
}

// TestTracerCoversEveryByte decodes every golden frame and every seed of
// the frame fuzz corpora with a tracer, and checks that the leaf fields
// reported cover every byte of the body exactly once: what an annotated
// hexdump needs.
func TestTracerCoversEveryByte(t *testing.T) {
	type frameCase struct {
		name     string
		key, ver int16
		response bool
		frame    []byte
	}
	var cases []frameCase
	for _, c := range goldenCases() {
		cases = append(cases, frameCase{c.name, c.key, c.version, c.response, c.frame})
	}
	for _, target := range []string{"FuzzDecodeRequest", "FuzzDecodeResponse"} {
		files, _ := filepath.Glob(filepath.Join("testdata/fuzz", target, "*"))
		for _, f := range files {
			args := readCorpusFile(t, f)
			c := frameCase{name: filepath.Base(f), response: target == "FuzzDecodeResponse"}
			if c.response {
				c.key, c.ver, c.frame = args[0].(int16), args[1].(int16), args[2].([]byte)
			} else {
				c.frame = args[0].([]byte)
				if len(c.frame) < 4 {
					continue
				}
				c.key, c.ver = int16(binary.BigEndian.Uint16(c.frame)), int16(binary.BigEndian.Uint16(c.frame[2:]))
			}
			cases = append(cases, c)
		}
	}
	traced := 0
	for _, c := range cases {
		api, ok := LookupAPI(c.key)
		if !ok || !api.SupportsVersion(c.ver) {
			continue
		}
		r := NewReader(c.frame)
		var body Message
		if c.response {
			new(ResponseHeader).ReadFrom(r, ResponseHeaderVersion(c.key, c.ver))
			body = api.NewResponse()
		} else {
			new(RequestHeader).ReadFrom(r, RequestHeaderVersion(c.key, c.ver))
			body = api.NewRequest()
		}
		if r.Err() != nil {
			continue
		}
		start := r.Offset()
		tr := &spanTracer{}
		r.SetTracer(tr)
		body.ReadFrom(r, c.ver)
		if r.Err() != nil || r.Remaining() != 0 {
			continue // not a whole frame: the fuzz targets check those
		}
		traced++
		if len(tr.stack) != 0 {
			t.Errorf("%s: %d fields begun and not ended", c.name, len(tr.stack))
		}
		checkCover(t, c.name, tr.leaves, start, len(c.frame))
	}
	if traced < 500 {
		t.Errorf("only %d frames traced", traced)
	}
}

// readCorpusFile parses a Go fuzz corpus file of int16 and []byte values.
func readCorpusFile(t *testing.T, path string) []any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var out []any
	for _, l := range lines[1:] {
		switch {
		case strings.HasPrefix(l, "int16("):
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(l, "int16("), ")"), 10, 16)
			if err != nil {
				t.Fatalf("%s: %q", path, l)
			}
			out = append(out, int16(n))
		case strings.HasPrefix(l, "[]byte("):
			s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(l, "[]byte("), ")"))
			if err != nil {
				t.Fatalf("%s: %q: %v", path, l, err)
			}
			out = append(out, []byte(s))
		default:
			t.Fatalf("%s: unexpected line %q", path, l)
		}
	}
	return out
}
