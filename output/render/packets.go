package render

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// writePacketsJSON writes "request_packets" and "response_packets": the
// [first, last] frame numbers, from 1 as Wireshark numbers the frames of
// the capture file (of "file" when several were read), of the packets
// that carried the first and last byte of each side; null for a side not
// captured. A frame that crossed into the next file (Frame.LastFile) has
// its last number in that file. Then "packet_comments", when the pcapng packets that carried
// the exchange had comments: their texts in packet order.
func writePacketsJSON(w *codec.JSONWriter, ex *dissect.Exchange) {
	w.Key("request_packets")
	writeFramePackets(w, ex.Request)
	w.Key("response_packets")
	writeFramePackets(w, ex.Response)
	if len(ex.PacketComments) > 0 {
		w.Key("packet_comments")
		w.BeginArray()
		for _, c := range ex.PacketComments {
			w.Text(c)
		}
		w.EndArray()
	}
}

func writeFramePackets(w *codec.JSONWriter, f *dissect.Frame) {
	if f == nil {
		w.Null()
		return
	}
	w.BeginArray()
	w.Int(f.FilePacket + 1)
	w.Int(f.LastFilePacket + 1)
	w.EndArray()
}

// packetSpan says which packets carried a frame, numbered from 1 as
// Wireshark numbers them: "packet 11", or "packets 11-89" for a frame
// that several carried (with packets of other connections or the other
// direction in between, as in Wireshark's tcp.segments), followed by the
// frame's file where it is not the exchange's, file. A frame that ended
// in the next file of several says both: "packet 92 of A to packet 18 of B".
func packetSpan(f *dissect.Frame, file string) string {
	if f.LastFile != "" {
		return fmt.Sprintf("packet %d of %s to packet %d of %s", f.FilePacket+1, sanitize(f.File), f.LastFilePacket+1, sanitize(f.LastFile))
	}
	s := fmt.Sprintf("packet %d", f.FilePacket+1)
	if f.LastFilePacket != f.FilePacket {
		s = fmt.Sprintf("packets %d-%d", f.FilePacket+1, f.LastFilePacket+1)
	}
	if f.File != file {
		s += " of " + sanitize(f.File)
	}
	return s
}

// PacketComment is the comment -w puts on the first packet of an
// exchange's request and of its response, for Wireshark's frame.comment:
// "kdissect: Produce v9 corr 12 orders[0,2] NOT_LEADER_OR_FOLLOWER 41ms"
// (API and version, CorrelationId, topic-partitions, the distinct error
// names, latency; "no response" when none was captured). Text from the
// wire has its control characters escaped (\x1b), as in the table.
func PacketComment(ex *dissect.Exchange) string {
	var b strings.Builder
	b.WriteString("kdissect: ")
	b.WriteString(apiLabel(ex))
	if !ex.SASLToken {
		fmt.Fprintf(&b, " corr %d", ex.CorrelationID)
	}
	if dec := ex.Decoded; dec != nil {
		if len(dec.Topics) > 0 {
			// Topic names are the wire's: escaped as the views escape them,
			// or tshark -V would print them raw to the reader's terminal.
			b.WriteString(" " + sanitize(FormatTopics(dec.Topics)))
		}
		var seen []string
		for _, e := range dec.Errors {
			if name := codec.ErrorName(e.Code); !slices.Contains(seen, name) {
				seen = append(seen, name)
				b.WriteString(" " + name)
			}
		}
	}
	switch lat, ok := ex.Latency(); {
	case ok:
		b.WriteString(" " + formatLatency(lat))
	case ex.Response == nil:
		b.WriteString(" no response")
	}
	return b.String()
}
