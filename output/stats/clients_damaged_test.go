package stats

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/internal/capedit"
)

// TestClientVersionsApiVersionsLost: franz_idempotent.pcap without the
// packets of its ApiVersions requests (tshark finds them) is the clean
// inventory minus exactly those: no software known for any client (none is
// invented), no ApiVersions among the versions, every other version the
// clean capture's, and the same removed versions (none).
func TestClientVersionsApiVersionsLost(t *testing.T) {
	const src = "../../testdata/pcaps/franz_idempotent.pcap"
	if _, err := exec.LookPath("tshark"); err != nil {
		t.Skip("tshark not on PATH")
	}
	out, err := exec.Command("tshark", "-r", src, "-d", "tcp.port==9092,kafka", "-Y", "tcp.dstport == 9092 && kafka.api_key == 18",
		"-T", "fields", "-e", "frame.number").Output()
	if err != nil {
		t.Fatal(err)
	}
	var drop []int
	for _, f := range strings.Fields(string(out)) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		drop = append(drop, n-1) // frame numbers are 1-based
	}
	if len(drop) == 0 {
		t.Fatal("tshark found no ApiVersions request")
	}
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "damaged.pcap")
	var b bytes.Buffer
	if _, err := capedit.Rewrite(&b, bytes.NewReader(orig), capedit.Options{Drop: capedit.DropIndexes(drop...)}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	cleanVersions, _, _ := byClientID(collect(t, src).ClientVersions)
	rows := collect(t, path).ClientVersions
	got, software, removed := byClientID(rows)
	for _, r := range rows {
		if r.SoftwareName != nil || r.SoftwareVersion != nil {
			t.Errorf("%s: software %q %q without its ApiVersions", *r.ClientID, *r.SoftwareName, *r.SoftwareVersion)
		}
	}
	if len(got) != len(cleanVersions) {
		t.Errorf("%d client ids, clean %d", len(got), len(cleanVersions))
	}
	for id, clean := range cleanVersions {
		want := map[[2]int16]bool{}
		for p := range clean {
			if p[0] != codec.ApiKeyApiVersions {
				want[p] = true
			}
		}
		if !mapsEqual(got[id], want) {
			t.Errorf("%s: versions %v, want the clean ones but ApiVersions %v", id, keysOf(got[id]), keysOf(want))
		}
		if len(software[id]) > 0 || len(removed[id]) > 0 {
			t.Errorf("%s: software %v, removed %v", id, keysOf(software[id]), removed[id])
		}
	}
}
