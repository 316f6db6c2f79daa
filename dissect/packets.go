package dissect

import (
	"io"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// PacketReader reads the packets of a pcap or pcapng capture one at a
// time, with the same format detection, gzip support, repairs and damage
// reports as ReadCapture. It is for a caller that looks at each packet
// before handing it to a Session, such as a capture filter.
type PacketReader struct {
	cr *captureReader
}

// NewPacketReader detects the format of the capture r holds. The error
// wraps ErrNotCapture when r is empty or not a capture, and is a
// *DamageError when the file header is damaged.
func NewPacketReader(r io.Reader) (*PacketReader, error) {
	cr, err := openCapture(r)
	if err != nil {
		return nil, err
	}
	return &PacketReader{cr: cr}, nil
}

// Next returns the next packet, its capture information and its link type
// (pcapng files may mix link types). data is valid until the next call. At
// the end of a sound capture the error is io.EOF; at damage it is a
// *DamageError, and every packet before the damage has been returned.
func (p *PacketReader) Next() (data []byte, ci gopacket.CaptureInfo, link layers.LinkType, err error) {
	return p.cr.next()
}

// Patched returns how many classic pcap records so far had an original
// length below their captured length (a writer bug) and were given their
// captured length (Stats.PatchedRecords).
func (p *PacketReader) Patched() int64 { return p.cr.patched() }
