package dissect

import (
	"encoding/binary"
	"fmt"
	"net/netip"
)

// framed is a frame as the framer handed it over.
type framed struct {
	f     *Frame
	notes []string
	pos   int64 // stream offset of its size prefix in its direction
}

// conn is one TCP connection to a broker: the frames of both directions,
// kept until the connection ends and then matched into exchanges.
//
// Matching waits for the end because reassembly delivers each direction on
// its own schedule: after a hole in the capture, one direction may be held
// back while the other flows, so a response can be framed before its
// request. Ordering both directions by the packet of each frame's first
// byte restores what the wire did.
type conn struct {
	stream         int
	client, broker netip.AddrPort
	s              *Session
	fr             [2]*framer // by frameDir
	reqs, resps    []framed
	// outstanding counts requests framed minus responses framed, by
	// CorrelationId: a resynchronising response stream accepts a frame
	// start whose CorrelationId is among them.
	outstanding map[int32]int
	done        bool
}

func (c *conn) framer(dir frameDir, midStream bool) *framer {
	if c.fr[dir] == nil {
		c.fr[dir] = newFramer(dir, c.s.d.maxFrame, c.s.d.opts.ValidRequest, c, midStream)
	}
	return c.fr[dir]
}

func (c *conn) frame(dir frameDir, f *Frame, notes []string, pos int64) {
	c.s.d.stats.Frames++
	if dir == toBroker {
		c.reqs = append(c.reqs, framed{f, notes, pos})
		if len(f.Bytes) >= reqHeaderMin {
			c.outstanding[int32(binary.BigEndian.Uint32(f.Bytes[4:8]))]++
		}
		return
	}
	c.resps = append(c.resps, framed{f, notes, pos})
	if len(f.Bytes) >= respHeaderMin {
		id := int32(binary.BigEndian.Uint32(f.Bytes))
		switch n := c.outstanding[id]; {
		case n > 1:
			c.outstanding[id] = n - 1
		case n == 1:
			delete(c.outstanding, id) // long connections use ever new ids
		}
	}
}

func (c *conn) pendingRequest(id int32) bool { return c.outstanding[id] > 0 }

func (c *conn) lost(dir frameDir, n int64, why string) {
	c.s.lost(fmt.Sprintf("stream %d %s (%v → %v): %d bytes not framed: %s", c.stream, dir, c.client, c.broker, n, why), n)
}

// finish ends the connection: partial frames become truncated frames, and
// requests and responses are matched into exchanges.
func (c *conn) finish() {
	if c.done {
		return
	}
	c.done = true
	for _, fr := range c.fr {
		if fr != nil {
			fr.finish()
		}
	}
	c.match()
	c.reqs, c.resps, c.outstanding, c.fr = nil, nil, nil, [2]*framer{}
}

// match pairs responses with requests by CorrelationId, walking both
// directions in capture order (the packet of each frame's first byte). A
// response completes the oldest request still waiting with its
// CorrelationId; one that matches none stands alone.
func (c *conn) match() {
	waiting := make(map[int32][]*Exchange)
	i, j := 0, 0
	for i < len(c.reqs) || j < len(c.resps) {
		if j == len(c.resps) || (i < len(c.reqs) && c.reqs[i].f.Packet <= c.resps[j].f.Packet) {
			r := c.reqs[i]
			i++
			ex := c.newExchange()
			ex.Request = r.f
			ex.Notes = append(ex.Notes, r.notes...)
			if !parseRequestHeader(ex, r.f.Bytes) {
				ex.CorrelationID = -1
				ex.AddNote(fmt.Sprintf("request of %d bytes is too short for a request header", len(r.f.Bytes)))
				c.s.add(ex, r.pos)
				continue
			}
			waiting[ex.CorrelationID] = append(waiting[ex.CorrelationID], ex)
			c.s.add(ex, r.pos)
			continue
		}
		r := c.resps[j]
		j++
		if len(r.f.Bytes) < respHeaderMin {
			ex := c.newExchange()
			ex.Response = r.f
			ex.CorrelationID = -1
			ex.Notes = append(ex.Notes, r.notes...)
			ex.AddNote(fmt.Sprintf("response of %d bytes is too short for a CorrelationId", len(r.f.Bytes)))
			c.s.add(ex, r.pos)
			continue
		}
		id := int32(binary.BigEndian.Uint32(r.f.Bytes))
		if q := waiting[id]; len(q) > 0 {
			ex := q[0]
			if len(q) == 1 {
				delete(waiting, id)
			} else {
				waiting[id] = q[1:]
			}
			ex.Response = r.f
			ex.Notes = append(ex.Notes, r.notes...)
			continue
		}
		ex := c.newExchange()
		ex.Response = r.f
		ex.CorrelationID = id
		ex.Notes = append(ex.Notes, r.notes...)
		ex.AddNote("response without a captured request")
		c.s.add(ex, r.pos)
	}
}

func (c *conn) newExchange() *Exchange {
	return &Exchange{Stream: c.stream, Client: c.client, Broker: c.broker, APIKey: -1, APIVersion: -1}
}

// parseRequestHeader reads ApiKey, ApiVersion, CorrelationId and ClientId
// from the start of a request frame. It reports false when b is too short
// for the fixed part. ClientId is read leniently: nil when it is null or
// does not fit.
func parseRequestHeader(ex *Exchange, b []byte) bool {
	if len(b) < reqHeaderMin {
		return false
	}
	ex.APIKey = int16(binary.BigEndian.Uint16(b[0:2]))
	ex.APIVersion = int16(binary.BigEndian.Uint16(b[2:4]))
	ex.CorrelationID = int32(binary.BigEndian.Uint32(b[4:8]))
	if hasClientID(ex.APIKey, ex.APIVersion) && len(b) >= reqHeaderMin+2 {
		n := int16(binary.BigEndian.Uint16(b[8:10]))
		if n >= 0 && reqHeaderMin+2+int(n) <= len(b) {
			s := string(b[reqHeaderMin+2 : reqHeaderMin+2+int(n)])
			ex.ClientID = &s
		}
	}
	return true
}
