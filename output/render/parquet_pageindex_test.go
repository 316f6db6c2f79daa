package render

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/kdissect/kdissect/dissect"
)

// checkPageIndex opens a Parquet file as a reader that prunes pages by the
// page index would, and returns the columns (dotted paths) that have a
// column index in every row group and those that have none in any. For
// every column index, each page's [min, max] must hold every value of the
// page: otherwise such a reader skips a page that a predicate matches.
func checkPageIndex(t *testing.T, name string, b []byte) (indexed, unindexed []string) {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	has := map[string][]bool{}
	for i, rg := range f.RowGroups() {
		for j, cc := range rg.ColumnChunks() {
			path := strings.Join(f.Metadata().RowGroups[i].Columns[j].MetaData.PathInSchema, ".")
			idx, err := cc.ColumnIndex()
			if errors.Is(err, parquet.ErrMissingColumnIndex) {
				has[path] = append(has[path], false)
				continue
			}
			if err != nil {
				t.Fatalf("%s: row group %d, %s: %v", name, i, path, err)
			}
			has[path] = append(has[path], true)
			checkPages(t, name, i, path, cc, idx)
		}
	}
	for path, in := range has {
		switch {
		case !slices.Contains(in, false):
			indexed = append(indexed, path)
		case !slices.Contains(in, true):
			unindexed = append(unindexed, path)
		default:
			t.Errorf("%s: %s has a column index in some row groups only", name, path)
		}
	}
	return indexed, unindexed
}

// checkPages holds the values of every page of cc against their bounds in
// the column index.
func checkPages(t *testing.T, name string, rg int, path string, cc parquet.ColumnChunk, idx parquet.ColumnIndex) {
	t.Helper()
	typ := cc.Type()
	pages := cc.Pages()
	defer pages.Close()
	k := 0
	for ; ; k++ {
		pg, err := pages.ReadPage()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: row group %d, %s, page %d: %v", name, rg, path, k, err)
		}
		if k >= idx.NumPages() {
			t.Fatalf("%s: row group %d, %s: page %d, %d in the column index", name, rg, path, k, idx.NumPages())
		}
		values := make([]parquet.Value, pg.NumValues())
		n, err := pg.Values().ReadValues(values)
		if err != nil && err != io.EOF {
			t.Fatalf("%s: row group %d, %s, page %d: %v", name, rg, path, k, err)
		}
		for _, v := range values[:n] {
			if v.IsNull() {
				continue
			}
			if idx.NullPage(k) {
				t.Errorf("%s: row group %d, %s, page %d: a null page in the column index holds a value", name, rg, path, k)
				break
			}
			if typ.Compare(idx.MinValue(k), v) > 0 || typ.Compare(v, idx.MaxValue(k)) > 0 {
				t.Errorf("%s: row group %d, %s, page %d: value %.40q outside the column index's [%.40q, %.40q]: a reader pruning by it skips the page",
					name, rg, path, k, v.String(), idx.MinValue(k).String(), idx.MaxValue(k).String())
				break
			}
		}
		parquet.Release(pg)
	}
	if k != idx.NumPages() {
		t.Errorf("%s: row group %d, %s: %d pages, %d in the column index", name, rg, path, k, idx.NumPages())
	}
}

