package dissect

import (
	"encoding/binary"
	"errors"

	"github.com/kdissect/kdissect/codec"
)

// A frame start found by scanning (after a gap, at the start of a
// connection picked up mid-stream) rests on a few bytes, and Kafka bodies
// are full of patterns that read as a size and a header: small integers,
// and nested length-prefixed fields that end together with their frame
// (a Produce request ends with its records). The framer keeps such a
// frame tentative until it is confirmed, and the connection, which knows
// the conversation so far, supplies the evidence (frameSink):
//
//   - a response start must carry the CorrelationId of a request waiting,
//     that the broker had received when it sent the response
//     (pendingRequest);
//   - a request start must continue the connection's numbering: clients
//     number requests upward (nextRequest);
//   - a whole frame must decode as what its header says it is (bodyFits);
//   - the frame after it must be plausible too, and continue the
//     numbering (framer.followerOK).
//
// The damage tests (damage_test.go) cut real traffic anywhere and check
// that no frame is invented.

// nextRequest reports whether a request with CorrelationId id can follow
// the requests framed so far (frameSink): clients number the requests of
// a connection upward (a few skip some), so a frame start found by
// scanning with an older or far newer id is a pattern inside a body. A
// client that repeats one id (seen twice in a row) may repeat it again.
func (c *conn) nextRequest(id int32) bool {
	if c.nCorr == 0 {
		return true
	}
	last := c.lastCorr[1]
	if id == last {
		return c.nCorr == 2 && c.lastCorr[0] == last
	}
	return corrStep(last, id)
}

// responseNumbered reports whether a response with CorrelationId id can
// answer a request of the connection's numbering (frameSink): one waiting
// has it, or it is within numberedSlack of the last request framed, on
// either side (the request it answers may have been lost, or not be
// framed yet while the client's stream waits behind a hole of its own).
// known says a request was framed.
func (c *conn) responseNumbered(id int32) (ok, known bool) {
	if c.byCorr[id] > 0 {
		return true, true
	}
	if c.nCorr == 0 {
		return false, false
	}
	d := id - c.lastCorr[1] // wraps around as the ids do
	return d > -numberedSlack && d <= numberedSlack, true
}

// requestsHeld reports whether bytes of the client's stream wait behind a
// hole in reassembly (frameSink).
func (c *conn) requestsHeld() bool {
	return len(c.tcp[toBroker].queue) > 0
}

// bodyFits reports whether a frame decodes as what it says it is, as far
// as it was captured (frameSink): a request as its ApiKey and ApiVersion,
// a response as the response to the oldest waiting request with its
// CorrelationId. A frame the codec cannot judge (an ApiKey or version it
// does not know, a response to no request waiting, a raw SASL token)
// fits; so does one whose decoding stops at a hole.
func (c *conn) bodyFits(dir frameDir, b []byte, size int, holes []Hole) bool {
	var key, ver int16
	var hv int16
	if c.fr[dir] != nil && c.fr[dir].raw {
		return true
	}
	if dir == toBroker {
		if len(b) < reqHeaderMin {
			return false
		}
		key, ver = int16(binary.BigEndian.Uint16(b)), int16(binary.BigEndian.Uint16(b[2:]))
		hv = codec.RequestHeaderVersion(key, ver)
	} else {
		if len(b) < respHeaderMin {
			return false
		}
		id := int32(binary.BigEndian.Uint32(b))
		found := false
		for _, w := range c.pending {
			if w.sl.ex.CorrelationID == id {
				key, ver, found = w.sl.ex.APIKey, w.sl.ex.APIVersion, true
				break
			}
		}
		if !found {
			return true
		}
		hv = codec.ResponseHeaderVersion(key, ver)
	}
	api, ok := codec.LookupAPI(key)
	if !ok || !api.SupportsVersion(ver) {
		return true
	}
	r := (&Frame{Bytes: b, Size: int32(size), Holes: holes}).Reader(0)
	var body codec.Message
	if dir == toBroker {
		var h codec.RequestHeader
		h.ReadFrom(r, hv)
		body = api.NewRequest()
	} else {
		var h codec.ResponseHeader
		h.ReadFrom(r, hv)
		body = api.NewResponse()
	}
	body.ReadFrom(r, ver)
	// Bytes after the body are allowed: real clients send some (librdkafka's
	// ApiVersions v0 request carries 4); the decoder notes them.
	return fitsSoFar(r.Err())
}

// sameClient reports whether request frame b names the ClientId of the
// request framed before it on the connection (frameSink).
func (c *conn) sameClient(b []byte) bool {
	if !c.haveClient || len(b) < reqHeaderMin {
		return false
	}
	var ex Exchange
	if !parseRequestHeader(&ex, b) || ex.ClientID == nil {
		return false
	}
	return *ex.ClientID == c.lastClient
}

// pendingRequest reports whether a request waiting has CorrelationId id
// and could be answered by a response starting in packet at (frameSink).
func (c *conn) pendingRequest(id int32, at pktRef) bool {
	if c.waitingRequest(id, at) {
		return true
	}
	if c.byCorr[id] == 0 {
		return false
	}
	r := framed{f: &Frame{Packet: at.index}, first: at}
	for _, w := range c.pending {
		if w.sl.ex.CorrelationID == id && pairable(w, r) {
			return true
		}
	}
	return false
}

// waitingRequest reports whether the client's framer holds, whole, a
// request with CorrelationId id found by scanning after a hole, which
// waits for what follows it to confirm it (framer.waiting), and started
// at or before packet at. It is not pending yet, but will be: a response
// after a hole of its own is judged meanwhile (the packets of exchanges
// left out of a capture, two gaps in a row each way), and would be
// scanned past were only pending requests counted.
func (c *conn) waitingRequest(id int32, at pktRef) bool {
	fr := c.fr[toBroker]
	return fr != nil && fr.waiting() && len(fr.buf) >= 8 &&
		int32(binary.BigEndian.Uint32(fr.buf[4:8])) == id && fr.start.index <= at.index
}

// fitsSoFar says whether a decoding that ended with err fits what was
// captured: it decoded, or stopped where a hole hides what follows.
func fitsSoFar(err error) bool {
	return err == nil || errors.Is(err, codec.ErrNotCaptured)
}
