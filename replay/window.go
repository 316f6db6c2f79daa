package replay

import "fmt"

// Window bounds the read-ahead of a replay: the requests handed to Add
// and not yet done (answered, failed or given up). Add blocks while the
// next request does not fit, so that a replay's memory does not grow
// with the capture's length. A request larger than a bytes bound is
// still taken when nothing else is held (of the whole window, or of its
// connection). The zero value of each field takes its default.
type Window struct {
	// Requests is the most requests held at once; default
	// DefaultWindowRequests.
	Requests int
	// Bytes is the most bytes of captured frames held at once (the
	// request, and the captured response when replay reads it); a
	// decoded request takes a few times its frame. Default
	// DefaultWindowBytes.
	Bytes int64
	// ConnRequests is the most requests of one captured connection held
	// at once; default DefaultWindowConnRequests. It keeps one busy
	// connection from filling the window while another's requests wait.
	ConnRequests int
	// ConnBytes is the most bytes of one captured connection held at
	// once; default DefaultWindowConnBytes.
	ConnBytes int64
}

// Window defaults.
const (
	DefaultWindowRequests     = 4096
	DefaultWindowBytes        = 64 << 20
	DefaultWindowConnRequests = 512
	DefaultWindowConnBytes    = 16 << 20
)

// resolved returns w with every zero field set to its default.
func (w Window) resolved() Window {
	if w.Requests == 0 {
		w.Requests = DefaultWindowRequests
	}
	if w.Bytes == 0 {
		w.Bytes = DefaultWindowBytes
	}
	if w.ConnRequests == 0 {
		w.ConnRequests = DefaultWindowConnRequests
	}
	if w.ConnBytes == 0 {
		w.ConnBytes = DefaultWindowConnBytes
	}
	return w
}

func (w Window) check() error {
	if w.Requests < 0 || w.Bytes < 0 || w.ConnRequests < 0 || w.ConnBytes < 0 {
		return fmt.Errorf("%w: window %+v: negative bound", ErrBadOption, w)
	}
	return nil
}
