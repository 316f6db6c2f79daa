package codec

// Golden frames (header and body, no size prefix) for the first, the first
// flexible and the newest version of eight core APIs, request and response.
//
// The bytes are not ours: they were encoded by franz-go's kmsg from values
// set field by field (a throwaway program; the record sets with kmsg's
// record types and CRCs computed apart), and each field's comment was
// written by walking the bytes with Apache Kafka's JSON message definitions
// (shared/kafka-protocol/message), not with our schema. The test checks
// them against kmsg again at run time, then holds the codec to them: decode
// to the expected values, consume every byte without warnings, re-encode
// the decoded value and the expected value to the same bytes.
//
// The frames are in golden_<api>_test.go and the record sets in
// golden_records_test.go.

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// goldenCase is one golden frame and the values it holds.
type goldenCase struct {
	name     string // "Produce/v9/request"
	key      int16
	version  int16
	response bool
	frame    []byte

	reqHeader  *RequestHeader  // requests
	respHeader *ResponseHeader // responses
	body       Message
}

// goldenJoin concatenates frame pieces, so that a records field can be
// written once (golden_records_test.go) and used by several frames.
func goldenJoin(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func goldenStr(s string) *string { return &s }

func goldenCases() []goldenCase {
	var all []goldenCase
	for _, cs := range [][]goldenCase{
		goldenApiVersionsCases,
		goldenMetadataCases,
		goldenProduceCases,
		goldenFetchCases,
		goldenListOffsetsCases,
		goldenFindCoordinatorCases,
		goldenOffsetCommitCases,
		goldenOffsetFetchCases,
	} {
		all = append(all, cs...)
	}
	return all
}

// TestGoldenCoverage checks that each of the eight APIs has a request and a
// response golden for its first, first flexible and newest version, as the
// codec declares them.
func TestGoldenCoverage(t *testing.T) {
	have := map[string]bool{}
	for _, c := range goldenCases() {
		if have[c.name] {
			t.Errorf("duplicate golden %s", c.name)
		}
		have[c.name] = true
		api, ok := LookupAPI(c.key)
		side := "request"
		if c.response {
			side = "response"
		}
		if !ok || c.name != fmt.Sprintf("%s/v%d/%s", api.Name, c.version, side) {
			t.Errorf("golden %q: key %d version %d response %v do not match its name", c.name, c.key, c.version, c.response)
		}
	}
	for _, key := range []int16{18, 3, 0, 1, 2, 10, 8, 9} {
		api, ok := LookupAPI(key)
		if !ok {
			t.Fatalf("LookupAPI(%d) failed", key)
		}
		for _, v := range []int16{api.MinVersion, api.FlexibleFrom, api.MaxVersion} {
			for _, side := range []string{"request", "response"} {
				if name := fmt.Sprintf("%s/v%d/%s", api.Name, v, side); !have[name] {
					t.Errorf("no golden %s", name)
				}
			}
		}
	}
}

// goldenHeaderLen returns the length of the header at the start of frame,
// parsed by hand (not by the codec): ApiKey, ApiVersion, CorrelationId and
// an int16-length ClientId, then a tagged-field section in header v2; for
// a response the CorrelationId, then tagged fields in header v1.
func goldenHeaderLen(t *testing.T, frame []byte, response, flexible bool) int {
	t.Helper()
	off := 4
	if !response {
		n := int(int16(binary.BigEndian.Uint16(frame[8:])))
		off = 10 + max(n, 0)
	}
	if flexible {
		count, n := binary.Uvarint(frame[off:])
		off += n
		for range count {
			_, n = binary.Uvarint(frame[off:])
			off += n
			size, n := binary.Uvarint(frame[off:])
			off += n + int(size)
		}
	}
	if off > len(frame) {
		t.Fatalf("header runs past the frame")
	}
	return off
}

// checkGoldenWithKmsg proves a golden is valid Kafka independently of the
// codec: kmsg decodes the body without error and encodes it back to the
// same bytes. It returns the header version kmsg implies.
func checkGoldenWithKmsg(t *testing.T, c goldenCase) int16 {
	t.Helper()
	type kmsgMessage interface {
		SetVersion(int16)
		IsFlexible() bool
		ReadFrom([]byte) error
		AppendTo([]byte) []byte
	}
	var m kmsgMessage
	if c.response {
		m = kmsg.ResponseForKey(c.key)
	} else {
		m = kmsg.RequestForKey(c.key)
	}
	if m == nil {
		t.Fatalf("kmsg knows no key %d", c.key)
	}
	m.SetVersion(c.version)
	var hv int16
	switch {
	case c.response && c.key == 18: // KIP-511: ApiVersions responses keep header v0
		hv = 0
	case c.response && m.IsFlexible():
		hv = 1
	case c.response:
		hv = 0
	case m.IsFlexible():
		hv = 2
	default:
		hv = 1
	}
	body := c.frame[goldenHeaderLen(t, c.frame, c.response, (c.response && hv == 1) || hv == 2):]
	if err := m.ReadFrom(body); err != nil {
		t.Fatalf("kmsg cannot decode the golden body: %v", err)
	}
	if re := m.AppendTo(nil); string(re) != string(body) {
		t.Fatalf("kmsg re-encodes the golden body differently:\n got %x\nwant %x", re, body)
	}
	return hv
}

func TestGolden(t *testing.T) {
	for _, c := range goldenCases() {
		t.Run(c.name, func(t *testing.T) {
			kv := checkGoldenWithKmsg(t, c)
			api, ok := LookupAPI(c.key)
			if !ok || !api.SupportsVersion(c.version) {
				t.Fatalf("codec does not support key %d v%d", c.key, c.version)
			}
			if k := int16(binary.BigEndian.Uint16(c.frame)); !c.response && (k != c.key || int16(binary.BigEndian.Uint16(c.frame[2:])) != c.version) {
				t.Fatalf("frame header says key %d, case says %d", k, c.key)
			}

			var hv int16
			var gotHeader, wantHeader any
			var body Message
			var headerBytes func(dst []byte) []byte
			var wantHeaderBytes func(dst []byte) []byte
			r := NewReader(c.frame)
			if c.response {
				hv = ResponseHeaderVersion(c.key, c.version)
				h := new(ResponseHeader)
				h.ReadFrom(r, hv)
				body = api.NewResponse()
				gotHeader, wantHeader = h, c.respHeader
				headerBytes = func(dst []byte) []byte { return h.AppendTo(dst, hv) }
				wantHeaderBytes = func(dst []byte) []byte { return c.respHeader.AppendTo(dst, hv) }
			} else {
				hv = RequestHeaderVersion(c.key, c.version)
				h := new(RequestHeader)
				h.ReadFrom(r, hv)
				body = api.NewRequest()
				gotHeader, wantHeader = h, c.reqHeader
				headerBytes = func(dst []byte) []byte { return h.AppendTo(dst, hv) }
				wantHeaderBytes = func(dst []byte) []byte { return c.reqHeader.AppendTo(dst, hv) }
			}
			if hv != kv {
				t.Errorf("codec uses header v%d, kmsg implies v%d", hv, kv)
			}
			body.ReadFrom(r, c.version)
			if err := r.Err(); err != nil {
				t.Fatalf("decode: %v", err)
			}
			if r.Remaining() != 0 {
				t.Errorf("%d bytes not consumed", r.Remaining())
			}
			if len(r.Warnings) != 0 {
				t.Errorf("warnings: %q", r.Warnings)
			}

			if !reflect.DeepEqual(gotHeader, wantHeader) {
				t.Errorf("header differs: %s\n got %+v\nwant %+v", goldenDiff(gotHeader, wantHeader), gotHeader, wantHeader)
			}
			if !reflect.DeepEqual(body, c.body) {
				t.Errorf("body differs: %s\n got %+v\nwant %+v", goldenDiff(body, c.body), body, c.body)
			}

			if re := body.AppendTo(headerBytes(nil), c.version); string(re) != string(c.frame) {
				t.Errorf("re-encoding the decoded value:\n got %x\nwant %x", re, c.frame)
			}
			if enc := c.body.AppendTo(wantHeaderBytes(nil), c.version); string(enc) != string(c.frame) {
				t.Errorf("encoding the expected value:\n got %x\nwant %x", enc, c.frame)
			}

			// The records fields hold intact entries with valid CRCs.
			goldenEachRecords(reflect.ValueOf(body), func(rec *Records) {
				if rec.Raw == nil || len(rec.Raw) == 0 {
					return
				}
				set := DecodeRecordSet(rec.Raw, RecordDecodeOptions{})
				if len(set.Notes) != 0 || set.PartialBytes != 0 || set.Count() == 0 {
					t.Errorf("records: notes %q, %d partial bytes, %d records", set.Notes, set.PartialBytes, set.Count())
				}
				for _, e := range set.Entries {
					if e.Batch != nil && !e.Batch.CrcValid || e.Message != nil && !e.Message.CrcValid {
						t.Errorf("records: CRC not valid in %+v", e)
					}
				}
			})

			// Rendering the body must work at this version.
			w := NewJSONWriter(nil)
			body.WriteJSON(w, c.version)
			if len(w.Bytes()) == 0 {
				t.Errorf("WriteJSON wrote nothing")
			}
			var sm Summary
			body.Summarize(&sm, c.version)
		})
	}
}

// goldenEachRecords calls fn for every Records field reachable from v.
func goldenEachRecords(v reflect.Value, fn func(*Records)) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			goldenEachRecords(v.Elem(), fn)
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(Records{}) {
			if v.CanAddr() {
				fn(v.Addr().Interface().(*Records))
			}
			return
		}
		for i := 0; i < v.NumField(); i++ {
			goldenEachRecords(v.Field(i), fn)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			goldenEachRecords(v.Index(i), fn)
		}
	}
}

