//go:build linux

package main

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/kdissect/kdissect/output/metrics"
	"github.com/kdissect/kdissect/output/sink"
)

// kcatRun runs kcat with args and stdin, bounded by hangCap.
func kcatRun(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangCap)
	defer cancel()
	cmd := exec.CommandContext(ctx, "kcat", args...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kcat %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestLiveMetricsKcat runs live --metrics on lo while kcat produces to a
// kfake broker, consumes what it produced and asks for the metadata of a
// topic that does not exist; it scrapes the endpoint while live runs,
// parses it with Prometheus' text parser, and checks: the records
// produced and fetched by topic; Produce requests by client id (kcat's
// rdkafka) and broker, with their latency; Fetch long polls apart; the
// Metadata error by name; the sniffer's packets and the kernel's counts;
// and, after live stopped, that the JSON Lines it printed hold as many
// Produce and Fetch exchanges as the metrics counted. Then every name the
// dashboard uses is looked up in what was served.
func TestLiveMetricsKcat(t *testing.T) {
	needLiveCapture(t)
	if _, err := exec.LookPath("kcat"); err != nil {
		t.Skip("kcat not installed")
	}
	addr, port := fakeCluster(t)
	c := startMetricsCmd(t, "live", "-i", "lo", "-p", strconv.Itoa(port), "--format", "json", "--metrics", "127.0.0.1:0")
	c.stderr.await(t, regexp.MustCompile(`kdissect: listening on lo`), c.done)

	const n = 9
	var msgs strings.Builder
	for i := range n {
		msgs.WriteString("order " + strconv.Itoa(i) + "\n")
	}
	kcatRun(t, msgs.String(), "-b", addr, "-P", "-t", "live-orders", "-p", "0")
	kcatRun(t, "", "-b", addr, "-C", "-t", "live-orders", "-p", "0", "-o", "beginning", "-c", strconv.Itoa(n), "-e", "-q")
	kcatRun(t, "", "-b", addr, "-L", "-t", "no-such-topic")

	// The dissector may trail the clients by a little: scrape until the
	// records are all counted.
	produced := map[string]string{"topic": "live-orders", "direction": "produced"}
	fetched := map[string]string{"topic": "live-orders", "direction": "fetched"}
	var mfs map[string]*dto.MetricFamily
	deadline := time.Now().Add(hangCap)
	for {
		mfs = scrapeMetrics(t, c.metricsURL)
		if metricSum(mfs, metrics.RecordsTotal, produced) >= n && metricSum(mfs, metrics.RecordsTotal, fetched) >= n &&
			metricSum(mfs, metrics.ErrorsTotal, map[string]string{"api": "Metadata"}) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v the metrics count %v records produced, %v fetched, %v Metadata errors; want %d, %d, >0", hangCap,
				metricSum(mfs, metrics.RecordsTotal, produced), metricSum(mfs, metrics.RecordsTotal, fetched),
				metricSum(mfs, metrics.ErrorsTotal, map[string]string{"api": "Metadata"}), n, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got := metricSum(mfs, metrics.RecordsTotal, produced); got != n {
		t.Errorf("%v records produced, want %d", got, n)
	}
	if got := metricSum(mfs, metrics.RecordsTotal, fetched); got != n {
		t.Errorf("%v records fetched, want %d (kcat -C -c %d)", got, n, n)
	}
	if got := metricSum(mfs, metrics.ErrorsTotal, map[string]string{"api": "Metadata", "error": "UNKNOWN_TOPIC_OR_PARTITION"}); got < 1 {
		t.Errorf("Metadata UNKNOWN_TOPIC_OR_PARTITION counted %v times, want at least once (kcat -L -t no-such-topic)", got)
	}
	produceSeries := map[string]string{"api": "Produce", "client_id": "rdkafka", "broker": addr}
	produces := metricSum(mfs, metrics.RequestsTotal, produceSeries)
	if produces < 1 {
		t.Errorf("no Produce request of client id rdkafka to %s counted:\n%v", addr, mfs[metrics.RequestsTotal])
	}
	if got := metricSum(mfs, metrics.RequestDuration, map[string]string{"api": "Produce"}); got != produces {
		t.Errorf("%v Produce latencies, want one per Produce request (%v)", got, produces)
	}
	if got := metricSum(mfs, metrics.RequestDuration, map[string]string{"api": "Fetch"}); got != 0 {
		t.Errorf("%v Fetch latencies among the others: kcat's Fetch requests wait (fetch.wait.max.ms) and belong in %s", got, metrics.FetchWaitDuration)
	}
	if got := metricSum(mfs, metrics.FetchWaitDuration, map[string]string{"api": "Fetch"}); got < 1 {
		t.Errorf("no Fetch long poll counted")
	}
	if got := metricSum(mfs, metrics.PacketsTotal, nil); got < 1 {
		t.Errorf("%v packets counted", got)
	}
	if got := metricSum(mfs, metrics.KernelReceivedTotal, nil); got < 1 {
		t.Errorf("%v packets received by the kernel counted", got)
	}
	if got := metricSum(mfs, metrics.KernelDroppedTotal, nil); got < 0 {
		t.Errorf("%s not served", metrics.KernelDroppedTotal)
	}
	// A clean loopback run has every response: read's test checks that one.
	checkDashboard(t, mfs, metrics.NoResponseTotal, metrics.SinkRecordsTotal)
	fetches := metricSum(mfs, metrics.RequestsTotal, map[string]string{"api": "Fetch"})

	if err := c.stop(t); err != nil {
		t.Fatalf("live: %v\n%s", err, c.stderr)
	}
	got := map[string]float64{}
	for _, ex := range parseExchanges(t, c.stdout.String()) {
		if ex.ClientID != nil && *ex.ClientID == "rdkafka" && ex.Broker == addr {
			got[ex.API]++
		}
	}
	if got["Produce"] != produces {
		t.Errorf("live printed %v Produce exchanges of rdkafka to %s, the metrics counted %v", got["Produce"], addr, produces)
	}
	// The consumer's last Fetch may wait for its response past the scrape.
	if got["Fetch"] < fetches || got["Fetch"] > fetches+1 {
		t.Errorf("live printed %v Fetch exchanges, the metrics counted %v", got["Fetch"], fetches)
	}
}

// TestLiveSinkKcat runs live --sink on lo while kcat produces to a kfake
// broker, the sink producing to another; once live stopped, the sink's
// topic read back with kcat holds every exchange live printed, once,
// with the interface in its headers.
func TestLiveSinkKcat(t *testing.T) {
	needLiveCapture(t)
	if _, err := exec.LookPath("kcat"); err != nil {
		t.Skip("kcat not installed")
	}
	addr, port := fakeCluster(t)
	_, sinkAddr := sinkCluster(t) // sink_test.go: on another port, outside live's filter
	c := startMetricsCmd(t, "live", "-i", "lo", "-p", strconv.Itoa(port), "--format", "json", "--metrics", "127.0.0.1:0",
		"--sink", "kafka://"+sinkAddr+"/exchanges")
	c.stderr.await(t, regexp.MustCompile(`kdissect: listening on lo`), c.done)
	kcatRun(t, "a\nb\nc\n", "-b", addr, "-P", "-t", "live-orders", "-p", "0")
	// Stopped once live printed kcat's Produce.
	c.stdout.await(t, regexp.MustCompile(`"api":"Produce"`), c.done)
	if err := c.stop(t); err != nil {
		t.Fatalf("live: %v\n%s", err, c.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(c.stdout.String(), "\n"), "\n")
	if !strings.Contains(c.stderr.String(), fmt.Sprintf("exchanges: %d exchanges sent\n", len(lines))) {
		t.Errorf("live printed %d exchanges; stderr:\n%s", len(lines), c.stderr)
	}
	checkSinkTopic(t, sinkAddr, sink.HeaderInterface, "lo", lines) // sink_test.go
}
