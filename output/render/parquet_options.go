package render

import (
	"io"

	"github.com/parquet-go/parquet-go"
)

// newParquetWriter returns a parquet-go writer of rows T to w through the
// pageIndexFilter that closeParquet needs: pages zstd-compressed by z,
// row groups bounded, and neither min/max statistics nor a column index
// for the columns named by blobs (each a column path).
//
// parquet-go writes a column's least and greatest values whole, in every
// page header (twice: min_value and the deprecated min, likewise max) and
// in the column chunk's statistics: a value of 50 MB was written six
// times uncompressed, beside its compressed page. Arrow and parquet-mr
// write no statistics for values over 4 KiB; parquet-go can only leave
// them out of a whole column (SkipPageStatistics, SkipPageBounds), which
// is done for the columns that hold payloads (bodies, record keys, values
// and headers), whose bounds no query prunes by. The column index it
// still writes for them, with empty bounds, is taken out by the filter.
//
// The blob columns are buffered by blobBuffer (see blobSchema).
func newParquetWriter[T any](w io.Writer, z *zstdPages, blobs [][]string, more ...parquet.WriterOption) (*parquet.GenericWriter[T], *pageIndexFilter) {
	f := newPageIndexFilter(w, blobs)
	opts := append(parquetWriterOptions(z, blobs), blobSchema[T](blobs))
	return parquet.NewGenericWriter[T](f, append(opts, more...)...), f
}

// parquetWriterOptions are newParquetWriter's options but the schema.
func parquetWriterOptions(z *zstdPages, blobs [][]string) []parquet.WriterOption {
	opts := []parquet.WriterOption{
		parquet.Compression(z),
		parquet.MaxRowsPerRowGroup(ParquetRowGroupRows),
		// The column index of the other string columns keeps short
		// bounds (truncated as the format allows).
		parquet.ColumnIndexSizeLimit(func([]string) int { return 64 }),
	}
	for _, path := range blobs {
		opts = append(opts, parquet.SkipPageStatistics(path...), parquet.SkipPageBounds(path...))
	}
	return opts
}
