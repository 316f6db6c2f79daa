package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/bits"
	"slices"
	"strconv"
	"sync"
)

// RecordBatch is a v2 record batch (magic 2), Kafka's DefaultRecordBatch,
// introduced with transactions and headers by KIP-98 (Kafka 0.11). On the
// wire, big-endian:
//
//	BaseOffset           int64   offset of the first record
//	BatchLength          int32   bytes after this field
//	PartitionLeaderEpoch int32
//	Magic                int8    2
//	Crc                  uint32  CRC-32C (Castagnoli) of Attributes to the end
//	Attributes           int16   see the accessors
//	LastOffsetDelta      int32
//	BaseTimestamp        int64   ms since the epoch
//	MaxTimestamp         int64   ms since the epoch
//	ProducerId           int64   -1 when not idempotent
//	ProducerEpoch        int16
//	BaseSequence         int32
//	RecordCount          int32
//	Records                      RecordCount records, compressed as one
//	                             block when Attributes says so
type RecordBatch struct {
	BaseOffset           int64
	BatchLength          int32
	PartitionLeaderEpoch int32
	Magic                int8
	Crc                  uint32
	CrcValid             bool // Crc matched the bytes (decode only; meaningless unless CrcChecked)
	Attributes           int16
	LastOffsetDelta      int32
	BaseTimestamp        int64
	MaxTimestamp         int64
	ProducerId           int64
	ProducerEpoch        int16
	BaseSequence         int32
	RecordCount          int32 // as on the wire, which may disagree with len(Records)
	Records              []Record
	// RecordsCounted says the batch was taken at its header, with its CRC
	// verified, by a decode with RecordDecodeOptions.CountOnly (decode
	// only): Records is nil and RecordCount is what RecordSet.Count
	// counts.
	RecordsCounted bool
	// Transaction is, in a Fetch response, how the batch's transaction
	// ended (see MarkTransactions); TxnNone until marked, and for batches
	// that are not transactional data.
	Transaction TransactionState

	nc uint16 // header fields not captured, bits as batchHeaderFields (beside RecordsCounted: no padding)

	// RecordsNotCaptured is, for a batch with gaps, how many of its
	// RecordCount records were not decoded; -1 when RecordCount was not
	// captured (or is negative). 0 for a batch wholly captured.
	RecordsNotCaptured int32
	// Gaps lists the byte ranges of the batch (relative to its first
	// byte) that the capture did not hold, nil when it holds them all
	// (decode only; see DecodeGappedRecordSet). A batch with gaps has
	// header fields not captured (Captured says which; they hold zero),
	// a CRC that cannot be verified (CrcChecked is false, CrcValid false
	// and meaningless), and Records holds the records wholly before its
	// first gap (none when the gap is in the header or the records are
	// compressed).
	Gaps []Gap
}

// Record is one record of a v2 batch. On the wire, after the batch header
// and decompression, with zig-zag varints:
//
//	Length         varint   bytes after this field
//	Attributes     int8     unused
//	TimestampDelta varlong  ms from BaseTimestamp
//	OffsetDelta    varint   from BaseOffset
//	Key            varint length (-1 null) + bytes
//	Value          varint length (-1 null) + bytes
//	Headers        varint count, then per header varint length + key
//	               (a string) and varint length (-1 null) + value
type Record struct {
	Length         int32
	Attributes     int8
	TimestampDelta int64
	OffsetDelta    int32
	Key            []byte // nil when null
	Value          []byte // nil when null
	Headers        []RecordHeader

	// Offset (BaseOffset + OffsetDelta) and Timestamp (BaseTimestamp +
	// TimestampDelta, or the batch's MaxTimestamp when the batch has
	// LogAppendTime) are computed on decode; AppendTo ignores them.
	Offset    int64
	Timestamp int64

	// Control is the decoded key and value of a record in a control batch,
	// nil otherwise (decode only: AppendTo writes Key and Value).
	Control *ControlRecord
}

// RecordHeader is a record header (KIP-82): a non-null string key and a
// nullable value.
type RecordHeader struct {
	Key   string
	Value []byte // nil when null
}

