package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/internal/outfile"
	"github.com/kdissect/kdissect/output/pipeline"
	"github.com/kdissect/kdissect/output/render"
)

// This file wires --format parquet: read writes one Parquet file (-w
// FILE), live a directory of files rolled by size (-C) or time (-G), as
// tcpdump rolls its -w files.

// parquetFlags are the flags of --format parquet.
type parquetFlags struct {
	path string // -w: the file (read) or directory (live)
	dir  bool   // path is a directory of rolled files (live)
	// fileSize (-C) and rotate (-G) roll live's files: a new file once
	// the current one holds fileSize millions of bytes or was opened
	// rotate seconds ago, checked as each exchange is written (as tcpdump
	// checks as each packet is).
	fileSize int
	rotate   int
	records  string // --parquet-records: the records file (read) or directory (live)
}

// registerWrite adds read's --parquet-records; read's -w (write.go) names
// the Parquet file with --format parquet.
func (f *parquetFlags) registerWrite(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.records, "parquet-records", "", "with --format parquet: also write every record of the Produce requests and Fetch responses to this Parquet file (topic, partition, offset, timestamp, key, value, headers)")
}

// registerRoll adds live's -C and -G, which roll the Parquet files of
// --format parquet -w DIR, and its --parquet-records DIR.
func (f *parquetFlags) registerRoll(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.records, "parquet-records", "", "with --format parquet -w DIR: also write every record of the Produce requests and Fetch responses (topic, partition, offset, timestamp, key, value, headers) into this other directory, in files rolled with -w's and named as they are")
	cmd.Flags().IntVarP(&f.fileSize, "file-size", "C", 0, "with --format parquet -w DIR: start a new file once the current one holds this many millions of bytes, as tcpdump -C (0: no limit)")
	cmd.Flags().IntVarP(&f.rotate, "rotate-seconds", "G", 0, "with --format parquet -w DIR: start a new file once the current one is this many seconds old, as tcpdump -G (0: no limit)")
}

// check says what is wrong with the flags for the format.
func (f *parquetFlags) check(format string) error {
	if format != "parquet" {
		switch {
		case f.fileSize != 0 || f.rotate != 0:
			return fmt.Errorf("-C and -G roll the files of --format parquet -w DIR")
		case f.records != "":
			return fmt.Errorf("--parquet-records goes with --format parquet")
		}
		return nil
	}
	switch {
	case f.path == "" && f.dir:
		return fmt.Errorf("--format parquet needs -w DIR: the directory of the Parquet files")
	case f.path == "":
		return fmt.Errorf("--format parquet needs -w FILE (- for standard output)")
	case f.dir && f.path == "-":
		return fmt.Errorf("-w -: live writes Parquet files into a directory; name one")
	case f.records != "" && f.dir && (f.records == "-" || filepath.Clean(f.records) == filepath.Clean(f.path)):
		// DIR/*.parquet must hold one schema, for DuckDB and Spark.
		return fmt.Errorf("--parquet-records: name a directory other than -w's")
	case f.records != "" && (f.records == f.path || f.records == "-"):
		return fmt.Errorf("--parquet-records: name a file other than -w's")
	case f.fileSize < 0 || f.rotate < 0:
		return fmt.Errorf("-C and -G must not be negative")
	}
	return nil
}

// writer returns the exchange writer of --format parquet. stdout is the
// command's standard output, for -w -.
func (f *parquetFlags) writer(stdout io.Writer, showSecrets bool) (*parquetOutput, error) {
	if err := f.check("parquet"); err != nil {
		return nil, err
	}
	o := &parquetOutput{
		opts:     render.ParquetOptions{ShowSecrets: showSecrets, Created: versionString()},
		rows:     &render.ParquetRows{ShowSecrets: showSecrets},
		path:     f.path,
		dir:      f.dir,
		maxBytes: int64(f.fileSize) * 1_000_000,
		maxAge:   time.Duration(f.rotate) * time.Second,
	}
	switch {
	case f.path == "-":
		o.bw = bufio.NewWriterSize(stdout, 1<<20)
		o.p = render.NewParquet(o.bw, o.opts)
	case f.dir:
		if err := os.MkdirAll(f.path, 0o755); err != nil {
			return nil, inputError{fmt.Errorf("-w: %w", err)}
		}
	default:
		// Created now, so that a path that cannot be written fails before
		// the capture is read.
		if err := o.open(f.path); err != nil {
			return nil, err
		}
	}
	o.withRecords = f.records != ""
	if f.records != "" && f.dir {
		if err := os.MkdirAll(f.records, 0o755); err != nil {
			return nil, inputError{fmt.Errorf("--parquet-records: %w", err)}
		}
		o.recDir = f.records
	} else if f.records != "" {
		rf, err := outfile.Create(f.records, outfile.Atomic) // renamed into place once complete
		if err != nil {
			o.discard()
			return nil, inputError{fmt.Errorf("--parquet-records: %w", err)}
		}
		o.recFile = rf
		o.recBuf = bufio.NewWriterSize(rf, 1<<20)
		o.recs = render.NewParquetRecords(o.recBuf)
	}
	return o, nil
}

