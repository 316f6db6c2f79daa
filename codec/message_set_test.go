package codec

import (
	"bytes"
	stdgzip "compress/gzip"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/pierrec/lz4/v4"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// goldenMessageV0 is one magic-0 message.
var goldenMessageV0 = []byte{
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07, // Offset 7
	0x00, 0x00, 0x00, 0x16, // MessageSize 22
	0x23, 0x56, 0xc1, 0x37, // Crc: CRC-32 of Magic..end
	0x00,                                  // Magic 0
	0x00,                                  // Attributes: no compression
	0x00, 0x00, 0x00, 0x03, 'k', 'e', 'y', // Key "key"
	0x00, 0x00, 0x00, 0x05, 'v', 'a', 'l', 'u', 'e', // Value "value"
}

var wantMessageV0 = LegacyMessage{Offset: 7, AbsoluteOffset: 7, MessageSize: 22, Crc: 0x2356c137, CrcValid: true,
	Magic: 0, Key: []byte("key"), Value: []byte("value")}

// goldenMessageV1 is one magic-1 message (KIP-32 timestamp) with a null key.
var goldenMessageV1 = []byte{
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, // Offset 8
	0x00, 0x00, 0x00, 0x18, // MessageSize 24
	0x6a, 0x55, 0x00, 0xfb, // Crc
	0x01,                                           // Magic 1
	0x00,                                           // Attributes: no compression, CreateTime
	0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00, // Timestamp 1700000000000
	0xff, 0xff, 0xff, 0xff, // Key null
	0x00, 0x00, 0x00, 0x02, 'v', '1', // Value "v1"
}

var wantMessageV1 = LegacyMessage{Offset: 8, AbsoluteOffset: 8, MessageSize: 24, Crc: 0x6a5500fb, CrcValid: true,
	Magic: 1, Timestamp: 1700000000000, WireTimestamp: 1700000000000, Value: []byte("v1")}

// goldenInnerV1 is the message set inside goldenGzipWrapperV1: two magic-1
// messages with the relative offsets a producer writes.
var goldenInnerV1 = []byte{
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // Offset 0 (relative)
	0x00, 0x00, 0x00, 0x17, // MessageSize 23
	0x42, 0xb4, 0xaf, 0x02, // Crc
	0x01, 0x00, // Magic 1, Attributes 0
	0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00, // Timestamp 1700000000000
	0xff, 0xff, 0xff, 0xff, // Key null
	0x00, 0x00, 0x00, 0x01, 'a', // Value "a"
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, // Offset 1 (relative)
	0x00, 0x00, 0x00, 0x17, // MessageSize 23
	0x34, 0x7f, 0x95, 0x86, // Crc
	0x01, 0x00, // Magic 1, Attributes 0
	0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x01, // Timestamp 1700000000001
	0xff, 0xff, 0xff, 0xff, // Key null
	0x00, 0x00, 0x00, 0x01, 'b', // Value "b"
}

// goldenGzipWrapperV1 is a magic-1 gzip wrapper holding goldenInnerV1, as
// a producer writes it. The deflate encoder stores data this short
// uncompressed, which keeps the bytes readable.
var goldenGzipWrapperV1 = append(append([]byte{
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, // Offset 1: the last inner offset
	0x00, 0x00, 0x00, 0x75, // MessageSize 117
	0x94, 0xd9, 0x5f, 0xbe, // Crc
	0x01,                                           // Magic 1
	0x01,                                           // Attributes: gzip, CreateTime
	0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x01, // Timestamp 1700000000001: the largest inner one
	0xff, 0xff, 0xff, 0xff, // Key null
	0x00, 0x00, 0x00, 0x5f, // Value: 95 bytes, one gzip member (RFC 1952)
	0x1f, 0x8b, 0x08, 0x00, //   ID1 ID2, CM deflate, FLG 0
	0x00, 0x00, 0x00, 0x00, //   MTIME 0
	0x00, 0xff, //   XFL 0, OS unknown
	0x00,       //   deflate block: not final, stored
	0x46, 0x00, //   LEN 70 (little-endian)
	0xb9, 0xff, //   NLEN
}, goldenInnerV1...), // the 70 bytes stored
	0x03, 0x00, //   final empty block (fixed Huffman, end of block)
	0x87, 0xa5, 0x1a, 0x0e, //   CRC-32 of the 70 bytes (little-endian)
	0x46, 0x00, 0x00, 0x00, //   ISIZE 70
)

var wantGzipWrapperV1 = LegacyMessage{Offset: 1, AbsoluteOffset: 1, MessageSize: 117, Crc: 0x94d95fbe, CrcValid: true,
	Magic: 1, Attributes: 1, Timestamp: 1700000000001, WireTimestamp: 1700000000001, Value: goldenGzipWrapperV1[34:],
	Inner: []LegacyMessage{
		{Offset: 0, AbsoluteOffset: 0, MessageSize: 23, Crc: 0x42b4af02, CrcValid: true, Magic: 1, Timestamp: 1700000000000, WireTimestamp: 1700000000000, Value: []byte("a")},
		{Offset: 1, AbsoluteOffset: 1, MessageSize: 23, Crc: 0x347f9586, CrcValid: true, Magic: 1, Timestamp: 1700000000001, WireTimestamp: 1700000000001, Value: []byte("b")},
	}}

// decodeOneMessage decodes raw, which must hold exactly one clean message.
func decodeOneMessage(t *testing.T, raw []byte) *LegacyMessage {
	t.Helper()
	s := DecodeRecordSet(raw, RecordDecodeOptions{})
	if len(s.Entries) != 1 || s.Entries[0].Message == nil || s.Entries[0].Batch != nil {
		t.Fatalf("want one message entry, got %d entries (notes %q)", len(s.Entries), s.Notes)
	}
	if len(s.Notes) != 0 || s.PartialBytes != 0 {
		t.Fatalf("notes %q, PartialBytes %d; want none", s.Notes, s.PartialBytes)
	}
	return s.Entries[0].Message
}

func TestMessageSetGolden(t *testing.T) {
	for _, tc := range []struct {
		name  string
		raw   []byte
		want  *LegacyMessage
		c     Compression
		count int
	}{
		{"magic 0", goldenMessageV0, &wantMessageV0, CompressionNone, 1},
		{"magic 1", goldenMessageV1, &wantMessageV1, CompressionNone, 1},
		{"magic 1 gzip wrapper", goldenGzipWrapperV1, &wantGzipWrapperV1, CompressionGzip, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := decodeOneMessage(t, tc.raw)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("decoded\n%+v\nwant\n%+v", *got, *tc.want)
			}
			if n := DecodeRecordSet(tc.raw, RecordDecodeOptions{}).Count(); n != tc.count {
				t.Errorf("Count %d, want %d", n, tc.count)
			}
			msgs := []LegacyMessage{*got}
			if tc.c != CompressionNone {
				msgs = got.Inner
			}
			if enc := AppendMessageSet([]byte{0xaa}, got.Magic, tc.c, msgs); !bytes.Equal(enc[1:], tc.raw) || enc[0] != 0xaa {
				t.Fatalf("AppendMessageSet\n% x\nwant\n% x", enc[1:], tc.raw)
			}
		})
	}
	// The gzip member is a real one: the standard library reads it.
	zr, err := stdgzip.NewReader(bytes.NewReader(wantGzipWrapperV1.Value))
	if err != nil {
		t.Fatal(err)
	}
	inner, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(inner, goldenInnerV1) {
		t.Fatalf("stdlib gunzip: err %v, inner set equal %v", err, bytes.Equal(inner, goldenInnerV1))
	}
}

