package codec

// Fuzz targets for frame decoding (header and body, no size prefix).
//
// Properties held for every input:
//   - decoding never panics and never takes more than fuzzMaxDecodeTime;
//   - a decode allocates at most fuzzAllocPerByte bytes per input byte plus
//     fuzzAllocSlack (runtime.MemStats.TotalAlloc around one decode), so a
//     lying count or length costs an error, never memory;
//   - a failed decode reports a *DecodeError whose offset lies in the frame;
//   - Summarize, WriteJSON and DecodeRecords of what was decoded never panic;
//   - a frame the decoder fully accepts (no error, no trailing bytes, no
//     warnings) re-encodes to exactly the same bytes.
//
// The one tolerated round-trip mismatch: Kafka never writes a tagged field
// that holds its default value, and neither does the encoder, so a frame
// that carries one explicitly re-encodes shorter. We accept a mismatch
// only when the re-encoded frame is shorter, decodes fully to the same JSON
// (header and body), and is itself a fixed point of decode+encode. This
// rule cannot tell a default-valued tag from other shortening
// normalisations that keep the meaning, such as an over-long varint;
// TestFuzzToleratedNormalisations shows them.
// Same-length or longer mismatches always fail.
//
// Seeds: every golden frame (golden_test.go), committed under
// testdata/fuzz/FuzzDecodeRequest and testdata/fuzz/FuzzDecodeResponse;
// TestFuzzCorpusHasGoldens keeps them in step with the goldens, and
//
//	KDISSECT_WRITE_FUZZ_CORPUS=1 go test ./codec -run TestFuzzCorpusHasGoldens
//
// rewrites them. Crashers found by fuzzing are committed beside them
// (crasher-*), and TestFuzzFindings holds each finding as a regression
// test, with inputs too large for a fuzzer to stumble on that break the
// allocation bound.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

const (
	fuzzAllocPerByte  = 64
	fuzzAllocSlack    = 64 << 10
	fuzzAllocMaxInput = 64 << 10 // inputs measured for the allocation bound
	fuzzMaxDecodeTime = 2 * time.Second
)

// fuzzDecoded is one decoded frame.
type fuzzDecoded struct {
	header interface {
		AppendTo([]byte, int16) []byte
		WriteJSON(*JSONWriter, int16)
	}
	hv      int16
	body    Message
	version int16
	r       *Reader
}

func (d *fuzzDecoded) complete() bool {
	return d.r.Err() == nil && d.r.Remaining() == 0 && len(d.r.Warnings) == 0
}

func (d *fuzzDecoded) encode() []byte {
	return d.body.AppendTo(d.header.AppendTo(nil, d.hv), d.version)
}

func (d *fuzzDecoded) json() string {
	w := NewJSONWriter(nil)
	w.BeginArray()
	d.header.WriteJSON(w, d.hv)
	d.body.WriteJSON(w, d.version)
	w.EndArray()
	return string(w.Bytes())
}

// fuzzDecodeFrame decodes frame as a request (header from its first bytes)
// or as a response to a request of key and version.
func fuzzDecodeFrame(frame []byte, api *API, version int16, response bool) *fuzzDecoded {
	d := &fuzzDecoded{version: version, r: NewReader(frame)}
	if response {
		h := new(ResponseHeader)
		d.hv = ResponseHeaderVersion(api.Key, version)
		h.ReadFrom(d.r, d.hv)
		d.header, d.body = h, api.NewResponse()
	} else {
		h := new(RequestHeader)
		d.hv = RequestHeaderVersion(api.Key, version)
		h.ReadFrom(d.r, d.hv)
		d.header, d.body = h, api.NewRequest()
	}
	d.body.ReadFrom(d.r, version)
	return d
}

func FuzzDecodeRequest(f *testing.F) {
	f.Fuzz(func(t *testing.T, frame []byte) {
		if len(frame) < 4 {
			return
		}
		key := int16(binary.BigEndian.Uint16(frame))
		version := int16(binary.BigEndian.Uint16(frame[2:]))
		api, ok := LookupAPI(key)
		if !ok || !api.SupportsVersion(version) {
			return
		}
		fuzzFrame(t, frame, api, version, false)
	})
}

func FuzzDecodeResponse(f *testing.F) {
	f.Fuzz(func(t *testing.T, key int16, version int16, frame []byte) {
		api, ok := LookupAPI(key)
		if !ok || !api.SupportsVersion(version) {
			return
		}
		fuzzFrame(t, frame, api, version, true)
	})
}

