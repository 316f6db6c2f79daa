package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/dissect/capfilter"
	"github.com/kdissect/kdissect/output/filter"
	"github.com/kdissect/kdissect/output/render"
)

// This file wires the views (formats, colour, progress) and the exchange
// filters into the commands that read captures.

// formatsUsage is the help of --format for read and live.
const formatsUsage = "output format: summary (a table row per exchange), detail (every field as a tree), hexdump (every byte labelled), json (JSON Lines), fields (the -e columns, tab-separated), csv (the -e columns, RFC 4180) or parquet (a Parquet file, -w)"

// formatWriter returns the exchange writer --format names, writing to out;
// coloured when the command's standard output is a terminal and neither
// --no-color nor NO_COLOR says otherwise. The summary table is a
// render.StreamTable, whose rows come out as the exchanges come, with
// stream — the exchanges come from a live source (an interface, a pipe)
// — and when it is fitted to a width (a terminal's, --width); otherwise a
// render.Table, which sizes its columns to the widest cell and so prints
// only at the end. Its tap (viewTap) flushes the other formats where a
// reader may wait.
func (f *captureFlags) formatWriter(cmd *cobra.Command, out io.Writer, stream bool) (exchangeWriter, error) {
	colors := render.NewColors(colorWanted(cmd.OutOrStdout(), f.noColor))
	records := codec.RecordDecodeOptions{MaxDecompressedBytes: f.maxDecompressed}
	if err := f.parquet.check(f.format); err != nil {
		return nil, err
	}
	if f.format != "fields" && f.format != "csv" && (len(f.fields.exprs) > 0 || f.fields.noHeader) {
		return nil, fmt.Errorf("-e and --no-header go with --format fields or csv")
	}
	if f.format != "csv" && f.fields.csvRaw {
		return nil, fmt.Errorf("--csv-raw goes with --format csv")
	}
	if f.quiet {
		if f.format == "parquet" {
			// The Parquet file is -w's, not a view: -q changes nothing.
			return f.parquet.writer(out, f.showSecrets)
		}
		if len(f.fields.exprs) > 0 {
			return nil, fmt.Errorf("-q shows nothing: -e has no output")
		}
		return quietOutput{}, nil
	}
	switch f.format {
	case "summary":
		cols, tf, err := f.table.options()
		if err != nil {
			return nil, err
		}
		width, err := f.table.fitWidth(cmd.OutOrStdout())
		if err != nil {
			return nil, err
		}
		if stream || width > 0 {
			t := render.NewStreamTable(out)
			t.Colors, t.Columns, t.Time, t.Width = colors, cols, tf, width
			return t, nil
		}
		t := render.NewTable(out)
		t.Colors, t.Columns, t.Time = colors, cols, tf
		return t, nil
	case "detail":
		return render.NewDetail(out, render.DetailOptions{ShowSecrets: f.showSecrets, Records: records, Colors: colors})
	case "hexdump":
		return render.NewHexdump(out, render.HexdumpOptions{ShowSecrets: f.showSecrets, Records: records, Colors: colors})
	case "json":
		return render.NewJSONLines(out, f.showSecrets), nil
	case "fields", "csv":
		return f.fields.writer(out, f.format, f.showSecrets) // display_filter.go
	case "parquet":
		return f.parquet.writer(out, f.showSecrets)
	}
	return nil, fmt.Errorf("unknown format %q (want summary, detail, hexdump, json, fields, csv or parquet)", f.format)
}

// quietOutput is -q's view: nothing. Its tap is none (viewTap), so it
// costs the pipeline nothing either.
type quietOutput struct{}

func (quietOutput) Write(*dissect.Exchange) error { return nil }
func (quietOutput) Flush() error                  { return nil }

// tableFlags are the flags of the summary table, on read and live.
type tableFlags struct {
	columns    []string
	timeFormat string
	width      int
}

