package dissect

import (
	"bytes"
	"strings"
	"testing"
)

// TestFramerMaxSizeIsInclusive: the frame size limit (--max-frame-size,
// DefaultMaxFrameSize) is the largest size decoded, so a frame of exactly
// that size is a frame with its bytes, and one byte more is oversized
// (skipped by its length, its bytes not kept).
func TestFramerMaxSizeIsInclusive(t *testing.T) {
	frame := reqFrame(3, 12, 42, "c", []byte("metadata"))
	size := len(frame) - 4
	for _, c := range []struct {
		max       int
		oversized bool
	}{{size, false}, {size + 1, false}, {size - 1, true}} {
		var s testSink
		frameAll(toBroker, c.max, false, frame, nil, &s)
		if len(s.frames) != 1 {
			t.Fatalf("max %d, frame of %d: %d frames, want 1", c.max, size, len(s.frames))
		}
		f := s.frames[0]
		if f.Oversized != c.oversized {
			t.Errorf("max %d, frame of %d: Oversized %v, want %v", c.max, size, f.Oversized, c.oversized)
		}
		if !c.oversized && !bytes.Equal(f.Bytes, frame[4:]) {
			t.Errorf("max %d, frame of %d: bytes %x, want %x", c.max, size, f.Bytes, frame[4:])
		}
	}
}

// TestCorrFollowsAtTheEdges holds corrFollows to its contract at the
// shortest frames that carry a CorrelationId: a response of its 4 bytes
// alone, a request of the 8 bytes up to it (ApiKey, ApiVersion,
// CorrelationId). The id is there, so it is compared: a next frame whose
// id jumps more than maxCorrelationStep does not follow; one byte less and
// there is nothing to compare (true).
func TestCorrFollowsAtTheEdges(t *testing.T) {
	for _, dir := range []frameDir{toClient, toBroker} {
		f := &framer{dir: dir}
		at := 0
		if dir == toBroker {
			at = 4
		}
		frame := append(make([]byte, at), sizePrefixOf(7)...) // CorrelationId 7
		next := func(corr int32) []byte {
			return append(append(sizePrefixOf(100), make([]byte, at)...), sizePrefixOf(corr)...)
		}
		if !f.corrFollows(frame, next(8)) {
			t.Errorf("%s: id 8 after 7 in a %d-byte frame does not follow", dir, len(frame))
		}
		if f.corrFollows(frame, next(7+maxCorrelationStep+1)) {
			t.Errorf("%s: a jump of %d after a %d-byte frame follows", dir, maxCorrelationStep+1, len(frame))
		}
		if !f.corrFollows(frame[:len(frame)-1], next(7+maxCorrelationStep+1)) {
			t.Errorf("%s: a %d-byte frame without its whole id: want true (nothing to compare)", dir, len(frame)-1)
		}
		if f.corrFollows(frame, next(7 + maxCorrelationStep + 1)[:4+at+4]) {
			t.Errorf("%s: a next frame cut right after its id is still compared", dir)
		}
	}
}

// TestFramerJudgesAFourByteSize: a size prefix is judged once its 4
// bytes are there, no later. After a resynchronisation a candidate frame
// is confirmed by what follows it; a following prefix that the capture
// ends right after must count as much as a longer one: an implausible
// size (-1) refuses the candidate either way, a plausible one (20, a
// frame cut by the capture's end) confirms it either way.
func TestFramerJudgesAFourByteSize(t *testing.T) {
	good := reqFrame(3, 12, 42, "c", []byte("metadata"))
	for _, c := range []struct {
		next   []byte
		frames int
	}{
		{[]byte{0xff, 0xff, 0xff, 0xff}, 0},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff}, 0},
		{[]byte{0, 0, 0, 20}, 2},
		{[]byte{0, 0, 0, 20, 0}, 2},
	} {
		var s testSink
		frameAll(toBroker, DefaultMaxFrameSize, false, cat(sizePrefixOf(-1), good, c.next), nil, &s)
		if len(s.frames) != c.frames {
			t.Errorf("next %x: %d frames (notes %q, lost %d), want %d", c.next, len(s.frames), s.notes, s.lostN, c.frames)
		}
		if c.frames > 0 && !bytes.Equal(s.frames[0].Bytes, good[4:]) {
			t.Errorf("next %x: first frame %x, want the good one", c.next, s.frames[0].Bytes)
		}
	}
}

// TestFramerEndInsideCandidateIsNoGap: a candidate frame found after a
// resynchronisation that the stream ends inside was never confirmed, so
// the rest its size announces is not bytes the capture missed. A 31-byte
// stream (an implausible prefix, a frame, another implausible prefix) is
// 31 bytes not framed, not "a gap of megabytes in 3 holes".
func TestFramerEndInsideCandidateIsNoGap(t *testing.T) {
	good := reqFrame(3, 12, 42, "c", []byte("metadata"))
	stream := cat(sizePrefixOf(-1), good, []byte{0xff, 0xff, 0xff, 0xff})
	for _, end := range []HoleCause{HoleCaptureEnded, HoleConnectionEnded} {
		var s testSink
		f := newFramer(toBroker, DefaultMaxFrameSize, nil, &s, false, nil)
		f.feed(stream, chunkLocator(0))
		f.finish(end)
		if s.lostN != int64(len(stream)) || len(s.frames) != 0 {
			t.Errorf("%v: %d frames, %d bytes lost (%q), want 0 and %d", end, len(s.frames), s.lostN, s.lostWhy, len(stream))
		}
		for _, why := range s.lostWhy {
			if strings.Contains(why, "gap in the capture") || strings.Contains(why, "not captured") {
				t.Errorf("%v: lost bytes explained by a gap the capture does not have: %q", end, why)
			}
		}
	}
}