func fuzzFrame(t *testing.T, frame []byte, api *API, version int16, response bool) {
	name := fmt.Sprintf("%s v%d", api.Name, version)
	if response {
		name += " response"
	} else {
		name += " request"
	}

	var d *fuzzDecoded
	if len(frame) < fuzzAllocMaxInput {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		d = fuzzDecodeFrame(frame, api, version, response)
		elapsed := time.Since(start)
		runtime.ReadMemStats(&after)
		if alloc, bound := after.TotalAlloc-before.TotalAlloc, uint64(fuzzAllocPerByte*len(frame)+fuzzAllocSlack); alloc > bound {
			t.Fatalf("%s: decoding %d bytes allocated %d bytes, bound %d (err %v)", name, len(frame), alloc, bound, d.r.Err())
		}
		if elapsed > fuzzMaxDecodeTime {
			t.Fatalf("%s: decoding %d bytes took %v", name, len(frame), elapsed)
		}
	} else {
		d = fuzzDecodeFrame(frame, api, version, response)
	}

	if err := d.r.Err(); err != nil {
		var de *DecodeError
		if !errors.As(err, &de) {
			t.Fatalf("%s: error %v (%T) is not a *DecodeError", name, err, err)
		}
		if de.Offset < 0 || de.Offset > len(frame) {
			t.Fatalf("%s: error offset %d outside the %d-byte frame: %v", name, de.Offset, len(frame), err)
		}
	}

	// What a dissector does with a decoded body must not panic, even on a
	// partial decode. (The JSON is taken before DecodeRecords, which changes
	// how records fields render.)
	js := d.json()
	var sm Summary
	d.body.Summarize(&sm, version)
	for _, ref := range sm.Records {
		if set := ref.Records.DecodeRecords(RecordDecodeOptions{MaxDecompressedBytes: 1 << 20}); set != nil {
			set.WriteJSON(NewJSONWriter(nil))
		}
	}

	if !d.complete() {
		return
	}
	re := d.encode()
	if string(re) == string(frame) {
		return
	}
	if why := fuzzTolerated(frame, re, js, api, version, response); why != "" {
		t.Logf("%s: tolerated round-trip mismatch: %s", name, why)
		return
	}
	at := 0
	for at < len(re) && at < len(frame) && re[at] == frame[at] {
		at++
	}
	t.Fatalf("%s: a fully decoded frame re-encodes differently (first difference at byte %d)\n  input %x\nencoded %x\n   json %s",
		name, at, frame, re, js)
}

// fuzzTolerated returns why a round-trip mismatch is acceptable, or "".
func fuzzTolerated(frame, re []byte, js string, api *API, version int16, response bool) string {
	d2 := fuzzDecodeFrame(re, api, version, response)
	if !d2.complete() || d2.json() != js {
		return "" // the re-encoded frame means something else: never tolerated
	}
	if len(re) < len(frame) && string(d2.encode()) == string(re) {
		return "re-encoded frame is shorter with the same meaning (a tagged field holding its default value, or an over-long varint)"
	}
	return ""
}

// fuzzCorpusFile returns the seed corpus file of a golden frame and its
// content in Go's corpus format.
func fuzzCorpusFile(c goldenCase) (path, content string) {
	name := "golden-" + strings.NewReplacer("/", "-").Replace(c.name)
	if c.response {
		return filepath.Join("testdata", "fuzz", "FuzzDecodeResponse", name),
			fmt.Sprintf("go test fuzz v1\nint16(%d)\nint16(%d)\n[]byte(%q)\n", c.key, c.version, c.frame)
	}
	return filepath.Join("testdata", "fuzz", "FuzzDecodeRequest", name),
		fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", c.frame)
}

// TestFuzzCorpusHasGoldens checks that every golden frame is committed as a
// seed of the fuzz targets; with KDISSECT_WRITE_FUZZ_CORPUS=1 it writes them.
func TestFuzzCorpusHasGoldens(t *testing.T) {
	write := os.Getenv("KDISSECT_WRITE_FUZZ_CORPUS") == "1"
	for _, c := range goldenCases() {
		path, content := fuzzCorpusFile(c)
		if write {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Errorf("%s: seed %s missing or stale (err %v); regenerate with KDISSECT_WRITE_FUZZ_CORPUS=1", c.name, path, err)
		}
	}
}

