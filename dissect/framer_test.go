package dissect

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// testSink collects what a framer produces.
type testSink struct {
	frames  []*Frame
	notes   [][]string
	lostN   int64
	lostWhy []string
	pending func(int32) bool
}

func (s *testSink) frame(dir frameDir, f *Frame, notes []Note, pos int64) {
	s.frames = append(s.frames, f)
	s.notes = append(s.notes, NoteTexts(notes))
}

func (s *testSink) nextRequest(int32) bool { return true }

func (s *testSink) bodyFits(frameDir, []byte, int, []Hole) bool { return true }

func (s *testSink) sameClient([]byte) bool { return false }

func (s *testSink) responseNumbered(int32) (ok, known bool) { return false, true }

func (s *testSink) requestsHeld() bool { return false }

func (s *testSink) pendingRequest(id int32, _ pktRef) bool {
	if s.pending == nil {
		return false
	}
	return s.pending(id)
}

func (s *testSink) lost(dir frameDir, n int64, why string) {
	s.lostN += n
	s.lostWhy = append(s.lostWhy, why)
}

// chunkLocator says every byte of a chunk came in packet idx.
type chunkLocator int64

func (c chunkLocator) at(int) pktRef {
	return pktRef{index: int64(c), time: time.Unix(int64(c), 0).UnixNano()}
}

// frameAll feeds stream to a new framer in chunks of the given sizes (the
// last chunk takes the rest) and finishes it.
func frameAll(dir frameDir, max int, mid bool, stream []byte, sizes []int, sink *testSink) {
	f := newFramer(dir, max, nil, sink, mid, nil)
	pkt := int64(0)
	for _, n := range sizes {
		if n > len(stream) {
			break
		}
		f.feed(stream[:n], chunkLocator(pkt))
		stream = stream[n:]
		pkt++
	}
	f.feed(stream, chunkLocator(pkt))
	f.finish(HoleCaptureEnded)
}

func TestFramerBasics(t *testing.T) {
	a := reqFrame(0, 9, 1, "c", []byte("produce"))
	b := reqFrame(1, 12, 2, "c", nil)
	stream := cat(a, b)
	t.Run("one frame per chunk, packet of the first byte", func(t *testing.T) {
		var s testSink
		// Chunks: size prefix of a alone (packet 0), rest of a + 3 bytes
		// of b (packet 1), rest of b (packet 2).
		frameAll(toBroker, DefaultMaxFrameSize, false, stream, []int{4, len(a) - 4 + 3}, &s)
		if len(s.frames) != 2 || !bytes.Equal(s.frames[0].Bytes, a[4:]) || !bytes.Equal(s.frames[1].Bytes, b[4:]) {
			t.Fatalf("frames %v", s.frames)
		}
		if s.frames[0].Packet != 0 || !s.frames[0].EndTime.Equal(time.Unix(1, 0)) || s.frames[1].Packet != 1 || !s.frames[1].EndTime.Equal(time.Unix(2, 0)) {
			t.Errorf("packets: %d..%v, %d..%v", s.frames[0].Packet, s.frames[0].EndTime, s.frames[1].Packet, s.frames[1].EndTime)
		}
	})
	t.Run("truncated at the end", func(t *testing.T) {
		var s testSink
		frameAll(toBroker, DefaultMaxFrameSize, false, stream[:len(stream)-5], nil, &s)
		if len(s.frames) != 2 || len(s.frames[1].Bytes) != len(b)-9 || s.notes[1][0] != fmt.Sprintf("truncated frame: got %d of %d bytes (the capture ended)", len(b)-9, len(b)-4) {
			t.Fatalf("frames %v notes %q", s.frames, s.notes)
		}
	})
	t.Run("partial size prefix at the end is counted", func(t *testing.T) {
		var s testSink
		frameAll(toBroker, DefaultMaxFrameSize, false, cat(a, []byte{0, 0}), nil, &s)
		if len(s.frames) != 1 || s.lostN != 2 || !strings.Contains(s.lostWhy[0], "size prefix (2 of 4 bytes)") {
			t.Fatalf("frames %d lost %d %q", len(s.frames), s.lostN, s.lostWhy)
		}
	})
	t.Run("request too small", func(t *testing.T) {
		var s testSink
		frameAll(toBroker, DefaultMaxFrameSize, false, cat([]byte{0, 0, 0, 7}, filler(7, 0), a), nil, &s)
		// Size 7 is implausible; the scan finds a behind the 7 bytes.
		if len(s.frames) != 1 || !bytes.Equal(s.frames[0].Bytes, a[4:]) ||
			s.notes[0][0] != "implausible frame size 7 in the client→broker stream; resynchronised on this frame after skipping 11 bytes" {
			t.Fatalf("frames %d notes %q", len(s.frames), s.notes)
		}
	})
	t.Run("response resync needs a waiting request", func(t *testing.T) {
		r1, r2 := respFrame(41, []byte("xx")), respFrame(42, []byte("yyyy"))
		for _, pending := range []bool{false, true} {
			s := testSink{pending: func(id int32) bool { return pending && id == 42 }}
			f := newFramer(toClient, DefaultMaxFrameSize, nil, &s, false, nil)
			// r1 is 10 bytes: the hole takes its last byte, and 99 more.
			f.feed(r1[:9], chunkLocator(0))
			f.hole(100, HoleNotCaptured)
			f.feed(cat(filler(9, 0), r2), chunkLocator(1))
			f.finish(HoleCaptureEnded)
			want := 1 // r1, cut by the gap
			if pending {
				want = 2
			}
			if len(s.frames) != want {
				t.Errorf("pending %v: %d frames", pending, len(s.frames))
			}
			if pending && (!bytes.Equal(s.frames[1].Bytes, r2[4:]) || !strings.Contains(s.notes[1][0], "gap in the capture: 99 bytes of the broker→client stream not captured (packets not captured); resynchronised on this frame after skipping 9 bytes")) {
				t.Errorf("after the gap: %q %q", s.frames[1].Bytes, s.notes[1])
			}
		}
	})
}

