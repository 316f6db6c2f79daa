package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/internal/capedit"
	"github.com/kdissect/kdissect/output/stats"
)

// The views on captures that lack bytes: every capture of testdata/pcaps
// cut to snap lengths of 96, 128 and 256 bytes and with packets dropped
// (internal/capedit), each exchange written in every view.

// damagedCapture is a damaged copy of a capture.
type damagedCapture struct {
	name string
	data []byte
}

// damagedCaptures returns the damaged copies: of the small captures,
// three snap lengths and three drop seeds (3% of the packets); of the
// large kcat_mtu.pcap.gz (Ethernet-sized packets, Fetch responses of
// thousands of records), one snap length and one drop seed.
func damagedCaptures(t *testing.T) []damagedCapture {
	t.Helper()
	files, _ := filepath.Glob("../../testdata/pcaps/*.pcap*")
	if len(files) == 0 {
		t.Fatal("no captures in testdata/pcaps")
	}
	type variant struct {
		name string
		opts capedit.Options
	}
	small := []variant{
		{"snap 96", capedit.Options{Snap: 96}}, {"snap 128", capedit.Options{Snap: 128}}, {"snap 256", capedit.Options{Snap: 256}},
		{"drop seed 1", capedit.Options{Drop: capedit.RandomDrop(0.03, 1, false)}},
		{"drop seed 2", capedit.Options{Drop: capedit.RandomDrop(0.03, 2, false)}},
		{"drop seed 3", capedit.Options{Drop: capedit.RandomDrop(0.03, 3, true)}},
	}
	large := []variant{
		{"snap 128", capedit.Options{Snap: 128}},
		{"drop seed 3", capedit.Options{Drop: capedit.RandomDrop(0.01, 3, false)}},
	}
	var out []damagedCapture
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		vs := small
		if strings.HasSuffix(f, ".gz") {
			vs = large
		}
		for _, v := range vs {
			var buf bytes.Buffer
			if _, err := capedit.Rewrite(&buf, bytes.NewReader(src), v.opts); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			out = append(out, damagedCapture{filepath.Base(f) + " " + v.name, buf.Bytes()})
		}
	}
	return out
}

// readCapture dissects capture and decodes its exchanges with opts.
func readCapture(t *testing.T, capture []byte, opts dissect.DecodeOptions) []*dissect.Exchange {
	t.Helper()
	d := dissect.New(dissect.Options{Ports: []uint16{9092}})
	dec := dissect.NewDecoder(opts)
	var exs []*dissect.Exchange
	if err := d.ReadCapture(bytes.NewReader(capture), func(ex *dissect.Exchange) {
		dec.Decode(ex)
		exs = append(exs, ex)
	}); err != nil {
		t.Fatal(err)
	}
	return exs
}

// checkLabels walks the labels of ft one at a time (records traced
// lazily, as the hexdump walks them) and checks that the leaves of the
// frame cover [0, 4+Size) once, those of each section its data once, and
// that a leaf meeting a hole shows no value: it is not captured, a range
// holding no field, or what did not decode.
func checkLabels(ft *FrameTree) error {
	at := map[int]int{}
	sizes := map[int]int{0: ft.Root.End}
	var err error
	w := labelWalker{st: labelStyle(ft, false), ft: ft, paths: true, emit: func(l *Label) {
		if err != nil {
			return
		}
		if !l.Leaf {
			if l.Section > 0 && l.Name == "(decompressed)" {
				sizes[l.Section] = len(l.data)
			}
			return
		}
		switch a := at[l.Section]; {
		case l.Start > a:
			err = fmt.Errorf("section %d: bytes 0x%x-0x%x unlabelled (before %s)", l.Section, a, l.Start-1, l.Path)
		case l.Start < a:
			err = fmt.Errorf("section %d: %s [0x%x, 0x%x) overlaps the label before it, which ends at 0x%x", l.Section, l.Path, l.Start, l.End, a)
		case l.End < l.Start:
			err = fmt.Errorf("%s ends before it starts", l.Path)
		}
		at[l.Section] = l.End
		if l.Section == 0 && lostIn(ft.holes, l.Start, l.End) > 0 && !l.nc && !l.note && !strings.HasPrefix(l.Text, "not decoded") {
			err = fmt.Errorf("%s [0x%x, 0x%x) meets a hole and shows a value: %s", l.Path, l.Start, l.End, l.Text)
		}
	}}
	for _, n := range ft.Root.Children {
		w.walk(n, 0, "", 0, nil)
	}
	if err != nil {
		return err
	}
	for s, size := range sizes {
		if at[s] != size {
			return fmt.Errorf("section %d: labels end at 0x%x, the bytes at 0x%x", s, at[s], size)
		}
	}
	return nil
}

// hexRow is a hexdump row of the frame (not of a section): the bytes it
// shows in hex start at start.
var hexRow = regexp.MustCompile(`^ 0x([0-9a-f]+)`)

