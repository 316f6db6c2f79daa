package codec

import (
	"bytes"
	stdgzip "compress/gzip"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// goldenBatchV2 is an uncompressed v2 batch with two records: one with a
// key and a header, one with a null key.
var goldenBatchV2 = []byte{
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x64, // BaseOffset 100
	0x00, 0x00, 0x00, 0x4f, // BatchLength 79
	0x00, 0x00, 0x00, 0x05, // PartitionLeaderEpoch 5
	0x02,                   // Magic 2
	0x4b, 0xf4, 0x2f, 0x08, // Crc: CRC-32C of Attributes..end
	0x00, 0x00, // Attributes: no compression, CreateTime
	0x00, 0x00, 0x00, 0x01, // LastOffsetDelta 1
	0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00, // BaseTimestamp 1700000000000
	0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x05, // MaxTimestamp 1700000000005
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // ProducerId -1
	0xff, 0xff, // ProducerEpoch -1
	0xff, 0xff, 0xff, 0xff, // BaseSequence -1
	0x00, 0x00, 0x00, 0x02, // RecordCount 2
	// record 0
	0x22,           // Length 17 (zig-zag varint)
	0x00,           // Attributes
	0x00,           // TimestampDelta 0
	0x00,           // OffsetDelta 0
	0x04, 'k', '1', // Key "k1" (length 2)
	0x0a, 'h', 'e', 'l', 'l', 'o', // Value "hello" (length 5)
	0x02,      // 1 header
	0x02, 'h', // header Key "h"
	0x02, 'v', // header Value "v"
	// record 1
	0x16,                          // Length 11
	0x00,                          // Attributes
	0x0a,                          // TimestampDelta 5
	0x02,                          // OffsetDelta 1
	0x01,                          // Key null (-1)
	0x0a, 'w', 'o', 'r', 'l', 'd', // Value "world"
	0x00, // 0 headers
}

var wantBatchV2 = RecordBatch{
	BaseOffset: 100, BatchLength: 79, PartitionLeaderEpoch: 5, Magic: 2,
	Crc: 0x4bf42f08, CrcValid: true, Attributes: 0, LastOffsetDelta: 1,
	BaseTimestamp: 1700000000000, MaxTimestamp: 1700000000005,
	ProducerId: -1, ProducerEpoch: -1, BaseSequence: -1, RecordCount: 2,
	Records: []Record{
		{Length: 17, Key: []byte("k1"), Value: []byte("hello"),
			Headers: []RecordHeader{{Key: "h", Value: []byte("v")}},
			Offset:  100, Timestamp: 1700000000000},
		{Length: 11, TimestampDelta: 5, OffsetDelta: 1, Value: []byte("world"),
			Offset: 101, Timestamp: 1700000000005},
	},
}

// goldenControlBatch is a transactional control batch holding a COMMIT
// marker, as the transaction coordinator writes it.
var goldenControlBatch = []byte{
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc8, // BaseOffset 200
	0x00, 0x00, 0x00, 0x42, // BatchLength 66
	0x00, 0x00, 0x00, 0x05, // PartitionLeaderEpoch 5
	0x02,                   // Magic 2
	0x23, 0xde, 0x4c, 0x92, // Crc
	0x00, 0x30, // Attributes: transactional (bit 4) | control (bit 5)
	0x00, 0x00, 0x00, 0x00, // LastOffsetDelta 0
	0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00, // BaseTimestamp 1700000000000
	0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00, // MaxTimestamp 1700000000000
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0f, 0xa0, // ProducerId 4000
	0x00, 0x02, // ProducerEpoch 2
	0xff, 0xff, 0xff, 0xff, // BaseSequence -1
	0x00, 0x00, 0x00, 0x01, // RecordCount 1
	0x20,       // Length 16
	0x00,       // Attributes
	0x00,       // TimestampDelta 0
	0x00,       // OffsetDelta 0
	0x08,       // Key length 4
	0x00, 0x00, //   control key version 0
	0x00, 0x01, //   control type 1 (COMMIT)
	0x0c,       // Value length 6
	0x00, 0x00, //   marker version 0
	0x00, 0x00, 0x00, 0x0a, // CoordinatorEpoch 10
	0x00, // 0 headers
}

var wantControlBatch = RecordBatch{
	BaseOffset: 200, BatchLength: 66, PartitionLeaderEpoch: 5, Magic: 2,
	Crc: 0x23de4c92, CrcValid: true, Attributes: 0x30,
	BaseTimestamp: 1700000000000, MaxTimestamp: 1700000000000,
	ProducerId: 4000, ProducerEpoch: 2, BaseSequence: -1, RecordCount: 1,
	Records: []Record{{
		Length: 16, Key: []byte{0, 0, 0, 1}, Value: []byte{0, 0, 0, 0, 0, 10},
		Offset: 200, Timestamp: 1700000000000,
		Control: &ControlRecord{Version: 0, Type: ControlCommit, ValueVersion: 0, CoordinatorEpoch: 10},
	}},
}

// decodeOneBatch decodes raw, which must hold exactly one clean v2 batch.
func decodeOneBatch(t *testing.T, raw []byte, opts RecordDecodeOptions) *RecordBatch {
	t.Helper()
	s := DecodeRecordSet(raw, opts)
	if len(s.Entries) != 1 || s.Entries[0].Batch == nil || s.Entries[0].Message != nil {
		t.Fatalf("want one batch entry, got %d entries (notes %q)", len(s.Entries), s.Notes)
	}
	if len(s.Notes) != 0 || s.PartialBytes != 0 {
		t.Fatalf("notes %q, PartialBytes %d; want none", s.Notes, s.PartialBytes)
	}
	return s.Entries[0].Batch
}

func TestRecordBatchGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		raw  []byte
		want *RecordBatch
	}{
		{"two records", goldenBatchV2, &wantBatchV2},
		{"commit marker", goldenControlBatch, &wantControlBatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := decodeOneBatch(t, tc.raw, RecordDecodeOptions{})
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("decoded\n%+v\nwant\n%+v", *got, *tc.want)
			}
			if n := DecodeRecordSet(tc.raw, RecordDecodeOptions{}).Count(); n != len(tc.want.Records) {
				t.Errorf("Count %d, want %d", n, len(tc.want.Records))
			}
			prefix := []byte{0xaa, 0xbb}
			enc := got.AppendTo(prefix)
			if !bytes.Equal(enc[:2], prefix) || !bytes.Equal(enc[2:], tc.raw) {
				t.Fatalf("AppendTo\n% x\nwant\n% x", enc[2:], tc.raw)
			}
		})
	}
}

