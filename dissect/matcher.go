package dissect

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/kdissect/kdissect/codec"
)

// framed is a frame as the framer handed it over.
type framed struct {
	f           *Frame
	notes       []Note
	pos         int64     // stream offset of its size prefix in its direction
	first, last pktRef    // packets of its first and last bytes
	since       time.Time // session clock when it was framed
	pkts        int64     // packets of its connection then (conn.pkts)
	rtx         rtxDiff   // retransmitted copies of its bytes that differed while it was collected
	// inSync says the frame follows the frame before it in its direction
	// with no byte of the stream between them lost: no frame was lost
	// before it.
	inSync bool
}

// waiting is a request waiting for its response.
type waiting struct {
	sl   *slot
	last pktRef // packet of the request's last byte
	// A request whose header the capture holds only in part has no
	// CorrelationId (unknown); corr holds the ncorr bytes of it that were
	// captured, and prevCorr the CorrelationId of the request framed
	// before it on the connection (when hasPrev).
	unknown  bool
	corr     [4]byte
	ncorr    int
	prevCorr int32
	hasPrev  bool
	// sound says the request was framed whole, with no byte of the
	// client's stream lost before it: a request the broker surely got.
	sound bool
	// overtaken is the session clock when a response to a later request
	// came first with no byte of the broker's stream lost before it: this
	// request's answer was not sent yet (zero: not overtaken).
	overtaken time.Time
}

// answeredLate notes a response that came after those of requests sent
// later.
const answeredLate = "answered out of order: after the responses to requests sent later on this connection (Kafka answers in order: something between client and broker reorders)"

// overtakenWait is how long a request overtaken by later responses waits
// for its own, in capture time: Kafka clients' default request.timeout.ms
// (30 s), after which a client gives up on it.
const overtakenWait = 30 * time.Second

// conn is one TCP connection to a broker. It matches online: each request
// becomes an exchange in the session's orderer as soon as it is framed, and
// is completed by its response, or as unanswered, as soon as that is known.
//
// Kafka answers the requests of one connection in the order they were
// sent. So a response completes the oldest request waiting with its
// CorrelationId, and every request older than that one will get no
// response any more: its response was lost in the capture. A response
// pairs only with a request the broker had received when it sent the
// response: its packet's TCP acknowledgment covers the request (pairable);
// capture order decides when that is not known.
//
// Reassembly delivers each direction on its own schedule: after a hole in
// the capture, one direction may be held back while the other flows, so a
// response can be framed before its request. A response that matches no
// waiting request therefore waits in early while its request may still be
// framed (requestMayCome); then, unmatched, it stands alone.
type conn struct {
	blocker // the connection's low-water mark, see computeLow
	s       *Session
	stream  int
	client  netip.AddrPort
	broker  netip.AddrPort

	key  flowKey
	fr   [2]*framer // by frameDir
	tcp  [2]tcpHalf // reassembly, by frameDir
	seen time.Time  // session clock at the connection's latest packet
	pkts int64      // packets of the connection so far

	pending []waiting        // requests waiting for a response, oldest first
	byCorr  map[int32]int    // how many of them have each CorrelationId
	early   []framed         // responses framed before their request could be ruled out
	sasl    *saslPhase       // raw SASL tokens are flowing (KIP-43)
	noMore  NoResponseReason // set once no response can come any more
	ended   [2]bool          // the direction ended (FIN or RST), by frameDir
	// lostAtClose is how many bytes of the broker's stream were lost
	// after its last frame, before its FIN at closeSeq (noMore is
	// ResponseLost).
	lostAtClose int64
	closeSeq    uint32
	// The CorrelationIds of the last two requests framed, and how many
	// were framed (up to 2): clients number requests upward.
	lastCorr [2]int32
	nCorr    int
	// The ClientId of the last request framed, when it had one.
	lastClient string
	haveClient bool
	rst        [2]bool // an RST was seen in the direction
	replaced   bool    // a new connection took the 4-tuple (Session.reused)
	overtook   bool    // a request waiting may be overtaken (expireOvertaken)
	done       bool
	dirty      bool // low and early need a look (Session.refresh)
	// tls is the TLS layer of a connection that opened with a
	// ClientHello; tlsChecked says its first bytes were looked at.
	tls        *tlsConn
	tlsChecked bool
	// The last frames of each direction handed over whole, for
	// retransmitted copies to be compared with (retransmit.go), by
	// frameDir; nextRecent is the entry the next one takes.
	recent     [2][recentFrames]recentFrame
	nextRecent [2]int
	// hold keeps the exchanges of the frames of each direction's latest
	// packet from being emitted until a copy of it could come, by
	// frameDir (retransmit.go).
	hold  [2]frameHold
	entry connEntry // what it showed, for the connection table (conntable.go)
}