// checkHexdumpRows checks the rows of one exchange's hexdump: no row of
// a frame shows hex for a byte in one of its holes.
func checkHexdumpRows(out string, ex *dissect.Exchange) error {
	var holes []hole
	digits := 0
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "Request: "):
			holes, digits = frameHoles(ex.Request), 0
			continue
		case strings.HasPrefix(line, "Response: "):
			holes, digits = frameHoles(ex.Response), 0
			continue
		}
		m := hexRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if digits == 0 {
			digits = len(m[1]) // the first row: the frame's offset width
		}
		start, _ := strconv.ParseInt(m[1], 16, 64)
		hexStart := 2*digits + 8 // after the range column (see writeLabel)
		if len(line) < hexStart {
			continue
		}
		n := 0
		for p := hexStart; p+2 <= len(line) && p < hexStart+3*hexPerRow && isHexPair(line[p:p+2]); p += 3 {
			n++
		}
		if n > 0 && lostIn(holes, int(start), int(start)+n) > 0 {
			return fmt.Errorf("row shows hex for bytes not captured: %q", line)
		}
	}
	return nil
}

func isHexPair(s string) bool {
	const hexd = "0123456789abcdef"
	return s == "**" || strings.IndexByte(hexd, s[0]) >= 0 && strings.IndexByte(hexd, s[1]) >= 0
}

// notCapturedRange is a byte range the detail view says was not captured.
var notCapturedRange = regexp.MustCompile(`not captured.*bytes ((?:\d+-\d+(?:, )?)+)`)

// sides splits one exchange's detail or hexdump output at its Request and
// Response headings: the heading block, the request's part, the
// response's.
func sides(out string, hexdump bool) (head, req, resp string) {
	reqAt, respAt := "\nRequest\n", "\nResponse\n"
	if hexdump {
		reqAt, respAt = "\nRequest: ", "\nResponse: "
	}
	i, j := strings.Index(out, reqAt), strings.Index(out, respAt)
	switch {
	case i >= 0 && j >= 0:
		return out[:i], out[i:j], out[j:]
	case i >= 0:
		return out[:i], out[i:], ""
	case j >= 0:
		return out[:j], "", out[j:]
	}
	return out, "", ""
}

// checkDetailNotCaptured checks one side of a detail: every byte of the
// body's JSON not_captured entries is in a range the detail says was not
// captured, and every such range meets a hole of the frame.
func checkDetailNotCaptured(detail string, body map[string]any, f *dissect.Frame) error {
	var ranges [][2]int
	for _, m := range notCapturedRange.FindAllStringSubmatch(detail, -1) {
		for _, r := range strings.Split(strings.TrimSuffix(m[1], ", "), ", ") {
			as, bs, _ := strings.Cut(r, "-")
			a, _ := strconv.Atoi(as)
			b, _ := strconv.Atoi(bs)
			ranges = append(ranges, [2]int{a, b})
			if lostIn(frameHoles(f), a, b) == 0 {
				return fmt.Errorf("bytes %d-%d said not captured, all captured", a, b)
			}
		}
	}
	nc, _ := body["not_captured"].([]any)
	for _, e := range nc {
		e := e.(map[string]any)
		start, end := int(e["start"].(float64)), int(e["end"].(float64))
		for at := start; at < end; {
			next := at
			for _, r := range ranges {
				if r[0] <= at && at < r[1] {
					next = max(next, r[1])
				}
			}
			if next == at {
				return fmt.Errorf("not_captured %v: byte %d not said not captured in the detail", e, at)
			}
			at = next
		}
	}
	return nil
}

// recordsCounted sums the records and messages of the lines of a view
// that say what a records field holds: the detail's "Records: 1 batch,
// 3 records, 299 bytes", the hexdump's "record set, 299 bytes: 1 batch,
// 3 records".
func recordsCounted(out string, hexdump bool) (int, error) {
	total := 0
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		var counts string
		if hexdump {
			i := strings.Index(line, "record set, ")
			if i < 0 {
				continue
			}
			_, counts, _ = strings.Cut(line[i:], ": ")
		} else {
			rest, ok := strings.CutPrefix(line, "Records: ")
			if !ok || !regexp.MustCompile(`^(\d+ batch(es)?, \d+ records?, )?(\d+ messages?, )?\d+ bytes?\b`).MatchString(rest) {
				continue
			}
			counts = rest
		}
		for _, part := range strings.Split(counts, ", ") {
			f := strings.Fields(part)
			if len(f) == 2 && (f[1] == "record" || f[1] == "records" || f[1] == "message" || f[1] == "messages") {
				n, err := strconv.Atoi(f[0])
				if err != nil {
					return 0, err
				}
				total += n
			}
		}
	}
	return total, sc.Err()
}

// countedSide is the part of a view whose records JSON's "records"
// counts: the request of a Produce, the response of a Fetch.
func countedSide(ex *dissect.Exchange, req, resp string) string {
	switch ex.APIKey {
	case codec.ApiKeyProduce:
		return req
	case codec.ApiKeyFetch:
		return resp
	}
	return ""
}

