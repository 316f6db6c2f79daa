package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/kdissect/kdissect/dissect/tlsdecrypt"
)

// keyLogFiles is a TLS key source read from NSS key log files
// (--tls-keylog, or SSLKEYLOGFILE): on a client random it does not know,
// it reads what the files gained since, so `live` finds the keys a client
// appends while the capture runs.
type keyLogFiles struct {
	log   *tlsdecrypt.KeyLog
	files []keyLogFile
}

type keyLogFile struct {
	path string
	read int64 // bytes read so far
}

// openKeyLogs reads the key log files named by --tls-keylog, or by
// SSLKEYLOGFILE when the flag is absent (a file that does not exist yet
// is then read when it appears). It returns nil when there is none.
func openKeyLogs(paths []string, warn io.Writer) (*keyLogFiles, error) {
	paths, optional := keyLogPaths(paths)
	if len(paths) == 0 {
		return nil, nil
	}
	k := &keyLogFiles{log: tlsdecrypt.NewKeyLog()}
	for _, p := range paths {
		k.files = append(k.files, keyLogFile{path: p})
	}
	for i := range k.files {
		if err := k.readNew(&k.files[i]); err != nil && !(optional && errors.Is(err, fs.ErrNotExist)) {
			return nil, fmt.Errorf("--tls-keylog: %w", err)
		}
	}
	if bad, lines := k.log.Malformed(); bad > 0 {
		fmt.Fprintf(warn, "kdissect: %d of %d key log lines malformed, ignored\n", bad, lines)
	}
	return k, nil
}

// keyLogPaths returns the key log files read: those of --tls-keylog
// (flags), or SSLKEYLOGFILE's when there is none; optional says they come
// from SSLKEYLOGFILE, whose file may not exist yet.
func keyLogPaths(flags []string) (paths []string, optional bool) {
	if len(flags) == 0 {
		if env := os.Getenv("SSLKEYLOGFILE"); env != "" {
			return []string{env}, true
		}
	}
	return flags, false
}

// readNew reads the lines f gained since the last read (whole lines only:
// a writer may be in the middle of one).
func (k *keyLogFiles) readNew(f *keyLogFile) error {
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
		f.read = 0 // truncated and rewritten
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
// the connection's lines (tlsdecrypt.KeySource).
func (k *keyLogFiles) Lookup(cr [32]byte) (tlsdecrypt.Secrets, bool) {
	if s, ok := k.log.Lookup(cr); ok && s.Complete() {
		return s, true
	}
	for i := range k.files {
		_ = k.readNew(&k.files[i]) // a file gone since: its keys stay known
	}
	return k.log.Lookup(cr)
}

// openKeyLogWriter opens the NSS key log a client command writes its TLS
// session keys to (tls.Config.KeyLogWriter): appended to, as the
// SSLKEYLOGFILE writers do, so that one file gathers several runs, and
// created readable by its owner only, since it decrypts the traffic.
func openKeyLogWriter(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("key log to write: %w", err)
	}
	return f, nil
}
