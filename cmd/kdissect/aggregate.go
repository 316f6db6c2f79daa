package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/output"
	"github.com/kdissect/kdissect/output/filter"
	"github.com/kdissect/kdissect/output/pipeline"
)

// aggregated is what aggregate read.
type aggregated struct {
	stats  dissect.Stats // the dissector's counts
	match  *filter.Set   // the exchange filters, nil when none
	disp   *displayMatch // -Y, nil when not given
	failed []error       // the inputs that could not be read whole, in order
}

// aggregate reads the captures of stats and report through the parallel
// pipeline, record batches counted at their headers (those whose CRC
// matches are not decompressed), and hands each exchange that passes the
// filters and -c to add, in capture order. The error is a usage error,
// found before anything is read; inputs that fail are in failed. entering,
// when not nil, runs before each exchange enters the pipeline, with the
// dissector (stats' intervals take their origin from its first packet).
func aggregate(cmd *cobra.Command, flags *captureFlags, exFilter *exchangeFilterFlags, count int, args []string, entering func(*dissect.Dissector), add func(*dissect.Exchange)) (aggregated, error) {
	var a aggregated
	opts, err := flags.dissectOptions()
	if err != nil {
		return a, err
	}
	if flags.maxDecompressed <= 0 {
		return a, fmt.Errorf("--max-decompressed-size must be positive")
	}
	if count < 0 {
		return a, fmt.Errorf("-c must not be negative")
	}
	if a.match, err = exFilter.set(); err != nil {
		return a, err
	}
	if a.disp, err = compileDisplayFilter(exFilter.display); err != nil {
		return a, err
	}
	capFilter, err := flags.captureFilter()
	if err != nil {
		return a, err
	}
	tuneGC()
	opts.FramePool = flags.framePool()
	d := dissect.New(opts)
	popts := pipeline.Options{
		// Records are only counted, unless -Y looks into them.
		Decode:  dissect.DecodeOptions{Records: codec.RecordDecodeOptions{MaxDecompressedBytes: flags.maxDecompressed, CountOnly: !a.disp.readsRecords()}},
		Pool:    opts.FramePool,
		Filter:  a.match,
		Display: a.disp.selector(),
		Count:   int64(count),
	}
	res, _ := pipeline.Run(cmd.Context(), func(p *pipeline.Pipeline) {
		in := &captureInput{d: d, filter: capFilter, stdin: cmd.InOrStdin(), warn: cmd.ErrOrStderr(), progress: newProgress(cmd), stop: p.Done}
		a.failed = in.read(args, func(ex *dissect.Exchange) {
			if entering != nil {
				entering(d)
			}
			p.Put(ex)
		})
	}, popts, output.Func(add)) // add never fails
	for _, err := range a.failed[:max(0, len(a.failed)-1)] {
		fmt.Fprintln(cmd.ErrOrStderr(), "kdissect:", err)
	}
	a.stats = d.Stats()
	reportFilters(cmd.ErrOrStderr(), a.match, a.disp, res.Seen, res.Passed)
	return a, nil
}

// filterString says the filters that selected what was aggregated, for
// the output's header; empty without filters.
func (a aggregated) filterString() string {
	var s string
	if a.match != nil {
		s = a.match.String()
	}
	if a.disp != nil {
		s = strings.TrimPrefix(s+"; "+a.disp.String(), "; ")
	}
	return s
}
