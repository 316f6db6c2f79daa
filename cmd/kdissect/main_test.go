package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const lz4Capture = "../../testdata/pcaps/kcat_produce_lz4.pcap"

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
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
	for _, want := range []string{`{"api_key":0,"api":"Produce","min_version":0,"max_version":11,"flexible_from":9}`,
		`{"api_key":18,"api":"ApiVersions","min_version":0,"max_version":4,"flexible_from":3}`} {
		if !strings.Contains(out, want) {
			t.Errorf("apis --format json lacks %s", want)
		}
	}
}
