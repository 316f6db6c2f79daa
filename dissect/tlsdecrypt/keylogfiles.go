package tlsdecrypt

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
)

// KeyLogFiles is a KeySource read from NSS key log files that it
// follows: on a client random it does not know, or knows only some
// secrets of, it reads what the files gained since, so that a live
// capture finds the keys a client appends while it runs. It is safe for
// concurrent use.
type KeyLogFiles struct {
	log   *KeyLog
	mu    sync.Mutex // over files' offsets
	files []keyLogFile
}

type keyLogFile struct {
	path string
	read int64 // bytes read so far: whole lines only
}

// OpenKeyLogFiles reads the key log files at paths. With optional, a
// file that does not exist yet is no error: it is read once it appears.
// Errors: a file that cannot be opened or read (its path in the error).
// Malformed lines are counted (Malformed), never an error.
func OpenKeyLogFiles(paths []string, optional bool) (*KeyLogFiles, error) {
	k := &KeyLogFiles{log: NewKeyLog()}
	for _, p := range paths {
		k.files = append(k.files, keyLogFile{path: p})
	}
	for i := range k.files {
		if err := k.readNew(&k.files[i]); err != nil && !(optional && errors.Is(err, fs.ErrNotExist)) {
			return nil, err
		}
	}
	return k, nil
}

// Malformed returns how many of the lines read so far were malformed,
// and how many lines were read.
func (k *KeyLogFiles) Malformed() (malformed, lines int) { return k.log.Malformed() }

// readNew reads the lines f gained since the last read (whole lines only:
// a writer may be in the middle of one). A file shorter than what was
// read was truncated and rewritten: it is read again from its start.
func (k *KeyLogFiles) readNew(f *keyLogFile) error {
	fh, err := os.Open(f.path)
	if err != nil {
		return err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return err
	}
	if st.Size() < f.read {
		f.read = 0
	}
	if st.Size() == f.read {
		return nil
	}
	b := make([]byte, st.Size()-f.read)
	n, err := fh.ReadAt(b, f.read)
	if err != nil && err != io.EOF {
		return fmt.Errorf("reading %s: %w", f.path, err)
	}
	b = b[:n]
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != '\n' {
			i++
		}
		if i == len(b) {
			break // a partial last line: read it with its end
		}
		k.log.AddLine(b[:i])
		f.read += int64(i + 1)
		b = b[i+1:]
	}
	return nil
}

// Lookup returns the secrets of a client random, reading the files again
// when they are not known yet, or some only: the client may be writing
// the connection's lines.
func (k *KeyLogFiles) Lookup(cr [32]byte) (Secrets, bool) {
	if s, ok := k.log.Lookup(cr); ok && s.Complete() {
		return s, true
	}
	k.mu.Lock()
	for i := range k.files {
		_ = k.readNew(&k.files[i]) // a file gone since: its keys stay known
	}
	k.mu.Unlock()
	return k.log.Lookup(cr)
}
