package main

import (
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/spf13/cobra"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/dissect/render"
	"github.com/kdissect/kdissect/dissect/stats"
)

func newStatsCmd() *cobra.Command {
	var flags captureFlags
	var exFilter exchangeFilterFlags
	var count int
	cmd := &cobra.Command{
		Use:   "stats FILE...",
		Short: "Aggregate the Kafka exchanges of captures: per API, topic-partition, error, client id and connection",
		Long: `Aggregate the Kafka exchanges of pcap or pcapng captures (- reads standard
input) as they are dissected: per API the exchanges, request and response
bytes (as the frames' size prefixes say) and latency p50, p90, p99 and max;
per topic-partition the records and record batch bytes produced (Produce
requests) and fetched (Fetch responses); errors by name and by
topic-partition; per client id and per connection; the span and totals of
the capture.

Memory grows with the number of APIs, topic-partitions, client ids,
connections and error codes, not with the exchanges. Latency percentiles are
nearest-rank: exact up to 1024 exchanges per row, within 0.4% beyond (a
log-linear histogram, as HdrHistogram's, with 128 buckets per power of two).
The exchange filters select what is aggregated.`,
		Example: `  kdissect stats capture.pcap
  kdissect stats --format json capture.pcapng
  kdissect stats --client-id rdkafka --min-latency 10ms capture.pcap`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if flags.format != "table" && flags.format != "json" {
				return fmt.Errorf("unknown format %q (want table or json)", flags.format)
			}
			opts, err := flags.dissectOptions()
			if err != nil {
				return err
			}
			if flags.maxDecompressed <= 0 {
				return fmt.Errorf("--max-decompressed-size must be positive")
			}
			if count < 0 {
				return fmt.Errorf("-c must not be negative")
			}
			match, err := exFilter.set()
			if err != nil {
				return err
			}
			disp, err := compileDisplayFilter(exFilter.display)
			if err != nil {
				return err
			}
			capFilter, err := flags.captureFilter()
			if err != nil {
				return err
			}
			tuneGC()
			opts.FramePool = flags.framePool()
			d := dissect.New(opts)
			// Stats counts records and sizes: batches whose CRC matches are
			// taken at their headers, not decompressed.
			decOpts := dissect.DecodeOptions{Records: codec.RecordDecodeOptions{MaxDecompressedBytes: flags.maxDecompressed, CountOnly: true}}
			dec := dissect.NewDecoder(decOpts)
			col := stats.New()
			var matched atomic.Int64 // counted by the pipeline, read by the input too
			done := func() bool { return count > 0 && matched.Load() >= int64(count) }
			keep := func(ex *dissect.Exchange) bool {
				if done() || !match.Match(ex) {
					return false
				}
				if disp == nil {
					matched.Add(1)
				}
				return true
			}
			var seen atomic.Int64
			pipe := newSelectingPipeline(dec, decOpts, opts.FramePool, keep, disp.selector(), disp.countAccepted(done, &matched), nil, func(j *exchangeJob) { col.Add(j.ex) })
			in := &captureInput{d: d, filter: capFilter, stdin: cmd.InOrStdin(), warn: cmd.ErrOrStderr(), progress: newProgress(cmd), stop: done}
			failed := in.read(args, func(ex *dissect.Exchange) {
				seen.Add(1)
				if !done() {
					pipe.put(ex)
				}
			})
			pipe.close()
			for _, err := range failed[:max(0, len(failed)-1)] {
				fmt.Fprintln(cmd.ErrOrStderr(), "kdissect:", err)
			}
			st := d.Stats()
			if len(failed) > 0 && st.Packets == 0 {
				return inputError{failed[len(failed)-1]}
			}
			info := render.StatsInfo{Files: args, Packets: st.Packets, Loss: render.LossOf(st)}
			if match != nil {
				info.Filter = match.String()
			}
			if disp != nil {
				info.Filter = strings.TrimPrefix(info.Filter+"; "+disp.String(), "; ")
			}
			reportFilters(cmd.ErrOrStderr(), match, disp, seen.Load(), matched.Load())
			write := render.WriteStatsTables
			if flags.format == "json" {
				write = render.WriteStatsJSON
			}
			if err := write(cmd.OutOrStdout(), col.Report(), info); err != nil {
				return inputError{fmt.Errorf("write output: %w", err)}
			}
			if len(failed) > 0 {
				// What was read before the damage is counted above, as
				// read prints the exchanges before it; the status says
				// the input was not read whole.
				return inputError{failed[len(failed)-1]}
			}
			return nil
		},
	}
	flags.register(cmd)
	addReadFlag(cmd)
	// Stats has its own formats.
	format := cmd.Flags().Lookup("format")
	format.Usage = "output format: table or json"
	format.DefValue = "table"
	flags.format = "table"
	exFilter.register(cmd.Flags())
	cmd.Flags().IntVarP(&count, "count", "c", 0, countUsage)
	return cmd
}
