package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket/pcapgo"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kdissect/kdissect/output/metrics"
	"github.com/kdissect/kdissect/output/sink"
)

// sinkCluster starts a one-broker kfake cluster with the topic exchanges
// of three partitions.
func sinkCluster(t *testing.T) (*kfake.Cluster, string) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "exchanges"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, c.ListenAddrs()[0]
}

// kcatRecord is a record as kcat -J writes it.
type kcatRecord struct {
	Partition int      `json:"partition"`
	Offset    int64    `json:"offset"`
	TsType    string   `json:"tstype"`
	Ts        int64    `json:"ts"`
	Headers   []string `json:"headers"`
	Key       *string  `json:"key"`
	Payload   string   `json:"payload"`
}

// TestReadSink runs read --format json --sink on a real capture of a
// franz-go group consumer against a kfake broker, reads the topic back
// with kcat, and checks that every exchange is there once: each record's
// value is one of the JSON lines read printed (as a multiset: all of
// them, none twice), its key the exchange's broker, its timestamp the
// capture time, its headers the host and the file.
func TestReadSink(t *testing.T) {
	if _, err := exec.LookPath("kcat"); err != nil {
		t.Skip("kcat not installed")
	}
	const capture = "../../testdata/pcaps/franz_groups.pcap"
	var whole bytes.Buffer
	if code := run([]string{"read", "--format", "json", capture}, nil, &whole, io.Discard); code != 0 {
		t.Fatal("read --format json failed")
	}
	lines := strings.Split(strings.TrimSuffix(whole.String(), "\n"), "\n")
	if len(lines) < 100 {
		t.Fatalf("%d exchanges: the capture shows less than it should", len(lines))
	}
	// json: the sink takes the output's lines; summary (a concurrent
	// renderer of its own) and detail (none): the sink's are rendered in
	// the pipeline.
	for _, format := range []string{"json", "summary", "detail"} {
		t.Run(format, func(t *testing.T) {
			_, addr := sinkCluster(t)
			var out, errOut bytes.Buffer
			if code := run([]string{"read", "--format", format, "--sink", "kafka://" + addr + "/exchanges", capture}, nil, &out, &errOut); code != 0 {
				t.Fatalf("read --sink: exit %d: %s", code, errOut.String())
			}
			if format == "json" && out.String() != whole.String() {
				t.Errorf("read --format json prints other lines with --sink")
			}
			if want := fmt.Sprintf("kdissect: sink kafka://%s/exchanges: %d exchanges sent\n", addr, len(lines)); !strings.Contains(errOut.String(), want) {
				t.Errorf("stderr %q, want it to say %q", errOut.String(), want)
			}
			checkSinkTopic(t, addr, sink.HeaderFile, capture, lines)
		})
	}
}

// checkSinkTopic reads the topic exchanges back with kcat and checks
// that its records are the lines, as a multiset, with their keys,
// timestamps and headers (the host, and source: what was read).
func checkSinkTopic(t *testing.T, addr, sourceHeader, source string, lines []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangCap)
	defer cancel()
	kout, err := exec.CommandContext(ctx, "kcat", "-b", addr, "-C", "-t", "exchanges", "-e", "-q", "-J").Output()
	if err != nil {
		t.Fatalf("kcat -C: %v", err)
	}
	var got []string
	host, _ := os.Hostname()
	for l := range strings.Lines(string(kout)) {
		var r kcatRecord
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("kcat line %q: %v", l, err)
		}
		got = append(got, r.Payload)
		var ex struct {
			TS     time.Time `json:"ts"`
			Broker string    `json:"broker"`
		}
		if err := json.Unmarshal([]byte(r.Payload), &ex); err != nil {
			t.Fatalf("record value is not a JSON object: %v\n%s", err, r.Payload)
		}
		if r.Key == nil || *r.Key != ex.Broker {
			t.Errorf("record key %v, want the broker %s", r.Key, ex.Broker)
		}
		if r.TsType != "create" || r.Ts != ex.TS.UnixMilli() {
			t.Errorf("record timestamp %s %d, want create time %d (the capture time %s)", r.TsType, r.Ts, ex.TS.UnixMilli(), ex.TS)
		}
		if want := []string{sink.HeaderHost, host, sourceHeader, source}; !slices.Equal(r.Headers, want) {
			t.Errorf("record headers %q, want %q", r.Headers, want)
		}
	}
	slices.Sort(got)
	want := slices.Clone(lines)
	slices.Sort(want)
	if len(got) != len(want) {
		t.Fatalf("the topic holds %d records, read printed %d exchanges", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("the records are not the exchanges: first difference\n got  %s\n want %s", got[i], want[i])
		}
	}
}

