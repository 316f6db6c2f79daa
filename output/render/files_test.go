package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/internal/capedit"
)

// splitExchanges reads a capture cut into parts of k packets, named
// partN, as one capture, and returns the decoded exchanges.
func splitExchanges(t *testing.T, path string, k int) []*dissect.Exchange {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	parts, _, err := capedit.Split(bytes.NewReader(data), 1000, func(p capedit.Packet) int { return p.Index / k })
	if err != nil {
		t.Fatal(err)
	}
	var caps []dissect.Capture
	for i, p := range parts {
		if len(p) > 24 {
			caps = append(caps, dissect.Capture{Name: fmt.Sprintf("part%d", i), Reader: bytes.NewReader(p)})
		}
	}
	dec := dissect.NewDecoder(dissect.DecodeOptions{})
	var out []*dissect.Exchange
	if err := dissect.New(dissect.Options{}).ReadCaptures(caps, dissect.ReadOptions{}, func(ex *dissect.Exchange) {
		dec.Decode(ex)
		out = append(out, ex)
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFileOfExchange checks the "file" key of JSON lines (present when
// several files are read, naming the request's) and the detail heading,
// which names the file and, where the response came in another file, the
// response's.
func TestFileOfExchange(t *testing.T) {
	exs := splitExchanges(t, "../../testdata/pcaps/franz_groups.pcap", 20)
	var buf bytes.Buffer
	j := NewJSONLines(&buf, false)
	for _, ex := range exs {
		j.Write(ex)
	}
	j.Flush()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != len(exs) {
		t.Fatalf("%d lines for %d exchanges", len(lines), len(exs))
	}
	files := map[string]bool{}
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		f := exs[i].Request
		if f == nil {
			f = exs[i].Response
		}
		if m["file"] != f.File || f.File == "" {
			t.Fatalf("line %d: file %v, want %q", i, m["file"], f.File)
		}
		files[f.File] = true
	}
	if len(files) < 10 {
		t.Errorf("exchanges in %d files of 25", len(files))
	}
	for _, l := range renderJSONLines(t, "../../testdata/pcaps/franz_groups.pcap") {
		if strings.Contains(l, `"file"`) {
			t.Fatalf("one file read, yet a line says its file: %s", l)
		}
	}

	var detail bytes.Buffer
	d, err := NewDetail(&detail, DetailOptions{})
	if err != nil {
		t.Fatal(err)
	}
	crossing := 0
	for _, ex := range exs {
		detail.Reset()
		d.Write(ex)
		d.Flush()
		want := fmt.Sprintf("\n  file %s · ", ex.File)
		_, rest, ok := strings.Cut(detail.String(), want)
		if !ok {
			t.Fatalf("detail heading lacks %q:\n%s", want, detail.String()[:min(detail.Len(), 300)])
		}
		heading, _, _ := strings.Cut(rest, "\n")
		if ex.Request != nil && ex.Response != nil && ex.Response.File != ex.Request.File {
			crossing++
			r := ex.Response
			other := fmt.Sprintf("response %d bytes in packet %d of %s", r.Size, r.FilePacket+1, r.File)
			if r.LastFile != "" {
				other = fmt.Sprintf("response %d bytes in packet %d of %s to packet %d of %s", r.Size, r.FilePacket+1, r.File, r.LastFilePacket+1, r.LastFile)
			} else if r.LastFilePacket != r.FilePacket {
				other = fmt.Sprintf("response %d bytes in packets %d-%d of %s", r.Size, r.FilePacket+1, r.LastFilePacket+1, r.File)
			}
			if !strings.HasSuffix(heading, other) {
				t.Fatalf("heading lacks %q:\n%s", other, heading)
			}
		} else if regexp.MustCompile(` of part\d+`).MatchString(heading) {
			t.Fatalf("heading names another file for a response in the request's:\n%s", heading)
		}
	}
	if crossing == 0 {
		t.Error("no exchange whose response is in another file: the test checks nothing of that")
	}
}

// renderJSONLines returns the JSON lines of one capture read alone.
func renderJSONLines(t *testing.T, path string) []string {
	t.Helper()
	var buf bytes.Buffer
	j := NewJSONLines(&buf, false)
	if err := dissect.New(dissect.Options{}).ReadFile(path, func(ex *dissect.Exchange) { j.Write(ex) }); err != nil {
		t.Fatal(err)
	}
	j.Flush()
	return strings.Split(strings.TrimSpace(buf.String()), "\n")
}

// TestProgressFiles checks the bar of several files: the bytes of all of
// them, the file read last, and a file opened again counting from 0.
func TestProgressFiles(t *testing.T) {
	var errOut bytes.Buffer
	p := NewProgress(&errOut)
	now := time.Unix(0, 0)
	p.Now = func() time.Time { return now }
	wrap := p.Files([]string{"a.pcap", "b.pcap"}, []int64{100 << 10, 100 << 10})
	data := bytes.Repeat([]byte("x"), 100<<10)
	io.ReadFull(wrap(0, bytes.NewReader(data)), make([]byte, 10<<10)) // a first look at a
	now = now.Add(2 * time.Second)
	io.Copy(io.Discard, wrap(0, bytes.NewReader(data))) // a again, whole
	io.Copy(io.Discard, wrap(1, bytes.NewReader(data[:50<<10])))
	now = now.Add(time.Second)
	wrap(1, bytes.NewReader(nil)).Read(make([]byte, 1)) // redraw: b opened again
	last := errOut.String()[strings.LastIndex(errOut.String(), "\r"):]
	if !strings.Contains(last, "b.pcap (of 2 files)") || !strings.Contains(last, " 50% 100 KiB of 200 KiB") {
		t.Errorf("bar %q: want b.pcap of 2 files, 100 KiB of 200 KiB", last)
	}
	p.Done()
}
