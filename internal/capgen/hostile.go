package capgen

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"net/netip"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/kdissect/kdissect/codec"
)

// Hostile input for the tests and benchmarks that bound what kdissect
// spends on it: record batches that claim or hold far more than their
// bytes, a capture of one connection carrying given frames, and a flood
// of one-packet flows.

// minimalRecord is the smallest v2 record: Length 6, Attributes 0,
// TimestampDelta 0, OffsetDelta 0, null key, null value, no headers. It
// costs 7 bytes on the wire and a Record (over 100 bytes) decoded.
var minimalRecord = []byte{0x0c, 0, 0, 0, 1, 1, 0}

// ZstdBomb returns a v2 record batch whose zstd payload decompresses to
// about decompressed bytes of minimal records, from a few bytes per 128
// KiB (256 MiB take about 50 KB). RecordCount is count, or the number of
// records the payload holds when count is negative.
func ZstdBomb(decompressed int, count int32) ([]byte, error) {
	var payload bytes.Buffer
	enc, err := zstd.NewWriter(&payload, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<17))
	if err != nil {
		return nil, err
	}
	chunk := bytes.Repeat(minimalRecord, (1<<20)/len(minimalRecord))
	records := 0
	for n := 0; n < decompressed; n += len(chunk) {
		k := min(len(chunk), (decompressed-n)/len(minimalRecord)*len(minimalRecord))
		if k == 0 {
			break
		}
		if _, err := enc.Write(chunk[:k]); err != nil {
			return nil, err
		}
		records += k / len(minimalRecord)
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	if count < 0 {
		count = int32(min(records, 1<<31-1))
	}
	return batchWith(codec.CompressionZstd, payload.Bytes(), count), nil
}

// ZeroBatch returns an uncompressed v2 record batch whose records are n
// zero bytes and whose RecordCount is count: each zero byte frames a
// record of Length 0, which holds none of a record's fields and so is no
// record at all.
func ZeroBatch(n int, count int32) []byte {
	return batchWith(codec.CompressionNone, make([]byte, n), count)
}

// MinimalBatch returns a v2 record batch of n minimal records, compressed
// with c.
func MinimalBatch(c codec.Compression, n int) []byte {
	b := codec.RecordBatch{Attributes: int16(c), ProducerId: -1, ProducerEpoch: -1, BaseSequence: -1, LastOffsetDelta: int32(n - 1)}
	b.Records = make([]codec.Record, n)
	for i := range b.Records {
		b.Records[i].OffsetDelta = int32(i)
	}
	return b.AppendTo(nil)
}

// batchWith returns a v2 batch with compression c, the given records
// payload and RecordCount, with its BatchLength and CRC-32C right.
func batchWith(c codec.Compression, payload []byte, count int32) []byte {
	b := codec.RecordBatch{Attributes: int16(c), ProducerId: -1, ProducerEpoch: -1, BaseSequence: -1, LastOffsetDelta: max(count-1, 0)}
	raw := b.AppendTo(nil) // the 61-byte header of an empty batch
	raw = raw[:61]
	raw = append(raw, payload...)
	binary.BigEndian.PutUint32(raw[8:], uint32(len(raw)-12))
	binary.BigEndian.PutUint32(raw[57:], uint32(count))
	binary.BigEndian.PutUint32(raw[17:], crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli)))
	return raw
}

// ProduceFrames returns a Produce v7 request (Acks -1) carrying records
// (a record set) for topic-partition "hostile"-0, and its response, both
// with their size prefixes, CorrelationId corr.
func ProduceFrames(corr int32, records []byte) (req, resp []byte, err error) {
	return ProduceFramesTo(corr, "hostile", records)
}

// ProduceFramesTo is ProduceFrames to partition 0 of topic, whatever
// bytes its name holds (control characters, a spreadsheet formula).
func ProduceFramesTo(corr int32, topic string, records []byte) (req, resp []byte, err error) {
	const version = 7
	r := &codec.ProduceRequest{Acks: -1, TimeoutMs: 30000, TopicData: []codec.ProduceRequestTopicProduceData{{
		Name: topic, PartitionData: []codec.ProduceRequestPartitionProduceData{{Index: 0, Records: codec.Records{Raw: records}}}}}}
	id := "capgen"
	h := codec.RequestHeader{RequestApiKey: codec.ApiKeyProduce, RequestApiVersion: version, CorrelationId: corr, ClientId: &id}
	req = r.AppendTo(h.AppendTo(make([]byte, 4), codec.RequestHeaderVersion(codec.ApiKeyProduce, version)), version)
	binary.BigEndian.PutUint32(req, uint32(len(req)-4))
	p := &codec.ProduceResponse{Responses: []codec.ProduceResponseTopicProduceResponse{{Name: topic,
		PartitionResponses: []codec.ProduceResponsePartitionProduceResponse{{Index: 0, LogAppendTimeMs: -1}}}}}
	rh := codec.ResponseHeader{CorrelationId: corr}
	resp = p.AppendTo(rh.AppendTo(make([]byte, 4), codec.ResponseHeaderVersion(codec.ApiKeyProduce, version)), version)
	binary.BigEndian.PutUint32(resp, uint32(len(resp)-4))
	return req, resp, nil
}