func TestRecordBatchAccessors(t *testing.T) {
	b := RecordBatch{Attributes: 0x7b} // lz4 | LogAppendTime | transactional | control | delete horizon
	if b.Compression() != CompressionLZ4 || b.TimestampType() != TimestampLogAppendTime ||
		!b.IsTransactional() || !b.IsControl() || !b.HasDeleteHorizon() {
		t.Errorf("attributes 0x7b: %v %v %v %v %v", b.Compression(), b.TimestampType(), b.IsTransactional(), b.IsControl(), b.HasDeleteHorizon())
	}
	b = RecordBatch{Attributes: 0x04}
	if b.Compression() != CompressionZstd || b.TimestampType() != TimestampCreateTime || b.IsTransactional() || b.IsControl() || b.HasDeleteHorizon() {
		t.Error("attributes 0x04: wrong accessors")
	}
}

func TestRecordBatchLogAppendTime(t *testing.T) {
	b := wantBatchV2
	b.Attributes = batchTimestampTypeBit
	b.MaxTimestamp = 1800000000000
	got := decodeOneBatch(t, b.AppendTo(nil), RecordDecodeOptions{})
	for i, r := range got.Records {
		if r.Timestamp != b.MaxTimestamp {
			t.Errorf("record %d Timestamp %d, want MaxTimestamp %d under LogAppendTime", i, r.Timestamp, b.MaxTimestamp)
		}
	}
}

func TestRecordBatchJSON(t *testing.T) {
	s := DecodeRecordSet(append(append([]byte(nil), goldenBatchV2...), goldenControlBatch...), RecordDecodeOptions{})
	w := NewJSONWriter(nil)
	s.WriteJSON(w)
	want := `[{"BaseOffset":100,"BatchLength":79,"PartitionLeaderEpoch":5,"Magic":2,"Crc":1274294024,"CrcValid":true,` +
		`"Attributes":0,"Compression":"none","TimestampType":"CreateTime","IsTransactional":false,"IsControl":false,` +
		`"LastOffsetDelta":1,"BaseTimestamp":1700000000000,"MaxTimestamp":1700000000005,"ProducerId":-1,"ProducerEpoch":-1,` +
		`"BaseSequence":-1,"RecordCount":2,"Records":[` +
		`{"Offset":100,"Timestamp":1700000000000,"Attributes":0,"TimestampDelta":0,"OffsetDelta":0,"Key":"k1","Value":"hello","Headers":[{"Key":"h","Value":"v"}]},` +
		`{"Offset":101,"Timestamp":1700000000005,"Attributes":0,"TimestampDelta":5,"OffsetDelta":1,"Key":null,"Value":"world","Headers":[]}]},` +
		`{"BaseOffset":200,"BatchLength":66,"PartitionLeaderEpoch":5,"Magic":2,"Crc":601771154,"CrcValid":true,` +
		`"Attributes":48,"Compression":"none","TimestampType":"CreateTime","IsTransactional":true,"IsControl":true,` +
		`"LastOffsetDelta":0,"BaseTimestamp":1700000000000,"MaxTimestamp":1700000000000,"ProducerId":4000,"ProducerEpoch":2,` +
		`"BaseSequence":-1,"RecordCount":1,"Records":[` +
		`{"Offset":200,"Timestamp":1700000000000,"Attributes":0,"TimestampDelta":0,"OffsetDelta":0,` +
		`"Key":{"base64":"AAAAAQ=="},"Value":{"base64":"AAAAAAAK"},"Headers":[],"ControlType":"COMMIT","CoordinatorEpoch":10}]}]`
	if got := string(w.Bytes()); got != want {
		t.Fatalf("JSON\n%s\nwant\n%s", got, want)
	}
	if !json.Valid(w.Bytes()) {
		t.Fatal("invalid JSON")
	}
}