// goldenDiff lists the paths where got and want differ (at most 10).
func goldenDiff(got, want any) string {
	var diffs []string
	var walk func(path string, a, b reflect.Value)
	walk = func(path string, a, b reflect.Value) {
		if len(diffs) >= 10 {
			return
		}
		if a.IsValid() != b.IsValid() || a.IsValid() && a.Type() != b.Type() {
			diffs = append(diffs, path+": type or validity")
			return
		}
		if !a.IsValid() {
			return
		}
		switch a.Kind() {
		case reflect.Pointer, reflect.Interface:
			if a.IsNil() || b.IsNil() {
				if a.IsNil() != b.IsNil() {
					diffs = append(diffs, fmt.Sprintf("%s: got %v, want %v", path, goldenShow(a), goldenShow(b)))
				}
				return
			}
			walk(path, a.Elem(), b.Elem())
		case reflect.Struct:
			for i := 0; i < a.NumField(); i++ {
				if a.Type().Field(i).IsExported() {
					walk(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i))
				}
			}
		case reflect.Slice:
			if a.IsNil() != b.IsNil() {
				diffs = append(diffs, fmt.Sprintf("%s: got nil=%v, want nil=%v", path, a.IsNil(), b.IsNil()))
				return
			}
			if a.Len() != b.Len() {
				diffs = append(diffs, fmt.Sprintf("%s: got %d elements, want %d", path, a.Len(), b.Len()))
				return
			}
			for i := 0; i < a.Len(); i++ {
				walk(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i))
			}
		default:
			if !reflect.DeepEqual(a.Interface(), b.Interface()) {
				diffs = append(diffs, fmt.Sprintf("%s: got %v, want %v", path, a.Interface(), b.Interface()))
			}
		}
	}
	walk("", reflect.ValueOf(got), reflect.ValueOf(want))
	return strings.Join(diffs, "; ")
}

func goldenShow(v reflect.Value) string {
	if v.IsNil() {
		return "nil"
	}
	if v.Kind() == reflect.Pointer && v.Elem().Kind() == reflect.String {
		return fmt.Sprintf("%q", v.Elem().String())
	}
	return fmt.Sprintf("%+v", v.Elem().Interface())
}
