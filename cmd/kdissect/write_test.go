package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/kdissect/kdissect/dissect"
)

// capturedPacket is one packet as a capture file holds it.
type capturedPacket struct {
	ts           time.Time
	caplen, olen int
	link         layers.LinkType
	data         string
	comments     []string
}

// packetsOf reads every packet of a capture (pcap, pcapng, compressed)
// with kdissect's own reader; for pcapng, comments with pcapgo too.
func packetsOf(t *testing.T, path string) []capturedPacket {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := dissect.NewPacketReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var ps []capturedPacket
	for {
		data, ci, link, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		ps = append(ps, capturedPacket{ts: ci.Timestamp, caplen: ci.CaptureLength, olen: ci.Length, link: link, data: string(data)})
	}
	if strings.HasSuffix(path, ".pcapng") {
		f.Seek(0, io.SeekStart)
		ng, err := pcapgo.NewNgReader(f, pcapgo.DefaultNgReaderOptions)
		if err != nil {
			t.Fatal(err)
		}
		for i := range ps {
			_, _, opts, err := ng.ReadPacketDataWithOptions()
			if err != nil {
				t.Fatal(err)
			}
			ps[i].comments = opts.Comments
		}
	}
	return ps
}

// withoutNumbers drops what -w changes in a line: the frame numbers (the
// file written numbers its own packets) and the comments (-w adds them).
func withoutNumbers(lines []map[string]any, also ...string) []map[string]any {
	out := make([]map[string]any, len(lines))
	for i, l := range lines {
		l = maps.Clone(l)
		for _, k := range append([]string{"request_packets", "response_packets", "packet_comments"}, also...) {
			delete(l, k)
		}
		out[i] = l
	}
	return out
}

// TestWritePcapng: read -w writes every packet without exchange filters,
// and with them the packets of the exchanges shown; the file read back
// holds the same exchanges, its packets are the original's byte for byte
// with their times and lengths, and each request and response carries
// its comment, which tshark finds with frame.comment and kdissect gives
// back as packet_comments.
func TestWritePcapng(t *testing.T) {
	captures, _ := filepath.Glob(pcapsDir + "*.pcap*")
	dir := t.TempDir()
	for _, c := range captures {
		name := filepath.Base(c)
		out := filepath.Join(dir, name+".pcapng")
		code, _, errs := runCLI(t, "read", "-w", out, c)
		if code != 0 {
			t.Fatalf("%s: read -w: exit %d: %s", name, code, errs)
		}
		orig, written := packetsOf(t, c), packetsOf(t, out)
		if len(orig) != len(written) {
			t.Fatalf("%s: %d packets written of %d, without a filter", name, len(written), len(orig))
		}
		for i := range orig {
			o, w := orig[i], written[i]
			if o.data != w.data || !o.ts.Equal(w.ts) || o.caplen != w.caplen || o.olen != w.olen || o.link != w.link {
				t.Fatalf("%s: packet %d differs: ts %v/%v caplen %d/%d len %d/%d link %v/%v, bytes equal %v",
					name, i+1, w.ts, o.ts, w.caplen, o.caplen, w.olen, o.olen, w.link, o.link, o.data == w.data)
			}
		}
		want := readJSON(t, c)
		got := readJSON(t, out)
		if !reflect.DeepEqual(withoutNumbers(got), withoutNumbers(want)) {
			t.Fatalf("%s: the written file reads otherwise", name)
		}
		// The same packets in the same order: the frame numbers hold too.
		for i := range got {
			for _, k := range []string{"request_packets", "response_packets"} {
				if !reflect.DeepEqual(got[i][k], want[i][k]) {
					t.Fatalf("%s: exchange %d: %s %v, the original's %v", name, i, k, got[i][k], want[i][k])
				}
			}
		}
		checkComments(t, name, got, written)
	}
}

// checkComments checks that each exchange of lines (read from the file
// -w wrote, whose packets are pkts) has its kdissect comment on the first
// packet of its request and of its response, and no other packet has one.
func checkComments(t *testing.T, name string, lines []map[string]any, pkts []capturedPacket) {
	t.Helper()
	commented := map[int]bool{}
	for i, l := range lines {
		var want []string
		for _, k := range []string{"request_packets", "response_packets"} {
			span, ok := l[k].([]any)
			if !ok {
				continue
			}
			n := int(span[0].(float64))
			commented[n] = true
			var mine string
			for _, c := range pkts[n-1].comments {
				if strings.HasPrefix(c, "kdissect: ") && strings.Contains(c, fmt.Sprintf(" corr %v", l["correlation_id"])) {
					mine = c
				}
			}
			api, _ := l["api"].(string)
			if mine == "" || api != "" && !strings.HasPrefix(mine, "kdissect: "+api+" v") {
				t.Fatalf("%s: exchange %d (%v corr %v): packet %d has comments %q", name, i, l["api"], l["correlation_id"], n, pkts[n-1].comments)
			}
			want = append(want, mine)
		}
		got, _ := l["packet_comments"].([]any)
		for _, w := range want {
			found := false
			for _, g := range got {
				found = found || g == w
			}
			if !found {
				t.Fatalf("%s: exchange %d: packet_comments %q lack %q", name, i, got, w)
			}
		}
	}
	for i, p := range pkts {
		if len(p.comments) > 0 && !commented[i+1] {
			t.Fatalf("%s: packet %d, of no exchange's first packet, has comments %q", name, i+1, p.comments)
		}
	}
}

