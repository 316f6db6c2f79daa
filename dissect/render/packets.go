package render

import (
	"fmt"

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
