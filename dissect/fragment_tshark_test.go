package dissect

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tshark reassembles the fragments into the same Kafka requests and
// responses as the whole capture's, and as ours.
func TestFragmentedMatchesTshark(t *testing.T) {
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		t.Skip("tshark is not installed (.ci/run installs it)")
	}
	for _, v := range []linkVariant{linkVariants[0], linkVariants[1]} {
		t.Run(v.name, func(t *testing.T) {
			clock := testClock()
			pkts, want := fragConversation(t, v, &clock)
			fr := fragmentAll(t, v, pkts, 1024, fragOrders[1])
			got := checkFragmented(t, v, pkts, fr, want)
			dir := t.TempDir()
			rows := func(name string, p []synthPacket) []string {
				path := filepath.Join(dir, name)
				if err := os.WriteFile(path, writePcap(t, v.link, p), 0o644); err != nil {
					t.Fatal(err)
				}
				// One row per Kafka PDU: request or response, ApiKey, CorrelationId.
				out, err := exec.Command(tshark, "-r", path, "-d", "tcp.port==9092,kafka", "-Y", "kafka",
					"-T", "fields", "-e", "kafka.request_frame", "-e", "kafka.api_key", "-e", "kafka.correlation_id").Output()
				if err != nil {
					t.Fatalf("tshark: %v", err)
				}
				var rows []string
				for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
					f := strings.Split(l, "\t")
					if len(f) != 3 {
						t.Fatalf("tshark row %q", l)
					}
					side := "request"
					if f[0] != "" {
						side = "response"
					}
					rows = append(rows, side+" "+f[1]+" "+f[2])
				}
				return rows
			}
			theirs := rows("fragmented.pcap", fr.pkts)
			if whole := rows("whole.pcap", pkts); !slices.Equal(theirs, whole) {
				t.Errorf("tshark: fragmented %q, whole %q", theirs, whole)
			}
			var ours []string
			for _, ex := range got {
				ours = append(ours, fmt.Sprintf("request %d %d", ex.APIKey, ex.CorrelationID), fmt.Sprintf("response %d %d", ex.APIKey, ex.CorrelationID))
			}
			if !slices.Equal(theirs, ours) {
				t.Errorf("tshark %q, ours %q", theirs, ours)
			}
		})
	}
}
