package dissect

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/kdissect/kdissect/dissect/tlsdecrypt"
)

// ErrCaptureDamaged is wrapped by the error ReadCapture returns when the
// capture file stops being readable part way: every packet before the damage
// has been dissected, nothing after it. A *DamageError says where.
var ErrCaptureDamaged = errors.New("capture damaged")

// ErrNotCapture is wrapped by the error ReadCapture returns when the input is
// empty or is not a pcap or pcapng file (optionally gzip-, zstd- or
// xz-compressed).
var ErrNotCapture = errors.New("not a capture")

// DamageError says where and how a capture file is damaged. It wraps
// ErrCaptureDamaged and the underlying cause.
type DamageError struct {
	// Offset is the byte offset of the damaged record or block, counted in
	// the (decompressed, for a compressed file) capture.
	Offset int64
	// Packets is how many packets were read before the damage.
	Packets int64
	// Compression names the file's compression ("gzip", "zstd", "xz"),
	// whose decompressed bytes Offset counts; "" for none.
	Compression string
	// Err is the cause.
	Err error
}

func (e *DamageError) Error() string {
	where := "byte"
	if e.Compression != "" {
		where = e.Compression + "-decompressed byte"
	}
	return fmt.Sprintf("capture damaged at %s %d (after %d packets): %v", where, e.Offset, e.Packets, e.Err)
}

// Unwrap returns ErrCaptureDamaged and the cause, so errors.Is works on both.
func (e *DamageError) Unwrap() []error { return []error{ErrCaptureDamaged, e.Err} }

const (
	pcapMagicMicro   = 0xa1b2c3d4
	pcapMagicNano    = 0xa1b23c4d
	pcapngMagic      = 0x0a0d0d0a
	pcapFileHeader   = 24
	pcapRecordHeader = 16
	// maxPcapRecord mirrors pcapgo's limit (libpcap's MAXIMUM_SNAPLEN) for a
	// file whose snap length is smaller: longer records mean the file is
	// damaged, and catching that here lets the error say where.
	maxPcapRecord = 262144
	// maxNgBlock bounds a pcapng block. Real blocks hold one packet (at most
	// a 256 KiB snap length) or a few KiB of metadata; a longer length is
	// almost certainly damage, which we want to report at its own offset.
	maxNgBlock = 64 << 20
)

// captureReader reads packets from a pcap or pcapng file. It sits on top of
// pcapgo; a filter between the file and pcapgo (pcapFilter, ngFilter) checks
// the record structure, fixes what pcapgo would wrongly reject, and knows the
// offset of the record pcapgo is reading, so damage can be located exactly.
type captureReader struct {
	pcap        *pcapgo.Reader
	ng          *pcapgo.NgReader
	link        layers.LinkType // classic pcap: the file's link type
	where       interface{ position() (int64, error) }
	compression string // "gzip", "zstd", "xz" or ""
	// comments are the opt_comment options of the pcapng packet next
	// returned last; nil for most packets and for classic pcap.
	comments []string
	packets  int64
	pf       *pcapFilter // classic pcap only
	// secrets are the TLS key log lines of the pcapng's Decryption
	// Secrets Blocks, added as the reader meets them (it reads ahead of
	// the session, and a block comes before the packets it decrypts).
	secrets *tlsdecrypt.KeyLog
}

// patched returns how many records had their original length raised.
func (cr *captureReader) patched() int64 {
	if cr.pf == nil {
		return 0
	}
	return cr.pf.patched
}

// openCapture detects compression (decompressor) and the capture format.
func openCapture(r io.Reader) (*captureReader, error) {
	return openCaptureKeys(r, nil)
}