// randomRecords returns n records with nil, empty and non-empty keys,
// values and header values, and random timestamp deltas; Offset and
// Timestamp are left for withComputed.
func randomRecords(rng *rand.Rand, n int) []Record {
	randBytes := func(nilOneIn, maxLen int) []byte {
		if rng.IntN(nilOneIn) == 0 {
			return nil
		}
		b := make([]byte, rng.IntN(maxLen+1))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	recs := make([]Record, n)
	delta := int32(0)
	for i := range recs {
		r := &recs[i]
		r.OffsetDelta = delta
		delta += 1 + int32(rng.IntN(2)) // gaps, as after compaction
		r.TimestampDelta = rng.Int64N(1<<40) - 1<<39
		r.Key = randBytes(4, 40)
		r.Value = randBytes(8, 300)
		for range rng.IntN(4) {
			key := string(randBytes(1<<30, 10))
			r.Headers = append(r.Headers, RecordHeader{Key: key, Value: randBytes(4, 20)})
		}
	}
	return recs
}

// randomBatch returns a batch with random header fields, codec c and n
// random records.
func randomBatch(rng *rand.Rand, c Compression, n int) RecordBatch {
	b := RecordBatch{
		BaseOffset:           rng.Int64N(1 << 50),
		PartitionLeaderEpoch: rng.Int32(),
		Magic:                2,
		Attributes:           int16(c) | int16(rng.IntN(4))<<3, // timestamp type and transactional bits
		BaseTimestamp:        1700000000000 + rng.Int64N(1<<30),
		ProducerId:           rng.Int64N(1<<40) - 1,
		ProducerEpoch:        int16(rng.IntN(1 << 15)),
		BaseSequence:         rng.Int32(),
		Records:              randomRecords(rng, n),
	}
	b.MaxTimestamp = b.BaseTimestamp + rng.Int64N(1000)
	if n > 0 {
		b.LastOffsetDelta = b.Records[n-1].OffsetDelta
	}
	b.RecordCount = int32(n)
	return b
}

// withComputed fills the decode-only fields of b's records.
func withComputed(b RecordBatch) []Record {
	out := append([]Record(nil), b.Records...)
	for i := range out {
		out[i].Offset = b.BaseOffset + int64(out[i].OffsetDelta)
		out[i].Timestamp = b.BaseTimestamp + out[i].TimestampDelta
		if b.TimestampType() == TimestampLogAppendTime {
			out[i].Timestamp = b.MaxTimestamp
		}
		length, _ := binary.Varint(out[i].appendTo(nil))
		out[i].Length = int32(length)
	}
	return out
}

// kmsgRecordBytes encodes r with kmsg, setting the Length kmsg leaves to
// the caller.
func kmsgRecordBytes(r *kmsg.Record) []byte {
	r.Length = 0
	body := len(r.AppendTo(nil)) - 1 // a zero Length takes one byte
	r.Length = int32(body)
	return r.AppendTo(nil)
}

func toKmsgRecord(r *Record) kmsg.Record {
	k := kmsg.Record{Attributes: r.Attributes, TimestampDelta64: r.TimestampDelta, TimestampDelta: int32(r.TimestampDelta),
		OffsetDelta: r.OffsetDelta, Key: r.Key, Value: r.Value}
	for _, h := range r.Headers {
		k.Headers = append(k.Headers, kmsg.Header{Key: h.Key, Value: h.Value})
	}
	return k
}

func sameNullableBytes(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }

// TestRecordBatchKmsgDifferential holds our v2 encoder and decoder against
// franz-go's kmsg in both directions, for every codec.
func TestRecordBatchKmsgDifferential(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 43))
	for _, c := range allCompressions {
		for iter := range 15 {
			n := rng.IntN(40)
			if iter == 0 {
				n = 0
			}
			b := randomBatch(rng, c, n)

			// Ours → theirs.
			ours := b.AppendTo(nil)
			var kb kmsg.RecordBatch
			if err := kb.ReadFrom(ours); err != nil {
				t.Fatalf("%v: kmsg cannot read our batch: %v", c, err)
			}
			if kb.FirstOffset != b.BaseOffset || kb.PartitionLeaderEpoch != b.PartitionLeaderEpoch || kb.Magic != 2 ||
				kb.Attributes != b.Attributes || kb.LastOffsetDelta != b.LastOffsetDelta || kb.FirstTimestamp != b.BaseTimestamp ||
				kb.MaxTimestamp != b.MaxTimestamp || kb.ProducerID != b.ProducerId || kb.ProducerEpoch != b.ProducerEpoch ||
				kb.FirstSequence != b.BaseSequence || kb.NumRecords != int32(n) || int(kb.Length) != len(ours)-12 {
				t.Fatalf("%v: kmsg read header %+v from our batch %+v", c, kb, b)
			}
			if uint32(kb.CRC) != crc32.Checksum(ours[21:], crc32.MakeTable(crc32.Castagnoli)) {
				t.Fatalf("%v: our CRC is wrong", c)
			}
			plain := independentDecompress(t, c, kb.Records)
			for i := range n {
				length, vn := binary.Varint(plain)
				var kr kmsg.Record
				if err := kr.ReadFrom(plain[:vn+int(length)]); err != nil {
					t.Fatalf("%v: kmsg record %d: %v", c, i, err)
				}
				plain = plain[vn+int(length):]
				want := toKmsgRecord(&b.Records[i])
				if kr.Attributes != want.Attributes || kr.TimestampDelta64 != want.TimestampDelta64 || kr.OffsetDelta != want.OffsetDelta ||
					!sameNullableBytes(kr.Key, want.Key) || !sameNullableBytes(kr.Value, want.Value) || len(kr.Headers) != len(want.Headers) {
					t.Fatalf("%v: kmsg record %d = %+v, want %+v", c, i, kr, want)
				}
				for j := range kr.Headers {
					if kr.Headers[j].Key != want.Headers[j].Key || !sameNullableBytes(kr.Headers[j].Value, want.Headers[j].Value) {
						t.Fatalf("%v: kmsg record %d header %d = %+v, want %+v", c, i, j, kr.Headers[j], want.Headers[j])
					}
				}
			}
			if len(plain) != 0 {
				t.Fatalf("%v: %d bytes after the records", c, len(plain))
			}

			// Theirs → ours: kmsg writes the batch, Compress the records.
			var recs []byte
			for i := range b.Records {
				kr := toKmsgRecord(&b.Records[i])
				recs = append(recs, kmsgRecordBytes(&kr)...)
			}
			comp, err := Compress(c, nil, recs)
			if err != nil {
				t.Fatal(err)
			}
			kb = kmsg.RecordBatch{FirstOffset: b.BaseOffset, Length: int32(49 + len(comp)), PartitionLeaderEpoch: b.PartitionLeaderEpoch,
				Magic: 2, Attributes: b.Attributes, LastOffsetDelta: b.LastOffsetDelta, FirstTimestamp: b.BaseTimestamp,
				MaxTimestamp: b.MaxTimestamp, ProducerID: b.ProducerId, ProducerEpoch: b.ProducerEpoch, FirstSequence: b.BaseSequence,
				NumRecords: int32(n), Records: comp}
			theirs := kb.AppendTo(nil)
			binary.BigEndian.PutUint32(theirs[17:], crc32.Checksum(theirs[21:], crc32.MakeTable(crc32.Castagnoli)))
			got := decodeOneBatch(t, theirs, RecordDecodeOptions{})
			want := b
			want.BatchLength = kb.Length
			want.Crc = binary.BigEndian.Uint32(theirs[17:])
			want.CrcValid = true
			want.Records = withComputed(b)
			if n == 0 {
				want.Records = []Record{}
			}
			if !reflect.DeepEqual(got, &want) {
				t.Fatalf("%v: decoded kmsg batch\n%+v\nwant\n%+v", c, *got, want)
			}
			if c == CompressionNone && !bytes.Equal(theirs, ours) {
				t.Fatalf("uncompressed: kmsg bytes and ours differ\n% x\n% x", theirs, ours)
			}
		}
	}
}