// TestWriteFiltered: with exchange filters -w writes only the packets of
// the exchanges shown (their connection's packets from the request's
// first to the response's last), which read back make those exchanges;
// tshark finds their comments by error name.
func TestWriteFiltered(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		capture string
		filter  []string
		errName string // an error of the exchanges kept, for tshark's frame.comment
	}{
		{"franz_groups.pcap", []string{"--errors"}, "REBALANCE_IN_PROGRESS"},
		{"kcat_group.pcap", []string{"--api", "JoinGroup"}, "MEMBER_ID_REQUIRED"},
		// Two exchanges left out in a row on a connection: a gap each way
		// before and after a response.
		{"franz_groups.pcap", []string{"--api", "JoinGroup"}, "MEMBER_ID_REQUIRED"},
		{"kcat_mtu.pcap.gz", []string{"--api", "Produce", "-c", "3"}, ""},
		{"franz_transactions.pcap", []string{"--api", "Produce", "--api", "EndTxn"}, ""},
	} {
		name := c.capture + " " + strings.Join(c.filter, " ")
		src := pcapsDir + c.capture
		out := filepath.Join(dir, "filtered.pcapng")
		args := append(append([]string{"read", "--format", "json", "-w", out}, c.filter...), src)
		code, stdout, errs := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errs)
		}
		want := decodeLines(t, stdout)
		if len(want) == 0 {
			t.Fatalf("%s: no exchange passed", name)
		}
		got := readJSON(t, append(c.filter, out)...) // with the Metadata exchanges written for their names
		// The same exchanges, requests and responses. The file has the
		// gaps of the packets left out, which its notes say; topic IDs
		// named by exchanges not written may not be resolved.
		if len(got) != len(want) {
			t.Fatalf("%s: the written file holds %d exchanges, not the %d shown", name, len(got), len(want))
		}
		lost := 0
		for i := range got {
			for _, k := range []string{"ts", "client", "broker", "api_key", "api_version", "correlation_id", "client_id", "request", "request_size"} {
				if !reflect.DeepEqual(got[i][k], want[i][k]) {
					t.Fatalf("%s: exchange %d: %s %v, shown %v", name, i, k, got[i][k], want[i][k])
				}
			}
			if got[i]["response"] == nil && want[i]["response"] != nil {
				lost++
				continue
			}
			for _, k := range []string{"response", "response_size", "latency_us", "errors"} {
				if !reflect.DeepEqual(got[i][k], want[i][k]) {
					t.Fatalf("%s: exchange %d: %s differs from the one shown", name, i, k)
				}
			}
		}
		if lost > 0 {
			t.Errorf("%s: %d of %d responses not framed again in the written file", name, lost, len(got))
		}
		orig, written := packetsOf(t, src), packetsOf(t, out)
		if len(written) >= len(orig) {
			t.Fatalf("%s: %d packets written of %d: the filter kept all", name, len(written), len(orig))
		}
		// Each packet written is the original's, in the original's order.
		j := 0
		for i, w := range written {
			for j < len(orig) && (orig[j].data != w.data || !orig[j].ts.Equal(w.ts) || orig[j].olen != w.olen) {
				j++
			}
			if j == len(orig) {
				t.Fatalf("%s: written packet %d is not an original packet, in order", name, i+1)
			}
			j++
		}
		checkComments(t, name, got, written)
		if c.errName == "" {
			continue
		}
		if _, err := exec.LookPath("tshark"); err != nil {
			t.Log("tshark not installed: its frame.comment search is not checked")
			continue
		}
		frames, err := exec.Command("tshark", "-r", out, "-Y", fmt.Sprintf("frame.comment contains %q", c.errName), "-T", "fields", "-e", "frame.number").Output()
		if err != nil {
			t.Fatalf("tshark: %v", err)
		}
		var wantFrames []string
		for _, l := range got {
			if strings.Contains(fmt.Sprint(l["errors"]), c.errName) {
				for _, k := range []string{"request_packets", "response_packets"} {
					if span, ok := l[k].([]any); ok {
						wantFrames = append(wantFrames, fmt.Sprint(span[0]))
					}
				}
			}
		}
		if g := strings.Fields(string(frames)); strings.Join(g, " ") != strings.Join(wantFrames, " ") || len(g) == 0 {
			t.Errorf("%s: tshark finds %q in frames %v, want %v", name, c.errName, g, wantFrames)
		}
	}
}

// TestWriteStdinAndErrors: -w from standard input (a pipe, read once)
// writes the same file as from the file; -w - and an unwritable path are
// errors.
func TestWriteStdinAndErrors(t *testing.T) {
	dir := t.TempDir()
	src := pcapsDir + "kcat_group.pcap"
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	a, s := filepath.Join(dir, "a.pcapng"), filepath.Join(dir, "s.pcapng")
	if code, _, errs := runCLI(t, "read", "--api", "Fetch", "-w", a, src); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if code, _, errs := runCLIWithInput(t, string(b), "read", "--api", "Fetch", "-w", s, "-"); code != 0 {
		t.Fatalf("stdin: exit %d: %s", code, errs)
	}
	fa, _ := os.ReadFile(a)
	fs, _ := os.ReadFile(s)
	if !bytes.Equal(fa, fs) || len(fa) < 100 {
		t.Errorf("-w from stdin wrote %d bytes, from the file %d, or they differ", len(fs), len(fa))
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".kdissect-spool-*")); len(left) > 0 {
		t.Errorf("spool files left: %v", left)
	}
	if code, _, errs := runCLI(t, "read", "-w", "-", src); code != exitUsage || !strings.Contains(errs, "-w -") {
		t.Errorf("-w -: exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, "read", "-w", filepath.Join(dir, "no", "such", "dir.pcapng"), src); code != 1 || errs == "" {
		t.Errorf("-w into a missing directory: exit %d: %s", code, errs)
	}
}
