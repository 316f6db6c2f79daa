package render

import (
	"bufio"
	"encoding/csv"
	"io"
	"slices"
	"strings"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/output/displayfilter"
)

// FieldColumns writes chosen fields of each exchange as a line of columns
// (--format fields and csv, -e): tab-separated, as tshark -T fields
// writes them, or CSV (RFC 4180), with a header line of the expressions
// first unless NoHeader. A cell is displayfilter.Cell's text; in the
// tab-separated form a backslash, tab, newline or carriage return in it
// is written as \\, \t, \n or \r, so that every line is one exchange.
// In CSV a cell a spreadsheet would take for a formula gets a leading '
// (see FieldColumnsOptions.CSVRaw).
type FieldColumns struct {
	cols     *displayfilter.Columns
	csv      *csv.Writer // nil: tab-separated
	csvRaw   bool
	w        *bufio.Writer
	header   bool // still to write
	err      error
	lineBuff []byte
}

// FieldColumnsOptions say how FieldColumns writes.
type FieldColumnsOptions struct {
	CSV      bool // CSV (RFC 4180), else tab-separated
	NoHeader bool // no header line
	// CSVRaw writes CSV cells as they are. Without it a cell that starts
	// with =, +, -, @, a tab or a carriage return gets a leading ', so
	// that a spreadsheet opening the file shows it as text instead of
	// running it as a formula (OWASP's CSV injection rule); a cell that
	// is a plain number (-1, +3, -0.5, -1e9) is left alone: a spreadsheet
	// reads it as that number, which runs nothing.
	CSVRaw bool
}

// NewFieldColumns returns a writer of cols to w as opts say. Call Flush
// at the end.
func NewFieldColumns(w io.Writer, cols *displayfilter.Columns, opts FieldColumnsOptions) *FieldColumns {
	f := &FieldColumns{cols: cols, w: bufio.NewWriterSize(w, 64<<10), header: !opts.NoHeader, csvRaw: opts.CSVRaw}
	if opts.CSV {
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
		if !f.csvRaw {
			cells = guardFormulas(cells)
		}
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

// guardFormulas returns cells with ' before those a spreadsheet would run
// as a formula (FieldColumnsOptions.CSVRaw); cells itself when none is.
func guardFormulas(cells []string) []string {
	var out []string
	for i, c := range cells {
		if !isFormula(c) {
			continue
		}
		if out == nil {
			out = slices.Clone(cells)
		}
		out[i] = "'" + c
	}
	if out == nil {
		return cells
	}
	return out
}

// isFormula says whether a spreadsheet could take cell c for a formula:
// it starts with =, +, -, @, a tab or a carriage return, and is not a
// plain decimal number.
func isFormula(c string) bool {
	if c == "" || !strings.ContainsRune("=+-@\t\r", rune(c[0])) {
		return false
	}
	return !plainNumber(c)
}

// plainNumber says whether s is [+-]digits[.digits][e[+-]digits], with a
// digit before or after the point.
func plainNumber(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	n := digits()
	if i < len(s) && s[i] == '.' {
		i++
		n += digits()
	}
	if n == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
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
