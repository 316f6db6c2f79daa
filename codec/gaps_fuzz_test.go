package codec

// FuzzGappedReader: a frame of any key and version, decoded whole and
// with gaps taken from a spec: never a panic, the JSON with gaps is always
// JSON, and when the whole frame decodes, the decode with gaps holds to
// it as TestGappedFramesCut and TestGappedFramesInterior hold theirs
// (checkGapDecode).
//
// Seeds (testdata/fuzz/FuzzGappedReader) are the golden frames, each with
// a cut end and with interior gaps; TestFuzzGappedReaderSeeds keeps them
// in step with the goldens, and
//
//	KDISSECT_WRITE_GAP_SEEDS=1 go test ./codec -run TestFuzzGappedReaderSeeds
//
// rewrites them (crashers found by fuzzing are kept beside them).

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// gapsFromSpec turns spec into sorted gaps within a frame of size bytes:
// spec[0] bit 0 asks for the end cut at the uint16 in spec[1:3] (mod
// size); then every 3 bytes are a gap: start (uint16 mod size) and length
// (1 + byte mod 64). It also returns how many bytes are held (the cut).
func gapsFromSpec(spec []byte, size int) (gaps []Gap, held int) {
	held = size
	if size == 0 || len(spec) == 0 {
		return nil, held
	}
	if spec[0]&1 != 0 && len(spec) >= 3 {
		held = int(binary.BigEndian.Uint16(spec[1:])) % size
	}
	rest := spec[1:]
	if spec[0]&1 != 0 {
		rest = spec[min(3, len(spec)):]
	}
	for ; len(rest) >= 3; rest = rest[3:] {
		s := int(binary.BigEndian.Uint16(rest)) % size
		gaps = append(gaps, Gap{s, min(size, s+1+int(rest[2])%64)})
	}
	if held < size {
		gaps = append(gaps, Gap{held, size})
	}
	gaps = normalizeGaps(gaps, size, size)
	return gaps, held
}

func FuzzGappedReader(f *testing.F) {
	apis := APIs()
	f.Fuzz(func(t *testing.T, key, version int16, response bool, gen uint64, frame, spec []byte) {
		// Any key and version pick a known one.
		a := apis[int(uint16(key))%len(apis)]
		api, _ := LookupAPI(a.Key)
		version = api.MinVersion + int16(int(uint16(version))%int(api.MaxVersion-api.MinVersion+1))
		if gen != 0 {
			frame = gapGenFrame(api, version, response, gen)
		}
		if len(frame) > 1<<16 {
			return
		}
		fr := gapFrame{name: fmt.Sprintf("%s v%d response=%v", api.Name, version, response), api: api, version: version, response: response, frame: frame}
		gaps, held := gapsFromSpec(spec, len(frame))
		cut := decodeGapFrame(fr, cutFrame(frame, held, gaps), len(frame), gaps)
		if !json.Valid(cut.json) {
			t.Fatalf("invalid JSON: %s", cut.json)
		}
		clean := decodeGapFrame(fr, frame, len(frame), nil)
		if clean.err != nil || len(gaps) == 0 {
			return
		}
		checkGapDecode(t, fr, clean, cut, gaps, parseJSON(t, clean.json))
	})
}

// gapGenFrame returns a frame (header and body) of api at version holding
// a random value drawn from gen, encoded by us: every input of the fuzz
// target then is a frame that decodes, whose gaps it can check.
func gapGenFrame(api *API, version int16, response bool, gen uint64) []byte {
	c := kdCombo{api, version, response}
	rng := rand.New(rand.NewPCG(gen, uint64(api.Key)<<16|uint64(uint16(version))))
	g := &kdGen{rng: rng, small: gen&1 == 0, tags: api.IsFlexible(version)}
	m := c.newOurs()
	g.fillOurs(reflect.ValueOf(m).Elem())
	header := kdRequestHeader(api.Key, version)
	if response {
		header = fuzzResponseHeader(api.Key, version)
	}
	return m.AppendTo(header, version)
}

// gapSeed returns the corpus file of a seed. The target maps key and
// version to a known API and version: seeds give an API's index in APIs()
// and the version's distance from its MinVersion.
func gapSeed(key, version int16, response bool, gen uint64, frame, spec []byte) string {
	apis := APIs()
	idx := 0
	for i, a := range apis {
		if a.Key == key {
			idx = i
		}
	}
	api, _ := LookupAPI(key)
	return fmt.Sprintf("go test fuzz v1\nint16(%d)\nint16(%d)\nbool(%v)\nuint64(%d)\n[]byte(%q)\n[]byte(%q)\n", idx, version-api.MinVersion, response, gen, frame, spec)
}

// gapSeedSpecs are the gap specs each golden is seeded with: the end cut
// at a third of the frame, and two interior gaps.
func gapSeedSpecs(size int) map[string][]byte {
	third := uint16(size / 3)
	return map[string][]byte{
		"cut":      {1, byte(third >> 8), byte(third)},
		"interior": {0, 0, byte(size / 4), 3, 0, byte(size / 2), 9},
	}
}

func TestFuzzGappedReaderSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzGappedReader")
	write := os.Getenv("KDISSECT_WRITE_GAP_SEEDS") == "1"
	if write {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	type seed struct{ name, content string }
	var seeds []seed
	for _, c := range goldenCases() {
		for kind, spec := range gapSeedSpecs(len(c.frame)) {
			name := "golden-" + strings.NewReplacer("/", "-").Replace(c.name) + "-" + kind
			seeds = append(seeds, seed{name, gapSeed(c.key, c.version, c.response, 0, c.frame, spec)})
		}
	}
	// Random values of every API at its newest version, both sides.
	for _, a := range APIs() {
		for _, response := range []bool{false, true} {
			frame := gapGenFrame(&a, a.MaxVersion, response, 3)
			spec := gapSeedSpecs(len(frame))["interior"]
			name := fmt.Sprintf("gen-%d-v%d-%v", a.Key, a.MaxVersion, response)
			seeds = append(seeds, seed{name, gapSeed(a.Key, a.MaxVersion, response, 3, nil, spec)})
		}
	}
	for _, sd := range seeds {
		{
			path := filepath.Join(dir, sd.name)
			want := sd.content
			if write {
				if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			got, err := os.ReadFile(path)
			if err != nil || string(got) != want {
				t.Errorf("seed %s missing or stale (%v); rewrite with KDISSECT_WRITE_GAP_SEEDS=1 go test ./codec -run TestFuzzGappedReaderSeeds", path, err)
			}
		}
	}
}
