package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/dissect/capfilter"
	"github.com/kdissect/kdissect/dissect/filter"
	"github.com/kdissect/kdissect/dissect/render"
)

// This file wires the views (formats, colour, progress) and the exchange
// filters into the commands that read captures.

// formatsUsage is the help of --format for read and live.
const formatsUsage = "output format: summary (a table row per exchange), detail (every field as a tree), hexdump (every byte labelled) or json (JSON Lines)"

// formatWriter returns the exchange writer --format names, writing to out;
// coloured when the command's standard output is a terminal and neither
// --no-color nor NO_COLOR says otherwise.
func (f *captureFlags) formatWriter(cmd *cobra.Command, out io.Writer) (exchangeWriter, error) {
	colors := render.NewColors(colorWanted(cmd.OutOrStdout(), f.noColor))
	records := codec.RecordDecodeOptions{MaxDecompressedBytes: f.maxDecompressed}
	switch f.format {
	case "summary":
		t := render.NewTable(out)
		t.Colors = colors
		return t, nil
	case "detail":
		return render.NewDetail(out, render.DetailOptions{ShowSecrets: f.showSecrets, Records: records, Colors: colors})
	case "hexdump":
		return render.NewHexdump(out, render.HexdumpOptions{ShowSecrets: f.showSecrets, Records: records, Colors: colors})
	case "json":
		return render.NewJSONLines(out, f.showSecrets), nil
	}
	return nil, fmt.Errorf("unknown format %q (want summary, detail, hexdump or json)", f.format)
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

// captureInput reads the capture files of read and stats into a
// Dissector: with a progress bar, and ending early once stop says so.
type captureInput struct {
	d        *dissect.Dissector
	filter   *capfilter.Filter // -f; nil: none
	stdin    io.Reader
	warn     io.Writer
	progress *render.Progress // nil: none
	stop     func() bool      // nil: never
}

// read reads path ("-": standard input), calling emit per exchange.
func (in *captureInput) read(path string, emit func(*dissect.Exchange)) error {
	name, r := "standard input", in.stdin
	var size int64
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		name, r = path, f
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			size = st.Size()
		}
	}
	if in.progress != nil && size > 0 {
		r = in.progress.File(name, size, r)
		defer in.progress.Done()
		inner := emit
		emit = func(ex *dissect.Exchange) {
			in.progress.Exchange()
			inner(ex)
		}
	}
	sr := &stopReader{r: r, stop: in.stop}
	var err error
	if in.filter != nil {
		err = readFiltered(in.d, sr, name, in.filter, in.warn, emit) // filter.go
	} else {
		err = in.d.ReadCapture(sr, emit)
	}
	if err != nil && !sr.stopped {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// stopReader ends its input early, once stop says so: the capture then
// reads as if it ended there (its last packet cut short, which is not an
// error once stopped on purpose), and the exchanges still open come out.
type stopReader struct {
	r       io.Reader
	stop    func() bool
	stopped bool
}

func (s *stopReader) Read(b []byte) (int, error) {
	if s.stop != nil && s.stop() {
		s.stopped = true
		return 0, io.EOF
	}
	return s.r.Read(b)
}