// openCaptureKeys is openCapture putting the TLS secrets a pcapng embeds
// into secrets (a new key log when nil), so that several files share one.
func openCaptureKeys(r io.Reader, secrets *tlsdecrypt.KeyLog) (*captureReader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(2)
	if len(head) == 0 {
		if err == nil || err == io.EOF {
			return nil, fmt.Errorf("%w: empty input", ErrNotCapture)
		}
		return nil, fmt.Errorf("reading capture: %w", err)
	}
	cr := &captureReader{}
	zr, name, err := decompressor(br)
	if err != nil {
		return nil, &DamageError{Offset: 0, Compression: name, Err: err}
	}
	if zr != nil {
		cr.compression = name
		br = bufio.NewReaderSize(zr, 64<<10)
	}
	head, err = br.Peek(4)
	if len(head) < 4 {
		if err != nil && err != io.EOF && (err != io.ErrUnexpectedEOF || cr.compression != "") {
			return nil, cr.damage(0, fmt.Errorf("reading file header: %w", err))
		}
		if len(head) == 0 {
			return nil, fmt.Errorf("%w: empty input", ErrNotCapture)
		}
		return nil, fmt.Errorf("%w: only %d bytes", ErrNotCapture, len(head))
	}
	le, be := binary.LittleEndian.Uint32(head), binary.BigEndian.Uint32(head)
	switch {
	case le == pcapngMagic:
		if cr.secrets = secrets; secrets == nil {
			cr.secrets = tlsdecrypt.NewKeyLog()
		}
		f := &ngFilter{r: br, secrets: cr.secrets}
		cr.where = f
		ng, err := pcapgo.NewNgReader(f, pcapgo.NgReaderOptions{WantMixedLinkType: true, SkipUnknownVersion: true})
		if err != nil {
			return nil, cr.openError(err)
		}
		cr.ng = ng
	case le == pcapMagicMicro || le == pcapMagicNano || be == pcapMagicMicro || be == pcapMagicNano:
		order := binary.ByteOrder(binary.LittleEndian)
		if be == pcapMagicMicro || be == pcapMagicNano {
			order = binary.BigEndian
		}
		f := &pcapFilter{r: br, order: order}
		cr.where, cr.pf = f, f
		pr, err := pcapgo.NewReader(f)
		if err != nil {
			return nil, cr.openError(err)
		}
		cr.pcap = pr
		cr.link = pr.LinkType()
	default:
		return nil, fmt.Errorf("%w: unknown file magic % x (want pcap or pcapng, optionally gzip-, zstd- or xz-compressed)", ErrNotCapture, head)
	}
	return cr, nil
}

// openError turns an error met while reading the file header into a damage
// error at the place the filter stopped.
func (cr *captureReader) openError(err error) error {
	off, ferr := cr.where.position()
	if ferr != nil {
		err = ferr
	}
	return cr.damage(off, err)
}

func (cr *captureReader) damage(off int64, err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return &DamageError{Offset: off, Packets: cr.packets, Compression: cr.compression, Err: err}
}

// next returns the next packet. data is valid until the next call. At the end
// of a sound file it returns io.EOF; otherwise a *DamageError.
func (cr *captureReader) next() (data []byte, ci gopacket.CaptureInfo, link layers.LinkType, err error) {
	cr.comments = nil
	if cr.ng != nil {
		var opts pcapgo.NgPacketOptions
		data, ci, opts, err = cr.ng.ZeroCopyReadPacketDataWithOptions()
		cr.comments = opts.Comments // a new slice of new strings, or nil
		if err == nil && len(ci.AncillaryData) > 0 {
			link, _ = ci.AncillaryData[0].(layers.LinkType)
		}
	} else {
		data, ci, err = cr.pcap.ZeroCopyReadPacketData()
		link = cr.link
	}
	if err != nil {
		off, ferr := cr.where.position()
		if ferr != nil {
			// The filter found the damage itself and knows best what it is.
			return nil, ci, link, cr.damage(off, ferr)
		}
		if err == io.EOF {
			return nil, ci, link, io.EOF
		}
		return nil, ci, link, cr.damage(off, err)
	}
	cr.packets++
	return data, ci, link, nil
}

