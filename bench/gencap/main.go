// Command gencap writes a synthetic Kafka capture (package capgen) of a
// given size, for the benchmarks in bench/run.sh:
//
//	go run ./bench/gencap -size 80MB -o /tmp/bench.pcap
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/kdissect/kdissect/internal/capgen"
)

func main() {
	size := flag.String("size", "80MB", "capture size: bytes, or with a KB, MB or GB suffix (powers of 1024)")
	out := flag.String("o", "", "output file (default: standard output)")
	conns := flag.Int("conns", 64, "connections open at once")
	perConn := flag.Int("per-conn", 50, "mean exchanges per connection")
	seed := flag.Uint64("seed", 1, "random seed: the same flags write the same capture")
	tick := flag.Duration("tick", time.Millisecond, "capture time between packets")
	flag.Parse()
	if err := run(*size, *out, capgen.Config{Conns: *conns, PerConn: *perConn, Seed: *seed, Tick: *tick}); err != nil {
		fmt.Fprintln(os.Stderr, "gencap:", err)
		os.Exit(1)
	}
}

func run(size, out string, cfg capgen.Config) error {
	n, err := parseSize(size)
	if err != nil {
		return err
	}
	cfg.Bytes = n
	w := os.Stdout
	if out != "" {
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	res, err := capgen.Write(w, cfg)
	if err != nil {
		return err
	}
	if out != "" {
		if err := w.Close(); err != nil {
			return fmt.Errorf("close %s: %w", out, err)
		}
	}
	fmt.Fprintf(os.Stderr, "gencap: %d bytes, %d packets, %d exchanges, %d records\n", res.Bytes, res.Packets, res.Exchanges, res.Records)
	return nil
}

// parseSize reads "80MB", "1GB", "4096".
func parseSize(s string) (int64, error) {
	mult := int64(1)
	u := strings.ToUpper(strings.TrimSpace(s))
	for _, suf := range []struct {
		s string
		m int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}} {
		if strings.HasSuffix(u, suf.s) {
			mult, u = suf.m, strings.TrimSuffix(u, suf.s)
			break
		}
	}
	n, err := strconv.ParseInt(u, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad size %q: want a positive number of bytes, KB, MB or GB", s)
	}
	return n * mult, nil
}
