package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// interrupts catches SIGINT and SIGTERM for read, which then ends its
// input as -c does and finishes what it was writing, so that the output
// ends with a whole line (a whole table) rather than where the signal cut
// it. A second signal kills the process, as it would have without this.
type interrupts struct {
	ctx    context.Context // done on the signal, or at stop
	cancel context.CancelFunc
	ch     chan os.Signal
	sig    atomic.Value // the os.Signal caught
}

func catchInterrupts(parent context.Context) *interrupts {
	if parent == nil {
		parent = context.Background()
	}
	in := &interrupts{ch: make(chan os.Signal, 1)}
	in.ctx, in.cancel = context.WithCancel(parent)
	for _, s := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		// One ignored stays so (a job in the background of a shell without
		// job control ignores SIGINT: the terminal's Ctrl-C is not for it).
		if !signal.Ignored(s) {
			signal.Notify(in.ch, s)
		}
	}
	go func() {
		select {
		case s := <-in.ch:
			signal.Stop(in.ch) // the next one kills
			in.sig.Store(s)
			in.cancel()
		case <-in.ctx.Done():
		}
	}()
	return in
}

// caught returns the signal caught, nil if none was.
func (in *interrupts) caught() os.Signal {
	s, _ := in.sig.Load().(os.Signal)
	return s
}

// stop stops catching signals.
func (in *interrupts) stop() {
	signal.Stop(in.ch)
	in.cancel()
}

// errInterruptedRead ends a read from standard input waiting for input
// when a signal came.
var errInterruptedRead = errors.New("interrupted")

// reader returns r, whose reads end once a signal came or stop ran, even
// a read waiting on a pipe: ReadCaptures checks whether to stop only
// between reads. The bytes go through a goroutine, which is left waiting
// on r if r never returns (the process is ending then).
func (in *interrupts) reader(r io.Reader) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, r)
		pw.CloseWithError(err) // nil: io.EOF
	}()
	context.AfterFunc(in.ctx, func() { pr.CloseWithError(errInterruptedRead) })
	return pr
}

// interrupted is read's error after a signal: it exits with 128 plus the
// signal's number, as a shell reports a process the signal killed (130
// for SIGINT), so that a script sees the output is not all of it.
type interrupted struct{ sig os.Signal }

func (e interrupted) Error() string {
	return fmt.Sprintf("%v: stopped reading; the output ends with the last exchange written in full", e.sig)
}

func (e interrupted) ExitStatus() int {
	if s, ok := e.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 128 + int(syscall.SIGINT)
}