// ControlRecord is the content of a control record (KIP-98): its key holds
// int16 version and int16 type; for ABORT and COMMIT markers its value holds
// int16 version and int32 CoordinatorEpoch.
type ControlRecord struct {
	Version          int16
	Type             ControlType
	ValueVersion     int16 // ABORT and COMMIT only
	CoordinatorEpoch int32 // ABORT and COMMIT only
}

// ControlType is the type in a control record key.
type ControlType int16

// The control types Kafka defines (ControlRecordType.java); 2 and up are
// written by KRaft in the metadata log.
const (
	ControlAbort          ControlType = 0
	ControlCommit         ControlType = 1
	ControlLeaderChange   ControlType = 2
	ControlSnapshotHeader ControlType = 3
	ControlSnapshotFooter ControlType = 4
	ControlKRaftVersion   ControlType = 5
	ControlKRaftVoters    ControlType = 6
)

// String returns Kafka's name for t, or "UNKNOWN(N)".
func (t ControlType) String() string {
	switch t {
	case ControlAbort:
		return "ABORT"
	case ControlCommit:
		return "COMMIT"
	case ControlLeaderChange:
		return "LEADER_CHANGE"
	case ControlSnapshotHeader:
		return "SNAPSHOT_HEADER"
	case ControlSnapshotFooter:
		return "SNAPSHOT_FOOTER"
	case ControlKRaftVersion:
		return "KRAFT_VERSION"
	case ControlKRaftVoters:
		return "KRAFT_VOTERS"
	}
	return "UNKNOWN(" + strconv.Itoa(int(t)) + ")"
}

// TimestampType says what a timestamp means: attribute bit 3 in both
// formats (KIP-32).
type TimestampType int8

const (
	TimestampCreateTime    TimestampType = 0 // set by the producer
	TimestampLogAppendTime TimestampType = 1 // set by the broker on append
)

// String returns "CreateTime" or "LogAppendTime", Kafka's names.
func (t TimestampType) String() string {
	if t == TimestampLogAppendTime {
		return "LogAppendTime"
	}
	return "CreateTime"
}

// Batch attribute bits above the codec bits.
const (
	batchTimestampTypeBit = 1 << 3
	batchTransactionalBit = 1 << 4
	batchControlBit       = 1 << 5
	batchDeleteHorizonBit = 1 << 6 // KIP-534: BaseTimestamp is the delete horizon
)

// recordBatchHeaderLen is the size of a v2 batch before its records.
const recordBatchHeaderLen = 61

// batchCrcStart is where the CRC-32C coverage starts: the Attributes field.
const batchCrcStart = 21

// castagnoli is the CRC-32C table; it is computed once and only read.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Compression returns the codec of the records (attribute bits 0-2).
func (b *RecordBatch) Compression() Compression {
	return Compression(b.Attributes & compressionMask)
}

// TimestampType returns attribute bit 3.
func (b *RecordBatch) TimestampType() TimestampType {
	if b.Attributes&batchTimestampTypeBit != 0 {
		return TimestampLogAppendTime
	}
	return TimestampCreateTime
}

// IsTransactional reports attribute bit 4: the batch belongs to a transaction.
func (b *RecordBatch) IsTransactional() bool { return b.Attributes&batchTransactionalBit != 0 }

// IsControl reports attribute bit 5: the batch holds control records.
func (b *RecordBatch) IsControl() bool { return b.Attributes&batchControlBit != 0 }

// HasDeleteHorizon reports attribute bit 6 (KIP-534).
func (b *RecordBatch) HasDeleteHorizon() bool { return b.Attributes&batchDeleteHorizonBit != 0 }

// decodeBatch decodes the v2 batch entry (framed by splitEntry) found at
// byte pos of the set, adding notes to the set.
func (d *recordDecoder) decodeBatch(entry []byte, pos int) *RecordBatch {
	b := d.batchHeader(entry)
	crc := crc32.Checksum(entry[batchCrcStart:], castagnoli)
	b.CrcValid = crc == b.Crc
	data := entry[recordBatchHeaderLen:]
	// Control batches are decoded even when counting: a transaction
	// marker's type decides the batches before it (MarkTransactions).
	if d.countOnly && b.CrcValid && !b.IsControl() && d.countBatch(b, data) {
		return b
	}
	return d.decodeBatchRecords(b, entry, pos, crc)
}

