package render

import (
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/kdissect/kdissect/dissect"
)

// streamWidths are the column widths of a StreamTable, in terminal cells:
// wide enough for an IPv4 client and broker, every API name with its
// version and the usual topic lists; longer cells end in "…" (the JSON
// and detail formats have everything).
var streamWidths = []int{21, 6, 21, 21, 30, 10, 20, 30, 7, 26, 9, 40}

// StreamTable writes the summary table a row at a time, as exchanges
// come, for live capture: its columns have fixed widths (a Table sizes
// them to the widest cell, so it can print only at the end). The header
// comes before the first row, the bottom border at Flush.
type StreamTable struct {
	// Colors paints the errors and notes cells; the zero value does not.
	Colors Colors

	w     *StickyWriter
	tbl   *tablewriter.Table
	table Table // makes the rows
}

// NewStreamTable returns a summary table writing each row to w as it is
// added.
func NewStreamTable(w io.Writer) *StreamTable {
	return &StreamTable{w: NewStickyWriter(w)}
}

// Write writes ex as a row, at once. It returns the first error writing
// to w returned, then that error again.
func (s *StreamTable) Write(ex *dissect.Exchange) error {
	if s.tbl == nil {
		widths := tw.NewMapper[int, int]()
		for i, w := range streamWidths {
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
		s.tbl.Header(summaryHeader)
	}
	s.table.Colors = s.Colors
	if err := s.tbl.Append(s.table.Row(ex)); err != nil {
		return err
	}
	return s.w.err
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