// Chunking never changes what a framer makes of a stream (except which
// packet a byte came in).
func TestFramerChunkingInvariant(t *testing.T) {
	var parts [][]byte
	for i := range 20 {
		parts = append(parts, reqFrame(int16(i%5), int16(i%4), int32(i), "id", filler(i*11, byte(i))))
	}
	// An oversized frame and an implausible size in the middle.
	parts = append(parts[:10], append([][]byte{reqFrame(0, 3, 99, "big", filler(300, 1)), {0, 0, 0, 2}, filler(30, 5)}, parts[10:]...)...)
	stream := bytes.Join(parts, nil)
	var ref testSink
	frameAll(toBroker, 200, false, stream, nil, &ref)
	if len(ref.frames) != 21 {
		t.Fatalf("%d frames", len(ref.frames))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		var sizes []int
		for total := 0; total < len(stream); {
			n := 1 + rng.IntN(40)
			sizes = append(sizes, n)
			total += n
		}
		var s testSink
		frameAll(toBroker, 200, false, stream, sizes, &s)
		if err := sameFrames(&ref, &s); err != nil {
			t.Fatal(err)
		}
	}
}

func sameFrames(a, b *testSink) error {
	if len(a.frames) != len(b.frames) || a.lostN != b.lostN {
		return fmt.Errorf("%d frames, lost %d; want %d frames, lost %d", len(b.frames), b.lostN, len(a.frames), a.lostN)
	}
	for i := range a.frames {
		if !bytes.Equal(a.frames[i].Bytes, b.frames[i].Bytes) || a.frames[i].Size != b.frames[i].Size ||
			strings.Join(a.notes[i], "|") != strings.Join(b.notes[i], "|") {
			return fmt.Errorf("frame %d: %d/%d %q, want %d/%d %q", i, len(b.frames[i].Bytes), b.frames[i].Size, b.notes[i],
				len(a.frames[i].Bytes), a.frames[i].Size, a.notes[i])
		}
	}
	return nil
}

// A response accepted on its size alone at a mid-stream start is dropped
// when what follows it is not frame-like, and the bytes are scanned again.
func TestFramerTentative(t *testing.T) {
	r1, r2, r3 := respFrame(7, filler(20, 1)), respFrame(8, filler(5, 2)), respFrame(9, nil)
	// The capture starts 5 bytes into r1: "00 00 07 a?" reads as a size of
	// about 1800 bytes, which would swallow r2 and r3.
	stream := cat(r1[5:], r2, r3)
	s := testSink{pending: func(id int32) bool { return id == 8 || id == 9 }}
	frameAll(toClient, DefaultMaxFrameSize, true, stream, []int{len(r1) - 5, len(r2)}, &s)
	if len(s.frames) != 2 || !bytes.Equal(s.frames[0].Bytes, r2[4:]) || !bytes.Equal(s.frames[1].Bytes, r3[4:]) {
		t.Fatalf("%d frames: %v", len(s.frames), s.frames)
	}
	if s.frames[0].Packet != 1 || s.frames[1].Packet != 2 {
		t.Errorf("packets %d %d", s.frames[0].Packet, s.frames[1].Packet)
	}
	want := fmt.Sprintf("connection picked up mid-stream: %d bytes of the broker→client stream before the first frame boundary skipped", len(r1)-5)
	if len(s.notes[0]) != 1 || s.notes[0][0] != want || len(s.notes[1]) != 0 {
		t.Errorf("notes %q", s.notes)
	}
	// An orphan response at the start is kept when it ends with its chunk.
	s = testSink{}
	frameAll(toClient, DefaultMaxFrameSize, true, cat(r1, r2), []int{len(r1)}, &s)
	if len(s.frames) != 2 || len(s.notes[0]) != 0 {
		t.Errorf("%d frames, notes %q", len(s.frames), s.notes)
	}
}
