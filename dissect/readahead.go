package dissect

import (
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// ReadCapture reads the file on a goroutine of its own (readAhead), a few
// batches of packets ahead of the dissector: reading (system calls, the
// copy out of the page cache, pcap record parsing) then overlaps
// reassembly and framing, which bound a whole `kdissect stats` run. The
// batches' sizes:
const (
	batchBytes   = 256 << 10 // packet bytes per batch, but a batch holds at least one packet
	batchPackets = 512       // packets per batch
	batchesAhead = 4         // batches read and not yet dissected, at most
)

// packetBatch is packets read ahead, their bytes back to back in data.
type packetBatch struct {
	data []byte
	pkts []batchedPacket
	err  error // after the last packet: why reading stopped (io.EOF at the end of the file)
}

type batchedPacket struct {
	end  int // end of the packet's bytes in data; it starts where the one before ends
	ci   gopacket.CaptureInfo
	link layers.LinkType
}

// readAhead reads cr on a new goroutine and hands over its packets in
// batches on the returned channel, the last batch with a non-nil err
// (io.EOF at the end of the input). The caller receives until that batch
// and gives each batch back on free once done with its bytes. At most
// batchesAhead batches exist at once, so memory stays at about
// batchesAhead × batchBytes. The goroutine ends after sending the last
// batch.
func readAhead(cr *captureReader) (full <-chan *packetBatch, free chan<- *packetBatch) {
	fullc := make(chan *packetBatch, batchesAhead)
	freec := make(chan *packetBatch, batchesAhead)
	for range batchesAhead {
		freec <- &packetBatch{data: make([]byte, 0, batchBytes), pkts: make([]batchedPacket, 0, batchPackets)}
	}
	go func() {
		for {
			b := <-freec
			b.data, b.pkts, b.err = b.data[:0], b.pkts[:0], nil
			for len(b.pkts) < batchPackets && (len(b.data) < batchBytes || len(b.pkts) == 0) {
				data, ci, link, err := cr.next()
				if err != nil {
					b.err = err
					break
				}
				// next's bytes are only good until the next call: copy.
				b.data = append(b.data, data...)
				b.pkts = append(b.pkts, batchedPacket{end: len(b.data), ci: ci, link: link})
			}
			fullc <- b
			if b.err != nil {
				return
			}
		}
	}()
	return fullc, freec
}
