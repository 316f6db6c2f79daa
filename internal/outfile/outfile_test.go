package outfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// write creates path by how, writes text and commits.
func write(t *testing.T, path string, how How, text string) {
	t.Helper()
	f, err := Create(path, how)
	if err != nil {
		t.Fatalf("Create %s: %v", path, err)
	}
	if _, err := io.WriteString(f, text); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatalf("Commit %s: %v", path, err)
	}
}

// readAll returns path's contents, failing the test on an error.
func readAll(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// noTemporaryLeft fails when a .part file is left in dir.
func noTemporaryLeft(t *testing.T, dir string) {
	t.Helper()
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.part")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// umask returns the process's umask (setting it back at once: no test
// of this package runs in parallel).
func umask() fs.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return fs.FileMode(m)
}

// TestFIFO: a FIFO is written into, and stays a FIFO.
func TestFIFO(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	if err := syscall.Mkfifo(p, 0o620); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(p)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	for _, how := range []How{Atomic, InPlace} {
		if how == InPlace { // the reader above is gone: a new one
			go func() {
				b, _ := os.ReadFile(p)
				got <- string(b)
			}()
		}
		write(t, p, how, "report")
		if s := <-got; s != "report" {
			t.Errorf("how %d: the reader got %q", how, s)
		}
		st, err := os.Lstat(p)
		if err != nil || st.Mode().Type() != fs.ModeNamedPipe || st.Mode().Perm() != 0o620&^umask() {
			t.Errorf("how %d: after the write %v (%v), want the FIFO as it was", how, st.Mode(), err)
		}
	}
	noTemporaryLeft(t, dir)
}

// TestDevice: a character device (a null device, 1,3, made in the test's
// directory) is written into, and stays that device with its mode.
func TestDevice(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mknod needs root")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "null")
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, int(1<<8|3)); err != nil {
		t.Skipf("mknod: %v", err) // a container without CAP_MKNOD
	}
	if err := os.Chmod(p, 0o666); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Lstat(p)
	write(t, p, Atomic, strings.Repeat("x", 64<<10))
	after, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	if after.Mode() != before.Mode() || after.Mode().Type() != fs.ModeDevice|fs.ModeCharDevice ||
		after.Sys().(*syscall.Stat_t).Rdev != before.Sys().(*syscall.Stat_t).Rdev {
		t.Errorf("the device became %v (was %v)", after.Mode(), before.Mode())
	}
	// Replace (man DIR) does not write into a device it finds: it puts
	// the file there instead.
	write(t, p, Replace, "page")
	if st, _ := os.Lstat(p); !st.Mode().IsRegular() || readAll(t, p) != "page" {
		t.Errorf("Replace over a device: %v", st.Mode())
	}
	noTemporaryLeft(t, dir)
}

