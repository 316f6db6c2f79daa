package codec

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestRemovalsMatchKafka43 derives the removed versions from Kafka 4.3.0's
// request definitions (a validVersions minimum above the codec's, or
// "none") and the release from their comments ("removed in Apache Kafka
// R"), and holds the hand-written table to them both ways.
func TestRemovalsMatchKafka43(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "kafka-protocol-4.3", "message")
	files, _ := filepath.Glob(filepath.Join(dir, "*Request.json"))
	if len(files) == 0 {
		t.Skipf("no definitions in %s", dir)
	}
	releaseRE := regexp.MustCompile(`removed in Apache Kafka (\d+\.\d+)`)
	derived := map[int16]Removal{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var def struct {
			APIKey        *int16 `json:"apiKey"`
			Type          string `json:"type"`
			ValidVersions string `json:"validVersions"`
		}
		var body, comments strings.Builder
		for line := range strings.Lines(string(b)) {
			if c, ok := strings.CutPrefix(strings.TrimSpace(line), "//"); ok {
				comments.WriteString(c + " ")
				continue
			}
			body.WriteString(line)
		}
		if err := json.Unmarshal([]byte(body.String()), &def); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if def.Type != "request" || def.APIKey == nil {
			continue
		}
		key := *def.APIKey
		api, ok := LookupAPI(key)
		if !ok {
			t.Errorf("%s: key %d unknown to the codec", f, key)
			continue
		}
		r := Removal{Key: key, Below: -1}
		if def.ValidVersions != "none" {
			lo, _, _ := strings.Cut(def.ValidVersions, "-")
			min, err := strconv.Atoi(lo)
			if err != nil {
				t.Fatalf("%s: validVersions %q", f, def.ValidVersions)
			}
			if int16(min) <= api.MinVersion {
				continue
			}
			r.Below = int16(min)
		}
		m := releaseRE.FindStringSubmatch(comments.String())
		if m == nil {
			t.Errorf("%s: versions removed (validVersions %q) but no comment names the release", f, def.ValidVersions)
			continue
		}
		r.Release = m[1]
		derived[key] = r
	}
	for _, r := range Removals() {
		d, ok := derived[r.Key]
		if !ok {
			t.Errorf("table removes %s (below %d) but 4.3.0 does not", APIName(r.Key), r.Below)
			continue
		}
		if d.Below != r.Below || d.Release != r.Release {
			t.Errorf("%s: table below %d in %s, definitions below %d in %s", APIName(r.Key), r.Below, r.Release, d.Below, d.Release)
		}
		if r.KIP == "" || r.LastServed == "" || r.LastServed >= r.Release {
			t.Errorf("%s: KIP %q, last served in %q before %q", APIName(r.Key), r.KIP, r.LastServed, r.Release)
		}
		delete(derived, r.Key)
	}
	for _, d := range derived {
		t.Errorf("4.3.0 removes %s below %d (in %s) but the table does not", APIName(d.Key), d.Below, d.Release)
	}
}

// TestRemovedVersion: the boundaries of a range, a whole API, a key with
// nothing removed.
func TestRemovedVersion(t *testing.T) {
	for _, c := range []struct {
		key, version int16
		want         string // release, "" when not removed
	}{
		{ApiKeyProduce, 2, "4.0"},
		{ApiKeyProduce, 3, ""},
		{ApiKeyFetch, 0, "4.0"},
		{ApiKeyFetch, 4, ""},
		{ApiKeyLeaderAndIsr, 7, "4.0"},
		{ApiKeyShareFetch, 0, "4.1"},
		{ApiKeyShareFetch, 1, ""},
		{ApiKeyMetadata, 0, ""},
		{ApiKeyApiVersions, 0, ""},
		{-1, 0, ""},
	} {
		r, ok := RemovedVersion(c.key, c.version)
		if ok != (c.want != "") || r.Release != c.want {
			t.Errorf("RemovedVersion(%d, %d) = %+v, %v; want release %q", c.key, c.version, r, ok, c.want)
		}
	}
}
