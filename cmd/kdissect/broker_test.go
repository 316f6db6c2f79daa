package main

import (
	"bytes"
	"io"
	"net"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kdissect/kdissect/client"
)

// runClientCmd runs the command line with stdin and returns the exit
// status and outputs.
func runClientCmd(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// startCluster runs an in-process kfake cluster for the test.
func startCluster(t *testing.T, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// deadAddr returns a loopback address nothing listens on.
func deadAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestBrokerCommand: the three tables (brokers, partitions, API versions)
// against a 3-broker kfake cluster.
func TestBrokerCommand(t *testing.T) {
	c := startCluster(t, kfake.NumBrokers(3), kfake.SeedTopics(2, "orders"), kfake.SeedTopics(1, "audit"))
	code, out, errs := runClientCmd(t, "", "broker", "-b", c.ListenAddrs()[1])
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{
		"cluster kfake, controller", "Metadata v13",
		"│ node │   host    │ port  │ rack  │ controller │", "│ topic  │ partition │ leader │",
		"│ orders │ 1 ", "│ audit  │ 0 ",
		"│ 0   │ Produce", "v3-v13", "v0-v13", "│ v13", // Produce: kfake v3-13, codec v0-13, negotiated 13
		"│ 18  │ ApiVersions ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Every partition has three replicas, all in sync.
	if n := len(regexp.MustCompile(`│ [0-2],[0-2],[0-2] +│ [0-2],[0-2],[0-2] +│`).FindAllString(out, -1)); n != 3 {
		t.Errorf("%d partition rows with 3 replicas in sync, want 3", n)
	}
	for _, a := range c.ListenAddrs() {
		_, port, _ := net.SplitHostPort(a)
		if !strings.Contains(out, port) {
			t.Errorf("broker port %s missing", port)
		}
	}
	code, out, _ = runClientCmd(t, "", "broker", "-b", c.ListenAddrs()[0], "-t", "audit")
	if code != 0 || strings.Contains(out, "orders") || !strings.Contains(out, "audit") {
		t.Errorf("-t audit: exit %d\n%s", code, out)
	}
}

// TestClientCommandsExitStatus: an unreachable broker exits 1 with one
// line on stderr; bad usage exits 2.
func TestClientCommandsExitStatus(t *testing.T) {
	dead := deadAddr(t)
	for _, args := range [][]string{
		{"broker", "-b", dead},
		{"produce", "-b", dead, "-t", "x"},
		{"consume", "-b", dead, "-t", "x", "-e"},
	} {
		code, _, errs := runClientCmd(t, "v\n", args...)
		if code != exitInput || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "CANNOT_CONNECT") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
	for _, args := range [][]string{
		{"broker"},
		{"broker", "-b", dead, "extra"},
		{"produce", "-b", dead},
		{"produce", "-b", dead, "-t", "x", "-z", "brotli"},
		{"produce", "-b", dead, "-t", "x", "--acks", "2"},
		{"produce", "-b", dead, "-t", "x", "-H", "novalue"},
		{"produce", "-b", dead, "-t", "x", "-l"},
		{"produce", "-b", dead, "-t", "x", "-l", "a", "b"},
		{"consume", "-b", dead},
		{"consume", "-b", dead, "-t", "x", "-o", "middle"},
		{"consume", "-b", dead, "-t", "x", "--format", "xml"},
		{"broker", "-b", dead, "--sasl-mechanism", "GSSAPI"},
		{"broker", "-b", dead, "--format", "xml"},
		{"broker", "-b", dead, "--sasl-mechanism", "OAUTHBEARER"},
		{"broker", "-b", dead, "-X", "nosuch.property=1"},
		{"broker", "-b", dead, "-X", "novalue"},
		{"consume", "-b", dead, "-t", "x", "-f", "%z"},
		{"consume", "-b", dead, "-t", "x", "-f", "%s", "-J"},
		{"consume", "-b", dead, "-t", "x", "-o", "1", "-o", "2"},
		{"consume", "-b", dead, "-t", "x", "-t", "y"},
	} {
		code, _, errs := runClientCmd(t, "", args...)
		if code != exitUsage || errs == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
}

// parseOnly runs a command built by newCmd with args, its run replaced by
// one that keeps the options: the flags parsed, nothing connected. It
// returns the options (nil when run was not reached) and the error.
func parseOnly[T any](t *testing.T, newCmd func(func(*T) error) *cobra.Command, args ...string) (*T, error) {
	t.Helper()
	var got *T
	cmd := newCmd(func(o *T) error {
		if got != nil {
			t.Error("run twice")
		}
		got = o
		return nil
	})
	cmd.SetArgs(args)
	cmd.SetIn(strings.NewReader(""))
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	if err != nil && got != nil {
		t.Errorf("%q: run reached, and an error: %v", args, err)
	}
	return got, err
}

// broker's flags land in BrokerOptions: -J, -t, the connection flags and
// properties (applied when it connects, not while parsing).
func TestBrokerOptions(t *testing.T) {
	o, err := parseOnly(t, newBrokerCmd, "-b", "h1:9092,h2:9093", "-J", "-t", "a", "-t", "b", "-X", "client.id=x", "--timeout", "3s")
	if err != nil {
		t.Fatal(err)
	}
	if !o.envelope || o.format != "table" || !slices.Equal(o.topics, []string{"a", "b"}) || !slices.Equal(o.bf.brokers, []string{"h1:9092", "h2:9093"}) ||
		!slices.Equal(o.bf.props, []string{"client.id=x"}) || o.bf.clientID != client.DefaultClientID || o.bf.timeout != 3*time.Second {
		t.Errorf("options %+v", o)
	}
	if o, err := parseOnly(t, newBrokerCmd, "extra"); o != nil || err == nil {
		t.Errorf("an argument: %v", err)
	}
}