// batchHeader reads the header fields of the batch at the start of entry
// (at least recordBatchHeaderLen bytes).
func (d *recordDecoder) batchHeader(entry []byte) *RecordBatch {
	be := binary.BigEndian
	return &RecordBatch{
		BaseOffset:           int64(be.Uint64(entry[0:])),
		BatchLength:          int32(be.Uint32(entry[8:])),
		PartitionLeaderEpoch: int32(be.Uint32(entry[12:])),
		Magic:                int8(entry[16]),
		Crc:                  be.Uint32(entry[17:]),
		Attributes:           int16(be.Uint16(entry[21:])),
		LastOffsetDelta:      int32(be.Uint32(entry[23:])),
		BaseTimestamp:        int64(be.Uint64(entry[27:])),
		MaxTimestamp:         int64(be.Uint64(entry[35:])),
		ProducerId:           int64(be.Uint64(entry[43:])),
		ProducerEpoch:        int16(be.Uint16(entry[51:])),
		BaseSequence:         int32(be.Uint32(entry[53:])),
		RecordCount:          int32(be.Uint32(entry[57:])),
	}
}

// decodeBatchRecords decodes the records of the batch b wholly captured in
// entry, whose CRC computed is crc.
func (d *recordDecoder) decodeBatchRecords(b *RecordBatch, entry []byte, pos int, crc uint32) *RecordBatch {
	data := entry[recordBatchHeaderLen:]
	where := fmt.Sprintf("batch at byte %d (BaseOffset %d)", pos, b.BaseOffset)
	if !b.CrcValid {
		d.note(NoteCRCMismatch, "%s: CRC-32C mismatch: 0x%08x on the wire, 0x%08x computed", where, b.Crc, crc)
	}
	c := b.Compression()
	var derr error
	// No bytes are no records whatever the codec (gzip and snappy would
	// call an empty input corrupt).
	if c != CompressionNone && len(data) > 0 {
		data, derr = d.decompress(c, data, false)
		if derr != nil && len(data) == 0 {
			d.noteFor(derr)("%s: %v", where, derr)
			return b
		}
	}
	var st recordsStop
	b.Records, st = d.decodeRecords(b, data, where)
	switch {
	case derr != nil:
		// The records decoded come from the part recovered before the
		// error; one note says both.
		d.noteFor(derr)("%s: %v; %d of RecordCount %d records decoded from the %d bytes recovered", where, derr, len(b.Records), b.RecordCount, len(data))
		return b
	case st.budget:
		d.noteAlways(NoteDecodeBudget, "%s: %s: %d of RecordCount %d records decoded", where, d.budget.exhaustedNote(), len(b.Records), b.RecordCount)
		return b
	case st.err != nil:
		d.note(NoteRecords, "%s: %v", where, st.err)
	case st.end < len(data):
		rest := data[st.end:]
		d.note(NoteRecords, "%s: %d bytes after the %d records of RecordCount, not decoded (%d more records by their lengths)", where, len(rest), b.RecordCount, countRecords(rest))
	}
	if int64(len(b.Records)) != int64(b.RecordCount) {
		d.note(NoteRecords, "%s: RecordCount %d on the wire, %d records decoded", where, b.RecordCount, len(b.Records))
	}
	return b
}

// recordsStop says why decodeRecords stopped before the end of the data:
// err at a record that does not decode, budget at a record that does not
// fit in the budget; else RecordCount was reached (or the data ended) at
// byte end.
type recordsStop struct {
	end    int
	err    error
	budget bool
}

// errBudget stops decodeBody when a header key does not fit in the budget.
var errBudget = errors.New("record decoding budget exhausted")