// TestParquetPayloadsWithoutColumnIndex (issue 26): the payload columns,
// written without bounds, have no column index (parquet-go wrote one
// saying min "" and max "" for pages of values, on which a reader that
// prunes by the page index, as Spark, Trino, DataFusion or Arrow do,
// skipped pages a predicate matched and answered nothing); the other
// columns keep theirs, and every column index holds its pages' values.
// The exchanges are written in several row groups, so that the column
// and offset indexes after a removed one move in each.
func TestParquetPayloadsWithoutColumnIndex(t *testing.T) {
	var exs []*dissect.Exchange
	for _, name := range []string{"franz_transactions.pcap", "kcat_produce_zstd.pcap"} {
		exs = append(exs, readExchanges(t, testCapture{"../../testdata/pcaps/" + name, 9092})...)
	}
	var xs, rs bytes.Buffer
	p, r := NewParquet(&xs, ParquetOptions{RowGroupBytes: 4 << 10}), NewParquetRecords(&rs)
	for _, ex := range exs {
		if err := p.Write(ex); err != nil {
			t.Fatal(err)
		}
		if err := r.Write(ex); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if r.Rows() == 0 {
		t.Fatal("no records in the captures")
	}
	for _, f := range []struct {
		name     string
		b        []byte
		payloads []string
		kept     []string
		rows     int64
	}{
		{"exchanges", xs.Bytes(), []string{"request", "response", "packet_comments.list.element"}, []string{"ts", "client", "api", "correlation_id", "topics.list.element.topic", "file"}, p.Rows()},
		{"records", rs.Bytes(), []string{"key", "value", "headers.list.element.key", "headers.list.element.value"}, []string{"ts", "api", "topic", "offset", "control"}, r.Rows()},
	} {
		indexed, unindexed := checkPageIndex(t, f.name, f.b)
		slices.Sort(unindexed)
		if want := slices.Sorted(slices.Values(f.payloads)); !slices.Equal(unindexed, want) {
			t.Errorf("%s file: columns without a column index %v, want the payload columns %v", f.name, unindexed, want)
		}
		for _, col := range f.kept {
			if !slices.Contains(indexed, col) {
				t.Errorf("%s file: column %s has no column index", f.name, col)
			}
		}
		pf, err := parquet.OpenFile(bytes.NewReader(f.b), int64(len(f.b)))
		if err != nil {
			t.Fatal(err)
		}
		if pf.NumRows() != f.rows {
			t.Errorf("%s file: %d rows, %d written", f.name, pf.NumRows(), f.rows)
		}
		if f.name == "exchanges" && len(pf.RowGroups()) < 2 {
			t.Errorf("exchanges file: %d row groups, want several", len(pf.RowGroups()))
		}
	}
	rows := readParquetRows(t, xs.Bytes())
	if len(rows) != len(exs) {
		t.Fatalf("%d rows read, %d exchanges", len(rows), len(exs))
	}
	for i, ex := range exs {
		if want, _ := (&ParquetRows{}).Row(ex); !slices.Equal(bodies(rows[i]), bodies(want)) {
			t.Errorf("row %d: bodies differ from the exchange's", i)
		}
	}
}

func bodies(r ExchangeRow) []string {
	var out []string
	for _, s := range []*string{r.Request, r.Response} {
		if s != nil {
			out = append(out, *s)
		}
	}
	return out
}

// blobRow is a row of the files TestPageIndexFilter writes.
type blobRow struct {
	ID   int64   `parquet:"id"`
	Blob *string `parquet:"blob,optional"`
	Name string  `parquet:"name"`
}

// TestPageIndexFilter writes the same rows (none, or three row groups)
// with parquet-go alone and through pageIndexFilter: without blobs the
// files are equal byte for byte (the footer re-encoded as it was), with
// one every byte before the page index is the same, the blob's column
// index is gone and the others are where the footer says.
func TestPageIndexFilter(t *testing.T) {
	blob := func(s string) *string { return &s }
	groups := [][]blobRow{
		{{1, blob("b"), "one"}, {2, nil, "two"}},
		{{3, blob(strings.Repeat("x", 1000)), "three"}},
		{{4, blob("a"), "four"}, {5, blob("z"), "five"}},
	}
	write := func(t *testing.T, groups [][]blobRow, blobs [][]string) []byte {
		var b bytes.Buffer
		var out io.Writer = &b
		var filter *pageIndexFilter
		if blobs != nil {
			filter = newPageIndexFilter(&b, blobs)
			out = filter
		}
		opts := []parquet.WriterOption{parquet.SkipPageBounds("blob"), parquet.SkipPageStatistics("blob")}
		w := parquet.NewGenericWriter[blobRow](out, opts...)
		for _, rows := range groups {
			if _, err := w.Write(rows); err != nil {
				t.Fatal(err)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
		}
		if filter != nil {
			if err := closeParquet(w, filter); err != nil {
				t.Fatal(err)
			}
		} else if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	for _, tc := range []struct {
		name   string
		groups [][]blobRow
	}{{"no rows", nil}, {"three row groups", groups}} {
		t.Run(tc.name, func(t *testing.T) {
			plain := write(t, tc.groups, nil)
			if same := write(t, tc.groups, [][]string{}); !bytes.Equal(same, plain) {
				t.Fatalf("without blobs: %d bytes, parquet-go alone %d, not the same", len(same), len(plain))
			}
			cut := write(t, tc.groups, [][]string{{"blob"}})
			pf, err := parquet.OpenFile(bytes.NewReader(plain), int64(len(plain)))
			if err != nil {
				t.Fatal(err)
			}
			if len(tc.groups) > 0 {
				start := pf.Metadata().RowGroups[0].Columns[0].ColumnIndexOffset
				if start == 0 || !bytes.Equal(cut[:start], plain[:start]) {
					t.Errorf("the bytes before the page index (%d) differ", start)
				}
			}
			indexed, unindexed := checkPageIndex(t, "filtered", cut)
			slices.Sort(indexed)
			wantIndexed, wantUnindexed := []string{"id", "name"}, []string{"blob"}
			if len(tc.groups) == 0 {
				wantIndexed, wantUnindexed = nil, nil
			}
			if !slices.Equal(indexed, wantIndexed) || !slices.Equal(unindexed, wantUnindexed) {
				t.Errorf("columns with a column index %v, without %v", indexed, unindexed)
			}
			got, err := parquet.Read[blobRow](bytes.NewReader(cut), int64(len(cut)))
			if err != nil {
				t.Fatal(err)
			}
			if want := slices.Concat(tc.groups...); len(got) != len(want) || len(want) > 0 && !slices.EqualFunc(got, want, func(a, b blobRow) bool {
				return a.ID == b.ID && a.Name == b.Name && (a.Blob == nil) == (b.Blob == nil) && (a.Blob == nil || *a.Blob == *b.Blob)
			}) {
				t.Errorf("rows read back %+v, want %+v", got, want)
			}
		})
	}
}
