package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const lz4Capture = "../../testdata/pcaps/kcat_produce_lz4.pcap"

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runCLIWithInput(t, "", args...)
}

func runCLIWithInput(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestReadSummary(t *testing.T) {
	code, out, errs := runCLI(t, "read", lz4Capture)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{"ApiVersions v3", "Produce v7", "Fetch v11", "produce-lz4", "127.0.0.1:9092", "rdkafka"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

// TestDamagedCaptureExit checks that a truncated capture prints what it
// decoded before the damage, then a one-line error, and exits 1.
func TestDamagedCaptureExit(t *testing.T) {
	data, err := os.ReadFile(lz4Capture)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cut := filepath.Join(dir, "cut.pcap")
	if err := os.WriteFile(cut, data[:len(data)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "read", "--format", "json", cut)
	if code != exitInput {
		t.Errorf("truncated capture: exit %d, want %d", code, exitInput)
	}
	if n := strings.Count(errs, "\n"); n != 1 || !strings.Contains(errs, "cut.pcap") {
		t.Errorf("truncated capture: want one error line naming the file, got %q", errs)
	}
	if strings.Count(out, "\n") < 5 {
		t.Errorf("truncated capture: want the exchanges before the damage, got %d lines", strings.Count(out, "\n"))
	}

	garbage := filepath.Join(dir, "garbage.pcap")
	os.WriteFile(garbage, []byte("this is not a packet capture at all"), 0o644)
	code, out, errs = runCLI(t, "read", garbage)
	if code != exitInput || strings.Count(errs, "\n") != 1 || out != "" {
		t.Errorf("not a capture: exit %d, stdout %q, stderr %q", code, out, errs)
	}

	code, _, errs = runCLI(t, "read", filepath.Join(dir, "missing.pcap"))
	if code != exitInput || strings.Count(errs, "\n") != 1 {
		t.Errorf("missing file: exit %d, stderr %q", code, errs)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"read"},
		{"read", "--format", "xml", lz4Capture},
		{"read", "-p", "notaport", lz4Capture},
		{"read", "-p", "70000", lz4Capture},
		{"nosuchcommand"},
	} {
		code, _, errs := runCLI(t, args...)
		if code != exitUsage || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want exit %d with a message", args, code, errs, exitUsage)
		}
	}
}

func TestAPIsJSON(t *testing.T) {
	code, out, _ := runCLI(t, "apis", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{`{"api_key":0,"api":"Produce","min_version":0,"max_version":13,"flexible_from":9}`,
		`{"api_key":18,"api":"ApiVersions","min_version":0,"max_version":5,"flexible_from":3}`} {
		if !strings.Contains(out, want) {
			t.Errorf("apis --format json lacks %s", want)
		}
	}
}

// The Perl Kafka client's Produce v0 vectors (../shared/vectors), inlined
// so that the decode tests do not depend on that folder.
const (
	produceV0Request  = "00000049000000000000000400000001000005dc0000000100076d79746f7069630000000100000000000000200000000000000000000000148dc795a20000ffffffff0000000648656c6c6f21"
	produceV0Response = "00000023000000040000000100076d79746f706963000000010000000000000000000000000000"
)

func TestDecodeCommand(t *testing.T) {
	decoded := func(stdin string, args ...string) map[string]any {
		t.Helper()
		code, out, errs := runCLIWithInput(t, stdin, append([]string{"decode", "--compact"}, args...)...)
		if code != 0 {
			t.Fatalf("decode %v: exit %d: %s", args, code, errs)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("decode %v: %v\n%s", args, err, out)
		}
		return m
	}
	// The same request given as plain hex, spaced hex with 0x prefixes,
	// without the size prefix, and as raw bytes on standard input.
	raw, _ := hex.DecodeString(produceV0Request)
	var spaced []string
	for _, b := range raw {
		spaced = append(spaced, fmt.Sprintf("0x%02x,", b))
	}
	for name, m := range map[string]map[string]any{
		"hex":       decoded("", produceV0Request),
		"0x spaced": decoded(strings.Join(spaced, " ")),
		"no prefix": decoded("", produceV0Request[8:]),
		"raw stdin": decoded(string(raw), "--input", "raw"),
	} {
		req, _ := m["request"].(map[string]any)
		if m["api"] != "Produce" || m["correlation_id"].(float64) != 4 || req == nil || req["Acks"].(float64) != 1 || m["records"].(float64) != 1 {
			t.Errorf("%s: %v", name, m)
		}
		if notes := m["notes"].([]any); len(notes) != 0 {
			t.Errorf("%s: notes %v", name, notes)
		}
	}
	m := decoded("", "--api", "Produce", "--version", "0", produceV0Response)
	resp, _ := m["response"].(map[string]any)
	if resp == nil || m["correlation_id"].(float64) != 4 || len(m["topics"].([]any)) != 1 {
		t.Errorf("response: %v", m)
	}
	m = decoded("", "--api", "0", "--version", "0", produceV0Response)
	if m["api"] != "Produce" {
		t.Errorf("--api by key: %v", m)
	}
	// A broker that does not know ApiVersions v3 answers with a v0 body
	// (UNSUPPORTED_VERSION and its own range), which clients read as v0.
	m = decoded("", "--api", "ApiVersions", "--version", "3", "00000007002300000001001200000002")
	if resp, _ := m["response"].(map[string]any); resp == nil || resp["ErrorCode"].(float64) != 35 ||
		len(m["errors"].([]any)) != 1 || len(m["notes"].([]any)) != 1 {
		t.Errorf("ApiVersions fallback: %v", m)
	}
	// A malformed body is a note, not a failure.
	m = decoded("", produceV0Request[8:len(produceV0Request)-10])
	if m["request"] != nil || len(m["notes"].([]any)) == 0 {
		t.Errorf("cut request: %v", m)
	}

	for _, args := range [][]string{
		{"decode", "--version", "3", produceV0Request},    // a request carries its version
		{"decode", "--api", "Produce", produceV0Response}, // a response needs --version
		{"decode", "--api", "NoSuchAPI", "--version", "0", "00"},
		{"decode", "--input", "hex", "zz"},
		{"decode", "0011"},
	} {
		if code, _, errs := runCLI(t, args...); code != exitUsage || errs == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
}

// TestPortAny checks that -p any finds the same exchanges in every
// project capture as naming the broker port, and that a bad port names
// both accepted forms.
func TestPortAny(t *testing.T) {
	files, err := filepath.Glob("../../testdata/pcaps/*.pcap")
	if err != nil || len(files) == 0 {
		t.Fatalf("no captures: %v", err)
	}
	for _, f := range files {
		_, want, _ := runCLI(t, "read", "--format", "json", f)
		code, got, errs := runCLI(t, "read", "-p", "any", "--format", "json", f)
		if code != 0 || got != want || want == "" {
			t.Errorf("%s: -p any: exit %d, %d bytes of JSON, want the %d bytes of -p 9092; stderr %q", f, code, len(got), len(want), errs)
		}
	}
	if code, _, errs := runCLI(t, "read", "-p", "kafka", lz4Capture); code != 2 || !strings.Contains(errs, "want a TCP port number or any") {
		t.Errorf("-p kafka: exit %d, stderr %q", code, errs)
	}
}

// TestDecodeInputMistakes: hex with a nibble too many or a stray byte,
// text that is not hex, and a response at a version the codec does not
// know are told apart from a frame, each with its reason.
func TestDecodeInputMistakes(t *testing.T) {
	const frame = "00000049000000000000000400000001000005dc0000000100076d79746f7069630000000100000000000000200000000000000000000000148dc795a20000ffffffff0000000648656c6c6f21"
	for _, tc := range []struct {
		args []string
		code int
		want string // in stdout, or stderr when code != 0
	}{
		{[]string{"decode", frame + "0"}, 2, "odd number of hex digits"},
		{[]string{"decode", "zzzz"}, 2, "input is not hex: 'z' is not a hex digit"},
		{[]string{"decode", "--compact", frame + "00"}, 0, `"api_version":0,"correlation_id":4`},
		{[]string{"decode", "--compact", frame + "00"}, 0, "the size prefix says 73 bytes, 74 follow"},
		{[]string{"decode", "--compact", "--api", "Produce", "--version", "99", "0000000400000004"}, 0, "unsupported version: Produce v99 (the codec knows v0-v13)"},
		{[]string{"decode", "--api", "Produce", "--version", "-1", "0000000400000004"}, 2, "--version -1: want a version number"},
		{[]string{"decode", "--compact", "00120003000000010007636f6e736f6c6500096b6469737365637404312e3000"}, 0, `"request":{"ClientSoftwareName":"kdissect","ClientSoftwareVersion":"1.0"}`},
	} {
		code, out, errs := runCLI(t, tc.args...)
		got := out
		if tc.code != 0 {
			got = errs
		}
		if code != tc.code || !strings.Contains(got, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.args[1:], code, out, errs, tc.code, tc.want)
		}
	}
}

// failWriter fails every write, as a full disk does.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, fmt.Errorf("no space left on device") }

// TestWriteErrors: output that cannot be written is an error (exit 1)
// with a message, in every format of every command that prints.
func TestWriteErrors(t *testing.T) {
	for _, args := range [][]string{
		{"apis"},
		{"apis", "--format", "json"},
		{"decode", "00120003000000010007636f6e736f6c6500096b6469737365637404312e3000"},
		{"read", "--format", "json", lz4Capture},
		{"read", lz4Capture},
		{"read", "--format", "detail", lz4Capture},
		{"read", "--format", "hexdump", lz4Capture},
		{"stats", lz4Capture},
		{"stats", "--format", "json", lz4Capture},
	} {
		var errb bytes.Buffer
		code := run(args, strings.NewReader(""), failWriter{}, &errb)
		if code != 1 || !strings.Contains(errb.String(), "no space left on device") {
			t.Errorf("%v: exit %d, stderr %q; want 1 and the write error", args, code, errb.String())
		}
	}
}

// TestNoExchangesHints checks that a capture giving no exchange is
// explained by its cause: the capture filter, the broker port, or an
// empty port list (a usage error).
func TestNoExchangesHints(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"read", "-f", "port 1", lz4Capture}, 0, "no Kafka exchanges: the capture filter (-f) passed none of its packets"},
		{[]string{"read", "-p", "1234", lz4Capture}, 0, "no Kafka traffic in 69 packets (69 TCP) on broker ports [1234]; name the broker port with -p, or -p any"},
		{[]string{"read", "-p", "", lz4Capture}, 2, "-p: no port given"},
	} {
		code, out, errs := runCLI(t, tc.args...)
		if code != tc.code || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.args[1:], code, out, errs, tc.code, tc.want)
		}
	}
}