// independentDecompress decompresses with the libraries directly (stdlib
// gzip where possible), not through Decompress.
func independentDecompress(t *testing.T, c Compression, src []byte) []byte {
	t.Helper()
	var out []byte
	var err error
	switch c {
	case CompressionNone:
		return src
	case CompressionGzip:
		var zr *stdgzip.Reader
		if zr, err = stdgzip.NewReader(bytes.NewReader(src)); err == nil {
			var buf bytes.Buffer
			_, err = buf.ReadFrom(zr)
			out = buf.Bytes()
		}
	case CompressionSnappy:
		// xerial framing: header, then length-prefixed raw blocks.
		for p := 16; p < len(src) && err == nil; {
			n := int(binary.BigEndian.Uint32(src[p:]))
			var d []byte
			d, err = snappy.Decode(nil, src[p+4:p+4+n])
			out = append(out, d...)
			p += 4 + n
		}
	case CompressionLZ4:
		var buf bytes.Buffer
		_, err = buf.ReadFrom(lz4.NewReader(bytes.NewReader(src)))
		out = buf.Bytes()
	case CompressionZstd:
		var zd *zstd.Decoder
		if zd, err = zstd.NewReader(nil); err == nil {
			out, err = zd.DecodeAll(src, nil)
			zd.Close()
		}
	}
	if err != nil {
		t.Fatalf("%v: independent decompression: %v", c, err)
	}
	return out
}

func TestRecordBatchCompressedRoundTrip(t *testing.T) {
	for _, c := range allCompressions {
		b := wantBatchV2
		b.Attributes = int16(c)
		raw := b.AppendTo(nil)
		got := decodeOneBatch(t, raw, RecordDecodeOptions{})
		if !reflect.DeepEqual(got.Records, wantBatchV2.Records) || got.Compression() != c || !got.CrcValid {
			t.Errorf("%v: records %+v, codec %v, CrcValid %v", c, got.Records, got.Compression(), got.CrcValid)
		}
		// Re-encoding what was decoded gives the same bytes.
		if again := got.AppendTo(nil); !bytes.Equal(again, raw) {
			t.Errorf("%v: re-encoding differs", c)
		}
	}
}

