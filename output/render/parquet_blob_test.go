package render

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// blobRows are records rows of every kind the payload columns hold: a
// long value alone, short ones together, nulls, headers.
func blobRows(long []byte) [][]RecordRow {
	short := func(i int) []byte { return fmt.Appendf(nil, "value %d", i) }
	return [][]RecordRow{
		{{Offset: 0, Key: []byte("k0"), Value: long, Headers: []HeaderRow{{Key: "h", Value: long[:100]}}}},
		{{Offset: 1, Value: short(1)}, {Offset: 2, Key: []byte("k2")}, {Offset: 3, Value: short(3), Headers: []HeaderRow{{Key: "a"}, {Key: "b", Value: []byte("v")}}}},
		{{Offset: 4}},
		{{Offset: 5, Key: long[:3<<20], Value: []byte{}}},
	}
}

// TestParquetBlobSchemaSameFile: the payload columns' own buffers
// (blobSchema) write the file parquet-go writes with its buffers, byte for
// byte, and it reads back. The schemas equal those of the row types, so
// that parquet-go writes rows by its generated functions, not value by
// value through reflection.
func TestParquetBlobSchemaSameFile(t *testing.T) {
	if !parquet.EqualNodes(blobSchema[RecordRow](recordBlobs), parquet.SchemaOf(new(RecordRow))) {
		t.Error("the records file's schema differs from RecordRow's")
	}
	if !parquet.EqualNodes(blobSchema[ExchangeRow](exchangeBlobs), parquet.SchemaOf(new(ExchangeRow))) {
		t.Error("the exchanges file's schema differs from ExchangeRow's")
	}
	for _, s := range []struct {
		schema *parquet.Schema
		blobs  [][]string
	}{{blobSchema[RecordRow](recordBlobs), recordBlobs}, {blobSchema[ExchangeRow](exchangeBlobs), exchangeBlobs}} {
		for _, path := range s.blobs {
			leaf, ok := s.schema.Lookup(path...)
			if _, blob := leaf.Node.Type().(blobType); !ok || !blob {
				t.Errorf("%s: column %v is not buffered by blobBuffer", s.schema.Name(), path)
			}
		}
	}
	long := bytes.Repeat([]byte("kdissect blob "), 300_000) // 4.2 MB: pages of one value
	write := func(opts ...parquet.WriterOption) []byte {
		z := newZstdPages()
		defer z.close()
		var out bytes.Buffer
		w := parquet.NewGenericWriter[RecordRow](&out, append(parquetWriterOptions(z, recordBlobs), opts...)...)
		for _, rows := range blobRows(long) {
			if _, err := w.Write(rows); err != nil {
				t.Fatal(err)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	theirs, ours := write(), write(blobSchema[RecordRow](recordBlobs))
	if !bytes.Equal(ours, theirs) {
		t.Fatalf("file of %d bytes, parquet-go's own buffers write %d bytes otherwise", len(ours), len(theirs))
	}
	got, err := parquet.Read[RecordRow](bytes.NewReader(ours), int64(len(ours)))
	if err != nil {
		t.Fatal(err)
	}
	var want []RecordRow
	for _, rows := range blobRows(long) {
		want = append(want, rows...)
	}
	if len(got) != len(want) {
		t.Fatalf("%d rows read back, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Offset != w.Offset || !bytes.Equal(g.Key, w.Key) || !bytes.Equal(g.Value, w.Value) || (g.Value == nil) != (w.Value == nil) || len(g.Headers) != len(w.Headers) {
			t.Errorf("row %d: offset %d, key of %d bytes, value of %d bytes (nil %v), %d headers; want %d, %d, %d (nil %v), %d",
				i, g.Offset, len(g.Key), len(g.Value), g.Value == nil, len(g.Headers), w.Offset, len(w.Key), len(w.Value), w.Value == nil, len(w.Headers))
		}
	}
}

// TestParquetLongValueCopies (issue 26): a row of one 15 MB value costs
// the records writer one copy of it in its column buffer and one encoded
// (each new: the pools are emptied first), not a third for its page, and
// none stays with the writer once its page was written. parquet-go copied
// a page of a single value into a second buffer and kept the first until
// the file was closed: three copies made, one kept, beside the next long
// value (the exchanges file's body of the same Produce).
func TestParquetLongValueCopies(t *testing.T) {
	// Just under one of the sizes of parquet-go's pooled buffers
	// (15 116 544 bytes): its column buffer is then the value's size.
	long := bytes.Repeat([]byte("kdissect value "), 1_000_000)
	z := newZstdPages()
	defer z.close()
	w, _ := newParquetWriter[RecordRow](io.Discard, z, recordBlobs)
	// The writer's own buffers, once, before measuring.
	if _, err := w.Write([]RecordRow{{Value: []byte("first")}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}

	var before, written, after runtime.MemStats
	runtime.GC()
	runtime.GC() // empties parquet-go's pools (sync.Pool keeps through one)
	runtime.ReadMemStats(&before)
	// The page of a value past the page buffer size is written by Write.
	if _, err := w.Write([]RecordRow{{Value: long}}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&written)
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(long)

	allocated := written.TotalAlloc - before.TotalAlloc
	kept := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("a value of %d MB: %d MB allocated to write it, %d MB kept after", len(long)/1_000_000, allocated/1_000_000, kept/1_000_000)
	if allocated > 5*uint64(len(long))/2 {
		t.Errorf("%d MB allocated to write a value of %d MB: more than two copies", allocated/1_000_000, len(long)/1_000_000)
	}
	if kept > int64(len(long))/2 {
		t.Errorf("%d MB kept by the writer after the page of a value of %d MB was written", kept/1_000_000, len(long)/1_000_000)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