func TestMessageSetAbsoluteOffsets(t *testing.T) {
	// A broker assigns the wrapper the offset of its last inner message;
	// the offset is outside the CRC.
	raw := append([]byte(nil), goldenGzipWrapperV1...)
	binary.BigEndian.PutUint64(raw, 41)
	m := decodeOneMessage(t, raw)
	if m.Offset != 41 || m.Inner[0].Offset != 0 || m.Inner[0].AbsoluteOffset != 40 || m.Inner[1].Offset != 1 || m.Inner[1].AbsoluteOffset != 41 {
		t.Fatalf("wrapper %d, inner wire %d %d, absolute %d %d; want 41, 0 1, 40 41",
			m.Offset, m.Inner[0].Offset, m.Inner[1].Offset, m.Inner[0].AbsoluteOffset, m.Inner[1].AbsoluteOffset)
	}
	// Magic 0 inner offsets are absolute already.
	inner := []LegacyMessage{{Offset: 40, Value: []byte("a")}, {Offset: 41, Value: []byte("b")}}
	m = decodeOneMessage(t, AppendMessageSet(nil, 0, CompressionGzip, inner))
	if m.Offset != 41 || m.Inner[0].AbsoluteOffset != 40 || m.Inner[1].AbsoluteOffset != 41 {
		t.Fatalf("magic 0: wrapper %d, absolute %d %d", m.Offset, m.Inner[0].AbsoluteOffset, m.Inner[1].AbsoluteOffset)
	}
}

