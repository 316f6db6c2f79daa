package capgen

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"time"
)

// TCP flags the generator sets.
const (
	flagFIN = 0x01
	flagSYN = 0x02
	flagPSH = 0x08
	flagACK = 0x10
)

// pcapWriter writes a classic pcap (microsecond timestamps, Ethernet) of
// IPv4 TCP packets, counting the bytes and packets written.
type pcapWriter struct {
	w       *bufio.Writer
	pkt     []byte // the packet being built, reused
	bytes   int64  // written so far, file header included
	packets int64
}

// pcapMagicMicro is the classic pcap magic number, microsecond timestamps.
const pcapMagicMicro = 0xa1b2c3d4

// header writes the pcap file header.
func (p *pcapWriter) header(snaplen uint32) error {
	var hdr [24]byte
	binary.LittleEndian.PutUint32(hdr[0:], pcapMagicMicro)
	binary.LittleEndian.PutUint16(hdr[4:], 2)
	binary.LittleEndian.PutUint16(hdr[6:], 4)
	binary.LittleEndian.PutUint32(hdr[16:], snaplen)
	binary.LittleEndian.PutUint32(hdr[20:], 1) // LINKTYPE_ETHERNET
	if _, err := p.w.Write(hdr[:]); err != nil {
		return fmt.Errorf("write pcap header: %w", err)
	}
	p.bytes += int64(len(hdr))
	return nil
}

// endpoint is one side of a TCP connection.
type endpoint struct {
	ip   [4]byte
	port uint16
	seq  uint32 // next sequence number this side sends
}

// packet writes one Ethernet/IPv4/TCP packet from src to dst at t, and
// advances src's sequence number past the payload (and SYN or FIN).
func (p *pcapWriter) packet(t time.Time, src *endpoint, dst *endpoint, flags byte, payload []byte) error {
	b := p.pkt[:0]
	b = append(b, 0, 1, 2, 3, 4, 5, 0, 6, 7, 8, 9, 10, 0x08, 0x00) // MACs, EtherType IPv4
	total := 20 + 20 + len(payload)
	b = append(b, 0x45, 0, byte(total>>8), byte(total), 0, 0, 0x40, 0, 64, 6, 0, 0)
	b = append(b, src.ip[:]...)
	b = append(b, dst.ip[:]...)
	b = binary.BigEndian.AppendUint16(b, src.port)
	b = binary.BigEndian.AppendUint16(b, dst.port)
	b = binary.BigEndian.AppendUint32(b, src.seq)
	b = binary.BigEndian.AppendUint32(b, dst.seq)
	b = append(b, 0x50, flags, 0xff, 0xff, 0, 0, 0, 0) // data offset 5 words, window, no checksum
	b = append(b, payload...)
	p.pkt = b
	src.seq += uint32(len(payload))
	if flags&(flagSYN|flagFIN) != 0 {
		src.seq++
	}
	var rec [16]byte
	binary.LittleEndian.PutUint32(rec[0:], uint32(t.Unix()))
	binary.LittleEndian.PutUint32(rec[4:], uint32(t.Nanosecond()/1000))
	binary.LittleEndian.PutUint32(rec[8:], uint32(len(b)))
	binary.LittleEndian.PutUint32(rec[12:], uint32(len(b)))
	if _, err := p.w.Write(rec[:]); err != nil {
		return fmt.Errorf("write packet: %w", err)
	}
	if _, err := p.w.Write(b); err != nil {
		return fmt.Errorf("write packet: %w", err)
	}
	p.bytes += int64(len(rec) + len(b))
	p.packets++
	return nil
}
