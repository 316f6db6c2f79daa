package codec

import (
	"bytes"
	stdgzip "compress/gzip"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

var allCompressions = []Compression{CompressionNone, CompressionGzip, CompressionSnappy, CompressionLZ4, CompressionZstd}

// testPayload returns n bytes of text-like data: words drawn from a small
// vocabulary, compressible like real record values.
func testPayload(rng *rand.Rand, n int) []byte {
	words := []string{"kafka", "record", "batch", "offset", "topic", "partition", "{\"id\":", "}", "lorem", "ipsum", "\n", "0123456789"}
	var b []byte
	for len(b) < n {
		b = append(b, words[rng.IntN(len(words))]...)
		b = append(b, ' ')
	}
	return b[:n]
}

func TestCompressionString(t *testing.T) {
	want := map[Compression]string{0: "none", 1: "gzip", 2: "snappy", 3: "lz4", 4: "zstd", 5: "unknown(5)"}
	for c, s := range want {
		if got := c.String(); got != s {
			t.Errorf("Compression(%d).String() = %q, want %q", int8(c), got, s)
		}
	}
}

func TestCompressRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sizes := []int{0, 1, 100, 32<<10 - 1, 32 << 10, 32<<10 + 1, 200 << 10, 1 << 20}
	for _, c := range allCompressions {
		for _, n := range sizes {
			src := testPayload(rng, n)
			prefix := []byte("prefix")
			comp, err := Compress(c, prefix, src)
			if err != nil {
				t.Fatalf("%v %d: Compress: %v", c, n, err)
			}
			if !bytes.HasPrefix(comp, []byte("prefix")) {
				t.Fatalf("%v %d: Compress did not append to dst", c, n)
			}
			got, err := Decompress(c, comp[len("prefix"):], 0)
			if err != nil {
				t.Fatalf("%v %d: Decompress: %v", c, n, err)
			}
			if !bytes.Equal(got, src) {
				t.Fatalf("%v %d: round trip differs: got %d bytes, want %d", c, n, len(got), len(src))
			}
		}
	}
}

func TestCompressUnknownCodec(t *testing.T) {
	if _, err := Compress(5, nil, []byte("x")); err == nil {
		t.Error("Compress with codec 5: no error")
	}
	if _, err := Decompress(7, []byte("x"), 0); err == nil {
		t.Error("Decompress with codec 7: no error")
	}
}

func TestCompressSnappyIsXerialFramed(t *testing.T) {
	src := testPayload(rand.New(rand.NewPCG(3, 4)), 100<<10) // four 32 KiB chunks
	comp, _ := Compress(CompressionSnappy, nil, src)
	if !bytes.HasPrefix(comp, []byte("\x82SNAPPY\x00\x00\x00\x00\x01\x00\x00\x00\x01")) {
		t.Fatalf("header % x, want xerial magic, version 1, compat 1", comp[:16])
	}
	// Walk the chunks with snappy itself.
	var out []byte
	chunks := 0
	for p := 16; p < len(comp); chunks++ {
		n := int(binary.BigEndian.Uint32(comp[p:]))
		d, err := snappy.Decode(nil, comp[p+4:p+4+n])
		if err != nil {
			t.Fatalf("chunk %d: %v", chunks, err)
		}
		if len(d) > 32<<10 {
			t.Fatalf("chunk %d decodes to %d bytes, want at most 32 KiB", chunks, len(d))
		}
		out = append(out, d...)
		p += 4 + n
	}
	if chunks != 4 || !bytes.Equal(out, src) {
		t.Fatalf("%d chunks, equal=%v; want 4 chunks equal to the source", chunks, bytes.Equal(out, src))
	}
}

// xerial frames src in chunks of the given sizes, as snappy-java would.
func xerial(src []byte, chunkSizes ...int) []byte {
	out := append([]byte(nil), "\x82SNAPPY\x00"...)
	out = binary.BigEndian.AppendUint32(out, 1)
	out = binary.BigEndian.AppendUint32(out, 1)
	for _, n := range chunkSizes {
		enc := snappy.Encode(nil, src[:n])
		src = src[n:]
		out = binary.BigEndian.AppendUint32(out, uint32(len(enc)))
		out = append(out, enc...)
	}
	return out
}

