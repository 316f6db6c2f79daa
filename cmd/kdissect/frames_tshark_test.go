package main

import (
	"fmt"
	"net/netip"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// These tests check request_packets and response_packets against
// tshark's frame numbers: the packet tshark shows a Kafka PDU in (the one
// that completed its reassembly) is the last, and the first of
// tcp.segment (the packets reassembled), or that packet when it carried
// the PDU whole, is the first.

// frameKey names one side of an exchange: the client's port, the
// CorrelationId, and whether it is the response.
type frameKey struct {
	clientPort int
	corr       int
	response   bool
}

// tsharkFrames returns the [first, last] frame numbers tshark gives each
// Kafka PDU of path; a key seen twice (a reused CorrelationId) is left
// out, as neither side can say which is which.
func tsharkFrames(t *testing.T, path string, port int) map[frameKey][2]int {
	t.Helper()
	out, err := exec.Command("tshark", "-r", path, "-d", fmt.Sprintf("tcp.port==%d,kafka", port), "-Y", "kafka",
		"-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,",
		"-e", "frame.number", "-e", "tcp.srcport", "-e", "tcp.dstport", "-e", "kafka.correlation_id", "-e", "tcp.segment").Output()
	if err != nil {
		t.Fatalf("tshark on %s: %v", path, err)
	}
	frames := map[frameKey][2]int{}
	dup := map[frameKey]bool{}
	for line := range strings.Lines(string(out)) {
		f := strings.Split(strings.TrimRight(line, "\n"), "\t")
		if len(f) != 5 || f[3] == "" {
			continue
		}
		num, sport, dport := atoi(f[0]), atoi(f[1]), atoi(f[2])
		resp, cport := sport == port, sport
		if resp {
			cport = dport
		}
		first := num
		if f[4] != "" {
			segs := strings.Split(f[4], ",")
			first = atoi(segs[0])
			for _, s := range segs {
				first = min(first, atoi(s))
			}
		}
		for i, c := range strings.Split(f[3], ",") {
			k := frameKey{cport, atoi(c), resp}
			span := [2]int{num, num}
			if i == 0 { // only the first PDU of a packet can be the end of a reassembly
				span[0] = first
			}
			if _, seen := frames[k]; seen {
				dup[k] = true
			}
			frames[k] = span
		}
	}
	for k := range dup {
		delete(frames, k)
	}
	return frames
}

// ourFrames returns request_packets and response_packets of read's JSON
// lines by frameKey, with the file of each line ("" for one file).
func ourFrames(t *testing.T, lines []map[string]any) map[frameKey][2]int {
	t.Helper()
	frames := map[frameKey][2]int{}
	for _, l := range lines {
		ap, err := netip.ParseAddrPort(l["client"].(string))
		if err != nil {
			t.Fatalf("client %v: %v", l["client"], err)
		}
		corr := int(l["correlation_id"].(float64))
		for _, side := range []struct {
			key  string
			resp bool
		}{{"request_packets", false}, {"response_packets", true}} {
			v, ok := l[side.key]
			if !ok {
				t.Fatalf("line without %s: %v", side.key, l)
			}
			if v == nil {
				continue
			}
			a := v.([]any)
			if len(a) != 2 {
				t.Fatalf("%s %v: want [first, last]", side.key, v)
			}
			span := [2]int{int(a[0].(float64)), int(a[1].(float64))}
			if _, several := l["file"]; span[0] < 1 || span[1] < 1 || !several && span[1] < span[0] {
				t.Fatalf("%s %v: not 1-based first <= last", side.key, v)
			}
			frames[frameKey{int(ap.Port()), corr, side.resp}] = span
		}
	}
	return frames
}

// compareFrames checks every PDU tshark numbered against ours; it returns
// how many agreed and how many of them several packets carried.
func compareFrames(t *testing.T, name string, theirs, ours map[frameKey][2]int, all bool) (agreed, spanning int) {
	t.Helper()
	for k, want := range theirs {
		got, ok := ours[k]
		if !ok {
			if all {
				t.Errorf("%s: client port %d corr %d response %v: tshark numbers it %v, kdissect has no such frame", name, k.clientPort, k.corr, k.response, want)
			}
			continue
		}
		if got != want {
			t.Errorf("%s: client port %d corr %d response %v: packets %v, tshark's frame numbers %v", name, k.clientPort, k.corr, k.response, got, want)
			continue
		}
		agreed++
		if want[0] != want[1] {
			spanning++
		}
	}
	return agreed, spanning
}

func TestFrameNumbersTshark(t *testing.T) {
	if _, err := exec.LookPath("tshark"); err != nil {
		t.Skip("tshark is not installed (.ci/run installs it)")
	}
	var mu sync.Mutex
	total, spanning := 0, 0
	// The captures in parallel: most of the time goes to starting tshark.
	t.Run("captures", func(t *testing.T) {
		for _, c := range oracleCaptures(t) {
			t.Run(filepath.Base(c.path), func(t *testing.T) {
				t.Parallel()
				code, out, errs := runCLI(t, "read", "-p", strconv.Itoa(c.port), "--format", "json", c.path)
				if code != 0 {
					t.Fatalf("read: exit %d: %s", code, errs)
				}
				a, s := compareFrames(t, c.path, tsharkFrames(t, c.path, c.port), ourFrames(t, decodeLines(t, out)), true)
				mu.Lock()
				total += a
				spanning += s
				mu.Unlock()
			})
		}
	})
	t.Logf("%d frames with tshark's frame numbers, %d of them carried by several packets", total, spanning)
	if total < 100 || spanning < 10 {
		t.Errorf("only %d frames compared (%d spanning packets): the test checks little", total, spanning)
	}
}

// TestFrameNumbersFilteredAndSplit: a capture filter does not renumber
// the frames (Wireshark numbers the file's packets, and -f only skips
// some), and with several files each side is numbered in its own file.
func TestFrameNumbersFilteredAndSplit(t *testing.T) {
	if _, err := exec.LookPath("tshark"); err != nil {
		t.Skip("tshark is not installed (.ci/run installs it)")
	}
	editcap, err := exec.LookPath("editcap")
	if err != nil {
		t.Skip("editcap is not installed")
	}
	dir := t.TempDir()
	// kcat_mtu has frames of many packets; its pcap.gz is read through tshark as a plain pcap.
	whole := filepath.Join(dir, "mtu.pcap")
	if b, err := exec.Command(editcap, "-F", "pcap", pcapsDir+"kcat_mtu.pcap.gz", whole).CombinedOutput(); err != nil {
		t.Fatalf("editcap: %v: %s", err, b)
	}
	theirs := tsharkFrames(t, whole, 9092)

	// The detail and hexdump views say the same numbers.
	for _, format := range []string{"detail", "hexdump"} {
		code, out, errs := runCLI(t, "read", "--format", format, "--no-color", whole)
		if code != 0 {
			t.Fatalf("read --format %s: exit %d: %s", format, code, errs)
		}
		shown := 0
		for k, span := range theirs {
			side := "request"
			if k.response {
				side = "response"
			}
			want := fmt.Sprintf(`%s \d+ bytes? in packet %d\b`, side, span[0])
			if span[0] != span[1] {
				want = fmt.Sprintf(`%s \d+ bytes in packets %d-%d\b`, side, span[0], span[1])
			}
			if !regexp.MustCompile(want).MatchString(out) {
				t.Errorf("%s: no %s", format, want)
			}
			shown++
		}
		if shown == 0 {
			t.Fatalf("%s: nothing compared", format)
		}
	}

	// -f keeping one connection of several: the numbers stay the file's.
	var ports []int
	for k := range theirs {
		ports = append(ports, k.clientPort)
	}
	lines := readJSON(t, "-f", fmt.Sprintf("tcp port %d", ports[0]), whole)
	ours := ourFrames(t, lines)
	for k := range ours {
		if k.clientPort != ports[0] {
			t.Fatalf("-f kept client port %d", k.clientPort)
		}
	}
	agreed, _ := compareFrames(t, "-f", theirs, ours, false)
	if agreed != len(ours) || agreed == 0 {
		t.Errorf("-f: %d of %d frames agree with tshark", agreed, len(ours))
	}
	others := 0
	for k := range theirs {
		if k.clientPort != ports[0] {
			others++
		}
	}
	if others == 0 {
		t.Fatal("kcat_mtu has one connection: -f removed none")
	}

	// Several files: the parts, read as one capture, against tshark on each
	// part: four parts of kcat_mtu's 1790 packets (three cuts), as each
	// part more costs a tshark run.
	if b, err := exec.Command(editcap, "-F", "pcap", "-c", "450", whole, filepath.Join(dir, "part.pcap")).CombinedOutput(); err != nil {
		t.Fatalf("editcap: %v: %s", err, b)
	}
	parts, _ := filepath.Glob(filepath.Join(dir, "part_*.pcap"))
	if len(parts) < 3 {
		t.Fatalf("%d parts", len(parts))
	}
	lines = readJSON(t, parts...)
	byFile := map[string][]map[string]any{}
	for _, l := range lines {
		f, _ := l["file"].(string)
		byFile[f] = append(byFile[f], l)
	}
	agreed = 0
	for _, p := range parts {
		th := tsharkFrames(t, p, 9092)
		// Only the requests: a line names its request's file, and a
		// response may be in the next.
		for k := range th {
			if k.response {
				delete(th, k)
			}
		}
		ours := ourFrames(t, byFile[p])
		for k := range ours {
			if k.response {
				delete(ours, k)
			}
		}
		a, _ := compareFrames(t, p, th, ours, false)
		agreed += a
	}
	if agreed < len(lines)/2 {
		t.Errorf("parts: %d requests agree with tshark's numbers in their file, of %d exchanges", agreed, len(lines))
	}
	t.Logf("-f: %d frames agree; %d parts: %d requests agree", len(ours), len(parts), agreed)
}
