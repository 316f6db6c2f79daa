package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/internal/capedit"
)

// These tests read a real capture split into files, as ring buffers and
// editcap write them, and written slowly into a pipe, as tcpdump -U -w -
// writes it.

const pcapsDir = "../../testdata/pcaps/"

// readJSON runs read --format json on files and returns the lines as
// objects, failing on a non-zero exit or a warning.
func readJSON(t *testing.T, files ...string) []map[string]any {
	t.Helper()
	code, out, errs := runCLI(t, append([]string{"read", "--format", "json"}, files...)...)
	if code != 0 || errs != "" {
		t.Fatalf("read %v: exit %d, stderr %q", files, code, errs)
	}
	return decodeLines(t, out)
}

func decodeLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for l := range strings.Lines(out) {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("bad JSON line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	return lines
}

// span is the time of a file's first and last packets, read with pcapgo.
type span struct{ first, last time.Time }

func fileSpan(t *testing.T, path string) span {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := pcapgo.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var s span
	for {
		_, ci, err := r.ZeroCopyReadPacketData()
		if err != nil {
			return s
		}
		if s.first.IsZero() {
			s.first = ci.Timestamp
		}
		s.last = ci.Timestamp
	}
}

// checkSameLines compares the lines of the parts with the whole's, apart
// from "file", and checks "file" against inFile (whether an exchange of
// the whole, its line, could be in that file).
func checkSameLines(t *testing.T, name string, got, want []map[string]any, inFile func(file string, line map[string]any) bool) {
	t.Helper()
	ended := func(lines []map[string]any) (n int) {
		for _, l := range lines {
			n += strings.Count(fmt.Sprint(l["notes"]), "capture ended")
		}
		return n
	}
	if g, w := ended(got), ended(want); g != w {
		t.Errorf("%s: %d notes of a capture ended, the whole has %d", name, g, w)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d exchanges, the whole has %d", name, len(got), len(want))
	}
	for i := range got {
		file, ok := got[i]["file"].(string)
		if !ok || !inFile(file, got[i]) {
			t.Fatalf("%s: exchange %d (%v %v) named file %v", name, i, got[i]["api"], got[i]["ts"], got[i]["file"])
		}
		// Frame numbers count each file's packets (TestFrameNumbersFilteredAndSplit).
		g, w := maps.Clone(got[i]), maps.Clone(want[i])
		for _, k := range []string{"file", "request_packets", "response_packets"} {
			delete(g, k)
			delete(w, k)
		}
		if !reflect.DeepEqual(g, w) {
			gj, _ := json.Marshal(g)
			wj, _ := json.Marshal(want[i])
			t.Fatalf("%s: exchange %d differs:\n got %s\nwant %s", name, i, gj, wj)
		}
	}
}

// orders returns the files in reverse and in a shuffled order.
func orders(files []string) [][]string {
	rev := slices.Clone(files)
	slices.Reverse(rev)
	shuf := slices.Clone(files)
	rand.New(rand.NewPCG(uint64(len(files)), 7)).Shuffle(len(shuf), func(i, j int) { shuf[i], shuf[j] = shuf[j], shuf[i] })
	return [][]string{rev, shuf}
}

// TestReadSplitCapture splits real captures with editcap -c (packets per
// file, frames crossing from one file into the next) and -i (seconds per
// file), and reads the parts in reverse and shuffled order: the exchanges
// are the whole capture's, each naming the file of its request's first
// packet, with no "capture ended before the response" at the cuts. stats
// and replay read the parts as the whole too.
func TestReadSplitCapture(t *testing.T) {
	editcap, err := exec.LookPath("editcap")
	if err != nil {
		t.Skip("editcap not installed")
	}
	for _, c := range []struct {
		capture string
		splits  [][]string // editcap options
	}{
		{"franz_groups.pcap", [][]string{{"-c", "3"}, {"-c", "40"}, {"-i", "1"}}},
		{"kcat_group.pcap", [][]string{{"-c", "10"}, {"-i", "1"}}},
		{"kcat_mtu.pcap.gz", [][]string{{"-c", "100"}, {"-i", "0.1"}}},
	} {
		whole := pcapsDir + c.capture
		want := readJSON(t, whole)
		for _, split := range c.splits {
			dir := t.TempDir()
			args := append([]string{"-F", "pcap"}, split...)
			if b, err := exec.Command(editcap, append(args, whole, filepath.Join(dir, "part.pcap"))...).CombinedOutput(); err != nil {
				t.Fatalf("editcap %v: %v: %s", split, err, b)
			}
			parts, _ := filepath.Glob(filepath.Join(dir, "part_*.pcap"))
			if len(parts) < 3 {
				t.Fatalf("editcap %v %s: %d files", split, c.capture, len(parts))
			}
			spans := map[string]span{}
			for _, p := range parts {
				spans[p] = fileSpan(t, p)
			}
			inFile := func(file string, line map[string]any) bool {
				ts, err := time.Parse(time.RFC3339Nano, line["ts"].(string))
				s, ok := spans[file]
				return err == nil && ok && !ts.Before(s.first) && !ts.After(s.last)
			}
			for _, order := range orders(parts) {
				name := fmt.Sprintf("%s split by editcap %v into %d files", c.capture, split, len(parts))
				checkSameLines(t, name, readJSON(t, order...), want, inFile)
			}
		}
	}

	// stats: the same figures from the parts as from the whole.
	dir := t.TempDir()
	if b, err := exec.Command(editcap, "-F", "pcap", "-c", "7", pcapsDir+"franz_groups.pcap", filepath.Join(dir, "part.pcap")).CombinedOutput(); err != nil {
		t.Fatalf("editcap: %v: %s", err, b)
	}
	parts, _ := filepath.Glob(filepath.Join(dir, "part_*.pcap"))
	statsJSON := func(files ...string) map[string]any {
		m := statsJSONOf(t, files...)
		delete(m["capture"].(map[string]any), "files")
		return m
	}
	if got, want := statsJSON(orders(parts)[1]...), statsJSON(pcapsDir+"franz_groups.pcap"); !reflect.DeepEqual(got, want) {
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		t.Errorf("stats of %d parts differ from the whole's:\n got %s\nwant %s", len(parts), gj, wj)
	}
	// replay: the same plan of requests to send.
	plan := func(files ...string) string {
		code, out, errs := runCLI(t, append([]string{"replay", "--dry-run", "--format", "json"}, files...)...)
		if code != 0 {
			t.Fatalf("replay: exit %d: %s", code, errs)
		}
		return regexp.MustCompile(`"duration_us":\d+`).ReplaceAllString(out, "")
	}
	if got, want := plan(orders(parts)[0]...), plan(pcapsDir+"franz_groups.pcap"); got != want || !strings.Contains(got, `"index":123`) {
		t.Errorf("replay --dry-run of %d parts differs from the whole's:\n got %s\nwant %s", len(parts), got, want)
	}
}

// connectionParity puts a packet in one of two files by its TCP
// connection (bit 1 of the client's port: Linux gives connect() even
// ports), as two capture points would each see some connections.
func connectionParity(p capedit.Packet) int {
	tcp, ok := gopacket.NewPacket(p.Data, p.LinkType, gopacket.Lazy).Layer(layers.LayerTypeTCP).(*layers.TCP)
	if !ok {
		return 0
	}
	return int(tcp.SrcPort^tcp.DstPort) >> 1 & 1
}

// writeSplit splits capture with capedit.Split into files dir/name0,
// dir/name1...
func writeSplit(t *testing.T, capture, dir, name string, n int, part func(capedit.Packet) int) []string {
	t.Helper()
	data, err := os.ReadFile(capture)
	if err != nil {
		t.Fatal(err)
	}
	files, _, err := capedit.Split(bytes.NewReader(data), n, part)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for k, f := range files {
		p := filepath.Join(dir, fmt.Sprintf("%s%d.pcap", name, k))
		if err := os.WriteFile(p, f, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// TestReadOverlappingCaptures reads two files that overlap in time, each
// with some of the connections: they are merged by time into the whole
// capture, every exchange naming the file of its connection.
func TestReadOverlappingCaptures(t *testing.T) {
	for _, capture := range []string{"franz_groups.pcap", "franz_transactions.pcap"} {
		whole := pcapsDir + capture
		want := readJSON(t, whole)
		files := writeSplit(t, whole, t.TempDir(), "point", 2, connectionParity)
		a, b := fileSpan(t, files[0]), fileSpan(t, files[1])
		if !a.first.Before(b.last) || !b.first.Before(a.last) {
			t.Fatalf("%s: the two files do not overlap in time: %v %v", capture, a, b)
		}
		inFile := func(file string, line map[string]any) bool {
			var port int
			fmt.Sscanf(line["client"].(string)[strings.LastIndex(line["client"].(string), ":")+1:], "%d", &port)
			return file == files[(port^9092)>>1&1]
		}
		checkSameLines(t, capture+" from two capture points", readJSON(t, files[1], files[0]), want, inFile)
	}
}

// TestReadSplitErrors checks a file that is not a capture and a damaged
// part among the parts: an error line naming each, exit status 1, and the
// exchanges of the other parts; and standard input named twice.
func TestReadSplitErrors(t *testing.T) {
	dir := t.TempDir()
	whole := pcapsDir + "franz_groups.pcap"
	parts := writeSplit(t, whole, dir, "part", 3, func(p capedit.Packet) int { return min(p.Index/170, 2) })
	garbage := filepath.Join(dir, "notes.txt")
	os.WriteFile(garbage, []byte("not a capture"), 0o644)

	code, out, errs := runCLI(t, "read", "--format", "json", parts[2], garbage, parts[0], parts[1])
	if code != exitInput || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "notes.txt: not a capture") {
		t.Errorf("a file not a capture among the parts: exit %d, stderr %q", code, errs)
	}
	want := readJSON(t, whole)
	if got := decodeLines(t, out); len(got) != len(want) {
		t.Errorf("a file not a capture among the parts: %d exchanges, the whole has %d", len(got), len(want))
	}

	data, _ := os.ReadFile(parts[1])
	os.WriteFile(parts[1], data[:len(data)/2], 0o644)
	code, out, errs = runCLI(t, "read", "--format", "json", parts[2], parts[1], parts[0])
	if code != exitInput || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "part1.pcap: capture damaged at byte") {
		t.Errorf("a damaged part: exit %d, stderr %q", code, errs)
	}
	files := map[any]int{}
	for _, l := range decodeLines(t, out) {
		files[l["file"]]++
	}
	if files[parts[0]] == 0 || files[parts[1]] == 0 || files[parts[2]] == 0 || len(files) != 3 {
		t.Errorf("a damaged part: exchanges per file %v, want some of each", files)
	}

	if code, _, errs := runCLI(t, "read", "-", parts[0], "-"); code != exitInput || !strings.Contains(errs, "- is given twice") {
		t.Errorf("- twice: exit %d, stderr %q", code, errs)
	}
}

// pcapRecordsOf returns a capture's file header and records as a classic
// pcap (capedit writes it little-endian).
func pcapRecordsOf(t *testing.T, path string) (header []byte, records [][]byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := capedit.Rewrite(&buf, bytes.NewReader(data), capedit.Options{}); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	header, b = b[:24], b[24:]
	for len(b) > 0 {
		n := 16 + int(binary.LittleEndian.Uint32(b[8:12]))
		records, b = append(records, b[:n]), b[n:]
	}
	return header, records
}

// exchangesAfter returns how many exchanges a Session emits by the end of
// each packet: what a reader of a pipe can show by then.
func exchangesAfter(t *testing.T, header []byte, records [][]byte) []int {
	t.Helper()
	pr, err := dissect.NewPacketReader(bytes.NewReader(slices.Concat(append([][]byte{header}, records...)...)))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	s := dissect.New(dissect.Options{ValidRequest: validRequest}).NewSession(func(*dissect.Exchange) { n++ })
	var counts []int
	for {
		data, ci, link, err := pr.Next()
		if err != nil {
			return counts
		}
		s.Packet(link, data, ci)
		counts = append(counts, n)
	}
}

// shownExchanges counts the exchanges in output of a format.
func shownExchanges(format, out string) int {
	switch format {
	case "json":
		return strings.Count(out, "\n")
	case "summary":
		return max(0, len(regexp.MustCompile(`(?m)^│`).FindAllString(out, -1))-1) // less the header
	}
	return len(regexp.MustCompile(`(?m)^Exchange \d+ · `).FindAllString(out, -1))
}

// pipeRead runs read args on a pipe as standard input; the caller writes
// into the pipe. done receives the exit status.
func pipeRead(args ...string) (w *io.PipeWriter, stdout, stderr *syncBuffer, done chan int) {
	pr, pw := io.Pipe()
	stdout, stderr, done = newSyncBuffer(""), newSyncBuffer(""), make(chan int, 1)
	go func() {
		done <- run(args, pr, stdout, stderr)
		pr.Close()
	}()
	return pw, stdout, stderr, done
}

// waitShown waits, up to hangCap, for out to show n exchanges; the writer
// meanwhile waits too.
func waitShown(t *testing.T, format string, out *syncBuffer, n int, what string) {
	t.Helper()
	deadline := time.Now().Add(hangCap)
	for shownExchanges(format, out.String()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d of the %d exchanges complete %s shown after %v:\n%s", format, shownExchanges(format, out.String()), n, what, hangCap, out)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := shownExchanges(format, out.String()); got != n {
		t.Fatalf("%s: %d exchanges shown %s, only %d are complete", format, got, what, n)
	}
}

// TestReadPipeStreams writes a capture into read's standard input in
// steps, as tcpdump -U -w - writes it, pausing where exchanges are
// complete: in every format they are shown while the writer waits (it
// waits for them, up to hangCap). In the end the output is the file's (the
// summary table with fixed widths: the same rows). And -c ends the command
// while the writer still waits.
func TestReadPipeStreams(t *testing.T) {
	capture := pcapsDir + "kcat_produce_lz4.pcap"
	header, records := pcapRecordsOf(t, capture)
	counts := exchangesAfter(t, header, records)
	total := counts[len(counts)-1]
	first := slices.IndexFunc(counts, func(n int) bool { return n > 0 }) + 1
	middle := slices.IndexFunc(counts, func(n int) bool { return n >= total/2 }) + 1
	for _, format := range []string{"summary", "json", "detail", "hexdump"} {
		w, stdout, stderr, done := pipeRead("read", "--format", format, "-")
		w.Write(header)
		for i, r := range records {
			w.Write(r)
			if n := i + 1; n == first || n == middle {
				waitShown(t, format, stdout, counts[i], fmt.Sprintf("after %d of %d packets", n, len(records)))
			}
		}
		w.Close()
		if code := <-done; code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, stderr)
		}
		_, want, _ := runCLI(t, "read", "--format", format, capture)
		if format == "summary" {
			if got := shownExchanges(format, stdout.String()); got != total || !strings.HasPrefix(stdout.String(), "┌") || !strings.HasSuffix(stdout.String(), "┘\n") {
				t.Errorf("summary from a pipe: %d rows of %d, or not one table:\n%s", got, total, stdout)
			}
		} else if stdout.String() != want {
			t.Errorf("%s from a pipe differs from the file's", format)
		}
	}

	// -c: the command ends once its exchanges are shown, while the
	// writer waits with more to write.
	n := counts[middle-1]
	w, stdout, stderr, done := pipeRead("read", "--format", "json", "-c", fmt.Sprint(n), "-")
	w.Write(header)
	for _, r := range records[:middle] {
		w.Write(r)
	}
	select {
	case code := <-done:
		if code != 0 || shownExchanges("json", stdout.String()) != n {
			t.Errorf("-c %d from a pipe: exit %d, %d exchanges shown: %s", n, code, shownExchanges("json", stdout.String()), stderr)
		}
	case <-time.After(hangCap):
		t.Errorf("-c %d from a pipe: still running %v after its %d exchanges were written", n, hangCap, n)
	}
	w.Close()

	// Standard input that is a regular file is read as a file: the
	// summary table sized to its cells.
	f, err := os.Open(capture)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out, errb bytes.Buffer
	_, want, _ := runCLI(t, "read", capture)
	if code := run([]string{"read", "-"}, f, &out, &errb); code != 0 || out.String() != want {
		t.Errorf("read - < file: exit %d, output the file's: %v", code, out.String() == want)
	}
}
