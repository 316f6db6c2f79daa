package dissect

import (
	"encoding/binary"
	"fmt"
)

// After a SaslHandshake v0 request that the broker answers with ErrorCode
// 0, the client and the broker exchange SASL tokens framed only by a 4-byte
// size, with no Kafka header (KIP-43), until authentication ends; Kafka
// requests follow. (From SaslHandshake v1 on, tokens travel inside
// SaslAuthenticate requests and need nothing special.) Read as Kafka, the
// tokens would be bogus requests ("key 97 v27753") and the broker's empty
// reply an implausible size 0.
//
// So from the SaslHandshake v0 request on, the client framer is raw (frames
// may be empty and need no header), and the broker framer too once the
// handshake succeeded. Each client token, with the broker's next frame,
// becomes a pseudo-exchange marked Exchange.SASLToken. The phase ends after
// the mechanism's round trips (PLAIN and OAUTHBEARER one, SCRAM two), or,
// for a mechanism whose count we do not know (GSSAPI), when a client frame
// reads as a Kafka request header again.

// saslPhase is the state of a connection between a SaslHandshake v0 and
// the end of authentication.
type saslPhase struct {
	mech      string
	confirmed bool    // the broker accepted the mechanism (ErrorCode 0)
	want      int     // round trips the mechanism takes; 0: unknown
	trips     int     // round trips seen
	tokens    []*slot // client tokens waiting for the broker's reply
}

// saslRoundTrips returns how many token round trips a mechanism takes when
// it succeeds; 0 when it varies or is unknown.
func saslRoundTrips(mech string) int {
	switch mech {
	case "PLAIN", "OAUTHBEARER":
		return 1
	case "SCRAM-SHA-256", "SCRAM-SHA-512":
		return 2
	}
	return 0
}

// beginSASL starts the phase at a SaslHandshake v0 request (frame req):
// the client's next frames may be raw tokens.
func (c *conn) beginSASL(req []byte) {
	if c.sasl != nil {
		c.endSASL()
	}
	mech := ""
	if len(req) >= reqHeaderMin+2 {
		off := reqHeaderMin + 2
		if n := int16(binary.BigEndian.Uint16(req[reqHeaderMin:])); n > 0 {
			off += int(n)
		}
		if off+2 <= len(req) {
			if n := int(int16(binary.BigEndian.Uint16(req[off:]))); n >= 0 && off+2+n <= len(req) {
				mech = string(req[off+2 : off+2+n])
			}
		}
	}
	c.sasl = &saslPhase{mech: mech, want: saslRoundTrips(mech)}
	if f := c.fr[toBroker]; f != nil {
		f.raw = true
	}
}

// saslHandshakeAnswered looks at the response to the SaslHandshake v0: on
// success the broker's tokens follow; otherwise there is no SASL phase.
func (c *conn) saslHandshakeAnswered(ex *Exchange) {
	if c.sasl == nil {
		return
	}
	b := ex.Response.Bytes
	if len(b) < respHeaderMin+2 || binary.BigEndian.Uint16(b[respHeaderMin:]) != 0 {
		c.endSASL()
		return
	}
	c.sasl.confirmed = true
	if f := c.fr[toClient]; f != nil {
		f.raw = true
	}
}

// saslClientToken takes a client frame of the SASL phase.
func (c *conn) saslClientToken(r framed) {
	ex := c.newExchange()
	ex.SASLToken = true
	ex.SASLMechanism = c.sasl.mech
	ex.CorrelationID = -1
	ex.Request = r.f
	ex.Notes = append(ex.Notes, r.notes...)
	c.sasl.tokens = append(c.sasl.tokens, c.s.ord.add(ex, orderKey{r.f.Packet, c.stream, r.pos}, c, false))
}

// saslBrokerToken takes a broker frame of the SASL phase: the reply to the
// oldest client token waiting.
func (c *conn) saslBrokerToken(r framed) {
	p := c.sasl
	if len(p.tokens) == 0 {
		ex := c.newExchange()
		ex.SASLToken = true
		ex.SASLMechanism = p.mech
		ex.CorrelationID = -1
		ex.Response = r.f
		ex.Notes = append(ex.Notes, r.notes...)
		ex.AddNote(NoteSASLToken, fmt.Sprintf("SASL %s token from the broker after SaslHandshake v0 (KIP-43), no client token captured before it: %d bytes; content redacted",
			mechName(p.mech), len(r.f.Bytes)))
		c.s.ord.add(ex, orderKey{r.f.Packet, c.stream, r.pos}, nil, true)
	} else {
		sl := p.tokens[0]
		p.tokens = p.tokens[1:]
		c.completeToken(sl, &r)
	}
	p.trips++
	if p.want > 0 && p.trips >= p.want {
		c.endSASL()
	}
}

// completeToken completes a client token's pseudo-exchange with the
// broker's reply, nil when none was captured.
func (c *conn) completeToken(sl *slot, reply *framed) {
	ex := sl.ex
	broker := "no broker reply captured"
	if reply != nil {
		ex.Response = reply.f
		ex.Notes = append(ex.Notes, reply.notes...)
		broker = fmt.Sprintf("broker %d bytes", len(reply.f.Bytes))
	}
	ex.AddNote(NoteSASLToken, fmt.Sprintf("SASL %s token after SaslHandshake v0 (KIP-43), no Kafka header: client %d bytes, %s; content redacted",
		mechName(ex.SASLMechanism), len(ex.Request.Bytes), broker))
	c.s.ord.complete(sl)
}

// endSASL ends the phase: tokens still waiting complete without a reply,
// and both directions are Kafka again.
func (c *conn) endSASL() {
	p := c.sasl
	if p == nil {
		return
	}
	c.sasl = nil
	for _, sl := range p.tokens {
		c.completeToken(sl, nil)
	}
	for _, f := range c.fr {
		if f != nil {
			f.raw = false
		}
	}
}

func mechName(m string) string {
	if m == "" {
		return "(unknown mechanism)"
	}
	return m
}