// decodeRecords decodes the records in data: RecordCount of them, as
// Kafka's batch iterator reads them, or all that the bytes hold when
// RecordCount is negative; fewer when the bytes end, hold a record that
// does not decode, or the budget runs out.
//
// A first pass checks the records and counts them and their headers
// without allocating, up to what fits in the budget, so that the records
// and the headers are allocated once, at their exact number, and charged
// before: a lying RecordCount or header count buys nothing, and a bomb of
// minimal records (7 bytes each on the wire, 120 decoded) stops at the
// budget. The second pass fills them.
func (d *recordDecoder) decodeRecords(b *RecordBatch, data []byte, where string) ([]Record, recordsStop) {
	n, headers, cost, st := d.checkRecords(b, data)
	d.budget.used += cost // fits: cost <= what was left
	if st.budget {
		d.budget.exhausted = true
	}
	if n == 0 {
		return []Record{}, st
	}
	recs := make([]Record, n)
	hd := headerDecoder{budget: d.budget}
	if headers > 0 {
		hd.slab = make([]RecordHeader, 0, headers)
	}
	logAppend := b.TimestampType() == TimestampLogAppendTime
	var r Reader
	r.Reset(data)
	for i := range recs {
		rec := &recs[i]
		rec.Length = r.Varint()
		if _, err := rec.decodeBody(r.Span(int(rec.Length)), &hd); err != nil {
			// Only the budget can stop this pass: a header key.
			recs = recs[:i]
			st = recordsStop{end: r.Offset(), budget: true}
			break
		}
		rec.Offset = b.BaseOffset + int64(rec.OffsetDelta)
		rec.Timestamp = b.BaseTimestamp + rec.TimestampDelta
		if logAppend {
			rec.Timestamp = b.MaxTimestamp
		}
		if b.IsControl() && !rec.decodeControl() && d.listing() {
			d.note(NoteRecords, "%s: record %d: %s", where, i, rec.controlProblem())
		}
	}
	return recs, st
}

// recordCost is what decoding one record of b costs the budget, its
// headers aside.
func recordCost(b *RecordBatch) int64 {
	if b.IsControl() {
		return sizeRecord + sizeControl
	}
	return sizeRecord
}

// checkRecords is decodeRecords' first pass: it checks the records in
// data without allocating and returns how many decode (up to RecordCount,
// or all the bytes hold when it is negative), their headers, what decoding
// them would cost the budget (at most what is left; nothing is charged) and
// why it stopped.
func (d *recordDecoder) checkRecords(b *RecordBatch, data []byte) (n, headers int, cost int64, st recordsStop) {
	want := int(b.RecordCount)
	if b.RecordCount < 0 {
		want = len(data) // more than the bytes can hold
	}
	perRecord := recordCost(b)
	left := d.budget.remaining()
	var r Reader
	r.Reset(data)
	var scratch Record
	for n < want && r.Remaining() > 0 {
		start := r.Offset()
		length := r.Varint()
		body := r.Span(int(length))
		if r.Failed() {
			st.err = fmt.Errorf("record %d at byte %d of the records: length: %w", n, start, r.Err())
			break
		}
		nh, err := scratch.decodeBody(body, nil)
		if err != nil {
			st.err = fmt.Errorf("record %d at byte %d of the records: %w", n, start, err)
			break
		}
		c := perRecord + int64(nh)*sizeHeader
		if c > left-cost {
			st.budget = true
			break
		}
		cost += c
		n++
		headers += nh
		st.end = r.Offset()
	}
	return n, headers, cost, st
}

// countBatch takes b, whose CRC-32C matched, at its header for
// RecordDecodeOptions.CountOnly, and reports whether it did; when it did
// not, nothing was charged and the caller decodes the batch in full.
//
// An uncompressed batch is checked as decodeRecords' first pass checks it
// and taken when it holds exactly RecordCount records that decode and
// fit, charged what decoding them would cost. A compressed one, of a codec
// Kafka defines, is taken when RecordCount decoded records would fit in
// the budget left together with what its payload's framing says it can
// decompress to at most (decompressedBound), and charged for the records
// (not for the decompressed bytes, which are never produced).
func (d *recordDecoder) countBatch(b *RecordBatch, data []byte) bool {
	if b.RecordCount < 0 {
		return false
	}
	c := b.Compression()
	var cost int64
	switch {
	case c == CompressionNone || len(data) == 0:
		// No bytes are no records whatever the codec, as decodeBatch reads them.
		n, _, checked, st := d.checkRecords(b, data)
		if st.err != nil || st.budget || n != int(b.RecordCount) || st.end != len(data) {
			return false
		}
		cost = checked
	case c.Valid():
		cost = int64(b.RecordCount) * recordCost(b)
		// Decoding it in full decompresses it first: a payload that
		// might decompress past the budget left (a bomb, whatever its
		// RecordCount says) is decoded in full, to count what a full
		// decode counts.
		if bound, ok := decompressedBound(c, data); !ok || bound > d.budget.remaining()-cost {
			return false
		}
	default:
		return false
	}
	if cost > d.budget.remaining() {
		return false
	}
	d.budget.used += cost
	b.RecordsCounted = true
	return true
}

