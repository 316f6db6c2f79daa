//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"golang.org/x/sys/unix"

	"github.com/kdissect/kdissect/dissect/live"
)

// needLiveCapture skips the test unless this process may capture on lo.
func needLiveCapture(t *testing.T) {
	t.Helper()
	h, err := live.Open(live.Options{Interface: "lo"})
	switch {
	case errors.Is(err, live.ErrPermission):
		t.Skipf("live capture test skipped: needs root or CAP_NET_RAW (%v)", err)
	case errors.Is(err, live.ErrUnsupported):
		t.Skipf("live capture test skipped: AF_PACKET unavailable (%v)", err)
	case err != nil:
		t.Fatal(err)
	}
	h.Close()
}

// syncBuffer is a bytes.Buffer safe for a command writing while the test
// reads, which signals when a text first appears in it.
type syncBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	watch string
	seen  chan struct{}
}

func newSyncBuffer(watch string) *syncBuffer {
	return &syncBuffer{watch: watch, seen: make(chan struct{})}
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	had := b.watch != "" && strings.Contains(b.buf.String(), b.watch)
	n, err := b.buf.Write(p)
	if b.watch != "" && !had && strings.Contains(b.buf.String(), b.watch) {
		close(b.seen)
	}
	return n, err
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// liveRun is a kdissect live command running in the background.
type liveRun struct {
	cancel         context.CancelFunc
	done           chan error
	stdout, stderr *syncBuffer
}

// startLive runs kdissect with args and waits until it listens.
func startLive(t *testing.T, args ...string) *liveRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &liveRun{cancel: cancel, done: make(chan error, 1), stdout: newSyncBuffer(""), stderr: newSyncBuffer("kdissect: listening on lo")}
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(r.stdout)
	root.SetErr(r.stderr)
	go func() { r.done <- root.ExecuteContext(ctx) }()
	select {
	case <-r.stderr.seen:
	case err := <-r.done:
		cancel()
		t.Fatalf("kdissect %v ended before listening: %v\n%s", args, err, r.stderr)
	case <-time.After(hangCap):
		cancel()
		t.Fatalf("kdissect %v did not start listening in %v:\n%s", args, hangCap, r.stderr)
	}
	t.Cleanup(cancel)
	return r
}

// wait waits, bounded, for the command to end (after stop, or on its own
// with -c) and returns its error.
func (r *liveRun) wait(t *testing.T, stop bool) error {
	t.Helper()
	if stop {
		r.cancel()
	}
	select {
	case err := <-r.done:
		return err
	case <-time.After(hangCap):
		r.cancel()
		t.Fatalf("kdissect live did not end in %v:\n%s", hangCap, r.stderr)
		return nil
	}
}

// fakeCluster starts a one-broker kfake cluster on a loopback port.
func fakeCluster(t *testing.T) (addr string, port int) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "live-orders"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	addr = c.ListenAddrs()[0]
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Sscan(p, &port)
	return addr, port
}

// produce sends records to the cluster with franz-go's client and closes
// it, so its connections end.
func produce(t *testing.T, addr string, records int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic("live-orders"), kgo.ClientID("kdissect-live-test"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), hangCap)
	defer cancel()
	var recs []*kgo.Record
	for i := range records {
		recs = append(recs, &kgo.Record{Key: fmt.Appendf(nil, "k%d", i), Value: fmt.Appendf(nil, "order %d", i)})
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
}

// jsonExchange is the part of a JSON Lines exchange the tests look at.
type jsonExchange struct {
	API      string          `json:"api"`
	Client   string          `json:"client"`
	Broker   string          `json:"broker"`
	ClientID *string         `json:"client_id"`
	Request  json.RawMessage `json:"request"`
	Response json.RawMessage `json:"response"`
	Records  int             `json:"records"`
	Notes    []string        `json:"notes"`
}

func parseExchanges(t *testing.T, out string) []jsonExchange {
	t.Helper()
	var exs []jsonExchange
	for line := range strings.Lines(out) {
		var ex jsonExchange
		if err := json.Unmarshal([]byte(line), &ex); err != nil {
			t.Fatalf("bad JSON line %q: %v", line, err)
		}
		exs = append(exs, ex)
	}
	return exs
}