// readStructure reads len(p) bytes of the record or block structure (a
// header or trailer) into p. It returns io.EOF only when no byte arrived and
// the input ended; a structure cut short is described by what and want.
func readStructure(r io.Reader, p []byte, what string) (int, error) {
	n, err := io.ReadFull(r, p)
	switch {
	case err == nil || (err == io.EOF && n == 0):
		return n, err
	case err == io.ErrUnexpectedEOF || err == io.EOF:
		return n, fmt.Errorf("%s cut short: got %d of %d bytes: %w", what, n, len(p), io.ErrUnexpectedEOF)
	default:
		return n, fmt.Errorf("reading %s: %w", what, err)
	}
}

// pcapFilter passes a classic pcap file through to pcapgo one record at a
// time. It raises a record's original length to its captured length where a
// writer got them the wrong way round (pcapgo rejects such records; the IP
// header says how long the packet really is), rejects records longer than
// pcapgo would accept with an error that says where, and remembers where the
// record being read starts. Returning at most one record per Read keeps
// pcapgo's bufio.Reader from reading ahead, so the record pcapgo is decoding
// is always the one the filter delivered last.
type pcapFilter struct {
	r     io.Reader
	order binary.ByteOrder

	off       int64 // bytes consumed from r
	recStart  int64 // offset of the current record
	started   bool  // file header passed through
	limit     uint32
	remaining int64  // data bytes of the current record still to pass on
	pending   []byte // header bytes ready to pass on
	hdr       [pcapFileHeader]byte
	err       error // sticky: the damage found, returned from then on
	patched   int64
}

func (f *pcapFilter) position() (int64, error) { return f.recStart, f.err }

func (f *pcapFilter) fail(off int64, err error) error {
	if f.err == nil {
		f.recStart, f.err = off, err
	}
	return f.err
}

func (f *pcapFilter) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(f.pending) > 0 {
		n := copy(p, f.pending)
		f.pending = f.pending[n:]
		return n, nil
	}
	if f.err != nil {
		return 0, f.err
	}
	if f.remaining > 0 {
		if int64(len(p)) > f.remaining {
			p = p[:f.remaining]
		}
		n, err := f.r.Read(p)
		f.off += int64(n)
		f.remaining -= int64(n)
		if err != nil && f.remaining > 0 {
			if err == io.EOF {
				err = fmt.Errorf("packet data cut short: %d bytes missing: %w", f.remaining, io.ErrUnexpectedEOF)
			}
			f.fail(f.recStart, err)
			if n > 0 {
				return n, nil
			}
			return 0, f.err
		}
		return n, nil
	}
	if !f.started {
		n, err := readStructure(f.r, f.hdr[:pcapFileHeader], "file header")
		f.off += int64(n)
		if err == io.EOF {
			err = fmt.Errorf("file header cut short: got 0 of %d bytes: %w", pcapFileHeader, io.ErrUnexpectedEOF)
		}
		if err != nil {
			return 0, f.fail(0, err)
		}
		f.started = true
		f.limit = max(f.order.Uint32(f.hdr[16:20]), maxPcapRecord)
		f.pending = f.hdr[:pcapFileHeader]
		return f.Read(p)
	}
	start := f.off
	n, err := readStructure(f.r, f.hdr[:pcapRecordHeader], "record header")
	f.off += int64(n)
	if err == io.EOF {
		f.recStart = start
		return 0, io.EOF // a clean end: between records
	}
	if err != nil {
		return 0, f.fail(start, err)
	}
	incl := f.order.Uint32(f.hdr[8:12])
	orig := f.order.Uint32(f.hdr[12:16])
	if incl > f.limit {
		return 0, f.fail(start, fmt.Errorf("record claims %d captured bytes, more than the %d-byte limit", incl, f.limit))
	}
	if orig < incl {
		// Seen in real files (go-sniffer_kafka.pcap: orig_len = incl_len-16).
		// The captured bytes are there; the IP length bounds the packet.
		f.order.PutUint32(f.hdr[12:16], incl)
		f.patched++
	}
	f.recStart = start
	f.remaining = int64(incl)
	f.pending = f.hdr[:pcapRecordHeader]
	return f.Read(p)
}

