package dissect

import (
	"bytes"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/kdissect/kdissect/internal/capedit"
)

// A response packet written before its request, first in the file and in
// time (a NIC stamping its queues apart): the first response of each
// real capture's first connection is moved (internal/capedit) just before
// its request, and before the connection's SYN. Every exchange of the
// clean capture comes out the same, paired; the moved one's response has
// its new timestamp, a negative latency and a note of it.
func TestResponseWrittenBeforeRequest(t *testing.T) {
	for _, file := range realCaptures(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			pkts := loadCapture(t, file)
			orig := writeCapture(t, pkts)
			clean, err := readAll(t, New(Options{}), orig)
			if err != nil {
				t.Fatal(err)
			}
			k := slices.IndexFunc(clean, func(e *Exchange) bool { return e.Stream == 0 && e.Request != nil && e.Response != nil })
			if k < 0 {
				t.Skip("no exchange on the first connection")
			}
			moved := clean[k]
			rq, rs := int(moved.Request.Packet), int(moved.Response.Packet)
			if moved.Response.LastPacket != moved.Response.Packet {
				t.Skip("response of several packets")
			}
			for _, at := range []struct {
				name   string
				before int
			}{{"before-request", rq}, {"before-syn", firstPacketOf(pkts, moved)}} {
				t.Run(at.name, func(t *testing.T) {
					const early = time.Microsecond
					var buf bytes.Buffer
					res, err := capedit.Rewrite(&buf, bytes.NewReader(orig), capedit.Options{Moves: []capedit.Move{{Packet: rs, Before: at.before, Early: early}}})
					if err != nil || res.Moved != 1 {
						t.Fatalf("capedit: %v, %+v", err, res)
					}
					got, err := readAll(t, New(Options{}), buf.Bytes())
					if err != nil {
						t.Fatal(err)
					}
					// The packets between the moved one's new place and its
					// old one are one further on.
					origOf := func(f *Frame) *Frame {
						if f == nil {
							return nil
						}
						g := *f
						for _, p := range []*int64{&g.Packet, &g.LastPacket} {
							switch i := int(*p); {
							case i == at.before:
								*p = int64(rs)
							case i > at.before && i <= rs:
								*p--
							}
						}
						return &g
					}
					if len(got) != len(clean) {
						for _, e := range got {
							t.Logf("got %s", describe(e))
						}
						t.Fatalf("%d exchanges, want the clean capture's %d", len(got), len(clean))
					}
					for i, c := range clean {
						e := got[i]
						want := *c
						if c == moved {
							resp := *c.Response
							resp.Time = pkts[at.before].ci.Timestamp.Add(-early)
							resp.EndTime = resp.Time
							want.Response = &resp
							lat, ok := e.Latency()
							if wantLat := resp.Time.Sub(c.Request.Time); !ok || lat != wantLat || lat >= 0 {
								t.Errorf("%s: latency %v, want %v (negative)", describe(e), lat, wantLat)
							}
							if len(e.Notes) != len(c.Notes)+1 || !hasNote(e, "before its request") {
								t.Errorf("%s: want the clean notes %q and a note of the negative latency", describe(e), c.Notes)
							} else {
								want.Notes = append(slices.Clone(c.Notes), e.Notes[len(e.Notes)-1])
							}
						}
						if !sameExchange(&want, e, origOf) || e.Stream != c.Stream {
							t.Errorf("exchange %d: %s, want %s", i, describe(e), describe(c))
						}
					}
				})
			}
		})
	}
}

// firstPacketOf returns the index of the first packet of ex's connection
// (-1: none).
func firstPacketOf(pkts []capPacket, ex *Exchange) int {
	return slices.IndexFunc(pkts, func(p capPacket) bool {
		return p.tcp && (p.src == ex.Client && p.dst == ex.Broker || p.src == ex.Broker && p.dst == ex.Client)
	})
}
