package dissect

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/codec"
)

// testCapture is a capture the tests read, with its broker port.
type testCapture struct {
	path string
	port uint16
}

// allCaptures lists the project's captures (testdata/pcaps, port 9092) and
// the public ones beside the project (../shared/pcaps-public, ports from
// ports.tsv) when that folder exists.
func allCaptures(t *testing.T) []testCapture {
	t.Helper()
	var out []testCapture
	own, _ := filepath.Glob("../testdata/pcaps/*.pcap*")
	for _, p := range own {
		out = append(out, testCapture{p, 9092})
	}
	if len(own) == 0 {
		t.Fatal("no captures in testdata/pcaps")
	}
	f, err := os.Open("../../shared/pcaps-public/ports.tsv")
	if err != nil {
		t.Logf("public captures not available: %v", err)
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, port, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(port)
		if err != nil {
			t.Fatalf("ports.tsv: %q", sc.Text())
		}
		out = append(out, testCapture{filepath.Join("../../shared/pcaps-public", name), uint16(n)})
	}
	return out
}

// decodeCapture reads and decodes a whole capture.
func decodeCapture(t *testing.T, c testCapture) []*Exchange {
	t.Helper()
	d := New(Options{Ports: []uint16{c.port}})
	dec := NewDecoder(DecodeOptions{})
	var exs []*Exchange
	if err := d.ReadFile(c.path, func(ex *Exchange) {
		dec.Decode(ex)
		exs = append(exs, ex)
	}); err != nil {
		t.Fatalf("%s: %v", c.path, err)
	}
	return exs
}

// TestRoundTripEveryFrame checks encode(decode(frame)) == frame for every
// request and response frame of every capture that decodes completely.
// Frames that do not decode completely are counted, and each must carry a
// note saying why.
func TestRoundTripEveryFrame(t *testing.T) {
	total, exact, lenient := 0, 0, 0
	for _, c := range allCaptures(t) {
		for i, ex := range decodeCapture(t, c) {
			dec := ex.Decoded
			if ex.Request != nil && len(ex.Request.Bytes) == int(ex.Request.Size) {
				total++
				if dec.Request == nil || dec.RequestHeader == nil {
					if len(ex.Notes) == 0 {
						t.Errorf("%s #%d: request not decoded and no note", c.path, i)
					}
				} else {
					hv := codec.RequestHeaderVersion(ex.APIKey, ex.APIVersion)
					if dec.RequestHeader.ClientId != nil && hv == 0 {
						hv = 1 // the note-bearing fallback for header v1 on ControlledShutdown v0
					}
					re := dec.Request.AppendTo(dec.RequestHeader.AppendTo(nil, hv), ex.APIVersion)
					re = append(re, dec.RequestTrailing...)
					if dec.RequestLenient {
						lenient++
					} else if string(re) != string(ex.Request.Bytes) {
						t.Errorf("%s #%d %s v%d request: re-encoded %d bytes differ from the %d captured\n got %x\nwant %x",
							c.path, i, dec.API.Name, ex.APIVersion, len(re), len(ex.Request.Bytes), re, ex.Request.Bytes)
					} else {
						exact++
					}
				}
			}
			if ex.Response != nil && len(ex.Response.Bytes) == int(ex.Response.Size) && dec.API != nil && ex.Request != nil {
				total++
				if dec.Response == nil || dec.ResponseHeader == nil {
					if len(ex.Notes) == 0 {
						t.Errorf("%s #%d: response not decoded and no note", c.path, i)
					}
					continue
				}
				hv := codec.ResponseHeaderVersion(ex.APIKey, ex.APIVersion)
				re := dec.Response.AppendTo(dec.ResponseHeader.AppendTo(nil, hv), dec.ResponseVersion)
				re = append(re, dec.ResponseTrailing...)
				if dec.ResponseLenient {
					lenient++
				} else if string(re) != string(ex.Response.Bytes) {
					t.Errorf("%s #%d %s v%d response: re-encoded %d bytes differ from the %d captured",
						c.path, i, dec.API.Name, ex.APIVersion, len(re), len(ex.Response.Bytes))
				} else {
					exact++
				}
			}
		}
	}
	t.Logf("%d of %d complete frames re-encode byte for byte; %d were read leniently (noted)", exact, total, lenient)
	if exact < total*9/10 {
		t.Errorf("only %d of %d frames decoded and re-encoded", exact, total)
	}
}

// frameOf encodes a request or response header and body as a frame.
func requestFrame(key, version int16, corr int32, body codec.Message) *Frame {
	clientID := "test"
	h := &codec.RequestHeader{RequestApiKey: key, RequestApiVersion: version, CorrelationId: corr, ClientId: &clientID}
	b := body.AppendTo(h.AppendTo(nil, codec.RequestHeaderVersion(key, version)), version)
	return &Frame{Bytes: b, Size: int32(len(b))}
}

func responseFrame(key, version int16, corr int32, body codec.Message) *Frame {
	h := &codec.ResponseHeader{CorrelationId: corr}
	b := body.AppendTo(h.AppendTo(nil, codec.ResponseHeaderVersion(key, version)), version)
	return &Frame{Bytes: b, Size: int32(len(b))}
}

