package live

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kdissect/kdissect/dissect/capfilter"
)

// setter records the filters set, or refuses them.
type setter struct {
	set    int
	last   string
	refuse error
}

func (s *setter) SetFilter(f *capfilter.Filter) error {
	if s.refuse != nil {
		return s.refuse
	}
	s.set++
	s.last = f.String()
	return nil
}

func portFilter(ports []uint16) string {
	s := make([]string, len(ports))
	for i, p := range ports {
		s[i] = fmt.Sprint(p)
	}
	return "tcp and port (" + strings.Join(s, " or ") + ")"
}

// The filter is widened once per new port, after the packet that named
// it, and not for a port it has or one out of range; a filter the
// capture refuses is reported.
func TestWidener(t *testing.T) {
	var warn strings.Builder
	w := NewWidener(t.Context(), []uint16{9092}, portFilter, &warn)
	var h setter
	noLearn := func(ap netip.AddrPort) { t.Errorf("learned %v: no host name was named", ap) }
	w.Named("10.0.0.1", 9093)
	w.Named("10.0.0.2", 9092)
	w.Named("10.0.0.3", 70000)
	w.Named("::1", 9094)
	if h.set != 0 {
		t.Fatal("widened before Apply")
	}
	w.Apply(&h, noLearn)
	want := `kdissect: a response named brokers on port [9093 9094]: capture filter now "tcp and port (9092 or 9093 or 9094)"` + "\n"
	if h.set != 1 || h.last != "tcp and port (9092 or 9093 or 9094)" || warn.String() != want {
		t.Errorf("set %d filters, the last %q, warned %q", h.set, h.last, warn.String())
	}
	w.Named("10.0.0.4", 9093)
	w.Apply(&h, noLearn)
	w.Apply(&h, noLearn)
	if h.set != 1 {
		t.Errorf("widened again for a port the filter has: %d", h.set)
	}
	warn.Reset()
	h.refuse = errors.New("no")
	w.Named("10.0.0.5", 9095)
	w.Apply(&h, noLearn)
	if want := "kdissect: brokers named on port [9095], but the capture filter could not be widened: no\n"; warn.String() != want {
		t.Errorf("refused: warned %q", warn.String())
	}
}

// A host name a response named is resolved on its own goroutine, and its
// addresses are handed to the session at a later Apply, with the port.
func TestWidenerResolves(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 || host == "localhost" {
		t.Skipf("the host's name %q does not resolve here: %v", host, err)
	}
	var warn strings.Builder
	w := NewWidener(ctx, []uint16{9092}, portFilter, &warn)
	w.Named(host, 9092)
	var learned []netip.AddrPort
	var h setter
	for len(learned) < len(addrs) && ctx.Err() == nil {
		w.Apply(&h, func(ap netip.AddrPort) { learned = append(learned, ap) })
		time.Sleep(time.Millisecond) // a hang guard is ctx; this only yields
	}
	for _, a := range addrs {
		if !slices.Contains(learned, netip.AddrPortFrom(a.Unmap(), 9092)) {
			t.Errorf("learned %v, want %v at 9092", learned, addrs)
		}
	}
	if h.set != 0 || warn.Len() != 0 {
		t.Errorf("a known port: %d filters set, warned %q", h.set, warn.String())
	}
}
