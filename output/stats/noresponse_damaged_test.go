package stats

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/internal/capedit"
)

// TestNoResponseDamaged: packets of real kcat traffic dropped (issue 26):
// the Produce requests without a response are the clean capture's plus
// exactly the one whose response the drop took, and every request without
// a response carries a "response not captured" kind of note, so the "no
// response" column and the notes tell one story.
func TestNoResponseDamaged(t *testing.T) {
	const src = "../../testdata/pcaps/kcat_produce_none.pcap"
	clean := collect(t, src)
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		drop []int // 0-based packet indexes, of connection 0
	}{
		{"the response to Produce 3 and Produce request 4", []int{11, 13}},
		{"the response to Produce 5, before the broker's FIN", []int{16}},
	} {
		path := filepath.Join(t.TempDir(), "damaged.pcap")
		var buf bytes.Buffer
		if _, err := capedit.Rewrite(&buf, bytes.NewReader(orig), capedit.Options{Drop: capedit.DropIndexes(c.drop...)}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		got := collect(t, path)
		if n, m := noResponse(got, "Produce"), noResponse(clean, "Produce"); n != m+1 {
			t.Errorf("%s lost: %d Produce requests without a response, want %d", c.name, n, m+1)
		}
		for _, r := range []*Report{clean, got} {
			if n, m := noResponse(r, ""), notedExchanges(r, dissect.NoteNoResponse); n != m {
				t.Errorf("%s lost: %d requests without a response, %d noted so", c.name, n, m)
			}
		}
	}
}

// noResponse sums the "no response" column of an API's row, or of every
// row for "".
func noResponse(r *Report, api string) int64 {
	var n int64
	for _, a := range r.APIs {
		if api == "" || a.Name == api {
			n += a.NoResponse
		}
	}
	return n
}

// notedExchanges is how many exchanges carry notes of a kind.
func notedExchanges(r *Report, kind dissect.NoteKind) int64 {
	for _, n := range r.Notes {
		if n.Kind == string(kind) {
			return n.Exchanges
		}
	}
	return 0
}
