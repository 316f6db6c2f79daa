package dissect

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// codecCorpus is where codec's frame fuzz targets keep their seeds.
const codecCorpus = "../codec/testdata/fuzz"

// captureSeedName names the seed of the first frame of an API version and
// side found in the project's captures.
func captureSeedName(key, version int16, side string) string {
	return fmt.Sprintf("capture-%d-v%d-%s", key, version, side)
}

// captureSeeds returns one request and one response frame per ApiKey and
// version found in testdata/pcaps, as fuzz corpus file contents.
func captureSeeds(t *testing.T) map[string]string {
	seeds := map[string]string{}
	for _, c := range allCaptures(t) {
		if !strings.Contains(c.path, "testdata/pcaps") {
			continue
		}
		for _, ex := range decodeCapture(t, c) {
			if ex.Decoded.Request == nil {
				continue
			}
			if f := ex.Request; len(f.Bytes) == int(f.Size) && len(f.Bytes) <= 64<<10 {
				name := captureSeedName(ex.APIKey, ex.APIVersion, "request")
				if _, ok := seeds[name]; !ok {
					seeds[name] = fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", f.Bytes)
				}
			}
			if f := ex.Response; f != nil && ex.Decoded.Response != nil && len(f.Bytes) == int(f.Size) && len(f.Bytes) <= 64<<10 {
				name := captureSeedName(ex.APIKey, ex.APIVersion, "response")
				if _, ok := seeds[name]; !ok {
					seeds[name] = fmt.Sprintf("go test fuzz v1\nint16(%d)\nint16(%d)\n[]byte(%q)\n", ex.APIKey, ex.APIVersion, f.Bytes)
				}
			}
		}
	}
	return seeds
}

// TestCaptureFuzzSeeds checks that codec's fuzz corpus holds a seed for
// every API version and side of the project's captures (frames of real
// clients). KDISSECT_WRITE_CAPTURE_SEEDS=1 writes them.
func TestCaptureFuzzSeeds(t *testing.T) {
	seeds := captureSeeds(t)
	if len(seeds) < 100 {
		t.Fatalf("only %d capture seeds", len(seeds))
	}
	write := os.Getenv("KDISSECT_WRITE_CAPTURE_SEEDS") == "1"
	for name, content := range seeds {
		target := "FuzzDecodeRequest"
		if strings.HasSuffix(name, "-response") {
			target = "FuzzDecodeResponse"
		}
		path := filepath.Join(codecCorpus, target, name)
		if write {
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("no fuzz seed %s (run with KDISSECT_WRITE_CAPTURE_SEEDS=1): %v", path, err)
		}
	}
}
