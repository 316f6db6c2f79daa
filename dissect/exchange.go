// Package dissect turns packet captures into Kafka exchanges: capture file or
// interface → packets → link layer → IPv4/IPv6 → TCP reassembly (gopacket's
// reassembly package) → Kafka framing → request/response matching by
// CorrelationId → decoded bodies (package codec).
package dissect

import (
	"net/netip"
	"time"
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
	// the frame's first byte. Exchanges are ordered by it.
	Packet int64
	// Oversized says the frame exceeded the size limit (Options.MaxFrameSize):
	// it was skipped by its length, only its first bytes are kept (for the
	// header), and its body is not decoded.
	Oversized bool
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

	// Decoded is filled by the decoding stage (see Decoder).
	Decoded *Decoded

	// Notes says what a user must know about this exchange: request missing,
	// truncated frame, unknown API key, gap in the stream, decode errors...
	Notes []string
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

// AddNote appends a note.
func (e *Exchange) AddNote(s string) { e.Notes = append(e.Notes, s) }