func newKafkaConn(s *Session, stream int, client, broker netip.AddrPort) *conn {
	return &conn{
		blocker: blocker{low: noLow, idx: -1},
		s:       s, stream: stream, client: client, broker: broker,
		byCorr: make(map[int32]int),
	}
}

// is reports whether the connection runs between a and b.
func (c *conn) is(a, b netip.AddrPort) bool {
	return a == c.client && b == c.broker || a == c.broker && b == c.client
}

func (c *conn) framer(dir frameDir, midStream bool) *framer {
	if c.fr[dir] == nil {
		c.fr[dir] = newFramer(dir, c.s.d.maxFrame, c.s.d.opts.ValidRequest, c, midStream, c.s.d.opts.FramePool)
		if c.sasl != nil && (dir == toBroker || c.sasl.confirmed) {
			c.fr[dir].raw = true
		}
	}
	return c.fr[dir]
}

// touch asks the session to look at the connection after the current
// packet: its low-water mark may have moved, and early responses may be
// decidable.
func (c *conn) touch() {
	if !c.dirty && !c.done {
		c.dirty = true
		c.s.dirty = append(c.s.dirty, c)
	}
}

// frame takes a frame from one of the framers (frameSink).
func (c *conn) frame(dir frameDir, f *Frame, notes []Note, pos int64) {
	c.s.d.stats.Frames++
	c.touch()
	// The framer that calls still knows the packets of the frame's ends.
	fr := c.fr[dir]
	r := framed{f: f, notes: notes, pos: pos, first: fr.start, last: fr.last, since: c.s.clock, pkts: c.pkts, rtx: fr.rtx, inSync: !fr.resynced}
	if dir == toBroker {
		c.request(r)
		return
	}
	c.response(r)
}

func (c *conn) lost(dir frameDir, n int64, why string) {
	c.s.lost(fmt.Sprintf("stream %d %s (%v → %v): %d bytes not framed: %s", c.stream, dir, c.client, c.broker, n, why), n)
}

func (c *conn) newExchange() *Exchange {
	ex := &Exchange{Stream: c.stream, Client: c.client, Broker: c.broker, APIKey: -1, APIVersion: -1}
	if c.tls != nil {
		ex.TLS = c.tls.tlsInfo()
	}
	return ex
}

// request handles a frame from the client.
func (c *conn) request(r framed) {
	if c.sasl != nil {
		if !plausibleRequest(r.f.Bytes, c.s.d.opts.ValidRequest) {
			c.saslClientToken(r)
			return
		}
		// A Kafka request again: authentication is over.
		c.endSASL()
	}
	ex := c.newExchange()
	ex.Request = r.f
	ex.Notes = append(ex.Notes, r.notes...)
	key := orderKey{r.f.Packet, c.stream, r.pos}
	head := r.f.HeadLen()
	if head < reqHeaderMin && len(r.f.Holes) > 0 && r.f.Size >= reqHeaderMin {
		c.partialRequest(r, ex, key, head)
		return
	}
	if !parseRequestHeader(ex, r.f.Bytes[:head]) {
		ex.CorrelationID = -1
		ex.AddNote(NoteMalformed, fmt.Sprintf("request of %d bytes is too short for a request header", len(r.f.Bytes)))
		c.s.ord.add(ex, key, nil, true)
		return
	}
	c.lastCorr = [2]int32{c.lastCorr[1], ex.CorrelationID}
	c.nCorr = min(c.nCorr+1, 2)
	if ex.ClientID != nil {
		c.lastClient, c.haveClient = *ex.ClientID, true
	}
	if ex.APIKey == codec.ApiKeySaslHandshake && ex.APIVersion == 0 {
		c.beginSASL(r.f.Bytes[:head])
	}
	if ex.APIKey == codec.ApiKeyProduce {
		if acksZero(r.f.Bytes[:head]) {
			// Never answered: it must not wait, nor make a later response
			// look like its own.
			ex.NoResponse = NoResponseExpected
			c.keepRecent(toBroker, r, c.s.ord.add(ex, key, nil, true))
			return
		}
	}
	sl := c.s.ord.add(ex, key, c, false)
	c.keepRecent(toBroker, r, sl)
	c.wait(waiting{sl: sl, last: r.last, sound: r.inSync && r.f.Captured()})
}

