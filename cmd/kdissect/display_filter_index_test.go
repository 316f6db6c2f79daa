package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDisplayFilterListIndex runs -Y with an index into the contract's
// lists on a real capture: an exchange without errors has no errors[0],
// which is nil, so the filter selects exactly the exchanges whose first
// error is the one named, with no warning, as the JSON says.
func TestDisplayFilterListIndex(t *testing.T) {
	const path = "../../testdata/pcaps/franz_groups.pcap"
	code, out, stderr := runCLI(t, "read", "--format", "json", path)
	if code != 0 {
		t.Fatalf("read: exit %d: %s", code, stderr)
	}
	var want []string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var o struct {
			Errors []struct {
				Name string `json:"name"`
			} `json:"errors"`
		}
		if err := json.Unmarshal([]byte(l), &o); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		if len(o.Errors) > 0 && o.Errors[0].Name == "MEMBER_ID_REQUIRED" {
			want = append(want, l)
		}
	}
	if len(want) == 0 {
		t.Fatalf("%s: no exchange whose first error is MEMBER_ID_REQUIRED", path)
	}
	code, out, stderr = runCLI(t, "read", "--format", "json", "-Y", `errors[0].name == "MEMBER_ID_REQUIRED" && topics[5] == nil && notes[9] == nil`, path)
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || stderr != "" || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("-Y errors[0].name: exit %d, %d exchanges, stderr %q; want 0, the %d of the JSON, no warning", code, len(got), stderr, len(want))
	}
}
