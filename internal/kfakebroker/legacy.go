package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/golang/snappy"
	"github.com/pierrec/lz4/v4"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// legacyLog serves Produce v0-2 and Fetch v0-3, whose MessageSets (magic 0
// and 1) kfake does not support, from an in-memory log of the message sets
// clients produced. Offsets are assigned as a broker of that era did: each
// plain message takes the next offset and a compressed wrapper message takes
// the offset of its last inner message. Inner offsets are kept as the client
// wrote them, which is right for magic 1 (relative offsets) and for a magic
// 0 wrapper that starts a partition; a magic 0 wrapper anywhere else would
// need recompressing to renumber, so it is stored as is with a warning.
//
// The log is separate from kfake's own: record batches produced with
// Produce v3+ are not visible to Fetch v0-3 and vice versa.
type legacyLog struct {
	c *kfake.Cluster

	mu    sync.Mutex
	parts map[legacyTP]*legacyPart
}

type legacyTP struct {
	topic     string
	partition int32
}

type legacyPart struct {
	sets []legacySet
	next int64 // offset the next message gets; the high watermark
}

// legacySet is the message set of one produced partition, offsets assigned.
type legacySet struct {
	last int64 // offset of its last (inner) message
	data []byte
}

func installLegacy(c *kfake.Cluster) {
	l := &legacyLog{c: c, parts: make(map[legacyTP]*legacyPart)}
	c.ControlKey(int16(kmsg.Produce), l.produce)
	c.ControlKey(int16(kmsg.Fetch), l.fetch)
}