// TestLiveLoopback runs kdissect live on lo while franz-go's client
// produces to a kfake broker in this process, stops it, and checks the
// exchanges: ApiVersions, Metadata and Produce with the records produced,
// every request with its response; and the pcap file -w wrote, read back,
// holds the same exchanges.
func TestLiveLoopback(t *testing.T) {
	needLiveCapture(t)
	addr, port := fakeCluster(t)
	pcap := filepath.Join(t.TempDir(), "live.pcap")
	run := startLive(t, "live", "-i", "lo", "-p", fmt.Sprint(port), "--format", "json", "-w", pcap)
	const records = 7
	produce(t, addr, records)
	if err := run.wait(t, true); err != nil {
		t.Fatalf("kdissect live: %v\n%s", err, run.stderr)
	}

	exs := parseExchanges(t, run.stdout.String())
	apis := map[string]int{}
	produced := 0
	for _, ex := range exs {
		apis[ex.API]++
		if ex.Request == nil || string(ex.Request) == "null" || ex.Response == nil || string(ex.Response) == "null" {
			t.Errorf("%s exchange without its request or response: notes %q", ex.API, ex.Notes)
		}
		if ex.Broker != addr {
			t.Errorf("%s exchange with broker %s, want %s", ex.API, ex.Broker, addr)
		}
		if ex.ClientID == nil || *ex.ClientID != "kdissect-live-test" {
			t.Errorf("%s exchange with client id %v", ex.API, ex.ClientID)
		}
		if ex.API == "Produce" {
			produced += ex.Records
		}
	}
	for _, api := range []string{"ApiVersions", "Metadata", "Produce"} {
		if apis[api] == 0 {
			t.Errorf("no %s exchange; saw %v", api, apis)
		}
	}
	if produced != records {
		t.Errorf("Produce exchanges carry %d records, want %d", produced, records)
	}
	if errs := run.stderr.String(); !strings.Contains(errs, "packets captured on lo") || !strings.Contains(errs, "0 dropped by the kernel") {
		t.Errorf("stderr lacks the packet counts:\n%s", errs)
	}

	code, out, errs := runCLI(t, "read", "-p", fmt.Sprint(port), "--format", "json", pcap)
	if code != 0 {
		t.Fatalf("read %s: exit %d: %s", pcap, code, errs)
	}
	if reread := parseExchanges(t, out); len(reread) != len(exs) {
		t.Errorf("the written capture holds %d exchanges, the live capture showed %d", len(reread), len(exs))
	}
}

// TestLiveBurst produces a burst of large records, which lo carries in
// 64 KiB segments faster than the capture reads them: the socket buffer
// must hold them all.
func TestLiveBurst(t *testing.T) {
	needLiveCapture(t)
	addr, port := fakeCluster(t)
	run := startLive(t, "live", "-i", "lo", "-p", fmt.Sprint(port), "--format", "json")
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic("live-orders"), kgo.ProducerBatchMaxBytes(8<<20))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangCap)
	defer cancel()
	const records = 100
	var recs []*kgo.Record
	for i := range records {
		recs = append(recs, &kgo.Record{Value: bytes.Repeat([]byte{byte(i)}, 50_000)})
	}
	err = cl.ProduceSync(ctx, recs...).FirstErr()
	cl.Close()
	if err != nil {
		t.Fatalf("produce: %v", err)
	}
	if err := run.wait(t, true); err != nil {
		t.Fatalf("kdissect live: %v\n%s", err, run.stderr)
	}
	produced := 0
	for _, ex := range parseExchanges(t, run.stdout.String()) {
		if ex.API == "Produce" {
			produced += ex.Records
		}
	}
	if produced != records || !strings.Contains(run.stderr.String(), " 0 dropped by the kernel") {
		t.Errorf("captured %d of %d records:\n%s", produced, records, run.stderr)
	}
}

// TestLiveCount checks that -c N ends the capture by itself with N
// exchanges.
func TestLiveCount(t *testing.T) {
	needLiveCapture(t)
	addr, port := fakeCluster(t)
	run := startLive(t, "live", "-i", "lo", "-f", fmt.Sprintf("tcp port %d", port), "-p", fmt.Sprint(port), "-c", "2", "--format", "json")
	produce(t, addr, 3)
	if err := run.wait(t, false); err != nil {
		t.Fatalf("kdissect live -c 2: %v\n%s", err, run.stderr)
	}
	if exs := parseExchanges(t, run.stdout.String()); len(exs) != 2 || exs[0].API != "ApiVersions" {
		t.Errorf("-c 2 printed %d exchanges, want 2 starting with ApiVersions:\n%s", len(exs), run.stdout)
	}
}