// countRecords returns how many records data frames by their length
// fields alone.
func countRecords(data []byte) int {
	var r Reader
	r.Reset(data)
	n := 0
	for r.Remaining() > 0 {
		r.Span(int(r.Varint()))
		if r.Failed() {
			break
		}
		n++
	}
	return n
}

// headerDecoder gives the headers of the records of one batch their
// storage: slices of one slab sized for all of them, and header keys, which
// the records of a batch tend to repeat, converted to strings once and
// charged to the budget.
type headerDecoder struct {
	slab   []RecordHeader
	keys   [8]string // recently seen keys, round robin
	next   int
	budget *RecordBudget
}

// key returns b as a string, reusing a recent one when equal; ok is false
// when a new string does not fit in the budget.
func (hd *headerDecoder) key(b []byte) (k string, ok bool) {
	for _, k := range hd.keys {
		if k == string(b) { // compared without allocating
			return k, true
		}
	}
	if !hd.budget.charge(int64(len(b)+7) &^ 7) {
		return "", false
	}
	k = string(b)
	hd.keys[hd.next] = k
	hd.next = (hd.next + 1) % len(hd.keys)
	return k, true
}

// decodeBody decodes the fields after Length from exactly the body bytes
// and returns the number of headers. With a nil hd it only checks them:
// Headers is left nil.
func (rec *Record) decodeBody(body []byte, hd *headerDecoder) (int, error) {
	r := Reader{buf: body} // as Reset would make it, without clearing a Reader twice a record
	rec.Attributes = r.Int8()
	rec.TimestampDelta = r.Varlong()
	rec.OffsetDelta = r.Varint()
	rec.Key = r.VarintBytes()
	rec.Value = r.VarintBytes()
	nh := r.Varint()
	if r.Failed() {
		return 0, r.Err()
	}
	// A header takes at least two bytes (two lengths).
	if nh < 0 || int64(nh) > int64(r.Remaining()/2) {
		return 0, fmt.Errorf("header count %d with %d bytes left in the record", nh, r.Remaining())
	}
	start := 0
	if hd != nil {
		start = len(hd.slab)
	}
	for i := range int(nh) {
		klen := r.Varint()
		if klen < 0 && !r.Failed() {
			return 0, fmt.Errorf("header %d: null or negative key length %d", i, klen)
		}
		key := r.Span(int(klen))
		value := r.VarintBytes()
		if r.Failed() {
			return 0, fmt.Errorf("header %d: %w", i, r.Err())
		}
		if hd != nil {
			k, ok := hd.key(key)
			if !ok {
				return 0, errBudget
			}
			hd.slab = append(hd.slab, RecordHeader{Key: k, Value: value})
		}
	}
	if hd != nil && nh > 0 {
		rec.Headers = hd.slab[start:len(hd.slab):len(hd.slab)]
	}
	return int(nh), r.checkRest(rec)
}

// checkRest reports bytes left in a record body after its fields.
func (r *Reader) checkRest(rec *Record) error {
	if r.Remaining() > 0 {
		return fmt.Errorf("%d bytes left in the record after its fields (Length %d)", r.Remaining(), rec.Length)
	}
	return nil
}

// decodeControl decodes a control record's key and, for transaction
// markers, its value. It reports false when they are too short (see
// controlProblem); Control is set when the key is long enough.
func (rec *Record) decodeControl() bool {
	if len(rec.Key) < 4 {
		return false
	}
	c := &ControlRecord{
		Version: int16(binary.BigEndian.Uint16(rec.Key)),
		Type:    ControlType(binary.BigEndian.Uint16(rec.Key[2:])),
	}
	rec.Control = c
	if c.Type != ControlAbort && c.Type != ControlCommit {
		return true
	}
	if len(rec.Value) < 6 {
		return false
	}
	c.ValueVersion = int16(binary.BigEndian.Uint16(rec.Value))
	c.CoordinatorEpoch = int32(binary.BigEndian.Uint32(rec.Value[2:]))
	return true
}

