package main

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// These tests hold every command that writes a file (report -o, read -w,
// --format parquet -w, --parquet-records, man DIR) to the rules of
// internal/outfile: a device or FIFO is written into and stays what it
// was, a link the user names is followed, a link planted in man's DIR is
// not, modes are os.Create's or the existing file's, and an output that
// is an input is refused before anything is written.

const writersCapture = pcapsDir + "kcat_produce_gzip.pcap"

// writerCommands are the commands that write the file out, by name; dir
// takes the other files they write.
func writerCommands(dir, out string) map[string][]string {
	return map[string][]string{
		"report -o":         {"report", writersCapture, "-o", out},
		"read -w":           {"read", "-q", "-w", out, writersCapture},
		"parquet -w":        {"read", "--format", "parquet", "-w", out, writersCapture},
		"--parquet-records": {"read", "--format", "parquet", "-w", filepath.Join(dir, "ex.parquet"), "--parquet-records", out, writersCapture},
	}
}

// wantWritten runs writer name into a regular file and returns what it
// wrote there: what any other output should receive.
func wantWritten(t *testing.T, name string) []byte {
	t.Helper()
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if code, _, errs := runCLI(t, writerCommands(dir, plain)[name]...); code != 0 {
		t.Fatalf("%s into a regular file: exit %d: %s", name, code, errs)
	}
	b, err := os.ReadFile(plain)
	if err != nil || len(b) == 0 {
		t.Fatalf("%s into a regular file: %d bytes, %v", name, len(b), err)
	}
	return b
}

// fifoReader makes a FIFO at path and reads it on a goroutine; the
// function returned waits for what was read. When the FIFO was replaced
// (the bug) the reader is still blocked on the old one: a hard link kept
// to it lets the function open it for writing and end the read.
func fifoReader(t *testing.T, path string) func() []byte {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o640); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(t.TempDir(), "fifo")
	if err := os.Link(path, keep); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(path)
		if err != nil {
			got <- nil
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- b
	}()
	return func() []byte {
		// ENXIO when the reader is gone already: nothing to unblock.
		if fd, err := syscall.Open(keep, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			syscall.Close(fd)
		}
		return <-got
	}
}

// TestWritersIntoFIFO: each writer named a FIFO writes into it: the
// reader gets what a regular file gets, and the FIFO stays a FIFO.
func TestWritersIntoFIFO(t *testing.T) {
	for name := range writerCommands("", "") {
		t.Run(name, func(t *testing.T) {
			want := wantWritten(t, name)
			dir := t.TempDir()
			out := filepath.Join(dir, "fifo")
			read := fifoReader(t, out)
			code, _, errs := runCLI(t, writerCommands(dir, out)[name]...)
			got := read()
			if code != 0 {
				t.Errorf("exit %d: %s", code, errs)
			}
			if st, err := os.Lstat(out); err != nil || st.Mode().Type() != fs.ModeNamedPipe {
				t.Errorf("the FIFO became %v (%v)", st.Mode(), err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("the FIFO's reader got %d bytes, a regular file %d", len(got), len(want))
			}
			noPartLeft(t, dir)
		})
	}
}

// TestWritersIntoDevice: each writer named a character device (a null
// device, made in the test's directory) writes into it; the device
// stays, with its numbers and its mode.
func TestWritersIntoDevice(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mknod needs root")
	}
	for name := range writerCommands("", "") {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			dev := filepath.Join(dir, "null")
			if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
				t.Skipf("mknod: %v", err)
			}
			if err := os.Chmod(dev, 0o666); err != nil {
				t.Fatal(err)
			}
			before, _ := os.Lstat(dev)
			if code, _, errs := runCLI(t, writerCommands(dir, dev)[name]...); code != 0 {
				t.Errorf("exit %d: %s", code, errs)
			}
			after, err := os.Lstat(dev)
			if err != nil || after.Mode() != before.Mode() || after.Sys().(*syscall.Stat_t).Rdev != 1<<8|3 {
				t.Errorf("the device became %v (was %v): %v", after.Mode(), before.Mode(), err)
			}
			noPartLeft(t, dir)
		})
	}
}

// TestWritersThroughLinks: a symbolic link named as the output is
// followed (its target written, the link kept); a hard link's other name
// keeps the old contents (the name written gets a new file).
func TestWritersThroughLinks(t *testing.T) {
	for name := range writerCommands("", "") {
		t.Run(name, func(t *testing.T) {
			want := wantWritten(t, name)
			dir := t.TempDir()
			target := filepath.Join(dir, "target")
			link := filepath.Join(dir, "link")
			if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("target", link); err != nil {
				t.Fatal(err)
			}
			if code, _, errs := runCLI(t, writerCommands(dir, link)[name]...); code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if st, err := os.Lstat(link); err != nil || st.Mode().Type() != fs.ModeSymlink {
				t.Errorf("the link became %v (%v)", st.Mode(), err)
			}
			if got, _ := os.ReadFile(target); !bytes.Equal(got, want) {
				t.Errorf("the link's target holds %d bytes, want %d", len(got), len(want))
			}
			if st, _ := os.Stat(target); st.Mode() != 0o600 {
				t.Errorf("the target's mode became %v, was 0600", st.Mode())
			}

			other := filepath.Join(dir, "other")
			if err := os.Link(target, other); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
				t.Fatal(err)
			}
			if code, _, errs := runCLI(t, writerCommands(dir, target)[name]...); code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if got, _ := os.ReadFile(other); string(got) != "old" {
				t.Errorf("the hard link's other name holds %d bytes, want the old 3", len(got))
			}
			if got, _ := os.ReadFile(target); !bytes.Equal(got, want) {
				t.Errorf("the name written holds %d bytes, want %d", len(got), len(want))
			}
			noPartLeft(t, dir)
		})
	}
}