// perlFetchV0Response returns the Fetch v0 response frame of
// /work/shared/vectors/perl-kafka-v0.md, size prefix included.
func perlFetchV0Response() []byte {
	frame, err := hex.DecodeString("0000006e000000000000000100076d79746f706963000000010000000000000000000000000002" +
		"000000470000000000000000000000148dc795a20000ffffffff0000000648656c6c6f2100000000000000010000001b989feb39" +
		"0000ffffffff0000000d48656c6c6f2c20576f726c6421")
	if err != nil {
		panic(err)
	}
	return frame
}

// perlMessageSetAt is where the message set starts in perlFetchV0Response:
// after the size, CorrelationId, 1 topic, "mytopic", 1 partition,
// Partition, ErrorCode, HighWatermark and the int32 message set size.
const perlMessageSetAt = 4 + 4 + 4 + 2 + 7 + 4 + 4 + 2 + 8 + 4

// TestMessageSetPerlVector decodes the message set of the Fetch v0 response
// in /work/shared/vectors/perl-kafka-v0.md (from the Perl Kafka client's
// t/06_decode_encode.t).
func TestMessageSetPerlVector(t *testing.T) {
	frame := perlFetchV0Response()
	if n := binary.BigEndian.Uint32(frame[perlMessageSetAt-4:]); int(n) != len(frame)-perlMessageSetAt {
		t.Fatalf("message set size %d, %d bytes follow", n, len(frame)-perlMessageSetAt)
	}
	set := frame[perlMessageSetAt:]
	s := DecodeRecordSet(set, RecordDecodeOptions{})
	if len(s.Notes) != 0 || s.PartialBytes != 0 || len(s.Entries) != 2 || s.Count() != 2 {
		t.Fatalf("notes %q, PartialBytes %d, %d entries", s.Notes, s.PartialBytes, len(s.Entries))
	}
	want := []LegacyMessage{
		{Offset: 0, AbsoluteOffset: 0, MessageSize: 20, Crc: 0x8dc795a2, CrcValid: true, Value: []byte("Hello!")},
		{Offset: 1, AbsoluteOffset: 1, MessageSize: 27, Crc: 0x989feb39, CrcValid: true, Value: []byte("Hello, World!")},
	}
	for i, e := range s.Entries {
		if !reflect.DeepEqual(e.Message, &want[i]) {
			t.Errorf("message %d\n%+v\nwant\n%+v", i, *e.Message, want[i])
		}
	}
	if enc := AppendMessageSet(nil, 0, CompressionNone, want); !bytes.Equal(enc, set) {
		t.Errorf("AppendMessageSet\n% x\nwant\n% x", enc, set)
	}
}

