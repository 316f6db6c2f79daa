// Command capedit writes a damaged copy of a capture (package
// internal/capedit) for the benchmarks in bench/run.sh: packets cut to a
// snap length, packets lost at random, a capture that ends early.
//
//	go run ./bench/capedit -drop 0.5% -payload-only -seed 1 in.pcap out.pcap
//	go run ./bench/capedit -s 128 in.pcapng out.pcap
//
// The input is pcap or pcapng, optionally gzip-compressed; the output is a
// classic pcap with the input's link type and timestamp resolution. "-"
// names standard input or output. A summary goes to standard error.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/kdissect/kdissect/internal/capedit"
)

func main() {
	snap := flag.Int("s", 0, "snap length: cut each packet's captured bytes to this many, keeping its original length (0: keep)")
	drop := flag.String("drop", "0", "fraction of packets to drop at random: 0.005, or as a percentage, 0.5%")
	seed := flag.Int64("seed", 1, "random seed for -drop: the same seed drops the same packets")
	payloadOnly := flag.Bool("payload-only", false, "-drop only drops TCP segments that carry payload")
	count := flag.Int("c", 0, "keep only the first N input packets, as a capture that stopped early (0: all)")
	dropped := flag.String("dropped", "", "write the 0-based indexes of the dropped packets to this file, one a line")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: capedit [flags] IN OUT\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 {
		flag.Usage()
		os.Exit(2)
	}
	frac, err := parseFraction(*drop)
	if err == nil {
		err = run(flag.Arg(0), flag.Arg(1), *dropped, frac, *seed, *payloadOnly, capedit.Options{Snap: *snap, Limit: *count})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "capedit:", err)
		os.Exit(1)
	}
}

func run(in, out, droppedFile string, frac float64, seed int64, payloadOnly bool, opts capedit.Options) error {
	if opts.Snap < 0 || opts.Limit < 0 {
		return fmt.Errorf("-s and -c must not be negative")
	}
	if frac > 0 {
		opts.Drop = capedit.RandomDrop(frac, seed, payloadOnly)
	}
	src := io.Reader(os.Stdin)
	if in != "-" {
		f, err := os.Open(in)
		if err != nil {
			return err
		}
		defer f.Close()
		src = f
	}
	dst := os.Stdout
	if out != "-" {
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		defer f.Close()
		dst = f
	}
	res, err := capedit.Rewrite(dst, src, opts)
	if err != nil {
		return err
	}
	if out != "-" {
		if err := dst.Close(); err != nil {
			return fmt.Errorf("close %s: %w", out, err)
		}
	}
	if droppedFile != "" {
		if err := writeIndexes(droppedFile, res.Dropped); err != nil {
			return err
		}
	}
	var cut string
	if res.Cut {
		cut = fmt.Sprintf(", cut after packet %d", res.Read-1)
	}
	fmt.Fprintf(os.Stderr, "capedit: read %d packets, wrote %d, dropped %d (%.3f%%), snapped %d%s\n",
		res.Read, res.Written, len(res.Dropped), 100*float64(len(res.Dropped))/float64(max(res.Read, 1)), res.Snapped, cut)
	return nil
}

// parseFraction reads "0.005" or "0.5%".
func parseFraction(s string) (float64, error) {
	t, pct := strings.CutSuffix(strings.TrimSpace(s), "%")
	f, err := strconv.ParseFloat(t, 64)
	if pct {
		f /= 100
	}
	if err != nil || !(f >= 0 && f <= 1) {
		return 0, fmt.Errorf("bad -drop %q: want a fraction from 0 to 1 (0.005) or a percentage (0.5%%)", s)
	}
	return f, nil
}

func writeIndexes(name string, idx []int) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, i := range idx {
		fmt.Fprintln(w, i)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