// TestLiveSnapLength: -s 128 keeps the headers of every packet, as
// tcpdump -s does: the exchanges come out with their APIs and
// CorrelationIds, the Produce request's bytes beyond 128 not captured.
func TestLiveSnapLength(t *testing.T) {
	needLiveCapture(t)
	addr, port := fakeCluster(t)
	run := startLive(t, "live", "-i", "lo", "-s", "128", "-p", fmt.Sprint(port), "-c", "3", "--format", "json")
	produce(t, addr, 3)
	if err := run.wait(t, false); err != nil {
		t.Fatalf("kdissect live -s 128: %v\n%s", err, run.stderr)
	}
	if !strings.Contains(run.stderr.String(), "snapshot length 128 bytes") {
		t.Errorf("stderr does not say the snap length: %s", run.stderr)
	}
	exs := parseExchanges(t, run.stdout.String())
	var apis []string
	cut := false
	for _, ex := range exs {
		apis = append(apis, ex.API)
		for _, n := range ex.Notes {
			cut = cut || strings.Contains(n, "snap length")
		}
	}
	if len(exs) != 3 || apis[0] != "ApiVersions" || !slices.Contains(apis, "Metadata") {
		t.Errorf("-s 128 -c 3 printed %q, want ApiVersions, Metadata...", apis)
	}
	if !cut {
		t.Errorf("no exchange says the snap length cut it:\n%s", run.stdout)
	}
}

