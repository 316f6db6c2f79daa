package render

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// viewWriter is the detail or the hexdump view.
type viewWriter interface {
	Write(*dissect.Exchange) error
	Flush() error
}

// newView returns the detail (hexdump false) or hexdump view to w;
// eager traces records fields whole, as before they were traced lazily.
func newView(t testing.TB, w io.Writer, hexdump, eager bool, records codec.RecordDecodeOptions) viewWriter {
	t.Helper()
	if hexdump {
		h, err := NewHexdump(w, HexdumpOptions{Records: records})
		if err != nil {
			t.Fatal(err)
		}
		h.eager = eager
		return h
	}
	d, err := NewDetail(w, DetailOptions{Records: records})
	if err != nil {
		t.Fatal(err)
	}
	d.eager = eager
	return d
}

func writeView(t testing.TB, ex *dissect.Exchange, hexdump, eager bool, records codec.RecordDecodeOptions) string {
	t.Helper()
	var b bytes.Buffer
	v := newView(t, &b, hexdump, eager, records)
	if err := v.Write(ex); err != nil {
		t.Fatal(err)
	}
	if err := v.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// damaged returns ex with its frames cut short (even i) or with a few
// bytes changed (odd i), decoded again.
func damaged(ex *dissect.Exchange, rng *rand.Rand, i int, dec *dissect.Decoder) *dissect.Exchange {
	bad := *ex
	for _, f := range []**dissect.Frame{&bad.Request, &bad.Response} {
		if *f == nil || len((*f).Bytes) == 0 {
			continue
		}
		g := **f
		g.Bytes = append([]byte(nil), g.Bytes...)
		if i%2 == 0 {
			g.Bytes = g.Bytes[:rng.IntN(len(g.Bytes))]
		} else {
			for range 1 + rng.IntN(3) {
				g.Bytes[rng.IntN(len(g.Bytes))] = byte(rng.Uint32())
			}
		}
		*f = &g
	}
	bad.Notes = nil
	dec.DecodeFrames(&bad)
	return &bad
}

// TestLazyRecordsEqualWholeTrace: the detail and hexdump views trace
// records one at a time (records fields and the records of a batch left
// to FrameTree.eachChild); what they write is byte for byte what they
// wrote from the whole tree, on every exchange of every capture, cut
// short or with bytes changed, with the default decompression budget and
// with one so small that a frame's later record sets run out of it; and
// Labels over the lazy tree are those over the whole one.
func TestLazyRecordsEqualWholeTrace(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	dec := dissect.NewDecoder(dissect.DecodeOptions{})
	budgets := []codec.RecordDecodeOptions{{}, {MaxDecompressedBytes: 400}}
	compared, withRecords := 0, 0
	for _, c := range testCaptures(t) {
		for _, ex := range readExchanges(t, c) {
			// Only frames with records fields trace anything lazily.
			rq, rs := traceFrame(ex, false, TraceOptions{}, true), traceFrame(ex, true, TraceOptions{}, true)
			if !(rq != nil && hasLazy(rq.Root) || rs != nil && hasLazy(rs.Root)) {
				continue
			}
			withRecords++
			variants := []*dissect.Exchange{ex}
			for i := range 4 {
				variants = append(variants, damaged(ex, rng, i, dec))
			}
			for vi, v := range variants {
				for bi, records := range budgets {
					if bi > 0 && vi > 0 {
						continue // the small budget on the sound exchange only
					}
					for _, hexdump := range []bool{false, true} {
						lazy, whole := writeView(t, v, hexdump, false, records), writeView(t, v, hexdump, true, records)
						if lazy != whole {
							t.Fatalf("%s: %s variant %d (hexdump %v, budget %d): lazy trace writes\n%s\nwhole trace writes\n%s",
								filepath.Base(c.path), apiLabel(ex), vi, hexdump, records.MaxDecompressedBytes, firstDiff(lazy, whole), firstDiff(whole, lazy))
						}
						compared++
					}
				}
				for _, response := range []bool{false, true} {
					opts := TraceOptions{}
					lz, wh := traceFrame(v, response, opts, true), TraceFrame(v, response, opts)
					if wh == nil {
						continue
					}
					ll, wl := Labels(lz, false), Labels(wh, false)
					if fmt.Sprint(ll) != fmt.Sprint(wl) {
						t.Fatalf("%s: %s variant %d: %d labels over the lazy tree, %d over the whole", filepath.Base(c.path), apiLabel(ex), vi, len(ll), len(wl))
					}
				}
			}
		}
	}
	// Frames with holes: records fields traced around them.
	for _, c := range damagedCaptures(t) {
		if strings.HasPrefix(c.name, "kcat_mtu") {
			continue
		}
		for _, ex := range readCapture(t, c.data, dissect.DecodeOptions{}) {
			if ex.Request != nil && ex.Request.Captured() && (ex.Response == nil || ex.Response.Captured()) {
				continue
			}
			rq, rs := traceFrame(ex, false, TraceOptions{}, true), traceFrame(ex, true, TraceOptions{}, true)
			if !(rq != nil && hasLazy(rq.Root) || rs != nil && hasLazy(rs.Root)) {
				continue
			}
			withRecords++
			for _, hexdump := range []bool{false, true} {
				lazy, whole := writeView(t, ex, hexdump, false, codec.RecordDecodeOptions{}), writeView(t, ex, hexdump, true, codec.RecordDecodeOptions{})
				if lazy != whole {
					t.Fatalf("%s: %s (hexdump %v): lazy trace writes\n%s\nwhole trace writes\n%s", c.name, apiLabel(ex), hexdump, firstDiff(lazy, whole), firstDiff(whole, lazy))
				}
				compared++
			}
		}
	}
	if withRecords == 0 {
		t.Fatal("no exchange with a records field: the lazy trace went untested")
	}
	t.Logf("%d views compared, %d exchanges with records fields", compared, withRecords)
}

func hasLazy(n *Node) bool {
	if n.lazy != nil {
		return true
	}
	for _, c := range n.Children {
		if hasLazy(c) {
			return true
		}
	}
	return false
}

// firstDiff returns a's lines around where a and b first differ.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, bytes.LastIndexByte([]byte(a[:i]), '\n')-200)
	return a[from:min(len(a), i+200)]
}

