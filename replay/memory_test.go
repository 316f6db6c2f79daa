package replay

import (
	"fmt"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/internal/capgen"
)

// replayMemory replays a synthetic capture of about size bytes (64
// connections open at once, coming and going; generated while it is
// read, through a pipe, so the capture is never in memory) to a kfake
// broker at --speed max, through a window of 256 requests and 8
// connections at a time: its ApiVersions, Metadata, FindCoordinator and
// ListOffsets requests are sent (the ones a broker answers at once,
// keeping no state: the broker runs in this process, so state it kept,
// such as OffsetCommit's groups, would count in the heap measured), the
// rest counted. It returns the peak live heap (HeapAlloc right after
// a collection, every 100 exchanges handed to the replay, at the same
// points of the work whatever the scheduling), in bytes, and the report.
func replayMemory(tb testing.TB, size int64) (peak uint64, rep *Report) {
	target := newTarget(tb)
	r, err := New(Options{
		Broker:      target.ListenAddrs()[0],
		APIs:        []int16{18, 3, 10, 2},
		Concurrency: 8,
		Window:      Window{Requests: 256, ConnRequests: 32},
		MaxPlan:     -1,
	})
	if err != nil {
		tb.Fatal(err)
	}
	runtime.GC()
	pr, pw := io.Pipe()
	go func() {
		_, err := capgen.Write(pw, capgen.Config{Conns: 64, PerConn: 50, Bytes: size, Seed: 1, Tick: 10 * time.Millisecond})
		pw.CloseWithError(err)
	}()
	n := 0
	var ms runtime.MemStats
	rep, err = r.Run(testCtx(tb), func(add func(*dissect.Exchange) error) error {
		d := dissect.New(dissect.Options{})
		dec := dissect.NewDecoder(dissect.DecodeOptions{})
		var addErr error
		err := d.ReadCapture(pr, func(ex *dissect.Exchange) {
			if addErr != nil {
				return
			}
			dec.Decode(ex)
			addErr = add(ex)
			if n++; n%100 == 0 {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
		})
		pr.CloseWithError(io.ErrClosedPipe) // stops the writer if the read ended early
		if addErr != nil {
			return addErr
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	if !rep.Complete() {
		tb.Fatalf("%d MB: incomplete: %+v %v", size>>20, rep.Total, rep.Failures)
	}
	return peak, rep
}

// TestReplayMemoryFlat replays synthetic captures of 20 MB and 200 MB with
// fewer connections at a time than the capture has open (so that idle
// ones are closed for others, see sched) through a small window: every
// selected request is sent and answered, and the peak live heap of the
// larger is at most twice the smaller's: the replay holds its window, not
// the capture. (How full the window is when the heap is sampled depends on
// how fast the broker answers: on an idle machine both peak near 4 MB, on
// a loaded one 5.5 and 8.3 MB were seen; holding even a tenth of the
// 200 MB capture would add 20 MB.)
func TestReplayMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 220 MB of synthetic capture")
	}
	small, repS := replayMemory(t, 20<<20)
	large, repL := replayMemory(t, 200<<20)
	t.Logf("20 MB: %d requests captured, %d sent, peak live heap %.1f MB", repS.Total.Captured, repS.Total.Sent, float64(small)/(1<<20))
	t.Logf("200 MB: %d requests captured, %d sent, peak live heap %.1f MB", repL.Total.Captured, repL.Total.Sent, float64(large)/(1<<20))
	if repL.Total.Captured < 8*repS.Total.Captured || repS.Total.Sent == 0 {
		t.Fatalf("captures: %d and %d requests, %d sent of the smaller", repS.Total.Captured, repL.Total.Captured, repS.Total.Sent)
	}
	if large > 2*small {
		t.Errorf("peak live heap grows with the capture: %.1f MB for 20 MB, %.1f MB for 200 MB", float64(small)/(1<<20), float64(large)/(1<<20))
	}
}

// BenchmarkReplayPeakMemory reports the peak live heap (peak_MB) of
// replaying 100 MB and 1 GB synthetic captures as replayMemory does: the
// same for both (benchmarks run only with -bench):
//
//	go test ./replay -run '^$' -bench PeakMemory -benchtime 1x
func BenchmarkReplayPeakMemory(b *testing.B) {
	for _, size := range []int64{100 << 20, 1 << 30} {
		b.Run(fmt.Sprintf("%dMB", size>>20), func(b *testing.B) {
			var peak uint64
			var rep *Report
			for b.Loop() {
				peak, rep = replayMemory(b, size)
			}
			b.SetBytes(size)
			b.ReportMetric(float64(peak)/(1<<20), "peak_MB")
			b.ReportMetric(float64(rep.Total.Captured), "requests")
			b.ReportMetric(float64(rep.Total.Sent), "sent")
		})
	}
}
