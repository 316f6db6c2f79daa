package codec

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"os"
	"strings"
	"testing"
)

// sharedVectors holds protocol byte vectors beside the project; the test
// skips when the folder is absent.
const sharedVectors = "../../shared/vectors/perl-kafka-v0.md"

// readVectors returns the hex blocks of the vectors file by section title.
func readVectors(t *testing.T) map[string][]byte {
	t.Helper()
	f, err := os.Open(sharedVectors)
	if err != nil {
		t.Skipf("vectors not available: %v", err)
	}
	defer f.Close()
	out := map[string][]byte{}
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
			out[title] = append(out[title], b...)
		}
	}
	return out
}

// frameParts splits a size-prefixed frame and checks the prefix.
func frameBody(t *testing.T, name string, frame []byte) []byte {
	t.Helper()
	if len(frame) < 4 || int(binary.BigEndian.Uint32(frame)) != len(frame)-4 {
		t.Fatalf("%s: size prefix does not match the frame length %d", name, len(frame))
	}
	return frame[4:]
}

// decodeRequestFrame decodes a whole request frame (header and body) and
// checks that re-encoding gives the same bytes.
func decodeRequestFrame(t *testing.T, name string, frame []byte) (*RequestHeader, Message) {
	t.Helper()
	b := frameBody(t, name, frame)
	key := int16(binary.BigEndian.Uint16(b))
	version := int16(binary.BigEndian.Uint16(b[2:]))
	api, ok := LookupAPI(key)
	if !ok {
		t.Fatalf("%s: unknown key %d", name, key)
	}
	r := NewReader(b)
	hdr := new(RequestHeader)
	hv := RequestHeaderVersion(key, version)
	hdr.ReadFrom(r, hv)
	body := api.NewRequest()
	body.ReadFrom(r, version)
	if err := r.Err(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if r.Remaining() != 0 || len(r.Warnings) != 0 {
		t.Fatalf("%s: %d bytes left, warnings %v", name, r.Remaining(), r.Warnings)
	}
	re := body.AppendTo(hdr.AppendTo(nil, hv), version)
	if !equalBytes(re, b) {
		t.Errorf("%s: re-encoded\n%x\nwant\n%x", name, re, b)
	}
	return hdr, body
}

func decodeResponseFrame(t *testing.T, name string, frame []byte, key, version int16) (*ResponseHeader, Message) {
	t.Helper()
	b := frameBody(t, name, frame)
	api, _ := LookupAPI(key)
	r := NewReader(b)
	hdr := new(ResponseHeader)
	hv := ResponseHeaderVersion(key, version)
	hdr.ReadFrom(r, hv)
	body := api.NewResponse()
	body.ReadFrom(r, version)
	if err := r.Err(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if r.Remaining() != 0 || len(r.Warnings) != 0 {
		t.Fatalf("%s: %d bytes left, warnings %v", name, r.Remaining(), r.Warnings)
	}
	re := body.AppendTo(hdr.AppendTo(nil, hv), version)
	if !equalBytes(re, b) {
		t.Errorf("%s: re-encoded\n%x\nwant\n%x", name, re, b)
	}
	return hdr, body
}

func equalBytes(a, b []byte) bool { return string(a) == string(b) }

// TestPerlVectors decodes the v0 vectors of the Perl Kafka client's test
// suite to the values their descriptions give, and re-encodes them.
func TestPerlVectors(t *testing.T) {
	v := readVectors(t)
	if len(v) != 5 {
		t.Fatalf("found %d vectors, want 5", len(v))
	}

	hdr, m := decodeRequestFrame(t, "Produce v0 request", v["Produce v0 request"])
	pr := m.(*ProduceRequest)
	if hdr.CorrelationId != 4 || hdr.ClientId == nil || *hdr.ClientId != "" || pr.Acks != 1 || pr.TimeoutMs != 1500 ||
		len(pr.TopicData) != 1 || pr.TopicData[0].Name != "mytopic" || len(pr.TopicData[0].PartitionData) != 1 ||
		pr.TopicData[0].PartitionData[0].Index != 0 {
		t.Errorf("Produce v0 request: %+v %+v", hdr, pr)
	} else {
		set := pr.TopicData[0].PartitionData[0].Records.DecodeRecords(RecordDecodeOptions{})
		if set.Count() != 1 || len(set.Entries) != 1 || set.Entries[0].Message == nil {
			t.Fatalf("Produce v0 records: %+v", set)
		}
		msg := set.Entries[0].Message
		if msg.Magic != 0 || msg.Crc != 0x8dc795a2 || !msg.CrcValid || msg.Key != nil || string(msg.Value) != "Hello!" {
			t.Errorf("Produce v0 message: %+v", msg)
		}
	}

	rh, m := decodeResponseFrame(t, "Produce v0 response", v["Produce v0 response"], 0, 0)
	prr := m.(*ProduceResponse)
	if rh.CorrelationId != 4 || len(prr.Responses) != 1 || prr.Responses[0].Name != "mytopic" ||
		len(prr.Responses[0].PartitionResponses) != 1 || prr.Responses[0].PartitionResponses[0].ErrorCode != 0 ||
		prr.Responses[0].PartitionResponses[0].BaseOffset != 0 {
		t.Errorf("Produce v0 response: %+v %+v", rh, prr)
	}

	hdr, m = decodeRequestFrame(t, "Fetch v0 request", v["Fetch v0 request"])
	fr := m.(*FetchRequest)
	if hdr.CorrelationId != 0 || *hdr.ClientId != "console-consumer-25555" || fr.ReplicaId != -1 || fr.MaxWaitMs != 100 ||
		fr.MinBytes != 1 || len(fr.Topics) != 1 || fr.Topics[0].Topic != "mytopic" || len(fr.Topics[0].Partitions) != 1 ||
		fr.Topics[0].Partitions[0].FetchOffset != 0 || fr.Topics[0].Partitions[0].PartitionMaxBytes != 1048576 {
		t.Errorf("Fetch v0 request: %+v %+v", hdr, fr)
	}

	rh, m = decodeResponseFrame(t, "Fetch v0 response", v["Fetch v0 response"], 1, 0)
	fresp := m.(*FetchResponse)
	if rh.CorrelationId != 0 || len(fresp.Responses) != 1 || fresp.Responses[0].Topic != "mytopic" {
		t.Fatalf("Fetch v0 response: %+v", fresp)
	}
	p := fresp.Responses[0].Partitions[0]
	if p.PartitionIndex != 0 || p.ErrorCode != 0 || p.HighWatermark != 2 {
		t.Errorf("Fetch v0 partition: %+v", p)
	}
	set := p.Records.DecodeRecords(RecordDecodeOptions{})
	if set.Count() != 2 || set.Entries[0].Message.Offset != 0 || string(set.Entries[0].Message.Value) != "Hello!" ||
		set.Entries[1].Message.Offset != 1 || string(set.Entries[1].Message.Value) != "Hello, World!" ||
		!set.Entries[0].Message.CrcValid || !set.Entries[1].Message.CrcValid {
		t.Errorf("Fetch v0 records: %+v", set)
	}

	hdr, m = decodeRequestFrame(t, "Metadata v0 request", v["Metadata v0 request"])
	mr := m.(*MetadataRequest)
	if hdr.CorrelationId != 0 || *hdr.ClientId != "console-consumer-25555" || len(mr.Topics) != 1 || mr.Topics[0].Name == nil || *mr.Topics[0].Name != "mytopic" {
		t.Errorf("Metadata v0 request: %+v %+v", hdr, mr)
	}
}
