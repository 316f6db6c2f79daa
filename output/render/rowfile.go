package render

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// rowFile holds table rows in a temporary file, written one after the
// other and read back once, in order: each row a count of cells, then each
// cell as a length and its bytes (uvarints).
type rowFile struct {
	f    *os.File
	w    *bufio.Writer
	name string // to remove at close when it could not be removed at once
	buf  []byte
}

// newRowFile creates the file in the system's temporary directory. On
// systems that allow it the file is removed at once, while open, so that
// nothing is left behind whatever happens to the process.
func newRowFile() (*rowFile, error) {
	f, err := os.CreateTemp("", "kdissect-rows-*")
	if err != nil {
		return nil, fmt.Errorf("summary table: spill rows to a temporary file: %w", err)
	}
	rf := &rowFile{f: f, w: bufio.NewWriterSize(f, 64<<10)}
	if os.Remove(f.Name()) != nil {
		rf.name = f.Name()
	}
	return rf, nil
}

func (rf *rowFile) write(row []string) error {
	b := binary.AppendUvarint(rf.buf[:0], uint64(len(row)))
	for _, c := range row {
		b = binary.AppendUvarint(b, uint64(len(c)))
		b = append(b, c...)
	}
	rf.buf = b
	if _, err := rf.w.Write(b); err != nil {
		return fmt.Errorf("summary table: spill rows: %w", err)
	}
	return nil
}

// each calls fn on every row written, in order.
func (rf *rowFile) each(fn func(row []string) error) error {
	if err := rf.w.Flush(); err != nil {
		return fmt.Errorf("summary table: spill rows: %w", err)
	}
	if _, err := rf.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("summary table: read spilled rows: %w", err)
	}
	r := bufio.NewReaderSize(rf.f, 64<<10)
	var row []string
	for {
		n, err := binary.ReadUvarint(r)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil || n > 1<<16 {
			return fmt.Errorf("summary table: read spilled rows: bad row (%v)", err)
		}
		row = row[:0]
		for range n {
			l, err := binary.ReadUvarint(r)
			if err != nil || l > 1<<30 {
				return fmt.Errorf("summary table: read spilled rows: bad cell (%v)", err)
			}
			cell := make([]byte, l)
			if _, err := io.ReadFull(r, cell); err != nil {
				return fmt.Errorf("summary table: read spilled rows: %w", err)
			}
			row = append(row, string(cell))
		}
		if err := fn(row); err != nil {
			return err
		}
	}
}

func (rf *rowFile) close() {
	rf.f.Close()
	if rf.name != "" {
		os.Remove(rf.name)
	}
}