// acksZero reports whether head, the first bytes of a request frame (its
// size prefix left out), are those of a Produce request with Acks=0. Acks
// is read only at an ApiVersion a request can have: at a negative one
// (Produce v-1) no layout says where Acks is, and the bytes there say
// nothing: such a request waits for its response as any request does.
func acksZero(head []byte) bool {
	acks, ok := codec.ProduceAcks(head)
	return ok && acks == 0 && int16(binary.BigEndian.Uint16(head[2:])) >= 0
}

// wait makes a request wait for its response.
func (c *conn) wait(w waiting) {
	if c.noMore != ResponseSeen && len(c.early) == 0 {
		// No response will be framed any more, and none is waiting.
		c.unansweredAtEnd(w, w.sl)
		return
	}
	if limit := c.s.d.lim.pendingRequests; len(c.pending) >= limit {
		c.s.problem(fmt.Sprintf("more than %d requests waiting for a response on one connection: stopped waiting for the oldest", limit))
		c.unanswered(c.dequeue(0), ResponseGaveUp)
	}
	c.pending = append(c.pending, w)
	if !w.unknown {
		c.byCorr[w.sl.ex.CorrelationID]++
	}
}

// partialRequest handles a request whose header the capture cut (a hole
// after head bytes): what of ApiKey and ApiVersion was captured is kept,
// and the CorrelationId is learnt from the response that answers it in
// its place, if one does (matchUnknown).
func (c *conn) partialRequest(r framed, ex *Exchange, key orderKey, head int) {
	b := r.f.Bytes[:head]
	ex.CorrelationID = -1
	if head >= 2 {
		ex.APIKey = int16(binary.BigEndian.Uint16(b))
	}
	if head >= 4 {
		ex.APIVersion = int16(binary.BigEndian.Uint16(b[2:]))
	}
	ex.AddNote(NoteTruncated, fmt.Sprintf("request header not captured whole: %d of its first %d bytes (ApiKey, ApiVersion, CorrelationId)", head, reqHeaderMin))
	w := waiting{sl: c.s.ord.add(ex, key, c, false), last: r.last, unknown: true, prevCorr: c.lastCorr[1], hasPrev: c.nCorr > 0}
	if head > 4 {
		w.ncorr = copy(w.corr[:], b[4:])
	}
	c.wait(w)
}

// response handles a frame from the broker.
func (c *conn) response(r framed) {
	if c.sasl != nil && c.sasl.confirmed {
		c.saslBrokerToken(r)
		return
	}
	if len(c.early) > 0 {
		// Responses are taken in their order on the wire.
		c.early = append(c.early, r)
		c.drainEarly()
		return
	}
	if !c.match(r) {
		c.early = append(c.early, r)
		if len(c.early) > c.s.d.lim.earlyResponses {
			c.orphan(c.early[0])
			c.early = c.early[1:]
		}
	}
}

// drainEarly settles the responses waiting for their request, in order,
// as far as possible.
func (c *conn) drainEarly() {
	i := 0
	for ; i < len(c.early); i++ {
		if !c.match(c.early[i]) {
			break
		}
	}
	c.early = c.early[i:]
	if len(c.early) == 0 {
		c.early = nil
	}
}