// TestSinkBrokerStopped streams a real capture into read - with --sink
// and --metrics; once the sink has sent some exchanges its broker is
// stopped and the rest of the capture follows. The capture goes on:
// read prints every exchange; what the sink could not send is counted as
// failed or dropped (on stderr and in kdissect_sink_records_total), and
// sent, failed and dropped add up to the exchanges.
func TestSinkBrokerStopped(t *testing.T) {
	cluster, addr := sinkCluster(t)
	const capture = "../../testdata/pcaps/franz_groups.pcap"
	f, err := os.Open(capture)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pr, err := pcapgo.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	pipeR, pipeW := io.Pipe()
	defer pipeW.Close()
	c := startMetricsCmdIn(t, pipeR, "read", "--format", "json", "--metrics", "127.0.0.1:0",
		"--sink", "kafka://"+addr+"/exchanges", "--sink-flush-timeout", "2s", "-")
	w := pcapgo.NewWriterNanos(pipeW)
	// Written from a goroutine: the pipe blocks until read takes it.
	write := func(n int) <-chan error {
		ch := make(chan error, 1)
		go func() {
			var err error
			for i := 0; n < 0 || i < n; i++ {
				data, ci, rerr := pr.ReadPacketData()
				if rerr == io.EOF {
					break
				}
				if rerr != nil {
					err = rerr
					break
				}
				if err = w.WritePacket(ci, data); err != nil {
					break
				}
			}
			ch <- err
		}()
		return ch
	}
	if err := w.WriteFileHeader(65535, pr.LinkType()); err != nil {
		t.Fatal(err)
	}
	if err := <-write(250); err != nil {
		t.Fatal(err)
	}
	sent := map[string]string{"result": "sent"}
	deadline := time.Now().Add(hangCap)
	for metricSum(scrapeMetrics(t, c.metricsURL), metrics.SinkRecordsTotal, sent) < 1 {
		if time.Now().After(deadline) {
			t.Fatalf("the sink sent nothing of the first half in %v:\n%s", hangCap, c.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	cluster.Close()
	if err := <-write(-1); err != nil {
		t.Fatal(err)
	}
	mfs := scrapeMetrics(t, c.metricsURL)
	pipeW.Close()
	select {
	case err := <-c.done:
		if err != nil {
			t.Fatalf("read: %v\n%s", err, c.stderr)
		}
	case <-time.After(hangCap):
		t.Fatalf("read did not end in %v after its input ended:\n%s", hangCap, c.stderr)
	}

	var whole bytes.Buffer
	if code := run([]string{"read", "--format", "json", capture}, nil, &whole, io.Discard); code != 0 {
		t.Fatal("read without sink failed")
	}
	exchanges := strings.Count(whole.String(), "\n")
	if got := strings.Count(c.stdout.String(), "\n"); got != exchanges {
		t.Errorf("read printed %d exchanges with the sink's broker stopped, %d without a sink", got, exchanges)
	}
	m := regexp.MustCompile(`sink kafka://\S+: (\d+) exchanges sent(?:, (\d+) dropped \(the sink fell behind[^)]*\))?(?:, (\d+) not acknowledged)?`).FindStringSubmatch(c.stderr.String())
	if m == nil {
		t.Fatalf("no sink summary on stderr:\n%s", c.stderr)
	}
	var nSent, nDropped, nFailed int
	fmt.Sscan(m[1], &nSent)
	fmt.Sscan(m[2]+" 0", &nDropped)
	fmt.Sscan(m[3]+" 0", &nFailed)
	if nSent == 0 || nSent >= exchanges || nDropped+nFailed == 0 {
		t.Errorf("sink: %d sent, %d dropped, %d failed of %d exchanges; want some sent before the stop and the rest counted lost", nSent, nDropped, nFailed, exchanges)
	}
	if nSent+nDropped+nFailed != exchanges {
		t.Errorf("sink: %d sent + %d dropped + %d failed != %d exchanges", nSent, nDropped, nFailed, exchanges)
	}
	if got := metricSum(mfs, metrics.SinkRecordsTotal, sent); got < 1 || int(got) > nSent {
		t.Errorf("kdissect_sink_records_total sent %v during the run, %d at the end", got, nSent)
	}
	checkDashboard(t, mfs, metrics.KernelReceivedTotal, metrics.KernelDroppedTotal)
	t.Logf("sink with its broker stopped: %d sent, %d dropped, %d failed of %d exchanges", nSent, nDropped, nFailed, exchanges)
}

// TestSinkTLSSASL: a sink broker that wants TLS with a client certificate
// signed by its CA and SCRAM-SHA-256 takes the exchanges with the
// --sink-tls-* and --sink-sasl-* flags; a wrong password fails at the
// start (exit 1) rather than drop every exchange.
func TestSinkTLSSASL(t *testing.T) {
	dir := t.TempDir()
	ca, caKey, caPath, _ := pemCert(t, dir, "ca", true, nil, nil) // props_test.go
	_, _, srvCert, srvKey := pemCert(t, dir, "server", false, ca, caKey)
	_, _, cliCert, cliKey := pemCert(t, dir, "client", false, ca, caKey)
	pair, err := tls.LoadX509KeyPair(srvCert, srvKey)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	c := startCluster(t, kfake.TLS(&tls.Config{Certificates: []tls.Certificate{pair}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}),
		kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-256", "alice", "s3cret"), kfake.SeedTopics(1, "exchanges"))
	const capture = "../../testdata/pcaps/kcat_produce_none.pcap"
	args := func(password string) []string {
		return []string{"read", "--format", "json", "--sink", "kafka://" + c.ListenAddrs()[0] + "/exchanges",
			"--sink-tls-ca", caPath, "--sink-tls-cert", cliCert, "--sink-tls-key", cliKey,
			"--sink-sasl-mechanism", "SCRAM-SHA-256", "--sink-sasl-user", "alice", "--sink-sasl-password", password, capture}
	}
	var out, errOut bytes.Buffer
	if code := run(args("s3cret"), nil, &out, &errOut); code != 0 {
		t.Fatalf("read --sink over TLS and SASL: exit %d: %s", code, errOut.String())
	}
	n := strings.Count(out.String(), "\n")
	if want := fmt.Sprintf(": %d exchanges sent\n", n); n == 0 || !strings.Contains(errOut.String(), want) {
		t.Errorf("%d exchanges read; stderr %q", n, errOut.String())
	}
	errOut.Reset()
	if code := run(args("wrong"), nil, io.Discard, &errOut); code != exitInput {
		t.Errorf("a wrong SASL password: exit %d, want %d: %s", code, exitInput, errOut.String())
	}
}
