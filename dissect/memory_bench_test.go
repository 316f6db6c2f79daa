package dissect

import (
	"fmt"
	"io"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/kdissect/kdissect/internal/capgen"
)

// peakMemory dissects a synthetic capture of about size bytes, generated
// while it is read (through a pipe, so the capture is never in memory). It
// returns the peak live heap (HeapAlloc right after a collection, every
// 1000 exchanges, from the emit callback: at the same points of the work
// whatever the scheduling), the peak heap in use (HeapInuse, sampled every
// 5 ms: live data and garbage not yet collected, so it depends on the
// collector's pacing), both in bytes, the exchanges emitted and the Stats.
func peakMemory(tb testing.TB, size int64) (live, inuse uint64, exchanges int, st Stats) {
	// 10 ms between packets: even 100 MB spans many idle timeouts.
	return peakMemoryOf(tb, capgen.Config{Conns: 64, PerConn: 50, Bytes: size, Seed: 1, Tick: 10 * time.Millisecond})
}

// peakMemoryOf is peakMemory of the capture cfg describes.
func peakMemoryOf(tb testing.TB, cfg capgen.Config) (live, inuse uint64, exchanges int, st Stats) {
	runtime.GC()
	pr, pw := io.Pipe()
	go func() {
		_, err := capgen.Write(pw, cfg)
		pw.CloseWithError(err)
	}()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			inuse = max(inuse, ms.HeapInuse)
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	d := New(Options{})
	var ms runtime.MemStats
	err := d.ReadCapture(pr, func(*Exchange) {
		exchanges++
		if exchanges%1000 == 0 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			live = max(live, ms.HeapAlloc)
		}
	})
	close(stop)
	wg.Wait()
	if err != nil {
		tb.Fatal(err)
	}
	return live, inuse, exchanges, d.Stats()
}

// BenchmarkPeakMemory shows that memory does not grow with the capture's
// length: peak_MB, the peak live heap dissecting a 100 MB and a 1 GB
// synthetic capture, is the same (benchmarks run only with -bench):
//
//	go test ./dissect -run '^$' -bench PeakMemory -benchtime 1x
func BenchmarkPeakMemory(b *testing.B) {
	for _, size := range []int64{100 << 20, 1 << 30} {
		b.Run(fmt.Sprintf("%dMB", size>>20), func(b *testing.B) {
			var live, inuse uint64
			var n int
			var st Stats
			for b.Loop() {
				live, inuse, n, st = peakMemory(b, size)
			}
			b.SetBytes(size)
			reportMemory(b, live, inuse, n, st)
			b.ReportMetric(float64(st.PeakBufferedExchanges), "peak_buffered")
		})
	}
}

// BenchmarkConnectionsMemory shows that memory does not grow with the
// number of connections ever seen: the peak live heap dissecting 20 000
// and 200 000 short connections (one or two exchanges each, 64 open at
// once; a sixteenth end without a FIN and are flushed when idle) is the
// same:
//
//	go test ./dissect -run '^$' -bench ConnectionsMemory -benchtime 1x
func BenchmarkConnectionsMemory(b *testing.B) {
	for _, conns := range []int{20_000, 200_000} {
		b.Run(fmt.Sprintf("%dconns", conns), func(b *testing.B) {
			var live, inuse uint64
			var n int
			var st Stats
			for b.Loop() {
				// About 1.5 exchanges a connection (capgen: 1 + [0, 2)).
				live, inuse, n, st = peakMemoryOf(b, capgen.Config{Conns: 64, PerConn: 1, Exchanges: conns * 3 / 2, Seed: 1, Tick: 10 * time.Millisecond})
			}
			reportMemory(b, live, inuse, n, st)
		})
	}
}

// reportMemory reports what peakMemoryOf measured.
func reportMemory(b *testing.B, live, inuse uint64, exchanges int, st Stats) {
	b.ReportMetric(float64(live)/(1<<20), "peak_MB")
	b.ReportMetric(float64(inuse)/(1<<20), "peak_inuse_MB")
	b.ReportMetric(float64(exchanges), "exchanges")
	b.ReportMetric(float64(st.Connections), "connections")
	b.ReportMetric(float64(st.PeakOpenConnections), "peak_open_conns")
}