// match settles response r if it can: it completes the oldest waiting
// request with its CorrelationId (requests captured after r do not count),
// or stands alone when its request can no longer be framed before r. It
// reports false when r must wait for the client direction.
func (c *conn) match(r framed) bool {
	if head := r.f.HeadLen(); head < respHeaderMin && len(r.f.Holes) > 0 && r.f.Size >= respHeaderMin {
		return c.matchUncorrelated(r)
	}
	if len(r.f.Bytes) < respHeaderMin {
		ex := c.newExchange()
		ex.Response = r.f
		ex.CorrelationID = -1
		ex.Notes = append(ex.Notes, r.notes...)
		ex.AddNote(NoteMalformed, fmt.Sprintf("response of %d bytes is too short for a CorrelationId", len(r.f.Bytes)))
		c.s.ord.add(ex, orderKey{r.f.Packet, c.stream, r.pos}, nil, true)
		return true
	}
	id := int32(binary.BigEndian.Uint32(r.f.Bytes))
	c.expireOvertaken()
	if c.byCorr[id] > 0 {
		for i, w := range c.pending {
			if w.unknown || w.sl.ex.CorrelationID != id {
				continue
			}
			if !pairable(w, r) {
				break // sent after this response: not its request
			}
			c.overtake(i, r)
			c.pair(c.dequeue(0), r)
			return true
		}
	}
	if c.requestMayCome(r) {
		return false
	}
	if c.matchUnknown(r, id) {
		return true
	}
	c.lostBefore(r, id)
	c.orphan(r)
	return true
}

// overtake settles the requests waiting before the i-th, which response r
// answers, so that it is first. Kafka answers a connection's requests in
// order, so when bytes of the broker's stream were lost before r, their
// responses were among them (ResponseLost). When none was (r.inSync),
// their responses were not sent yet: something between client and broker
// reorders (a proxy), and they keep waiting for theirs, pairing by
// CorrelationId, for overtakenWait at most; all but those framed after
// bytes of the client's stream were lost, or with holes (what the framer
// made of them is less sure than the broker's order). Each reordering is
// noted.
func (c *conn) overtake(i int, r framed) {
	for j := 0; j < i; {
		if r.inSync && c.pending[j].sound {
			j++
			continue
		}
		c.unanswered(c.dequeue(j), ResponseLost)
		i--
	}
	if i == 0 {
		if w := c.pending[0]; !w.overtaken.IsZero() {
			w.sl.ex.AddNote(NoteOutOfOrder, answeredLate)
		}
		return
	}
	var ids []string
	for j := range i {
		w := &c.pending[j]
		if w.overtaken.IsZero() {
			w.overtaken, c.overtook = c.s.clock, true
		}
		if len(ids) < 4 {
			ids = append(ids, strconv.Itoa(int(w.sl.ex.CorrelationID)))
		}
	}
	if i > len(ids) {
		ids = append(ids, "...")
	}
	w := c.pending[i]
	earlier := fmt.Sprintf("%d %s sent earlier on this connection (CorrelationId %s)", i, plural(i, "request", "requests"), strings.Join(ids, ", "))
	if !w.overtaken.IsZero() {
		w.sl.ex.AddNote(NoteOutOfOrder, "answered out of order: after the responses to requests sent later, and before those of "+earlier+" (Kafka answers in order: something between client and broker reorders)")
	} else {
		w.sl.ex.AddNote(NoteOutOfOrder, "answered out of order: before the responses to "+earlier+", with no byte of the broker's stream lost (Kafka answers in order: something between client and broker reorders)")
	}
	// Move it to the front, keeping the others in order.
	copy(c.pending[1:i+1], c.pending[:i])
	c.pending[0] = w
}

// expireOvertaken gives up the requests overtaken longer than
// overtakenWait ago.
func (c *conn) expireOvertaken() {
	if !c.overtook {
		return // the usual case: no walk over the requests waiting
	}
	c.overtook = false
	for i := 0; i < len(c.pending); {
		w := c.pending[i]
		if w.overtaken.IsZero() || c.s.clock.Sub(w.overtaken) < overtakenWait {
			c.overtook = c.overtook || !w.overtaken.IsZero()
			i++
			continue
		}
		sl := c.dequeue(i)
		sl.ex.NoResponse = ResponseLost
		sl.ex.AddNote(NoteNoResponse, fmt.Sprintf("no response within %v of capture time after the broker answered requests sent later on this connection", overtakenWait))
		c.s.ord.complete(sl)
	}
}