// fetchExchange returns a decoded Fetch v12 exchange whose response holds
// one lz4 batch of n records.
func fetchExchange(t testing.TB, n int) *dissect.Exchange {
	t.Helper()
	const version = 12
	b := codec.RecordBatch{Attributes: int16(codec.CompressionLZ4), LastOffsetDelta: int32(n - 1),
		BaseTimestamp: 1764460800000, MaxTimestamp: 1764460800000 + int64(n), ProducerId: -1, ProducerEpoch: -1, BaseSequence: -1}
	for i := range n {
		b.Records = append(b.Records, codec.Record{TimestampDelta: int64(i), OffsetDelta: int32(i),
			Key: fmt.Appendf(nil, "user-%d", i%977), Value: fmt.Appendf(nil, `{"event_id":%d,"amount":%d}`, i, i*7%1000)})
	}
	resp := &codec.FetchResponse{Responses: []codec.FetchResponseFetchableTopicResponse{{Topic: "events",
		Partitions: []codec.FetchResponsePartitionData{{HighWatermark: int64(n), LastStableOffset: int64(n), PreferredReadReplica: -1,
			Records: codec.Records{Raw: b.AppendTo(nil)}}}}}}
	req := &codec.FetchRequest{ReplicaId: -1, MaxWaitMs: 500, MinBytes: 1, MaxBytes: 52428800,
		Topics: []codec.FetchRequestFetchTopic{{Topic: "events", Partitions: []codec.FetchRequestFetchPartition{{PartitionMaxBytes: 1048576}}}}}
	id := "cli"
	hdr := codec.RequestHeader{RequestApiKey: req.APIKey(), RequestApiVersion: version, CorrelationId: 9, ClientId: &id}
	reqFrame := req.AppendTo(hdr.AppendTo(nil, codec.RequestHeaderVersion(req.APIKey(), version)), version)
	rh := codec.ResponseHeader{CorrelationId: 9}
	respFrame := resp.AppendTo(rh.AppendTo(nil, codec.ResponseHeaderVersion(req.APIKey(), version)), version)
	ex := &dissect.Exchange{APIKey: req.APIKey(), APIVersion: version, CorrelationID: 9,
		Request:  &dissect.Frame{Bytes: reqFrame, Size: int32(len(reqFrame))},
		Response: &dissect.Frame{Bytes: respFrame, Size: int32(len(respFrame))}}
	dissect.NewDecoder(dissect.DecodeOptions{}).DecodeFrames(ex)
	if ex.Decoded == nil || ex.Decoded.Response == nil {
		t.Fatalf("Fetch response does not decode: %v", ex.Notes)
	}
	return ex
}

// liveHeapWriter discards what is written, and every MiB collects and
// notes the live heap.
type liveHeapWriter struct {
	n, next int
	peak    uint64
}

func (w *liveHeapWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	if w.n >= w.next {
		w.next = w.n + 1<<20
		w.peak = max(w.peak, liveHeap())
	}
	return len(p), nil
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestViewsMemoryPerRecordFlat: writing one batch of 40 000 records takes
// about the memory of one of 4 000 in both views: the decompressed batch
// and one record's fields, not a tree of every record (which took over
// 1 KiB a record: tens of MB here, hundreds for a real Fetch response).
func TestViewsMemoryPerRecordFlat(t *testing.T) {
	for _, hexdump := range []bool{false, true} {
		grew := map[int]uint64{}
		for _, n := range []int{4000, 40000} {
			ex := fetchExchange(t, n)
			w := &liveHeapWriter{}
			v := newView(t, w, hexdump, false, codec.RecordDecodeOptions{})
			base := liveHeap()
			if err := v.Write(ex); err != nil {
				t.Fatal(err)
			}
			if err := v.Flush(); err != nil {
				t.Fatal(err)
			}
			grew[n] = w.peak - min(w.peak, base)
			runtime.KeepAlive(ex)
		}
		t.Logf("hexdump %v: live heap grew %d KiB writing 4 000 records, %d KiB writing 40 000", hexdump, grew[4000]>>10, grew[40000]>>10)
		// 40 000 records decompress to about 1.6 MB; their fields as a
		// tree would be over 40 MB.
		if grew[40000] > grew[4000]+6<<20 {
			t.Errorf("hexdump %v: writing 40 000 records grew the live heap by %d KiB, 4 000 by %d KiB", hexdump, grew[40000]>>10, grew[4000]>>10)
		}
	}
}
