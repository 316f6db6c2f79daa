package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/dissect/capfilter"
)

const sll2Capture = "../../testdata/pcaps/kcat_sll2_any.pcap"

// TestReadFilter checks -f on read: packets the filter rejects are not
// dissected.
func TestReadFilter(t *testing.T) {
	_, all, _ := runCLI(t, "read", "--format", "json", lz4Capture)
	for _, tc := range []struct {
		filter string
		same   bool // the same exchanges as without a filter
		lines  int  // otherwise: this many
		note   string
	}{
		{filter: "tcp port 9092", same: true},
		{filter: "host 127.0.0.1 and (port 9092 or port 9093)", same: true},
		{filter: "ip6 or udp", lines: 0},
		// Only what the broker sends: every response stands alone.
		{filter: "src port 9092", lines: strings.Count(all, "\n") - strings.Count(all, `"response":null`), note: "response without a captured request"},
	} {
		code, out, errs := runCLI(t, "read", "--format", "json", "-f", tc.filter, lz4Capture)
		if code != 0 {
			t.Errorf("-f %q: exit %d: %s", tc.filter, code, errs)
			continue
		}
		switch {
		case tc.same && out != all:
			t.Errorf("-f %q changed the exchanges", tc.filter)
		case !tc.same && strings.Count(out, "\n") != tc.lines:
			t.Errorf("-f %q: %d exchanges, want %d", tc.filter, strings.Count(out, "\n"), tc.lines)
		case tc.note != "" && !strings.Contains(out, tc.note):
			t.Errorf("-f %q: no note %q", tc.filter, tc.note)
		case tc.lines == 0 && !tc.same && !strings.Contains(errs, "no Kafka exchanges"):
			t.Errorf("-f %q: stderr %q", tc.filter, errs)
		}
	}

	// Standard input, and a cooked capture (SLL2).
	data, err := os.ReadFile(sll2Capture)
	if err != nil {
		t.Fatal(err)
	}
	_, want, _ := runCLI(t, "read", "--format", "json", sll2Capture)
	code, out, errs := runCLIWithInput(t, string(data), "read", "--format", "json", "-f", "tcp and port 9092", "-")
	if code != 0 || out != want || want == "" {
		t.Errorf("-f on standard input: exit %d, %d of %d bytes, %s", code, len(out), len(want), errs)
	}
}

// TestReadFilterErrors checks bad filters and a filter that cannot apply
// to a capture's link type.
func TestReadFilterErrors(t *testing.T) {
	code, _, errs := runCLI(t, "read", "-f", "port 9092 and", lz4Capture)
	if code != exitUsage || !strings.Contains(errs, `filter "port 9092 and"`) {
		t.Errorf("bad filter: exit %d, %q", code, errs)
	}
	// Outside the built-in subset: an error naming it, unless libpcap
	// compiles it.
	code, out, errs := runCLI(t, "read", "-f", "ether proto 0x0800", "--format", "json", lz4Capture)
	if _, err := capfilter.Parse("ether proto 0x0800"); err == nil {
		if code != 0 || out == "" {
			t.Errorf("libpcap build, ether proto: exit %d, %q", code, errs)
		}
	} else if code != exitUsage || !strings.Contains(errs, `"ether" at offset 0 is not supported`) {
		t.Errorf("unsupported filter: exit %d, %q", code, errs)
	}
	// vlan means nothing on a Linux cooked capture: said once, no packet kept.
	code, out, errs = runCLI(t, "read", "-f", "vlan", sll2Capture)
	if code != 0 || out != "" || strings.Count(errs, "no VLAN support") != 1 {
		t.Errorf("vlan on SLL2: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestReadFilterDamaged checks that a damaged capture read through a
// filter behaves as without: the exchanges before the damage, then a
// one-line error naming the file, exit 1.
func TestReadFilterDamaged(t *testing.T) {
	data, err := os.ReadFile(lz4Capture)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.pcap")
	if err := os.WriteFile(cut, data[:len(data)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	_, want, wantErr := runCLI(t, "read", "--format", "json", cut)
	code, out, errs := runCLI(t, "read", "--format", "json", "-f", "tcp", cut)
	if code != exitInput || out != want || errs != wantErr {
		t.Errorf("damaged capture with -f: exit %d, stdout same %v, stderr %q (without -f: %q)", code, out == want, errs, wantErr)
	}
	code, _, errs = runCLI(t, "read", "-f", "tcp", filepath.Join(t.TempDir(), "missing.pcap"))
	if code != exitInput || !strings.Contains(errs, "missing.pcap") {
		t.Errorf("missing file with -f: exit %d, %q", code, errs)
	}
}
