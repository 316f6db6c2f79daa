package render

import (
	"io"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/kdissect/kdissect/dissect"
)

// streamWidths are the column widths of a StreamTable, in terminal cells:
// wide enough for an IPv4 client and broker, every API name with its
// version and the usual topic lists; longer cells end in "…" (the JSON
// and detail formats have everything). The time column's depends on its
// format (TimeFormat.streamWidth).
var streamWidths = [numColumns]int{21, 6, 21, 21, 30, 10, 20, 30, 7, 26, 9, 40}

// StreamTable writes the summary table a row at a time, as exchanges
// come, for live capture and terminals: its columns have fixed widths (a
// Table sizes them to the widest cell, so it can print only at the end).
// The header comes before the first row, the bottom border at Flush.
//
// With TimeAbsolute, the year is shown when the first row is not of the
// current year (as ls shows the year of a file that is not recent): a
// stream cannot know its last row.
type StreamTable struct {
	// Colors paints the errors and notes cells; the zero value does not.
	Colors Colors
	// Columns are the columns shown, in this order, as ParseColumns
	// returns them; nil shows every column in the default order.
	Columns []string
	// Time is the time column's format.
	Time TimeFormat
	// Width, when positive, fits the table into that many terminal cells
	// by the steps of fitSteps (docs/views.md, "The summary table"); 0 shows
	// every column at its full width.
	Width int
	// Now is the current time, for the year of absolute times; zero:
	// the clock's.
	Now time.Time

	w      *StickyWriter
	tbl    *tablewriter.Table
	layout tableLayout
	times  timeCells
	table  Table // makes the rows
}

// NewStreamTable returns a summary table writing each row to w as it is
// added.
func NewStreamTable(w io.Writer) *StreamTable {
	return &StreamTable{w: NewStickyWriter(w)}
}

// SetOrigin is Table.SetOrigin.
func (s *StreamTable) SetOrigin(t time.Time) { s.times.setOrigin(t) }

// Write writes ex as a row, at once. It returns the first error writing
// to w returned, then that error again.
func (s *StreamTable) Write(ex *dissect.Exchange) error {
	ts := ex.Time()
	if s.tbl == nil {
		if err := s.start(ts); err != nil {
			return err
		}
	}
	s.table.Colors = s.Colors
	row := s.table.Row(ex)
	row[colTime] = s.times.cell(ts)
	cells := make([]string, len(s.layout.cols))
	for i, c := range s.layout.cols {
		cells[i] = row[c]
	}
	if err := s.tbl.Append(cells); err != nil {
		return err
	}
	return s.w.err
}

// start lays the table out and writes its header, before the first row,
// of time first.
func (s *StreamTable) start(first time.Time) error {
	now := s.Now
	if now.IsZero() {
		now = time.Now()
	}
	year := s.Time == TimeAbsoluteYear || s.Time == TimeAbsolute && !first.IsZero() && first.UTC().Year() != now.UTC().Year()
	ws := streamWidths
	ws[colTime] = s.Time.streamWidth(year)
	s.layout = fitLayout(selectColumns(s.Columns), ws, s.Width, len(s.Columns) > 0)
	s.times.format, s.times.layout = s.Time, layoutDate
	switch {
	case s.layout.timeOfDay:
		s.times.layout = layoutTime
	case year:
		s.times.layout = layoutYear
	}
	widths := tw.NewMapper[int, int]()
	for i, w := range s.layout.widths {
		widths.Set(i, w+2) // and a space of padding on each side
	}
	s.tbl = tablewriter.NewTable(s.w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoWrap(tw.WrapTruncate),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithStreaming(tw.StreamConfig{Enable: true}),
		tablewriter.WithColumnWidths(widths),
	)
	if err := s.tbl.Start(); err != nil {
		return err
	}
	s.tbl.Header(columnHeader(s.layout.cols, s.Time))
	return nil
}

// Err returns the first error writing to w, or nil: rows are written at
// once, nothing waits for a flush but the bottom border.
func (s *StreamTable) Err() error { return s.w.err }

// Flush writes the bottom border when a row was written.
func (s *StreamTable) Flush() error {
	if s.tbl == nil {
		return s.w.err
	}
	err := s.tbl.Close()
	s.tbl = nil
	if err != nil {
		return err
	}
	return s.w.err
}

// StickyWriter keeps the first error of its writer and writes nothing
// after it, for writers such as tablewriter that drop write errors: check
// Err after writing.
type StickyWriter struct {
	w   io.Writer
	err error
}

// NewStickyWriter returns a StickyWriter writing to w.
func NewStickyWriter(w io.Writer) *StickyWriter { return &StickyWriter{w: w} }

func (s *StickyWriter) Write(b []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(b)
	s.err = err
	return n, err
}

// Err returns the first write error, or nil.
func (s *StickyWriter) Err() error { return s.err }
