package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/internal/outfile"
	"github.com/kdissect/kdissect/output/pipeline"
	"github.com/kdissect/kdissect/output/sink"
)

// exchangeWriter is an output format.
type exchangeWriter interface {
	Write(*dissect.Exchange) error
	Flush() error
}

// captureFlags are the flags shared by the commands that read captures.
type captureFlags struct {
	ports           []string
	format          string
	quiet           bool // -q: no view on standard output (read, live)
	maxFrameSize    int
	maxDecompressed int64
	showSecrets     bool
	filter          string     // -f: capture filter expression (filter.go)
	noColor         bool       // --no-color (views.go)
	table           tableFlags // read's and live's (views.go)
	poisonFrames    bool       // --debug-poison-frames (hidden): see framePool
	tlsKeylogs      []string
	parquet         parquetFlags // --format parquet -w (parquet.go)
	fields          fieldFlags   // -e, --no-header: read's and live's (display_filter.go)
}

func (f *captureFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringSliceVarP(&f.ports, "port", "p", []string{"9092"}, "Kafka broker TCP port, repeatable; any: find Kafka on every port by its framing (in produce and consume -p is the partition, as in kcat)")
	cmd.Flags().StringVar(&f.format, "format", "summary", formatsUsage)
	cmd.Flags().IntVar(&f.maxFrameSize, "max-frame-size", dissect.DefaultMaxFrameSize, "largest Kafka frame accepted, in bytes")
	cmd.Flags().Int64Var(&f.maxDecompressed, "max-decompressed-size", codec.DefaultMaxDecompressedBytes, "record decoding budget per frame (decompressed bytes plus decoded records), in bytes")
	cmd.Flags().BoolVar(&f.showSecrets, "show-secrets", false, "show SASL credentials and delegation token HMACs instead of redacting them")
	cmd.Flags().StringVarP(&f.filter, "filter", "f", "", filterUsage)
	cmd.Flags().BoolVar(&f.noColor, "no-color", false, "no colour, even on a terminal (NO_COLOR in the environment does the same)")
	cmd.Flags().BoolVar(&f.poisonFrames, "debug-poison-frames", false, "fill each frame buffer with 0xAA once its exchange was output (finds a use after release)")
	_ = cmd.Flags().MarkHidden("debug-poison-frames")
	cmd.Flags().StringArrayVar(&f.tlsKeylogs, "tls-keylog", nil, "NSS key log (SSLKEYLOGFILE) with the secrets of TLS connections, repeatable; default $SSLKEYLOGFILE")
}

// keyLogs returns the key log files read (--tls-keylog, else
// SSLKEYLOGFILE).
func (f *captureFlags) keyLogs() []string {
	paths, _ := keyLogPaths(f.tlsKeylogs)
	return paths
}

// decodeOptions are the record decoding options of read and live. With -q
// and nothing that reads records (countable: no --sink, no -Y that looks
// into records; the
// Parquet rows hold the bodies), record sets are only counted, as stats
// counts them: --metrics' numbers are stats', and -q --metrics costs what
// stats does.
func (f *captureFlags) decodeOptions(countable bool) dissect.DecodeOptions {
	return dissect.DecodeOptions{Records: codec.RecordDecodeOptions{
		MaxDecompressedBytes: f.maxDecompressed,
		CountOnly:            f.quiet && countable && f.format != "parquet",
	}}
}

// registerQuiet adds -q, tshark's: the exchanges are not shown, for a
// run whose outputs are --metrics, --sink or -w.
func (f *captureFlags) registerQuiet(cmd *cobra.Command) {
	cmd.Flags().BoolVarP(&f.quiet, "quiet", "q", false, "do not show the exchanges on standard output (as tshark -q): for --metrics, --sink and -w, which still get every exchange; the summary lines on standard error stay")
}

// framePool returns the pool of frame buffers for read and stats, whose
// pipeline gives each exchange's frames back once it was output: recycled
// buffers spare the allocation, zeroing and collection of every frame.
func (f *captureFlags) framePool() *dissect.FramePool {
	return &dissect.FramePool{Poison: f.poisonFrames}
}

