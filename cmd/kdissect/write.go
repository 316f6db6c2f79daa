package main

import (
	"fmt"
	"path/filepath"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/internal/outfile"
	"github.com/kdissect/kdissect/output"
	"github.com/kdissect/kdissect/output/pcapout"
	"github.com/kdissect/kdissect/output/render"
)

// writeUsage is the help of -w on read and live.
const writeUsage = "also write the packets of the exchanges shown as pcapng, each request and response commented (frame.comment in Wireshark); without exchange filters every packet; with --format parquet, the Parquet file (read; - for standard output) or directory (live) instead"

// packetHook is dissect.ReadOptions.Packet.
type packetHook = func(n int64, link layers.LinkType, data []byte, ci gopacket.CaptureInfo, comments []string)

// packetFile is -w: the pcapng file of the packets of the exchanges that
// passed the filters (output/pcapout), with the exchange's comment on the
// first packet of its request and of its response. Without exchange
// filters every packet read is written (the exchanges add their
// comments): what tshark -w writes, commented.
type packetFile struct {
	path string
	f    *outfile.File
	w    *pcapout.Writer
	n    int64 // packets handed over (live numbers them as the Session does)
}

// openPacketFile opens -w path by how (internal/outfile: read's file is
// renamed into place once complete, live's written as it grows, as
// tcpdump's); all says no exchange filter is set (-Y is one). nil, nil
// without -w.
func openPacketFile(path string, how outfile.How, all bool) (*packetFile, error) {
	if path == "" {
		return nil, nil
	}
	if path == "-" {
		return nil, fmt.Errorf("-w -: standard output carries the exchanges; name a file")
	}
	// --format parquet -w FILE writes rows, not packets: read and live
	// hand -w to the Parquet writer then, and path is empty here.
	f, err := outfile.Create(path, how)
	if err != nil {
		return nil, inputError{err}
	}
	// The spool sits beside the output: the user chose that disk for a
	// capture's size.
	w, err := pcapout.New(f, filepath.Dir(path), all)
	if err != nil {
		f.Close()
		return nil, inputError{err}
	}
	return &packetFile{path: path, f: f, w: w}, nil
}

// packet is the ReadOptions.Packet hook.
func (p *packetFile) packet(n int64, link layers.LinkType, data []byte, ci gopacket.CaptureInfo, comments []string) {
	_ = p.w.Packet(n, link, data, ci, comments) // the error returns from close
}

// livePacket takes the next packet live hands to its Session.
func (p *packetFile) livePacket(link layers.LinkType, data []byte, ci gopacket.CaptureInfo) error {
	err := p.w.Packet(p.n, link, data, ci, nil)
	p.n++
	if err != nil {
		return fmt.Errorf("write %s: %w", p.path, err)
	}
	return nil
}

// tap returns p as a tap (nil without -w): an output.Decider, which
// takes no exchange but the verdicts.
func (p *packetFile) tap() output.Tap {
	if p == nil {
		return nil
	}
	return p
}

// Add does nothing: Decide took the exchange.
func (p *packetFile) Add(*dissect.Exchange) error { return nil }

// Decide takes every exchange, decoded, in capture order, and whether it
// passed the filters (shown). Metadata exchanges not shown are written
// too, uncommented, when filters choose: they name the topics of topic
// IDs and the brokers, so that the file read back (with the same filters)
// makes the same exchanges.
func (p *packetFile) Decide(ex *dissect.Exchange, shown bool) {
	switch {
	case shown:
		p.w.Exchange(ex, true, render.PacketComment(ex))
	case ex.APIKey == metadataKey && !ex.SASLToken:
		p.w.Exchange(ex, true, "")
	default:
		p.w.Exchange(ex, false, "")
	}
}

// metadataKey is Metadata's ApiKey.
const metadataKey = 3

// Close writes what is left and puts the file in place; a file that
// could not be written whole is discarded (an existing one left as it was).
func (p *packetFile) Close() error {
	if err := p.f.Finish(p.w.Close()); err != nil {
		return fmt.Errorf("write %s: %w", p.path, err)
	}
	return nil
}
