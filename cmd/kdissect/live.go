package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/gopacket/gopacket"
	"github.com/spf13/cobra"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/dissect/capfilter"
	"github.com/kdissect/kdissect/dissect/live"
	"github.com/kdissect/kdissect/internal/outfile"
	"github.com/kdissect/kdissect/output/pipeline"
	"github.com/kdissect/kdissect/output/sink"
)

// liveFlags are the flags of live beyond the capture flags.
type liveFlags struct {
	iface   string
	write   string
	count   int
	promisc bool
	snapLen int
	list    bool
}

func newLiveCmd() *cobra.Command {
	var flags captureFlags
	var lf liveFlags
	var exFilter exchangeFilterFlags
	var mf metricsFlags // metrics.go
	var sf sinkFlags    // sink.go
	cmd := &cobra.Command{
		Use:   "live -i IFACE | -D",
		Short: "Sniff Kafka exchanges on a network interface until Ctrl-C or -c N",
		Long: `Sniff Kafka exchanges on a network interface and print each as soon as its
response is seen (or it is known to have none), until Ctrl-C (or SIGTERM) or
until -c N exchanges were printed; then connections still open are flushed,
so an exchange waiting for its response is printed without one. The summary
table has fixed column widths here (longer cells end in …), fitted to the
terminal's width on a terminal (see read's help); the other
formats are flushed after every exchange, so a pipe (| jq) follows the
traffic. Packet counts, with the kernel's drops, go to standard error.

The capture filter runs in the kernel: without -f it is "tcp and port (P...)"
for the broker ports given with -p, widened (and said so on stderr) when a
Metadata, FindCoordinator or DescribeCluster response names brokers on
other ports; their host names are resolved, since a capture cannot say
what they stand for. Live capture needs root or CAP_NET_RAW
(sudo setcap cap_net_raw+ep kdissect). Without libpcap (the default build, no
cgo) it runs on Linux over AF_PACKET: Ethernet, loopback and tun interfaces,
not "any"; a build with -tags libpcap captures wherever libpcap does.`,
		Example: `  sudo kdissect live -i eth0
  sudo kdissect live -i lo -p 9092 -c 10 --format json
  sudo kdissect live -i eth0 -f 'host 10.0.0.5 and port 9092' -w kafka.pcap
  sudo kdissect live -i eth0 -s 128 --format json   # headers only: latency per API at a tenth of the bytes
  kdissect live -D`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if lf.list {
				return listInterfaces(cmd.OutOrStdout())
			}
			if lf.iface == "" {
				return fmt.Errorf("an interface is needed: -i IFACE (-D lists them)")
			}
			return runLive(cmd, &flags, &lf, &exFilter, &mf, &sf)
		},
	}
	flags.register(cmd)
	flags.registerQuiet(cmd)
	flags.table.register(cmd)
	exFilter.register(cmd.Flags())
	mf.register(cmd.Flags(), false)
	sf.register(cmd.Flags())
	flags.fields.register(cmd.Flags())
	fs := cmd.Flags()
	fs.StringVarP(&lf.iface, "interface", "i", "", "network interface to capture on (required)")
	fs.StringVarP(&lf.write, "write", "w", "", writeUsage)
	flags.parquet.registerRoll(cmd)
	fs.IntVarP(&lf.count, "count", "c", 0, "stop after this many exchanges that pass the filters (0: until Ctrl-C)")
	fs.BoolVar(&lf.promisc, "promisc", false, "put the interface in promiscuous mode, to see traffic between other hosts")
	fs.IntVarP(&lf.snapLen, "snapshot-length", "s", 0, fmt.Sprintf("keep at most this many bytes of each packet, as tcpdump -s (0: %d); 128 keeps the Kafka headers", live.DefaultSnapLen))
	fs.BoolVarP(&lf.list, "list-interfaces", "D", false, "list the network interfaces, as tcpdump -D, and exit")
	return cmd
}

