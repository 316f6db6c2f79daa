package dissect

import "fmt"

// Responses lost in holes of the broker's stream. Kafka answers the
// requests of a connection in order, so the bytes a hole took held the
// responses of the requests answered before the first response found
// after it, and the bytes lost before the broker's FIN the responses it
// sent last.

// lostBefore settles the requests waiting that Kafka answered before
// response r (CorrelationId id), which stands alone after bytes of the
// broker's stream were lost (its request was lost too): requests numbered
// before id that the broker had received when it sent r. Their responses
// were among the bytes lost.
func (c *conn) lostBefore(r framed, id int32) {
	if r.inSync {
		return
	}
	for len(c.pending) > 0 {
		w := c.pending[0]
		if w.unknown || !corrStep(w.sl.ex.CorrelationID, id) || !pairable(w, r) {
			return
		}
		c.unanswered(c.dequeue(0), ResponseLost)
	}
}

// closedWith returns why no response will come now that direction dir
// ended, lost bytes of it not captured after its last frame: when the
// broker's stream lost bytes before its FIN, responses were sent and lost
// (ResponseLost, see unansweredAtEnd); else the connection closed first.
func (c *conn) closedWith(dir frameDir, lost int64) NoResponseReason {
	if dir != toClient || lost <= 0 {
		return ConnectionClosed
	}
	if c.noMore == ResponseSeen {
		c.lostAtClose, c.closeSeq = lost, c.tcp[toClient].next
	}
	return ResponseLost
}

// unansweredAtEnd completes request w (its slot sl) once no response will
// come any more (noMore). When the broker's stream lost bytes before its
// FIN, they answered the request, unless the client had acknowledged
// every byte the broker sent when it sent the request: then the broker
// closed without answering it.
func (c *conn) unansweredAtEnd(w waiting, sl *slot) {
	if c.noMore != ResponseLost || c.lostAtClose <= 0 {
		c.unanswered(sl, c.noMore)
		return
	}
	if w.last.tcp && w.last.ackOK && seqDiff(c.closeSeq, w.last.ack) >= 0 {
		c.unanswered(sl, ConnectionClosed)
		return
	}
	c.unansweredWith(sl, ResponseLost, lostAtCloseNote(c.lostAtClose))
}

// lostAtCloseNote is the note of a request whose response was among the
// lost bytes of the broker's stream before its FIN.
func lostAtCloseNote(lost int64) string {
	return fmt.Sprintf("response not captured: %s of the broker's stream lost before the connection closed", bytesString(lost))
}