// TestViewsOnDamagedCaptures writes every exchange of every damaged
// capture in every view. Nothing panics; the labels cover every byte of
// each frame (size prefix to its size) and of each decompressed section
// exactly once; no label meeting a hole shows a value, and no hexdump
// row shows a byte of one; every field JSON lists in not_captured is
// printed as not captured in the detail view; the summary table's notes
// say what each exchange lacks; and the record counts of the detail
// view, the hexdump, the summary table, JSON and stats (which counts by
// CRC-checked headers) are equal.
func TestViewsOnDamagedCaptures(t *testing.T) {
	var detailBuf, hexBuf, jsonBuf bytes.Buffer
	detail, err := NewDetail(&detailBuf, DetailOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hexdump, err := NewHexdump(&hexBuf, HexdumpOptions{})
	if err != nil {
		t.Fatal(err)
	}
	jsonl := NewJSONLines(&jsonBuf, false)
	write := func(w viewWriter, buf *bytes.Buffer, ex *dissect.Exchange) string {
		buf.Reset()
		if err := w.Write(ex); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	frames, holed, notCaptured, records := 0, 0, 0, 0
	for _, c := range damagedCaptures(t) {
		exs := readCapture(t, c.data, dissect.DecodeOptions{})
		counted := readCapture(t, c.data, dissect.DecodeOptions{Records: codec.RecordDecodeOptions{CountOnly: true}})
		if len(counted) != len(exs) {
			t.Fatalf("%s: %d exchanges decoded, %d counted", c.name, len(exs), len(counted))
		}
		st := stats.New()
		jsonRecords := 0
		for i, ex := range exs {
			where := fmt.Sprintf("%s: exchange %d (%s)", c.name, i, apiLabel(ex))
			for _, response := range []bool{false, true} {
				ft := traceFrame(ex, response, TraceOptions{}, true)
				if ft == nil {
					continue
				}
				frames++
				if len(ft.holes) > 0 {
					holed++
				}
				if err := checkLabels(ft); err != nil {
					t.Fatalf("%s %s: %v", where, ft.Root.Name, err)
				}
			}
			row := SummaryRow(ex)
			if holesCell(ex) != "" && !strings.Contains(row[11], " bytes not captured (") {
				t.Fatalf("%s: the notes cell %q does not say what was not captured", where, row[11])
			}
			hex := write(hexdump, &hexBuf, ex)
			if err := checkHexdumpRows(hex, ex); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			det := write(detail, &detailBuf, ex)
			var js map[string]any
			if err := json.Unmarshal([]byte(write(jsonl, &jsonBuf, ex)), &js); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			_, dreq, dresp := sides(det, false)
			for k, side := range []struct {
				text string
				f    *dissect.Frame
			}{{dreq, ex.Request}, {dresp, ex.Response}} {
				body, _ := js[[]string{"request", "response"}[k]].(map[string]any)
				if side.f == nil {
					continue
				}
				if nc, _ := body["not_captured"].([]any); len(nc) > 0 {
					notCaptured += len(nc)
				}
				if err := checkDetailNotCaptured(side.text, body, side.f); err != nil {
					t.Fatalf("%s, %s: %v", where, []string{"request", "response"}[k], err)
				}
			}
			// The record counts.
			// Records captured: null is none (records_not_captured).
			want := 0
			if n, ok := js["records"].(float64); ok {
				want = int(n)
			}
			if marked, _ := js["records_not_captured"].(bool); marked != (row[8] == "?" || strings.HasPrefix(row[8], "≥ ")) {
				t.Fatalf("%s: summary records %q, JSON records_not_captured %v", where, row[8], marked)
			}
			jsonRecords += want
			records += want
			_, hreq, hresp := sides(hex, true)
			got := map[string]int{"summary": cellCount(t, row[8]), "stats decoder": counted[i].Decoded.Records}
			if got["detail"], err = recordsCounted(countedSide(ex, dreq, dresp), false); err != nil {
				t.Fatal(err)
			}
			if got["hexdump"], err = recordsCounted(countedSide(ex, hreq, hresp), true); err != nil {
				t.Fatal(err)
			}
			for view, n := range got {
				if n != want {
					t.Fatalf("%s: %s counts %d records, JSON %d", where, view, n, want)
				}
			}
			st.Add(counted[i])
		}
		var statsRecords int64
		for _, p := range st.Report().Partitions {
			statsRecords += p.ProducedRecords + p.FetchedRecords
		}
		if statsRecords != int64(jsonRecords) {
			t.Errorf("%s: stats counts %d records, JSON %d", c.name, statsRecords, jsonRecords)
		}
	}
	t.Logf("%d frames, %d with holes, %d not_captured entries, %d records", frames, holed, notCaptured, records)
	if holed < 300 || notCaptured < 300 || records < 10000 {
		t.Errorf("only %d frames with holes, %d not_captured entries and %d records checked", holed, notCaptured, records)
	}
}

// cellCount is the count a countCell holds: "?" is 0 captured, "≥ N" N.
func cellCount(t *testing.T, s string) int {
	t.Helper()
	if s == "?" {
		return 0
	}
	return mustAtoi(t, strings.TrimPrefix(s, "≥ "))
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
