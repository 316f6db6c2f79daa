package dissect

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/kdissect/kdissect/internal/capedit"
)

// These tests split real captures into parts (internal/capedit, which
// shares no code with the dissector) and read the parts back with
// ReadCaptures, in orders other than theirs: the exchanges must be those of
// the whole capture.

// splitCapture splits capture with capedit.Split.
func splitCapture(t *testing.T, capture []byte, n int, part func(p capedit.Packet) int) ([][]byte, []capedit.Place) {
	t.Helper()
	parts, where, err := capedit.Split(bytes.NewReader(capture), n, part)
	if err != nil {
		t.Fatal(err)
	}
	return parts, where
}

// readParts reads parts in the given order, as captures named part<k>
// read by Open (or as Reader when once), and returns the exchanges.
func readParts(t *testing.T, parts [][]byte, order []int, once bool) ([]*Exchange, error) {
	t.Helper()
	caps := make([]Capture, len(order))
	for i, k := range order {
		data := parts[k]
		caps[i] = Capture{Name: fmt.Sprintf("part%d", k)}
		if once {
			caps[i].Reader = bytes.NewReader(data)
		} else {
			caps[i].Open = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
		}
	}
	var got []*Exchange
	err := New(Options{}).ReadCaptures(caps, ReadOptions{}, func(ex *Exchange) { got = append(got, ex) })
	return got, err
}

func readWhole(t *testing.T, capture []byte) []*Exchange {
	t.Helper()
	var want []*Exchange
	if err := New(Options{}).ReadCapture(bytes.NewReader(capture), func(ex *Exchange) { want = append(want, ex) }); err != nil {
		t.Fatal(err)
	}
	return want
}

// checkSameExchanges compares the exchanges read from the parts with the
// whole's (stream, header, packet indices, sizes, notes), and checks that
// each frame names the part of its first packet and its number there.
func checkSameExchanges(t *testing.T, name string, got, want []*Exchange, where []capedit.Place) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d exchanges, want %d", name, len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if g, w := describe(got[i]), describe(want[i]); g != w {
			t.Errorf("%s: exchange %d:\n got %s\nwant %s", name, i, g, w)
			return
		}
		for _, f := range []*Frame{got[i].Request, got[i].Response} {
			if f == nil {
				continue
			}
			at := where[f.Packet]
			if wantFile := fmt.Sprintf("part%d", at.File); f.File != wantFile || f.FilePacket != int64(at.Packet) {
				t.Errorf("%s: exchange %d: frame of packet %d in %s packet %d, want %s packet %d", name, i, f.Packet, f.File, f.FilePacket, wantFile, at.Packet)
				return
			}
		}
		f := got[i].Request
		if f == nil {
			f = got[i].Response
		}
		wantFile := f.File
		if got[i].File != wantFile {
			t.Errorf("%s: exchange %d: File %q, want its request's %q", name, i, got[i].File, wantFile)
		}
	}
}