// rawBatch writes b's header fields as they are (RecordCount too) followed
// by payload, with BatchLength and Crc computed: a batch whose records can
// be anything.
func rawBatch(b RecordBatch, payload []byte) []byte {
	hdr := b
	hdr.Records = nil
	hdr.Attributes &^= compressionMask
	out := hdr.AppendTo(nil)
	out = append(out, payload...)
	binary.BigEndian.PutUint16(out[21:], uint16(b.Attributes))
	binary.BigEndian.PutUint32(out[57:], uint32(b.RecordCount))
	fixBatch(out)
	return out
}

// fixBatch recomputes BatchLength and Crc of the one batch in raw.
func fixBatch(raw []byte) {
	binary.BigEndian.PutUint32(raw[8:], uint32(len(raw)-12))
	binary.BigEndian.PutUint32(raw[17:], crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli)))
}

func hasNote(s *RecordSet, substrs ...string) bool {
	for _, n := range s.Notes {
		all := true
		for _, sub := range substrs {
			all = all && strings.Contains(n, sub)
		}
		if all {
			return true
		}
	}
	return false
}

func TestRecordSetBadInput(t *testing.T) {
	two := append(append([]byte(nil), goldenBatchV2...), goldenControlBatch...)

	t.Run("CRC mismatch", func(t *testing.T) {
		raw := append([]byte(nil), goldenBatchV2...)
		raw[len(raw)-2] = 'D' // "world" → "worlD"
		s := DecodeRecordSet(raw, RecordDecodeOptions{})
		b := s.Entries[0].Batch
		if b.CrcValid || !hasNote(s, "batch at byte 0 (BaseOffset 100)", "CRC-32C mismatch", "0x4bf42f08") {
			t.Fatalf("CrcValid %v, notes %q", b.CrcValid, s.Notes)
		}
		if len(b.Records) != 2 || string(b.Records[1].Value) != "worlD" {
			t.Fatalf("records not decoded past the CRC mismatch: %+v", b.Records)
		}
	})

	t.Run("truncated last batch", func(t *testing.T) {
		for _, cut := range []int{1, 11, 12, 16, 17, 60, 61, len(goldenControlBatch) - 1} {
			raw := two[:len(goldenBatchV2)+cut]
			s := DecodeRecordSet(raw, RecordDecodeOptions{})
			if len(s.Entries) != 1 || !reflect.DeepEqual(s.Entries[0].Batch, &wantBatchV2) || s.PartialBytes != cut || len(s.Notes) != 0 || s.Count() != 2 {
				t.Fatalf("cut %d: %d entries, PartialBytes %d, Count %d, notes %q", cut, len(s.Entries), s.PartialBytes, s.Count(), s.Notes)
			}
		}
	})

	t.Run("unknown magic", func(t *testing.T) {
		raw := append([]byte(nil), two...)
		raw[len(goldenBatchV2)+16] = 7
		s := DecodeRecordSet(raw, RecordDecodeOptions{})
		if len(s.Entries) != 1 || s.PartialBytes != 0 || !hasNote(s, "unknown magic 7", fmt.Sprintf("%d bytes left undecoded at byte %d", len(goldenControlBatch), len(goldenBatchV2))) {
			t.Fatalf("%d entries, notes %q", len(s.Entries), s.Notes)
		}
	})

	t.Run("negative size", func(t *testing.T) {
		raw := append([]byte(nil), goldenBatchV2...)
		binary.BigEndian.PutUint32(raw[8:], 0xfffffff0)
		s := DecodeRecordSet(raw, RecordDecodeOptions{})
		if len(s.Entries) != 0 || !hasNote(s, "negative entry size -16") {
			t.Fatalf("%d entries, notes %q", len(s.Entries), s.Notes)
		}
	})

	t.Run("batch length below header", func(t *testing.T) {
		raw := append([]byte(nil), goldenBatchV2...)
		binary.BigEndian.PutUint32(raw[8:], 48)
		s := DecodeRecordSet(raw, RecordDecodeOptions{})
		if len(s.Entries) != 0 || !hasNote(s, "entry size 48 below the 49 bytes") {
			t.Fatalf("%d entries, notes %q", len(s.Entries), s.Notes)
		}
	})

	t.Run("RecordCount lying high", func(t *testing.T) {
		b := wantBatchV2
		b.RecordCount = 2_000_000_000
		raw := rawBatch(b, goldenBatchV2[61:])
		var s *RecordSet
		alloc := allocatedBytes(func() { s = DecodeRecordSet(raw, RecordDecodeOptions{}) })
		if got := s.Entries[0].Batch; len(got.Records) != 2 || got.RecordCount != 2_000_000_000 {
			t.Fatalf("%d records, RecordCount %d", len(got.Records), got.RecordCount)
		}
		if !hasNote(s, "RecordCount 2000000000 on the wire, 2 records decoded") {
			t.Fatalf("notes %q", s.Notes)
		}
		if alloc > 16<<10 {
			t.Fatalf("decoding 79 bytes allocated %d bytes", alloc)
		}
	})

	t.Run("RecordCount lying low", func(t *testing.T) {
		// Decoding stops at RecordCount, as Kafka's batch iterator does.
		b := wantBatchV2
		b.RecordCount = 1
		s := DecodeRecordSet(rawBatch(b, goldenBatchV2[61:]), RecordDecodeOptions{})
		if got := s.Entries[0].Batch; len(got.Records) != 1 || len(s.Notes) != 1 ||
			!hasNote(s, "batch at byte 0 (BaseOffset 100): 12 bytes after the 1 records of RecordCount, not decoded (1 more records by their lengths)") {
			t.Fatalf("%d records, notes %q", len(got.Records), s.Notes)
		}
	})

	t.Run("RecordCount negative", func(t *testing.T) {
		b := wantBatchV2
		b.RecordCount = -1
		s := DecodeRecordSet(rawBatch(b, goldenBatchV2[61:]), RecordDecodeOptions{})
		if got := s.Entries[0].Batch; len(got.Records) != 2 || !hasNote(s, "RecordCount -1 on the wire, 2 records decoded") {
			t.Fatalf("%d records, notes %q", len(got.Records), s.Notes)
		}
	})

	t.Run("garbage after the records", func(t *testing.T) {
		payload := append(append([]byte(nil), goldenBatchV2[61:]...), 0x7f, 0x01)
		s := DecodeRecordSet(rawBatch(wantBatchV2, payload), RecordDecodeOptions{})
		if got := s.Entries[0].Batch; len(got.Records) != 2 || len(s.Notes) != 1 || !hasNote(s, "2 bytes after the 2 records of RecordCount, not decoded (0 more records") {
			t.Fatalf("%d records, notes %q", len(got.Records), s.Notes)
		}
	})

	t.Run("record length past the end", func(t *testing.T) {
		payload := append([]byte(nil), goldenBatchV2[61:]...)
		payload[18] = 0x7e // record 1 Length 63
		s := DecodeRecordSet(rawBatch(wantBatchV2, payload), RecordDecodeOptions{})
		if got := s.Entries[0].Batch; len(got.Records) != 1 || !hasNote(s, "record 1 at byte 18 of the records: length") ||
			!hasNote(s, "RecordCount 2 on the wire, 1 records decoded") {
			t.Fatalf("%d records, notes %q", len(got.Records), s.Notes)
		}
	})

	t.Run("record with bytes after its fields", func(t *testing.T) {
		payload := append([]byte(nil), goldenBatchV2[61:]...)
		payload[18] = 0x18              // record 1 Length 12
		payload = append(payload, 0x00) // one more byte inside it
		s := DecodeRecordSet(rawBatch(wantBatchV2, payload), RecordDecodeOptions{})
		if !hasNote(s, "record 1", "1 bytes left in the record after its fields") {
			t.Fatalf("notes %q", s.Notes)
		}
	})

	t.Run("header count lying", func(t *testing.T) {
		payload := append([]byte(nil), goldenBatchV2[61:]...)
		payload[13] = 0x7e // record 0: 63 headers
		var s *RecordSet
		alloc := allocatedBytes(func() { s = DecodeRecordSet(rawBatch(wantBatchV2, payload), RecordDecodeOptions{}) })
		if !hasNote(s, "record 0", "header count 63 with 4 bytes left") || alloc > 16<<10 {
			t.Fatalf("notes %q, %d bytes allocated", s.Notes, alloc)
		}
	})

	t.Run("null header key", func(t *testing.T) {
		payload := append([]byte(nil), goldenBatchV2[61:]...)
		payload[14] = 0x01 // header key length -1
		s := DecodeRecordSet(rawBatch(wantBatchV2, payload), RecordDecodeOptions{})
		if !hasNote(s, "record 0", "header 0: null or negative key length -1") {
			t.Fatalf("notes %q", s.Notes)
		}
	})

	t.Run("corrupt compressed records", func(t *testing.T) {
		for _, c := range allCompressions[1:] {
			b := wantBatchV2
			b.Attributes = int16(c)
			raw := b.AppendTo(nil)
			raw = raw[:len(raw)-3] // cut the compressed data
			fixBatch(raw)
			s := DecodeRecordSet(raw, RecordDecodeOptions{})
			if len(s.Entries) != 1 || s.Entries[0].Batch.CrcValid == false || !hasNote(s, c.String()+" decompression") {
				t.Errorf("%v: %d entries, notes %q", c, len(s.Entries), s.Notes)
			}
		}
	})

	t.Run("compressed batch without records", func(t *testing.T) {
		for _, c := range allCompressions {
			b := wantBatchV2
			b.Attributes = int16(c)
			b.RecordCount = 0
			s := DecodeRecordSet(rawBatch(b, nil), RecordDecodeOptions{})
			if len(s.Entries) != 1 || len(s.Notes) != 0 || s.Count() != 0 {
				t.Errorf("%v: %d entries, notes %q", c, len(s.Entries), s.Notes)
			}
		}
	})

	t.Run("unknown codec", func(t *testing.T) {
		b := wantBatchV2
		b.Attributes = 6
		s := DecodeRecordSet(rawBatch(b, goldenBatchV2[61:]), RecordDecodeOptions{})
		if len(s.Entries) != 1 || len(s.Entries[0].Batch.Records) != 0 || !hasNote(s, "unsupported compression codec 6") {
			t.Fatalf("notes %q", s.Notes)
		}
		w := NewJSONWriter(nil)
		s.WriteJSON(w)
		if !strings.Contains(string(w.Bytes()), `"Compression":"unknown(6)"`) {
			t.Fatalf("JSON %s", w.Bytes())
		}
	})

	t.Run("malformed control record", func(t *testing.T) {
		b := wantControlBatch
		b.Records = []Record{{Key: []byte{0, 0}, Value: nil}}
		s := DecodeRecordSet(b.AppendTo(nil), RecordDecodeOptions{})
		if got := s.Entries[0].Batch.Records; len(got) != 1 || got[0].Control != nil || !hasNote(s, "control record key of 2 bytes") {
			t.Fatalf("records %+v, notes %q", got, s.Notes)
		}
	})

	t.Run("null and empty input", func(t *testing.T) {
		var r Records // a null records field
		if r.DecodeRecords(RecordDecodeOptions{}) != nil || !r.IsNull() {
			t.Fatal("null Records decoded to a set")
		}
		w := NewJSONWriter(nil)
		r.writeJSON(w)
		if string(w.Bytes()) != "null" {
			t.Fatalf("null Records JSON %s", w.Bytes())
		}
		var nilSet *RecordSet
		w = NewJSONWriter(nil)
		nilSet.WriteJSON(w)
		if string(w.Bytes()) != "null" || nilSet.Count() != 0 {
			t.Fatalf("nil set: JSON %s, Count %d", w.Bytes(), nilSet.Count())
		}
		for _, raw := range [][]byte{nil, {}} {
			s := DecodeRecordSet(raw, RecordDecodeOptions{})
			if s == nil || len(s.Entries) != 0 || s.Count() != 0 || len(s.Notes) != 0 {
				t.Fatalf("DecodeRecordSet(%v) = %+v", raw, s)
			}
			w := NewJSONWriter(nil)
			s.WriteJSON(w)
			if string(w.Bytes()) != "[]" {
				t.Fatalf("empty set JSON %s", w.Bytes())
			}
		}
	})
}