// TestWritersKeepModes: an existing output keeps its mode (report -o
// forced 0644); a new one is 0666 less the umask, here 077 in a child
// process (umask is the process's), so 0600.
func TestWritersKeepModes(t *testing.T) {
	for name := range writerCommands("", "") {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			if err := os.WriteFile(out, []byte("old"), 0o640); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(out, 0o640); err != nil {
				t.Fatal(err)
			}
			a := writerCommands(dir, out)[name]
			if code, _, errs := runCLI(t, a...); code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if st, _ := os.Stat(out); st.Mode() != 0o640 || st.Size() <= 3 {
				t.Errorf("existing 0640 file: %v, %d bytes", st.Mode(), st.Size())
			}
			if err := os.Remove(out); err != nil {
				t.Fatal(err)
			}
			runWithUmask(t, "077", a...)
			if st, err := os.Stat(out); err != nil || st.Mode() != 0o600 {
				t.Errorf("new file under umask 077: %v (%v), want 0600", st.Mode(), err)
			}
			noPartLeft(t, dir)
		})
	}
	t.Run("man", func(t *testing.T) {
		dir := t.TempDir()
		runWithUmask(t, "027", "man", dir)
		if st, err := os.Stat(filepath.Join(dir, "kdissect-read.1")); err != nil || st.Mode() != 0o640 {
			t.Errorf("man page under umask 027: %v (%v), want 0640", st.Mode(), err)
		}
	})
	// A key log written decrypts the traffic: its owner's only, whatever
	// the umask (opened before the client fails to connect).
	t.Run("--tls-keylog", func(t *testing.T) {
		keys := filepath.Join(t.TempDir(), "keys.log")
		out, _ := umaskCommand("000", "produce", "-b", "127.0.0.1:1", "-t", "x", "--timeout", "1s", "--tls-keylog", keys).CombinedOutput()
		if st, err := os.Stat(keys); err != nil || st.Mode() != 0o600 {
			t.Errorf("key log under umask 000: %v (%v), want 0600; %s", st.Mode(), err, out)
		}
	})
}

// runWithUmask runs the command as a process (TestMain) under umask mask
// and fails the test unless it exits 0.
func runWithUmask(t *testing.T, mask string, args ...string) {
	t.Helper()
	if out, err := umaskCommand(mask, args...).CombinedOutput(); err != nil {
		t.Fatalf("%q under umask %s: %v: %s", args, mask, err, out)
	}
}

// umaskCommand is the command as a process (TestMain) under umask mask.
func umaskCommand(mask string, args ...string) *exec.Cmd {
	cmd := exec.Command("sh", append([]string{"-c", "umask " + mask + ` && exec "$0" "$@"`, os.Args[0]}, args...)...)
	cmd.Env = append(os.Environ(), "KDISSECT_TEST_MAIN=1")
	return cmd
}

// TestManDirLinks: man DIR does not follow a link planted in DIR under a
// page's name, nor write into a FIFO there: the page replaces it, and
// what the link pointed to is left alone.
func TestManDirLinks(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "kdissect-read.1")
	if err := os.Symlink(victim, page); err != nil {
		t.Fatal(err)
	}
	// A reader, so that a writer into the FIFO (the bug) does not block.
	fifo := filepath.Join(dir, "kdissect-stats.1")
	read := fifoReader(t, fifo)
	code, _, errs := runCLI(t, "man", dir)
	read()
	if code != 0 {
		t.Fatalf("man: exit %d: %s", code, errs)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("man wrote through the link planted in DIR: the victim holds %.60q", b)
	}
	for _, p := range []string{page, fifo} {
		st, err := os.Lstat(p)
		if err != nil || !st.Mode().IsRegular() {
			t.Errorf("%s: %v (%v); want the page, a regular file", filepath.Base(p), st.Mode(), err)
			continue // a FIFO's read would block
		}
		if b, _ := os.ReadFile(p); !bytes.Contains(b, []byte(`.TH "KDISSECT"`)) {
			t.Errorf("%s holds %.40q, not the page", filepath.Base(p), b)
		}
	}
	noPartLeft(t, dir)
}

// noPartLeft fails when a temporary file of internal/outfile is left in dir.
func noPartLeft(t *testing.T, dir string) {
	t.Helper()
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.part")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
