package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/dissect/render"
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
	maxFrameSize    int
	maxDecompressed int64
	showSecrets     bool
}

func (f *captureFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringSliceVarP(&f.ports, "port", "p", []string{"9092"}, "Kafka broker TCP port, repeatable")
	cmd.Flags().StringVar(&f.format, "format", "summary", "output format: summary or json")
	cmd.Flags().IntVar(&f.maxFrameSize, "max-frame-size", dissect.DefaultMaxFrameSize, "largest Kafka frame accepted, in bytes")
	cmd.Flags().Int64Var(&f.maxDecompressed, "max-decompressed-size", codec.DefaultMaxDecompressedBytes, "cap on the decompressed size of one record batch, in bytes")
	cmd.Flags().BoolVar(&f.showSecrets, "show-secrets", false, "show SASL credentials and delegation token HMACs instead of redacting them")
}

func (f *captureFlags) dissectOptions() (dissect.Options, error) {
	opts := dissect.Options{MaxFrameSize: f.maxFrameSize, ValidRequest: validRequest}
	for _, p := range f.ports {
		for _, s := range strings.Split(p, ",") {
			n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 16)
			if err != nil || n == 0 {
				return opts, fmt.Errorf("bad port %q: want a TCP port number", s)
			}
			opts.Ports = append(opts.Ports, uint16(n))
		}
	}
	if f.maxFrameSize <= 0 {
		return opts, fmt.Errorf("--max-frame-size must be positive")
	}
	return opts, nil
}

// validRequest says whether a request header is plausible, for finding a
// frame boundary after a gap.
func validRequest(apiKey, apiVersion int16) bool {
	api, ok := codec.LookupAPI(apiKey)
	return ok && api.SupportsVersion(apiVersion)
}

func (f *captureFlags) writer(cmd *cobra.Command) (exchangeWriter, error) {
	switch f.format {
	case "summary":
		return render.NewTable(cmd.OutOrStdout()), nil
	case "json":
		return render.NewJSONLines(cmd.OutOrStdout(), f.showSecrets), nil
	}
	return nil, fmt.Errorf("unknown format %q (want summary or json)", f.format)
}

func newReadCmd() *cobra.Command {
	var flags captureFlags
	cmd := &cobra.Command{
		Use:   "read FILE...",
		Short: "Decode the Kafka exchanges in pcap or pcapng captures (- reads standard input)",
		Example: `  kdissect read testdata/pcaps/kcat_produce_lz4.pcap
  kdissect read -p 9092 -p 9093 --format json capture.pcapng.gz`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := flags.dissectOptions()
			if err != nil {
				return err
			}
			out, err := flags.writer(cmd)
			if err != nil {
				return err
			}
			if flags.maxDecompressed <= 0 {
				return fmt.Errorf("--max-decompressed-size must be positive")
			}
			d := dissect.New(opts)
			dec := dissect.NewDecoder(dissect.DecodeOptions{Records: codec.RecordDecodeOptions{MaxDecompressedBytes: flags.maxDecompressed}})
			var failed []error
			var writeErr error
			exchanges := 0
			for _, path := range args {
				err := d.ReadFile(path, func(ex *dissect.Exchange) {
					exchanges++
					dec.Decode(ex)
					if writeErr == nil {
						writeErr = out.Write(ex)
					}
				})
				if err != nil {
					failed = append(failed, err)
				}
			}
			if err := out.Flush(); err != nil && writeErr == nil {
				writeErr = err
			}
			if writeErr != nil {
				return inputError{fmt.Errorf("write output: %w", writeErr)}
			}
			for _, err := range failed[:max(0, len(failed)-1)] {
				fmt.Fprintln(cmd.ErrOrStderr(), "kdissect:", err)
			}
			if len(failed) > 0 {
				return inputError{failed[len(failed)-1]}
			}
			if exchanges == 0 {
				st := d.Stats()
				fmt.Fprintf(cmd.ErrOrStderr(), "kdissect: no Kafka exchanges in %d packets (%d TCP) on broker ports %v; name the broker port with -p\n",
					st.Packets, st.TCPPackets, opts.Ports)
			}
			return nil
		},
	}
	flags.register(cmd)
	return cmd
}
