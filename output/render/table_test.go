package render

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// Table renders rows exactly as tablewriter renders all of them at once,
// also when most of them went through the temporary file: wide and
// combining characters, escape sequences (colours), spaces to trim, empty
// cells.
func TestTableMatchesTablewriter(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	pieces := []string{"a", "bc", " ", "日本", "é", "e\u0301", "\x1b[31mred\x1b[0m", "…", "x y", "", "  lead", "trail  ", "→", "🙂", "127.0.0.1:9092"}
	for iter := range 200 {
		var rows [][]string
		for range 1 + rng.IntN(8) {
			row := make([]string, len(summaryHeader))
			for i := range row {
				var b strings.Builder
				for range rng.IntN(4) {
					b.WriteString(pieces[rng.IntN(len(pieces))])
				}
				row[i] = b.String()
			}
			rows = append(rows, row)
		}
		var want bytes.Buffer
		tbl := tablewriter.NewTable(&want,
			tablewriter.WithHeaderAutoFormat(tw.Off),
			tablewriter.WithRowAutoWrap(tw.WrapNone),
			tablewriter.WithHeaderAlignment(tw.AlignLeft),
		)
		tbl.Header(summaryHeader)
		if err := tbl.Bulk(rows); err != nil {
			t.Fatal(err)
		}
		if err := tbl.Render(); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		table := NewTable(&got)
		table.keep = iter % 4 // 0: all in memory
		for _, r := range rows {
			if err := table.addCells(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := table.Flush(); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("rows %q\nwant\n%s\ngot\n%s", rows, want.String(), got.String())
		}
	}
}

// A table without rows writes nothing.
func TestTableEmpty(t *testing.T) {
	var out bytes.Buffer
	if err := NewTable(&out).Flush(); err != nil || out.Len() > 0 {
		t.Errorf("%q, %v", out.String(), err)
	}
}