func (f *captureFlags) dissectOptions() (dissect.Options, error) {
	opts := dissect.Options{MaxFrameSize: f.maxFrameSize, ValidRequest: validRequest}
	for _, p := range f.ports {
		for _, s := range strings.Split(p, ",") {
			if s = strings.TrimSpace(s); strings.EqualFold(s, "any") {
				opts.AnyPort = true // Kafka found by its framing on any port
				continue
			}
			n, err := strconv.ParseUint(s, 10, 16)
			if err != nil || n == 0 {
				return opts, fmt.Errorf("bad port %q: want a TCP port number or any", s)
			}
			opts.Ports = append(opts.Ports, uint16(n))
		}
	}
	if len(opts.Ports) == 0 && !opts.AnyPort {
		return opts, fmt.Errorf("-p: no port given (a number, or any)")
	}
	if f.maxFrameSize <= 0 {
		return opts, fmt.Errorf("--max-frame-size must be positive")
	}
	keys, err := openKeyLogs(f.tlsKeylogs, os.Stderr)
	if err != nil {
		return opts, err
	}
	if keys != nil {
		opts.TLSKeys = keys
	}
	return opts, nil
}

// validRequest says whether a request header is plausible, for finding a
// frame boundary after a gap.
func validRequest(apiKey, apiVersion int16) bool {
	api, ok := codec.LookupAPI(apiKey)
	return ok && api.SupportsVersion(apiVersion)
}

// writer returns the writer of --format to standard output (views.go).
func (f *captureFlags) writer(cmd *cobra.Command) (exchangeWriter, error) {
	return f.formatWriter(cmd, cmd.OutOrStdout(), false)
}