// listInterfaces prints the interfaces as tcpdump -D does: a number, the
// name and its state.
func listInterfaces(w io.Writer) error {
	is, err := net.Interfaces()
	if err != nil {
		return inputError{fmt.Errorf("listing interfaces: %w", err)}
	}
	var b strings.Builder
	for i, ifi := range is {
		var st []string
		if ifi.Flags&net.FlagUp != 0 {
			st = append(st, "Up")
		}
		if ifi.Flags&net.FlagRunning != 0 {
			st = append(st, "Running")
		}
		if ifi.Flags&net.FlagLoopback != 0 {
			st = append(st, "Loopback")
		}
		fmt.Fprintf(&b, "%d.%s", i+1, ifi.Name)
		if len(st) > 0 {
			fmt.Fprintf(&b, " [%s]", strings.Join(st, ", "))
		}
		b.WriteByte('\n')
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return inputError{fmt.Errorf("write output: %w", err)}
	}
	return nil
}

// defaultLiveFilter is the kernel filter without -f: TCP to or from a
// broker port, so the kernel drops everything else.
func defaultLiveFilter(ports []uint16) string {
	if len(ports) == 0 {
		return "tcp"
	}
	s := make([]string, len(ports))
	for i, p := range ports {
		s[i] = strconv.Itoa(int(p))
	}
	return "tcp and port (" + strings.Join(s, " or ") + ")"
}

// liveContext is the command's context, cancelled by Ctrl-C or SIGTERM.
func liveContext(cmd *cobra.Command) (context.Context, context.CancelFunc) {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}

