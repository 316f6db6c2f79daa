package render

import (
	"time"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/output"
)

// TapOf returns a view of this package as an output.Tap. JSON Lines, the
// summary table (Table) and the field columns render each exchange on
// many goroutines at once (output.Renderer); the tables take the
// capture's origin (output.OriginSetter). Sync flushes what the view
// buffers, except a StreamTable's, whose rows are written as they come
// (its Flush would end the table): its Sync says its write error. Any
// other output.Writer is output.WriterTap's.
func TapOf(w output.Writer) output.Tap {
	switch w := w.(type) {
	case *JSONLines:
		return JSONLinesTap{w}
	case *Table:
		return tableTap{rowTap{w, w.Row, w.AddRow}, w}
	case *FieldColumns:
		return rowTap{w, w.Row, w.AddRow}
	case *StreamTable:
		return streamTableTap{w}
	}
	return output.WriterTap(w)
}

// JSONLinesTap is JSON Lines as an output.Renderer: each line rendered
// on a worker (a *Line), written in capture order.
type JSONLinesTap struct{ W *JSONLines }

// Add renders and writes ex's line.
func (t JSONLinesTap) Add(ex *dissect.Exchange) error { return t.W.Write(ex) }

// Render renders ex's line: a *Line of size bytes.
func (t JSONLinesTap) Render(ex *dissect.Exchange) (any, int64) {
	l := t.W.RenderLine(ex)
	return l, int64(l.Len())
}

// AddRendered writes the *Line Render made, and recycles its parts.
func (t JSONLinesTap) AddRendered(_ *dissect.Exchange, l any) error {
	return t.W.WriteLine(l.(*Line))
}

// Sync flushes the lines written.
func (t JSONLinesTap) Sync() error { return t.W.Flush() }

// Close flushes the lines written.
func (t JSONLinesTap) Close() error { return t.W.Flush() }

// rowTap is a view of rows of cells (Table, FieldColumns): a row is
// rendered on a worker, added in capture order.
type rowTap struct {
	w   output.Writer
	row func(*dissect.Exchange) []string
	add func([]string) error
}

func (t rowTap) Add(ex *dissect.Exchange) error { return t.w.Write(ex) }

func (t rowTap) Render(ex *dissect.Exchange) (any, int64) {
	row := t.row(ex)
	var n int64
	for _, c := range row {
		n += int64(len(c))
	}
	return row, n
}

func (t rowTap) AddRendered(_ *dissect.Exchange, row any) error { return t.add(row.([]string)) }
func (t rowTap) Sync() error                                    { return t.w.Flush() }
func (t rowTap) Close() error                                   { return t.w.Flush() }

// tableTap is the summary table: rows, and relative times from the origin.
type tableTap struct {
	rowTap
	t *Table
}

func (t tableTap) SetOrigin(at time.Time) { t.t.SetOrigin(at) }

// streamTableTap is the summary table written row by row.
type streamTableTap struct{ t *StreamTable }

func (t streamTableTap) Add(ex *dissect.Exchange) error { return t.t.Write(ex) }
func (t streamTableTap) SetOrigin(at time.Time)         { t.t.SetOrigin(at) }
func (t streamTableTap) Sync() error                    { return t.t.Err() }
func (t streamTableTap) Close() error                   { return t.t.Flush() }
