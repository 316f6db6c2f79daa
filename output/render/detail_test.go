package render

import (
	"strings"
	"testing"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// requestExchange builds a decoded exchange holding one request body.
func requestExchange(t *testing.T, body codec.Message, version int16) *dissect.Exchange {
	t.Helper()
	key := body.APIKey()
	id := "cli"
	hdr := codec.RequestHeader{RequestApiKey: key, RequestApiVersion: version, CorrelationId: 9, ClientId: &id}
	frame := hdr.AppendTo(nil, codec.RequestHeaderVersion(key, version))
	frame = body.AppendTo(frame, version)
	ex := &dissect.Exchange{APIKey: key, APIVersion: version, CorrelationID: 9,
		Request: &dissect.Frame{Bytes: frame, Size: int32(len(frame))}}
	dissect.NewDecoder(dissect.DecodeOptions{}).DecodeFrames(ex)
	if ex.Decoded.Request == nil {
		t.Fatalf("request does not decode: %v", ex.Notes)
	}
	return ex
}

// render writes ex with the detail or hexdump view.
func renderView(t *testing.T, ex *dissect.Exchange, hexdump, showSecrets bool) string {
	t.Helper()
	var b strings.Builder
	var w interface {
		Write(*dissect.Exchange) error
		Flush() error
	}
	var err error
	if hexdump {
		w, err = NewHexdump(&b, HexdumpOptions{ShowSecrets: showSecrets})
	} else {
		w, err = NewDetail(&b, DetailOptions{ShowSecrets: showSecrets})
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ex); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestViewsRedactConfigPasswords checks that a password-like config
// value is redacted in both views, and only it, unless asked.
func TestViewsRedactConfigPasswords(t *testing.T) {
	pw, ms := "hunter2-secret", "604800000"
	ex := requestExchange(t, &codec.AlterConfigsRequest{Resources: []codec.AlterConfigsRequestAlterConfigsResource{{
		ResourceType: 4, ResourceName: "0",
		Configs: []codec.AlterConfigsRequestAlterableConfig{
			{Name: "listener.name.sasl_ssl.ssl.keystore.password", Value: &pw},
			{Name: "log.retention.ms", Value: &ms},
		},
	}}}, 1)
	for _, hexdump := range []bool{false, true} {
		for _, show := range []bool{false, true} {
			out := renderView(t, ex, hexdump, show)
			shown := strings.Contains(out, pw) || strings.Contains(out, "|hunter2-|")
			if shown != show {
				t.Errorf("hexdump %v, show secrets %v: password shown %v:\n%s", hexdump, show, shown, out)
			}
			if !strings.Contains(out, `"604800000"`) {
				t.Errorf("hexdump %v: an ordinary config value is hidden:\n%s", hexdump, out)
			}
		}
	}
}

// TestViewsMaskSASLTokens checks the raw SASL tokens after a
// SaslHandshake v0: the client's are credentials.
func TestViewsMaskSASLTokens(t *testing.T) {
	token := []byte("\x00alice\x00wonderland")
	ex := &dissect.Exchange{APIKey: -1, APIVersion: -1, CorrelationID: -1, SASLToken: true, SASLMechanism: "PLAIN",
		Request:  &dissect.Frame{Bytes: token, Size: int32(len(token))},
		Response: &dissect.Frame{Bytes: nil, Size: 0}}
	dissect.NewDecoder(dissect.DecodeOptions{}).DecodeFrames(ex)
	for _, hexdump := range []bool{false, true} {
		out := renderView(t, ex, hexdump, false)
		if strings.Contains(out, "wonderland") || strings.Contains(out, "77 6f 6e") {
			t.Errorf("hexdump %v: SASL password shown:\n%s", hexdump, out)
		}
		if !strings.Contains(out, "SASL token (PLAIN)") || !strings.Contains(out, `\x00alice\x00***`) {
			t.Errorf("hexdump %v: token not described:\n%s", hexdump, out)
		}
		if out := renderView(t, ex, hexdump, true); !strings.Contains(out, "wonderland") {
			t.Errorf("hexdump %v: --show-secrets hides the token:\n%s", hexdump, out)
		}
	}
}

// TestDetailUnits checks how values read: durations, sizes, error codes
// with their description, times.
func TestDetailUnits(t *testing.T) {
	ex := requestExchange(t, &codec.FetchRequest{ReplicaId: -1, MaxWaitMs: 1500, MinBytes: 1, MaxBytes: 52428800, IsolationLevel: 1,
		Topics: []codec.FetchRequestFetchTopic{{Topic: "orders", Partitions: []codec.FetchRequestFetchPartition{{Partition: 3, FetchOffset: 42, PartitionMaxBytes: 1 << 20}}}}}, 11)
	out := renderView(t, ex, false, false)
	for _, want := range []string{
		"MaxWaitMs: 1500 ms (1.5s)", "MinBytes: 1 byte", "MaxBytes: 52428800 bytes (50 MiB)",
		"IsolationLevel: 1 (READ_COMMITTED)", `Topic: "orders"`, "PartitionMaxBytes: 1048576 bytes (1 MiB)",
		"RequestApiKey: 1 (Fetch)", "Exchange 1 · Fetch v11", `client id "cli"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("detail lacks %q:\n%s", want, out)
		}
	}
	if got := describeError(6); !strings.HasPrefix(got, "NOT_LEADER_OR_FOLLOWER (retriable): ") {
		t.Errorf("error 6: %q", got)
	}
}

// TestViewsEscapeWireText checks that text from the wire cannot reach
// the terminal raw in either view.
func TestViewsEscapeWireText(t *testing.T) {
	ex := requestExchange(t, &codec.FindCoordinatorRequest{Key: "grp\x1b]0;pwned\x07\u202e"}, 1)
	for _, hexdump := range []bool{false, true} {
		out := renderView(t, ex, hexdump, false)
		if strings.ContainsAny(out, "\x1b\x07\u202e") {
			t.Errorf("hexdump %v: raw control characters in the output:\n%q", hexdump, out)
		}
	}
}

// TestViewsOnEveryCapture writes every exchange of every test capture in
// both views: nothing panics, every exchange has its heading, and no raw
// control character from the wire reaches the output.
func TestViewsOnEveryCapture(t *testing.T) {
	for _, c := range testCaptures(t) {
		exs := readExchanges(t, c)
		for _, hexdump := range []bool{false, true} {
			var b strings.Builder
			var w interface {
				Write(*dissect.Exchange) error
				Flush() error
			}
			var err error
			if hexdump {
				w, err = NewHexdump(&b, HexdumpOptions{})
			} else {
				w, err = NewDetail(&b, DetailOptions{})
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, ex := range exs {
				if err := w.Write(ex); err != nil {
					t.Fatal(err)
				}
			}
			w.Flush()
			out := b.String()
			if n := strings.Count(out, "\nExchange ") + 1; len(exs) > 0 && n != len(exs) {
				t.Errorf("%s: %d headings for %d exchanges", c.path, n, len(exs))
			}
			for _, r := range out {
				if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 {
					t.Errorf("%s (hexdump %v): control character %U in the output", c.path, hexdump, r)
					break
				}
			}
		}
	}
}
