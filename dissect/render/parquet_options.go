package render

import "github.com/parquet-go/parquet-go"

// parquetWriterOptions are the options of both Parquet writers: pages
// zstd-compressed by z, row groups bounded, and no min/max statistics for
// the columns named by blobs (each a column path).
//
// parquet-go writes a column's least and greatest values whole, in every
// page header (twice: min_value and the deprecated min, likewise max) and
// in the column chunk's statistics: a value of 50 MB was written six
// times uncompressed, beside its compressed page. Arrow and parquet-mr
// write no statistics for values over 4 KiB; parquet-go can only leave
// them out of a whole column (SkipPageStatistics, SkipPageBounds), which
// is done for the columns that hold payloads (bodies, record keys, values
// and headers), whose bounds no query prunes by.
func parquetWriterOptions(z *zstdPages, blobs ...[]string) []parquet.WriterOption {
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
