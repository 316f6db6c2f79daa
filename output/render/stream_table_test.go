package render

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestStreamTable checks that a StreamTable prints each row when it is
// written (header first, border at Flush), at its fixed widths, with the
// cells of a Table's rows, long ones cut with "…".
func TestStreamTable(t *testing.T) {
	exs := readExchanges(t, testCapture{"../../testdata/pcaps/franz_groups.pcap", 9092})
	var buf bytes.Buffer
	st := NewStreamTable(&buf)
	st.Now = exs[0].Request.Time // the year is not shown
	var width int
	for i, ex := range exs {
		if err := st.Write(ex); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		if want := 4 + i; len(lines) != want { // top, header, rule, rows
			t.Fatalf("after %d rows: %d lines, want %d:\n%s", i+1, len(lines), want, buf.String())
		}
		last := lines[len(lines)-1]
		if width == 0 {
			width = len([]rune(last))
		}
		if n := len([]rune(last)); n != width {
			t.Errorf("row %d is %d cells wide, the others %d:\n%s", i, n, width, last)
		}
		row := SummaryRow(ex)
		for c, cell := range row {
			if cell == "" {
				continue
			}
			if len([]rune(cell)) > streamWidths[c] {
				cell = string([]rune(cell)[:streamWidths[c]-2]) // shown up to the "…"
			}
			if !strings.Contains(last, cell) {
				t.Errorf("row %d lacks column %s's %q:\n%s", i, summaryHeader[c], cell, last)
			}
		}
	}
	if err := st.Flush(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "┌") || !strings.HasSuffix(buf.String(), "┘\n") {
		t.Errorf("no borders:\n%s", buf.String())
	}
}

// errAfter fails every write after n bytes.
type errAfter struct{ n int }

var errFull = errors.New("no space left on device")

func (w *errAfter) Write(b []byte) (int, error) {
	if w.n < len(b) {
		return 0, errFull
	}
	w.n -= len(b)
	return len(b), nil
}

// TestTableWriteErrors checks that both tables return the first write
// error, which tablewriter itself drops.
func TestTableWriteErrors(t *testing.T) {
	exs := readExchanges(t, testCapture{"../../testdata/pcaps/kcat_produce_lz4.pcap", 9092})
	st := NewStreamTable(&errAfter{n: 2000})
	var err error
	for _, ex := range exs {
		if err = st.Write(ex); err != nil {
			break
		}
	}
	if !errors.Is(err, errFull) {
		t.Errorf("StreamTable.Write: %v, want %v", err, errFull)
	}
	tb := NewTable(&errAfter{n: 2000})
	for _, ex := range exs {
		if err := tb.Write(ex); err != nil {
			t.Fatal(err)
		}
	}
	if err := tb.Flush(); !errors.Is(err, errFull) {
		t.Errorf("Table.Flush: %v, want %v", err, errFull)
	}
}