func TestDecompressSnappyRawAndXerial(t *testing.T) {
	src := testPayload(rand.New(rand.NewPCG(5, 6)), 10000)
	for name, comp := range map[string][]byte{
		"raw":             snappy.Encode(nil, src),
		"xerial 3 chunks": xerial(src, 1000, 0, 4000, 5000),
		"xerial 1 chunk":  xerial(src, 10000),
	} {
		got, err := Decompress(CompressionSnappy, comp, 0)
		if err != nil || !bytes.Equal(got, src) {
			t.Errorf("%s: err %v, equal %v", name, err, bytes.Equal(got, src))
		}
	}
	// The cap stops at a whole chunk: 1000 + 0 + 4000 fit in 6000.
	got, err := Decompress(CompressionSnappy, xerial(src, 1000, 0, 4000, 5000), 6000)
	if !errors.Is(err, ErrDecompressedTooLarge) || !bytes.Equal(got, src[:5000]) {
		t.Errorf("xerial capped at 6000: err %v, %d bytes; want cap error and 5000 bytes", err, len(got))
	}
	// A raw block declaring more than the cap costs nothing.
	if got, err := Decompress(CompressionSnappy, snappy.Encode(nil, src), 9999); !errors.Is(err, ErrDecompressedTooLarge) || len(got) != 0 {
		t.Errorf("raw capped: err %v, %d bytes", err, len(got))
	}
	// A lying length prefix is rejected before allocating.
	lie := binary.AppendUvarint(nil, 1<<30)
	lie = append(lie, 0, 0, 0)
	if _, err := Decompress(CompressionSnappy, lie, 2<<30); err == nil || errors.Is(err, ErrDecompressedTooLarge) {
		t.Errorf("lying snappy length: err %v, want a corruption error", err)
	}
	// Bad xerial chunk length.
	bad := xerial(src, 10000)
	binary.BigEndian.PutUint32(bad[16:], 1<<30)
	// The error says what is wrong with the framing (it becomes the
	// exchange's note), not what snappy makes of the bytes.
	if _, err := Decompress(CompressionSnappy, bad, 0); err == nil || !strings.Contains(err.Error(), "xerial chunk length 1073741824 at byte 16") {
		t.Errorf("xerial chunk length past the end: %v", err)
	}
	if _, err := Decompress(CompressionSnappy, xerial(src, 10000)[:18], 0); err == nil || !strings.Contains(err.Error(), "xerial chunk length truncated at byte 16") {
		t.Errorf("xerial chunk length cut: %v", err)
	}
	// A chunk whose length and decoded length hold but whose snappy
	// block is corrupt: its first tag a literal longer than the chunk.
	corrupt := xerial(src, 1000, 1000)
	at := 16 + 4 + len(binary.AppendUvarint(nil, 1000)) // header, chunk length, decoded length
	copy(corrupt[at:], []byte{0xfc, 0xff, 0xff, 0x00, 0x00})
	if got, err := Decompress(CompressionSnappy, corrupt, 0); !errors.Is(err, snappy.ErrCorrupt) || len(got) != 0 {
		t.Errorf("corrupt xerial chunk: %d bytes, err %v; want snappy's corruption error", len(got), err)
	}
}