// WriteExchanges writes a classic pcap (Ethernet, IPv4) of one TCP
// connection from a client to a broker on port 9092: the handshake, then
// each pair of frames (request, then response; each with its size
// prefix, the response nil for none) in segments of at most 1448 bytes,
// then the close.
func WriteExchanges(w io.Writer, frames [][2][]byte) error {
	p := &pcapWriter{w: bufio.NewWriterSize(w, 1<<16), pkt: make([]byte, 0, 2048)}
	if err := p.header(262144); err != nil {
		return err
	}
	client := endpoint{ip: [4]byte{10, 1, 0, 1}, port: 40000, seq: 1000}
	broker := endpoint{ip: [4]byte{10, 0, 0, 9}, port: 9092, seq: 5000}
	clock := time.Unix(1764460800, 0)
	send := func(from, to *endpoint, flags byte, payload []byte) error {
		clock = clock.Add(100 * time.Microsecond)
		return p.packet(clock, from, to, flags, payload)
	}
	segments := func(from, to *endpoint, frame []byte) error {
		for len(frame) > 0 {
			n := min(len(frame), 1448)
			if err := send(from, to, flagACK|flagPSH, frame[:n]); err != nil {
				return err
			}
			frame = frame[n:]
		}
		return nil
	}
	steps := []func() error{
		func() error { return send(&client, &broker, flagSYN, nil) },
		func() error { return send(&broker, &client, flagSYN|flagACK, nil) },
		func() error { return send(&client, &broker, flagACK, nil) },
	}
	for _, f := range frames {
		steps = append(steps, func() error {
			if err := segments(&client, &broker, f[0]); err != nil {
				return err
			}
			return segments(&broker, &client, f[1])
		})
	}
	steps = append(steps,
		func() error { return send(&client, &broker, flagFIN|flagACK, nil) },
		func() error { return send(&broker, &client, flagFIN|flagACK, nil) },
		func() error { return send(&client, &broker, flagACK, nil) },
	)
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	if err := p.w.Flush(); err != nil {
		return fmt.Errorf("write capture: %w", err)
	}
	return nil
}

// FloodFrame is what each flow of WriteFlood carries: the first 8 bytes
// of a Produce v7 request frame of 256 bytes (size, ApiKey, ApiVersion).
var FloodFrame = []byte{0, 0, 1, 0, 0, 0, 0, 7}

// WriteFlood writes a classic pcap (Ethernet, IPv4) of flows one-packet
// TCP flows to broker, as anyone who can reach a broker port can send
// from spoofed addresses: each from its own client address (10.1.0.0
// on), without a handshake, carrying FloodFrame; the first at start, the
// others step apart. broker must be IPv4.
func WriteFlood(w io.Writer, flows int, broker netip.AddrPort, start time.Time, step time.Duration) error {
	if !broker.Addr().Unmap().Is4() {
		return fmt.Errorf("flood: broker %v is not IPv4", broker)
	}
	p := &pcapWriter{w: bufio.NewWriterSize(w, 1<<16), pkt: make([]byte, 0, 128)}
	if err := p.header(262144); err != nil {
		return err
	}
	dst := endpoint{ip: broker.Addr().Unmap().As4(), port: broker.Port(), seq: 1}
	for i := range flows {
		src := endpoint{ip: [4]byte{10, byte(1 + i>>16), byte(i >> 8), byte(i)}, port: uint16(1024 + i%60000), seq: uint32(i) * 7919}
		if err := p.packet(start.Add(time.Duration(i)*step), &src, &dst, flagACK|flagPSH, FloodFrame); err != nil {
			return err
		}
	}
	if err := p.w.Flush(); err != nil {
		return fmt.Errorf("write capture: %w", err)
	}
	return nil
}
