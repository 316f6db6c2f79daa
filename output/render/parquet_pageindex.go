package render

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"slices"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// pageIndexFilter is the io.Writer a parquet-go writer writes to: it
// passes the bytes on to w until closeParquet has it hold them, which it
// does for what the writer writes on Close (the page index and the
// footer), so that finish writes them without the column index
// (ColumnIndex) of the blobs columns.
//
// parquet-go writes a column index for every column, and for a column
// written with SkipPageBounds it says min "" and max "" for pages that
// hold values: a reader that prunes pages by it (parquet-mr in Spark,
// Trino, DataFusion, Arrow with the page index) skips them on key = 'k7'
// and answers nothing. Without a column index a reader knows nothing of
// the column's pages and reads them. The offset indexes are kept.
type pageIndexFilter struct {
	w       io.Writer
	blobs   [][]string // column paths
	written int64      // bytes passed on to w
	holding bool
	held    []byte // from offset written
}

func newPageIndexFilter(w io.Writer, blobs [][]string) *pageIndexFilter {
	return &pageIndexFilter{w: w, blobs: blobs}
}

func (f *pageIndexFilter) Write(b []byte) (int, error) {
	if f.holding {
		f.held = append(f.held, b...)
		return len(b), nil
	}
	n, err := f.w.Write(b)
	f.written += int64(n)
	return n, err
}

// parquetFlushCloser is parquet-go's GenericWriter, of any row type.
type parquetFlushCloser interface {
	Flush() error
	Close() error
}

// closeParquet ends the last row group of pw, which writes to f, and
// writes the page index and footer without the blobs' column indexes.
// After Flush, parquet-go's Close (v0.32.0) has no row left to write: it
// writes the tail of its write buffer (32 KiB at most), the page index
// and the footer, so that what f holds is bounded by the file's metadata,
// whatever the size of its data.
func closeParquet(pw parquetFlushCloser, f *pageIndexFilter) error {
	if err := pw.Flush(); err != nil {
		return fmt.Errorf("end row group: %w", err)
	}
	f.holding = true
	if err := pw.Close(); err != nil {
		return err
	}
	return f.finish()
}

// finish writes what was held, the blobs' column indexes taken out of the
// page index and the footer. Nothing before the page index moves: the
// offsets of the pages stay valid, those of the column and offset indexes
// after a removed one are moved back by its length, so that the page
// index stays one contiguous section (parquet-go's reader reads it as
// the sum of its lengths from the first one's offset).
func (f *pageIndexFilter) finish() error {
	held := f.held
	f.held, f.holding = nil, false
	if len(held) < 8 || !bytes.Equal(held[len(held)-4:], []byte("PAR1")) {
		return fmt.Errorf("parquet footer: %d bytes held, no PAR1 at their end", len(held))
	}
	footerLen := int64(binary.LittleEndian.Uint32(held[len(held)-8:]))
	prefixLen := int64(len(held)) - 8 - footerLen
	if prefixLen < 0 {
		return fmt.Errorf("parquet footer: %d bytes, of %d held", footerLen, len(held))
	}
	proto := new(thrift.CompactProtocol)
	var md format.FileMetaData
	if err := thrift.Unmarshal(proto, held[prefixLen:len(held)-8], &md); err != nil {
		return fmt.Errorf("parquet footer: %w", err)
	}

	// The removed column indexes, as ranges of the file, by offset.
	type span struct{ off, end int64 }
	var cut []span
	for i := range md.RowGroups {
		for j := range md.RowGroups[i].Columns {
			cc := &md.RowGroups[i].Columns[j]
			if cc.ColumnIndexOffset == 0 || !slices.ContainsFunc(f.blobs, func(p []string) bool { return slices.Equal(p, cc.MetaData.PathInSchema) }) {
				continue
			}
			s := span{cc.ColumnIndexOffset, cc.ColumnIndexOffset + int64(cc.ColumnIndexLength)}
			if s.off < f.written || s.end > f.written+prefixLen || s.end < s.off {
				return fmt.Errorf("parquet footer: column index of %v at [%d, %d), outside the %d bytes held from %d", cc.MetaData.PathInSchema, s.off, s.end, prefixLen, f.written)
			}
			cut = append(cut, s)
			cc.ColumnIndexOffset, cc.ColumnIndexLength = 0, 0
		}
	}
	slices.SortFunc(cut, func(a, b span) int { return cmp.Compare(a.off, b.off) })
	// moved is where a byte of the file at off is once the cuts are out.
	moved := func(off int64) (int64, error) {
		n := off
		for _, s := range cut {
			switch {
			case off >= s.end:
				n -= s.end - s.off
			case off >= s.off:
				return 0, fmt.Errorf("parquet footer: offset %d within a removed column index [%d, %d)", off, s.off, s.end)
			}
		}
		return n, nil
	}
	for i := range md.RowGroups {
		rg := &md.RowGroups[i]
		offsets := []*int64{&rg.FileOffset}
		for j := range rg.Columns {
			cc := &rg.Columns[j]
			offsets = append(offsets, &cc.FileOffset, &cc.ColumnIndexOffset, &cc.OffsetIndexOffset,
				&cc.MetaData.DataPageOffset, &cc.MetaData.IndexPageOffset, &cc.MetaData.DictionaryPageOffset, &cc.MetaData.BloomFilterOffset)
		}
		for _, p := range offsets {
			if *p == 0 {
				continue
			}
			n, err := moved(*p)
			if err != nil {
				return err
			}
			*p = n
		}
	}
	footer, err := thrift.Marshal(proto, &md)
	if err != nil {
		return fmt.Errorf("parquet footer: %w", err)
	}

	// Written piece by piece: what is held is not copied again.
	write := func(b []byte) error {
		n, err := f.w.Write(b)
		f.written += int64(n)
		return err
	}
	base, from := f.written, f.written
	for _, s := range cut {
		if s.off < from {
			return fmt.Errorf("parquet footer: column indexes overlap at %d", s.off)
		}
		if err := write(held[from-base : s.off-base]); err != nil {
			return err
		}
		from = s.end
	}
	tail := binary.LittleEndian.AppendUint32(nil, uint32(len(footer)))
	for _, b := range [][]byte{held[from-base : prefixLen], footer, append(tail, "PAR1"...)} {
		if err := write(b); err != nil {
			return err
		}
	}
	return nil
}