func (l *legacyLog) produce(kr kmsg.Request) (kmsg.Response, error, bool) {
	req := kr.(*kmsg.ProduceRequest)
	if req.Version >= 3 {
		return nil, nil, false // record batches: kfake's own
	}
	l.c.KeepControl()
	resp := req.ResponseKind().(*kmsg.ProduceResponse)
	for _, t := range req.Topics {
		rt := kmsg.NewProduceResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rp := kmsg.NewProduceResponseTopicPartition()
			rp.Partition = p.Partition
			rp.BaseOffset, rp.ErrorCode = l.append(t.Topic, p.Partition, p.Records)
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	if req.Acks == 0 {
		return nil, nil, true
	}
	return resp, nil, true
}

// append assigns offsets to a produced message set, stores it and returns
// its base offset.
func (l *legacyLog) append(topic string, partition int32, set []byte) (int64, int16) {
	if l.c.PartitionInfo(topic, partition) == nil {
		return -1, kerr.UnknownTopicOrPartition.Code
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	tp := legacyTP{topic, partition}
	p := l.parts[tp]
	if p == nil {
		p = new(legacyPart)
		l.parts[tp] = p
	}
	data := bytes.Clone(set)
	base, next := p.next, p.next
	for b := data; len(b) > 0; {
		if len(b) < 12 {
			return -1, kerr.CorruptMessage.Code
		}
		size := int(int32(binary.BigEndian.Uint32(b[8:12])))
		if size < 14 || len(b) < 12+size {
			return -1, kerr.CorruptMessage.Code
		}
		msg := b[12 : 12+size]
		n, magic0Wrapper, err := innerCount(msg)
		if err != nil {
			fmt.Fprintf(os.Stderr, "kfakebroker: %s[%d]: %v\n", topic, partition, err)
			return -1, kerr.CorruptMessage.Code
		}
		if magic0Wrapper && next != 0 {
			fmt.Fprintf(os.Stderr, "kfakebroker: %s[%d]: magic 0 compressed set at offset %d keeps its inner offsets\n", topic, partition, next)
		}
		next += n
		binary.BigEndian.PutUint64(b[:8], uint64(next-1))
		b = b[12+size:]
	}
	if next == base {
		return -1, kerr.CorruptMessage.Code
	}
	p.sets = append(p.sets, legacySet{last: next - 1, data: data})
	p.next = next
	return base, 0
}

func (l *legacyLog) fetch(kr kmsg.Request) (kmsg.Response, error, bool) {
	req := kr.(*kmsg.FetchRequest)
	if req.Version >= 4 {
		return nil, nil, false // record batches: kfake's own
	}
	l.c.KeepControl()
	resp, n := l.read(req)
	if n == 0 && req.MaxWaitMillis > 0 {
		// Nothing to return: hold the reply for the wait the client asked
		// for, as a broker would, so that it does not poll in a tight loop.
		wait := time.Duration(min(req.MaxWaitMillis, 1000)) * time.Millisecond
		l.c.SleepControl(func() { time.Sleep(wait) })
		resp, _ = l.read(req)
	}
	return resp, nil, true
}

// read builds a fetch response and returns how many bytes of messages it
// holds.
func (l *legacyLog) read(req *kmsg.FetchRequest) (*kmsg.FetchResponse, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	resp := req.ResponseKind().(*kmsg.FetchResponse)
	total := 0
	for _, t := range req.Topics {
		rt := kmsg.NewFetchResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rp := kmsg.NewFetchResponseTopicPartition()
			rp.Partition = p.Partition
			rp.RecordBatches = []byte{} // empty, not null: v0-3 readers want a size
			lp := l.parts[legacyTP{t.Topic, p.Partition}]
			if lp == nil {
				lp = new(legacyPart)
			}
			rp.HighWatermark = lp.next
			switch {
			case p.FetchOffset < 0 || p.FetchOffset > lp.next:
				rp.ErrorCode = kerr.OffsetOutOfRange.Code
			default:
				for _, s := range lp.sets {
					if s.last < p.FetchOffset {
						continue
					}
					// Always hand out one set, so a set larger than the
					// limits still gets through, as brokers did.
					if len(rp.RecordBatches) > 0 && len(rp.RecordBatches)+len(s.data) > int(p.PartitionMaxBytes) {
						break
					}
					rp.RecordBatches = append(rp.RecordBatches, s.data...)
				}
			}
			total += len(rp.RecordBatches)
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp, total
}

// innerCount returns how many offsets a magic 0 or 1 message takes: one, or
// for a compressed wrapper the number of messages inside it.
func innerCount(msg []byte) (n int64, magic0Wrapper bool, err error) {
	// crc int32, magic int8, attributes int8, [timestamp int64], key, value
	magic, codec := msg[4], msg[5]&0x07
	if magic > 1 {
		return 0, false, fmt.Errorf("message magic %d in a MessageSet", magic)
	}
	if codec == 0 {
		return 1, false, nil
	}
	rest := msg[6:]
	if magic == 1 {
		if len(rest) < 8 {
			return 0, false, errors.New("short message")
		}
		rest = rest[8:]
	}
	if _, rest, err = readBytes(rest); err != nil { // key
		return 0, false, err
	}
	value, _, err := readBytes(rest)
	if err != nil {
		return 0, false, err
	}
	inner, err := decompress(codec, value)
	if err != nil {
		return 0, false, fmt.Errorf("codec %d: %w", codec, err)
	}
	for ; len(inner) > 0; n++ {
		if len(inner) < 12 {
			return 0, false, errors.New("truncated inner message set")
		}
		size := int(int32(binary.BigEndian.Uint32(inner[8:12])))
		if size < 0 || len(inner) < 12+size {
			return 0, false, errors.New("truncated inner message")
		}
		inner = inner[12+size:]
	}
	return n, magic == 0, nil
}

func readBytes(b []byte) (v, rest []byte, err error) {
	if len(b) < 4 {
		return nil, nil, errors.New("short message")
	}
	n := int(int32(binary.BigEndian.Uint32(b)))
	b = b[4:]
	if n < 0 {
		return nil, b, nil
	}
	if len(b) < n {
		return nil, nil, errors.New("short message")
	}
	return b[:n], b[n:], nil
}

func decompress(codec byte, b []byte) ([]byte, error) {
	switch codec {
	case 1:
		r, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		return io.ReadAll(r)
	case 2:
		return unsnappy(b)
	case 3:
		return unlz4Frame(b)
	}
	return nil, errors.New("unknown codec")
}

var xerialHeader = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

// unsnappy decodes raw snappy or the xerial framing Java clients use.
func unsnappy(b []byte) ([]byte, error) {
	if !bytes.HasPrefix(b, xerialHeader) {
		return snappy.Decode(nil, b)
	}
	b = b[16:] // header, version, compatible version
	var out []byte
	for len(b) > 0 {
		if len(b) < 4 {
			return nil, errors.New("truncated xerial chunk")
		}
		n := int(binary.BigEndian.Uint32(b))
		if len(b) < 4+n {
			return nil, errors.New("truncated xerial chunk")
		}
		chunk, err := snappy.Decode(nil, b[4:4+n])
		if err != nil {
			return nil, err
		}
		out = append(out, chunk...)
		b = b[4+n:]
	}
	return out, nil
}

// unlz4Frame decodes an LZ4 frame block by block, ignoring the header
// checksum: magic 0 clients computed it over the wrong bytes (KIP-57), which
// a frame reader rejects.
func unlz4Frame(b []byte) ([]byte, error) {
	if len(b) < 7 || binary.LittleEndian.Uint32(b) != 0x184D2204 {
		return nil, errors.New("not an lz4 frame")
	}
	flg, bd := b[4], b[5]
	b = b[6:]
	if flg&0x08 != 0 { // content size
		b = b[min(8, len(b)):]
	}
	if flg&0x01 != 0 { // dictionary id
		b = b[min(4, len(b)):]
	}
	if len(b) < 1 {
		return nil, errors.New("truncated lz4 frame")
	}
	b = b[1:] // header checksum
	blockMax := 1 << (8 + 2*((bd>>4)&0x07))
	var out []byte
	buf := make([]byte, blockMax)
	for {
		if len(b) < 4 {
			return nil, errors.New("truncated lz4 frame")
		}
		size := binary.LittleEndian.Uint32(b)
		b = b[4:]
		if size == 0 {
			return out, nil
		}
		raw, n := size&0x80000000 != 0, int(size&0x7fffffff)
		if len(b) < n {
			return nil, errors.New("truncated lz4 block")
		}
		if raw {
			out = append(out, b[:n]...)
		} else {
			m, err := lz4.UncompressBlock(b[:n], buf)
			if err != nil {
				return nil, err
			}
			out = append(out, buf[:m]...)
		}
		b = b[n:]
		if flg&0x10 != 0 { // block checksum
			b = b[min(4, len(b)):]
		}
	}
}