func (f *tableFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringSliceVar(&f.columns, "columns", nil, "summary table columns to show, in this order, by the names of its header: "+strings.Join(render.ColumnNames(), ", "))
	fs.StringVarP(&f.timeFormat, "time-format", "t", "absolute", "summary table time column: absolute (a; UTC, the year when the capture spans years), absolute-date (ad: always the year), relative (r: seconds since the capture's first exchange), delta (d: seconds since the row before) or epoch (e: seconds since 1970)")
	fs.IntVar(&f.width, "width", 0, "fit the summary table into this many columns and print each row as it comes (default: the terminal's width on a terminal; the full width otherwise)")
	cmd.RegisterFlagCompletionFunc("time-format", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"absolute", "absolute-date", "relative", "delta", "epoch"}, cobra.ShellCompDirectiveNoFileComp
	})
	cmd.RegisterFlagCompletionFunc("columns", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return render.ColumnNames(), cobra.ShellCompDirectiveNoFileComp
	})
}

// options returns the columns (nil: all) and the time format the flags ask for.
func (f *tableFlags) options() ([]string, render.TimeFormat, error) {
	tf, err := render.ParseTimeFormat(f.timeFormat)
	if err != nil {
		return nil, 0, fmt.Errorf("--time-format: %w", err)
	}
	if f.columns == nil {
		return nil, tf, nil
	}
	cols, err := render.ParseColumns(f.columns)
	if err != nil {
		return nil, 0, fmt.Errorf("--columns: %w", err)
	}
	return cols, tf, nil
}

// fitWidth returns the width to fit the summary table into: --width;
// else, when w is a terminal, $COLUMNS (as the shell sets it) or the
// terminal's own width, 80 when neither says; else 0, the full width,
// for a file or a pipe whose reader wants every cell.
func (f *tableFlags) fitWidth(w io.Writer) (int, error) {
	if f.width < 0 {
		return 0, fmt.Errorf("--width must not be negative")
	}
	if f.width > 0 || !isTerminal(w) {
		return f.width, nil
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n, nil
	}
	if n, _, err := term.GetSize(int(w.(*os.File).Fd())); err == nil && n > 0 {
		return n, nil
	}
	return 80, nil
}

// colorWanted says whether to colour output written to w: only on a
// terminal, never with --no-color or the NO_COLOR convention
// (no-color.org: set and not empty).
func colorWanted(w io.Writer, noColor bool) bool {
	if noColor || os.Getenv("NO_COLOR") != "" {
		return false
	}
	return isTerminal(w)
}

// isTerminal reports whether w is a terminal.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// newProgress returns a progress display on the command's standard error
// when that is a terminal and the output does not go into a pipe (whose
// reader may share the terminal); nil otherwise.
func newProgress(cmd *cobra.Command) *render.Progress {
	if !isTerminal(cmd.ErrOrStderr()) {
		return nil
	}
	if f, ok := cmd.OutOrStdout().(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeNamedPipe != 0 {
			return nil
		}
	}
	return render.NewProgress(cmd.ErrOrStderr())
}

// exchangeFilterFlags are the exchange filter flags (DESIGN.md) of read,
// live and stats.
type exchangeFilterFlags struct {
	apis       []string
	topics     []string
	clientIDs  []string
	errors     bool
	minLatency time.Duration
	streams    []int
	display    string // -Y (display_filter.go)
}

// register adds the flags to fs. -c/--count is not among them: live has
// its own.
func (f *exchangeFilterFlags) register(fs *pflag.FlagSet) {
	fs.StringSliceVar(&f.apis, "api", nil, "only exchanges of this API, by name (Produce) or ApiKey (0); repeatable")
	fs.StringSliceVar(&f.topics, "topic", nil, "only exchanges touching this topic, by name or topic ID; repeatable")
	fs.StringSliceVar(&f.clientIDs, "client-id", nil, "only exchanges with this client id; repeatable")
	fs.BoolVar(&f.errors, "errors", false, "only exchanges whose response holds a non-zero error code")
	fs.DurationVar(&f.minLatency, "min-latency", 0, "only exchanges whose response came at least this late (a Go duration: 50ms, 1.5s)")
	fs.IntSliceVar(&f.streams, "stream", nil, "only exchanges of this connection (the stream column); repeatable")
	addDisplayFilterFlag(fs, &f.display)
}

