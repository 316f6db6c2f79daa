package main

import (
	"fmt"
	"os"
)

// refuseOverwritingInput returns a usage error when an output file (flag
// names it) is one of the inputs: opening it for writing would destroy
// the capture before it was read. Paths are compared as files (os.SameFile:
// relative and absolute names, links), so only an output that already
// exists can be an input; "-" and "" are never files here.
func refuseOverwritingInput(flag, out string, inputs []string) error {
	if out == "" || out == "-" {
		return nil
	}
	o, err := os.Stat(out)
	if err != nil {
		return nil // not there yet: not an input either
	}
	for _, in := range inputs {
		if in == "-" {
			continue
		}
		if i, err := os.Stat(in); err == nil && os.SameFile(o, i) {
			return fmt.Errorf("%s %s: that is the input %s; writing it would destroy the capture before it is read", flag, out, in)
		}
	}
	return nil
}