// parquetOutput writes exchanges as Parquet: to one file, or to rolled
// files in a directory, each complete (its footer written) once closed.
// A file being written in the directory is NAME.parquet.part, renamed to
// NAME.parquet once complete, so that a reader of DIR/*.parquet (DuckDB,
// Spark) never meets a file without its footer.
type parquetOutput struct {
	opts     render.ParquetOptions
	rows     *render.ParquetRows
	path     string
	dir      bool
	maxBytes int64
	maxAge   time.Duration
	// withRecords: a records file is written (--parquet-records); set
	// before the first exchange, read by parquetRenderer's goroutines.
	withRecords bool

	p      *render.Parquet
	f      *outfile.File // nil for standard output
	bw     *bufio.Writer
	part   string // the file being written, in the directory
	opened time.Time
	seq    int
	files  []string // completed, in the directory

	// The records file (--parquet-records), nil without one; in live's
	// directory mode, recDir's file of the same name as the exchanges',
	// opened and completed with it.
	recs    *render.ParquetRecords
	recFile *outfile.File
	recBuf  *bufio.Writer
	recDir  string
	recPart string
	recDone []string // completed, in recDir
}

// open opens the file to write: read's -w FILE renamed into place once
// complete, or (in live's directory) a NAME.parquet.part of kdissect's
// own naming, which must be new.
func (o *parquetOutput) open(name string) error {
	how := outfile.Atomic
	if o.dir {
		how = outfile.New
	}
	f, err := outfile.Create(name, how)
	if err != nil {
		return inputError{fmt.Errorf("-w: %w", err)}
	}
	o.f = f
	o.bw = bufio.NewWriterSize(f, 1<<20)
	o.p = render.NewParquet(o.bw, o.opts)
	o.opened = time.Now()
	return nil
}

// Write writes ex as a row; in a directory, the file is rolled after it
// when it reached -C or -G.
func (o *parquetOutput) Write(ex *dissect.Exchange) error {
	return o.writeRow(ex, nil, 0)
}

// writeRow writes ex's records, if a records file is written, then its
// row r of n bytes; r nil, the row is made after the records were written
// (see parquetRenderer.render).
func (o *parquetOutput) writeRow(ex *dissect.Exchange, r *render.ExchangeRow, n int64) error {
	if o.p == nil { // in a directory, the first row of a file
		o.seq++
		name := fmt.Sprintf("kdissect-%s-%05d.parquet", time.Now().UTC().Format("20060102T150405Z"), o.seq)
		o.part = filepath.Join(o.path, name+".part")
		if err := o.open(o.part); err != nil {
			return err
		}
		if o.recDir != "" {
			o.recPart = filepath.Join(o.recDir, name+".part")
			rf, err := outfile.Create(o.recPart, outfile.New)
			if err != nil {
				return inputError{fmt.Errorf("--parquet-records: %w", err)}
			}
			o.recFile, o.recBuf = rf, bufio.NewWriterSize(rf, 1<<20)
			o.recs = render.NewParquetRecords(o.recBuf)
		}
	}
	if o.recs != nil {
		if err := o.recs.Write(ex); err != nil {
			return fmt.Errorf("--parquet-records %s: %w", o.recFile.Name(), err)
		}
	}
	if r == nil {
		row, size := o.rows.Row(ex)
		r, n = &row, size
	}
	if err := o.p.WriteRow(*r, n); err != nil {
		return err
	}
	if o.dir && (o.maxBytes > 0 && o.p.Size() >= o.maxBytes || o.maxAge > 0 && time.Since(o.opened) >= o.maxAge) {
		return o.finish()
	}
	return nil
}

