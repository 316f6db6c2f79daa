package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/kdissect/kdissect/internal/capgen"
)

// TestMain runs the command itself when asked to (KDISSECT_TEST_MAIN=1),
// so that a test can run it as a process, send it signals and see its
// exit status without building it; with KDISSECT_TEST_PEAK_RSS, it
// writes its peak RSS there (see runMeasured).
func TestMain(m *testing.M) {
	if os.Getenv("KDISSECT_TEST_MAIN") == "1" {
		code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
		if path := os.Getenv(peakRSSEnv); path != "" {
			writePeakRSS(path)
		}
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// startCommand starts the command as a process with args, its standard
// output into the file out, its standard input from stdin (nil: none).
func startCommand(t *testing.T, ctx context.Context, out *os.File, stdin *os.File, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	if signal.Ignored(os.Interrupt) {
		// Started in the background of a shell: the process would inherit
		// the ignored SIGINT; a handler here is reset to the default in it.
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, os.Interrupt)
		t.Cleanup(func() { signal.Stop(ch) })
	}
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), "KDISSECT_TEST_MAIN=1", "NO_COLOR=1")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Stdin = out, &stderr, stdin
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &stderr
}

// interruptWhenWritten sends SIGINT to cmd once out holds something and
// returns its exit status; it fails the test if cmd ended before.
func interruptWhenWritten(t *testing.T, cmd *exec.Cmd, out string) int {
	t.Helper()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for {
		if st, err := os.Stat(out); err == nil && st.Size() > 0 {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("the command ended before it was interrupted (%v): the capture is too small", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := <-exited
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	if ee != nil {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			t.Fatalf("killed by %v: the signal was not caught", ws.Signal())
		}
	}
	return cmd.ProcessState.ExitCode()
}

// Ctrl-C during read ends it with status 130, its output whole: every
// JSON line complete, the table closed. From a file, and from a pipe that
// waits for input, where reading would otherwise never end.
func TestReadInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 32 MB capture")
	}
	dir := t.TempDir()
	big := filepath.Join(dir, "big.pcap")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	res, err := capgen.Write(f, capgen.Config{Bytes: 32 << 20, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	small, err := os.ReadFile(pcaps + "kcat_produce_lz4.pcap")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		pipe bool // stdin a pipe that gets kcat_produce_lz4.pcap and stays open
	}{
		{"json from a file", []string{"read", "--format", "json", big}, false},
		// Into a file a table comes at the end, all at once, unless it is
		// fitted to a width, which streams it.
		{"summary from a file", []string{"read", "--width", "160", big}, false},
		{"json from a waiting pipe", []string{"read", "--format", "json", "-"}, true},
		{"summary from a waiting pipe", []string{"read", "-"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), hangCap)
			defer cancel()
			outPath := filepath.Join(t.TempDir(), "out")
			out, err := os.Create(outPath)
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			var stdin *os.File
			if c.pipe {
				r, w, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				defer w.Close() // open until the command ended: it waits for more
				if _, err := w.Write(small); err != nil {
					t.Fatal(err)
				}
				stdin = r
			}
			cmd, stderr := startCommand(t, ctx, out, stdin, c.args...)
			if stdin != nil {
				stdin.Close() // the command's now
			}
			if code := interruptWhenWritten(t, cmd, outPath); code != 130 {
				t.Fatalf("exit status %d, want 130; stderr %q", code, stderr)
			}
			if !strings.Contains(stderr.String(), "interrupt") {
				t.Errorf("stderr %q does not say it was interrupted", stderr)
			}
			data, err := os.ReadFile(outPath)
			if err != nil {
				t.Fatal(err)
			}
			if len(data) == 0 || data[len(data)-1] != '\n' {
				t.Fatalf("output of %d bytes does not end a line", len(data))
			}
			lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			if c.args[1] == "--format" {
				for i, l := range lines {
					if !json.Valid([]byte(l)) {
						t.Fatalf("line %d of %d is not JSON: %.200q", i+1, len(lines), l)
					}
				}
			} else {
				if !strings.HasPrefix(lines[0], "┌") || !strings.HasPrefix(lines[len(lines)-1], "└") {
					t.Fatalf("table not closed: %q ... %q", lines[0], lines[len(lines)-1])
				}
				for i, l := range lines {
					if utf8.RuneCountInString(l) != utf8.RuneCountInString(lines[0]) {
						t.Fatalf("line %d is cut: %q", i+1, l)
					}
				}
			}
			if !c.pipe && len(lines) >= res.Exchanges {
				t.Errorf("%d lines: every one of the %d exchanges, not stopped", len(lines), res.Exchanges)
			}
		})
	}
}