func TestMessageSetJSON(t *testing.T) {
	raw := append(append([]byte(nil), goldenMessageV0...), goldenGzipWrapperV1...)
	w := NewJSONWriter(nil)
	DecodeRecordSet(raw, RecordDecodeOptions{}).WriteJSON(w)
	want := `[{"Offset":7,"MessageSize":22,"Crc":592888119,"CrcValid":true,"Magic":0,"Attributes":0,"Compression":"none","Key":"key","Value":"value"},` +
		`{"Offset":1,"MessageSize":117,"Crc":2497273790,"CrcValid":true,"Magic":1,"Attributes":1,"Compression":"gzip",` +
		`"TimestampType":"CreateTime","Timestamp":1700000000001,"Key":null,"Messages":[` +
		`{"Offset":0,"AbsoluteOffset":0,"MessageSize":23,"Crc":1119137538,"CrcValid":true,"Magic":1,"Attributes":0,"Compression":"none",` +
		`"TimestampType":"CreateTime","Timestamp":1700000000000,"Key":null,"Value":"a"},` +
		`{"Offset":1,"AbsoluteOffset":1,"MessageSize":23,"Crc":880776582,"CrcValid":true,"Magic":1,"Attributes":0,"Compression":"none",` +
		`"TimestampType":"CreateTime","Timestamp":1700000000001,"Key":null,"Value":"b"}]}]`
	if got := string(w.Bytes()); got != want {
		t.Fatalf("JSON\n%s\nwant\n%s", got, want)
	}
	if !json.Valid(w.Bytes()) {
		t.Fatal("invalid JSON")
	}
}

func TestMessageSetMixedWithBatches(t *testing.T) {
	// Old messages before new batches, as a Fetch of an upgraded partition
	// returns them: the magic byte decides each entry.
	var raw []byte
	for _, part := range [][]byte{goldenMessageV0, goldenMessageV1, goldenBatchV2, goldenGzipWrapperV1, goldenControlBatch} {
		raw = append(raw, part...)
	}
	s := DecodeRecordSet(raw, RecordDecodeOptions{})
	if len(s.Notes) != 0 || len(s.Entries) != 5 || s.Count() != 1+1+2+2+1 {
		t.Fatalf("notes %q, %d entries, Count %d", s.Notes, len(s.Entries), s.Count())
	}
	kinds := ""
	for _, e := range s.Entries {
		if e.Batch != nil {
			kinds += "B"
		} else {
			kinds += "M"
		}
	}
	if kinds != "MMBMB" {
		t.Fatalf("entry kinds %s, want MMBMB", kinds)
	}
}