// controlProblem says why decodeControl reported false.
func (rec *Record) controlProblem() string {
	if rec.Control == nil {
		return fmt.Sprintf("control record key of %d bytes, want at least 4", len(rec.Key))
	}
	return fmt.Sprintf("%v marker value of %d bytes, want at least 6", rec.Control.Type, len(rec.Value))
}

// recordScratch holds *[]byte buffers in which AppendTo builds the
// records of a batch before compressing them.
var recordScratch sync.Pool

// maxPooledScratch keeps a rare huge batch from pinning its buffer.
const maxPooledScratch = 4 << 20

// AppendTo appends b as a v2 batch (magic 2 whatever b.Magic says) and
// returns the extended slice. It writes BaseOffset, PartitionLeaderEpoch,
// Attributes, LastOffsetDelta, the timestamps and the producer fields as
// they are, and computes the rest: BatchLength, Crc, RecordCount
// (len(Records)) and each record's Length; it compresses the records with
// b.Compression(). b is not modified.
//
// b.Compression() must be valid (Compression.Valid): AppendTo panics on
// codec bits 5-7, which it cannot compress with. A batch built by the
// caller has the codec the caller chose; a batch decoded from the wire may
// carry any codec bits (the decoder notes that it cannot decompress them),
// so check b.Compression().Valid() before re-encoding one.
func (b *RecordBatch) AppendTo(dst []byte) []byte {
	if c := b.Compression(); !c.Valid() {
		panic(fmt.Sprintf("codec: RecordBatch.AppendTo: invalid compression codec %d (attributes 0x%04x)", int8(c), uint16(b.Attributes)))
	}
	start := len(dst)
	dst = AppendInt64(dst, b.BaseOffset)
	dst = AppendInt32(dst, 0) // BatchLength, set below
	dst = AppendInt32(dst, b.PartitionLeaderEpoch)
	dst = AppendInt8(dst, 2)
	dst = AppendUint32(dst, 0) // Crc, set below
	dst = AppendInt16(dst, b.Attributes)
	dst = AppendInt32(dst, b.LastOffsetDelta)
	dst = AppendInt64(dst, b.BaseTimestamp)
	dst = AppendInt64(dst, b.MaxTimestamp)
	dst = AppendInt64(dst, b.ProducerId)
	dst = AppendInt16(dst, b.ProducerEpoch)
	dst = AppendInt32(dst, b.BaseSequence)
	dst = AppendInt32(dst, int32(len(b.Records)))
	if c := b.Compression(); c == CompressionNone {
		for i := range b.Records {
			dst = b.Records[i].appendTo(dst)
		}
	} else {
		bp, _ := recordScratch.Get().(*[]byte)
		if bp == nil {
			bp = new([]byte)
		}
		// Sized once: a batch of large values (the sink's JSON lines)
		// would otherwise be copied at every doubling.
		size := 0
		for i := range b.Records {
			n := b.Records[i].bodyLen()
			size += varlongSize(int64(n)) + n
		}
		raw := slices.Grow((*bp)[:0], size)
		for i := range b.Records {
			raw = b.Records[i].appendTo(raw)
		}
		var err error
		dst, err = Compress(c, dst, raw)
		if err != nil {
			panic(fmt.Sprintf("codec: RecordBatch.AppendTo: %v", err))
		}
		if cap(raw) <= maxPooledScratch {
			*bp = raw
			recordScratch.Put(bp)
		}
	}
	binary.BigEndian.PutUint32(dst[start+8:], uint32(len(dst)-start-entryHeaderLen))
	binary.BigEndian.PutUint32(dst[start+17:], crc32.Checksum(dst[start+batchCrcStart:], castagnoli))
	return dst
}

// bodyLen is the record's Length: its encoded size after the Length field.
func (rec *Record) bodyLen() int {
	n := 1 + varlongSize(rec.TimestampDelta) + varlongSize(int64(rec.OffsetDelta)) +
		varintBytesSize(rec.Key) + varintBytesSize(rec.Value) + varlongSize(int64(len(rec.Headers)))
	for i := range rec.Headers {
		h := &rec.Headers[i]
		n += varlongSize(int64(len(h.Key))) + len(h.Key) + varintBytesSize(h.Value)
	}
	return n
}