func newReadCmd() *cobra.Command {
	var flags captureFlags
	var exFilter exchangeFilterFlags // views.go
	var mf metricsFlags              // metrics.go
	var sf sinkFlags                 // sink.go
	var count int
	var write string // -w (write.go)
	cmd := &cobra.Command{
		Use:   "read FILE...",
		Short: "Decode the Kafka exchanges in pcap or pcapng captures (- reads standard input)",
		Long: `Decode the Kafka exchanges in pcap or pcapng captures, plain or
gzip-, zstd- or xz-compressed. Several files are read as one capture: the parts of a ring
buffer (tcpdump -C/-G/-W, dumpcap -b, editcap -c), given in any order, are
ordered by their first packet's time, and connections continue from one part
into the next; files whose times overlap (captures at two points) are merged
by time. JSON lines then name the file of each request ("file").

- reads a capture from standard input; from a pipe (tcpdump -U -w - | kdissect
read -) each exchange is shown as soon as it is complete, and the summary table
has fixed column widths, as in live.

On a terminal the summary table is fitted to its width ($COLUMNS, else the
terminal's size; --width N for any output), dropping and shortening columns in
the order docs/views.md gives, and each row is printed as it comes; into a file or
a pipe it is the whole table at full width. Ctrl-C (or SIGTERM) stops reading,
finishes the line being written, flushes, and exits with status 130 (143).`,
		Example: `  kdissect read testdata/pcaps/kcat_produce_lz4.pcap
  kdissect read -p 9092 -p 9093 --format json capture.pcapng.gz
  kdissect read -f 'host 10.0.0.5 and port 9092' capture.pcap
  kdissect read --format detail --api Produce --topic orders -c 5 capture.pcap
  kdissect read --format hexdump --errors --min-latency 100ms capture.pcap
  kdissect read --columns time,api,topics,latency -t r capture.pcap
  kdissect read -Y 'api == "Produce" && request.Acks == 0 && latency > duration("50ms")' capture.pcap
  kdissect read --format csv -e ts -e api -e 'map(topics, .topic)' -e latency_us capture.pcap`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := flags.dissectOptions()
			if err != nil {
				return err
			}
			progress := newProgress(cmd)
			stdout := cmd.OutOrStdout()
			if progress != nil {
				stdout = progress.Output(stdout) // clears the bar before output
			}
			// From a pipe (tcpdump -U -w - | kdissect read -) the
			// exchanges are shown as they come, as live shows them.
			stream := streamingInput(args, cmd.InOrStdin())
			if flags.format == "parquet" { // -w names the Parquet file, not a pcapng
				flags.parquet.path, write = write, ""
			}
			// Before any output is opened.
			inputs := inputFiles{captures: args, keyLogs: flags.keyLogs(), stdin: cmd.InOrStdin()}
			if err := refuseOverwritingInputs(inputs, outputFlag{"-w", write}, outputFlag{"-w", flags.parquet.path}, outputFlag{"--parquet-records", flags.parquet.records}); err != nil {
				return err
			}
			out, err := flags.formatWriter(cmd, stdout, stream)
			if err != nil {
				return err
			}
			if po, ok := out.(*parquetOutput); ok {
				defer po.discard() // a usage error below leaves no file
			}
			match, err := exFilter.set()
			if err != nil {
				return err
			}
			disp, err := compileDisplayFilter(exFilter.display)
			if err != nil {
				return err
			}
			if count < 0 {
				return fmt.Errorf("-c must not be negative")
			}
			if flags.maxDecompressed <= 0 {
				return fmt.Errorf("--max-decompressed-size must be positive")
			}
			filter, err := flags.captureFilter()
			if err != nil {
				return err
			}
			mx, err := mf.start(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			sr, err := sf.start(cmd.Context(), flags.showSecrets, sink.HeaderFile, strings.Join(args, ","), cmd.ErrOrStderr())
			if err != nil {
				mx.close()
				return err
			}
			sr.counted(mx)
			// -c is an exchange filter too: the packets after the N-th
			// exchange are not written. -w decides each exchange's packets
			// in capture order (an output.Decider), so -Y runs there.
			pf, err := openPacketFile(write, outfile.Atomic, match == nil && disp == nil && count == 0)
			if err != nil {
				sr.close(cmd.ErrOrStderr())
				mx.close()
				return err
			}
			tuneGC()
			opts.FramePool = flags.framePool()
			d := dissect.New(opts)
			// Ctrl-C (or SIGTERM) ends the input as -c does: the exchanges
			// being written are finished, the output flushed (the table
			// closed), and the status says the signal.
			intr := catchInterrupts(cmd.Context())
			defer intr.stop()
			stdin := cmd.InOrStdin()
			if stream {
				stdin = intr.reader(stdin) // a pipe may wait long for input
			}
			popts := pipeline.Options{
				Decode:  flags.decodeOptions(sr == nil && !disp.readsRecords()),
				Pool:    opts.FramePool,
				Filter:  match,
				Display: disp.selector(),
				Count:   int64(count),
			}
			var failed []error
			res, writeErr := pipeline.Run(intr.ctx, func(p *pipeline.Pipeline) {
				in := &captureInput{d: d, filter: filter, stdin: stdin, warn: cmd.ErrOrStderr(), progress: progress, stop: p.Done}
				if stream {
					in.paused = p.Sync // the pipe may block: show what came
				}
				if pf != nil {
					in.packet = pf.packet
				}
				failed = in.read(args, func(ex *dissect.Exchange) {
					mx.emitted(d)
					p.Put(ex)
				})
			}, popts, mx.tap(), sr.tap(viewTap(out)), pf.tap())
			if err := out.Flush(); err != nil && writeErr == nil {
				writeErr = err
			}
			sr.close(cmd.ErrOrStderr())
			mx.finish(intr.ctx, d, mf.linger, cmd.ErrOrStderr())
			if pf != nil {
				if err := pf.Close(); err != nil {
					return inputError{err}
				}
			}
			if writeErr != nil {
				return inputError{fmt.Errorf("write output: %w", writeErr)}
			}
			if sig := intr.caught(); sig != nil {
				return interrupted{sig} // what the input held after it does not matter
			}
			for _, err := range failed[:max(0, len(failed)-1)] {
				fmt.Fprintln(cmd.ErrOrStderr(), "kdissect:", err)
			}
			// What the filters did with what was read is said even when
			// the input was damaged part way.
			if res.Seen > 0 || len(failed) == 0 {
				reportFilters(cmd.ErrOrStderr(), match, disp, res.Seen, res.Passed)
			}
			if len(failed) > 0 {
				return inputError{failed[len(failed)-1]}
			}
			if res.Seen == 0 {
				noExchanges(cmd.ErrOrStderr(), d.Stats(), opts, flags.filter != "")
			}
			return nil
		},
	}
	flags.register(cmd)
	flags.registerQuiet(cmd)
	flags.table.register(cmd)
	addReadFlag(cmd)
	flags.parquet.registerWrite(cmd)
	exFilter.register(cmd.Flags())
	mf.register(cmd.Flags(), true)
	sf.register(cmd.Flags())
	flags.fields.register(cmd.Flags())
	cmd.Flags().IntVarP(&count, "count", "c", 0, countUsage)
	cmd.Flags().StringVarP(&write, "write", "w", "", writeUsage)
	return cmd
}
