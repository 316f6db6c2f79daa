package main

import (
	"context"
	"io"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/dissect/live"
)

// widener is live's filter widening (live.Widener) as the live command
// feeds it: the brokers each exchange names, then the session after each
// packet.
type widener struct{ w *live.Widener }

func newWidener(ctx context.Context, ports []uint16, warn io.Writer) *widener {
	return &widener{live.NewWidener(ctx, ports, defaultLiveFilter, warn)}
}

func (w *widener) named(ex *dissect.Exchange) {
	for _, b := range ex.NamedBrokers {
		w.w.Named(b.Host, b.Port)
	}
}

func (w *widener) apply(h *live.Handle, s *dissect.Session) { w.w.Apply(h, s.LearnBroker) }