// ngFilter passes a pcapng file through to pcapgo one block at a time. It
// checks each block's length (at least 12, a multiple of 4, the same in the
// header and the trailer, large enough for the packet it declares) so that a
// damaged block ends the file with an error that says where, instead of
// pcapgo reading a packet's bytes as the next block. Like pcapFilter it
// returns at most one block per Read.
type ngFilter struct {
	r     io.Reader
	order binary.ByteOrder

	off        int64
	blockStart int64
	blockLen   uint32
	remaining  int64 // body bytes of the current block still to pass on
	trailer    bool  // the 4-byte trailer is still to read and check
	pending    []byte
	hdr        [32]byte
	tail       [4]byte
	err        error
	secrets    *tlsdecrypt.KeyLog // TLS key log lines of Decryption Secrets Blocks
	dsb        []byte
}

func (f *ngFilter) position() (int64, error) { return f.blockStart, f.err }

func (f *ngFilter) fail(off int64, err error) error {
	if f.err == nil {
		f.blockStart, f.err = off, err
	}
	return f.err
}

const (
	ngBlockSHB  = 0x0a0d0d0a
	ngBlockPB   = 0x00000002
	ngBlockSPB  = 0x00000003
	ngBlockEPB  = 0x00000006
	ngBlockDSB  = 0x0000000a // Decryption Secrets Block
	ngTLSKeyLog = 0x544c534b // its secrets type: "TLSK", an NSS key log
	ngBOM       = 0x1a2b3c4d
)

func (f *ngFilter) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(f.pending) > 0 {
		n := copy(p, f.pending)
		f.pending = f.pending[n:]
		return n, nil
	}
	if f.err != nil {
		return 0, f.err
	}
	if f.remaining > 0 {
		if int64(len(p)) > f.remaining {
			p = p[:f.remaining]
		}
		n, err := f.r.Read(p)
		f.off += int64(n)
		f.remaining -= int64(n)
		if err != nil && f.remaining > 0 {
			if err == io.EOF {
				err = fmt.Errorf("block cut short: %d bytes missing: %w", f.remaining+4, io.ErrUnexpectedEOF)
			}
			f.fail(f.blockStart, err)
			if n > 0 {
				return n, nil
			}
			return 0, f.err
		}
		return n, nil
	}
	if f.trailer {
		n, err := readStructure(f.r, f.tail[:], "block trailer")
		f.off += int64(n)
		if err == io.EOF {
			err = fmt.Errorf("block trailer missing: %w", io.ErrUnexpectedEOF)
		}
		if err != nil {
			return 0, f.fail(f.blockStart, err)
		}
		if got := f.order.Uint32(f.tail[:]); got != f.blockLen {
			return 0, f.fail(f.blockStart, fmt.Errorf("bad block length: trailer says %d, header %d", got, f.blockLen))
		}
		f.trailer = false
		f.pending = f.tail[:]
		return f.Read(p)
	}
	return f.nextBlock(p)
}

