package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/spf13/pflag"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/dissect/live"
	"github.com/kdissect/kdissect/output"
	"github.com/kdissect/kdissect/output/metrics"
)

// This file wires --metrics ADDR (package output/metrics) into read and
// live: an HTTP server of the Prometheus text format at /metrics.

// metricsFlags are --metrics and --metrics-linger.
type metricsFlags struct {
	addr   string
	linger time.Duration
}

func (f *metricsFlags) register(fs *pflag.FlagSet, read bool) {
	fs.StringVar(&f.addr, "metrics", "", "serve Prometheus metrics at http://ADDR/metrics while capturing (ADDR as host:port, e.g. 127.0.0.1:9464; :0 picks a port, said on stderr)")
	if read {
		fs.DurationVar(&f.linger, "metrics-linger", 0, "with --metrics: once the input ended, go on serving the final counts this long (or until Ctrl-C), for a last scrape")
	}
}

// metricsServer serves a metrics.Collector.
type metricsServer struct {
	c           *metrics.Collector
	srv         *http.Server
	done        chan struct{}
	sinceTake   int       // exchanges since the dissector's counts were last taken
	sincePacket int       // packets since then, on live
	taken       time.Time // capture time they were last taken, on live
}

// start listens on --metrics and serves its collector; nil without the
// flag. The address it listens on goes to stderr.
func (f *metricsFlags) start(stderr io.Writer) (*metricsServer, error) {
	if f.addr == "" {
		if f.linger != 0 {
			return nil, fmt.Errorf("--metrics-linger goes with --metrics")
		}
		return nil, nil
	}
	if f.linger < 0 {
		return nil, fmt.Errorf("--metrics-linger must not be negative")
	}
	// A malformed address is a usage error (exit 2); one that cannot be
	// listened on (in use, not local) is the run's failure (exit 1).
	if _, port, err := net.SplitHostPort(f.addr); err != nil {
		return nil, fmt.Errorf("--metrics %q: want host:port, e.g. 127.0.0.1:9464 (:0 picks a port): %v", f.addr, err)
	} else if _, err := net.LookupPort("tcp", port); err != nil {
		return nil, fmt.Errorf("--metrics %q: bad port: %v", f.addr, err)
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return nil, inputError{fmt.Errorf("--metrics: %w", err)}
	}
	s := &metricsServer{c: metrics.New(metrics.Options{}), done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.Handle("/metrics", s.c.Handler())
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(stderr, "kdissect: --metrics:", err)
		}
	}()
	fmt.Fprintf(stderr, "kdissect: metrics on http://%s/metrics\n", ln.Addr())
	return s, nil
}

// tap returns the collector as a tap; nil without --metrics.
func (s *metricsServer) tap() output.Tap {
	if s == nil {
		return nil
	}
	return output.Func(s.c.Add)
}

// captureEvery is how many exchanges pass between two takes of the
// dissector's counts on read (each copies them).
const captureEvery = 64

// emitted runs on the dissector's goroutine per exchange it emits: every
// captureEvery exchanges, the packet counts are taken.
func (s *metricsServer) emitted(d *dissect.Dissector) {
	if s == nil {
		return
	}
	if s.sinceTake++; s.sinceTake >= captureEvery {
		s.sinceTake = 0
		s.c.SetCapture(d.Stats())
	}
}

// finish takes the dissector's final counts, goes on serving for
// --metrics-linger (until ctx is done), and stops the server.
func (s *metricsServer) finish(ctx context.Context, d *dissect.Dissector, linger time.Duration, stderr io.Writer) {
	if s == nil {
		return
	}
	s.c.SetCapture(d.Stats())
	if linger > 0 {
		fmt.Fprintf(stderr, "kdissect: input ended; serving the metrics for %v more (Ctrl-C ends)\n", linger)
		t := time.NewTimer(linger)
		select {
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	s.close()
}

// close stops the server.
func (s *metricsServer) close() {
	if s == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	s.srv.Shutdown(ctx)
	<-s.done
}

// kernel has the metrics read the kernel's packet counts of a live capture.
func (s *metricsServer) kernel(h *live.Handle) {
	if s == nil {
		return
	}
	s.c.SetKernel(func() (uint64, uint64) {
		st := h.Stats()
		return st.Received, st.Dropped
	})
}

// packetEvery is how many packets pass, at most, between two takes of
// the dissector's counts on live; a quiet link has them taken once per
// second of capture time.
const packetEvery = 256

// packet runs on live's capture goroutine per packet dissected, at
// capture time at.
func (s *metricsServer) packet(d *dissect.Dissector, at time.Time) {
	if s == nil {
		return
	}
	if s.sincePacket++; s.sincePacket >= packetEvery || at.Sub(s.taken) >= time.Second {
		s.sincePacket = 0
		s.taken = at
		s.c.SetCapture(d.Stats())
	}
}
