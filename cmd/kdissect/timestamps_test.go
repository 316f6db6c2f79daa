package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/internal/capgen"
)

// The times of the timestamp capture, ms since the epoch: what producers
// wrote (own) and what the broker set on append (appended).
const (
	tsOwn      = 111           // 1970-01-01T00:00:00.111Z, as in issue 19
	tsCreate   = 1764460800000 // 2025-11-30T00:00:00Z
	tsAppended = 1764547200500 // 2025-12-01T00:00:00.5Z
)

// timestampFetchFrames returns a Fetch v11 request and its response whose
// partitions of topic "ts" hold each kind of timestamp Kafka has: 0 magic
// 0 (none), 1 magic 1 CreateTime, 2 magic 1 LogAppendTime, 3 and 4 the same
// gzip-compressed (the wrapper LogAppendTime, its inner messages still
// with the producer's times), 5 a v2 batch of CreateTime, 6 one of
// LogAppendTime (MaxTimestamp the broker's).
func timestampFetchFrames(t *testing.T) (req, resp []byte) {
	t.Helper()
	msgs := func(ts int64, attrs int8) []codec.LegacyMessage {
		return []codec.LegacyMessage{
			{Offset: 0, Timestamp: ts, Attributes: attrs, Key: []byte("k1"), Value: []byte("v1")},
			{Offset: 1, Timestamp: ts + 1, Attributes: attrs, Key: []byte("k2"), Value: []byte("v2")},
		}
	}
	const logAppend = 1 << 3
	wrapped := func(attrs int8) []byte {
		// A producer's wrapper of CreateTime inner messages, which the
		// broker, appending, gives its time and (for LogAppendTime) the
		// timestamp type; offsets 10 and 11.
		b := codec.AppendMessageSet(nil, 1, codec.CompressionGzip, msgs(tsOwn, 0))
		binary.BigEndian.PutUint64(b, 11)
		b[17] |= byte(attrs)
		binary.BigEndian.PutUint64(b[18:], tsAppended)
		binary.BigEndian.PutUint32(b[12:], crc32.ChecksumIEEE(b[16:]))
		return b
	}
	batch := func(attrs int16, maxTs int64) []byte {
		b := codec.RecordBatch{BaseOffset: 20, Attributes: attrs, LastOffsetDelta: 1, BaseTimestamp: tsOwn, MaxTimestamp: maxTs,
			ProducerId: -1, ProducerEpoch: -1, BaseSequence: -1, Records: []codec.Record{
				{TimestampDelta: 0, OffsetDelta: 0, Key: []byte("k1"), Value: []byte("v1")},
				{TimestampDelta: 1, OffsetDelta: 1, Key: []byte("k2"), Value: []byte("v2")},
			}}
		return b.AppendTo(nil)
	}
	sets := [][]byte{
		codec.AppendMessageSet(nil, 0, codec.CompressionNone, msgs(0, 0)),
		codec.AppendMessageSet(nil, 1, codec.CompressionNone, msgs(tsCreate, 0)),
		codec.AppendMessageSet(nil, 1, codec.CompressionNone, msgs(tsAppended, logAppend)),
		wrapped(0),
		wrapped(logAppend),
		batch(0, tsOwn+1),
		batch(logAppend, tsAppended),
	}
	const version = 11
	id := "ts-test"
	var parts []codec.FetchResponsePartitionData
	var reqParts []codec.FetchRequestFetchPartition
	for i, s := range sets {
		parts = append(parts, codec.FetchResponsePartitionData{PartitionIndex: int32(i), HighWatermark: 30, LastStableOffset: 30,
			LogStartOffset: 0, PreferredReadReplica: -1, Records: codec.Records{Raw: s}})
		reqParts = append(reqParts, codec.FetchRequestFetchPartition{Partition: int32(i), CurrentLeaderEpoch: -1, LogStartOffset: -1, PartitionMaxBytes: 1 << 20})
	}
	r := &codec.FetchRequest{ReplicaId: -1, MaxWaitMs: 500, MinBytes: 1, MaxBytes: 1 << 20, SessionEpoch: -1,
		Topics: []codec.FetchRequestFetchTopic{{Topic: "ts", Partitions: reqParts}}}
	h := codec.RequestHeader{RequestApiKey: codec.ApiKeyFetch, RequestApiVersion: version, CorrelationId: 7, ClientId: &id}
	req = r.AppendTo(h.AppendTo(make([]byte, 4), codec.RequestHeaderVersion(codec.ApiKeyFetch, version)), version)
	binary.BigEndian.PutUint32(req, uint32(len(req)-4))
	p := &codec.FetchResponse{Responses: []codec.FetchResponseFetchableTopicResponse{{Topic: "ts", Partitions: parts}}}
	rh := codec.ResponseHeader{CorrelationId: 7}
	resp = p.AppendTo(rh.AppendTo(make([]byte, 4), codec.ResponseHeaderVersion(codec.ApiKeyFetch, version)), version)
	binary.BigEndian.PutUint32(resp, uint32(len(resp)-4))
	return req, resp
}

