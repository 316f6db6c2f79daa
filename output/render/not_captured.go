package render

import (
	"strconv"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// A count the capture held only in part is shown the same way in every
// view (docs/lossy.md, "What unknown looks like"): the count of what was
// captured beside a "not captured" mark, never a bare number that reads
// as exact. In tables: "?" when nothing of it was captured (the count so
// far is 0), "≥ N" when N were captured and more were not, with a
// footnote. In JSON: null when nothing was captured, else N, and beside
// it a companion "<key>_not_captured": true (left out when false).

// countCell formats a count for a table: n, "≥ n", or "?".
func countCell(n int64, notCaptured bool) string {
	switch {
	case !notCaptured:
		return strconv.FormatInt(n, 10)
	case n == 0:
		return "?"
	}
	return "≥ " + strconv.FormatInt(n, 10)
}

// countJSON is a count's JSON value: nil (null) when the capture held
// none of it, else n (a lower bound when notCaptured).
func countJSON(n int64, notCaptured bool) *int64 {
	if notCaptured && n == 0 {
		return nil
	}
	return &n
}

// writeCount writes a count as countJSON gives it.
func writeCount(w *codec.JSONWriter, n int64, notCaptured bool) {
	if v := countJSON(n, notCaptured); v != nil {
		w.Int(*v)
	} else {
		w.Null()
	}
}

// notCapturedFootnote follows a table with a cell countCell marked.
const notCapturedFootnote = "?: not captured (beyond the snap length, in a hole, or a response not captured); ≥ N: N captured, more not captured"

// errorsCell is the summary table's errors cell: the error codes
// captured, led by "?" when the response's error codes were not all
// captured (truncation keeps the mark).
func errorsCell(dec *dissect.Decoded) string {
	s := FormatErrors(dec.Errors)
	switch {
	case !dec.ErrorsNotCaptured:
		return s
	case s == "":
		return "?"
	}
	return "?, " + s
}
