package client

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/kdissect/kdissect/codec"
)

// sharedVectorsFile is the project's shared vectors file, beside the
// repository; tests that read it skip when it is absent.
const sharedVectorsFile = "../../shared/vectors/perl-kafka-v0.md"

// Inline copies of the v0 vectors, so that the test runs where the shared
// folder is absent. Sources: ../shared/vectors/perl-kafka-v0.md ("Produce v0
// request", "Produce v0 response", "Fetch v0 request", "Fetch v0
// response", "Metadata v0 request"), which takes them from the test suite
// of the Perl Kafka package (t/06_decode_encode.t); the ListOffsets
// (Offset) v0 request, which that file lacks, is the same suite's
// $encoded_offset_request (Kafka::MockIO test, "description of requests,
// see t/??_decode_encode.t"): ReplicaId -1, "mytopic" partition 0,
// Timestamp -2 (earliest), MaxNumOffsets 1.
var inlineVectors = map[string]string{
	"Produce v0 request":     "00000049000000000000000400000001000005dc0000000100076d79746f7069630000000100000000000000200000000000000000000000148dc795a20000ffffffff0000000648656c6c6f21",
	"Produce v0 response":    "00000023000000040000000100076d79746f706963000000010000000000000000000000000000",
	"Fetch v0 request":       "0000004d00010000000000000016636f6e736f6c652d636f6e73756d65722d3235353535ffffffff00000064000000010000000100076d79746f7069630000000100000000000000000000000000100000",
	"Fetch v0 response":      "0000006e000000000000000100076d79746f706963000000010000000000000000000000000002000000470000000000000000000000148dc795a20000ffffffff0000000648656c6c6f2100000000000000010000001b989feb390000ffffffff0000000d48656c6c6f2c20576f726c6421",
	"Metadata v0 request":    "0000002d00030000000000000016636f6e736f6c652d636f6e73756d65722d32353535350000000100076d79746f706963",
	"ListOffsets v0 request": "0000004500020000000000000016636f6e736f6c652d636f6e73756d65722d3235353535ffffffff0000000100076d79746f7069630000000100000000fffffffffffffffe00000001",
}

// vectorSets returns the inline vectors and, when the shared file is
// there, its vectors too, by name.
func vectorSets(t *testing.T) map[string]map[string][]byte {
	sets := map[string]map[string][]byte{"inline": {}}
	for k, v := range inlineVectors {
		b, err := hex.DecodeString(v)
		if err != nil {
			t.Fatal(err)
		}
		sets["inline"][k] = b
	}
	f, err := os.Open(sharedVectorsFile)
	if err != nil {
		t.Logf("shared vectors not available (%v): inline copies only", err)
		return sets
	}
	defer f.Close()
	shared := map[string][]byte{}
	var title string
	inBlock := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "## "):
			title = strings.TrimPrefix(line, "## ")
		case line == "```":
			inBlock = !inBlock
		case inBlock:
			b, err := hex.DecodeString(line)
			if err != nil {
				t.Fatalf("%s: %v", title, err)
			}
			shared[title] = append(shared[title], b...)
		}
	}
	for _, k := range []string{"Produce v0 request", "Produce v0 response", "Fetch v0 request", "Fetch v0 response", "Metadata v0 request"} {
		if shared[k] == nil {
			t.Fatalf("shared vectors file lacks %q", k)
		}
	}
	// The file has no ListOffsets vector: the inline one stands for it.
	shared["ListOffsets v0 request"] = sets["inline"]["ListOffsets v0 request"]
	sets["shared"] = shared
	return sets
}

// TestPerlVectorsV0: a client pinned to version 0 (no ApiVersions, every
// key capped at v0) sends exactly the Perl package's request bytes for the
// same inputs, the CorrelationId aside, and decodes its responses. The
// peer is a loopback server that records each request frame and answers
// Produce and Fetch with the vector responses, Metadata and ListOffsets
// with v0 answers of its own.
func TestPerlVectorsV0(t *testing.T) {
	noLeaks(t)
	for name, vec := range vectorSets(t) {
		t.Run(name, func(t *testing.T) { testVectors(t, vec) })
	}
}

