package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/output/render"
	"github.com/kdissect/kdissect/output/stats"
)

func newStatsCmd() *cobra.Command {
	var flags captureFlags
	var exFilter exchangeFilterFlags
	var count int
	var iv intervalFlags // stats_interval.go
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
The exchange filters select what is aggregated.

A count the capture did not wholly hold (records or errors beyond the snap
length or in a hole, a response not captured) is "?" when nothing of it was
captured and "≥ N" when N were, with a footnote; in JSON null or N, with
"<key>_not_captured": true beside it (docs/lossy.md: What unknown looks like).

` + notesHelp + `

` + intervalHelp,
		Example: `  kdissect stats capture.pcap
  kdissect stats --format json capture.pcapng
  kdissect stats --client-id rdkafka --min-latency 10ms capture.pcap
  kdissect stats --interval 1s capture.pcap`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if flags.format != "table" && flags.format != "json" {
				return fmt.Errorf("unknown format %q (want table or json)", flags.format)
			}
			col := stats.New()
			if err := iv.set(col); err != nil {
				return err
			}
			a, err := aggregate(cmd, &flags, &exFilter, count, args, func(d *dissect.Dissector) {
				iv.origin(col, d) // before the first exchange reaches col
			}, col.Add)
			if err != nil {
				return err
			}
			st, failed := a.stats, a.failed
			if len(failed) > 0 && st.Packets == 0 {
				return inputError{failed[len(failed)-1]}
			}
			info := render.StatsInfo{Files: args, Packets: st.Packets, Loss: render.LossOf(st), Filter: a.filterString()}
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
	iv.register(cmd.Flags())
	return cmd
}