// TestDecodeCutShort: a frame whose size prefix announces more bytes than
// follow was cut short (bytes copied from a capture with a small snap
// length): what was captured is decoded, the rest is not captured, and a
// note says how many bytes are missing. A response whose first bytes read
// as a large size but that decodes whole without a prefix keeps being read
// without one.
func TestDecodeCutShort(t *testing.T) {
	decoded := func(args ...string) map[string]any {
		t.Helper()
		code, out, errs := runCLI(t, append([]string{"decode", "--compact"}, args...)...)
		if code != 0 {
			t.Fatalf("decode %v: exit %d: %s", args, code, errs)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("decode %v: %v\n%s", args, err, out)
		}
		return m
	}
	hasNote := func(m map[string]any, want string) bool {
		for _, n := range m["notes"].([]any) {
			if strings.Contains(n.(string), want) {
				return true
			}
		}
		return false
	}
	// The last 10 of the 73 bytes lost: inside the records field, the last
	// field, so no stop: the field's hole is listed (offsets counting the
	// size prefix, as the input does), the message in it is not counted.
	m := decoded(produceV0Request[:len(produceV0Request)-20])
	req, _ := m["request"].(map[string]any)
	// None of its records captured, some not: null, not 0.
	if req == nil || req["Acks"].(float64) != 1 || m["correlation_id"].(float64) != 4 || m["records"] != nil || m["records_not_captured"] != true {
		t.Fatalf("cut in the records: %v", m)
	}
	nc, _ := req["not_captured"].([]any)
	if len(nc) != 1 || fmt.Sprint(nc[0]) != "map[end:77 path:TopicData[0].PartitionData[0].Records start:67]" {
		t.Fatalf("not_captured %v", req["not_captured"])
	}
	if !hasNote(m, "frame cut short: the size prefix says 73 bytes, 63 follow: the last 10 bytes were not captured") || !hasNote(m, "CRC-32 not verified") {
		t.Fatalf("notes %v", m["notes"])
	}
	// Cut in the partition index: a stop there; the topic is known, the
	// partition is not.
	m = decoded(produceV0Request[:8+2*33])
	req, _ = m["request"].(map[string]any)
	if req == nil || fmt.Sprint(req["TopicData"]) != "[map[Name:mytopic PartitionData:[map[]]]]" {
		t.Fatalf("cut in the partition index: %v", m)
	}
	nc, _ = req["not_captured"].([]any)
	if len(nc) != 1 || fmt.Sprint(nc[0]) != "map[end:77 path:TopicData[0].PartitionData[0].Index start:37 stop:true]" {
		t.Fatalf("not_captured %v", req["not_captured"])
	}
	if fmt.Sprint(m["topics"]) != "[map[partitions:[] topic:mytopic]]" || !hasNote(m, "the last 40 bytes were not captured") {
		t.Fatalf("topics %v, notes %v", m["topics"], m["notes"])
	}
	// --size-prefix yes: the same.
	if m := decoded("--size-prefix", "yes", produceV0Request[:8+2*33]); m["request"] == nil || !hasNote(m, "frame cut short") {
		t.Fatalf("--size-prefix yes: %v", m)
	}
	// A response cut short: its size prefix is told from a CorrelationId
	// by how the bytes decode.
	m = decoded("--api", "Produce", "--version", "0", produceV0Response[:len(produceV0Response)-8])
	resp, _ := m["response"].(map[string]any)
	if resp == nil || m["correlation_id"].(float64) != 4 || !hasNote(m, "the size prefix says 35 bytes, 31 follow") {
		t.Fatalf("response cut short: %v", m)
	}
	if fmt.Sprint(resp["Responses"]) != "[map[Name:mytopic PartitionResponses:[map[ErrorCode:0 Index:0]]]]" {
		t.Fatalf("response cut short: %v", resp)
	}
	// Without a prefix, a CorrelationId of 1000 and a whole body: read as
	// it always was.
	m = decoded("--api", "Produce", "--version", "0", "000003e8"+produceV0Response[16:])
	if m["correlation_id"].(float64) != 1000 || m["response"] == nil || len(m["notes"].([]any)) != 0 {
		t.Fatalf("response without a prefix: %v", m)
	}
}
