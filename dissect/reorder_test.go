package dissect

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/kdissect/kdissect/internal/capedit"
)

// A response packet written before its request, first in the file and in
// time (a NIC stamping its queues apart): in each real capture, several
// exchanges (the first, second and last of the first connection, the
// first and last of another) are each moved (internal/capedit) just
// before their request, and before their connection's SYN. Every
// exchange of the clean capture comes out the same, paired; the moved
// one's response has its new timestamp, a negative latency and a note of
// it. Only exchanges whose request comes within the reorder window of the
// moved response are tried: beyond it, the response is not waited for.
func TestResponseWrittenBeforeRequest(t *testing.T) {
	for _, file := range realCaptures(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			pkts := loadCapture(t, file)
			orig := writeCapture(t, pkts)
			clean, err := readAll(t, New(Options{}), orig)
			if err != nil {
				t.Fatal(err)
			}
			tried := 0
			for _, k := range movedExchanges(clean) {
				moved := clean[k]
				rq, rs := int(moved.Request.Packet), int(moved.Response.Packet)
				for _, at := range []struct {
					name   string
					before int
				}{{"before-request", rq}, {"before-syn", firstPacketOf(pkts, moved)}} {
					if pkts[rq].ci.Timestamp.Sub(pkts[at.before].ci.Timestamp) >= DefaultReorderWindow/2 {
						continue // its request comes too late to be waited for
					}
					tried++
					name := fmt.Sprintf("stream%d-corr%d-%s", moved.Stream, moved.CorrelationID, at.name)
					t.Run(name, func(t *testing.T) {
						checkMovedResponse(t, pkts, orig, clean, moved, rs, at.before)
					})
				}
			}
			if tried == 0 {
				t.Skip("no exchange with a one-packet response whose request comes within the reorder window")
			}
		})
	}
}

// movedExchanges returns the indexes of the exchanges of clean whose
// response TestResponseWrittenBeforeRequest moves: paired, a response of
// one packet; the first, second and last of the first connection, the
// first and last of the next connection that has any.
func movedExchanges(clean []*Exchange) []int {
	byStream := map[int][]int{}
	var streams []int
	for i, e := range clean {
		if e.Request == nil || e.Response == nil || e.Response.LastPacket != e.Response.Packet || e.Response.Packet < e.Request.Packet {
			continue
		}
		if byStream[e.Stream] == nil {
			streams = append(streams, e.Stream)
		}
		byStream[e.Stream] = append(byStream[e.Stream], i)
	}
	slices.Sort(streams)
	var out []int
	for n, st := range streams[:min(len(streams), 2)] {
		ks := byStream[st]
		pick := []int{0, len(ks) - 1}
		if n == 0 {
			pick = []int{0, 1, len(ks) - 1}
		}
		for _, p := range pick {
			if p < len(ks) && !slices.Contains(out, ks[p]) {
				out = append(out, ks[p])
			}
		}
	}
	return out
}

// checkMovedResponse moves packet rs, moved's response, before packet
// before (earlier in time by a microsecond), and compares the exchanges
// with the clean capture's.
func checkMovedResponse(t *testing.T, pkts []capPacket, orig []byte, clean []*Exchange, moved *Exchange, rs, before int) {
	const early = time.Microsecond
	var buf bytes.Buffer
	res, err := capedit.Rewrite(&buf, bytes.NewReader(orig), capedit.Options{Moves: []capedit.Move{{Packet: rs, Before: before, Early: early}}})
	if err != nil || res.Moved != 1 {
		t.Fatalf("capedit: %v, %+v", err, res)
	}
	got, err := readAll(t, New(Options{}), buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	// The packets between the moved one's new place and its old one are
	// one further on.
	origOf := func(f *Frame) *Frame {
		if f == nil {
			return nil
		}
		g := *f
		for _, p := range []*int64{&g.Packet, &g.LastPacket} {
			switch i := int(*p); {
			case i == before:
				*p = int64(rs)
			case i > before && i <= rs:
				*p--
			}
		}
		return &g
	}
	wantCount(t, got, len(clean), "the clean capture's ")
	for i, c := range clean {
		e := got[i]
		want := *c
		if c == moved {
			resp := *c.Response
			resp.Time = pkts[before].ci.Timestamp.Add(-early)
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
}

// firstPacketOf returns the index of the first packet of ex's connection
// (-1: none).
func firstPacketOf(pkts []capPacket, ex *Exchange) int {
	return slices.IndexFunc(pkts, func(p capPacket) bool {
		return p.tcp && (p.src == ex.Client && p.dst == ex.Broker || p.src == ex.Broker && p.dst == ex.Client)
	})
}