// allocatedBytes returns the bytes f allocates on the heap. It forces no
// GC: TotalAlloc counts every allocation anyway, and a GC would empty the
// decoder pools (on several Ps a pooled buffer can even become unreachable
// to the next Get), counting their refill as if the decode cost it.
func allocatedBytes(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// minAllocatedBytes returns the least that f allocates in three runs: the
// cost once the decoder pools are warm (a cold pool adds the decoder's
// fixed working memory, such as an LZ4 block buffer of up to 4 MiB).
func minAllocatedBytes(f func()) uint64 {
	least := allocatedBytes(f)
	for range 2 {
		least = min(least, allocatedBytes(f))
	}
	return least
}

// bombs returns, per codec, compressed data that decompresses to total
// bytes of zeros, built from one compressed piece repeated (several gzip
// members, zstd and lz4 frames, xerial chunks), so building it is fast.
func bombs(t *testing.T, total int64) map[Compression][]byte {
	t.Helper()
	const piece = 16 << 20
	zeros := make([]byte, piece)
	repeat := func(one []byte, n int64) []byte { return bytes.Repeat(one, int(n)) }
	out := map[Compression][]byte{}

	var gz bytes.Buffer
	zw, _ := stdgzip.NewWriterLevel(&gz, stdgzip.BestCompression)
	zw.Write(zeros)
	zw.Close()
	out[CompressionGzip] = repeat(gz.Bytes(), total/piece)

	// A stream encoder declares no content size; a 256 KiB window fits the cap.
	var zs bytes.Buffer
	ze, err := zstd.NewWriter(&zs, zstd.WithWindowSize(256<<10), zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	ze.Write(zeros)
	ze.Close()
	out[CompressionZstd] = repeat(zs.Bytes(), total/piece)

	var lz bytes.Buffer
	lw := lz4.NewWriter(&lz)
	lw.Write(zeros)
	lw.Close()
	out[CompressionLZ4] = repeat(lz.Bytes(), total/piece)

	// Snappy expands at most ~21 times per chunk; 64 MiB is enough to
	// show the cap.
	chunk := snappy.Encode(nil, zeros[:32<<10])
	sn := xerial(nil)
	for range 2048 {
		sn = binary.BigEndian.AppendUint32(sn, uint32(len(chunk)))
		sn = append(sn, chunk...)
	}
	out[CompressionSnappy] = sn
	return out
}

func TestDecompressionBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 1 GiB bombs")
	}
	const capBytes = 1 << 20
	opts := RecordDecodeOptions{MaxDecompressedBytes: capBytes}
	all := bombs(t, 1<<30)
	for c, bomb := range all {
		b := wantBatchV2
		b.Attributes = int16(c)
		b.RecordCount = 1000
		raw := rawBatch(b, bomb)
		var s *RecordSet
		alloc := minAllocatedBytes(func() { s = DecodeRecordSet(raw, opts) })
		if !hasNote(s, c.String()+" decompression: decompressed size exceeds the", "left of the record decoding budget of 1 MiB", "0 of RecordCount 1000 records decoded") {
			t.Errorf("%v: notes %q", c, s.Notes)
		}
		if len(s.Entries) != 1 || len(s.Entries[0].Batch.Records) != 0 {
			t.Errorf("%v: zeros decoded as records", c)
		}
		// The output buffer at the cap and small change, not 1 GiB.
		if alloc > capBytes*3/2 {
			t.Errorf("%v: decoding a %d-byte bomb allocated %d bytes with a %d-byte cap", c, len(raw), alloc, capBytes)
		}
		t.Logf("%v: %d compressed bytes, %d bytes allocated", c, len(bomb), alloc)
	}
	// The same in a legacy wrapper.
	bomb := all[CompressionGzip]
	raw := appendMessage(nil, 1, &LegacyMessage{}, int8(CompressionGzip), bomb)
	var s *RecordSet
	alloc := minAllocatedBytes(func() { s = DecodeRecordSet(raw, opts) })
	if !hasNote(s, "gzip decompression: decompressed size exceeds the", "left of the record decoding budget of 1 MiB") || alloc > capBytes*3/2 {
		t.Errorf("legacy wrapper: notes %q, %d bytes allocated", s.Notes, alloc)
	}
	// The default cap is 64 MiB.
	if s := DecodeRecordSet(raw, RecordDecodeOptions{}); !hasNote(s, "record decoding budget of 64 MiB") {
		t.Errorf("default cap: notes %q", s.Notes)
	}
}

