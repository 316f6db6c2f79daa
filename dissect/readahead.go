package dissect

import (
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// The captures are read on a goroutine of their own (readAhead), a few
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
	// pause says a Pipe capture may block after these packets: the
	// dissector is to make its output current (ReadOptions.Paused).
	pause bool
	err   error // after the last packet: why reading stopped (io.EOF at the end of the input)
}

type batchedPacket struct {
	end  int // end of the packet's bytes in data; it starts where the one before ends
	ci   gopacket.CaptureInfo
	link layers.LinkType
	src  int32  // its capture
	num  uint32 // its number there
	// comments are the packet's pcapng comments; nil for almost all.
	comments []string
}

// readAhead reads m on a new goroutine and hands over its packets in
// batches on the returned channel, the last batch with a non-nil err
// (io.EOF at the end of the input). The caller receives until that batch,
// or until it closes quit, and gives each batch back on free once done
// with its bytes. At most batchesAhead batches exist at once, so memory
// stays at about batchesAhead × batchBytes. Before a read from a Pipe
// capture, the batch so far is handed over at once, marked pause (an
// empty one too, when packets were handed over without a pause since the
// last one). The goroutine ends after sending the last batch, or, once
// quit is closed, when its read in progress returns.
func readAhead(m *mergeSource, quit <-chan struct{}) (full <-chan *packetBatch, free chan<- *packetBatch) {
	fullc := make(chan *packetBatch, batchesAhead) // holds every batch: a send never blocks
	freec := make(chan *packetBatch, batchesAhead)
	for range batchesAhead {
		freec <- &packetBatch{data: make([]byte, 0, batchBytes), pkts: make([]batchedPacket, 0, batchPackets)}
	}
	go func() {
		defer m.end()
		var b *packetBatch
		take := func() bool {
			select {
			case b = <-freec:
				b.data, b.pkts, b.pause, b.err = b.data[:0], b.pkts[:0], false, nil
				return true
			case <-quit:
				b = nil
				return false
			}
		}
		if !take() {
			return
		}
		paused := true // no packet handed over since the last pause
		m.beforeRead = func() bool {
			if b == nil {
				return false
			}
			if paused {
				return true
			}
			b.pause, paused = true, true
			fullc <- b
			return take()
		}
		for {
			for len(b.pkts) < batchPackets && (len(b.data) < batchBytes || len(b.pkts) == 0) {
				data, ci, link, src, num, err := m.next()
				if b == nil {
					return // given up while reading
				}
				if err != nil {
					b.err = err
					break
				}
				// next's bytes are only good until the next call: copy.
				b.data = append(b.data, data...)
				b.pkts = append(b.pkts, batchedPacket{end: len(b.data), ci: ci, link: link, src: src, num: num, comments: m.comments()})
				paused = false
			}
			fullc <- b
			if b.err != nil || !take() {
				return
			}
		}
	}()
	return fullc, freec
}