// TestTopicIDResolution checks that a topic ID learnt from a Metadata
// response names the topic of a later Fetch v13 that carries only the ID,
// in topics, errors and record sets.
func TestTopicIDResolution(t *testing.T) {
	id := codec.UUID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	name := "orders"
	meta := new(codec.MetadataResponse)
	meta.SetDefaults()
	meta.Topics = []codec.MetadataResponseTopic{{Name: &name, TopicId: id, Partitions: []codec.MetadataResponsePartition{{PartitionIndex: 0}}}}
	metaReq := new(codec.MetadataRequest)
	metaReq.SetDefaults()

	fetch := new(codec.FetchRequest)
	fetch.SetDefaults()
	fetch.Topics = []codec.FetchRequestFetchTopic{{TopicId: id, Partitions: []codec.FetchRequestFetchPartition{{Partition: 2}}}}
	fresp := new(codec.FetchResponse)
	fresp.SetDefaults()
	fresp.Responses = []codec.FetchResponseFetchableTopicResponse{{TopicId: id, Partitions: []codec.FetchResponsePartitionData{{PartitionIndex: 2, ErrorCode: 6}}}}

	dec := NewDecoder(DecodeOptions{})
	exMeta := &Exchange{APIKey: 3, APIVersion: 12, CorrelationID: 1,
		Request: requestFrame(3, 12, 1, metaReq), Response: responseFrame(3, 12, 1, meta)}
	dec.Decode(exMeta)
	if len(exMeta.Notes) != 0 {
		t.Fatalf("metadata notes: %v", exMeta.Notes)
	}
	exFetch := &Exchange{APIKey: 1, APIVersion: 13, CorrelationID: 2,
		Request: requestFrame(1, 13, 2, fetch), Response: responseFrame(1, 13, 2, fresp)}
	dec.Decode(exFetch)
	d := exFetch.Decoded
	if len(exFetch.Notes) != 0 || d.Request == nil || d.Response == nil {
		t.Fatalf("fetch not decoded: %v", exFetch.Notes)
	}
	if len(d.Topics) != 1 || d.Topics[0].Topic != "orders" || d.Topics[0].TopicID != id || len(d.Topics[0].Partitions) != 1 || d.Topics[0].Partitions[0] != 2 {
		t.Errorf("topics %+v, want orders[2] resolved from its id", d.Topics)
	}
	if len(d.Errors) != 1 || d.Errors[0].Code != 6 || d.Errors[0].Topic != "orders" || d.Errors[0].Partition != 2 {
		t.Errorf("errors %+v, want NOT_LEADER_OR_FOLLOWER on orders-2", d.Errors)
	}

	// A fresh decoder has not seen the Metadata: the id stays unresolved.
	dec2 := NewDecoder(DecodeOptions{})
	exFetch2 := &Exchange{APIKey: 1, APIVersion: 13, CorrelationID: 2,
		Request: requestFrame(1, 13, 2, fetch), Response: responseFrame(1, 13, 2, fresp)}
	dec2.Decode(exFetch2)
	if tp := exFetch2.Decoded.Topics; len(tp) != 1 || tp[0].Topic != "" || tp[0].TopicID != id {
		t.Errorf("unresolved topics %+v", tp)
	}
}

// TestAcksZeroExpectsNoResponse checks that a Produce with Acks=0 and no
// response carries no "no response" note, while Acks=1 does.
func TestAcksZeroExpectsNoResponse(t *testing.T) {
	for _, acks := range []int16{0, 1} {
		p := new(codec.ProduceRequest)
		p.SetDefaults()
		p.Acks = acks
		ex := &Exchange{APIKey: 0, APIVersion: 7, CorrelationID: 9, Request: requestFrame(0, 7, 9, p)}
		NewDecoder(DecodeOptions{}).Decode(ex)
		noted := strings.Contains(strings.Join(NoteTexts(ex.Notes), ";"), "no response captured")
		if noted != (acks != 0) {
			t.Errorf("acks %d: notes %v", acks, ex.Notes)
		}
	}
}

// TestOwnCapturesDecodeFully checks that every exchange of the project's
// captures of real clients (kcat and franz-go, at the newest versions both
// sides know) decodes completely: request and response bodies, no note but
// the one for a consumer's last long-poll Fetch that the client closed
// before the broker answered.
func TestOwnCapturesDecodeFully(t *testing.T) {
	keys := map[string]bool{}
	for _, c := range allCaptures(t) {
		if !strings.Contains(c.path, "testdata/pcaps") {
			continue
		}
		for _, ex := range decodeCapture(t, c) {
			d := ex.Decoded
			name := fmt.Sprintf("%s: stream %d corr %d %s v%d", filepath.Base(c.path), ex.Stream, ex.CorrelationID, codec.APIName(ex.APIKey), ex.APIVersion)
			if d.Request == nil {
				t.Errorf("%s: request not decoded: %v", name, ex.Notes)
				continue
			}
			keys[fmt.Sprintf("%s v%d", d.API.Name, ex.APIVersion)] = true
			if ex.Response == nil && ex.APIKey == 1 && len(ex.Notes) == 1 && (ex.NoResponse == ConnectionClosed || ex.NoResponse == CaptureEnded) {
				continue
			}
			if d.Response == nil || len(ex.Notes) > 0 {
				t.Errorf("%s: response decoded %v, notes %v", name, d.Response != nil, ex.Notes)
			}
		}
	}
	// The newest versions the franz-go captures exercise must be among them.
	for _, want := range []string{"Produce v13", "Fetch v18", "Metadata v13", "ApiVersions v5", "OffsetCommit v10", "OffsetFetch v10",
		"JoinGroup v9", "SyncGroup v5", "ConsumerGroupHeartbeat v1", "InitProducerId v5", "AddPartitionsToTxn v3", "EndTxn v5",
		"TxnOffsetCommit v6", "CreateTopics v7", "DescribeConfigs v4", "IncrementalAlterConfigs v1", "CreateAcls v3",
		"DescribeCluster v2", "DescribeTopicPartitions v0", "Produce v0", "Fetch v0"} {
		if !keys[want] {
			t.Errorf("no %s exchange in testdata/pcaps", want)
		}
	}
	t.Logf("%d API versions decoded", len(keys))
}
