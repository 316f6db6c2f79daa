package dissect

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/kdissect/kdissect/internal/capgen"
)

// readOneByOne dissects a capture packet by packet on the caller's
// goroutine (PacketReader and Session), as ReadCapture did before it read
// ahead.
func readOneByOne(t *testing.T, capture []byte) ([]string, error) {
	t.Helper()
	pr, err := NewPacketReader(bytes.NewReader(capture))
	if err != nil {
		return nil, err
	}
	var out []string
	s := New(Options{}).NewSession(func(ex *Exchange) { out = append(out, describe(ex)) })
	var readErr error
	for {
		data, ci, link, err := pr.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				readErr = err
			}
			break
		}
		s.Packet(link, data, ci)
	}
	s.Close()
	return out, readErr
}

// TestReadAheadSameAsOneByOne checks that reading ahead in batches changes
// nothing: on captures of small, MTU-sized and 64 KiB packets (batches cut
// by packet count and by bytes), whole and cut short, ReadCapture emits the
// exchanges that packet-by-packet dissection does, and ends with the same
// error.
func TestReadAheadSameAsOneByOne(t *testing.T) {
	for _, seg := range []int{200, 1460, 65000} {
		var buf bytes.Buffer
		res, err := capgen.Write(&buf, capgen.Config{Bytes: 3 << 20, Segment: seg, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		whole := buf.Bytes()
		for _, capture := range [][]byte{whole, whole[:len(whole)*2/3+5]} {
			name := fmt.Sprintf("segment %d, %d of %d bytes (%d packets in all)", seg, len(capture), len(whole), res.Packets)
			want, wantErr := readOneByOne(t, capture)
			var got []string
			gotErr := New(Options{}).ReadCapture(bytes.NewReader(capture), func(ex *Exchange) { got = append(got, describe(ex)) })
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Errorf("%s: error %v, want %v", name, gotErr, wantErr)
			}
			if len(got) != len(want) || len(got) == 0 {
				t.Errorf("%s: %d exchanges, want %d", name, len(got), len(want))
				continue
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("%s: exchange %d: %s, want %s", name, i, got[i], want[i])
					break
				}
			}
		}
	}
}

// TestReadAheadEnds checks that ReadCapture leaves no reading goroutine
// behind, after a sound capture and after a damaged one.
func TestReadAheadEnds(t *testing.T) {
	var buf bytes.Buffer
	if _, err := capgen.Write(&buf, capgen.Config{Bytes: 1 << 20, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	for i := range 20 {
		capture := buf.Bytes()
		if i%2 == 1 {
			capture = capture[:len(capture)/2+3]
		}
		if err := New(Options{}).ReadCapture(bytes.NewReader(capture), func(*Exchange) {}); (err != nil) != (i%2 == 1) {
			t.Fatalf("run %d: err %v", i, err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after 20 ReadCapture calls, %d before", n, before)
	}
}
