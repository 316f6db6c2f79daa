package dissect

import (
	"math/bits"
	"sync"
)

// Frame buffers come in power-of-two classes from 4 KiB to 16 MiB; smaller
// requests get 4 KiB, larger frames are allocated as before and left to the
// garbage collector when released. Fetch responses of a few MiB are common
// (a consumer catching up): allocating each anew, zeroed, took a fifth of
// `kdissect stats` on a real kcat capture; larger frames are rare, and
// pooling them would keep tens of megabytes alive for nothing.
const (
	poolMinShift = 12
	poolMaxShift = 24
)

// FramePool recycles the buffers that hold frame bytes (Frame.Bytes).
// Without it every frame is a fresh allocation, which the framer must zero
// and the garbage collector must reclaim: at hundreds of MB/s of capture,
// that is a fifth of the CPU time of `kdissect stats`.
//
// A pool is set in Options.FramePool; the caller then gives each exchange's
// buffers back with Release once it is done with the exchange and with
// everything decoded from it (decoded bodies and record sets alias the
// frame bytes: a Bytes field of a body, a record's Key and Value). A pool
// is safe for concurrent use: the dissector takes buffers on its goroutine
// while the output releases them on another. The zero FramePool is ready
// to use.
type FramePool struct {
	classes [poolMaxShift - poolMinShift + 1]sync.Pool // of *[]byte
	boxes   sync.Pool                                  // empty *[]byte, to box released buffers without allocating

	// Poison fills each released buffer with 0xAA, so that whatever still
	// reads a frame after its exchange was released sees garbage instead
	// of another frame's bytes: for tests, and for hunting such a bug.
	Poison bool
}

// get returns an empty buffer whose capacity is at least n bytes.
func (p *FramePool) get(n int) []byte {
	if p == nil || n > 1<<poolMaxShift {
		return make([]byte, 0, n)
	}
	shift := poolMinShift
	if n > 1<<poolMinShift {
		shift = bits.Len(uint(n - 1))
	}
	if b, ok := p.classes[shift-poolMinShift].Get().(*[]byte); ok {
		s := (*b)[:0]
		*b = nil
		p.boxes.Put(b)
		return s
	}
	return make([]byte, 0, 1<<shift)
}

// put takes b back for a later get.
func (p *FramePool) put(b []byte) {
	c := cap(b)
	if p == nil || c < 1<<poolMinShift {
		return
	}
	// The largest class b can serve: get(n) relies on cap >= 1<<shift.
	shift := bits.Len(uint(c)) - 1
	if shift > poolMaxShift {
		return
	}
	if p.Poison {
		b = b[:c]
		for i := range b {
			b[i] = 0xAA
		}
	}
	box, _ := p.boxes.Get().(*[]byte)
	if box == nil {
		box = new([]byte)
	}
	*box = b[:0]
	p.classes[shift-poolMinShift].Put(box)
}

// Release gives the frame buffers of ex back to p and clears ex's frame
// bytes (Frame.Bytes becomes nil), so that a second Release of the same
// exchange gives nothing back twice. After it, neither ex's frames nor
// anything decoded from them may be read. A nil pool or exchange does
// nothing.
func (p *FramePool) Release(ex *Exchange) {
	if p == nil || ex == nil {
		return
	}
	for _, fr := range [2]*Frame{ex.Request, ex.Response} {
		if fr == nil || fr.Bytes == nil {
			continue
		}
		p.put(fr.Bytes)
		fr.Bytes = nil
	}
}