func timestampCapture(t *testing.T) string {
	t.Helper()
	req, resp := timestampFetchFrames(t)
	var buf bytes.Buffer
	if err := capgen.WriteExchanges(&buf, [][2][]byte{{req, resp}}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "timestamps.pcap")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTimestampViewsAgree reads a Fetch response holding every kind of
// Kafka timestamp (magic 0, magic 1 CreateTime and LogAppendTime,
// uncompressed and gzip-wrapped, v2 batches of both types) in each view:
// every message and record shows, in the detail view and the hexdump, the
// time, timestamp type and own time the JSON gives it; and that is
// Kafka's: the wrapper's time or the batch's MaxTimestamp under
// LogAppendTime, the record's own under CreateTime (issue 19).
func TestTimestampViewsAgree(t *testing.T) {
	path := timestampCapture(t)
	read := func(format string) string {
		t.Helper()
		code, stdout, stderr := runCLI(t, "read", "--format", format, path)
		if code != 0 {
			t.Fatalf("read --format %s: exit %d: %s", format, code, stderr)
		}
		return stdout
	}
	fromJSON := jsonEntryTimes(t, read("json"))
	// Kafka's answer, from how the capture was built.
	own, create, appended := msText(tsOwn), msText(tsCreate), msText(tsAppended)
	want := []string{
		"p0 offset 0 none", "p0 offset 1 none",
		"p1 offset 0 " + create + " CreateTime", "p1 offset 1 " + msText(tsCreate+1) + " CreateTime",
		"p2 offset 0 " + appended + " LogAppendTime", "p2 offset 1 " + msText(tsAppended+1) + " LogAppendTime",
		"p3 offset 11 " + appended + " CreateTime", "p3 offset 10 " + own + " CreateTime", "p3 offset 11 " + msText(tsOwn+1) + " CreateTime",
		"p4 offset 11 " + appended + " LogAppendTime",
		"p4 offset 10 " + appended + " LogAppendTime own " + own, "p4 offset 11 " + appended + " LogAppendTime own " + msText(tsOwn+1),
		"p5 offset 20 " + own + " CreateTime", "p5 offset 21 " + msText(tsOwn+1) + " CreateTime",
		"p6 offset 20 " + appended + " LogAppendTime own " + own, "p6 offset 21 " + appended + " LogAppendTime own " + msText(tsOwn+1),
	}
	if !slices.Equal(fromJSON, want) {
		t.Errorf("JSON:\n%s\nwant (Kafka's):\n%s", strings.Join(fromJSON, "\n"), strings.Join(want, "\n"))
	}
	views := map[string]struct {
		entry *regexp.Regexp // offset, then time, type and own time
		part  *regexp.Regexp
	}{
		"detail": {regexp.MustCompile(`^\s+\[\d+\] (?:message \(magic \d\): )?offset (\d+)(?: \(relative \d+\))?(?: · (\S+) (\w+)(?: \(own (\S+)\))?)?$`),
			regexp.MustCompile(`^\s+PartitionIndex: (\d+)$`)},
		"hexdump": {regexp.MustCompile(`\[\d+\]: (?:message \(magic \d\)|record), offset (\d+)(?: \(relative \d+\))?(?:, (\S+) (\w+)(?: \(own (\S+)\))?)?$`),
			regexp.MustCompile(`PartitionIndex = (\d+)$`)},
	}
	for name, v := range views {
		out := read(name)
		var got []string
		part := ""
		for _, line := range strings.Split(out, "\n") {
			if m := v.part.FindStringSubmatch(line); m != nil {
				part = "p" + m[1]
				continue
			}
			m := v.entry.FindStringSubmatch(line)
			if m == nil || part == "" {
				continue
			}
			got = append(got, entryText(part, m[1], m[2], m[3], m[4]))
		}
		if !slices.Equal(got, fromJSON) {
			t.Errorf("%s view:\n%s\nJSON:\n%s", name, strings.Join(got, "\n"), strings.Join(fromJSON, "\n"))
		}
	}
	// The summary table shows no record times, only their count: the
	// messages and records, less the two wrappers.
	code, stdout, _ := runCLI(t, "read", path)
	if n := summaryRecords(t, stdout); code != 0 || n != len(want)-2 {
		t.Errorf("summary: exit %d, %d records, want %d:\n%s", code, n, len(want)-2, stdout)
	}
}

// entryText is one message or record as the test compares them.
func entryText(part, offset, ts, typ, own string) string {
	s := part + " offset " + offset
	if ts == "" {
		return s + " none"
	}
	s += " " + ts + " " + typ
	if own != "" {
		s += " own " + own
	}
	return s
}

func msText(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z") }

// jsonEntryTimes returns the messages and records of the Fetch response's
// partitions in the JSON line, in order, as entryText says them.
func jsonEntryTimes(t *testing.T, line string) []string {
	t.Helper()
	type message struct {
		Offset         int64
		AbsoluteOffset *int64
		Magic          int
		TimestampType  string
		Timestamp      int64
		WireTimestamp  *int64
		Messages       []json.RawMessage
	}
	var ex struct {
		Response struct {
			Responses []struct {
				Partitions []struct {
					PartitionIndex int
					Records        []json.RawMessage
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(line), &ex); err != nil {
		t.Fatal(err)
	}
	var out []string
	var legacy func(part string, raw json.RawMessage)
	legacy = func(part string, raw json.RawMessage) {
		var m message
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		off := m.Offset
		if m.AbsoluteOffset != nil {
			off = *m.AbsoluteOffset
		}
		ts, own := "", ""
		if m.Magic >= 1 {
			ts = msText(m.Timestamp)
			if m.WireTimestamp != nil && *m.WireTimestamp != m.Timestamp {
				own = msText(*m.WireTimestamp)
			}
		}
		out = append(out, entryText(part, strconv.FormatInt(off, 10), ts, m.TimestampType, own))
		for _, in := range m.Messages {
			legacy(part, in)
		}
	}
	for _, tp := range ex.Response.Responses {
		for _, p := range tp.Partitions {
			part := "p" + strconv.Itoa(p.PartitionIndex)
			for _, e := range p.Records {
				var b struct {
					Magic         int
					TimestampType string
					Records       []struct {
						Offset        int64
						Timestamp     int64
						WireTimestamp *int64
					}
				}
				if err := json.Unmarshal(e, &b); err != nil {
					t.Fatal(err)
				}
				if b.Magic < 2 {
					legacy(part, e)
					continue
				}
				for _, r := range b.Records {
					own := ""
					if r.WireTimestamp != nil {
						own = msText(*r.WireTimestamp)
					}
					out = append(out, entryText(part, strconv.FormatInt(r.Offset, 10), msText(r.Timestamp), b.TimestampType, own))
				}
			}
		}
	}
	return out
}