func testVectors(t *testing.T, vec map[string][]byte) {
	var mu sync.Mutex
	got := map[int16][][]byte{}
	var port int32
	s := newRawServer(t, func(c net.Conn) {
		for {
			frame, key, _, corr, err := readRequest(c)
			if err != nil {
				return
			}
			mu.Lock()
			got[key] = append(got[key], frame)
			mu.Unlock()
			var body []byte
			switch key {
			case 0:
				body = vec["Produce v0 response"][8:]
			case 1:
				body = vec["Fetch v0 response"][8:]
			case 2:
				body = (&codec.ListOffsetsResponse{Topics: []codec.ListOffsetsResponseListOffsetsTopicResponse{{Name: "mytopic",
					Partitions: []codec.ListOffsetsResponseListOffsetsPartitionResponse{{OldStyleOffsets: []int64{0}}}}}}).AppendTo(nil, 0)
			case 3:
				name := "mytopic"
				body = (&codec.MetadataResponse{
					Brokers: []codec.MetadataResponseBroker{{NodeId: 0, Host: "127.0.0.1", Port: port}},
					Topics: []codec.MetadataResponseTopic{{Name: &name,
						Partitions: []codec.MetadataResponsePartition{{LeaderId: 0, ReplicaNodes: []int32{0}, IsrNodes: []int32{0}}}}},
				}).AppendTo(nil, 0)
			default:
				return
			}
			if writeResponse(c, key, 0, corr, body) != nil {
				return
			}
		}
	})
	_, p, _ := net.SplitHostPort(s.addr())
	pn, _ := strconv.Atoi(p)
	port = int32(pn)
	ctx := testCtx(t)
	v0 := map[int16]int16{0: 0, 1: 0, 2: 0, 3: 0}

	// The Produce vector has an empty ClientId; the others
	// "console-consumer-25555".
	empty, console := "", "console-consumer-25555"
	pcl, err := New(ctx, Config{Brokers: []string{s.addr()}, ClientID: &empty, NoVersionNegotiation: true, MaxVersions: v0})
	if err != nil {
		t.Fatal(err)
	}
	defer pcl.Close()
	prod, _ := NewProducer(pcl, ProducerConfig{}) // acks 1, TimeoutMs 1500: the defaults
	res, err := prod.Produce(ctx, "mytopic", 0, Record{Value: []byte("Hello!")})
	if err != nil || res.BaseOffset != 0 {
		t.Fatalf("produce: %v %+v", err, res)
	}

	ccl, err := New(ctx, Config{Brokers: []string{s.addr()}, ClientID: &console, NoVersionNegotiation: true, MaxVersions: v0})
	if err != nil {
		t.Fatal(err)
	}
	defer ccl.Close()
	if _, err := ccl.Metadata(ctx, "mytopic"); err != nil {
		t.Fatal(err)
	}
	co := NewConsumer(ccl, ConsumerConfig{MaxBytes: 1 << 20}) // MaxWaitMs 100, MinBytes 1: the defaults
	fr, err := co.Fetch(ctx, "mytopic", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(fr.Messages) != 2 || string(fr.Messages[0].Value) != "Hello!" || string(fr.Messages[1].Value) != "Hello, World!" ||
		fr.Messages[1].Offset != 1 || fr.Messages[1].NextOffset != 2 || !fr.Messages[1].Valid || fr.Messages[0].Key != nil || fr.HighWatermark != 2 {
		t.Errorf("fetch decoded %+v", fr)
	}
	if off, err := co.EarliestOffset(ctx, "mytopic", 0); err != nil || off != 0 {
		t.Errorf("earliest: %d %v", off, err)
	}

	mu.Lock()
	defer mu.Unlock()
	check := func(name string, key int16, idx int) {
		t.Helper()
		frames := got[key]
		if idx >= len(frames) {
			t.Errorf("%s: only %d requests of key %d sent", name, len(frames), key)
			return
		}
		want, have := bytes.Clone(vec[name]), bytes.Clone(frames[idx])
		if len(have) >= 12 && len(want) >= 12 {
			// The CorrelationId aside.
			binary.BigEndian.PutUint32(have[8:], 0)
			binary.BigEndian.PutUint32(want[8:], 0)
		}
		if !bytes.Equal(have, want) {
			t.Errorf("%s:\n sent %x\n want %x", name, have, want)
		}
	}
	check("Produce v0 request", 0, 0)
	// The consumer client's first Metadata request is its own (the
	// producer's was sent with the empty ClientId).
	check("Metadata v0 request", 3, len(got[3])-1)
	check("Fetch v0 request", 1, 0)
	check("ListOffsets v0 request", 2, 0)
}