// fuzzRequestHeader returns a request header for key and version with
// ClientId "c" and, for header v2, an empty tagged-field section.
func fuzzRequestHeader(key, version int16) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(key))
	b = binary.BigEndian.AppendUint16(b, uint16(version))
	b = binary.BigEndian.AppendUint32(b, 7)
	b = append(b, 0x00, 0x01, 'c')
	if RequestHeaderVersion(key, version) >= 2 {
		b = append(b, 0x00)
	}
	return b
}

// fuzzResponseHeader returns a response header with CorrelationId 7.
func fuzzResponseHeader(key, version int16) []byte {
	b := binary.BigEndian.AppendUint32(nil, 7)
	if ResponseHeaderVersion(key, version) >= 1 {
		b = append(b, 0x00)
	}
	return b
}

func fuzzCheckFrame(t *testing.T, frame []byte, key, version int16, response bool) {
	t.Helper()
	api, ok := LookupAPI(key)
	if !ok || !api.SupportsVersion(version) {
		t.Fatalf("no API %d v%d", key, version)
	}
	fuzzFrame(t, frame, api, version, response)
}

// TestFuzzFindings holds the inputs, found by fuzzing or built from what
// fuzzing showed, that broke the fuzz targets' properties. Each subtest
// failed against the codec as it was when found; they stay as regression
// tests.
func TestFuzzFindings(t *testing.T) {
	// A boolean byte other than 0 or 1 was read as true without a warning,
	// so the frame was fully accepted but re-encoded with 0x01 (found by
	// FuzzDecodeRequest; crasher in testdata/fuzz/FuzzDecodeRequest).
	t.Run("BoolNotZeroOrOne", func(t *testing.T) {
		frame := append(fuzzRequestHeader(3, 9),
			0x00, // Topics: null (compact: 0)
			0x02, // AllowAutoTopicCreation: 0x02, neither false nor true
			0x01, // IncludeClusterAuthorizedOperations true
			0x00, // IncludeTopicAuthorizedOperations false
			0x00, // body tagged fields: none
		)
		fuzzCheckFrame(t, frame, 3, 9, false)
	})

	// Tagged fields not in ascending tag order were accepted without a
	// warning; the encoder writes them sorted, as Kafka does, so the frame
	// re-encoded differently (found by FuzzDecodeRequest on Fetch v17;
	// crasher in testdata/fuzz/FuzzDecodeRequest).
	t.Run("TagsOutOfOrder", func(t *testing.T) {
		frame := append(fuzzRequestHeader(1, 12),
			0xff, 0xff, 0xff, 0xff, // ReplicaId -1
			0x00, 0x00, 0x01, 0xf4, // MaxWaitMs 500
			0x00, 0x00, 0x00, 0x01, // MinBytes 1
			0x00, 0x10, 0x00, 0x00, // MaxBytes 1048576
			0x00,                   // IsolationLevel 0
			0x00, 0x00, 0x00, 0x00, // SessionId 0
			0xff, 0xff, 0xff, 0xff, // SessionEpoch -1
			0x01,       // Topics: 0 elements (compact: count+1)
			0x01,       // ForgottenTopicsData: 0 elements
			0x01,       // RackId ""
			0x02,       // body tagged fields: 2
			0x07, 0x01, // tag 7 (unknown), 1 byte
			0x00,       // tag 7 data
			0x00, 0x02, // tag 0 (ClusterId), 2 bytes: after tag 7
			0x02, 'k', // ClusterId "k"
		)
		fuzzCheckFrame(t, frame, 1, 12, false)
	})

	// An array count was checked against the bytes left with a minimum
	// element size computed over every version of the message, including
	// versions where the array does not exist, so it was 1 byte for
	// FindCoordinatorResponseCoordinator (80 bytes in Go, at least 14 on
	// the wire at v4+). make([]T, n) then allocated 80 bytes per input
	// byte before the first element failed.
	t.Run("AllocArrayMinSize", func(t *testing.T) {
		const n = 60000
		frame := append(fuzzResponseHeader(10, 6),
			0x00, 0x00, 0x00, 0x00, // ThrottleTimeMs 0
		)
		frame = binary.AppendUvarint(frame, n+1) // Coordinators: n elements
		for range n {
			frame = append(frame, 0xff) // a varint that overflows
		}
		fuzzCheckFrame(t, frame, 10, 6, true)
	})

	// Every null in a non-nullable string cost a formatted warning of
	// about 300 bytes for 2 input bytes.
	t.Run("AllocWarnings", func(t *testing.T) {
		const n = 20000
		frame := binary.BigEndian.AppendUint32(fuzzRequestHeader(3, 0), n) // Topics: n elements
		for range n {
			frame = append(frame, 0xff, 0xff) // Name: null in a non-nullable string
		}
		fuzzCheckFrame(t, frame, 3, 0, false)
	})

	// Unknown tagged fields were appended one at a time: each 2-byte empty
	// tag (tag 5, repeated) cost a 32-byte TaggedField, times about 5 for
	// the growth of a large slice.
	t.Run("AllocUnknownTags", func(t *testing.T) {
		const n = 30000
		frame := append(fuzzRequestHeader(0, 9),
			0x00,       // TransactionalId null
			0xff, 0xff, // Acks -1
			0x00, 0x00, 0x03, 0xe8, // TimeoutMs 1000
			0x01, // TopicData: 0 elements
		)
		frame = binary.AppendUvarint(frame, n) // body tagged fields: n
		for range n {
			frame = append(frame, 0x05, 0x00) // tag 5, 0 bytes
		}
		fuzzCheckFrame(t, frame, 0, 9, false)
	})
}