func TestDecompressIndependentProducers(t *testing.T) {
	src := testPayload(rand.New(rand.NewPCG(7, 8)), 300<<10)
	half := len(src) / 2

	gzipMembers := func() []byte {
		var buf bytes.Buffer
		for _, part := range [][]byte{src[:half], src[half:]} {
			zw, _ := stdgzip.NewWriterLevel(&buf, stdgzip.BestCompression)
			zw.Write(part)
			zw.Close()
		}
		return buf.Bytes()
	}
	lz4With := func(opts ...lz4.Option) []byte {
		var buf bytes.Buffer
		zw := lz4.NewWriter(&buf)
		if err := zw.Apply(opts...); err != nil {
			t.Fatal(err)
		}
		zw.Write(src)
		zw.Close()
		return buf.Bytes()
	}
	zstdStream := func(opts ...zstd.EOption) []byte {
		var buf bytes.Buffer
		zw, err := zstd.NewWriter(&buf, opts...)
		if err != nil {
			t.Fatal(err)
		}
		zw.Write(src)
		zw.Close()
		return buf.Bytes()
	}
	zstdAll := func() []byte {
		zw, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
		defer zw.Close()
		return zw.EncodeAll(src[half:], zw.EncodeAll(src[:half], nil)) // two frames
	}
	cases := []struct {
		name string
		c    Compression
		comp []byte
	}{
		{"gzip stdlib two members", CompressionGzip, gzipMembers()},
		{"lz4 content size and checksums", CompressionLZ4, lz4With(lz4.SizeOption(uint64(len(src))), lz4.BlockChecksumOption(true), lz4.ChecksumOption(true))},
		{"lz4 4 MiB blocks", CompressionLZ4, lz4With(lz4.BlockSizeOption(lz4.Block4Mb))},
		{"lz4 two frames", CompressionLZ4, append(lz4With(), lz4With()...)},
		{"zstd stream without content size", CompressionZstd, zstdStream(zstd.WithEncoderConcurrency(1))},
		{"zstd EncodeAll two frames with content size", CompressionZstd, zstdAll()},
	}
	for _, tc := range cases {
		want := src
		if strings.Contains(tc.name, "lz4 two frames") {
			want = append(append([]byte(nil), src...), src...)
		}
		got, err := Decompress(tc.c, tc.comp, 0)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: err %v, got %d bytes, want %d", tc.name, err, len(got), len(want))
		}
	}
	// The stream frame must really lack a content size for the case to
	// mean anything.
	var h zstd.Header
	if err := h.Decode(cases[4].comp); err != nil || h.HasFCS {
		t.Errorf("zstd stream frame: HasFCS %v, err %v; want no content size", h.HasFCS, err)
	}
}

// TestDecompressCLIProducers decodes data from the reference C tools when
// they are installed.
func TestDecompressCLIProducers(t *testing.T) {
	src := testPayload(rand.New(rand.NewPCG(9, 10)), 200<<10)
	file := filepath.Join(t.TempDir(), "src")
	if err := os.WriteFile(file, src, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		c        Compression
		tool     string
		args     []string
		fromFile bool // a file lets the tool declare the content size
	}{
		{CompressionGzip, "gzip", []string{"-c", "-9"}, false},
		{CompressionLZ4, "lz4", []string{"-c", "-BD"}, false},           // linked (dependent) blocks
		{CompressionLZ4, "lz4", []string{"-c", "--content-size"}, true}, // declared content size
		{CompressionLZ4, "lz4", []string{"-c", "--no-frame-crc"}, false},
		{CompressionZstd, "zstd", []string{"-c", "-q", "-19"}, false},       // stdin: no content size
		{CompressionZstd, "zstd", []string{"-c", "-q"}, true},               // file: content size
		{CompressionZstd, "zstd", []string{"-c", "-q", "--long=20"}, false}, // 1 MiB window
	}
	ran := 0
	for _, tc := range cases {
		if _, err := exec.LookPath(tc.tool); err != nil {
			continue
		}
		args := tc.args
		cmd := exec.Command(tc.tool, args...)
		if tc.fromFile {
			cmd = exec.Command(tc.tool, append(args, file)...)
		} else {
			cmd.Stdin = bytes.NewReader(src)
		}
		comp, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %v: %v", tc.tool, tc.args, err)
		}
		ran++
		got, err := Decompress(tc.c, comp, 0)
		if err != nil || !bytes.Equal(got, src) {
			t.Errorf("%s %v: err %v, got %d bytes, want %d", tc.tool, tc.args, err, len(got), len(src))
		}
		if tc.c == CompressionZstd {
			var h zstd.Header
			if err := h.Decode(comp); err != nil || h.HasFCS != tc.fromFile {
				t.Errorf("%s %v: frame HasFCS %v (err %v), want %v", tc.tool, tc.args, h.HasFCS, err, tc.fromFile)
			}
		}
		if tc.c == CompressionLZ4 {
			if h, ok := parseLZ4Header(comp); !ok || (h.contentSize == int64(len(src))) != tc.fromFile {
				t.Errorf("%s %v: content size %d, want declared=%v", tc.tool, tc.args, h.contentSize, tc.fromFile)
			}
		}
	}
	if ran == 0 {
		t.Skip("no gzip, lz4 or zstd command installed")
	}
}