func TestMessageSetBadInput(t *testing.T) {
	t.Run("CRC mismatch", func(t *testing.T) {
		raw := append(append([]byte(nil), goldenMessageV0...), goldenMessageV1...)
		raw[len(goldenMessageV0)-1] = 'E'
		s := DecodeRecordSet(raw, RecordDecodeOptions{})
		if len(s.Entries) != 2 || s.Entries[0].Message.CrcValid || !s.Entries[1].Message.CrcValid ||
			!hasNote(s, "message at byte 0 (Offset 7): CRC-32 mismatch: 0x2356c137 on the wire") {
			t.Fatalf("notes %q", s.Notes)
		}
	})
	t.Run("truncated last message", func(t *testing.T) {
		raw := append(append([]byte(nil), goldenMessageV0...), goldenMessageV1[:20]...)
		s := DecodeRecordSet(raw, RecordDecodeOptions{})
		if len(s.Entries) != 1 || s.PartialBytes != 20 || s.Count() != 1 || len(s.Notes) != 0 {
			t.Fatalf("%d entries, PartialBytes %d, notes %q", len(s.Entries), s.PartialBytes, s.Notes)
		}
	})
	t.Run("value length past the message", func(t *testing.T) {
		raw := append([]byte(nil), goldenMessageV0...)
		binary.BigEndian.PutUint32(raw[25:], 6)
		s := DecodeRecordSet(raw, RecordDecodeOptions{})
		if len(s.Entries) != 1 || !hasNote(s, "message at byte 0 (Offset 7)", "invalid length") {
			t.Fatalf("notes %q", s.Notes)
		}
	})
	t.Run("bytes after the value", func(t *testing.T) {
		raw := append(append([]byte(nil), goldenMessageV0...), 0)
		binary.BigEndian.PutUint32(raw[8:], 23)
		s := DecodeRecordSet(raw, RecordDecodeOptions{})
		if !hasNote(s, "1 bytes after the value") {
			t.Fatalf("notes %q", s.Notes)
		}
	})
	t.Run("message size below minimum", func(t *testing.T) {
		raw := append([]byte(nil), goldenMessageV1...)
		binary.BigEndian.PutUint32(raw[8:], 21)
		s := DecodeRecordSet(raw, RecordDecodeOptions{})
		if len(s.Entries) != 0 || !hasNote(s, "entry size 21 below the 22 bytes of an empty magic 1 entry") {
			t.Fatalf("notes %q", s.Notes)
		}
	})
	t.Run("nested compression", func(t *testing.T) {
		innerWrapper := AppendMessageSet(nil, 1, CompressionGzip, []LegacyMessage{{Value: []byte("deep")}})
		comp, _ := Compress(CompressionGzip, nil, innerWrapper)
		raw := appendMessage(nil, 1, &LegacyMessage{Offset: 9}, int8(CompressionGzip), comp)
		s := DecodeRecordSet(raw, RecordDecodeOptions{})
		m := s.Entries[0].Message
		if len(m.Inner) != 1 || m.Inner[0].Inner != nil || !bytes.Equal(m.Inner[0].Value, innerWrapper[34:]) ||
			!hasNote(s, "inner message 0 at byte 0", "nested gzip compression") {
			t.Fatalf("inner %+v, notes %q", m.Inner, s.Notes)
		}
		w := NewJSONWriter(nil)
		s.WriteJSON(w)
		if !strings.Contains(string(w.Bytes()), `"Compression":"gzip","TimestampType":"CreateTime","Timestamp":0,"Key":null,"Value":{"base64":"H4sI`) {
			t.Fatalf("nested wrapper JSON does not show its compressed value: %s", w.Bytes())
		}
	})
	t.Run("v2 batch inside a wrapper", func(t *testing.T) {
		comp, _ := Compress(CompressionGzip, nil, goldenBatchV2)
		s := DecodeRecordSet(appendMessage(nil, 1, &LegacyMessage{}, int8(CompressionGzip), comp), RecordDecodeOptions{})
		if len(s.Entries[0].Message.Inner) != 0 || !hasNote(s, "inner message 0 at byte 0: a v2 record batch") {
			t.Fatalf("notes %q", s.Notes)
		}
	})
	t.Run("truncated inner message", func(t *testing.T) {
		comp, _ := Compress(CompressionSnappy, nil, goldenInnerV1[:50])
		s := DecodeRecordSet(appendMessage(nil, 1, &LegacyMessage{Offset: 1}, int8(CompressionSnappy), comp), RecordDecodeOptions{})
		if m := s.Entries[0].Message; len(m.Inner) != 1 || s.Count() != 1 || !hasNote(s, "inner message 1 at byte 35: truncated (15 bytes)") {
			t.Fatalf("%d inner, notes %q", len(m.Inner), s.Notes)
		}
	})
	t.Run("inner magic differs", func(t *testing.T) {
		comp, _ := Compress(CompressionGzip, nil, goldenMessageV0)
		s := DecodeRecordSet(appendMessage(nil, 1, &LegacyMessage{Offset: 7}, int8(CompressionGzip), comp), RecordDecodeOptions{})
		if !hasNote(s, "magic 0 inside a magic 1 wrapper") {
			t.Fatalf("notes %q", s.Notes)
		}
	})
	t.Run("zstd in a legacy message", func(t *testing.T) {
		s := DecodeRecordSet(AppendMessageSet(nil, 1, CompressionZstd, wantGzipWrapperV1.Inner), RecordDecodeOptions{})
		if len(s.Entries[0].Message.Inner) != 2 || !hasNote(s, "zstd in a magic 1 message") {
			t.Fatalf("notes %q", s.Notes)
		}
	})
	t.Run("corrupt compressed value", func(t *testing.T) {
		raw := append([]byte(nil), goldenGzipWrapperV1...)
		raw[len(raw)-5]++ // the gzip CRC-32
		binary.BigEndian.PutUint32(raw[12:], crc32.ChecksumIEEE(raw[16:]))
		s := DecodeRecordSet(raw, RecordDecodeOptions{})
		// The data came out before the checksum failed: both inner
		// messages are kept, with the note.
		if m := s.Entries[0].Message; len(m.Inner) != 2 || !hasNote(s, "gzip decompression: gzip: invalid checksum") {
			t.Fatalf("%d inner, notes %q", len(m.Inner), s.Notes)
		}
	})
	t.Run("AppendMessageSet rejects magic 2", func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Fatal("no panic")
			}
		}()
		AppendMessageSet(nil, 2, CompressionNone, nil)
	})
}