// TestLiveWidensFilter: given the port of one broker of two, live widens
// its kernel filter when Metadata names the other's port, and the
// exchanges with that broker are captured too.
func TestLiveWidensFilter(t *testing.T) {
	needLiveCapture(t)
	c, err := kfake.NewCluster(kfake.NumBrokers(2), kfake.SeedTopics(4, "live-orders"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	// kfake picks leaders at random: lead two partitions from each broker.
	for p := range int32(4) {
		if err := c.MoveTopicPartition("live-orders", p, p%2); err != nil {
			t.Fatal(err)
		}
	}
	addrs := c.ListenAddrs()
	_, p0, _ := net.SplitHostPort(addrs[0])
	_, p1, _ := net.SplitHostPort(addrs[1])
	run := startLive(t, "live", "-i", "lo", "-p", p0, "--format", "json")
	produce(t, addrs[0], 40) // 4 partitions, 2 led by each broker
	if err := run.wait(t, true); err != nil {
		t.Fatalf("kdissect live: %v\n%s", err, run.stderr)
	}
	if want := fmt.Sprintf("a response named brokers on port [%s]: capture filter now \"tcp and port (%s or %s)\"", p1, p0, p1); !strings.Contains(run.stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, run.stderr)
	}
	byBroker := map[string]int{}
	for _, ex := range parseExchanges(t, run.stdout.String()) {
		if ex.API == "Produce" {
			byBroker[ex.Broker] += ex.Records
		}
	}
	if byBroker[addrs[1]] == 0 || byBroker[addrs[0]]+byBroker[addrs[1]] != 40 {
		t.Errorf("records produced by broker: %v, want 40 in all, some to %s", byBroker, addrs[1])
	}
}

// TestListInterfaces: -D lists the interfaces as tcpdump -D does.
func TestListInterfaces(t *testing.T) {
	code, out, errs := runCLI(t, "live", "-D")
	if code != exitOK || !regexp.MustCompile(`(?m)^\d+\.lo \[Up, Running, Loopback\]$`).MatchString(out) {
		t.Errorf("live -D: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestLiveExchangeFilter checks that the exchange filters apply to live
// and that -c counts the exchanges that pass them: --api Produce -c 1 ends
// by itself with the one Produce exchange, not ApiVersions.
func TestLiveExchangeFilter(t *testing.T) {
	needLiveCapture(t)
	addr, port := fakeCluster(t)
	run := startLive(t, "live", "-i", "lo", "-p", fmt.Sprint(port), "--api", "Produce", "-c", "1", "--format", "json")
	produce(t, addr, 4)
	if err := run.wait(t, false); err != nil {
		t.Fatalf("kdissect live --api Produce -c 1: %v\n%s", err, run.stderr)
	}
	exs := parseExchanges(t, run.stdout.String())
	if len(exs) != 1 || exs[0].API != "Produce" || exs[0].Records == 0 {
		t.Errorf("--api Produce -c 1 printed %d exchanges, want one Produce with records:\n%s", len(exs), run.stdout)
	}
}

// TestLiveStreamsOutput checks that live prints each exchange while it
// still runs, in every format: a Produce exchange reaches standard output
// before the capture is stopped (the summary table with its header first).
func TestLiveStreamsOutput(t *testing.T) {
	needLiveCapture(t)
	for _, format := range []string{"summary", "json", "detail", "hexdump"} {
		t.Run(format, func(t *testing.T) {
			addr, port := fakeCluster(t)
			run := startLive(t, "live", "-i", "lo", "-p", fmt.Sprint(port), "--format", format, "--no-color")
			run.stdout.mu.Lock()
			run.stdout.watch, run.stdout.seen = "Produce", make(chan struct{})
			run.stdout.mu.Unlock()
			produce(t, addr, 2)
			select {
			case <-run.stdout.seen:
			case err := <-run.done:
				t.Fatalf("live ended by itself: %v\n%s", err, run.stderr)
			case <-time.After(hangCap):
				t.Fatalf("no Produce exchange printed in %v while live ran; stdout so far:\n%s", hangCap, run.stdout)
			}
			if format == "summary" && !strings.HasPrefix(run.stdout.String(), "┌") {
				t.Errorf("summary rows without the header first:\n%s", run.stdout)
			}
			if err := run.wait(t, true); err != nil {
				t.Fatalf("kdissect live: %v\n%s", err, run.stderr)
			}
			if format == "summary" && !strings.HasSuffix(strings.TrimSpace(run.stdout.String()), "┘") {
				t.Errorf("summary without its bottom border after Ctrl-C:\n%s", run.stdout)
			}
		})
	}
}

// TestLiveErrors checks the one-line errors and exit statuses.
func TestLiveErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"live"}, exitUsage, "an interface is needed: -i IFACE (-D lists them)"},
		{[]string{"live", "-i", "lo", "-s", "300000"}, exitUsage, "-s 300000: want 0 (262144) to 262144 bytes"},
		{[]string{"live", "-i", "nosuchif0"}, exitInput, `interface "nosuchif0": no such network interface`},
		{[]string{"live", "-i", "lo", "-f", "tcp[13] &"}, exitUsage, `filter "tcp[13] &"`},
		{[]string{"live", "-i", "lo", "-c", "-1"}, exitUsage, "-c must not be negative"},
		{[]string{"live", "-i", "lo", "-w", "-"}, exitUsage, "-w -"},
	} {
		code, _, errs := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("kdissect %q: exit %d, stderr %q; want exit %d and one line with %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
}

// TestLiveWithoutPermission runs kdissect live on an OS thread without
// CAP_NET_RAW, as an ordinary user would: a one-line error, exit 1.
// (Capabilities belong to threads on Linux, and the command runs on the
// calling goroutine up to opening the capture.)
func TestLiveWithoutPermission(t *testing.T) {
	var code int
	var errs string
	if os.Geteuid() != 0 {
		code, _, errs = runCLI(t, "live", "-i", "lo")
		if code == 0 {
			t.Skip("this process may capture without being root")
		}
	} else {
		done := make(chan struct{})
		go func() {
			defer close(done)
			// Never unlocked: the thread exits with the goroutine.
			runtime.LockOSThread()
			hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
			var data [2]unix.CapUserData
			if err := unix.Capget(&hdr, &data[0]); err != nil {
				t.Errorf("capget: %v", err)
				return
			}
			data[0].Effective &^= 1 << unix.CAP_NET_RAW
			data[0].Permitted &^= 1 << unix.CAP_NET_RAW
			if err := unix.Capset(&hdr, &data[0]); err != nil {
				t.Errorf("capset: %v", err)
				return
			}
			var out, stderr bytes.Buffer
			code = run([]string{"live", "-i", "lo"}, strings.NewReader(""), &out, &stderr)
			errs = stderr.String()
		}()
		<-done
	}
	if code != exitInput || !strings.HasPrefix(errs, "kdissect: live capture needs root or CAP_NET_RAW: ") || strings.Count(errs, "\n") != 1 {
		t.Errorf("without CAP_NET_RAW: exit %d, stderr %q", code, errs)
	}
}
