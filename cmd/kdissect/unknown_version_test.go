package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/internal/capgen"
)

// rawRequest is a request frame with a v1 header (ApiKey, ApiVersion,
// CorrelationId, ClientId) and body, its size prefixed.
func rawRequest(key, version int16, corr int32, body []byte) []byte {
	b := make([]byte, 4, 64)
	b = codec.AppendInt16(b, key)
	b = codec.AppendInt16(b, version)
	b = codec.AppendInt32(b, corr)
	b = codec.AppendString(b, "unknown-test")
	b = append(b, body...)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

// rawResponse is a response frame: CorrelationId and body.
func rawResponse(corr int32, body []byte) []byte {
	b := codec.AppendInt32(make([]byte, 4, 64), corr)
	b = append(b, body...)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

// unknownVersionCapture is one connection: Metadata v1 (known), then
// Metadata at a version past the newest, ApiVersions at version -1 and
// an ApiKey the codec does not know, each answered, then Metadata v1
// again.
func unknownVersionCapture(t *testing.T) string {
	t.Helper()
	meta := func(corr int32) [2][]byte {
		id := "unknown-test"
		h := codec.RequestHeader{RequestApiKey: codec.ApiKeyMetadata, RequestApiVersion: 1, CorrelationId: corr, ClientId: &id}
		req := (&codec.MetadataRequest{}).AppendTo(h.AppendTo(make([]byte, 4), 1), 1)
		binary.BigEndian.PutUint32(req, uint32(len(req)-4))
		rh := codec.ResponseHeader{CorrelationId: corr}
		resp := (&codec.MetadataResponse{Brokers: []codec.MetadataResponseBroker{{NodeId: 1, Host: "10.0.0.9", Port: 9092}}}).AppendTo(rh.AppendTo(make([]byte, 4), 0), 1)
		binary.BigEndian.PutUint32(resp, uint32(len(resp)-4))
		return [2][]byte{req, resp}
	}
	frames := [][2][]byte{
		meta(1),
		meta(2),
		{rawRequest(codec.ApiKeyMetadata, 99, 3, []byte{0, 0, 0, 0}), rawResponse(3, []byte{0, 1, 2, 3, 4, 5})},
		{rawRequest(codec.ApiKeyFetch, 40, 4, []byte{1}), rawResponse(4, []byte{2})},
		{rawRequest(codec.ApiKeyApiVersions, -1, 5, nil), rawResponse(5, []byte{0, 35})},
		{rawRequest(999, 0, 6, []byte{9, 9}), rawResponse(6, []byte{7, 7, 7})},
		meta(7),
	}
	var buf bytes.Buffer
	if err := capgen.WriteExchanges(&buf, frames); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "unknown_version.pcap")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestUnknownVersionPaired: on a connection read from its start, a
// request at a version the codec does not know (past the newest, or
// negative) or with an ApiKey it does not know is still a request: it is
// paired with its response by CorrelationId, one row, the bodies
// undecoded and noted (issue 19). tshark reads the same requests; it
// pairs the negative version and the unknown key too, but shows the
// responses to Metadata v99 and Fetch v40 apart, "Request missing".
func TestUnknownVersionPaired(t *testing.T) {
	path := unknownVersionCapture(t)
	code, stdout, stderr := runCLI(t, "read", "--format", "json", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	unsupported := func(key, version int16) string {
		api, _ := codec.LookupAPI(key)
		return fmt.Sprintf("unsupported version: %s v%d (the codec knows v%d-v%d): request body not decoded", api.Name, version, api.MinVersion, api.MaxVersion)
	}
	notes := map[int]string{
		3: unsupported(codec.ApiKeyMetadata, 99),
		4: unsupported(codec.ApiKeyFetch, 40),
		5: unsupported(codec.ApiKeyApiVersions, -1),
		6: "unknown API key 999: request body not decoded",
	}
	var ours []string
	for i, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var ex struct {
			Corr         int      `json:"correlation_id"`
			Key          int      `json:"api_key"`
			Version      int      `json:"api_version"`
			RequestSize  int      `json:"request_size"`
			ResponseSize int      `json:"response_size"`
			Response     any      `json:"response"`
			Notes        []string `json:"notes"`
		}
		if err := json.Unmarshal([]byte(line), &ex); err != nil {
			t.Fatal(err)
		}
		if ex.Corr != i+1 || ex.RequestSize == 0 || ex.ResponseSize == 0 {
			t.Errorf("row %d: CorrelationId %d, request %d bytes, response %d bytes: want %d, both", i, ex.Corr, ex.RequestSize, ex.ResponseSize, i+1)
		}
		if want, ok := notes[ex.Corr]; ok {
			if !slices.Contains(ex.Notes, want) || ex.Response != nil {
				t.Errorf("CorrelationId %d: notes %q, response %v: want the note %q, no body", ex.Corr, ex.Notes, ex.Response, want)
			}
		} else if len(ex.Notes) > 0 || ex.Response == nil {
			t.Errorf("CorrelationId %d: notes %q, response %v", ex.Corr, ex.Notes, ex.Response)
		}
		ours = append(ours, fmt.Sprintf("%d,%d,%d", ex.Corr, ex.Key, ex.Version))
	}
	if len(ours) != 7 {
		t.Errorf("%d rows, want 7", len(ours))
	}

	if _, err := exec.LookPath("tshark"); err != nil {
		t.Log("tshark not installed: its reading not compared")
		return
	}
	out, err := exec.Command("tshark", "-r", path, "-d", "tcp.port==9092,kafka", "-Y", "kafka", "-T", "fields",
		"-e", "tcp.srcport", "-e", "kafka.correlation_id", "-e", "kafka.api_key", "-e", "kafka.api_version", "-e", "kafka.request_frame").Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	var requests []string
	responses := map[string]string{} // CorrelationId: the ApiKey of the request tshark paired it with, "" for none
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 5 {
			t.Fatalf("tshark line %q", line)
		}
		if f[0] == "40000" {
			requests = append(requests, f[1]+","+f[2]+","+f[3])
			continue
		}
		if _, dup := responses[f[1]]; dup {
			t.Errorf("tshark: two responses with CorrelationId %s", f[1])
		}
		if f[4] != "" {
			responses[f[1]] = f[2]
		} else {
			responses[f[1]] = ""
		}
	}
	if !slices.Equal(ours, requests) {
		t.Errorf("requests (CorrelationId, ApiKey, ApiVersion):\n%s\ntshark:\n%s", strings.Join(ours, "\n"), strings.Join(requests, "\n"))
	}
	unpaired := []string{}
	for _, r := range ours {
		f := strings.Split(r, ",")
		switch key, ok := responses[f[0]]; {
		case !ok:
			t.Errorf("tshark: no response with CorrelationId %s", f[0])
		case key == "":
			unpaired = append(unpaired, f[0])
		case key != f[1]:
			t.Errorf("tshark paired the response with CorrelationId %s to ApiKey %s, we to %s", f[0], key, f[1])
		}
	}
	if strings.Join(unpaired, ",") != "3,4" {
		t.Logf("tshark left the responses to CorrelationIds %v unpaired (this test was written against tshark leaving 3 and 4: versions past its newest)", unpaired)
	}
}