// matchUnknown pairs response r (CorrelationId id) with a request waiting
// whose CorrelationId was not captured, when the order of the connection
// says it is the one r answers: Kafka answers a connection's requests in
// order and clients number them upward, so r answers the first such
// request after the requests numbered below id (whose responses were
// lost), before any numbered above it, numbered after the request framed
// before it, and agreeing with what of its CorrelationId was captured.
func (c *conn) matchUnknown(r framed, id int32) bool {
	for i, w := range c.pending {
		if !w.unknown {
			if !corrStep(w.sl.ex.CorrelationID, id) {
				return false // r answers a request before this one
			}
			continue
		}
		var want [4]byte
		binary.BigEndian.PutUint32(want[:], uint32(id))
		if !pairable(w, r) || w.hasPrev && !corrStep(w.prevCorr, id) || !bytes.Equal(w.corr[:w.ncorr], want[:w.ncorr]) {
			return false
		}
		for _, n := range c.pending[i+1:] {
			if !n.unknown {
				if !corrStep(id, n.sl.ex.CorrelationID) {
					return false
				}
				break
			}
		}
		for range i {
			c.unanswered(c.dequeue(0), ResponseLost)
		}
		sl := c.dequeue(0)
		sl.ex.CorrelationID = id
		sl.ex.AddNote(NoteCorrelationGuess, "CorrelationId taken from the response: it answers this request in its place (Kafka answers a connection's requests in order)")
		c.pair(sl, r)
		return true
	}
	return false
}

// matchUncorrelated settles a response whose CorrelationId was not
// captured: when no frame of the broker's stream was lost before it, it
// answers the oldest request waiting (Kafka answers in order); else it
// stands alone.
func (c *conn) matchUncorrelated(r framed) bool {
	if len(c.pending) > 0 && r.inSync && pairable(c.pending[0], r) {
		sl := c.dequeue(0)
		sl.ex.AddNote(NoteCorrelationGuess, "response CorrelationId not captured: it answers the oldest request waiting (Kafka answers a connection's requests in order)")
		c.pair(sl, r)
		return true
	}
	if c.requestMayCome(r) {
		return false
	}
	ex := c.newExchange()
	ex.Response = r.f
	ex.CorrelationID = -1
	ex.Notes = append(ex.Notes, r.notes...)
	ex.AddNote(NoteNoRequest, "response without a captured request (its CorrelationId was not captured)")
	c.s.ord.add(ex, orderKey{r.f.Packet, c.stream, r.pos}, nil, true)
	return true
}

// pair completes the exchange of a request dequeued with response r.
func (c *conn) pair(sl *slot, r framed) {
	ex := sl.ex
	ex.Response = r.f
	ex.Notes = append(ex.Notes, r.notes...)
	if lat, _ := ex.Latency(); lat < 0 {
		ex.AddNote(NoteNegativeLatency, fmt.Sprintf("response captured %v before its request (its timestamp is earlier: two capture points, a clock step, or a NIC stamping queues apart): the latency is negative", -lat))
	}
	c.answered(ex) // before it can be emitted: what it teaches travels with it
	c.s.ord.complete(sl)
	c.keepRecent(toClient, r, sl) // complete: held for a copy of r
}

// pairable reports whether response r can answer request w: the broker
// sent r after it received the whole of w. The TCP acknowledgment of r's
// first packet says so (it reaches into the packet of w's last byte);
// without it, capture order must: w's first byte captured before r's.
func pairable(w waiting, r framed) bool {
	if w.last.tcp && r.first.tcp && r.first.ackOK {
		return seqDiff(w.last.seq, r.first.ack) > 0
	}
	return w.sl.ex.Request.Packet <= r.f.Packet
}

// requestMayCome reports whether the request response r answers may still
// be framed: bytes of the client direction captured before r are not
// framed yet (a partial frame, bytes reassembly holds behind a hole), or
// r acknowledges client bytes not delivered yet (the capture wrote them
// after r), or no packet of the client direction came yet (the capture
// wrote r before the client's SYN: stamped early, or NIC queues stamped
// apart). A response waits at most Options.ReorderWindow of capture time;
// for a client direction not begun, also at most unbegunPackets packets
// of the connection, so that a capture of the broker's side alone holds
// each response that long only.
func (c *conn) requestMayCome(r framed) bool {
	if c.clientLow() < r.f.Packet {
		return true // bounded: holes are given up, frames complete or wait a window at most
	}
	h := &c.tcp[toBroker]
	if !r.first.ackOK || h.closed || c.ended[toBroker] || c.s.clock.Sub(r.since) >= c.s.d.lim.window {
		return false
	}
	if !h.started {
		return c.pkts-r.pkts < unbegunPackets
	}
	return seqDiff(h.next, r.first.ack) > 0
}