// set returns the filter the flags ask for; nil when they ask for none.
func (f *exchangeFilterFlags) set() (*filter.Set, error) {
	s := &filter.Set{Topics: f.topics, ClientIDs: f.clientIDs, Errors: f.errors, MinLatency: f.minLatency, Streams: f.streams}
	for _, a := range f.apis {
		k, err := filter.ParseAPI(a)
		if err != nil {
			return nil, err
		}
		s.APIs = append(s.APIs, k)
	}
	if f.minLatency < 0 {
		return nil, fmt.Errorf("--min-latency must not be negative")
	}
	for _, n := range f.streams {
		if n < 0 {
			return nil, fmt.Errorf("--stream %d: streams are numbered from 0", n)
		}
	}
	if s.IsZero() {
		return nil, nil
	}
	return s, nil
}

// countUsage is the help of -c/--count on read and stats.
const countUsage = "stop after this many exchanges that pass the filters (0: no limit)"

// captureInput reads the capture files of read, stats and replay into a
// Dissector, as one capture: with a progress bar, through the capture
// filter, and ending early once stop says so.
type captureInput struct {
	d        *dissect.Dissector
	filter   *capfilter.Filter // -f; nil: none
	stdin    io.Reader
	warn     io.Writer
	progress *render.Progress // nil: none
	stop     func() bool      // nil: never
	// paused, if set, runs when standard input is a pipe and may block:
	// the exchanges complete so far were emitted (read flushes its output).
	paused func()
	// packet, if set, sees every packet dissected, before the Session (-w).
	packet packetHook // write.go
}

// stdinName names standard input in errors and in the JSON "file".
const stdinName = "standard input"

// read reads the captures at paths ("-": standard input) as one capture
// (dissect.Dissector.ReadCaptures), calling emit per exchange. It returns
// an error per capture that could not be read to its end, naming it.
func (in *captureInput) read(paths []string, emit func(*dissect.Exchange)) []error {
	if i := slices.Index(paths, "-"); i >= 0 && slices.Contains(paths[i+1:], "-") {
		return []error{errors.New("- is given twice: standard input holds one capture")}
	}
	caps := make([]dissect.Capture, len(paths))
	names := make([]string, len(paths))
	sizes := make([]int64, len(paths))
	for i, path := range paths {
		if path == "-" {
			caps[i] = dissect.Capture{Name: stdinName, Reader: in.stdin, Pipe: isPipe(in.stdin)}
			names[i] = stdinName
			continue
		}
		caps[i] = dissect.Capture{Name: path, Open: func() (io.ReadCloser, error) {
			f, err := os.Open(path)
			var pe *fs.PathError
			if errors.As(err, &pe) {
				return nil, pe.Err // the capture's name says which file
			}
			return f, err
		}}
		names[i] = path
		if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
			sizes[i] = st.Size()
		}
	}
	if in.progress != nil && slices.ContainsFunc(sizes, func(n int64) bool { return n > 0 }) {
		wrap := in.progress.Files(names, sizes)
		defer in.progress.Done()
		for i := range caps {
			c := &caps[i]
			if c.Reader != nil {
				c.Reader = wrap(i, c.Reader)
				continue
			}
			open := c.Open
			c.Open = func() (io.ReadCloser, error) {
				f, err := open()
				if err != nil {
					return nil, err
				}
				return struct {
					io.Reader
					io.Closer
				}{wrap(i, f), f}, nil
			}
		}
		inner := emit
		emit = func(ex *dissect.Exchange) {
			in.progress.Exchange()
			inner(ex)
		}
	}
	// Files are read twice when that finds brokers late (late.go).
	opts := dissect.ReadOptions{Stop: in.stop, Paused: in.paused, Packet: in.packet, Rediscover: true}
	if in.filter != nil {
		opts.Filter = in.filterPackets(names) // filter.go
	}
	err := in.d.ReadCaptures(caps, opts, emit)
	warnLate(in.warn, in.d.Stats())
	warnConnTable(in.warn, in.d.Stats())
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// isPipe says whether r may pause for long between packets: anything but
// a regular file (a pipe, a socket, a terminal).
func isPipe(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return true
	}
	st, err := f.Stat()
	return err != nil || !st.Mode().IsRegular()
}

// streamingInput says whether paths read a pipe, whose exchanges are to
// be shown as they come.
func streamingInput(paths []string, stdin io.Reader) bool {
	return slices.Contains(paths, "-") && isPipe(stdin)
}
