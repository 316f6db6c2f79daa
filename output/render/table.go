package render

import (
	"fmt"
	"github.com/kdissect/kdissect/internal/termsafe"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// summaryHeader names the summary table's columns; the time column's
// header depends on its TimeFormat.
var summaryHeader = []string{"time (UTC)", "stream", "client", "broker", "api", "corr", "client id", "topics", "records", "errors", "latency", "notes"}

// Table collects exchanges as rows of the summary table and renders them.
// Its memory does not grow with the rows: it keeps the column widths as
// rows come, the first rows in memory and the others in a temporary file,
// and Flush streams them through tablewriter at those widths, which
// renders them exactly as a table of all the rows at once would be.
//
// With TimeAbsolute, the time column shows the year when the rows span
// more than one year (the first and the last row's years differ): a
// whole table knows, and its output does not depend on the day it is
// made.
type Table struct {
	// Colors paints the errors and notes cells; the zero value does not.
	Colors Colors
	// Columns are the columns shown, in this order, as ParseColumns
	// returns them; nil shows every column in the default order.
	Columns []string
	// Time is the time column's format.
	Time TimeFormat

	w      io.Writer
	cols   []int // the columns shown; nil until the first row
	timeAt int   // the time column's index in cols, -1 when not shown
	times  timeCells
	years  [2]int     // the first and the latest year of an absolute time cell; 0: none yet
	widths []int      // widest cell of each column so far, in terminal cells
	rows   [][]string // the first memRows rows
	spill  *rowFile   // the rows after them; nil until needed
	keep   int        // rows kept in memory; 0 means memRows (tests spill sooner)
}

// memRows is how many rows a Table keeps in memory; tests and captures of
// a few thousand exchanges never touch the disk.
const memRows = 4096

// NewTable returns a summary table writing to w on Flush.
func NewTable(w io.Writer) *Table { return &Table{w: w} }

// SetOrigin makes relative times (TimeRelative) count from t, the first
// exchange of the capture whether shown or not, when it is called before
// the first row; the first row's time is the origin otherwise. Call it
// in the order of AddRow, not concurrently with it.
func (t *Table) SetOrigin(ts time.Time) { t.times.setOrigin(ts) }

// Write adds ex as a row.
func (t *Table) Write(ex *dissect.Exchange) error {
	return t.AddRow(t.Row(ex))
}

// Row returns the cells of the row of ex, for AddRow, which formats the
// time cell (relative and delta times depend on the rows before). It may
// run on many goroutines at once, so that rows are made in parallel;
// AddRow then adds them in order.
func (t *Table) Row(ex *dissect.Exchange) []string {
	row := summaryCells(ex)
	for i := range row {
		row[i] = sanitize(row[i])
	}
	row[colTime] = rawTime(ex.Time())
	row[colErrors] = t.Colors.Error(row[colErrors])
	row[colNotes] = t.Colors.Note(row[colNotes])
	return row
}

// AddRow adds a row Row returned.
func (t *Table) AddRow(row []string) error {
	if t.cols == nil {
		t.cols = selectColumns(t.Columns)
		t.timeAt = slices.Index(t.cols, colTime)
		t.times.format, t.times.layout = t.Time, layoutYear
	}
	ts := parseRawTime(row[colTime])
	row[colTime] = t.times.cell(ts)
	if t.timeAt >= 0 && t.Time == TimeAbsolute && !ts.IsZero() {
		y := ts.UTC().Year()
		if t.years[0] == 0 {
			t.years[0] = y
		}
		t.years[1] = y
	}
	cells := make([]string, len(t.cols))
	for i, c := range t.cols {
		cells[i] = row[c]
	}
	return t.addCells(cells)
}

// header returns the header of the columns shown.
func (t *Table) header() []string {
	return columnHeader(t.cols, t.Time)
}

// columnHeader returns the header of the columns cols.
func columnHeader(cols []int, f TimeFormat) []string {
	h := make([]string, len(cols))
	for i, c := range cols {
		h[i] = summaryHeader[c]
		if c == colTime {
			h[i] = f.header()
		}
	}
	return h
}

// addCells adds the cells of a row as shown.
func (t *Table) addCells(row []string) error {
	if t.cols == nil { // tests add cells of every column
		t.cols = selectColumns(nil)
		t.timeAt = -1
	}
	if t.widths == nil {
		h := t.header()
		t.widths = make([]int, len(h))
		for i, c := range h {
			t.widths[i] = cellWidth(c)
		}
	}
	for i, c := range row[:min(len(row), len(t.widths))] {
		t.widths[i] = max(t.widths[i], cellWidth(c))
	}
	keep := t.keep
	if keep == 0 {
		keep = memRows
	}
	if len(t.rows) < keep {
		t.rows = append(t.rows, row)
		return nil
	}
	if t.spill == nil {
		f, err := newRowFile()
		if err != nil {
			return err
		}
		t.spill = f
	}
	return t.spill.write(row)
}

// cellWidth is the width tablewriter gives a cell: trimmed, in terminal
// cells, escape sequences excluded. Printable ASCII, most cells, is one
// cell a byte; twwidth decides the rest.
func cellWidth(s string) int {
	s = strings.TrimSpace(s)
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return twwidth.Width(s)
		}
	}
	return len(s)
}