func TestZstdWindowAboveCap(t *testing.T) {
	// EncodeAll declares the content size and a window as large as the
	// content, which the decoder refuses up front.
	ze, _ := zstd.NewWriter(nil)
	defer ze.Close()
	b := wantBatchV2
	b.Attributes = int16(CompressionZstd)
	raw := rawBatch(b, ze.EncodeAll(make([]byte, 4<<20), nil))
	s := DecodeRecordSet(raw, RecordDecodeOptions{MaxDecompressedBytes: 1 << 20})
	if !hasNote(s, "zstd decompression: frame window larger than the record decoding budget of 1 MiB") {
		t.Fatalf("notes %q", s.Notes)
	}
}

// benchBatch is a batch of 100 records with 10-byte keys, 100-200 byte
// text values and one header.
func benchBatch(c Compression) RecordBatch {
	rng := rand.New(rand.NewPCG(100, 200))
	b := RecordBatch{BaseOffset: 1000, Attributes: int16(c), BaseTimestamp: 1700000000000, MaxTimestamp: 1700000000099,
		ProducerId: -1, ProducerEpoch: -1, BaseSequence: -1, LastOffsetDelta: 99}
	for i := range 100 {
		b.Records = append(b.Records, Record{
			TimestampDelta: int64(i), OffsetDelta: int32(i),
			Key:     fmt.Appendf(nil, "key-%06d", i),
			Value:   testPayload(rng, 100+rng.IntN(101)),
			Headers: []RecordHeader{{Key: "trace-id", Value: fmt.Appendf(nil, "%016x", rng.Uint64())}},
		})
	}
	return b
}

