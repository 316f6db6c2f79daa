package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strconv"
	"sync"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Compression is the codec named by bits 0-2 of the attributes of a record
// batch (int16) or of a legacy message (int8).
type Compression int8

// The codecs Kafka defines. Zstd (KIP-110, Kafka 2.1) is only allowed in v2
// record batches.
const (
	CompressionNone   Compression = 0
	CompressionGzip   Compression = 1
	CompressionSnappy Compression = 2
	CompressionLZ4    Compression = 3
	CompressionZstd   Compression = 4
)

// compressionMask selects the codec bits of both attribute formats.
const compressionMask = 0x07

// String returns Kafka's name of the codec: "none", "gzip", "snappy", "lz4",
// "zstd", or "unknown(N)" for the values 5-7 that no Kafka version defines.
func (c Compression) String() string {
	switch c {
	case CompressionNone:
		return "none"
	case CompressionGzip:
		return "gzip"
	case CompressionSnappy:
		return "snappy"
	case CompressionLZ4:
		return "lz4"
	case CompressionZstd:
		return "zstd"
	}
	return "unknown(" + strconv.Itoa(int(c)) + ")"
}

// Valid reports whether c is one of the five codecs Kafka defines. The
// decoders accept the other values from the wire (and note that they cannot
// decompress them), so a decoded batch or message may carry one; the
// encoders (RecordBatch.AppendTo, AppendMessageSet) require a valid codec
// and panic otherwise: check Valid before re-encoding what was decoded.
func (c Compression) Valid() bool { return c >= CompressionNone && c <= CompressionZstd }

// DefaultMaxDecompressedBytes is the default record decoding budget (see
// RecordBudget), in bytes: 64 MiB, well above the broker's default
// message.max.bytes (1 MiB) and fetch.max.bytes (50 MiB).
const DefaultMaxDecompressedBytes = 64 << 20

// RecordDecodeOptions tunes DecodeRecordSet.
type RecordDecodeOptions struct {
	// MaxDecompressedBytes is the size in bytes of the record decoding
	// budget of a DecodeRecordSet call given no Budget; 0 means
	// DefaultMaxDecompressedBytes. The budget bounds the output of every
	// decompression (a decompression bomb costs at most the budget) and
	// what the decoded records cost (see RecordBudget): despite its name
	// it is charged for decoded records, headers and messages too.
	MaxDecompressedBytes int64
	// Budget, when not nil, is charged instead of a budget of the call's
	// own, and MaxDecompressedBytes is ignored. Share one budget among
	// the record sets of a frame so that it bounds the frame: a frame
	// can hold thousands of records fields.
	Budget *RecordBudget
	// CountOnly asks for what RecordSet.Count counts and the entries'
	// sizes, not the records, for a caller that only counts them
	// (`kdissect stats`). A v2 batch whose CRC-32C matches is then taken
	// at its header (RecordBatch.RecordsCounted, Records nil, no
	// notes): a compressed one, of a codec Kafka defines, without
	// decompressing it, when RecordCount is not negative and that many
	// decoded records would fit in the budget left with the most its
	// payload's framing says it can decompress to (the records are
	// charged to it; a gzip payload is bounded by deflate's ratio, about
	// 1032:1, so one of over about 64 KiB is decoded in full under the
	// default budget); an uncompressed one when it holds exactly
	// RecordCount records that decode and fit (checked without
	// allocating). Every other entry is decoded in full: a CRC mismatch,
	// an unknown codec, a record count that disagrees or does not fit, a
	// payload that might decompress past the budget (a decompression
	// bomb, whatever its RecordCount), legacy messages (magic 0 and 1), a
	// trailing partial entry.
	//
	// Count then gives what a full decode gives for every batch whose
	// content agrees with its CRC-verified header, as Kafka's clients and
	// brokers write them. It can differ for a compressed batch whose CRC
	// matches though its records disagree with RecordCount or do not
	// decompress (a writer's bug or a crafted batch), and for a frame
	// whose batches together decompress past the budget (the budget is
	// charged the records of a batch taken at its header, not the
	// decompressed bytes it never produces).
	CountOnly bool
}

