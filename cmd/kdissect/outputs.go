package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// inputFiles are the files a command reads: its captures (or produce's
// messages; "-" is standard input, stdin then), the key logs it reads its
// TLS secrets from.
type inputFiles struct {
	captures []string
	keyLogs  []string
	stdin    io.Reader // the command's standard input, read when a capture is "-"
}

// outputFlag is an output file and the flag that names it.
type outputFlag struct{ flag, path string }

// refuseOverwritingInputs returns a usage error (exit 2) when an output
// is one of the inputs: writing it would destroy the capture (or the
// keys, or the messages to produce) before they are read. Files are compared by device and
// inode (os.SameFile), so another name, a symbolic or a hard link is
// found too; standard input by its fstat, when it is a file and a capture
// is "-". Only an output that already exists can be an input; "-" and ""
// are never files here. It must run before any output is opened.
func refuseOverwritingInputs(in inputFiles, outs ...outputFlag) error {
	var stdin fs.FileInfo
	for _, c := range in.captures {
		if s, ok := in.stdin.(interface{ Stat() (fs.FileInfo, error) }); c == "-" && ok {
			stdin, _ = s.Stat()
		}
	}
	for _, o := range outs {
		if o.path == "" || o.path == "-" {
			continue
		}
		st, err := os.Stat(o.path)
		if err != nil {
			continue // not there yet: not an input either
		}
		if !st.Mode().IsRegular() {
			// A device or FIFO is written into, never truncated: /dev/null
			// as output and input loses nothing (tshark -r - -w /dev/null).
			continue
		}
		if stdin != nil && os.SameFile(st, stdin) {
			return fmt.Errorf("%s %s: that is the file on standard input (-); writing it would destroy the input before it is read", o.flag, o.path)
		}
		for _, c := range in.captures {
			if c == "-" {
				continue
			}
			if i, err := os.Stat(c); err == nil && os.SameFile(st, i) {
				return fmt.Errorf("%s %s: that is the input %s; writing it would destroy the input before it is read", o.flag, o.path, c)
			}
		}
		for _, k := range in.keyLogs {
			if i, err := os.Stat(k); err == nil && os.SameFile(st, i) {
				return fmt.Errorf("%s %s: that is the key log %s; writing it would destroy the TLS secrets before they are read", o.flag, o.path, k)
			}
		}
	}
	return nil
}
