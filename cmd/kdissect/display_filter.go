package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/spf13/pflag"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/output/displayfilter"
	"github.com/kdissect/kdissect/output/filter"
	"github.com/kdissect/kdissect/output/render"
)

// This file wires -Y/--display-filter (read, live, stats, replay) and the
// field columns of --format fields and csv (-e, --no-header; read and
// live) to package displayfilter.

// displayFilterUsage is the help of -Y.
const displayFilterUsage = `display filter: only exchanges for which this expression (expr language) is true; names as in the JSON Lines output (api, topics, errors, latency_us, request.Acks, response.ErrorCode...) plus latency, a duration: -Y 'api == "Produce" && latency > duration("50ms")'`

// addDisplayFilterFlag adds -Y/--display-filter to fs.
func addDisplayFilterFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVarP(p, "display-filter", "Y", "", displayFilterUsage)
}

// displayMatch is a compiled -Y with what it saw: it may run on many
// goroutines at once.
type displayMatch struct {
	f        *displayfilter.Filter
	matched  atomic.Int64
	failed   atomic.Int64
	firstErr atomic.Pointer[error]
}

// compileDisplayFilter compiles -Y; nil when it was not given. A bad
// expression is a usage error (exit 2) saying where and what was expected.
func compileDisplayFilter(src string) (*displayMatch, error) {
	if strings.TrimSpace(src) == "" {
		return nil, nil
	}
	f, err := displayfilter.Compile(src)
	if err != nil {
		return nil, fmt.Errorf("-Y: %w", err)
	}
	return &displayMatch{f: f}, nil
}

// readsRecords reports whether -Y reads records (see
// displayfilter.Filter.ReadsRecords): stats must then decode them.
func (d *displayMatch) readsRecords() bool { return d != nil && d.f.ReadsRecords() }

// match reports whether ex passes -Y (true without one). An exchange the
// expression cannot be evaluated on does not pass; report says how many.
func (d *displayMatch) match(ex *dissect.Exchange) bool {
	if d == nil {
		return true
	}
	ok, err := d.f.Match(ex)
	if err != nil {
		if d.failed.Add(1) == 1 {
			d.firstErr.Store(&err)
		}
		return false
	}
	if ok {
		d.matched.Add(1)
	}
	return ok
}

// selector returns match as the pipeline's parallel selection, nil
// without -Y.
func (d *displayMatch) selector() func(*dissect.Exchange) bool {
	if d == nil {
		return nil
	}
	return d.match
}

// String describes -Y for messages.
func (d *displayMatch) String() string { return "-Y " + d.f.String() }

// reportFilters says on w when the filters selected nothing of the seen
// exchanges, and how many exchanges -Y could not be evaluated on.
func reportFilters(w io.Writer, set *filter.Set, d *displayMatch, seen, passed int64) {
	if d != nil {
		if n := d.failed.Load(); n > 0 {
			fmt.Fprintf(w, "kdissect: warning: %s: could not be evaluated on %d exchanges, which do not pass (the first: %v)\n", d, n, firstLine(*d.firstErr.Load()))
		}
	}
	if seen == 0 || passed > 0 || set.IsZero() && d == nil {
		return
	}
	var parts []string
	if !set.IsZero() {
		parts = append(parts, set.String())
	}
	if d != nil {
		parts = append(parts, d.String())
	}
	fmt.Fprintf(w, "kdissect: warning: no exchange passed the filters (%s): %d exchanges read\n", strings.Join(parts, "; "), seen)
}

// firstLine returns err's first line: expr's runtime errors carry the
// expression with a caret below.
func firstLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// fieldFlags are -e and --no-header of --format fields and csv.
type fieldFlags struct {
	exprs    []string
	noHeader bool
	csvRaw   bool // --csv-raw
}

func (f *fieldFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVarP(&f.exprs, "field", "e", nil, "with --format fields or csv: a column, by a name of the JSON Lines output or any -Y expression (api, topics, request.Acks, latency); repeatable, in order")
	fs.BoolVar(&f.noHeader, "no-header", false, "with --format fields or csv: no header line")
	fs.BoolVar(&f.csvRaw, "csv-raw", false, "with --format csv: write every cell as it is; by default a cell starting with =, +, -, @, a tab or a carriage return that is not a plain number gets a leading ', so that a spreadsheet does not run it as a formula")
}

// writer returns the writer of --format fields or csv.
func (f *fieldFlags) writer(out io.Writer, format string, showSecrets bool) (exchangeWriter, error) {
	if len(f.exprs) == 0 {
		return nil, errors.New("--format " + format + ": name the columns with -e (-e api -e topics -e latency_us)")
	}
	cols, err := displayfilter.CompileColumns(f.exprs)
	if err != nil {
		return nil, fmt.Errorf("-e: %w", err)
	}
	cols.ShowSecrets = showSecrets
	return render.NewFieldColumns(out, cols, render.FieldColumnsOptions{CSV: format == "csv", NoHeader: f.noHeader, CSVRaw: f.csvRaw}), nil
}