// Flush renders the table; it writes nothing when there is no row.
func (t *Table) Flush() error {
	if len(t.rows) == 0 {
		return nil
	}
	spill := t.spill
	defer func() {
		t.rows, t.widths, t.spill = t.rows[:0], nil, nil
		if spill != nil {
			spill.close()
		}
	}()
	// Absolute times were made with their year: it goes when every row
	// is of the same year.
	sameYear := t.timeAt >= 0 && t.years[0] != 0 && t.years[0] == t.years[1]
	yearLen := len(layoutYear) - len(layoutDate)
	if sameYear {
		t.widths[t.timeAt] = max(cellWidth(t.header()[t.timeAt]), t.widths[t.timeAt]-yearLen)
	}
	widths := tw.NewMapper[int, int]()
	for i, w := range t.widths {
		widths.Set(i, w+2) // and a space of padding on each side
	}
	sw := NewStickyWriter(t.w) // tablewriter drops write errors
	tbl := tablewriter.NewTable(sw,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithStreaming(tw.StreamConfig{Enable: true}),
		tablewriter.WithColumnWidths(widths),
	)
	if err := tbl.Start(); err != nil {
		return err
	}
	tbl.Header(t.header())
	appendRow := func(row []string) error {
		if sameYear && len(row[t.timeAt]) == len(layoutYear) {
			row[t.timeAt] = row[t.timeAt][yearLen:]
		}
		return tbl.Append(row)
	}
	for _, row := range t.rows {
		if err := appendRow(row); err != nil {
			return err
		}
	}
	if spill != nil {
		if err := spill.each(func(row []string) error {
			if err := appendRow(row); err != nil {
				return err
			}
			return sw.err // stop at the first write error
		}); err != nil {
			return err
		}
	}
	if err := tbl.Close(); err != nil {
		return err
	}
	return sw.err
}

// SummaryRow returns the summary table cells of ex, its time absolute
// without the year.
func SummaryRow(ex *dissect.Exchange) []string {
	row := summaryCells(ex)
	row[colTime] = ex.Time().UTC().Format(layoutDate)
	return row
}

