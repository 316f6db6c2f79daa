// Package outfile opens the files kdissect writes (report -o, read -w,
// --parquet-records, man DIR) by one rule, as tshark -w and curl -o treat
// an existing output:
//
//   - a new name, or an existing regular file: written to a temporary
//     file beside it and renamed over it once complete, so that OUT is
//     never left half written, nor lost to an error; the new file has the
//     old one's permission bits, or a new one's (0666 less the umask, as
//     os.Create makes them). A file that may be written in a directory
//     that may not is written in place instead, as os.Create would;
//   - an existing device, FIFO or socket: written into, as it is (opened
//     for writing, not truncated, never replaced by a regular file);
//   - a symbolic link that the user named is followed: its target is
//     what the two rules above see. Entries of a directory that kdissect
//     fills (man DIR) are not the user's choice: whatever is there is
//     replaced (Replace), never followed nor written into.
//
// A regular file with other hard links is replaced under this name only:
// the other names keep the old contents, as after sed -i.
package outfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// How says how Create treats what is already at the path.
type How int

const (
	// Atomic follows a symbolic link, writes into a device, FIFO or
	// socket, and renames a complete temporary file over a regular file
	// or a new name: for a file the user named.
	Atomic How = iota
	// InPlace is Atomic except that a regular file is truncated and
	// written in place, readable while it grows and kept up to the last
	// write if the process dies: for a capture of unknown length (live
	// -w), as tcpdump -w writes.
	InPlace
	// Replace never follows nor writes into what is at the path: a
	// symbolic link, FIFO or device there is replaced by the new regular
	// file, as a regular file is: for the files of a directory that
	// kdissect fills (man DIR), where a link planted in it must not send
	// a page elsewhere.
	Replace
	// New creates the file, which must not exist, and writes it in
	// place: for the files kdissect names itself in a directory that it
	// fills (live's rolled Parquet files, renamed once complete), where
	// an entry of that name is not kdissect's to follow or overwrite.
	New
)

// maxLinks bounds the symbolic links followed, as the kernel's ELOOP does.
const maxLinks = 40

// File is an output being written. Commit makes it OUT; Close without
// Commit discards what a temporary file held (a device or FIFO has had
// its bytes already).
type File struct {
	*os.File
	path   string // the name given
	target string // the name the temporary file is renamed to
	tmp    string // the temporary file; "" when written in place
	done   bool
}

// Create opens path for writing by how. Errors are the os package's
// (*fs.PathError): a directory (EISDIR), a name that cannot be written
// (an existing regular file the caller may not write is refused as
// os.Create refuses it), a link loop (ELOOP).
func Create(path string, how How) (*File, error) {
	if how == New {
		return openInPlace(path, path, os.O_CREATE|os.O_EXCL)
	}
	target := path
	if how != Replace {
		var err error
		if target, err = resolve(path); err != nil {
			return nil, err
		}
	}
	st, err := os.Lstat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		st = nil
	case err != nil:
		return nil, err
	case st.IsDir():
		return nil, &fs.PathError{Op: "open", Path: path, Err: syscall.EISDIR}
	case how != Replace && !st.Mode().IsRegular():
		// A device, FIFO or socket: the bytes go to it, as the user asked.
		return openInPlace(path, target, 0)
	case how == InPlace:
		return openInPlace(path, target, os.O_TRUNC)
	case st.Mode().IsRegular():
		// Refused where os.Create would refuse it (a read-only file):
		// renaming over it must not write what could not be written.
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		f.Close()
	}
	if how == InPlace { // a new name
		return openInPlace(path, target, os.O_CREATE|os.O_TRUNC)
	}
	f, tmp, err := createTemp(target)
	if err != nil && how == Atomic && st != nil && st.Mode().IsRegular() && errors.Is(err, fs.ErrPermission) {
		// A file that may be written in a directory that may not: written
		// in place, as os.Create would, rather than refused.
		return openInPlace(path, target, os.O_TRUNC)
	}
	if err != nil {
		return nil, err
	}
	if st != nil && st.Mode().IsRegular() {
		// The replacement is the file it replaces as ls shows it: its
		// permission bits and, where allowed, its owner and group.
		err = f.Chmod(st.Mode().Perm())
		if sys, ok := st.Sys().(*syscall.Stat_t); ok && err == nil {
			_ = f.Chown(int(sys.Uid), int(sys.Gid)) // only root or the owner may; a new owner otherwise
		}
		if err != nil {
			f.Close()
			os.Remove(tmp)
			return nil, err
		}
	}
	return &File{File: f, path: path, target: target, tmp: tmp}, nil
}

// openInPlace opens target for writing with flag added (a new file's
// mode 0666 less the umask), as the File of path, without a temporary
// file.
func openInPlace(path, target string, flag int) (*File, error) {
	f, err := os.OpenFile(target, os.O_WRONLY|flag, 0o666)
	if err != nil {
		return nil, err
	}
	return &File{File: f, path: path, target: target}, nil
}

// createTemp creates a new file beside target, named .BASE.RANDOM.part,
// with a new file's mode (0666 less the umask; os.CreateTemp's is 0600).
func createTemp(target string) (*os.File, string, error) {
	dir, base := filepath.Split(target)
	for range 100 {
		var r [6]byte
		_, _ = rand.Read(r[:])
		name := filepath.Join(dir, "."+base+"."+hex.EncodeToString(r[:])+".part")
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		return f, name, nil
	}
	return nil, "", &fs.PathError{Op: "createtemp", Path: target, Err: fs.ErrExist}
}

// resolve follows the symbolic links at path (not those of its
// directories: renaming in them reaches the same place) to the name a
// write through path would reach; that name need not exist.
func resolve(path string) (string, error) {
	p := path
	for range maxLinks {
		st, err := os.Lstat(p)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			return p, nil // not there (a new name, or a dangling link's target), or not a link
		}
		to, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(p), to)
		}
		p = to
	}
	return "", &fs.PathError{Op: "open", Path: path, Err: syscall.ELOOP}
}

// Name returns the name the file was created with (not the temporary
// file's).
func (f *File) Name() string { return f.path }

// Commit closes the file and, when it was written to a temporary file,
// renames that over the target. After Commit, Close does nothing.
func (f *File) Commit() error {
	if f.done {
		return nil
	}
	f.done = true
	err := f.File.Close()
	if f.tmp == "" {
		return err
	}
	if err == nil {
		err = os.Rename(f.tmp, f.target)
	}
	if err != nil {
		os.Remove(f.tmp)
	}
	return err
}

// Finish ends a write that ended with err: Commit when err is nil, else
// Close (discarding it). It returns err, or Commit's.
func (f *File) Finish(err error) error {
	if err == nil {
		err = f.Commit()
	}
	f.Close()
	return err
}

// Close discards the file when it was not committed: the temporary file
// is removed and what was at the path stays as it was. A device or FIFO
// written into is only closed.
func (f *File) Close() error {
	if f.done {
		return nil
	}
	f.done = true
	err := f.File.Close()
	if f.tmp != "" {
		if rerr := os.Remove(f.tmp); err == nil {
			err = rerr
		}
	}
	return err
}
