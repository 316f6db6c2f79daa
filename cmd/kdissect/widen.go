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

// named takes the brokers a response names (dissect.Options.BrokersNamed,
// called as soon as the response is matched, before its exchange is
// emitted: the filter changes after the packet).
func (w *widener) named(brokers []dissect.BrokerName) {
	for _, b := range brokers {
		w.w.Named(b.Host, b.Port)
	}
}

func (w *widener) apply(h *live.Handle, s *dissect.Session) { w.w.Apply(h, s.LearnBroker) }