func TestDecompressCap(t *testing.T) {
	src := testPayload(rand.New(rand.NewPCG(11, 12)), 100000)
	for _, c := range allCompressions[1:] {
		comp, _ := Compress(c, nil, src)
		// Exactly at the cap is fine.
		got, err := Decompress(c, comp, int64(len(src)))
		if err != nil || !bytes.Equal(got, src) {
			t.Errorf("%v at the cap: err %v, equal %v", c, err, bytes.Equal(got, src))
		}
		got, err = Decompress(c, comp, int64(len(src)-1))
		if !errors.Is(err, ErrDecompressedTooLarge) {
			t.Errorf("%v one byte over: err %v, want ErrDecompressedTooLarge", c, err)
		}
		if len(got) > len(src)-1 || !bytes.Equal(got, src[:len(got)]) {
			t.Errorf("%v one byte over: %d bytes returned, want a prefix of at most %d", c, len(got), len(src)-1)
		}
		if !strings.Contains(err.Error(), c.String()) || !strings.Contains(err.Error(), "decompressed size exceeds 99999 bytes cap") {
			t.Errorf("%v: error %q does not name the codec and the cap", c, err)
		}
	}
}

func TestDecompressCorrupt(t *testing.T) {
	src := testPayload(rand.New(rand.NewPCG(13, 14)), 5000)
	for _, c := range allCompressions[1:] {
		comp, _ := Compress(c, nil, src)
		// An empty input is an empty stream for lz4 and zstd (no frames), so
		// cut inside the data.
		for _, cut := range []int{3, len(comp) / 2, len(comp) - 1} {
			if _, err := Decompress(c, comp[:cut], 0); err == nil {
				t.Errorf("%v cut at %d of %d: no error", c, cut, len(comp))
			}
		}
	}
}

func TestLZ4BrokenHeaderChecksum(t *testing.T) {
	src := []byte(strings.Repeat("kafka magic zero ", 100))
	frame, _ := Compress(CompressionLZ4, nil, src)
	h, ok := parseLZ4Header(frame)
	if !ok || h.checksum != h.wantChecksum {
		t.Fatalf("pierrec frame header: ok %v, checksum %#x, computed %#x; xxh32Short disagrees with the library", ok, h.checksum, h.wantChecksum)
	}
	broken := append([]byte(nil), frame...)
	breakLZ4HeaderChecksum(broken)
	if broken[h.len-1] == frame[h.len-1] {
		t.Fatal("breakLZ4HeaderChecksum changed nothing")
	}
	// Kafka's wrong checksum is xxh32 over magic + FLG + BD.
	if want := byte(xxh32Short(frame[:6]) >> 8); broken[h.len-1] != want {
		t.Fatalf("broken checksum %#x, want %#x", broken[h.len-1], want)
	}
	if _, err := Decompress(CompressionLZ4, broken, 0); err == nil {
		t.Error("Decompress accepted a wrong header checksum; only magic 0 may")
	}
	got, err := decompress(CompressionLZ4, broken, 0, true)
	if err != nil || !bytes.Equal(got, src) {
		t.Errorf("magic-0 leniency: err %v, equal %v", err, bytes.Equal(got, src))
	}
}

func TestXXH32Short(t *testing.T) {
	// Reference values of XXH32 with seed 0 (xxhsum -H0).
	for in, want := range map[string]uint32{
		"":    0x02cc5d05,
		"a":   0x550d7456,
		"abc": 0x32d153ff,
	} {
		if got := xxh32Short([]byte(in)); got != want {
			t.Errorf("xxh32(%q) = %#08x, want %#08x", in, got, want)
		}
	}
}

func TestFormatByteSize(t *testing.T) {
	for n, want := range map[int64]string{64 << 20: "64 MiB", 1 << 20: "1 MiB", 1536 << 10: "1536 KiB", 1000: "1000 bytes", 2 << 30: "2 GiB"} {
		if got := formatByteSize(n); got != want {
			t.Errorf("formatByteSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func BenchmarkCompress(b *testing.B) {
	src := testPayload(rand.New(rand.NewPCG(15, 16)), 64<<10)
	for _, c := range allCompressions[1:] {
		b.Run(c.String(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			var dst []byte
			for b.Loop() {
				dst, _ = Compress(c, dst[:0], src)
			}
		})
	}
}
