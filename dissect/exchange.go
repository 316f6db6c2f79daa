// Package dissect turns packet captures into Kafka exchanges: capture file or
// interface → packets → link layer (gopacket's layers) → IPv4/IPv6 → TCP
// reassembly into bytes and holes (reassembly.go) → Kafka framing across
// the holes → request/response matching by CorrelationId → decoded bodies
// (package codec, around the holes).
package dissect

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/kdissect/kdissect/codec"
)

// Frame is one Kafka frame as it crossed the wire in one direction.
type Frame struct {
	// Bytes is the frame without its 4-byte size prefix: the header and body.
	// It may be shorter than Size when the capture lost the end of the frame.
	Bytes []byte
	// Size is the length the size prefix announced, in bytes.
	Size int32
	// Time is the capture time of the packet that carried the frame's first byte.
	Time time.Time
	// EndTime is the capture time of the packet that carried its last byte.
	EndTime time.Time
	// Packet is the 0-based index, in the capture, of the packet that carried
	// the frame's first byte: in the order packets were handed to the
	// Session. Exchanges are ordered by it.
	Packet int64
	// Oversized says the frame exceeded the size limit (Options.MaxFrameSize):
	// it was skipped by its length, only its first bytes are kept (for the
	// header), and its body is not decoded.
	Oversized bool
	// Holes lists, in offset order, the bytes of the frame the capture does
	// not hold: packets not captured, bytes beyond the snap length, the end
	// of a frame the capture or the connection ended inside. Their bytes in
	// Bytes are zero; a hole at the end reaches Size, past len(Bytes).
	// Empty for a frame captured whole.
	Holes []Hole

	// FilePacket is the 0-based number of that packet in its own capture
	// file, as Wireshark numbers the file's packets (from 1): Packet when
	// one capture is read whole; with several read as one capture, or a
	// capture filter, Packet counts the packets of the merged sequence
	// that were dissected.
	FilePacket int64
	// LastPacket and LastFilePacket are Packet and FilePacket of the packet
	// that carried the frame's last byte captured (the frame's first packet
	// when one carried it whole): with the first, the [first, last] frame
	// numbers Wireshark shows for the frame (request_packets and
	// response_packets in JSON).
	LastPacket, LastFilePacket int64
	// LastFile names the capture file of the last packet when it is not
	// File: a frame that crossed from one part of a ring buffer into the
	// next; LastFilePacket then numbers it in that file. Empty otherwise.
	LastFile string
	// File names the capture file of that packet (Capture.Name) when
	// ReadCaptures read several; empty otherwise.
	File string

	// capture is the index of that file among those ReadCaptures read
	// (modulo 2^16), for Exchange.File.
	capture, lastCapture uint16
}

// Hole is a run of a frame's bytes that the capture does not hold: its
// position and length are known (TCP sequence numbers, a packet's original
// length), its content is not.
type Hole struct {
	Offset int // from the start of Frame.Bytes (after the 4-byte size prefix)
	Length int // in bytes
	Cause  HoleCause
}

// End returns the offset after the hole's last byte.
func (h Hole) End() int { return h.Offset + h.Length }

// HoleCause says why bytes of a stream were not captured.
type HoleCause uint8

const (
	// HoleNotCaptured: TCP segments missing from the capture (the
	// capturing kernel dropped them, or they took another path); the TCP
	// sequence numbers around them say how many bytes they held.
	HoleNotCaptured HoleCause = iota
	// HoleSnapLength: the packet was captured, but only up to the snap
	// length; its original length says how many bytes were cut.
	HoleSnapLength
	// HoleCaptureEnded: the capture ended before the frame did.
	HoleCaptureEnded
	// HoleConnectionEnded: the connection ended (FIN, RST, idle flush)
	// before the frame did.
	HoleConnectionEnded

	numHoleCauses = iota
)

// String says the cause as the notes do.
func (c HoleCause) String() string {
	switch c {
	case HoleNotCaptured:
		return "packets not captured"
	case HoleSnapLength:
		return "beyond the snap length"
	case HoleCaptureEnded:
		return "the capture ended"
	case HoleConnectionEnded:
		return "the connection ended"
	}
	return fmt.Sprintf("HoleCause(%d)", uint8(c))
}

// HeadLen returns how many leading bytes of the frame were captured: up
// to its first hole.
func (f *Frame) HeadLen() int {
	if len(f.Holes) > 0 {
		return min(len(f.Bytes), f.Holes[0].Offset)
	}
	return len(f.Bytes)
}

// Captured reports whether the frame was captured whole.
func (f *Frame) Captured() bool { return len(f.Holes) == 0 && len(f.Bytes) == int(f.Size) }

// Reader returns a Reader of the frame's bytes from offset from on (after
// the size prefix): for a frame with holes, a gapped one
// (codec.NewGappedReader), which steps over the fields the capture lacks
// and marks them not captured.
func (f *Frame) Reader(from int) *codec.Reader {
	b := f.Bytes[min(from, len(f.Bytes)):]
	if f.Captured() {
		return codec.NewReader(b)
	}
	gaps := make([]codec.Gap, 0, len(f.Holes))
	for _, h := range f.Holes {
		if h.End() > from {
			gaps = append(gaps, codec.Gap{Start: max(h.Offset, from) - from, End: h.End() - from})
		}
	}
	return codec.NewGappedReader(b, int(f.Size)-from, gaps)
}