// ErrDecompressedTooLarge is matched (errors.Is) by the error Decompress
// returns when the decompressed data would exceed the cap.
var ErrDecompressedTooLarge = errors.New("decompressed size exceeds cap")

// capError says which cap was hit; it unwraps to ErrDecompressedTooLarge.
// budget is the record decoding budget that the cap is what is left of, if
// any; window reports a zstd frame refused up front for its window size.
type capError struct {
	limit, budget int64
	window        bool
}

func (e *capError) Error() string {
	switch {
	case e.window && e.budget > 0:
		return "frame window larger than the record decoding budget of " + formatByteSize(e.budget)
	case e.budget > 0:
		return "decompressed size exceeds the " + formatByteSize(e.limit) + " left of the record decoding budget of " + formatByteSize(e.budget)
	case e.window:
		return "decompressed size exceeds " + formatByteSize(e.limit) + " cap (frame window larger than the cap)"
	}
	return "decompressed size exceeds " + formatByteSize(e.limit) + " cap"
}

func (e *capError) Unwrap() error { return ErrDecompressedTooLarge }

// formatByteSize writes n in the largest binary unit that divides it
// exactly ("64 MiB", "1536 KiB"), else in bytes.
func formatByteSize(n int64) string {
	switch {
	case n > 0 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + " GiB"
	case n > 0 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n > 0 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// Decompress decompresses src, which holds data compressed with c as Kafka
// producers write it: gzip (one or more members), snappy (a raw block, or
// xerial framing as the Java client writes it), lz4 (the LZ4 frame format,
// one or more frames) or zstd (one or more frames, with or without a
// declared content size). CompressionNone returns src itself.
//
// The output is capped at maxBytes (DefaultMaxDecompressedBytes when
// maxBytes <= 0): when the data holds more, Decompress stops reading and
// returns the output so far (at most maxBytes bytes; for snappy, whole
// chunks only) with an error matching ErrDecompressedTooLarge. On any other
// error it also returns what was decompressed before the error, which may
// be empty. It never allocates more than about maxBytes for the output;
// decoders add their fixed working memory (a 32 KiB gzip window, an LZ4
// block of at most 4 MiB, a zstd window of at most maxBytes).
func Decompress(c Compression, src []byte, maxBytes int64) ([]byte, error) {
	return decompress(c, src, maxBytes, false)
}

// decompress is Decompress; brokenLZ4Header accepts an LZ4 frame whose
// header checksum is wrong, as Kafka wrote them in magic-0 messages
// (KAFKA-3160, fixed for magic 1 by KIP-57).
func decompress(c Compression, src []byte, maxBytes int64, brokenLZ4Header bool) ([]byte, error) {
	return decompressIn(c, src, maxBytes, 0, brokenLZ4Header)
}

// decompressIn is decompress for a cap that is what is left of a record
// decoding budget of budget bytes (0: none), which the cap error says.
func decompressIn(c Compression, src []byte, maxBytes, budget int64, brokenLZ4Header bool) ([]byte, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxDecompressedBytes
	}
	var out []byte
	var err error
	switch c {
	case CompressionNone:
		return src, nil
	case CompressionGzip:
		out, err = gunzip(src, maxBytes)
	case CompressionSnappy:
		out, err = unsnappy(src, maxBytes)
	case CompressionLZ4:
		out, err = unlz4(src, maxBytes, brokenLZ4Header)
	case CompressionZstd:
		// The window is working memory, not output: bound it by the
		// whole budget, so that a frame's last batches are not refused
		// for the window a producer chose.
		out, err = unzstd(src, maxBytes, max(maxBytes, budget))
	default:
		return nil, fmt.Errorf("unsupported compression codec %d", int8(c))
	}
	if err != nil {
		// The decompressors return a cap error unwrapped, so it can
		// still learn of the budget before being formatted.
		if ce, ok := err.(*capError); ok {
			ce.budget = budget
		}
		err = fmt.Errorf("%s decompression: %w", c, err)
	}
	return out, err
}

// plausibleHint returns declared when it is a believable output size for n
// compressed bytes, else a guess; never more than limit. Believable is at
// most maxRatio times n (plus a block's worth): the most the codec can
// expand n bytes, so a lying header costs no more up front than an honest
// bomb of the same size would. Past the bound (deflate's maximum ratio,
// about 1032:1, for codecs without their own) readCapped goes on in
// chunks. The guess is small because readCapped copes with an undersized
// first buffer at the cost of one copy, while an oversized one is waste,
// and the whole of it for a bomb.
func plausibleHint(declared int64, n int, limit, maxRatio int64) int64 {
	hint := declared
	if hint <= 0 || hint > int64(n)*maxRatio+1024 {
		hint = min(int64(n)*4, readChunkSize)
	}
	return min(hint, limit)
}

// deflateMaxRatio is deflate's largest expansion: a 258-byte match costs
// at least 2 bits.
const deflateMaxRatio = 1032

// zstdMaxRatio is zstd's largest expansion: an RLE block of 4 bytes (a
// 3-byte block header and the byte) stands for up to 128 KiB. Data this
// compressible (a long run of text) is what a large value often is, and
// its declared content size is then the only way to size the output
// without a copy.
const zstdMaxRatio = 128 << 10 / 4

// readChunkSize is the size of the pooled buffers that readCapped fills
// once its first buffer is full.
const readChunkSize = 64 << 10

// readChunks holds *[readChunkSize]byte.
var readChunks = sync.Pool{New: func() any { return new([readChunkSize]byte) }}

// readCapped reads r to EOF into one buffer of at most limit bytes. It
// reads into a buffer of hint bytes first, which is all it allocates when
// hint is the exact size; past it, into pooled chunks that are copied into
// one buffer of the exact size at the end. So the output costs its size
// (plus a wrong hint), never a doubling series, and holds no slack. If r
// holds more than limit bytes it returns the first limit bytes and a
// capError without reading further.
func readCapped(r io.Reader, hint, limit int64) ([]byte, error) {
	buf := make([]byte, min(max(hint, 512), limit))
	n, err := fillFrom(r, buf)
	if err != nil {
		return buf[:n], eofIsNil(err)
	}
	var chunks []*[readChunkSize]byte
	defer func() {
		for _, c := range chunks {
			readChunks.Put(c)
		}
	}()
	total := int64(n)
	var last int // bytes in the last chunk
	for {
		if total == limit {
			// Full at the cap: one more byte means the data is larger.
			var probe [1]byte
			if m, perr := fillFrom(r, probe[:]); m > 0 {
				err = &capError{limit: limit}
			} else {
				err = eofIsNil(perr)
			}
			break
		}
		c := readChunks.Get().(*[readChunkSize]byte)
		chunks = append(chunks, c)
		m, ferr := fillFrom(r, c[:min(readChunkSize, limit-total)])
		total += int64(m)
		last = m
		if ferr != nil {
			err = eofIsNil(ferr)
			break
		}
	}
	if total == int64(len(buf)) {
		return buf, err // the hint was exact
	}
	out := make([]byte, total)
	o := copy(out, buf)
	for i, c := range chunks {
		if i == len(chunks)-1 {
			o += copy(out[o:], c[:last])
		} else {
			o += copy(out[o:], c[:])
		}
	}
	return out, err
}

// fillFrom reads into b until it is full or r returns an error (io.EOF
// included). Unlike io.ReadFull it keeps a decompressor's
// io.ErrUnexpectedEOF (truncated input) apart from a clean end.
func fillFrom(r io.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := r.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func eofIsNil(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}

// gzipReaders holds *gzip.Reader; a reader keeps about 40 KiB of window
// and tables that are worth reusing.
var gzipReaders sync.Pool

func gunzip(src []byte, limit int64) ([]byte, error) {
	zr, _ := gzipReaders.Get().(*gzip.Reader)
	if zr == nil {
		zr = new(gzip.Reader)
	}
	defer gzipReaders.Put(zr)
	if err := zr.Reset(bytes.NewReader(src)); err != nil {
		return nil, err
	}
	zr.Multistream(true) // several members are one stream, as in Java's GZIPInputStream
	// ISIZE, the last 4 bytes, is the size of the last member mod 2^32.
	var declared int64
	if len(src) >= 18 {
		declared = int64(binary.LittleEndian.Uint32(src[len(src)-4:]))
	}
	return readCapped(zr, plausibleHint(declared, len(src), limit, deflateMaxRatio), limit)
}

// xerialMagic starts snappy data framed by the xerial snappy-java
// SnappyOutputStream, which the Java client uses: the magic, int32 version,
// int32 minimum compatible version, then chunks of int32 length + raw
// snappy block.
var xerialMagic = [8]byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

const xerialHeaderLen = 16

// snappyMaxRatio bounds what a raw snappy block can decode to per input
// byte (a 3-byte copy yields at most 64 bytes), so that a lying length
// prefix is rejected before anything is allocated.
const snappyMaxRatio = 22

func unsnappy(src []byte, limit int64) ([]byte, error) {
	if len(src) < xerialHeaderLen || !bytes.Equal(src[:8], xerialMagic[:]) {
		n, err := snappyLen(src)
		if err != nil {
			return nil, err
		}
		if n > limit {
			return nil, &capError{limit: limit}
		}
		return snappy.Decode(make([]byte, n), src)
	}
	// Walk the chunk headers first so that the output is allocated once.
	var total int64
	var chunks int
	capped := false
	for p := xerialHeaderLen; p < len(src); chunks++ {
		chunk, next, err := xerialChunk(src, p)
		if err != nil {
			return nil, err
		}
		n, err := snappyLen(chunk)
		if err != nil {
			return nil, fmt.Errorf("xerial chunk %d: %w", chunks, err)
		}
		if total+n > limit {
			capped = true
			break
		}
		total += n
		p = next
	}
	out := make([]byte, total)
	o := 0
	p := xerialHeaderLen
	for i := 0; i < chunks; i++ {
		chunk, next, _ := xerialChunk(src, p)
		n, _ := snappy.DecodedLen(chunk)
		d, err := snappy.Decode(out[o:o+n], chunk)
		if err != nil {
			return out[:o], fmt.Errorf("xerial chunk %d: %w", i, err)
		}
		o += len(d)
		p = next
	}
	if capped {
		return out, &capError{limit: limit}
	}
	return out, nil
}

// xerialChunk returns the chunk starting at src[p:] and the position after it.
func xerialChunk(src []byte, p int) (chunk []byte, next int, err error) {
	if len(src)-p < 4 {
		return nil, 0, fmt.Errorf("xerial chunk length truncated at byte %d", p)
	}
	n := int64(int32(binary.BigEndian.Uint32(src[p:])))
	p += 4
	if n < 0 || n > int64(len(src)-p) {
		return nil, 0, fmt.Errorf("xerial chunk length %d at byte %d with %d bytes remaining", n, p-4, len(src)-p)
	}
	return src[p : p+int(n)], p + int(n), nil
}

// snappyLen returns the decoded length a raw snappy block declares, after
// checking that its input could produce it.
func snappyLen(block []byte) (int64, error) {
	n, err := snappy.DecodedLen(block)
	if err != nil {
		return 0, err
	}
	if int64(n) > int64(len(block))*snappyMaxRatio+64 {
		return 0, fmt.Errorf("%w: block of %d bytes declares %d decoded bytes", snappy.ErrCorrupt, len(block), n)
	}
	return int64(n), nil
}

// lz4Readers holds *lz4.Reader, which keep their block buffers.
var lz4Readers sync.Pool

func unlz4(src []byte, limit int64, brokenHeader bool) ([]byte, error) {
	zr, _ := lz4Readers.Get().(*lz4.Reader)
	if zr == nil {
		zr = lz4.NewReader(nil)
	}
	defer func() {
		zr.Reset(nil) // drop the reference to src
		lz4Readers.Put(zr)
	}()
	var r io.Reader = bytes.NewReader(src)
	hdr, ok := parseLZ4Header(src)
	if ok && brokenHeader && hdr.checksum != hdr.wantChecksum {
		// Kafka's magic-0 LZ4 frames hashed the magic number too
		// (KAFKA-3160); like Kafka, ignore the checksum for magic 0 by
		// handing the library a copy of the header with the right one.
		fixed := make([]byte, hdr.len)
		copy(fixed, src[:hdr.len])
		fixed[hdr.len-1] = hdr.wantChecksum
		r = io.MultiReader(bytes.NewReader(fixed), bytes.NewReader(src[hdr.len:]))
	}
	zr.Reset(r)
	return readCapped(zr, plausibleHint(hdr.contentSize, len(src), limit, deflateMaxRatio), limit)
}

// lz4Header is what parseLZ4Header reads of the first frame's descriptor.
type lz4Header struct {
	len          int   // bytes from the magic number to the checksum, inclusive
	contentSize  int64 // declared, or 0
	checksum     byte  // on the wire
	wantChecksum byte  // (xxh32(descriptor) >> 8) & 0xff, per the LZ4 frame format
}

const lz4FrameMagic = 0x184D2204

func parseLZ4Header(src []byte) (lz4Header, bool) {
	if len(src) < 7 || binary.LittleEndian.Uint32(src) != lz4FrameMagic {
		return lz4Header{}, false
	}
	flg := src[4]
	n := 7 // magic, FLG, BD, HC
	if flg&0x08 != 0 {
		n += 8
	}
	if flg&0x01 != 0 {
		n += 4
	}
	if len(src) < n {
		return lz4Header{}, false
	}
	h := lz4Header{len: n, checksum: src[n-1]}
	if flg&0x08 != 0 {
		h.contentSize = int64(min(binary.LittleEndian.Uint64(src[6:]), 1<<62))
	}
	h.wantChecksum = byte(xxh32Short(src[4:n-1]) >> 8)
	return h, true
}

// xxh32Short is XXH32 with seed 0 for inputs shorter than 16 bytes, enough
// for an LZ4 frame descriptor (at most 14 bytes); the library's own
// implementation is internal.
func xxh32Short(b []byte) uint32 {
	const (
		p1 = 2654435761
		p2 = 2246822519
		p3 = 3266489917
		p4 = 668265263
		p5 = 374761393
	)
	if len(b) >= 16 {
		panic("xxh32Short: input of 16 bytes or more")
	}
	h := uint32(p5) + uint32(len(b))
	for ; len(b) >= 4; b = b[4:] {
		h += binary.LittleEndian.Uint32(b) * p3
		h = bits.RotateLeft32(h, 17) * p4
	}
	for _, c := range b {
		h += uint32(c) * p5
		h = bits.RotateLeft32(h, 11) * p1
	}
	h ^= h >> 15
	h *= p2
	h ^= h >> 13
	h *= p3
	h ^= h >> 16
	return h
}

// zstdDecoders holds *zstd.Decoder created for synchronous stream decoding
// (concurrency 1: no goroutines to leak when the pool drops one).
var zstdDecoders sync.Pool

// unzstd decompresses at most limit bytes with a window of at most
// maxWindow bytes.
func unzstd(src []byte, limit, maxWindow int64) ([]byte, error) {
	zd, _ := zstdDecoders.Get().(*zstd.Decoder)
	if zd == nil {
		var err error
		zd, err = zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxMemory(DefaultMaxDecompressedBytes))
		if err != nil {
			return nil, err
		}
	}
	defer func() {
		_ = zd.Reset(nil) // drop the reference to src
		zstdDecoders.Put(zd)
	}()
	// Streaming rather than DecodeAll: it can stop at the cap and return
	// what came before it. WithDecoderMaxMemory bounds the window (the
	// decoder's history buffer).
	if err := zd.ResetWithOptions(bytes.NewReader(src), zstd.WithDecoderMaxMemory(uint64(maxWindow))); err != nil {
		return nil, err
	}
	var declared int64
	var h zstd.Header
	if h.Decode(src) == nil && h.HasFCS {
		declared = int64(min(h.FrameContentSize, 1<<62))
	}
	out, err := readCapped(zd, plausibleHint(declared, len(src), limit, zstdMaxRatio), limit)
	if errors.Is(err, zstd.ErrDecoderSizeExceeded) || errors.Is(err, zstd.ErrWindowSizeExceeded) {
		// The frame's window is larger than the cap.
		err = &capError{limit: maxWindow, window: true}
	}
	return out, err
}

// Compress appends src compressed with c to dst, in the framings the Java
// producer uses: gzip at the default level, snappy in xerial framing with
// 32 KiB chunks, lz4 frames with 64 KiB independent blocks and no content
// checksum, zstd frames at the default level (with a declared content
// size, unlike the Java client's streams). CompressionNone appends src.
func Compress(c Compression, dst, src []byte) ([]byte, error) {
	switch c {
	case CompressionNone:
		return append(dst, src...), nil
	case CompressionGzip:
		return gzipAppend(dst, src)
	case CompressionSnappy:
		return xerialAppend(dst, src), nil
	case CompressionLZ4:
		return lz4Append(dst, src)
	case CompressionZstd:
		return zstdAppend(dst, src)
	}
	return dst, fmt.Errorf("unsupported compression codec %d", int8(c))
}

// sliceAppender is an io.Writer appending to a slice.
type sliceAppender struct{ b []byte }

func (w *sliceAppender) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// gzipWriters holds *gzip.Writer; each holds about 1 MiB of match state.
var gzipWriters sync.Pool

func gzipAppend(dst, src []byte) ([]byte, error) {
	zw, _ := gzipWriters.Get().(*gzip.Writer)
	if zw == nil {
		zw = gzip.NewWriter(nil)
	}
	defer gzipWriters.Put(zw)
	w := sliceAppender{b: dst}
	zw.Reset(&w)
	if _, err := zw.Write(src); err != nil {
		return dst, fmt.Errorf("gzip compression: %w", err)
	}
	if err := zw.Close(); err != nil {
		return dst, fmt.Errorf("gzip compression: %w", err)
	}
	zw.Reset(nil)
	return w.b, nil
}

// xerialChunkSize is snappy-java's default block size.
const xerialChunkSize = 32 << 10

func xerialAppend(dst, src []byte) []byte {
	dst = append(dst, xerialMagic[:]...)
	dst = AppendInt32(dst, 1) // version
	dst = AppendInt32(dst, 1) // minimum compatible version
	for len(src) > 0 {
		chunk := src[:min(len(src), xerialChunkSize)]
		src = src[len(chunk):]
		lenAt := len(dst)
		dst = AppendInt32(dst, 0)
		at := len(dst)
		bound := snappy.MaxEncodedLen(len(chunk))
		dst = slices.Grow(dst, bound)[:at+bound]
		enc := snappy.Encode(dst[at:], chunk) // in place: dst[at:] is large enough
		dst = dst[:at+len(enc)]
		binary.BigEndian.PutUint32(dst[lenAt:], uint32(len(enc)))
	}
	return dst
}

// lz4Writers holds *lz4.Writer configured as lz4Append describes.
var lz4Writers sync.Pool

func lz4Append(dst, src []byte) ([]byte, error) {
	zw, _ := lz4Writers.Get().(*lz4.Writer)
	if zw == nil {
		zw = lz4.NewWriter(nil)
		// 64 KiB blocks and no content checksum, as Kafka's
		// Lz4BlockOutputStream; the batch CRC already covers the data.
		if err := zw.Apply(lz4.BlockSizeOption(lz4.Block64Kb), lz4.ChecksumOption(false)); err != nil {
			return dst, fmt.Errorf("lz4 compression: %w", err)
		}
	}
	defer lz4Writers.Put(zw)
	// Room for the frame at its largest (incompressible blocks are stored
	// as they are: 4 bytes of size each, a 7-byte header, a 4-byte end
	// mark), so that the appends never copy what was compressed.
	w := sliceAppender{b: slices.Grow(dst, len(src)+4*(len(src)/(64<<10)+1)+16)}
	zw.Reset(&w)
	if _, err := zw.Write(src); err != nil {
		return dst, fmt.Errorf("lz4 compression: %w", err)
	}
	if err := zw.Close(); err != nil {
		return dst, fmt.Errorf("lz4 compression: %w", err)
	}
	zw.Reset(nil)
	return w.b, nil
}

// zstdEncoders holds *zstd.Encoder used with EncodeAll only, so they run no
// goroutines.
var zstdEncoders sync.Pool

func zstdAppend(dst, src []byte) ([]byte, error) {
	ze, _ := zstdEncoders.Get().(*zstd.Encoder)
	if ze == nil {
		var err error
		ze, err = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
		if err != nil {
			return dst, fmt.Errorf("zstd compression: %w", err)
		}
	}
	defer zstdEncoders.Put(ze)
	return ze.EncodeAll(src, dst), nil
}