// appendTo appends the record with its computed Length.
func (rec *Record) appendTo(dst []byte) []byte {
	n := rec.bodyLen()
	dst = AppendVarint(dst, int32(n))
	dst = AppendInt8(dst, rec.Attributes)
	dst = AppendVarlong(dst, rec.TimestampDelta)
	dst = AppendVarint(dst, rec.OffsetDelta)
	dst = AppendVarintBytes(dst, rec.Key)
	dst = AppendVarintBytes(dst, rec.Value)
	dst = AppendVarint(dst, int32(len(rec.Headers)))
	for i := range rec.Headers {
		h := &rec.Headers[i]
		dst = AppendVarint(dst, int32(len(h.Key)))
		dst = append(dst, h.Key...)
		dst = AppendVarintBytes(dst, h.Value)
	}
	return dst
}

// varlongSize is the encoded size of v as a zig-zag varint.
func varlongSize(v int64) int {
	u := uint64(v<<1) ^ uint64(v>>63)
	return (bits.Len64(u|1) + 6) / 7
}

// varintBytesSize is the encoded size of b with a varint length (-1 for nil).
func varintBytesSize(b []byte) int {
	if b == nil {
		return 1
	}
	return varlongSize(int64(len(b))) + len(b)
}

// writeJSON writes the batch as
//
//	{"BaseOffset", "BatchLength", "PartitionLeaderEpoch", "Magic", "Crc",
//	 "CrcValid", "Attributes", "Compression": "none"|"gzip"|..,
//	 "TimestampType": "CreateTime"|"LogAppendTime", "IsTransactional",
//	 "IsControl", "LastOffsetDelta", "BaseTimestamp", "MaxTimestamp",
//	 "ProducerId", "ProducerEpoch", "BaseSequence", "RecordCount",
//	 "Transaction": "committed"|"aborted"|"undecided" (marked batches of
//	 a Fetch response only, see MarkTransactions),
//	 "Records": [{"Offset", "Timestamp" (the batch's MaxTimestamp under
//	   LogAppendTime), "WireTimestamp" (the record's own, BaseTimestamp +
//	   TimestampDelta, when LogAppendTime gave it another), "Attributes",
//	   "TimestampDelta",
//	   "OffsetDelta", "Key", "Value", "Headers": [{"Key", "Value"}],
//	   and for control records "ControlType": "COMMIT"|"ABORT"|..,
//	   "CoordinatorEpoch" (markers only)}]}
//
// with keys, values and header values as JSONWriter byte strings.
//
// A batch with gaps leaves out the fields not captured (and what derives
// from them: Attributes' Compression, TimestampType, IsTransactional and
// IsControl), CrcValid, and Records when RecordCount was not captured and
// no record decoded; it adds "RecordsNotCaptured" when RecordCount was
// captured and "NotCaptured": [{"start", "end"}] (relative to the batch).
func (b *RecordBatch) writeJSON(w *JSONWriter) {
	if b.nc != 0 || b.Gaps != nil {
		b.writeHoledJSON(w)
		return
	}
	w.BeginObject()
	w.Key("BaseOffset")
	w.Int(b.BaseOffset)
	w.Key("BatchLength")
	w.Int(int64(b.BatchLength))
	w.Key("PartitionLeaderEpoch")
	w.Int(int64(b.PartitionLeaderEpoch))
	w.Key("Magic")
	w.Int(int64(b.Magic))
	w.Key("Crc")
	w.Uint(uint64(b.Crc))
	w.Key("CrcValid")
	w.Bool(b.CrcValid)
	w.Key("Attributes")
	w.Int(int64(b.Attributes))
	w.Key("Compression")
	w.String(b.Compression().String())
	w.Key("TimestampType")
	w.String(b.TimestampType().String())
	w.Key("IsTransactional")
	w.Bool(b.IsTransactional())
	w.Key("IsControl")
	w.Bool(b.IsControl())
	w.Key("LastOffsetDelta")
	w.Int(int64(b.LastOffsetDelta))
	w.Key("BaseTimestamp")
	w.Int(b.BaseTimestamp)
	w.Key("MaxTimestamp")
	w.Int(b.MaxTimestamp)
	w.Key("ProducerId")
	w.Int(b.ProducerId)
	w.Key("ProducerEpoch")
	w.Int(int64(b.ProducerEpoch))
	w.Key("BaseSequence")
	w.Int(int64(b.BaseSequence))
	w.Key("RecordCount")
	w.Int(int64(b.RecordCount))
	if b.Transaction != TxnNone {
		w.Key("Transaction")
		w.String(b.Transaction.String())
	}
	w.Key("Records")
	if b.RecordsCounted {
		w.Null() // counted, not decoded
		w.EndObject()
		return
	}
	w.BeginArray()
	for i := range b.Records {
		b.Records[i].writeJSON(w, b)
	}
	w.EndArray()
	w.EndObject()
}