// nextBlock reads and checks the header of the next block.
func (f *ngFilter) nextBlock(p []byte) (int, error) {
	start := f.off
	n, err := readStructure(f.r, f.hdr[:8], "block header")
	f.off += int64(n)
	if err == io.EOF {
		f.blockStart = start
		return 0, io.EOF // a clean end: between blocks
	}
	if err != nil {
		return 0, f.fail(start, err)
	}
	f.blockStart = start
	got := 8
	typ := binary.LittleEndian.Uint32(f.hdr[0:4]) // 0x0a0d0d0a reads the same both ways
	if typ == ngBlockSHB {
		n, err := readStructure(f.r, f.hdr[8:12], "section header")
		f.off += int64(n)
		if err == io.EOF {
			err = fmt.Errorf("section header cut short: %w", io.ErrUnexpectedEOF)
		}
		if err != nil {
			return 0, f.fail(start, err)
		}
		got = 12
		switch {
		case binary.LittleEndian.Uint32(f.hdr[8:12]) == ngBOM:
			f.order = binary.LittleEndian
		case binary.BigEndian.Uint32(f.hdr[8:12]) == ngBOM:
			f.order = binary.BigEndian
		default:
			return 0, f.fail(start, fmt.Errorf("section header has bad byte-order magic % x", f.hdr[8:12]))
		}
	} else if f.order == nil {
		return 0, f.fail(start, errors.New("pcapng file does not start with a section header"))
	} else {
		typ = f.order.Uint32(f.hdr[0:4])
	}
	length := f.order.Uint32(f.hdr[4:8])
	minLen := uint32(12)
	if typ == ngBlockSHB {
		minLen = 28
	}
	if length < minLen || length%4 != 0 || length > maxNgBlock {
		return 0, f.fail(start, fmt.Errorf("bad block length %d for block type %#x", length, typ))
	}
	// Packet blocks: check the captured length fits in the block, or pcapgo
	// would read the following blocks as packet data.
	var fixed int
	switch typ {
	case ngBlockEPB, ngBlockPB:
		fixed = 28
	case ngBlockSPB:
		fixed = 12
	}
	if fixed > 0 {
		if length < uint32(fixed)+4 {
			return 0, f.fail(start, fmt.Errorf("bad block length %d for packet block type %#x", length, typ))
		}
		n, err := readStructure(f.r, f.hdr[got:fixed], "packet block header")
		f.off += int64(n)
		if err == io.EOF {
			err = fmt.Errorf("packet block header cut short: %w", io.ErrUnexpectedEOF)
		}
		if err != nil {
			return 0, f.fail(start, err)
		}
		got = fixed
		room := length - uint32(fixed) - 4
		if typ == ngBlockSPB {
			// pcapgo takes the original length as the captured length;
			// the block holds at most room bytes of it.
			if orig := f.order.Uint32(f.hdr[8:12]); orig > room {
				f.order.PutUint32(f.hdr[8:12], room)
			}
		} else if caplen := f.order.Uint32(f.hdr[20:24]); caplen > room {
			return 0, f.fail(start, fmt.Errorf("packet block of %d bytes claims %d captured bytes", length, caplen))
		}
	}
	f.blockLen = length
	f.remaining = int64(length) - int64(got) - 4
	f.trailer = true
	f.pending = f.hdr[:got]
	if typ == ngBlockDSB && f.secrets != nil {
		return f.secretsBlock(p)
	}
	return f.Read(p)
}

// secretsBlock reads a Decryption Secrets Block whose header was read,
// adds its TLS key log lines, and passes the block on (pcapgo skips it).
func (f *ngFilter) secretsBlock(p []byte) (int, error) {
	body := make([]byte, f.remaining+4)
	n, err := io.ReadFull(f.r, body)
	f.off += int64(n)
	if err != nil {
		return 0, f.fail(f.blockStart, fmt.Errorf("decryption secrets block cut short: %w", io.ErrUnexpectedEOF))
	}
	if got := f.order.Uint32(body[len(body)-4:]); got != f.blockLen {
		return 0, f.fail(f.blockStart, fmt.Errorf("bad block length: trailer says %d, header %d", got, f.blockLen))
	}
	if len(body) >= 12 && f.order.Uint32(body[0:4]) == ngTLSKeyLog {
		if n := int64(f.order.Uint32(body[4:8])); n <= int64(len(body))-12 {
			_ = f.secrets.Read(bytes.NewReader(body[8 : 8+n])) // in memory: no read error
		}
	}
	f.dsb = append(append(f.dsb[:0], f.pending...), body...)
	f.pending, f.remaining, f.trailer = f.dsb, 0, false
	return f.Read(p)
}
