package render

import (
	"fmt"
	"strings"
)

// The summary table's columns, in their default order (summaryHeader).
const (
	colTime = iota
	colStream
	colClient
	colBroker
	colAPI
	colCorr
	colClientID
	colTopics
	colRecords
	colErrors
	colLatency
	colNotes
	numColumns
)

// columnNames are the names ParseColumns takes, as the header names the
// columns (the time column's header adds its unit).
var columnNames = []string{"time", "stream", "client", "broker", "api", "corr", "client id", "topics", "records", "errors", "latency", "notes"}

// ColumnNames returns the names of the summary table's columns, in their
// default order.
func ColumnNames() []string { return append([]string(nil), columnNames...) }

// columnKey folds a column name for matching: case, spaces, - and _ do
// not count ("client id", "client-id", "Client_ID"), nor a header's unit
// in parentheses ("time (UTC)").
func columnKey(s string) string {
	if i := strings.IndexByte(s, '('); i >= 0 {
		s = s[:i]
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '_':
			return -1
		}
		return r
	}, strings.ToLower(s))
}

// ParseColumns checks the column names of list (each may be a comma
// separated list too) and returns them as ColumnNames names them, in the
// order given. An unknown or repeated name is an error that lists the
// known ones.
func ParseColumns(list []string) ([]string, error) {
	var out []string
	for _, item := range list {
		for _, name := range strings.Split(item, ",") {
			if strings.TrimSpace(name) == "" {
				continue
			}
			i := columnIndex(name)
			if i < 0 {
				return nil, fmt.Errorf("unknown column %q: the columns are %s", strings.TrimSpace(name), strings.Join(columnNames, ", "))
			}
			for _, o := range out {
				if o == columnNames[i] {
					return nil, fmt.Errorf("column %q is named twice", columnNames[i])
				}
			}
			out = append(out, columnNames[i])
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no column named: the columns are %s", strings.Join(columnNames, ", "))
	}
	return out, nil
}

// columnIndex returns the column named name, -1 if none is.
func columnIndex(name string) int {
	k := columnKey(name)
	for i, n := range columnNames {
		if columnKey(n) == k {
			return i
		}
	}
	return -1
}

// selectColumns returns the indices of the columns names (ParseColumns'
// names) name, in that order; every column when names is empty.
func selectColumns(names []string) []int {
	var cols []int
	for _, n := range names {
		if i := columnIndex(n); i >= 0 {
			cols = append(cols, i)
		}
	}
	if len(cols) == 0 {
		for i := range numColumns {
			cols = append(cols, i)
		}
	}
	return cols
}

// fitStep is one step of fitting a StreamTable to a width: the column
// shortened to width, or dropped when width is 0, or with timeOfDay the
// absolute time shown without its date.
type fitStep struct {
	col       int
	width     int
	timeOfDay bool
}

// fitSteps are the steps, in order, that fit a StreamTable into a
// terminal's width, taken until it fits (docs/views.md, "The summary table"):
// the long free-text cells are shortened first, then the columns that
// say the least about an exchange dropped, then what remains shortened
// again. Columns chosen by name (Columns) are shortened, never dropped.
var fitSteps = []fitStep{
	{col: colNotes, width: 24},
	{col: colTopics, width: 20},
	{col: colErrors, width: 16},
	{col: colAPI, width: 18},
	{col: colClientID},
	{col: colStream},
	{col: colCorr},
	{col: colBroker},
	{col: colRecords},
	{col: colClient},
	{col: colNotes, width: 16},
	{col: colTopics, width: 16},
	{col: colNotes},
	{col: colTime, timeOfDay: true},
	{col: colAPI, width: 14},
	{col: colErrors, width: 12},
	{col: colTopics, width: 12},
	{col: colErrors},
	{col: colTopics},
}

// tableLayout is what a StreamTable shows: its columns (indices of the
// row's cells) and their widths, in terminal cells.
type tableLayout struct {
	cols      []int
	widths    []int
	timeOfDay bool // absolute times without their date
}

// tableWidth is the width of a table of columns of these widths: a space
// either side of each cell and a border between and around them.
func tableWidth(widths []int) int {
	n := 1
	for _, w := range widths {
		n += w + 3
	}
	return n
}

// fitLayout returns the layout of the columns cols at the widths widths
// (by column index) taken through fitSteps until the table is at most
// width cells wide; with chosen, steps that drop a column are skipped.
// When even the last step leaves it wider, the table is that wide:
// what is left (time, api and latency) is too little to cut.
func fitLayout(cols []int, widths [numColumns]int, width int, chosen bool) tableLayout {
	l := tableLayout{cols: cols}
	ws := func() []int {
		out := make([]int, len(l.cols))
		for i, c := range l.cols {
			out[i] = widths[c]
		}
		return out
	}
	for _, st := range fitSteps {
		if width <= 0 || tableWidth(ws()) <= width {
			break
		}
		i := -1
		for j, c := range l.cols {
			if c == st.col {
				i = j
			}
		}
		switch {
		case i < 0:
		case st.timeOfDay:
			if widths[colTime] == len(layoutDate) || widths[colTime] == len(layoutYear) {
				l.timeOfDay = true
				widths[colTime] = len(layoutTime)
			}
		case st.width == 0:
			if !chosen && len(l.cols) > 1 {
				l.cols = append(l.cols[:i:i], l.cols[i+1:]...)
			}
		case st.width < widths[st.col]:
			widths[st.col] = st.width
		}
	}
	l.widths = ws()
	return l
}