// writeHoledJSON is writeJSON for a batch with gaps.
func (b *RecordBatch) writeHoledJSON(w *JSONWriter) {
	w.BeginObject()
	int := func(name string, v int64) {
		if b.Captured(name) {
			w.Key(name)
			w.Int(v)
		}
	}
	int("BaseOffset", b.BaseOffset)
	int("BatchLength", int64(b.BatchLength))
	int("PartitionLeaderEpoch", int64(b.PartitionLeaderEpoch))
	int("Magic", int64(b.Magic))
	if b.Captured("Crc") {
		w.Key("Crc")
		w.Uint(uint64(b.Crc))
	}
	if b.Captured("Attributes") {
		w.Key("Attributes")
		w.Int(int64(b.Attributes))
		w.Key("Compression")
		w.String(b.Compression().String())
		w.Key("TimestampType")
		w.String(b.TimestampType().String())
		w.Key("IsTransactional")
		w.Bool(b.IsTransactional())
		w.Key("IsControl")
		w.Bool(b.IsControl())
	}
	int("LastOffsetDelta", int64(b.LastOffsetDelta))
	int("BaseTimestamp", b.BaseTimestamp)
	int("MaxTimestamp", b.MaxTimestamp)
	int("ProducerId", b.ProducerId)
	int("ProducerEpoch", int64(b.ProducerEpoch))
	int("BaseSequence", int64(b.BaseSequence))
	int("RecordCount", int64(b.RecordCount))
	if b.RecordsNotCaptured >= 0 && b.Captured("RecordCount") {
		w.Key("RecordsNotCaptured")
		w.Int(int64(b.RecordsNotCaptured))
	}
	if b.Transaction != TxnNone {
		w.Key("Transaction")
		w.String(b.Transaction.String())
	}
	if len(b.Records) > 0 || b.Captured("RecordCount") {
		w.Key("Records")
		w.BeginArray()
		for i := range b.Records {
			b.Records[i].writeJSON(w, b)
		}
		w.EndArray()
	}
	if b.Gaps != nil {
		w.Key("NotCaptured")
		writeGapsJSON(w, b.Gaps)
	}
	w.EndObject()
}

// writeJSON writes rec, a record of b; see RecordBatch.writeJSON.
func (rec *Record) writeJSON(w *JSONWriter, b *RecordBatch) {
	w.BeginObject()
	w.quotedKey(`"Offset":`)
	w.Int(rec.Offset)
	w.quotedKey(`"Timestamp":`)
	w.Int(rec.Timestamp)
	if t := b.TimeOf(rec); t.Differs() {
		w.quotedKey(`"WireTimestamp":`)
		w.Int(t.Own)
	}
	w.quotedKey(`"Attributes":`)
	w.Int(int64(rec.Attributes))
	w.quotedKey(`"TimestampDelta":`)
	w.Int(rec.TimestampDelta)
	w.quotedKey(`"OffsetDelta":`)
	w.Int(int64(rec.OffsetDelta))
	w.quotedKey(`"Key":`)
	w.ByteString(rec.Key)
	w.quotedKey(`"Value":`)
	w.ByteString(rec.Value)
	w.quotedKey(`"Headers":`)
	w.BeginArray()
	for i := range rec.Headers {
		w.BeginObject()
		w.quotedKey(`"Key":`)
		w.String(rec.Headers[i].Key)
		w.quotedKey(`"Value":`)
		w.ByteString(rec.Headers[i].Value)
		w.EndObject()
	}
	w.EndArray()
	if c := rec.Control; c != nil {
		w.quotedKey(`"ControlType":`)
		w.String(c.Type.String())
		if c.Type == ControlAbort || c.Type == ControlCommit {
			w.quotedKey(`"CoordinatorEpoch":`)
			w.Int(int64(c.CoordinatorEpoch))
		}
	}
	w.EndObject()
}