// summaryCells returns the summary table cells of ex but its time.
func summaryCells(ex *dissect.Exchange) []string {
	dec := ex.Decoded
	if dec == nil {
		dec = &dissect.Decoded{}
	}
	api := "?"
	switch {
	case dec.API != nil:
		api = fmt.Sprintf("%s v%d", dec.API.Name, ex.APIVersion)
	case ex.APIKey >= 0:
		api = fmt.Sprintf("key %d v%d", ex.APIKey, ex.APIVersion)
	}
	clientID := ""
	if ex.ClientID != nil {
		clientID = *ex.ClientID
	}
	latency := "-" // a side is missing: the notes say which
	if lat, ok := ex.Latency(); ok {
		latency = formatLatency(lat)
	}
	// The notes: their number and the first, or for an exchange whose
	// frames the capture lacks bytes of, what it lacks and why, which the
	// first note may be too long to show or not be.
	notes := ""
	first, width := "", 40
	if len(ex.Notes) > 0 {
		first = ex.Notes[0].Text
	}
	if h := holesCell(ex); h != "" {
		first, width = h, 56
	}
	switch {
	case first == "":
	case len(ex.Notes) <= 1:
		notes = truncate(first, width)
	default:
		notes = fmt.Sprintf("(%d) %s", len(ex.Notes), truncate(first, width-4))
	}
	return []string{
		"", // the time: its format depends on the table
		strconv.Itoa(ex.Stream),
		ex.Client.String(),
		ex.Broker.String(),
		api,
		strconv.Itoa(int(ex.CorrelationID)),
		truncate(clientID, 32),
		truncate(FormatTopics(dec.Topics), 48),
		countCell(int64(dec.Records), dec.RecordsNotCaptured),
		truncate(errorsCell(dec), 48),
		latency,
		notes,
	}
}

func formatLatency(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%.3fms", float64(d.Microseconds())/1000)
	default:
		return fmt.Sprintf("%.3fs", d.Seconds())
	}
}

// FormatTopics renders topic-partitions as "orders[0,2] payments[1]".
func FormatTopics(ts []codec.TopicPartitions) string {
	var b strings.Builder
	for i, t := range ts {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch {
		case t.Topic != "":
			b.WriteString(t.Topic)
		case !t.TopicID.IsZero():
			b.WriteString("id:" + t.TopicID.String())
		default:
			b.WriteString(`""`)
		}
		if len(t.Partitions) > 0 {
			b.WriteByte('[')
			for j, p := range t.Partitions {
				if j > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.Itoa(int(p)))
			}
			b.WriteByte(']')
		}
	}
	return b.String()
}

// FormatErrors renders error codes by name with counts: "NOT_LEADER_OR_FOLLOWER×2".
func FormatErrors(es []codec.ErrorRef) string {
	var names []string
	counts := map[int16]int{}
	for _, e := range es {
		if counts[e.Code] == 0 {
			names = append(names, codec.ErrorName(e.Code))
		}
		counts[e.Code]++
	}
	var b strings.Builder
	i := 0
	for _, e := range es {
		n := counts[e.Code]
		if n == 0 {
			continue
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(names[i])
		if n > 1 {
			fmt.Fprintf(&b, "×%d", n)
		}
		counts[e.Code] = 0
		i++
	}
	return b.String()
}

func truncate(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// sanitize makes s safe to print on a terminal (termsafe.Escape).
func sanitize(s string) string { return termsafe.Escape(s) }

func unsafeRune(r rune) bool { return termsafe.Unsafe(r) }

// holesCell says in a few words what the capture lacks of ex's frames:
// "295 of 353 bytes not captured (snap length)"; "" when it lacks nothing.
func holesCell(ex *dissect.Exchange) string {
	lost, size := 0, 0
	var hs []hole
	for _, f := range []*dissect.Frame{ex.Request, ex.Response} {
		if h := frameHoles(f); len(h) > 0 {
			lost += lostIn(h, 0, 4+int(f.Size))
			size += int(f.Size)
			hs = append(hs, h...)
		}
	}
	if len(hs) == 0 {
		return ""
	}
	why := map[string]bool{}
	for _, h := range hs {
		why[h.why] = true
	}
	cause := "several causes"
	if len(why) == 1 {
		cause = shortCause(hs[0].why)
	}
	return fmt.Sprintf("%d of %d bytes not captured (%s)", lost, size, cause)
}

// shortCause is a hole's cause in a table cell.
func shortCause(why string) string {
	switch why {
	case dissect.HoleSnapLength.String():
		return "snap length"
	case dissect.HoleNotCaptured.String():
		return "packets lost"
	case dissect.HoleCaptureEnded.String():
		return "capture ended"
	case dissect.HoleConnectionEnded.String():
		return "connection ended"
	}
	return why
}