func TestMessageSetLZ4Magic0(t *testing.T) {
	inner := []LegacyMessage{{Offset: 0, Value: []byte(strings.Repeat("lz4 ", 50))}, {Offset: 1, Key: []byte("k")}}
	raw := AppendMessageSet(nil, 0, CompressionLZ4, inner)
	m := decodeOneMessage(t, raw)
	// Kafka's magic-0 header checksum (KAFKA-3160): a strict reader fails.
	if _, err := io.ReadAll(lz4.NewReader(bytes.NewReader(m.Value))); err == nil {
		t.Fatal("pierrec/lz4 accepted the magic-0 frame; its header checksum should be Kafka's broken one")
	}
	if len(m.Inner) != 2 || !bytes.Equal(m.Inner[0].Value, inner[0].Value) || string(m.Inner[1].Key) != "k" {
		t.Fatalf("inner %+v", m.Inner)
	}
	// Magic 1 writes and demands the right checksum (KIP-57).
	raw = AppendMessageSet(nil, 1, CompressionLZ4, inner)
	m = decodeOneMessage(t, raw)
	if _, err := io.ReadAll(lz4.NewReader(bytes.NewReader(m.Value))); err != nil {
		t.Fatalf("magic-1 frame: %v", err)
	}
	broken := append([]byte(nil), raw...)
	breakLZ4HeaderChecksum(broken[34:])
	binary.BigEndian.PutUint32(broken[12:], crc32.ChecksumIEEE(broken[16:]))
	s := DecodeRecordSet(broken, RecordDecodeOptions{})
	if !hasNote(s, "lz4 decompression") {
		t.Fatalf("magic 1 with Kafka's broken checksum: notes %q", s.Notes)
	}
	// A magic-0 frame with a correct checksum (KIP-57 era writers) is fine.
	correct := AppendMessageSet(nil, 0, CompressionLZ4, inner)
	h, _ := parseLZ4Header(correct[26:])
	correct[26+h.len-1] = h.wantChecksum
	binary.BigEndian.PutUint32(correct[12:], crc32.ChecksumIEEE(correct[16:]))
	if m := decodeOneMessage(t, correct); len(m.Inner) != 2 {
		t.Fatalf("magic 0 with a correct checksum: %d inner", len(m.Inner))
	}
}

// randomMessages returns n messages with random keys, values and
// timestamps and offsets 0..n-1.
func randomMessages(rng *rand.Rand, n int, magic int8) []LegacyMessage {
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
	msgs := make([]LegacyMessage, n)
	for i := range msgs {
		msgs[i] = LegacyMessage{Offset: int64(i), Magic: magic, Key: randBytes(3, 30), Value: randBytes(8, 200)}
		if magic == 1 {
			msgs[i].Timestamp = 1700000000000 + rng.Int64N(1<<20)
		}
	}
	return msgs
}

// kmsgMessage encodes m with kmsg, computing the MessageSize and CRC kmsg
// leaves to the caller.
func kmsgMessage(m *LegacyMessage, attrs int8, value []byte) []byte {
	var out []byte
	if m.Magic == 0 {
		km := kmsg.MessageV0{Offset: m.Offset, MessageSize: int32(14 + len(m.Key) + len(value)), Magic: 0, Attributes: attrs, Key: m.Key, Value: value}
		out = km.AppendTo(nil)
	} else {
		km := kmsg.MessageV1{Offset: m.Offset, MessageSize: int32(22 + len(m.Key) + len(value)), Magic: 1, Attributes: attrs, Timestamp: m.Timestamp, Key: m.Key, Value: value}
		out = km.AppendTo(nil)
	}
	binary.BigEndian.PutUint32(out[12:], crc32.ChecksumIEEE(out[16:]))
	return out
}

