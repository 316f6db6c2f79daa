package main

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/internal/capgen"
)

// pcapRecords splits a classic little-endian pcap (capgen's) into its
// file header and packet records (each with its 16-byte record header).
func pcapRecords(t *testing.T, b []byte) (header []byte, recs [][]byte) {
	t.Helper()
	header, b = b[:24], b[24:]
	for len(b) > 0 {
		n := 16 + int(binary.LittleEndian.Uint32(b[8:12]))
		recs = append(recs, b[:n:n])
		b = b[n:]
	}
	return header, recs
}

// capgenPayload is where a capgen packet record's TCP payload starts:
// record header, Ethernet, IPv4 and TCP headers without options.
const capgenPayload = 16 + 14 + 20 + 20

// retransmitCaptures writes three captures of one Produce exchange whose
// request, a 6000-byte record value, takes 5 segments: clean, with the
// request's second segment sent again after its third (a retransmission
// of the same bytes), and the same with 3 bytes of the retransmitted copy
// changed. It returns their paths and the frame of the retransmission.
func retransmitCaptures(t *testing.T) (clean, same, changed string, frame int) {
	t.Helper()
	b := codec.RecordBatch{BaseOffset: 0, LastOffsetDelta: 0, BaseTimestamp: 1764460800000, MaxTimestamp: 1764460800000,
		ProducerId: -1, ProducerEpoch: -1, BaseSequence: -1,
		Records: []codec.Record{{Key: []byte("k"), Value: bytes.Repeat([]byte("a"), 6000)}}}
	req, resp, err := capgen.ProduceFrames(1, b.AppendTo(nil))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := capgen.WriteExchanges(&buf, [][2][]byte{{req, resp}}); err != nil {
		t.Fatal(err)
	}
	header, recs := pcapRecords(t, buf.Bytes())
	// Records: SYN, SYN-ACK, ACK, then the request's 5 segments (3-7).
	second, third := 4, 5
	if len(recs[second])-capgenPayload != 1448 || len(recs[third+2])-capgenPayload >= 1448 {
		t.Fatalf("segments of %d and %d bytes: not the layout this test expects", len(recs[second])-capgenPayload, len(recs[third+2])-capgenPayload)
	}
	write := func(name string, extra []byte) string {
		var out bytes.Buffer
		out.Write(header)
		for i, r := range recs {
			out.Write(r)
			if i == third && extra != nil {
				cp := bytes.Clone(extra)
				copy(cp[:8], r[:8]) // the time of the packet before it
				out.Write(cp)
			}
		}
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	mod := bytes.Clone(recs[second])
	for _, at := range []int{100, 101, 700} { // inside the record value: 'a' becomes 'X'
		if mod[capgenPayload+at] != 'a' {
			t.Fatalf("byte %d of the segment is %q, not in the value", at, mod[capgenPayload+at])
		}
		mod[capgenPayload+at] = 'X'
	}
	return write("clean.pcap", nil), write("same.pcap", recs[second]), write("changed.pcap", mod), third + 2
}

// TestRetransmissionDiffers: a retransmitted segment whose bytes differ
// from the first copy is noted on its exchange (issue 19), and nothing
// else changes: the first copy is used, as it is when the copies agree,
// and as without the retransmission. tshark flags the copy as a
// retransmission and reads the first copy too.
func TestRetransmissionDiffers(t *testing.T) {
	clean, same, changed, frame := retransmitCaptures(t)
	read := func(path string) map[string]any {
		t.Helper()
		code, stdout, stderr := runCLI(t, "read", "--format", "json", path)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", path, code, stderr)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(stdout), &m); err != nil || strings.Count(stdout, "\n") != 1 {
			t.Fatalf("%s: want one exchange: %v\n%s", path, err, stdout)
		}
		return m
	}
	base, sameEx, changedEx := read(clean), read(same), read(changed)
	note := "a retransmitted TCP segment differs from the first copy: 3 of 1448 overlapping bytes; the first copy is used (corruption, a middlebox rewriting the stream, or a broken capture)"
	notes, _ := changedEx["notes"].([]any)
	if len(notes) != 1 || notes[0] != note {
		t.Errorf("notes %q, want [%q]", notes, note)
	}
	changedEx["notes"] = base["notes"]
	// The copy is a frame of its own, so the frame numbers from it on are
	// one more than the clean capture's: everything else must be equal.
	for _, ex := range []map[string]any{base, sameEx, changedEx} {
		delete(ex, "request_packets")
		delete(ex, "response_packets")
	}
	for name, ex := range map[string]map[string]any{"same": sameEx, "changed": changedEx} {
		a, _ := json.Marshal(ex)
		b, _ := json.Marshal(base)
		if !bytes.Equal(a, b) {
			t.Errorf("%s copy: the exchange differs from the clean capture's:\n%s\nclean:\n%s", name, a, b)
		}
	}
	retransmitted := func(path string) int {
		_, out, _ := runCLI(t, "stats", "--format", "json", path)
		var st struct {
			Capture struct {
				Retransmitted int `json:"retransmitted"`
			} `json:"capture"`
		}
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatal(err)
		}
		return st.Capture.Retransmitted
	}
	if r := retransmitted(clean); r != 0 {
		t.Errorf("clean: %d retransmitted", r)
	}
	for _, p := range []string{same, changed} {
		if r := retransmitted(p); r != 1 {
			t.Errorf("%s: %d retransmitted, want 1", p, r)
		}
	}

	if _, err := exec.LookPath("tshark"); err != nil {
		t.Log("tshark not installed: its reading not compared")
		return
	}
	field := func(path, filter, name string) string {
		t.Helper()
		out, err := exec.Command("tshark", "-r", path, "-d", "tcp.port==9092,kafka", "-Y", filter, "-T", "fields", "-e", name).Output()
		if err != nil {
			t.Fatalf("tshark %s -e %s: %v", filter, name, err)
		}
		return strings.TrimSpace(string(out))
	}
	// The copy, sent moments after the segments before it, is "out of
	// order" to tshark's analysis (a retransmission after 3 ms).
	if got := field(changed, "tcp.analysis.out_of_order || tcp.analysis.retransmission", "frame.number"); got != strconv.Itoa(frame) {
		t.Errorf("tshark flags frames %q as out of order or retransmitted, want %d", got, frame)
	}
	// Its reassembly sees the overlap, and the conflict only in the
	// changed copy; it keeps the first copy, as kdissect does.
	if got := field(same, "tcp.segment.overlap", "frame.number"); got != "9" {
		t.Errorf("same copy: tshark sees an overlap in frames %q, want the request's last, 9", got)
	}
	if got := field(same, "tcp.segment.overlap.conflict", "frame.number"); got != "" {
		t.Errorf("same copy: tshark sees a conflict in frames %q", got)
	}
	if got := field(changed, "tcp.segment.overlap.conflict", "frame.number"); got != "9" {
		t.Errorf("changed copy: tshark sees a conflict in frames %q, want 9", got)
	}
	value, err := hex.DecodeString(field(changed, "kafka.api_key == 0 && tcp.srcport == 40000", "kafka.message_value"))
	if err != nil {
		t.Fatalf("tshark's record value: %v", err)
	}
	var ours struct {
		Request struct {
			TopicData []struct {
				PartitionData []struct {
					Records []struct{ Records []struct{ Value string } }
				}
			}
		}
	}
	raw, _ := json.Marshal(changedEx)
	if err := json.Unmarshal(raw, &ours); err != nil {
		t.Fatal(err)
	}
	got := ours.Request.TopicData[0].PartitionData[0].Records[0].Records[0].Value
	if string(value) != got || got != strings.Repeat("a", 6000) {
		t.Errorf("record value: ours %d bytes (%d X), tshark's %d (%d X); want the first copy's, 6000 a", len(got), strings.Count(got, "X"), len(value), bytes.Count(value, []byte("X")))
	}

}
