package main

import (
	"bufio"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kdissect/kdissect/internal/outfile"
	"github.com/kdissect/kdissect/output/report"
)

func newReportCmd() *cobra.Command {
	var flags captureFlags
	var exFilter exchangeFilterFlags
	var count int
	var out string
	cmd := &cobra.Command{
		Use:   "report FILE... -o OUT.html",
		Short: "Write a self-contained HTML report of captures, with plots",
		Long: `Write one HTML file about pcap or pcapng captures (- reads standard input):
the totals and tables of stats (the same numbers as stats --format json: per
API exchanges, bytes and latency p50/p99/max, errors by name, top client ids,
brokers and topic-partitions), the notes by kind, and plots over the capture's
time: latency p50 and p99 per API, requests and bytes per second, records
per second per topic, errors by name. The plots are inline SVG and the styles
inline; the file has no script and loads nothing, so it opens from a file
or a mail attachment without network.

A plot has at most 240 points: the interval per point is chosen from the
capture's span (1 ms up to hours), and memory stays bounded whatever its
length. The exchange filters select what is reported.`,
		Example: `  kdissect report capture.pcapng -o report.html
  kdissect report ring-*.pcap --api Produce,Fetch -o produce-fetch.html`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" || out == "-" {
				return fmt.Errorf("-o OUT.html is needed: the report is a file")
			}
			inputs := inputFiles{captures: args, keyLogs: flags.keyLogs(), stdin: cmd.InOrStdin()}
			if err := refuseOverwritingInputs(inputs, outputFlag{"-o", out}); err != nil {
				return err
			}
			// Opened before the capture is read: a directory that cannot be
			// written fails first. A regular OUT is written beside and
			// renamed once complete (internal/outfile), so it is never left
			// half written, nor lost to a usage error.
			f, err := outfile.Create(out, outfile.Atomic)
			if err != nil {
				return inputError{fmt.Errorf("-o: %w", err)}
			}
			defer f.Close() // once committed, nothing
			b := report.New()
			a, err := aggregate(cmd, &flags, &exFilter, count, args, nil, b.Add)
			if err != nil {
				return err
			}
			st, failed := a.stats, a.failed
			if len(failed) > 0 && st.Packets == 0 {
				return inputError{failed[len(failed)-1]}
			}
			info := report.Info{Files: args, Packets: st.Packets, Version: versionString()}
			info.Filter = a.filterString()
			bw := bufio.NewWriter(f)
			err = b.WriteHTML(bw, info)
			if err == nil {
				err = bw.Flush()
			}
			if err == nil {
				err = f.Commit()
			}
			if err != nil {
				return inputError{fmt.Errorf("write %s: %w", out, err)}
			}
			if len(failed) > 0 {
				return inputError{failed[len(failed)-1]} // reported what was read before the damage, as stats
			}
			return nil
		},
	}
	flags.register(cmd)
	addReadFlag(cmd)
	_ = cmd.Flags().MarkHidden("format") // one format: HTML
	exFilter.register(cmd.Flags())
	cmd.Flags().IntVarP(&count, "count", "c", 0, countUsage)
	cmd.Flags().StringVarP(&out, "output", "o", "", "the HTML file to write (required)")
	return cmd
}
