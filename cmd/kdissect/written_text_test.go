package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/internal/capgen"
)

// These tests hold the text kdissect writes into files from the wire:
// the pcapng comments of -w and the cells of --format csv.

// topicsCapture writes a capture of one Produce exchange per topic name
// (crafted frames: the names are any bytes) and returns its path.
func topicsCapture(t *testing.T, topics ...string) string {
	t.Helper()
	var frames [][2][]byte
	for i, topic := range topics {
		req, resp, err := capgen.ProduceFramesTo(int32(i+1), topic, capgen.MinimalBatch(codec.CompressionNone, 1))
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, [2][]byte{req, resp})
	}
	var buf bytes.Buffer
	if err := capgen.WriteExchanges(&buf, frames); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "topics.pcap")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// controlFree says whether s holds no control character (C0, DEL, C1 as
// a character or a raw byte) and is valid UTF-8.
func controlFree(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return false
		}
	}
	return true
}

// TestWriteCommentsEscapeControls: -w's packet comments name the topics
// with their control characters escaped (ESC, BEL, C1 as a character
// and as a raw byte, newline, tab), so that tshark -V on the file does
// not hand them to the terminal; read back, the names are recognisable.
func TestWriteCommentsEscapeControls(t *testing.T) {
	hostile := []string{"t\x1b]0;pwned\x07", "c1\u009b2J", "raw\x9bbyte", "nl\nta\tcr\r"}
	in := topicsCapture(t, hostile...)
	out := filepath.Join(t.TempDir(), "out.pcapng")
	if code, _, errs := runCLI(t, "read", "-q", "-w", out, in); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var comments []string
	for _, p := range packetsOf(t, out) { // write_test.go
		comments = append(comments, p.comments...)
	}
	if len(comments) != 2*len(hostile) {
		t.Fatalf("%d comments, want one on each request and response: %q", len(comments), comments)
	}
	for _, c := range comments {
		if !controlFree(c) {
			t.Errorf("a comment holds a control character: %q", c)
		}
	}
	all := strings.Join(comments, "\n")
	for _, want := range []string{`t\x1b]0;pwned\x07[0]`, `c1\u009b2J[0]`, `raw\x9bbyte[0]`, `nl\x0ata\x09cr\x0d[0]`} {
		if !strings.Contains(all, want) {
			t.Errorf("no comment names %s: %q", want, comments)
		}
	}
	// What Wireshark shows of them, where tshark is installed (its own
	// Kafka tree prints the names raw: only the comment lines are ours).
	if _, err := exec.LookPath("tshark"); err != nil {
		return
	}
	v, err := exec.Command("tshark", "-r", out, "-V", "-Y", "frame.comment").Output()
	if err != nil {
		t.Fatalf("tshark -V: %v", err)
	}
	shown := 0
	for l := range strings.Lines(string(v)) {
		if !strings.Contains(l, "kdissect: Produce v7") {
			continue
		}
		shown++
		if strings.ContainsAny(strings.TrimSuffix(l, "\n"), "\x1b\x07\r\u009b") || strings.Contains(l, "\x9b") {
			t.Errorf("tshark -V shows a comment with a control character: %q", l)
		}
	}
	if shown < len(comments) {
		t.Errorf("tshark -V shows %d comment lines, want %d at least", shown, len(comments))
	}
}

// TestCSVFormulaGuard: --format csv puts ' before a cell a spreadsheet
// would run as a formula (=, +, -, @, tab, carriage return first), not
// before a plain number (-1); --csv-raw writes the cells as they are.
func TestCSVFormulaGuard(t *testing.T) {
	guard := map[string]bool{`=HYPERLINK("http://x","y")`: true, "+1+cmd|' /C calc'!A0": true, "-2+3": true, "@SUM(1)": true,
		"\tTAB": true, "\rCR": true, "-": true, "orders": false, "-1.5e3": false, "+7": false, "a=b": false}
	var topics []string
	for topic := range guard {
		topics = append(topics, topic)
	}
	in := topicsCapture(t, topics...)
	cells := func(args ...string) [][]string {
		t.Helper()
		code, out, errs := runCLI(t, append([]string{"read", "--format", "csv", "-e", "topics[0].topic", "-e", "request.Acks"}, append(args, in)...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil {
			t.Fatalf("%v:\n%s", err, out)
		}
		if len(rows) != len(topics)+1 {
			t.Fatalf("%d rows, want a header and %d:\n%s", len(rows), len(topics), out)
		}
		return rows[1:]
	}
	guarded := cells()
	raw := cells("--csv-raw")
	for i, topic := range topics {
		want := topic
		if guard[topic] {
			want = "'" + topic
		}
		if guarded[i][0] != want {
			t.Errorf("topic %q: cell %q, want %q", topic, guarded[i][0], want)
		}
		if raw[i][0] != topic {
			t.Errorf("--csv-raw: topic %q: cell %q", topic, raw[i][0])
		}
		if guarded[i][1] != "-1" { // Acks: a number, left alone
			t.Errorf("Acks: cell %q, want -1", guarded[i][1])
		}
	}
	if code, _, errs := runCLI(t, "read", "--format", "fields", "-e", "api", "--csv-raw", in); code != exitUsage || !strings.Contains(errs, "--csv-raw") {
		t.Errorf("--csv-raw without csv: exit %d: %s", code, errs)
	}
}

// TestWriteInputCommentsEscaped: the comments a pcapng input already
// carries go out through -w escaped as kdissect's own are (a person's
// newlines and tabs kept), so that a hostile input cannot reach the
// terminal of whoever runs tshark -V on the file kdissect wrote.
func TestWriteInputCommentsEscaped(t *testing.T) {
	pcap := topicsCapture(t, "orders")
	pkts := packetsOf(t, pcap)
	in := filepath.Join(t.TempDir(), "commented.pcapng")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pcapgo.NewNgWriter(f, pkts[0].link)
	if err != nil {
		t.Fatal(err)
	}
	inputComments := []string{"ops: line one\nline two\tcol", "t\x1b]0;pwned\x07", "c1\u009b2J raw\x9b"}
	for _, p := range pkts {
		ci := gopacket.CaptureInfo{Timestamp: p.ts, CaptureLength: p.caplen, Length: p.olen}
		if err := w.WritePacketWithOptions(ci, []byte(p.data), pcapgo.NgPacketOptions{Comments: inputComments}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out := filepath.Join(t.TempDir(), "out.pcapng")
	if code, _, errs := runCLI(t, "read", "-q", "-w", out, in); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var theirs []string
	for _, p := range packetsOf(t, out) {
		for _, c := range p.comments {
			if !strings.HasPrefix(c, "kdissect: ") {
				theirs = append(theirs, c)
			}
		}
	}
	if len(theirs) == 0 || len(theirs)%len(inputComments) != 0 {
		t.Fatalf("%d input comments written, want a multiple of %d: %q", len(theirs), len(inputComments), theirs)
	}
	for i, c := range theirs {
		if !controlFree(strings.NewReplacer("\n", "", "\t", "").Replace(c)) {
			t.Errorf("an input comment holds a control character: %q", c)
		}
		if want := []string{"ops: line one\nline two\tcol", `t\x1b]0;pwned\x07`, `c1\u009b2J raw\x9b`}[i%len(inputComments)]; c != want {
			t.Errorf("input comment %d written as %q, want %q", i, c, want)
		}
	}
}