// TestMessageSetKmsgDifferential holds our message set encoder and decoder
// against franz-go's kmsg MessageV0 and MessageV1.
func TestMessageSetKmsgDifferential(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, magic := range []int8{0, 1} {
		for _, c := range allCompressions[:4] { // zstd is v2-only
			for range 10 {
				msgs := randomMessages(rng, 1+rng.IntN(20), magic)

				// Ours → theirs.
				ours := AppendMessageSet(nil, magic, c, msgs)
				read := func(raw []byte) (offset int64, attrs int8, ts int64, key, value []byte, n int) {
					size := int(binary.BigEndian.Uint32(raw[8:]))
					n = 12 + size
					if crc32.ChecksumIEEE(raw[16:n]) != binary.BigEndian.Uint32(raw[12:]) {
						t.Fatalf("magic %d %v: our CRC is wrong", magic, c)
					}
					var err error
					if magic == 0 {
						var km kmsg.MessageV0
						err = km.ReadFrom(raw[:n])
						offset, attrs, key, value = km.Offset, km.Attributes, km.Key, km.Value
					} else {
						var km kmsg.MessageV1
						err = km.ReadFrom(raw[:n])
						offset, attrs, ts, key, value = km.Offset, km.Attributes, km.Timestamp, km.Key, km.Value
					}
					if err != nil {
						t.Fatalf("magic %d %v: kmsg cannot read our message: %v", magic, c, err)
					}
					return
				}
				innerSet := ours
				if c != CompressionNone {
					_, attrs, _, key, value, n := read(ours)
					if n != len(ours) || Compression(attrs&7) != c || key != nil {
						t.Fatalf("magic %d %v: wrapper attributes %d, key %v, %d of %d bytes", magic, c, attrs, key, n, len(ours))
					}
					if magic == 0 && c == CompressionLZ4 {
						// Undo Kafka's magic-0 header checksum (KAFKA-3160)
						// for the strict library.
						value = append([]byte(nil), value...)
						h, _ := parseLZ4Header(value)
						value[h.len-1] = h.wantChecksum
					}
					innerSet = independentDecompress(t, c, value)
				}
				for i := range msgs {
					offset, attrs, ts, key, value, n := read(innerSet)
					innerSet = innerSet[n:]
					if offset != msgs[i].Offset || attrs != 0 || ts != msgs[i].Timestamp ||
						!sameNullableBytes(key, msgs[i].Key) || !sameNullableBytes(value, msgs[i].Value) {
						t.Fatalf("magic %d %v: kmsg read message %d as offset %d attrs %d ts %d", magic, c, i, offset, attrs, ts)
					}
				}

				// Theirs → ours.
				var theirs []byte
				for i := range msgs {
					theirs = append(theirs, kmsgMessage(&msgs[i], 0, msgs[i].Value)...)
				}
				if c == CompressionNone && !bytes.Equal(theirs, ours) {
					t.Fatalf("magic %d: kmsg bytes and ours differ", magic)
				}
				if c != CompressionNone {
					comp, _ := Compress(c, nil, theirs)
					last := msgs[len(msgs)-1]
					theirs = kmsgMessage(&LegacyMessage{Offset: last.Offset, Magic: magic, Timestamp: last.Timestamp}, int8(c), comp)
				}
				s := DecodeRecordSet(theirs, RecordDecodeOptions{})
				if len(s.Notes) != 0 || s.Count() != len(msgs) {
					t.Fatalf("magic %d %v: notes %q, Count %d", magic, c, s.Notes, s.Count())
				}
				got := make([]LegacyMessage, 0, len(msgs))
				for _, e := range s.Entries {
					got = append(got, *e.Message)
				}
				if c != CompressionNone {
					got = got[0].Inner
				}
				for i := range msgs {
					g, w := got[i], msgs[i]
					if g.Offset != w.Offset || g.AbsoluteOffset != w.Offset || g.Magic != magic || g.Attributes != 0 || g.Timestamp != w.Timestamp ||
						!g.CrcValid || !sameNullableBytes(g.Key, w.Key) || !sameNullableBytes(g.Value, w.Value) {
						t.Fatalf("magic %d %v: message %d decoded as %+v, want %+v", magic, c, i, g, w)
					}
				}
			}
		}
	}
}