// TestSymlink: a link the user names is followed, its target written and
// the link kept; Replace replaces the link and leaves its target alone.
// A dangling link makes its target.
func TestSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "sub", "target")
	if err := os.Mkdir(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("sub/target", link); err != nil { // relative to the link's directory
		t.Fatal(err)
	}
	write(t, link, Atomic, "new")
	if st, err := os.Lstat(link); err != nil || st.Mode().Type() != fs.ModeSymlink {
		t.Errorf("the link is gone: %v %v", st, err)
	}
	if s := readAll(t, target); s != "new" {
		t.Errorf("the target holds %q", s)
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o600 {
		t.Errorf("the target's mode became %v", st.Mode().Perm())
	}
	noTemporaryLeft(t, filepath.Dir(target))

	write(t, link, Replace, "page")
	if st, _ := os.Lstat(link); !st.Mode().IsRegular() || readAll(t, link) != "page" {
		t.Errorf("Replace: the link is %v", st.Mode())
	}
	if s := readAll(t, target); s != "new" {
		t.Errorf("Replace wrote through the link: the target holds %q", s)
	}

	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink("made", dangling); err != nil {
		t.Fatal(err)
	}
	write(t, dangling, Atomic, "made")
	if s := readAll(t, filepath.Join(dir, "made")); s != "made" {
		t.Errorf("dangling link's target holds %q", s)
	}

	loop := filepath.Join(dir, "loop")
	if err := os.Symlink("loop", loop); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(loop, Atomic); !errors.Is(err, syscall.ELOOP) {
		t.Errorf("a link loop: %v", err)
	}
	noTemporaryLeft(t, dir)
}

// TestHardLink: a regular file with another name is replaced under the
// name written; the other name keeps the old contents; the new file has
// the old one's mode. InPlace writes the shared file.
func TestHardLink(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.WriteFile(a, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(a, 0o640); err != nil { // whatever the umask
		t.Fatal(err)
	}
	if err := os.Link(a, b); err != nil {
		t.Fatal(err)
	}
	write(t, a, Atomic, "new")
	sa, _ := os.Stat(a)
	sb, _ := os.Stat(b)
	if readAll(t, a) != "new" || readAll(t, b) != "old" || os.SameFile(sa, sb) {
		t.Errorf("a %q, b %q, same file %v: want a new file under a only", readAll(t, a), readAll(t, b), os.SameFile(sa, sb))
	}
	if sa.Mode() != 0o640 {
		t.Errorf("a's mode became %v, was 0640", sa.Mode())
	}
	if err := os.Link(b, filepath.Join(dir, "c")); err != nil {
		t.Fatal(err)
	}
	write(t, b, InPlace, "in place")
	if s := readAll(t, filepath.Join(dir, "c")); s != "in place" {
		t.Errorf("InPlace: the other name holds %q", s)
	}
	noTemporaryLeft(t, dir)
}

// TestModes: a new file gets 0666 less the umask (not CreateTemp's 0600,
// not a fixed 0644), an existing one keeps its mode, in every way.
func TestModes(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	dir := t.TempDir()
	for _, how := range []How{Atomic, InPlace, Replace} {
		p := filepath.Join(dir, "new")
		os.Remove(p)
		write(t, p, how, "x")
		if st, _ := os.Stat(p); st.Mode() != 0o640 {
			t.Errorf("how %d: new file %v, want 0640 (umask 027)", how, st.Mode())
		}
		if err := os.Chmod(p, 0o604); err != nil {
			t.Fatal(err)
		}
		write(t, p, how, "y")
		if st, _ := os.Stat(p); st.Mode() != 0o604 || readAll(t, p) != "y" {
			t.Errorf("how %d: existing 0604 file became %v", how, st.Mode())
		}
	}
	noTemporaryLeft(t, dir)
}

// TestDiscard: Close without Commit leaves an existing file as it was
// and makes no new one.
func TestDiscard(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	if err := os.WriteFile(p, []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{p, filepath.Join(dir, "never")} {
		f, err := Create(name, Atomic)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(f, "half")
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if err := f.Commit(); err != nil { // after Close: nothing
			t.Fatal(err)
		}
	}
	if s := readAll(t, p); s != "kept" {
		t.Errorf("the existing file holds %q", s)
	}
	if _, err := os.Stat(filepath.Join(dir, "never")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a discarded new file exists: %v", err)
	}
	noTemporaryLeft(t, dir)
}

// TestRefused: what os.Create refuses is refused: a directory, a
// read-only file (for a user other than root), a missing directory.
func TestRefused(t *testing.T) {
	dir := t.TempDir()
	if _, err := Create(dir, Atomic); !errors.Is(err, syscall.EISDIR) {
		t.Errorf("a directory: %v", err)
	}
	if _, err := Create(filepath.Join(dir, "no", "such"), Atomic); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing directory: %v", err)
	}
	ro := filepath.Join(dir, "ro")
	if err := os.WriteFile(ro, []byte("ro"), 0o444); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 { // root may write it
		if _, err := Create(ro, Atomic); !errors.Is(err, fs.ErrPermission) {
			t.Errorf("a read-only file: %v", err)
		}
	}
	noTemporaryLeft(t, dir)
}

// TestDirectoryNotWritable: an existing file that may be written in a
// directory where no file may be made (chattr +i: root too) is written in
// place, as os.Create writes it; a new name there is refused.
func TestDirectoryNotWritable(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	if err := os.WriteFile(p, []byte("old contents"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
		t.Skipf("chattr +i: %v %s", err, out)
	}
	defer exec.Command("chattr", "-i", dir).Run()
	write(t, p, Atomic, "new")
	if s := readAll(t, p); s != "new" {
		t.Errorf("the file holds %q", s)
	}
	if _, err := Create(filepath.Join(dir, "new"), Atomic); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("a new name in the directory: %v", err)
	}
}