func readTestCapture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("../testdata/pcaps/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestReadCapturesSplit reads captures cut into parts of k packets (as
// editcap -c k), frames crossing from one part into the next, given in
// reverse and shuffled order: the exchanges are the whole capture's, with
// no "capture ended" at the cuts.
func TestReadCapturesSplit(t *testing.T) {
	for _, name := range []string{"franz_groups.pcap", "kcat_group.pcap", "kcat_mtu.pcap.gz"} {
		capture := readTestCapture(t, name)
		want := readWhole(t, capture)
		_, records := pcapRecords(t, capture)
		total := len(records)
		for _, k := range []int{5, 64, total / 3} {
			n := (total + k - 1) / k
			parts, where := splitCapture(t, capture, n, func(p capedit.Packet) int { return p.Index / k })
			order := make([]int, n)
			for i := range order {
				order[i] = n - 1 - i
			}
			got, err := readParts(t, parts, order, false)
			if err != nil {
				t.Fatalf("%s in parts of %d: %v", name, k, err)
			}
			checkSameExchanges(t, fmt.Sprintf("%s in %d parts of %d, reversed", name, n, k), got, want, where)
			rand.New(rand.NewPCG(uint64(k), 1)).Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
			got, err = readParts(t, parts, order, true)
			if err != nil {
				t.Fatalf("%s in parts of %d: %v", name, k, err)
			}
			checkSameExchanges(t, fmt.Sprintf("%s in %d parts of %d, shuffled, read once", name, n, k), got, want, where)
		}
	}
}

// connParity says which of two parts a packet goes to by its TCP
// connection, as two capture points would each see some of them. (Linux
// gives connect() even ports: bit 1 of the client's port decides.)
func connParity(p capedit.Packet) int {
	pkt := gopacket.NewPacket(p.Data, p.LinkType, gopacket.Lazy)
	tcp, ok := pkt.Layer(layers.LayerTypeTCP).(*layers.TCP)
	if !ok {
		return 0
	}
	return int(tcp.SrcPort^tcp.DstPort) >> 1 & 1
}

// TestReadCapturesOverlap reads a capture split by connection into two
// files whose times overlap: they are merged by time into the whole.
func TestReadCapturesOverlap(t *testing.T) {
	for _, name := range []string{"franz_groups.pcap", "franz_transactions.pcap"} {
		capture := readTestCapture(t, name)
		want := readWhole(t, capture)
		parts, where := splitCapture(t, capture, 2, connParity)
		spans := make([][2]time.Time, 2)
		for k, part := range parts {
			eachPacket(t, part, func(_ []byte, ci gopacket.CaptureInfo, _ layers.LinkType) {
				if spans[k][0].IsZero() {
					spans[k][0] = ci.Timestamp
				}
				spans[k][1] = ci.Timestamp
			})
		}
		if !spans[0][0].Before(spans[1][1]) || !spans[1][0].Before(spans[0][1]) {
			t.Fatalf("%s: the parts do not overlap in time: %v", name, spans)
		}
		got, err := readParts(t, parts, []int{1, 0}, false)
		if err != nil {
			t.Fatal(err)
		}
		checkSameExchanges(t, name+" split by connection", got, want, where)
	}
}

// TestReadCapturesErrors checks that a damaged part, a file that is not a
// capture, an empty capture and a file that cannot be opened each give an
// error naming them, and that the other parts are still read: with the
// damaged part's packets before the damage.
func TestReadCapturesErrors(t *testing.T) {
	capture := readTestCapture(t, "franz_groups.pcap")
	want := readWhole(t, capture)
	parts, _ := splitCapture(t, capture, 3, func(p capedit.Packet) int { return min(p.Index/170, 2) })
	header := parts[0][:24]
	damaged := parts[1][:len(parts[1])/2]
	caps := []Capture{
		{Name: "damaged", Reader: bytes.NewReader(damaged)},
		{Name: "garbage", Reader: strings.NewReader("not a capture at all")},
		{Name: "last", Reader: bytes.NewReader(parts[2])},
		{Name: "empty", Reader: bytes.NewReader(header)},
		{Name: "missing", Open: func() (io.ReadCloser, error) { return nil, os.ErrNotExist }},
		{Name: "first", Reader: bytes.NewReader(parts[0])},
	}
	var got []*Exchange
	err := New(Options{}).ReadCaptures(caps, ReadOptions{}, func(ex *Exchange) { got = append(got, ex) })
	var errs []*CaptureError
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var ce *CaptureError
		if !errors.As(e, &ce) {
			t.Fatalf("error %v is not a *CaptureError", e)
		}
		errs = append(errs, ce)
	}
	names := func(ces []*CaptureError) (s []string) {
		for _, c := range ces {
			s = append(s, c.Name)
		}
		return s
	}
	if n := names(errs); !slices.Equal(n, []string{"garbage", "missing", "damaged"}) {
		t.Fatalf("errors of %q (%v), want garbage, missing, then damaged once read", n, err)
	}
	if !errors.Is(errs[0], ErrNotCapture) || !errors.Is(errs[1], os.ErrNotExist) || !errors.Is(errs[2], ErrCaptureDamaged) {
		t.Errorf("causes: %v", err)
	}
	if errs[0].Index != 1 || errs[2].Index != 0 || !strings.HasPrefix(errs[2].Error(), "damaged: capture damaged at byte ") {
		t.Errorf("index or text: %d %d %q", errs[0].Index, errs[2].Index, errs[2].Error())
	}
	// The exchanges whose packets are all in "first" and "last" come out
	// as in the whole capture; the damaged part lost some of the middle.
	var lastFile []string
	for _, ex := range got {
		lastFile = append(lastFile, ex.File)
	}
	if !slices.Contains(lastFile, "first") || !slices.Contains(lastFile, "last") || !slices.Contains(lastFile, "damaged") {
		t.Errorf("exchanges of %v; want some of each readable part", slices.Compact(lastFile))
	}
	if len(got) >= len(want) || len(got) < len(want)/3 {
		t.Errorf("%d exchanges, the whole has %d", len(got), len(want))
	}
}

