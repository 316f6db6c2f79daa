package stats

import (
	"cmp"
	"slices"

	"github.com/kdissect/kdissect/dissect"
)

// NoteCount is how many exchanges carry notes of one kind
// (dissect.NoteKind), as tshark's -z expert counts expert infos.
type NoteCount struct {
	Kind      string // a dissect.NoteKind
	Exchanges int64  // exchanges with at least one note of the kind
	Notes     int64  // notes of the kind, an exchange may carry several
	Example   string // the first note of the kind seen
}

// noteCounts counts notes by kind. The kinds are a fixed set, so its
// memory does not grow with the exchanges.
type noteCounts map[dissect.NoteKind]*NoteCount

func (n *noteCounts) add(ex *dissect.Exchange) {
	if len(ex.Notes) == 0 {
		return
	}
	if *n == nil {
		*n = noteCounts{}
	}
	var seen [8]dissect.NoteKind // kinds of this exchange so far; few carry more
	kinds := seen[:0]
	for _, note := range ex.Notes {
		k := note.Kind
		c := (*n)[k]
		if c == nil {
			c = &NoteCount{Kind: string(k), Example: note.Text}
			(*n)[k] = c
		}
		c.Notes++
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
			c.Exchanges++
		}
	}
}

func (n noteCounts) report() []NoteCount {
	out := make([]NoteCount, 0, len(n))
	for _, c := range n {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b NoteCount) int {
		return cmp.Or(cmp.Compare(b.Exchanges, a.Exchanges), cmp.Compare(a.Kind, b.Kind))
	})
	return out
}
