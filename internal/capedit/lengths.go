package capedit

import (
	"encoding/binary"
	"io"
	"time"

	"github.com/gopacket/gopacket"
)

// Some writers store a packet's original length without the link header
// they captured it with (go-sniffer's Linux cooked captures: captured 92
// bytes, original length 76), so the captured length exceeds the original
// one. Wireshark and editcap read and write such records as they are;
// pcapgo refuses both. Rewrite keeps them as they are too: lengthFix lets
// pcapgo read them, and writeRecord writes them.

// lengthFix passes a classic pcap file through to pcapgo. Where a record's
// captured length exceeds its original length, it raises the original
// length to the captured one for pcapgo and queues the true value, which
// restore puts back into the packet's CaptureInfo.
type lengthFix struct {
	r     io.Reader
	order binary.ByteOrder

	started   bool   // the file header was passed on
	pending   []byte // header bytes to pass on
	remaining int64  // packet data bytes of the current record to pass on
	hdr       [24]byte
	records   int     // record headers passed on
	fixed     []fixed // raised lengths not yet restored, in record order
	returned  int     // packets restore has seen
}

type fixed struct {
	record int // 0-based record number
	length int // the record's original length, as the file says
}

func (f *lengthFix) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(f.pending) > 0 {
		n := copy(p, f.pending)
		f.pending = f.pending[n:]
		return n, nil
	}
	if f.remaining > 0 {
		if int64(len(p)) > f.remaining {
			p = p[:f.remaining]
		}
		n, err := f.r.Read(p)
		f.remaining -= int64(n)
		return n, err
	}
	if !f.started {
		// The file header, whole, or what there is of it.
		f.started = true
		n, err := io.ReadFull(f.r, f.hdr[:24])
		f.pending = f.hdr[:n]
		if n == 0 {
			return 0, eofOr(err)
		}
		return f.Read(p)
	}
	rec := f.hdr[:16]
	n, err := io.ReadFull(f.r, rec)
	if n < len(rec) {
		// The end, or a record header cut short: pcapgo says which.
		f.pending = rec[:n]
		if n == 0 {
			return 0, eofOr(err)
		}
		return f.Read(p)
	}
	capLen, origLen := f.order.Uint32(rec[8:12]), f.order.Uint32(rec[12:16])
	if capLen > origLen {
		f.order.PutUint32(rec[12:16], capLen)
		f.fixed = append(f.fixed, fixed{record: f.records, length: int(origLen)})
	}
	f.records++
	f.pending, f.remaining = rec, int64(capLen)
	return f.Read(p)
}

func eofOr(err error) error {
	if err == io.ErrUnexpectedEOF || err == nil {
		return io.EOF
	}
	return err
}

// restore puts the true original length back into the CaptureInfo of the
// packet pcapgo has just returned, if lengthFix raised it.
func (f *lengthFix) restore(ci *gopacket.CaptureInfo) {
	if len(f.fixed) > 0 && f.fixed[0].record == f.returned {
		ci.Length = f.fixed[0].length
		f.fixed = f.fixed[1:]
	}
	f.returned++
}

// writeRecord writes a classic pcap record whose captured length exceeds
// its original length, which pcapgo.Writer refuses, in the layout
// pcapgo.Writer writes (little-endian).
func writeRecord(w io.Writer, ci gopacket.CaptureInfo, data []byte, nano bool) error {
	var rec [16]byte
	frac := ci.Timestamp.Nanosecond()
	if !nano {
		frac /= int(time.Microsecond)
	}
	binary.LittleEndian.PutUint32(rec[0:4], uint32(ci.Timestamp.Unix()))
	binary.LittleEndian.PutUint32(rec[4:8], uint32(frac))
	binary.LittleEndian.PutUint32(rec[8:12], uint32(len(data)))
	binary.LittleEndian.PutUint32(rec[12:16], uint32(ci.Length))
	if _, err := w.Write(rec[:]); err != nil {
		return err
	}
	_, err := w.Write(data)
	return err
}
