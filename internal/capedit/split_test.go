package capedit_test

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kdissect/kdissect/internal/capedit"
)

// Split by packet index writes the files `editcap -c n` writes, and says
// where each packet went.
func TestSplitMatchesEditcap(t *testing.T) {
	editcap, err := exec.LookPath("editcap")
	if err != nil {
		t.Skip("editcap not installed")
	}
	paths := captures(t)[:4]
	for _, path := range paths {
		in := readFile(t, path)
		packets := readCapture(t, in).packets
		for _, n := range []int{1, 7, 100} {
			t.Run(fmt.Sprintf("%s/%d", filepath.Base(path), n), func(t *testing.T) {
				files := (len(packets) + n - 1) / n
				got, where, err := capedit.Split(bytes.NewReader(in), files, func(p capedit.Packet) int { return p.Index / n })
				if err != nil {
					t.Fatal(err)
				}
				dir := t.TempDir()
				if b, err := exec.Command(editcap, "-F", "pcap", "-c", fmt.Sprint(n), path, filepath.Join(dir, "part.pcap")).CombinedOutput(); err != nil {
					t.Fatalf("editcap: %v: %s", err, b)
				}
				refs, _ := filepath.Glob(filepath.Join(dir, "part_*.pcap"))
				if len(refs) != len(got) {
					t.Fatalf("%d files, editcap wrote %d", len(got), len(refs))
				}
				for k, ref := range refs { // editcap numbers them from 00000: in order
					samePackets(t, readCapture(t, readFile(t, ref)).packets, readCapture(t, got[k]).packets)
				}
				for i, w := range where {
					if w.File != i/n || w.Packet != i%n {
						t.Fatalf("packet %d placed at %+v, want file %d packet %d", i, w, i/n, i%n)
					}
				}
			})
		}
	}
}