// Exchange is one Kafka request with its response, as seen on one
// connection. Either side may be missing: Request is nil for a response
// whose request was not captured; Response is nil for Produce with Acks=0,
// or when no response was captured.
type Exchange struct {
	// Stream is the connection number, 0-based, in order of first appearance.
	Stream int
	// Client and Broker are the two ends of the connection.
	Client, Broker netip.AddrPort

	Request  *Frame
	Response *Frame

	// Header fields. APIKey and APIVersion are -1 when unknown (a response
	// whose request was not captured).
	APIKey        int16
	APIVersion    int16
	CorrelationID int32
	ClientID      *string

	// NoResponse says why Response is nil although Request is not: a
	// Produce with Acks=0 expects none, or the response was lost, the
	// connection closed, the capture ended... The matcher notes the reason
	// (except for Acks=0). It is ResponseSeen when a response was matched
	// and on exchanges without a request.
	NoResponse NoResponseReason

	// NamedBrokers lists the brokers the response names (Metadata,
	// FindCoordinator, DescribeCluster: host and port as the broker
	// advertises them), in its order; nil for other APIs. The session
	// dissects the connections of those whose host is an IP address or
	// localhost from then on; a host name it cannot resolve from the
	// capture (Session.LearnBroker takes it resolved).
	NamedBrokers []BrokerName

	// SASLToken marks a pseudo-exchange of raw SASL tokens, sent without a
	// Kafka header after a SaslHandshake v0 request (KIP-43): Request is
	// the client's token, Response the broker's next frame (often empty:
	// Size 0); either is nil when not captured. APIKey, APIVersion and
	// CorrelationID are -1. The tokens carry credentials: show their bytes
	// only when asked to.
	SASLToken bool
	// SASLMechanism is the mechanism the SaslHandshake named (PLAIN,
	// SCRAM-SHA-256, GSSAPI...), on SASL token exchanges.
	SASLMechanism string

	// File names the capture file that carried the request's first byte
	// (the response's, without a request), as Capture.Name gives it, when
	// ReadCaptures read several; empty otherwise. Frame.File says it for
	// each side.
	File string

	// PacketComments holds the comments (pcapng opt_comment) of the input
	// packets that carried the exchange's frames, in packet order: those
	// of the request's connection and direction from its first packet to
	// its last, then the response's. ReadCaptures fills it; nil when none.
	PacketComments []string

	// TLS says what the connection's TLS handshake negotiated, for an
	// exchange decrypted from TLS (or, with TLS.Encrypted, the exchange
	// that stands for a connection not decrypted); nil for plaintext.
	TLS *TLSInfo

	// Decoded is filled by the decoding stage (see Decoder).
	Decoded *Decoded
	// prepared holds PrepareDecode's work until Decoder.Decode finishes it.
	prepared *prepared

	// Notes says what a user must know about this exchange: request missing,
	// truncated frame, unknown API key, gap in the stream, decode errors...
	// Each has its kind and severity, as Wireshark's expert infos do.
	Notes []Note
}

// BrokerName is a broker as a response names it.
type BrokerName struct {
	Host string
	Port int32
}

// NoResponseReason says why an exchange with a request has no response.
type NoResponseReason uint8

const (
	// ResponseSeen: a response was matched, or there is no request.
	ResponseSeen NoResponseReason = iota
	// NoResponseExpected: a Produce request with Acks=0, never answered.
	NoResponseExpected
	// ResponseLost: the broker answered a later request on the connection;
	// Kafka answers in request order, so this response was sent but not
	// captured.
	ResponseLost
	// ConnectionClosed: the connection closed (FIN or RST) first.
	ConnectionClosed
	// ConnectionIdle: the connection carried no packet for
	// Options.IdleTimeout of capture time and was flushed.
	ConnectionIdle
	// CaptureEnded: the capture ended first; the response may have come
	// after it.
	CaptureEnded
	// ResponseGaveUp: a limit (Options.MaxPendingRequests,
	// Options.MaxBufferedBytes) made the dissector stop waiting for it.
	ResponseGaveUp
	// ConnectionEvicted: more connections were open than
	// Options.MaxConnections, and this one made room for a new one
	// (Stats.ConnEvicted).
	ConnectionEvicted
)

// String returns the note the matcher adds for the reason.
func (r NoResponseReason) String() string {
	switch r {
	case ResponseSeen:
		return "response seen"
	case NoResponseExpected:
		return "no response expected (Produce with Acks=0)"
	case ResponseLost:
		return "response not captured: the broker answered a later request on this connection, and Kafka answers in order"
	case ConnectionClosed:
		return "connection closed before the response"
	case ConnectionIdle:
		return "connection idle: flushed before the response"
	case CaptureEnded:
		return "capture ended before the response"
	case ResponseGaveUp:
		return "stopped waiting for the response (a dissector limit was reached)"
	case ConnectionEvicted:
		return "connection evicted before the response: more connections open at once than the dissector keeps (MaxConnections)"
	}
	return fmt.Sprintf("NoResponseReason(%d)", uint8(r))
}

// Order returns the capture order key of the exchange: the packet index of
// the request's first byte, or of the response's when no request was seen.
func (e *Exchange) Order() int64 {
	if e.Request != nil {
		return e.Request.Packet
	}
	if e.Response != nil {
		return e.Response.Packet
	}
	return -1
}

// Latency returns response time minus request time and whether both were seen.
func (e *Exchange) Latency() (time.Duration, bool) {
	if e.Request == nil || e.Response == nil {
		return 0, false
	}
	return e.Response.Time.Sub(e.Request.Time), true
}

// AddNote appends a note of kind saying text.
func (e *Exchange) AddNote(kind NoteKind, text string) {
	e.Notes = append(e.Notes, NewNote(kind, text))
}