func runLive(cmd *cobra.Command, flags *captureFlags, lf *liveFlags, exFilter *exchangeFilterFlags, mf *metricsFlags, sf *sinkFlags) error {
	opts, err := flags.dissectOptions()
	if err != nil {
		return err
	}
	match, err := exFilter.set()
	if err != nil {
		return err
	}
	if flags.format == "parquet" { // -w names the directory of the Parquet files, not a pcap
		flags.parquet.path, flags.parquet.dir, lf.write = lf.write, true, ""
	}
	disp, err := compileDisplayFilter(exFilter.display)
	if err != nil {
		return err
	}
	// Before any output is opened: live reads its key logs as it runs.
	if err := refuseOverwritingInputs(inputFiles{keyLogs: flags.keyLogs()}, outputFlag{"-w", lf.write}); err != nil {
		return err
	}
	out, err := flags.liveWriter(cmd)
	if err != nil {
		return err
	}
	if flags.maxDecompressed <= 0 {
		return fmt.Errorf("--max-decompressed-size must be positive")
	}
	if lf.count < 0 {
		return fmt.Errorf("-c must not be negative")
	}
	if lf.snapLen < 0 || lf.snapLen > live.DefaultSnapLen {
		return fmt.Errorf("-s %d: want 0 (%d) to %d bytes", lf.snapLen, live.DefaultSnapLen, live.DefaultSnapLen)
	}
	if lf.write == "-" {
		return fmt.Errorf("-w -: standard output carries the exchanges; name a file")
	}
	filter, err := flags.captureFilter()
	if err != nil {
		return err
	}
	if filter == nil {
		ports := opts.Ports
		if opts.AnyPort {
			ports = nil // every TCP packet: Kafka may be on any port
		}
		if filter, err = capfilter.Parse(defaultLiveFilter(ports)); err != nil {
			return fmt.Errorf("default filter: %w", err)
		}
	}
	stderr := cmd.ErrOrStderr()

	// Open on this goroutine, before anything else starts: the kernel
	// queues matching packets from here on.
	h, err := live.Open(live.Options{Interface: lf.iface, Filter: filter, Promiscuous: lf.promisc, SnapLen: lf.snapLen})
	if err != nil {
		return inputError{err}
	}
	defer h.Close()
	link := h.LinkType()

	pf, err := openPacketFile(lf.write, outfile.InPlace, match == nil && disp == nil) // write.go: readable as it grows
	if err != nil {
		return err
	}
	// Catch Ctrl-C before saying the capture runs, so that one sent on
	// seeing that prints what was seen rather than killing the process.
	ctx, stopSignals := liveContext(cmd)
	defer stopSignals()
	mx, err := mf.start(stderr)
	if err != nil {
		return err
	}
	defer mx.close()
	mx.kernel(h)
	sr, err := sf.start(ctx, flags.showSecrets, sink.HeaderInterface, h.Interface(), stderr)
	if err != nil {
		return err
	}
	sr.counted(mx)
	fmt.Fprintf(stderr, "kdissect: listening on %s, link type %s, snapshot length %d bytes, filter %q\n",
		h.Interface(), link, h.SnapLen(), filter)

	var wid *widener
	if flags.filter == "" && !opts.AnyPort {
		wid = newWidener(ctx, opts.Ports, stderr)
		opts.BrokersNamed = wid.named
	}
	d := dissect.New(opts)
	// Not ctx: after Ctrl-C the connections still open are flushed, and
	// their exchanges shown.
	p := pipeline.Start(context.Background(), pipeline.Options{
		Decode:   flags.decodeOptions(sr == nil && !disp.readsRecords()),
		Filter:   match,
		Display:  disp.selector(),
		Count:    int64(lf.count),
		SyncEach: true, // shown as it is seen, also through a pipe
	}, mx.tap(), sr.tap(viewTap(out)), pf.tap())
	emitted := false
	s := newSession(d, func(ex *dissect.Exchange) {
		emitted = true
		p.Put(ex)
	})
	var pcapErr error
	runErr := h.Run(ctx, func(data []byte, ci gopacket.CaptureInfo) bool {
		if pf != nil {
			if pcapErr = pf.livePacket(link, data, ci); pcapErr != nil {
				return false
			}
		}
		emitted = false
		s.packet(link, data, ci)
		mx.packet(d, ci.Timestamp)
		if wid != nil {
			wid.apply(h, s.s)
		}
		if emitted && lf.count > 0 {
			p.Sync() // so that -c stops at the packet that completed the N-th exchange
		}
		return !p.Done()
	})
	// A second Ctrl-C while the exchanges are printed kills the process.
	stopSignals()
	st := h.Stats()
	h.Close()
	s.close()
	res, writeErr := p.Close()
	sr.close(stderr)
	mx.finish(context.Background(), d, 0, stderr)

	if err := out.Flush(); err != nil && writeErr == nil {
		writeErr = err
	}
	if pf != nil {
		if err := pf.Close(); pcapErr == nil {
			pcapErr = err
		}
	}
	fmt.Fprintf(stderr, "kdissect: %d packets captured on %s, %d received by the filter, %d dropped by the kernel",
		st.Captured, h.Interface(), st.Received, st.Dropped)
	if st.Rejected > 0 {
		fmt.Fprintf(stderr, ", %d rejected by the filter in user space", st.Rejected)
	}
	fmt.Fprintln(stderr)
	switch {
	case runErr != nil:
		return inputError{runErr}
	case pcapErr != nil:
		return inputError{pcapErr}
	case writeErr != nil:
		return inputError{fmt.Errorf("write output: %w", writeErr)}
	}
	warnConnTable(stderr, d.Stats())
	if res.Seen == 0 {
		noExchanges(stderr, d.Stats(), opts, false) // the filter ran in the kernel
	}
	reportFilters(stderr, match, disp, res.Seen, res.Passed)
	return nil
}

// liveWriter is the writer of --format for live: the summary table
// streams with fixed widths; the other formats are flushed after each
// exchange by runLive.
func (f *captureFlags) liveWriter(cmd *cobra.Command) (exchangeWriter, error) {
	return f.formatWriter(cmd, cmd.OutOrStdout(), true)
}
