package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// headerOf returns the column names of a table's header line.
func headerOf(out string) []string {
	var h []string
	for _, c := range strings.Split(strings.Trim(strings.Split(out, "\n")[1], "│"), "│") {
		h = append(h, strings.TrimSpace(c))
	}
	return h
}

// --width fits the table, streamed, into that many columns: every line;
// the columns README names go first (client id and stream at 200).
func TestReadWidth(t *testing.T) {
	for _, w := range []int{80, 120, 200} {
		code, out, errs := runCLI(t, "read", "--width", fmt.Sprint(w), pcaps+"kcat_group.pcap")
		if code != 0 {
			t.Fatalf("--width %d: exit %d: %s", w, code, errs)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		for i, l := range lines {
			if n := utf8.RuneCountInString(l); n > w {
				t.Errorf("--width %d: line %d is %d wide", w, i, n)
			}
		}
		h := strings.Join(headerOf(out), ",")
		if strings.Contains(h, "client id") || strings.Contains(h, "stream") || !strings.HasPrefix(h, "time (UTC),") || !strings.Contains(h, "api") {
			t.Errorf("--width %d: columns %s", w, h)
		}
	}
	if code, _, errs := runCLI(t, "read", "--width", "-1", pcaps+"kcat_group.pcap"); code != exitUsage {
		t.Errorf("--width -1: exit %d: %s", code, errs)
	}
}

// Output that is not a terminal is the whole table at full width,
// whatever $COLUMNS says: the golden file is what it was.
func TestReadPipedIgnoresColumns(t *testing.T) {
	t.Setenv("COLUMNS", "80")
	t.Setenv("NO_COLOR", "")
	want, err := os.ReadFile(filepath.Join("testdata", "golden", "summary_group.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCLI(t, "read", pcaps+"kcat_group.pcap"); code != 0 || out != string(want) {
		t.Errorf("exit %d, %s; output differs from the golden file:\n%s", code, errs, firstDiff(string(want), out))
	}
}

// --columns chooses the columns and their order; an unknown name is bad
// usage, and the error lists the known ones.
func TestReadColumns(t *testing.T) {
	code, out, errs := runCLI(t, "read", "--columns", "api,latency", "--columns", "client-id", pcaps+"kcat_group.pcap")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if h := strings.Join(headerOf(out), ","); h != "api,latency,client id" {
		t.Errorf("columns %s", h)
	}
	code, _, errs = runCLI(t, "read", "--columns", "api,nope", pcaps+"kcat_group.pcap")
	if code != exitUsage || !strings.Contains(errs, `"nope"`) || !strings.Contains(errs, "time, stream, client, broker, api, corr, client id, topics, records, errors, latency, notes") {
		t.Errorf("unknown column: exit %d, %q", code, errs)
	}
}

// -t r counts from the capture's first exchange, also when the filters
// leave it out; -t e is the JSON ts in seconds; a bad name is bad usage.
func TestReadTimeFormat(t *testing.T) {
	_, js, _ := runCLI(t, "read", "--format", "json", pcaps+"kcat_produce_lz4.pcap")
	var ts []time.Time
	var apis []string
	for _, l := range strings.Split(strings.TrimSpace(js), "\n") {
		var x struct {
			TS  time.Time `json:"ts"`
			API string    `json:"api"`
		}
		if err := json.Unmarshal([]byte(l), &x); err != nil {
			t.Fatal(err)
		}
		ts, apis = append(ts, x.TS), append(apis, x.API)
	}
	produce := -1
	for i, a := range apis {
		if a == "Produce" {
			produce = i
			break
		}
	}
	if produce <= 0 {
		t.Fatalf("no Produce after the first exchange: %q", apis)
	}
	firstCell := func(out string) string {
		return strings.TrimSpace(strings.Split(strings.Split(out, "\n")[3], "│")[1])
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-t", "r", "--api", "Produce"}, fmt.Sprintf("%.6f", ts[produce].Sub(ts[0]).Seconds())},
		{[]string{"--time-format", "delta"}, "0.000000"},
		{[]string{"--time-format", "epoch", "--api", "Produce"}, fmt.Sprintf("%d.%06d", ts[produce].Unix(), ts[produce].Nanosecond()/1000)},
		{[]string{"-t", "ad"}, ts[0].UTC().Format("2006-01-02 15:04:05.000000")},
	} {
		code, out, errs := runCLI(t, append(append([]string{"read"}, c.args...), pcaps+"kcat_produce_lz4.pcap")...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", c.args, code, errs)
		}
		if got := firstCell(out); got != c.want {
			t.Errorf("%q: first time %q, want %q", c.args, got, c.want)
		}
	}
	if code, _, errs := runCLI(t, "read", "-t", "x", pcaps+"kcat_produce_lz4.pcap"); code != exitUsage || !strings.Contains(errs, "relative (r)") {
		t.Errorf("-t x: exit %d, %q", code, errs)
	}
}