// finish completes the file being written (in live's directory mode, and
// its records file).
func (o *parquetOutput) finish() (err error) {
	if o.p == nil {
		return nil
	}
	var recErr error
	if o.recDir != "" && o.recs != nil {
		if recErr = o.closeRecords(); recErr == nil {
			done := o.recPart[:len(o.recPart)-len(".part")]
			if recErr = os.Rename(o.recPart, done); recErr == nil {
				o.recDone = append(o.recDone, done)
			}
		}
	}
	defer func() {
		if recErr != nil && err == nil {
			err = recErr
		}
	}()
	err = o.p.Close()
	o.p = nil
	if err == nil {
		err = o.bw.Flush()
	}
	if o.f != nil {
		err = o.f.Finish(err)
		o.f = nil
	}
	if err == nil && o.part != "" {
		done := o.part[:len(o.part)-len(".part")]
		if err = os.Rename(o.part, done); err == nil {
			o.files = append(o.files, done)
		}
		o.part = ""
	}
	if err != nil {
		return fmt.Errorf("-w %s: %w", o.path, err)
	}
	return nil
}

// Flush completes the file: the last one, at the end of the input
// (its tap is no output.Syncer: a Parquet file is read only whole).
func (o *parquetOutput) Flush() error {
	err := o.finish()
	if o.recs != nil {
		if rerr := o.closeRecords(); rerr != nil && err == nil {
			err = rerr
		}
	}
	return err
}

// discard closes what is still open, without completing it: read's
// files are not renamed into place (the command failed before the end).
// After Flush it does nothing.
func (o *parquetOutput) discard() {
	if o.f != nil {
		o.f.Close()
	}
	if o.recFile != nil {
		o.recFile.Close()
	}
}

// closeRecords completes the records file being written.
func (o *parquetOutput) closeRecords() error {
	err := o.recs.Close()
	if err == nil {
		err = o.recBuf.Flush()
	}
	err = o.recFile.Finish(err)
	o.recs = nil
	if err != nil {
		return fmt.Errorf("--parquet-records %s: %w", o.recFile.Name(), err)
	}
	return nil
}

// parquetRenderer is parquetOutput as a tap (output.Renderer): rows are
// made in parallel (their bodies rendered as JSON), written in order.
type parquetRenderer struct{ o *parquetOutput }

// parquetRow is a row parquetRenderer rendered, of size bytes.
type parquetRow struct {
	row  render.ExchangeRow
	size int64
}

func (r parquetRenderer) Add(ex *dissect.Exchange) error { return r.o.Write(ex) }
func (r parquetRenderer) Close() error                   { return r.o.Flush() }

// Render makes the exchange's row, but not that of an exchange of at least
// pipeline.MaxBytes (frames and record keys and values) when a records
// file is written: its row is made as it is written, after its records
// went to the records file, so that its JSON bodies are not held beside
// the records file's copies of its values (a Produce of one 50 MB value:
// the decompressed value and its body are then held with one copy of the
// value in parquet-go, not two). The pipeline lets such an exchange in
// alone, so little runs beside its rendering anyway.
func (r parquetRenderer) Render(ex *dissect.Exchange) (any, int64) {
	if r.o.withRecords && exchangeBytes(ex) >= pipeline.MaxBytes {
		return nil, 0
	}
	row, n := r.o.rows.Row(ex)
	return &parquetRow{row, n}, n
}

func (r parquetRenderer) AddRendered(ex *dissect.Exchange, p any) error {
	row, _ := p.(*parquetRow)
	if row == nil {
		return r.o.writeRow(ex, nil, 0)
	}
	return r.o.writeRow(ex, &row.row, row.size)
}

// exchangeBytes is what ex holds: its frames and its records' keys and
// values, decompressed.
func exchangeBytes(ex *dissect.Exchange) int64 {
	var n int64
	for _, f := range []*dissect.Frame{ex.Request, ex.Response} {
		if f != nil {
			n += int64(len(f.Bytes))
		}
	}
	if ex.Decoded == nil {
		return n
	}
	for _, ref := range ex.Decoded.RecordSets {
		if ref.Records == nil || ref.Records.Set == nil {
			continue
		}
		for _, e := range ref.Records.Set.Entries {
			if e.Batch == nil {
				continue
			}
			for _, rec := range e.Batch.Records {
				n += int64(len(rec.Key) + len(rec.Value))
			}
		}
	}
	return n
}