func BenchmarkDecodeMessageSet(b *testing.B) {
	msgs := randomMessages(rand.New(rand.NewPCG(1, 1)), 100, 1)
	for _, c := range allCompressions[:4] {
		raw := AppendMessageSet(nil, 1, c, msgs)
		b.Run(c.String(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				DecodeRecordSet(raw, RecordDecodeOptions{})
			}
		})
	}
}

func TestMessageSetLogAppendTime(t *testing.T) {
	// A broker appending with LogAppendTime sets the wrapper's timestamp
	// and type and leaves the inner messages as produced: Kafka
	// (LegacyRecord) reports the wrapper's for each inner message.
	inner := []LegacyMessage{{Offset: 0, Timestamp: 1000, Value: []byte("a")}, {Offset: 1, Timestamp: 1001, Value: []byte("b")}}
	raw := AppendMessageSet(nil, 1, CompressionGzip, inner)
	const appended = 1700000009999
	binary.BigEndian.PutUint64(raw[18:], appended) // wrapper Timestamp
	raw[17] |= messageTimestampTypeBit             // wrapper LogAppendTime
	binary.BigEndian.PutUint32(raw[12:], crc32.ChecksumIEEE(raw[16:]))
	m := decodeOneMessage(t, raw)
	if m.Timestamp != appended || m.WireTimestamp != appended || m.TimestampType() != TimestampLogAppendTime {
		t.Fatalf("wrapper: Timestamp %d, WireTimestamp %d, %v", m.Timestamp, m.WireTimestamp, m.TimestampType())
	}
	for i, in := range m.Inner {
		if in.Timestamp != appended || in.WireTimestamp != inner[i].Timestamp || in.TimestampType() != TimestampLogAppendTime || in.Attributes != 0 {
			t.Fatalf("inner %d: Timestamp %d, WireTimestamp %d, %v, Attributes %d", i, in.Timestamp, in.WireTimestamp, in.TimestampType(), in.Attributes)
		}
	}
	w := NewJSONWriter(nil)
	DecodeRecordSet(raw, RecordDecodeOptions{}).WriteJSON(w)
	if got := string(w.Bytes()); !strings.Contains(got, `"AbsoluteOffset":0,"MessageSize":23,"Crc":`) ||
		!strings.Contains(got, `"TimestampType":"LogAppendTime","Timestamp":1700000009999,"WireTimestamp":1000,"Key":null,"Value":"a"`) ||
		!strings.Contains(got, `"TimestampType":"LogAppendTime","Timestamp":1700000009999,"WireTimestamp":1001,"Key":null,"Value":"b"`) {
		t.Fatalf("JSON %s", got)
	}
	// CreateTime wrappers and magic 0 keep the inner timestamps.
	for _, magic := range []int8{0, 1} {
		m := decodeOneMessage(t, AppendMessageSet(nil, magic, CompressionGzip, inner))
		for i, in := range m.Inner {
			want := inner[i].Timestamp
			if magic == 0 {
				want = 0
			}
			if in.Timestamp != want || in.WireTimestamp != want || in.TimestampType() != TimestampCreateTime {
				t.Fatalf("magic %d inner %d: Timestamp %d, WireTimestamp %d, %v", magic, i, in.Timestamp, in.WireTimestamp, in.TimestampType())
			}
		}
	}
	// Re-encoding writes Timestamp; WireTimestamp gives back the bytes.
	again := append([]LegacyMessage(nil), m.Inner...)
	for i := range again {
		again[i].Timestamp = again[i].WireTimestamp
	}
	wire, err := Decompress(CompressionGzip, m.Value, 0)
	if err != nil || !bytes.Equal(AppendMessageSet(nil, 1, CompressionNone, again), wire) {
		t.Fatalf("inner messages re-encoded from WireTimestamp differ from the wire (err %v)", err)
	}
}

func TestAppendMessageSetInvalidCodec(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "invalid compression codec 5") {
			t.Fatalf("recovered %v", r)
		}
	}()
	AppendMessageSet(nil, 1, Compression(5), []LegacyMessage{{}})
}
