package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kdissect/kdissect/dissect"
)

// Client errors print on one line, with the name of what failed, the
// layers' own words once, no client-side name whose words say more; a
// broker that closes the connection gets a hint of SASL or TLS.
func TestClientErrorLines(t *testing.T) {
	c := startCluster(t, kfake.NumBrokers(1), kfake.EnableSASL(), kfake.Superuser("PLAIN", "u", "p"))
	addr := c.ListenAddrs()[0]
	for _, tc := range []struct {
		args       []string
		line, hint string
	}{
		{[]string{"broker", "-b", addr},
			"kdissect: CANNOT_GET_METADATA: Metadata v13 to " + addr + ": connection closed by the broker: EOF",
			"a listener that needs SASL does so before authentication"},
		{[]string{"broker", "-b", addr, "--sasl-mechanism", "PLAIN", "--sasl-user", "u", "--sasl-password", "bad"},
			"kdissect: CANNOT_CONNECT: " + addr + ": SASL_AUTHENTICATION_FAILED (code 58): PLAIN: ",
			"check --sasl-mechanism, --sasl-user and --sasl-password"},
		{[]string{"broker", "-b", addr, "--tls"},
			"kdissect: CANNOT_CONNECT: " + addr + ": TIMEOUT: context deadline exceeded",
			"a TLS listener given no --tls, or a plaintext one given --tls"},
	} {
		code, _, errs := runClientCmd(t, "", tc.args...)
		lines := strings.Split(strings.TrimSpace(errs), "\n")
		if code != exitInput || len(lines) != 2 || !strings.HasPrefix(lines[0], tc.line) || !strings.Contains(lines[1], "kdissect: hint: ") || !strings.Contains(lines[1], tc.hint) {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant a line starting %q and a hint with %q", tc.args[1:], code, errs, tc.line, tc.hint)
		}
		for _, chain := range []string{"NO_ACKNOWLEDGEMENT", "CANNOT_RECEIVE", "(code -10"} {
			if strings.Contains(lines[0], chain) {
				t.Errorf("%v: %q in %q", tc.args[1:], chain, lines[0])
			}
		}
	}
}

// Joined errors share a line; a cause said twice is said once; a
// wrapper's own words are kept.
func TestErrorLine(t *testing.T) {
	dl := errors.New("context deadline exceeded")
	for _, tc := range []struct {
		err  error
		want string
	}{
		{errors.Join(dl, dl), "context deadline exceeded"},
		{fmt.Errorf("read x.pcap: %w", errors.Join(errors.New("a"), errors.New("b"))), "read x.pcap: a; b"},
		{errors.New("two\nlines"), "two; lines"},
		{fmt.Errorf("open: %w", errors.New("no such file")), "open: no such file"},
		{fmt.Errorf("f.pcap: %w", &dissect.DamageError{Offset: 24, Err: errors.New("cut short")}), "f.pcap: capture damaged at byte 24 (after 0 packets): cut short"},
	} {
		if got := errorLine(tc.err); got != tc.want {
			t.Errorf("errorLine(%q) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
