package codec

// Fuzz seeds from the kmsg differential test: one request frame and one
// response frame (header and body, as the golden seeds) for every (key,
// version) the codec knows, committed as testdata/fuzz/FuzzDecodeRequest/
// kmsg-<key>-v<version> and testdata/fuzz/FuzzDecodeResponse/
// kmsg-<key>-v<version>. The body is a small random value (at most one
// element per array, short strings, unknown tagged fields at flexible
// versions) encoded by kmsg; where kmsg does not know the version, or
// kdSkips says kmsg's bytes are wrong, by us. Among a few random values the
// first one we decode fully and re-encode exactly is kept.
//
// TestKmsgDiffSeeds fails when a seed is missing or unreadable;
//
//	KDISSECT_WRITE_KMSG_SEEDS=1 go test ./codec -run TestKmsgDiffSeeds
//
// rewrites them all (deterministically) and removes kmsg-* seeds for
// versions the codec no longer knows.

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// kdSeedPath returns the corpus file of the seed of api at version.
func kdSeedPath(key, version int16, response bool) string {
	dir := "FuzzDecodeRequest"
	if response {
		dir = "FuzzDecodeResponse"
	}
	return filepath.Join("testdata", "fuzz", dir, fmt.Sprintf("kmsg-%d-v%d", key, version))
}

// kdSeedContent formats frame in Go's corpus format for the fuzz target.
func kdSeedContent(key, version int16, response bool, frame []byte) string {
	if response {
		return fmt.Sprintf("go test fuzz v1\nint16(%d)\nint16(%d)\n[]byte(%q)\n", key, version, frame)
	}
	return fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", frame)
}

// kdParseSeed reads a corpus file written by kdSeedContent.
func kdParseSeed(content string, response bool) (key, version int16, frame []byte, err error) {
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	want := 2
	if response {
		want = 4
	}
	if len(lines) != want || lines[0] != "go test fuzz v1" {
		return 0, 0, nil, fmt.Errorf("not a corpus file of %d values", want-1)
	}
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "[]byte(") || !strings.HasSuffix(last, ")") {
		return 0, 0, nil, fmt.Errorf("last value is not []byte: %q", last)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(last, "[]byte("), ")"))
	if err != nil {
		return 0, 0, nil, err
	}
	frame = []byte(s)
	if !response {
		if len(frame) < 4 {
			return 0, 0, nil, fmt.Errorf("frame of %d bytes", len(frame))
		}
		return int16(uint16(frame[0])<<8 | uint16(frame[1])), int16(uint16(frame[2])<<8 | uint16(frame[3])), frame, nil
	}
	var k, v int
	if _, err := fmt.Sscanf(lines[1]+" "+lines[2], "int16(%d) int16(%d)", &k, &v); err != nil {
		return 0, 0, nil, err
	}
	return int16(k), int16(v), frame, nil
}

// kdSeedFrame builds the seed frame of c, from kmsg when it can.
func kdSeedFrame(c kdCombo) (frame []byte, note string) {
	fromKmsg := c.version <= kdKmsgMaxVersion(c.api.Key, c.response)
	if _, skip := kdSkips[c.name()+"/kmsg→ours"]; skip {
		fromKmsg = false
	}
	side := uint64(0)
	if c.response {
		side = 1
	}
	rng := rand.New(rand.NewPCG(uint64(c.api.Key)<<16|uint64(c.version), 0x5eed<<1|side))
	header := kdRequestHeader(c.api.Key, c.version)
	if c.response {
		header = fuzzResponseHeader(c.api.Key, c.version)
	}
	var first []byte
	for range 20 {
		g := &kdGen{rng: rng, small: true, tags: c.api.IsFlexible(c.version)}
		var body []byte
		if fromKmsg {
			km := c.newKmsg()
			g.fillKmsg(reflect.ValueOf(km).Elem(), true)
			kdApplyTagQuirks(km, c)
			body = km.AppendTo(nil)
		} else {
			m := c.newOurs()
			g.fillOurs(reflect.ValueOf(m).Elem())
			body = m.AppendTo(nil, c.version)
		}
		frame := append(append([]byte(nil), header...), body...)
		if first == nil {
			first = frame
		}
		d := fuzzDecodeFrame(frame, c.api, c.version, c.response)
		if d.complete() && string(d.encode()) == string(frame) {
			if !fromKmsg {
				return frame, "encoded by us"
			}
			return frame, ""
		}
	}
	return first, "we do not decode it fully or re-encode it exactly"
}

// kdRequestHeader is fuzzRequestHeader (CorrelationId 7, ClientId "c"),
// but without the ClientId in header v0 (ControlledShutdown v0), as kmsg's
// RequestFormatter writes it.
func kdRequestHeader(key, version int16) []byte {
	h := fuzzRequestHeader(key, version)
	if RequestHeaderVersion(key, version) == 0 {
		return h[:8]
	}
	return h
}

// kdAllCombos lists every (key, version, side) the codec knows.
func kdAllCombos() []kdCombo {
	var out []kdCombo
	for _, a := range APIs() {
		api, _ := LookupAPI(a.Key)
		for v := api.MinVersion; v <= api.MaxVersion; v++ {
			out = append(out, kdCombo{api, v, false}, kdCombo{api, v, true})
		}
	}
	return out
}

func TestKmsgDiffSeeds(t *testing.T) {
	if os.Getenv("KDISSECT_WRITE_KMSG_SEEDS") == "1" {
		kdWriteSeeds(t)
		return
	}
	for _, c := range kdAllCombos() {
		path := kdSeedPath(c.api.Key, c.version, c.response)
		content, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: no seed (%v); regenerate with KDISSECT_WRITE_KMSG_SEEDS=1 go test ./codec -run TestKmsgDiffSeeds", c.name(), err)
			continue
		}
		key, version, _, err := kdParseSeed(string(content), c.response)
		if err != nil || key != c.api.Key || version != c.version {
			t.Errorf("%s: seed %s unreadable or for another key/version (%d v%d, err %v)", c.name(), path, key, version, err)
		}
	}
}

func kdWriteSeeds(t *testing.T) {
	keep := map[string]bool{}
	for _, c := range kdAllCombos() {
		frame, note := kdSeedFrame(c)
		path := kdSeedPath(c.api.Key, c.version, c.response)
		keep[path] = true
		if note != "" {
			t.Logf("%s: %s", c.name(), note)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(kdSeedContent(c.api.Key, c.version, c.response, frame)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range []string{"FuzzDecodeRequest", "FuzzDecodeResponse"} {
		old, _ := filepath.Glob(filepath.Join("testdata", "fuzz", dir, "kmsg-*"))
		for _, p := range old {
			if !keep[p] {
				t.Logf("removing %s: the codec no longer knows its version", p)
				if err := os.Remove(p); err != nil {
					t.Error(err)
				}
			}
		}
	}
	t.Logf("wrote %d seeds", len(keep))
}
