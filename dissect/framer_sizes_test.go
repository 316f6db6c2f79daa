package dissect

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"
)

// sizePrefixOf is a 4-byte big-endian frame size.
func sizePrefixOf(n int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(n)) }

// TestFramerSmallAndNegativeSizes feeds size prefixes of 0 to 4 and
// negative ones, each followed by that many bytes, then a good frame. No
// Kafka frame is that small: a request header is at least 8 bytes (ApiKey,
// ApiVersion, CorrelationId), a response header 4 (CorrelationId). So a
// smaller size is implausible: it must not become a frame (an empty frame
// would be an exchange made of nothing), and the framer must say it
// resynchronised, on the good frame behind it. A response of exactly 4
// bytes is a header alone and plausible.
func TestFramerSmallAndNegativeSizes(t *testing.T) {
	good := map[frameDir][]byte{
		toBroker: reqFrame(3, 12, 42, "c", []byte("metadata")),
		toClient: respFrame(42, []byte("answer")),
	}
	for _, dir := range []frameDir{toBroker, toClient} {
		for _, size := range []int32{0, 1, 2, 3, 4, 5, 7, -1, -4, math.MinInt32} {
			t.Run(fmt.Sprintf("%s/%d", dir, size), func(t *testing.T) {
				body := filler(max(int(size), 0), 9)
				s := testSink{pending: func(id int32) bool { return id == 42 }}
				frameAll(dir, DefaultMaxFrameSize, false, cat(sizePrefixOf(size), body, good[dir]), nil, &s)
				if dir == toClient && size >= respHeaderMin && size < 8 {
					// A plausible response of size bytes, then the good one.
					if len(s.frames) != 2 || !bytes.Equal(s.frames[0].Bytes, body) || !bytes.Equal(s.frames[1].Bytes, good[dir][4:]) || len(s.notes[0])+len(s.notes[1]) != 0 {
						t.Fatalf("got %d frames %v, notes %q; want the %d-byte frame and the good one", len(s.frames), s.frames, s.notes, size)
					}
					return
				}
				if dir == toBroker && size >= reqHeaderMin {
					t.Fatalf("test bug: size %d is plausible", size)
				}
				if len(s.frames) != 1 || !bytes.Equal(s.frames[0].Bytes, good[dir][4:]) {
					t.Fatalf("got %d frames %v; want only the good frame after the size %d", len(s.frames), s.frames, size)
				}
				want := fmt.Sprintf("implausible frame size %d in the %s stream; resynchronised on this frame after skipping %d bytes", size, dir, 4+len(body))
				if len(s.notes[0]) != 1 || s.notes[0][0] != want {
					t.Errorf("notes %q, want %q", s.notes[0], want)
				}
			})
		}
	}
}

// TestEmptyFrameIsNoExchange is the dissector's side of the same: a size-0
// frame in a real TCP stream between two good requests is no exchange,
// and the exchange found behind it says the stream was resynchronised.
func TestEmptyFrameIsNoExchange(t *testing.T) {
	specs, reqs, resps := conversation(2, 1)
	clock := testClock()
	c := newConn(t, ethernet, 40000, 9092, &clock)
	pkts := c.handshake()
	pkts = append(pkts, c.send(true, reqs[0])...)
	pkts = append(pkts, c.send(false, resps[0])...)
	pkts = append(pkts, c.send(true, cat(sizePrefixOf(0), reqs[1]))...)
	pkts = append(pkts, c.send(false, resps[1])...)
	pkts = append(pkts, c.close()...)
	got, err := readAll(t, New(Options{}), writePcap(t, layers.LinkTypeEthernet, pkts))
	if err != nil {
		t.Fatal(err)
	}
	checkExchanges(t, got, specs, true)
	if len(got) == 2 {
		if len(got[0].Notes) != 0 {
			t.Errorf("first exchange: notes %q", got[0].Notes)
		}
		if !strings.Contains(strings.Join(NoteTexts(got[1].Notes), "\n"), "implausible frame size 0 in the client→broker stream; resynchronised") {
			t.Errorf("second exchange: notes %q, want the resynchronisation note", got[1].Notes)
		}
	}
}

// TestCorrStep holds the CorrelationId step a resynchronising framer
// accepts between consecutive frames to its bounds: strictly upward by at
// most maxCorrelationStep, or wrapped around past MaxInt32 by as much.
func TestCorrStep(t *testing.T) {
	for _, c := range []struct {
		last, next int32
		ok         bool
	}{
		{5, 5, false}, // the same id again
		{5, 4, false}, // backward
		{5, 6, true},
		{5, 5 + maxCorrelationStep, true},
		{5, 5 + maxCorrelationStep + 1, false},
		{math.MaxInt32, math.MinInt32, true},           // wrapped by one
		{math.MaxInt32, maxCorrelationStep - 2, true},  // d = -(2^31) + maxCorrelationStep - 1: wrapped
		{math.MaxInt32, maxCorrelationStep - 1, false}, // d = -(2^31) + maxCorrelationStep: too far back
		{math.MinInt32, math.MaxInt32, false},          // backward by 2^32-1
		{-1, maxCorrelationStep - 1, true},
	} {
		if got := corrStep(c.last, c.next); got != c.ok {
			t.Errorf("corrStep(%d, %d) = %v, want %v", c.last, c.next, got, c.ok)
		}
	}
}

// byteLocator says byte k of a chunk came in packet base+k, at second
// base+k: every byte its own packet, so an off-by-one in the packet of a
// frame's last byte shows.
type byteLocator int64

func (b byteLocator) at(k int) pktRef {
	return pktRef{index: int64(b) + int64(k), time: time.Unix(int64(b)+int64(k), 0).UnixNano()}
}

// TestFramerEndTimeIsLastByte checks that a frame's EndTime is its last
// byte's packet, for a frame taken whole and for one skipped as oversized.
func TestFramerEndTimeIsLastByte(t *testing.T) {
	small := reqFrame(3, 12, 1, "c", []byte("ab"))
	big := reqFrame(3, 12, 2, "c", filler(200, 1))
	for _, c := range []struct {
		name  string
		max   int
		frame []byte
	}{{"whole", DefaultMaxFrameSize, small}, {"oversized", 64, big}} {
		var s testSink
		f := newFramer(toBroker, c.max, nil, &s, false, nil)
		stream := cat(c.frame, reqFrame(3, 12, 3, "c", nil))
		f.feed(stream, byteLocator(0))
		f.finish(HoleCaptureEnded)
		if len(s.frames) != 2 {
			t.Fatalf("%s: %d frames", c.name, len(s.frames))
		}
		last := int64(len(c.frame) - 1)
		if got := s.frames[0].EndTime; !got.Equal(time.Unix(last, 0)) || s.frames[0].Packet != 0 {
			t.Errorf("%s: EndTime %v, packet %d; want second %d (its last byte), packet 0", c.name, got.Unix(), s.frames[0].Packet, last)
		}
	}
}