// TestReadCapturesFilter checks that the filter sees each packet with its
// capture's index, and that the packets it refuses are not dissected.
func TestReadCapturesFilter(t *testing.T) {
	capture := readTestCapture(t, "kcat_group.pcap")
	parts, where := splitCapture(t, capture, 2, func(p capedit.Packet) int { return p.Index % 2 })
	d := New(Options{})
	seen := [2]int{}
	caps := []Capture{{Name: "odd", Reader: bytes.NewReader(parts[1])}, {Name: "even", Reader: bytes.NewReader(parts[0])}}
	err := d.ReadCaptures(caps, ReadOptions{Filter: func(c int, _ layers.LinkType, _ []byte) bool {
		seen[c]++
		return c == 1
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	even := 0
	for _, w := range where {
		if w.File == 0 {
			even++
		}
	}
	if seen[1] != even || seen[0] != len(where)-even {
		t.Errorf("filter saw %v packets, want [%d %d]", seen, len(where)-even, even)
	}
	if st := d.Stats(); st.Packets != int64(even) {
		t.Errorf("%d packets dissected, want the %d the filter kept", st.Packets, even)
	}
}

// pcapRecords splits a classic pcap into its file header and records.
func pcapRecords(t *testing.T, capture []byte) (header []byte, records [][]byte) {
	t.Helper()
	var out bytes.Buffer
	if _, err := capedit.Rewrite(&out, bytes.NewReader(capture), capedit.Options{}); err != nil {
		t.Fatal(err)
	}
	b := out.Bytes()
	header, b = b[:24], b[24:]
	for len(b) > 0 {
		n := 16 + int(uint32(b[8])|uint32(b[9])<<8|uint32(b[10])<<16|uint32(b[11])<<24)
		records = append(records, b[:n])
		b = b[n:]
	}
	return header, records
}

// emittedAfter returns how many exchanges a session emits by the end of
// each packet: the point where a reader of a pipe must have shown them.
func emittedAfter(t *testing.T, header []byte, records [][]byte) []int {
	t.Helper()
	var counts []int
	n := 0
	s := New(Options{}).NewSession(func(*Exchange) { n++ })
	eachPacket(t, slices.Concat(append([][]byte{header}, records...)...), func(data []byte, ci gopacket.CaptureInfo, link layers.LinkType) {
		s.Packet(link, data, ci)
		counts = append(counts, n)
	})
	return counts
}

// eachPacket calls f on each packet of capture, read by PacketReader.
func eachPacket(t *testing.T, capture []byte, f func(data []byte, ci gopacket.CaptureInfo, link layers.LinkType)) {
	t.Helper()
	pr, err := NewPacketReader(bytes.NewReader(capture))
	if err != nil {
		t.Fatal(err)
	}
	for {
		data, ci, link, err := pr.Next()
		if err != nil {
			return
		}
		f(data, ci, link)
	}
}

// TestReadCapturesPipe writes a capture into a pipe in two steps: the
// exchanges complete in the first step are emitted, and Paused called,
// while the writer waits (it waits for them, up to 10 s); and Stop ends
// the reading while the writer still waits.
func TestReadCapturesPipe(t *testing.T) {
	header, records := pcapRecords(t, readTestCapture(t, "kcat_produce_lz4.pcap"))
	counts := emittedAfter(t, header, records)
	cut := slices.IndexFunc(counts, func(n int) bool { return n >= 3 }) + 1
	for _, stop := range []bool{false, true} {
		pr, pw := io.Pipe()
		var emitted int
		paused := make(chan int, 100)
		var stopNow atomic.Bool
		done := make(chan error, 1)
		go func() {
			done <- New(Options{}).ReadCaptures([]Capture{{Name: "pipe", Reader: pr, Pipe: true}}, ReadOptions{
				Paused: func() {
					paused <- emitted
					if stop && emitted >= counts[cut-1] {
						stopNow.Store(true) // as -c once its count was output
					}
				},
				Stop: stopNow.Load,
			}, func(*Exchange) { emitted++ })
		}()
		pw.Write(header)
		for _, r := range records[:cut] {
			pw.Write(r)
		}
		deadline := time.After(10 * time.Second)
	wait:
		for {
			select {
			case n := <-paused:
				if n == counts[cut-1] {
					break wait
				}
			case <-deadline:
				t.Fatalf("no pause with the %d exchanges of the first %d packets while the writer waits", counts[cut-1], cut)
			}
		}
		if stop {
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("stopped: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("ReadCaptures still waits for its pipe after Stop")
			}
			pw.Close()
			continue
		}
		for _, r := range records[cut:] {
			pw.Write(r)
		}
		pw.Close()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if emitted != counts[len(counts)-1] {
			t.Errorf("%d exchanges, want %d", emitted, counts[len(counts)-1])
		}
	}
}

// TestReadCapturesSameFirstTime reads parts whose first packets share a
// time (the capture's packets all stamped with the same second): they go
// in the order of their names, numbers compared as numbers, as tcpdump -C
// numbers its files (cap.pcap, cap.pcap1, ... cap.pcap10).
func TestReadCapturesSameFirstTime(t *testing.T) {
	header, records := pcapRecords(t, readTestCapture(t, "kcat_produce_lz4.pcap"))
	for _, r := range records {
		binary.LittleEndian.PutUint32(r[4:8], 0) // whole seconds: every packet at the same time
	}
	capture := slices.Concat(append([][]byte{header}, records...)...)
	want := readWhole(t, capture)
	const k = 6
	n := (len(records) + k - 1) / k
	parts, where := splitCapture(t, capture, n, func(p capedit.Packet) int { return p.Index / k })
	caps := make([]Capture, n)
	for i := range n {
		j := n - 1 - i
		name := "cap.pcap"
		if j > 0 {
			name += fmt.Sprint(j)
		}
		caps[i] = Capture{Name: name, Reader: bytes.NewReader(parts[j])}
	}
	var got []*Exchange
	if err := New(Options{}).ReadCaptures(caps, ReadOptions{}, func(ex *Exchange) { got = append(got, ex) }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d exchanges, want %d", len(got), len(want))
	}
	for i := range got {
		if g, w := describe(got[i]), describe(want[i]); g != w {
			t.Fatalf("exchange %d:\n got %s\nwant %s", i, g, w)
		}
		if at := where[got[i].Request.Packet]; got[i].File != caps[n-1-at.File].Name {
			t.Fatalf("exchange %d in %s, want %s", i, got[i].File, caps[n-1-at.File].Name)
		}
	}
	if compareNatural("cap.pcap9", "cap.pcap10") >= 0 || compareNatural("a01b", "a1c") >= 0 || compareNatural("x", "x") != 0 {
		t.Error("compareNatural")
	}
}

// TestCaptureSpans checks how a frame finds its capture among more than
// 2^16 (its pktRef holds the index modulo 2^16): by the packets each
// capture carried.
func TestCaptureSpans(t *testing.T) {
	const n = 1<<16 + 10
	c := newCaptureSpans(n)
	c.add(5, 100) // capture 5 carried packets 100..102
	c.add(5, 102)
	c.add(5+1<<16, 200) // and capture 65541, of the same residue, 200..201
	c.add(5+1<<16, 201)
	for _, tc := range []struct {
		packet int64
		want   int
	}{{100, 5}, {101, 5}, {102, 5}, {200, 5 + 1<<16}, {201, 5 + 1<<16}} {
		if got := c.index(5, tc.packet); got != tc.want {
			t.Errorf("packet %d: capture %d, want %d", tc.packet, got, tc.want)
		}
	}
}
