package render

import (
	"bufio"
	"encoding/csv"
	"io"
	"strings"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/dissect/displayfilter"
)

// FieldColumns writes chosen fields of each exchange as a line of columns
// (--format fields and csv, -e): tab-separated, as tshark -T fields
// writes them, or CSV (RFC 4180), with a header line of the expressions
// first unless NoHeader. A cell is displayfilter.Cell's text; in the
// tab-separated form a backslash, tab, newline or carriage return in it
// is written as \\, \t, \n or \r, so that every line is one exchange.
type FieldColumns struct {
	cols     *displayfilter.Columns
	csv      *csv.Writer // nil: tab-separated
	w        *bufio.Writer
	header   bool // still to write
	err      error
	lineBuff []byte
}

// NewFieldColumns returns a writer of cols to w, CSV when asCSV, else
// tab-separated; noHeader leaves out the header line. Call Flush at the
// end.
func NewFieldColumns(w io.Writer, cols *displayfilter.Columns, asCSV, noHeader bool) *FieldColumns {
	f := &FieldColumns{cols: cols, w: bufio.NewWriterSize(w, 64<<10), header: !noHeader}
	if asCSV {
		f.csv = csv.NewWriter(f.w)
	}
	return f
}

// Row returns the cells of ex. Unlike Write it may run on many goroutines
// at once; AddRow then writes the rows in order.
func (f *FieldColumns) Row(ex *dissect.Exchange) []string { return f.cols.Row(ex) }

// AddRow writes a row Row returned.
func (f *FieldColumns) AddRow(row []string) error {
	if f.err != nil {
		return f.err
	}
	if f.header {
		f.header = false
		f.line(f.cols.Names())
	}
	f.line(row)
	return f.err
}

// Write writes ex as one line.
func (f *FieldColumns) Write(ex *dissect.Exchange) error { return f.AddRow(f.Row(ex)) }

// line writes one line of cells.
func (f *FieldColumns) line(cells []string) {
	if f.err != nil {
		return
	}
	if f.csv != nil {
		f.err = f.csv.Write(cells)
		return
	}
	b := f.lineBuff[:0]
	for i, c := range cells {
		if i > 0 {
			b = append(b, '\t')
		}
		b = appendTSVCell(b, c)
	}
	b = append(b, '\n')
	f.lineBuff = b
	_, f.err = f.w.Write(b)
}

// tsvEscaper escapes what would end a cell or a line.
var tsvEscaper = strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`)

func appendTSVCell(b []byte, c string) []byte {
	if !strings.ContainsAny(c, "\\\t\n\r") {
		return append(b, c...)
	}
	return append(b, tsvEscaper.Replace(c)...)
}

// Flush writes the header when no exchange came, and buffered output.
func (f *FieldColumns) Flush() error {
	if f.header {
		f.header = false
		f.line(f.cols.Names())
	}
	if f.csv != nil {
		f.csv.Flush()
		if err := f.csv.Error(); err != nil && f.err == nil {
			f.err = err
		}
	}
	if err := f.w.Flush(); err != nil && f.err == nil {
		f.err = err
	}
	return f.err
}