// TestFuzzToleratedNormalisations shows the shortening round-trip
// mismatches the fuzz targets tolerate (see the top of this file): each
// frame must pass the fuzz properties, by a warning or as tolerated.
func TestFuzzToleratedNormalisations(t *testing.T) {
	// Kafka never writes a tagged field holding its default, so neither
	// does the encoder: a CurrentLeader of {-1, -1} is dropped.
	t.Run("TaggedFieldAtDefault", func(t *testing.T) {
		frame := append(fuzzResponseHeader(0, 10),
			0x02,      // Responses: 1 element
			0x02, 'o', // Name "o"
			0x02,                   // PartitionResponses: 1 element
			0x00, 0x00, 0x00, 0x00, // Index 0
			0x00, 0x00, // ErrorCode 0
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, // BaseOffset 5
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // LogAppendTimeMs -1
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // LogStartOffset 0
			0x01,       // RecordErrors: 0 elements
			0x00,       // ErrorMessage null
			0x01,       // tagged fields: 1
			0x00, 0x09, // tag 0 (CurrentLeader), 9 bytes
			0xff, 0xff, 0xff, 0xff, // LeaderId -1, the default
			0xff, 0xff, 0xff, 0xff, // LeaderEpoch -1, the default
			0x00,                   // CurrentLeader tagged fields: none
			0x00,                   // Responses[0] tagged fields: none
			0x00, 0x00, 0x00, 0x00, // ThrottleTimeMs 0
			0x00, // body tagged fields: none
		)
		fuzzCheckFrame(t, frame, 0, 10, true)
	})

	// An over-long varint (0x82 0x00 for 2) is read as Kafka reads it and
	// re-encoded in its shortest form.
	t.Run("OverlongVarint", func(t *testing.T) {
		frame := append(fuzzRequestHeader(18, 3),
			0x82, 0x00, 'x', // ClientSoftwareName "x", length+1 written in two bytes
			0x02, 'y', // ClientSoftwareVersion "y"
			0x00, // body tagged fields: none
		)
		fuzzCheckFrame(t, frame, 18, 3, false)
	})

	// A known tagged field given twice: the last value wins, as in Kafka;
	// the decoder warns (tags out of order) or the mismatch is tolerated.
	t.Run("RepeatedTag", func(t *testing.T) {
		frame := append(fuzzRequestHeader(1, 12),
			0xff, 0xff, 0xff, 0xff, // ReplicaId -1
			0x00, 0x00, 0x01, 0xf4, // MaxWaitMs 500
			0x00, 0x00, 0x00, 0x01, // MinBytes 1
			0x00, 0x10, 0x00, 0x00, // MaxBytes 1048576
			0x00,                   // IsolationLevel 0
			0x00, 0x00, 0x00, 0x00, // SessionId 0
			0xff, 0xff, 0xff, 0xff, // SessionEpoch -1
			0x01,       // Topics: 0 elements
			0x01,       // ForgottenTopicsData: 0 elements
			0x01,       // RackId ""
			0x02,       // body tagged fields: 2
			0x00, 0x02, // tag 0 (ClusterId), 2 bytes
			0x02, 'k', // ClusterId "k"
			0x00, 0x02, // tag 0 (ClusterId) again, 2 bytes
			0x02, 'k', // ClusterId "k"
		)
		fuzzCheckFrame(t, frame, 1, 12, false)
	})
}