// unbegunPackets is how many packets of its connection a response waits
// for the first packet of the client direction: a handshake and a request
// take a few, reordered by a few more.
const unbegunPackets = 16

// orphan emits a response whose request was not captured.
func (c *conn) orphan(r framed) {
	ex := c.newExchange()
	ex.Response = r.f
	if len(r.f.Bytes) >= respHeaderMin {
		ex.CorrelationID = int32(binary.BigEndian.Uint32(r.f.Bytes))
	} else {
		ex.CorrelationID = -1
	}
	ex.Notes = append(ex.Notes, r.notes...)
	ex.AddNote(NoteNoRequest, "response without a captured request")
	c.keepRecent(toClient, r, c.s.ord.add(ex, orderKey{r.f.Packet, c.stream, r.pos}, nil, true))
}

// answered looks into a complete exchange for what the connection or the
// session must learn from it: the end of a SaslHandshake, brokers.
func (c *conn) answered(ex *Exchange) {
	switch ex.APIKey {
	case codec.ApiKeySaslHandshake:
		if ex.APIVersion == 0 {
			c.saslHandshakeAnswered(ex)
		}
	case codec.ApiKeyMetadata, codec.ApiKeyFindCoordinator, codec.ApiKeyDescribeCluster:
		c.s.learnFrom(ex)
	}
}

// dequeue removes the i-th waiting request.
func (c *conn) dequeue(i int) *slot {
	sl, unknown := c.pending[i].sl, c.pending[i].unknown
	copy(c.pending[i:], c.pending[i+1:])
	c.pending[len(c.pending)-1] = waiting{}
	c.pending = c.pending[:len(c.pending)-1]
	if !unknown {
		id := sl.ex.CorrelationID
		if n := c.byCorr[id]; n > 1 {
			c.byCorr[id] = n - 1
		} else {
			delete(c.byCorr, id) // long connections use ever new ids
		}
	}
	return sl
}

// unanswered completes a request that will get no response, with a note
// saying why.
func (c *conn) unanswered(sl *slot, why NoResponseReason) {
	c.unansweredWith(sl, why, c.reasonNote(why))
}

// unansweredWith is unanswered with the note saying why.
func (c *conn) unansweredWith(sl *slot, why NoResponseReason, reason string) {
	ex := sl.ex
	ex.NoResponse = why
	ex.AddNote(NoteNoResponse, reason)
	if c.replaced {
		ex.AddNote(NoteNoResponse, "a new connection on the same ports (a SYN with a new initial sequence number) replaced this one")
	}
	c.s.ord.complete(sl)
}

func (c *conn) reasonNote(why NoResponseReason) string {
	switch why {
	case ConnectionIdle:
		return fmt.Sprintf("connection idle for %v of capture time: flushed before the response", c.s.d.lim.idle)
	case ResponseGaveUp:
		return fmt.Sprintf("stopped waiting for the response: more than %d requests were waiting on this connection", c.s.d.lim.pendingRequests)
	}
	return why.String()
}

// giveUp stops waiting for the response of a held exchange (the orderer's
// buffer limit was reached).
func (c *conn) giveUp(sl *slot) {
	for i, p := range c.pending {
		if p.sl == sl {
			c.dequeue(i)
			c.s.problem(fmt.Sprintf("more than %s of exchanges held waiting for earlier responses: stopped waiting", sizeString(int(c.s.d.lim.bufferedBytes))))
			ex := sl.ex
			ex.NoResponse = ResponseGaveUp
			ex.AddNote(NoteNoResponse, fmt.Sprintf("stopped waiting for the response: more than %s of later exchanges were held behind it", sizeString(int(c.s.d.lim.bufferedBytes))))
			c.s.ord.complete(sl)
			return
		}
	}
	if c.sasl != nil {
		for i, p := range c.sasl.tokens {
			if p == sl {
				c.sasl.tokens = append(c.sasl.tokens[:i], c.sasl.tokens[i+1:]...)
				c.completeToken(sl, nil)
				return
			}
		}
	}
	c.s.ord.complete(sl) // not ours any more: nothing to wait for
}

