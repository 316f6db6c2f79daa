package main

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestLiveWrite: live -w writes pcapng; without filters every packet
// captured, with --api only the chosen exchanges' packets (and the
// Metadata exchanges'); read back they make the exchanges live showed,
// each with its kdissect comment in packet_comments.
func TestLiveWrite(t *testing.T) {
	needLiveCapture(t)
	for _, filter := range [][]string{nil, {"--api", "Produce"}} {
		addr, port := fakeCluster(t)
		out := filepath.Join(t.TempDir(), "live.pcapng")
		args := append([]string{"live", "-i", "lo", "-p", fmt.Sprint(port), "--format", "json", "-w", out}, filter...)
		run := startLive(t, args...)
		produce(t, addr, 5)
		if err := run.wait(t, true); err != nil {
			t.Fatalf("kdissect live %v: %v\n%s", filter, err, run.stderr)
		}
		shown := decodeLines(t, run.stdout.String())
		if len(shown) == 0 {
			t.Fatalf("live %v showed no exchange", filter)
		}
		got := readJSON(t, append(append([]string{"-p", fmt.Sprint(port)}, filter...), out)...)
		if len(got) != len(shown) {
			t.Fatalf("live %v: the written file holds %d exchanges, live showed %d", filter, len(got), len(shown))
		}
		for i := range got {
			for _, k := range []string{"ts", "client", "api", "correlation_id", "request", "response"} {
				if !reflect.DeepEqual(got[i][k], shown[i][k]) {
					t.Fatalf("live %v: exchange %d: %s differs from the one shown", filter, i, k)
				}
			}
			cs := fmt.Sprint(got[i]["packet_comments"])
			if want := fmt.Sprintf("kdissect: %v v%v corr %v ", got[i]["api"], got[i]["api_version"], got[i]["correlation_id"]); !strings.Contains(cs, want) {
				t.Fatalf("live %v: exchange %d: packet_comments %s lack %q", filter, i, cs, want)
			}
		}
		if filter != nil {
			all := readJSON(t, "-p", fmt.Sprint(port), out)
			for _, l := range all {
				if l["api"] != "Produce" && l["api"] != "Metadata" {
					t.Errorf("live %v wrote a %v exchange", filter, l["api"])
				}
			}
		}
	}
}
