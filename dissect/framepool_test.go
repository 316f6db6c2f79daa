package dissect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/internal/capgen"
)

func TestFramePoolGetPut(t *testing.T) {
	var p FramePool
	for _, n := range []int{0, 1, 4096, 4097, 10000, 64 << 10, 1 << 20, 1<<20 + 1, 3 << 20} {
		b := p.get(n)
		if len(b) != 0 || cap(b) < n {
			t.Errorf("get(%d): len %d cap %d", n, len(b), cap(b))
		}
		p.put(append(b, 1))
	}
	// A buffer put back serves only requests it can hold, whatever class
	// its capacity falls in.
	p.put(make([]byte, 5000))
	for range 10 {
		if b := p.get(8000); cap(b) < 8000 {
			t.Fatalf("get(8000) returned cap %d", cap(b))
		}
	}
	var nilPool *FramePool
	if b := nilPool.get(100); cap(b) < 100 {
		t.Errorf("nil pool get: cap %d", cap(b))
	}
	nilPool.put(make([]byte, 8192)) // must not panic
	nilPool.Release(&Exchange{Request: &Frame{Bytes: make([]byte, 8192)}})
}

func TestFramePoolRelease(t *testing.T) {
	p := FramePool{Poison: true}
	req, resp := make([]byte, 5000), make([]byte, 9000)
	ex := &Exchange{Request: &Frame{Bytes: req}, Response: &Frame{Bytes: resp}}
	p.Release(ex)
	if ex.Request.Bytes != nil || ex.Response.Bytes != nil {
		t.Error("Release left frame bytes in the exchange")
	}
	for i, b := range [][]byte{req[:cap(req)], resp[:cap(resp)]} {
		if bytes.Count(b, []byte{0xAA}) != len(b) {
			t.Errorf("buffer %d was not poisoned", i)
		}
	}
	p.Release(ex) // a second release gives nothing back twice
	p.Release(nil)
	p.Release(&Exchange{})
}

// TestFramePoolReleasedEarly proves that nothing of the dissector or the
// decoder reads a frame after its exchange was emitted and released: on
// every test capture and on synthetic captures (every codec, hundreds of
// connections' worth of frames), each exchange is decoded, snapshotted and
// released at once into a poisoning pool, and every snapshot must equal
// the one of a run without a pool. A later exchange that still read a
// released buffer (a shared frame, a kept slice) would see 0xAA or another
// frame's bytes.
func TestFramePoolReleasedEarly(t *testing.T) {
	type capture struct {
		name string
		port uint16
		data []byte
	}
	var caps []capture
	for _, c := range allCaptures(t) {
		b, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		caps = append(caps, capture{c.path, c.port, b})
	}
	for seed := range uint64(2) {
		var buf bytes.Buffer
		if _, err := capgen.Write(&buf, capgen.Config{Bytes: 4 << 20, Seed: seed}); err != nil {
			t.Fatal(err)
		}
		caps = append(caps, capture{fmt.Sprintf("capgen seed %d", seed), 9092, buf.Bytes()})
	}
	snapshots := func(c capture, pool *FramePool) []string {
		dec := NewDecoder(DecodeOptions{Records: codec.RecordDecodeOptions{MaxDecompressedBytes: codec.DefaultMaxDecompressedBytes}})
		var out []string
		err := New(Options{Ports: []uint16{c.port}, FramePool: pool}).ReadCapture(bytes.NewReader(c.data), func(ex *Exchange) {
			dec.Decode(ex)
			b, err := json.Marshal(ex)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			out = append(out, string(b))
			pool.Release(ex)
		})
		if err != nil {
			t.Logf("%s: %v", c.name, err) // a damaged capture: both runs end alike
		}
		return out
	}
	released := 0
	for _, c := range caps {
		want := snapshots(c, nil)
		got := snapshots(c, &FramePool{Poison: true})
		if len(got) != len(want) {
			t.Errorf("%s: %d exchanges with a pool, %d without", c.name, len(got), len(want))
			continue
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: exchange %d differs with a poisoning pool:\n got %.300s\nwant %.300s", c.name, i, got[i], want[i])
				break
			}
		}
		released += len(got)
	}
	t.Logf("%d captures, %d exchanges released at once", len(caps), released)
	if released < 1000 {
		t.Errorf("only %d exchanges: the check proves little", released)
	}
}