// clientLow is the smallest packet index at which a request may still be
// framed: in the client framer's partial frame, or in bytes reassembly
// holds behind a hole in the client direction. noLow when none.
func (c *conn) clientLow() int64 {
	low := c.tcp[toBroker].minQueued()
	if f := c.fr[toBroker]; f != nil {
		if m, ok := f.lowMark(); ok {
			low = min(low, m)
		}
	}
	return low
}

// computeLow returns the smallest order key an exchange this connection
// has not handed to the orderer yet may have: the packet of a byte that
// may still begin a frame, in either direction, or of a response waiting
// for its request; or the order key of an exchange it holds for a
// retransmitted copy (conn.hold).
func (c *conn) computeLow() int64 {
	if c.done {
		return noLow
	}
	low := min(c.clientLow(), c.tcp[toClient].minQueued())
	if f := c.fr[toClient]; f != nil {
		if m, ok := f.lowMark(); ok {
			low = min(low, m)
		}
	}
	for _, r := range c.early {
		low = min(low, r.f.Packet)
	}
	return min(low, c.holdLow())
}

// directionEnded notes that a direction ended (its FIN or RST was
// reassembled). Once the broker's side ended, or the client reset the
// connection, no response will be framed any more: requests waiting
// complete as soon as no response framed early may still be theirs,
// rather than when the connection is flushed.
func (c *conn) directionEnded(dir frameDir) {
	c.ended[dir] = true
	var lost int64
	if f := c.fr[dir]; f != nil {
		lost = f.finish(HoleConnectionEnded)
	}
	c.touch()
	if dir == toClient || c.rst[toBroker] {
		c.drainEarly()
		c.stopWaiting(c.closedWith(dir, lost))
	}
}

// stopWaiting says no response will be framed any more: requests waiting
// complete unanswered, once the responses framed early are settled
// (settleEarly).
func (c *conn) stopWaiting(why NoResponseReason) {
	if c.noMore == ResponseSeen {
		c.noMore = why
	}
	c.settleEarly()
}

// settleEarly settles the responses framed early, and when none is left
// and no response will come, completes the requests waiting.
func (c *conn) settleEarly() {
	c.drainEarly()
	if c.noMore == ResponseSeen || len(c.early) > 0 {
		return
	}
	for len(c.pending) > 0 {
		w := c.pending[0]
		c.unansweredAtEnd(w, c.dequeue(0))
	}
	if c.sasl != nil {
		c.endSASL()
	}
}

// finish ends the connection: partial frames become truncated frames,
// responses still waiting for their request stand alone, and requests still
// waiting for a response complete with why.
func (c *conn) finish(why NoResponseReason) {
	if c.done {
		return
	}
	if c.ended[toClient] || c.ended[toBroker] {
		why = ConnectionClosed
	}
	cause := HoleConnectionEnded
	if why == CaptureEnded {
		cause = HoleCaptureEnded
	}
	if c.tls != nil {
		c.tls.finish()
	}
	for _, fr := range c.fr {
		if fr != nil {
			fr.finish(cause)
		}
	}
	for d := range c.tcp {
		h := &c.tcp[d]
		for i := range h.queue {
			c.s.queued -= len(h.queue[i].data)
		}
		for i := range h.held {
			c.s.queued -= len(h.held[i].data) // cannot happen: complete releases them
		}
		h.queue, h.held, h.queued, h.closed = nil, nil, 0, true
	}
	c.drainEarly() // with nothing held, every early response settles
	for _, r := range c.early {
		c.orphan(r) // cannot happen; for safety
	}
	c.early = nil
	c.stopWaiting(why)
	c.done = true
	c.fr = [2]*framer{}
	c.byCorr = nil
	c.s.connDone(c)
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

// plausibleRequest reports whether a frame (without its size prefix) reads
// as a Kafka request header: a known ApiKey and ApiVersion, a non-negative
// CorrelationId and a ClientId that fits.
func plausibleRequest(b []byte, valid func(int16, int16) bool) bool {
	return len(b) >= reqHeaderMin && int32(binary.BigEndian.Uint32(b[4:8])) >= 0 &&
		judgeRequestHeader(b, len(b), valid) == plausible
}

// plural returns one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