// BenchmarkDecodeRecordSet decodes one batch; MB/s counts the uncompressed
// batch size so that codecs compare.
func BenchmarkDecodeRecordSet(b *testing.B) {
	plain := benchBatch(CompressionNone)
	size := int64(len(plain.AppendTo(nil)))
	for _, c := range allCompressions {
		batch := benchBatch(c)
		raw := batch.AppendTo(nil)
		b.Run(c.String(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(size)
			for b.Loop() {
				if s := DecodeRecordSet(raw, RecordDecodeOptions{}); len(s.Notes) != 0 {
					b.Fatal(s.Notes)
				}
			}
		})
	}
}

func BenchmarkRecordBatchAppendTo(b *testing.B) {
	plain := benchBatch(CompressionNone)
	size := int64(len(plain.AppendTo(nil)))
	for _, c := range allCompressions {
		batch := benchBatch(c)
		b.Run(c.String(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(size)
			var dst []byte
			for b.Loop() {
				dst = batch.AppendTo(dst[:0])
			}
		})
	}
}

func BenchmarkRecordSetWriteJSON(b *testing.B) {
	batch := benchBatch(CompressionNone)
	raw := batch.AppendTo(nil)
	s := DecodeRecordSet(raw, RecordDecodeOptions{})
	w := NewJSONWriter(nil)
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		w.Reset()
		s.WriteJSON(w)
	}
}

func TestCompressionValid(t *testing.T) {
	for c := Compression(-1); c <= 8; c++ {
		if want := c >= 0 && c <= 4; c.Valid() != want {
			t.Errorf("%v.Valid() = %v", c, c.Valid())
		}
	}
	// The decoder accepts codec bits 5-7 (with a note); AppendTo refuses
	// them, and Valid says so beforehand.
	b := wantBatchV2
	b.Attributes = 0x17 // transactional, codec 7
	s := DecodeRecordSet(rawBatch(b, goldenBatchV2[61:]), RecordDecodeOptions{})
	got := s.Entries[0].Batch
	if got.Compression().Valid() || !hasNote(s, "unsupported compression codec 7") {
		t.Fatalf("codec %v, notes %q", got.Compression(), s.Notes)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "RecordBatch.AppendTo: invalid compression codec 7 (attributes 0x0017)") {
			t.Fatalf("recovered %v", r)
		}
	}()
	got.AppendTo(nil)
}
