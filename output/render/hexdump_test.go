package render

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/dissect"
)

// checkLabelCover checks that the leaf labels of one space (the frame, or
// a decompressed section) cover [0, size) with no byte unlabelled and no
// two labels overlapping.
func checkLabelCover(leaves []Label, size int) error {
	at := 0
	for _, l := range leaves {
		switch {
		case l.Start > at:
			return fmt.Errorf("bytes 0x%x-0x%x unlabelled (before %s)", at, l.Start-1, l.Path)
		case l.Start < at:
			return fmt.Errorf("%s [0x%x, 0x%x) overlaps the label before it, which ends at 0x%x", l.Path, l.Start, l.End, at)
		case l.End < l.Start:
			return fmt.Errorf("%s ends before it starts", l.Path)
		}
		at = l.End
	}
	if at != size {
		return fmt.Errorf("labels end at 0x%x, the bytes at 0x%x", at, size)
	}
	return nil
}

// checkFrameLabels checks every space of one frame's labels.
func checkFrameLabels(ft *FrameTree, labels []Label) error {
	spaces := map[int][]Label{}
	sizes := map[int]int{0: ft.Root.End}
	for _, l := range labels {
		if l.Leaf {
			spaces[l.Section] = append(spaces[l.Section], l)
		} else if l.Section > 0 && l.Name == "(decompressed)" {
			sizes[l.Section] = len(l.data)
		}
		if !l.Leaf && l.Section == 0 && (l.Start < 0 || l.End > sizes[0]) {
			return fmt.Errorf("%s [0x%x, 0x%x) is outside the frame", l.Path, l.Start, l.End)
		}
	}
	for s, size := range sizes {
		if err := checkLabelCover(spaces[s], size); err != nil {
			if s > 0 {
				return fmt.Errorf("decompressed section %d: %w", s, err)
			}
			return err
		}
	}
	return nil
}

// TestHexdumpLabelsCoverEveryByte is the hexdump's contract: for every
// frame of every test capture, the labels the hexdump writes cover every
// byte of the frame (size prefix included) exactly once, and every byte
// of each decompressed record payload exactly once.
func TestHexdumpLabelsCoverEveryByte(t *testing.T) {
	frames, sections, undecoded := 0, 0, 0
	for _, c := range testCaptures(t) {
		for i, ex := range readExchanges(t, c) {
			for _, response := range []bool{false, true} {
				ft := TraceFrame(ex, response, TraceOptions{})
				if ft == nil {
					continue
				}
				frames++
				labels := Labels(ft, false)
				if err := checkFrameLabels(ft, labels); err != nil {
					t.Errorf("%s: exchange %d (%s) %s: %v", filepath.Base(c.path), i, apiLabel(ex), ft.Root.Name, err)
				}
				for _, l := range labels {
					if l.Name == "(decompressed)" {
						sections++
					}
					if l.Style == StyleNote {
						undecoded++
					}
				}
			}
		}
	}
	t.Logf("%d frames, %d decompressed sections, %d ranges not decoded", frames, sections, undecoded)
	if frames < 1000 || sections < 20 {
		t.Errorf("only %d frames and %d sections checked", frames, sections)
	}
}

// TestHexdumpMasksSecrets checks that credentials are masked unless asked.
func TestHexdumpMasksSecrets(t *testing.T) {
	// SaslAuthenticate v2 request: header v2 (flexible), AuthBytes
	// "\x00user\x00pass" (PLAIN), no tagged fields.
	token := "\x00user\x00secret-pw"
	frame := []byte{0, 36, 0, 2, 0, 0, 0, 7, 0, 1, 'c', 0}
	frame = append(frame, byte(len(token)+1))
	frame = append(frame, token...)
	frame = append(frame, 0)
	ex := &dissect.Exchange{APIKey: 36, APIVersion: 2, CorrelationID: 7,
		Request: &dissect.Frame{Bytes: frame, Size: int32(len(frame))}}
	dissect.NewDecoder(dissect.DecodeOptions{}).DecodeFrames(ex)
	if ex.Decoded.Request == nil {
		t.Fatalf("frame does not decode: %v", ex.Notes)
	}
	for _, show := range []bool{false, true} {
		var b strings.Builder
		h, err := NewHexdump(&b, HexdumpOptions{ShowSecrets: show})
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Write(ex); err != nil {
			t.Fatal(err)
		}
		h.Flush()
		out := b.String()
		hasPw := strings.Contains(out, "secret-pw") || strings.Contains(out, "|ecret-pw|")
		if hasPw != show {
			t.Errorf("show secrets %v: password shown %v:\n%s", show, hasPw, out)
		}
		if !show && !strings.Contains(out, `AuthBytes = "\x00user\x00***"`) {
			t.Errorf("redacted token lacks the user name:\n%s", out)
		}
	}
}

// TestHexdumpLabelsCoverDamagedFrames cuts and corrupts frames of the
// test captures, and reads copies of them cut to snap lengths and with
// packets dropped (holes): whatever no longer decodes, and whatever was
// not captured, must still be labelled, every byte once.
func TestHexdumpLabelsCoverDamagedFrames(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	dec := dissect.NewDecoder(dissect.DecodeOptions{})
	checked := 0
	for _, c := range testCaptures(t) {
		for _, ex := range readExchanges(t, c) {
			for i := 0; i < 4; i++ {
				bad := damaged(ex, rng, i, dec)
				for _, response := range []bool{false, true} {
					ft := TraceFrame(bad, response, TraceOptions{})
					if ft == nil {
						continue
					}
					checked++
					if err := checkFrameLabels(ft, Labels(ft, false)); err != nil {
						t.Fatalf("%s: damaged %s of %s: %v", filepath.Base(c.path), ft.Root.Name, apiLabel(ex), err)
					}
				}
			}
		}
	}
	// Damaged as captures are: snapped, packets dropped (the lazy trace
	// of these, and of kcat_mtu's, is TestViewsOnDamagedCaptures').
	holed := 0
	for _, c := range damagedCaptures(t) {
		if strings.HasPrefix(c.name, "kcat_mtu") {
			continue // Fetch responses of thousands of records, as a whole tree
		}
		for _, ex := range readCapture(t, c.data, dissect.DecodeOptions{}) {
			for _, response := range []bool{false, true} {
				ft := TraceFrame(ex, response, TraceOptions{})
				if ft == nil {
					continue
				}
				checked++
				if len(ft.holes) > 0 {
					holed++
				}
				if err := checkFrameLabels(ft, Labels(ft, false)); err != nil {
					t.Fatalf("%s: %s of %s: %v", c.name, ft.Root.Name, apiLabel(ex), err)
				}
			}
		}
	}
	t.Logf("%d damaged frames checked, %d of them with holes", checked, holed)
	if holed < 300 {
		t.Errorf("only %d frames with holes", holed)
	}
}
