package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// twoBrokers is kcat 1.7.1 against a two-broker kfakebroker (19092,
// 19093; recorded by tcpdump on lo, kept out of testdata/pcaps, whose
// captures are all on 9092):
// kcat -L bootstrapped at 19092, then a producer bootstrapped at 19093
// whose Metadata names 19092, the partition's leader, where it produces.
const twoBrokers = "testdata/kcat_two_brokers.pcap"

// TestLateBrokerFile reads the two-broker capture naming only 19093: the
// connection to 19092 that began before any response of a connection to
// 19093 named 19092 is dissected whole, since a file is read twice
// (issue 19): the output is the same as naming both ports, every byte.
func TestLateBrokerFile(t *testing.T) {
	both := lateJSON(t, "-p", "19092", "-p", "19093", twoBrokers)
	one := lateJSON(t, "-p", "19093", twoBrokers)
	if len(both) != 8 {
		t.Fatalf("both ports: %d exchanges, want 8", len(both))
	}
	if !slices.Equal(one, both) {
		t.Errorf("-p 19093: %d exchanges, differing from -p 19092 -p 19093 (%d):\n%s\nwant:\n%s", len(one), len(both), strings.Join(one, "\n"), strings.Join(both, "\n"))
	}
	code, _, stderr := runCLI(t, "read", "-p", "19093", twoBrokers)
	if code != 0 || stderr != "" {
		t.Errorf("-p 19093: exit %d, stderr %q", code, stderr)
	}
	// The stats agree too, whole.
	_, s1, _ := runCLI(t, "stats", "--format", "json", "-p", "19093", twoBrokers)
	_, s2, _ := runCLI(t, "stats", "--format", "json", "-p", "19092", "-p", "19093", twoBrokers)
	if n := exchangesOf(t, s1); n != 8 || s1 != s2 {
		t.Errorf("stats -p 19093: %d exchanges, want 8; the same as -p 19092 -p 19093: %v", n, s1 == s2)
	}

	// tshark, told both ports, finds the same requests.
	if _, err := exec.LookPath("tshark"); err != nil {
		t.Log("tshark not installed: its reading of the two-broker capture not compared")
		return
	}
	out, err := exec.Command("tshark", "-r", twoBrokers, "-d", "tcp.port==19092,kafka", "-d", "tcp.port==19093,kafka",
		"-Y", "kafka.correlation_id && (tcp.dstport == 19092 || tcp.dstport == 19093)",
		"-T", "fields", "-e", "tcp.srcport", "-e", "tcp.dstport", "-e", "kafka.correlation_id", "-e", "kafka.api_key").Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	theirs := strings.Fields(strings.ReplaceAll(strings.TrimSpace(string(out)), "\t", ","))
	var ours []string
	for _, line := range one {
		var ex struct {
			Client, Broker string
			Corr           int `json:"correlation_id"`
			Key            int `json:"api_key"`
		}
		if err := json.Unmarshal([]byte(line), &ex); err != nil {
			t.Fatal(err)
		}
		ours = append(ours, fmt.Sprintf("%s,%s,%d,%d", port(ex.Client), port(ex.Broker), ex.Corr, ex.Key))
	}
	if !slices.Equal(ours, theirs) {
		t.Errorf("-p 19093, requests (client port, broker port, CorrelationId, ApiKey):\n%s\ntshark with both ports:\n%s", strings.Join(ours, "\n"), strings.Join(theirs, "\n"))
	}
}

// TestLateBrokerStdin: standard input is read once, so the connection to
// 19092 that began before 19092 was named is lost in part; stderr says
// which it is.
func TestLateBrokerStdin(t *testing.T) {
	data, err := os.ReadFile(twoBrokers)
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLIWithInput(t, string(data), "read", "--format", "json", "-p", "19093", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 4 {
		t.Errorf("%d exchanges, want the 4 after 19092 was named", len(lines))
	}
	for _, want := range []string{"1 connection began before a response named its broker", "127.0.0.1:55676 -> 127.0.0.1:19092: 8 packets not dissected"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	// Naming both ports, nothing is late.
	code, stdout, stderr = runCLIWithInput(t, string(data), "read", "--format", "json", "-p", "19092,19093", "-")
	if code != 0 || stderr != "" || strings.Count(stdout, "\n") != 8 {
		t.Errorf("both ports from standard input: exit %d, %d exchanges, stderr %q", code, strings.Count(stdout, "\n"), stderr)
	}
}

func lateJSON(t *testing.T, args ...string) []string {
	t.Helper()
	code, stdout, stderr := runCLI(t, append([]string{"read", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("read %v: exit %d: %s", args, code, stderr)
	}
	return strings.Split(strings.TrimSpace(stdout), "\n")
}

func exchangesOf(t *testing.T, statsJSON string) int {
	t.Helper()
	var st struct {
		Capture struct {
			Exchanges int `json:"exchanges"`
		} `json:"capture"`
	}
	if err := json.Unmarshal([]byte(statsJSON), &st); err != nil {
		t.Fatalf("stats JSON: %v", err)
	}
	return st.Capture.Exchanges
}

func port(addr string) string { return addr[strings.LastIndexByte(addr, ':')+1:] }
