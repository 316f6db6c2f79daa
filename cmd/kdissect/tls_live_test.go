//go:build linux

package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kdissect/kdissect/internal/tlstest"
	"github.com/kdissect/kdissect/replay"
)

// tlsWorkload captures on lo, with kdissect live -w, franz-go producing
// 10 records to "tls-topic" and consuming them back, against a kfake
// broker, over TLS when clientTLS is set (its session keys appended to
// keylog, which live reads as it grows). It returns the capture's path
// and the broker's port.
func tlsWorkload(t *testing.T, clientTLS *tls.Config, keylog string) (string, string) {
	t.Helper()
	var cert *tls.Certificate
	if clientTLS != nil {
		c := tlstest.Cert(t, false)
		cert = &c
	}
	return liveTLSCapture(t, cert, keylog, func(addr string) {
		var kopts []kgo.Opt
		if clientTLS != nil {
			f, err := os.OpenFile(keylog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			cfg := clientTLS.Clone()
			cfg.InsecureSkipVerify, cfg.ServerName, cfg.KeyLogWriter = true, "kafka.test", f
			kopts = append(kopts, kgo.DialTLSConfig(cfg))
		}
		cl, err := kgo.NewClient(append(kopts, kgo.SeedBrokers(addr), kgo.ClientID("tls-test"), kgo.DefaultProduceTopic("tls-topic"),
			kgo.AllowAutoTopicCreation(), kgo.ConsumeTopics("tls-topic"), kgo.ProducerLinger(0))...)
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		ctx, cancel := context.WithTimeout(context.Background(), hangCap)
		defer cancel()
		for i := range 10 {
			r := &kgo.Record{Key: fmt.Appendf(nil, "k%d", i), Value: fmt.Appendf(nil, "value %d", i)}
			if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
				t.Fatalf("produce: %v", err)
			}
		}
		for n := 0; n < 10; {
			fs := cl.PollFetches(ctx)
			if err := fs.Err0(); err != nil {
				t.Fatalf("consume: %v", err)
			}
			n += fs.NumRecords()
		}
	})
}

// liveTLSCapture captures on lo, with kdissect live -w, what client does
// with a one-broker kfake cluster at addr: a TLS listener with cert when
// cert is set, live then reading the key log keylog as the client appends
// to it; more are further kfake options. It returns the capture's path
// and the broker's port.
func liveTLSCapture(t *testing.T, cert *tls.Certificate, keylog string, client func(addr string), more ...kfake.Opt) (string, string) {
	t.Helper()
	opts := append([]kfake.Opt{kfake.NumBrokers(1), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(1)}, more...)
	if cert != nil {
		opts = append(opts, kfake.TLS(&tls.Config{Certificates: []tls.Certificate{*cert}}))
	}
	b := startCluster(t, opts...)
	addr := b.ListenAddrs()[0]
	pcap := filepath.Join(t.TempDir(), "tls.pcap")
	args := []string{"live", "-i", "lo", "-p", portOf(t, addr), "-w", pcap, "--format", "json"}
	if cert != nil {
		// The client appends to it, as SSLKEYLOGFILE writers do.
		if err := os.WriteFile(keylog, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--tls-keylog", keylog)
	}
	run := startLive(t, args...)
	client(addr)
	if err := run.wait(t, true); err != nil {
		t.Fatalf("kdissect live: %v\n%s", err, run.stderr)
	}
	if cert != nil {
		// Live decrypted as it captured: the key log grew meanwhile.
		if out := run.stdout.String(); !strings.Contains(out, `"api":"Produce"`) || strings.Contains(out, "give --tls-keylog") {
			t.Errorf("live output does not show decrypted Produce requests:\n%.2000s\nnotes: %s", out, liveNotes(out))
		}
	}
	return pcap, portOf(t, addr)
}

// tlsRun is what a capture's exchanges show: the (API, version) pairs,
// the records produced and fetched (key=value), the notes, and the TLS
// objects.
type tlsRun struct {
	apis     []string
	requests []string // "ApiKey vVersion corrId", sorted
	produced []string
	fetched  []string // in the order of the Fetch responses
	notes    []string
	tls      map[string]bool
}

func readTLSRun(t *testing.T, pcap, port string, extra ...string) tlsRun {
	t.Helper()
	code, out, errs := runClientCmd(t, "", append([]string{"read", pcap, "-p", port, "--format", "json"}, extra...)...)
	if code != 0 {
		t.Fatalf("read: exit %d: %s", code, errs)
	}
	r := tlsRun{tls: map[string]bool{}}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var ex struct {
			Key     *int            `json:"api_key"`
			Corr    int             `json:"correlation_id"`
			API     *string         `json:"api"`
			Version *int            `json:"api_version"`
			Request json.RawMessage `json:"request"`
			Resp    json.RawMessage `json:"response"`
			Notes   []string        `json:"notes"`
			TLS     json.RawMessage `json:"tls"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ex); err != nil {
			t.Fatal(err)
		}
		if ex.API != nil && ex.Version != nil {
			r.apis = append(r.apis, fmt.Sprintf("%s v%d", *ex.API, *ex.Version))
			if string(ex.Request) != "null" {
				r.requests = append(r.requests, fmt.Sprintf("%d v%d %d", *ex.Key, *ex.Version, ex.Corr))
			}
			switch *ex.API {
			case "Produce":
				r.produced = append(r.produced, recordsIn(ex.Request)...)
			case "Fetch":
				r.fetched = append(r.fetched, recordsIn(ex.Resp)...)
			}
		}
		r.notes = append(r.notes, ex.Notes...)
		if ex.TLS != nil {
			r.tls[string(ex.TLS)] = true
		}
	}
	slices.Sort(r.apis)
	r.apis = slices.Compact(r.apis)
	slices.Sort(r.requests)
	return r
}

// recordsIn returns the records of a JSON body as key=value.
func recordsIn(body json.RawMessage) []string {
	var v any
	_ = json.Unmarshal(body, &v)
	var keys, values []any
	walkJSON(v, "Key", &keys)
	walkJSON(v, "Value", &values)
	var recs []string
	for i := range min(len(keys), len(values)) {
		recs = append(recs, fmt.Sprint(keys[i], "=", values[i]))
	}
	return recs
}

// tsharkTLSRequests returns the requests tshark decodes in a TLS capture
// given its key log, as readTLSRun's requests.
func tsharkTLSRequests(t *testing.T, pcap, port, keylog string) []string {
	t.Helper()
	out, err := exec.Command("tshark", "-r", pcap, "-o", "tls.keylog_file:"+keylog,
		"-d", "tcp.port=="+port+",tls", "-d", "tls.port=="+port+",kafka",
		"-Y", "kafka.request_key", "-T", "fields", "-e", "kafka.request_key", "-e", "kafka.api_version", "-e", "kafka.correlation_id").Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	var reqs []string
	for line := range strings.Lines(string(out)) {
		f := strings.Split(strings.TrimSpace(line), "\t")
		if len(f) != 3 {
			t.Fatalf("tshark line %q", line)
		}
		// Two requests in one TCP segment: one line, the values
		// comma-separated.
		keys, vers, corrs := strings.Split(f[0], ","), strings.Split(f[1], ","), strings.Split(f[2], ",")
		if len(vers) != len(keys) || len(corrs) != len(keys) {
			t.Fatalf("tshark line %q", line)
		}
		for i := range keys {
			reqs = append(reqs, fmt.Sprintf("%s v%s %s", keys[i], vers[i], corrs[i]))
		}
	}
	slices.Sort(reqs)
	return reqs
}

// TestTLSLiveCapture: franz-go (Go's TLS) against kfake's TLS listener,
// TLS 1.3 and TLS 1.2 with each AEAD, captured and decrypted live on lo
// with a key log written during the capture, then read from the file:
// the same APIs and versions, and the same records produced, as the same
// client run in plaintext, and no note. Without the key log each
// connection is one encrypted line.
func TestTLSLiveCapture(t *testing.T) {
	mustLiveCapture(t)
	plainPcap, plainPort := tlsWorkload(t, nil, "")
	plain := readTLSRun(t, plainPcap, plainPort)
	if len(plain.produced) != 10 || len(plain.fetched) != 10 {
		t.Fatalf("plaintext run: %d records produced, %d fetched, want 10: %v %v", len(plain.produced), len(plain.fetched), plain.produced, plain.fetched)
	}
	for _, tc := range []struct {
		name    string
		cfg     *tls.Config
		version string
		suite   string
	}{
		{"1.3", &tls.Config{MinVersion: tls.VersionTLS13}, "1.3", "TLS_AES_128_GCM_SHA256"},
		{"1.2-AES128", &tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}}, "1.2", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"},
		{"1.2-AES256", &tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384}}, "1.2", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"},
		{"1.2-CHACHA20", &tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256}}, "1.2", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keylog := filepath.Join(t.TempDir(), "keys.log")
			pcap, port := tlsWorkload(t, tc.cfg, keylog)
			got := readTLSRun(t, pcap, port, "--tls-keylog", keylog)
			if !slices.Equal(got.apis, plain.apis) || !slices.Equal(got.produced, plain.produced) || !slices.Equal(got.fetched, plain.fetched) || len(got.notes) > 0 {
				t.Errorf("decrypted: APIs %v\nproduced %v\nfetched %v\nnotes %q\nplaintext: APIs %v\nproduced %v\nfetched %v", got.apis, got.produced, got.fetched, got.notes, plain.apis, plain.produced, plain.fetched)
			}
			if _, err := exec.LookPath("tshark"); err == nil {
				if ts := tsharkTLSRequests(t, pcap, port, keylog); len(ts) < 10 || !slices.Equal(ts, got.requests) {
					t.Errorf("tshark decrypts requests %v\nwe %v", ts, got.requests)
				}
			}
			want := fmt.Sprintf(`{"version":"%s","cipher":"%s","sni":"kafka.test"}`, tc.version, tc.suite)
			if len(got.tls) != 1 || !got.tls[want] {
				t.Errorf("tls objects %v, want %s", got.tls, want)
			}
			// stats takes the keys from SSLKEYLOGFILE when --tls-keylog is absent.
			t.Setenv("SSLKEYLOGFILE", keylog)
			code, out, errs := runClientCmd(t, "", "stats", pcap, "-p", port)
			if code != 0 || !strings.Contains(out, "Produce") {
				t.Errorf("stats with SSLKEYLOGFILE: exit %d, %s\n%s", code, errs, out)
			}
			t.Setenv("SSLKEYLOGFILE", "")
			if tc.name == "1.3" {
				// replay re-sends the decrypted requests, to a
				// plaintext broker.
				b := startCluster(t, kfake.NumBrokers(1), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(1))
				code, out, errs := runClientCmd(t, "", "replay", pcap, "-p", port, "-b", b.ListenAddrs()[0], "--speed", "max", "--format", "json", "--tls-keylog", keylog)
				var rep replay.Report
				if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Total.Records != 10 {
					t.Errorf("replay: exit %d, %d records sent, stderr %s\n%s", code, rep.Total.Records, errs, out)
				}
			}
			none := readTLSRun(t, pcap, port)
			if len(none.apis) > 0 || len(none.notes) == 0 || !strings.Contains(none.notes[0], "give --tls-keylog") {
				t.Errorf("without keys: APIs %v, notes %q", none.apis, none.notes)
			}
		})
	}
}

// liveNotes are the lines of live's JSON output that have notes.
func liveNotes(out string) string {
	var b strings.Builder
	for line := range strings.Lines(out) {
		if strings.Contains(line, `"notes":["`) {
			b.WriteString(line)
		}
	}
	return b.String()
}

// pythonWithKafka is Debian's python3 (where python3-kafka installs),
// checked for the kafka module; the test is skipped without it.
func pythonWithKafka(t *testing.T) string {
	t.Helper()
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(py, "-c", "import kafka").Run() == nil {
			return py
		}
	}
	t.Skip("kafka-python not importable by /usr/bin/python3 or python3 (Debian: apt-get install python3-kafka)")
	return ""
}

// pythonWorkload captures on lo testdata/kafkapython_tls.py producing 10
// records and consuming them back: in plaintext when mode is "plain", else
// over TLS mode ("1.3", "1.2", with OpenSSL's cipher list ciphers) with
// the test certificate as its CA, its keys in keylog.
func pythonWorkload(t *testing.T, py, mode, ciphers, keylog string) (string, string) {
	t.Helper()
	var cert *tls.Certificate
	var ca string
	if mode != "plain" {
		c := tlstest.Cert(t, false)
		cert = &c
		ca = filepath.Join(t.TempDir(), "ca.pem")
		if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Certificate[0]}), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return liveTLSCapture(t, cert, keylog, func(addr string) {
		args := []string{"testdata/kafkapython_tls.py", addr, "py-topic", "10", mode}
		if mode != "plain" {
			args = append(args, ca, keylog)
			if ciphers != "" {
				args = append(args, ciphers)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), hangCap)
		defer cancel()
		if out, err := exec.CommandContext(ctx, py, args...).CombinedOutput(); err != nil {
			t.Fatalf("kafka-python %s: %v\n%s", mode, err, out)
		}
	}, kfake.SeedTopics(1, "py-topic")) // Metadata v1, kafka-python's, creates no topic in kfake
}

// tsharkServerSuite is the cipher suite of the Server Hellos tshark reads
// in a capture, by name.
func tsharkServerSuite(t *testing.T, pcap, port string) []string {
	t.Helper()
	out, err := exec.Command("tshark", "-r", pcap, "-d", "tcp.port=="+port+",tls",
		"-Y", "tls.handshake.type == 2", "-T", "fields", "-e", "tls.handshake.ciphersuite").Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	var suites []string
	for line := range strings.Lines(string(out)) {
		v, err := strconv.ParseUint(strings.TrimSpace(line), 0, 16)
		if err != nil {
			t.Fatalf("tshark cipher suite %q", line)
		}
		suites = append(suites, tls.CipherSuiteName(uint16(v)))
	}
	slices.Sort(suites)
	return slices.Compact(suites)
}

// TestKafkaPythonTLS: kafka-python (Debian's python3-kafka, Python's ssl
// over OpenSSL, ssl_context.keylog_filename) against kfake's TLS
// listener, TLS 1.3 and TLS 1.2, captured and decrypted live on lo with
// the key log Python appends to during the capture, then read from the
// file: the same APIs and versions, records produced and fetched, as the
// same script in plaintext, no note; tshark given the key log decrypts
// the same requests, and names the cipher suite our tls objects name.
func TestKafkaPythonTLS(t *testing.T) {
	py := pythonWithKafka(t)
	mustLiveCapture(t)
	plainPcap, plainPort := pythonWorkload(t, py, "plain", "", "")
	plain := readTLSRun(t, plainPcap, plainPort)
	if len(plain.produced) != 10 || len(plain.fetched) != 10 {
		t.Fatalf("plaintext run: %d records produced, %d fetched, want 10: %v %v", len(plain.produced), len(plain.fetched), plain.produced, plain.fetched)
	}
	for _, tc := range []struct{ name, mode, ciphers, version string }{
		{"1.3", "1.3", "", "1.3"},
		{"1.2-AES256", "1.2", "ECDHE-ECDSA-AES256-GCM-SHA384", "1.2"},
		{"1.2-CHACHA20", "1.2", "ECDHE-ECDSA-CHACHA20-POLY1305", "1.2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keylog := filepath.Join(t.TempDir(), "keys.log")
			pcap, port := pythonWorkload(t, py, tc.mode, tc.ciphers, keylog)
			got := readTLSRun(t, pcap, port, "--tls-keylog", keylog)
			if !slices.Equal(got.apis, plain.apis) || !slices.Equal(got.produced, plain.produced) || !slices.Equal(got.fetched, plain.fetched) || len(got.notes) > 0 {
				t.Errorf("decrypted: APIs %v\nproduced %v\nfetched %v\nnotes %q\nplaintext: APIs %v\nproduced %v\nfetched %v", got.apis, got.produced, got.fetched, got.notes, plain.apis, plain.produced, plain.fetched)
			}
			if _, err := exec.LookPath("tshark"); err != nil {
				t.Skip("tshark not installed: its check skipped (CI installs it)")
			}
			if ts := tsharkTLSRequests(t, pcap, port, keylog); len(ts) < 10 || !slices.Equal(ts, got.requests) {
				t.Errorf("tshark decrypts requests %v\nwe %v", ts, got.requests)
			}
			suites := tsharkServerSuite(t, pcap, port)
			if len(suites) != 1 {
				t.Fatalf("tshark reads cipher suites %v, want one", suites)
			}
			// kafka-python connects to 127.0.0.1: no SNI.
			want := fmt.Sprintf(`{"version":"%s","cipher":"%s","sni":""}`, tc.version, suites[0])
			if len(got.tls) != 1 || !got.tls[want] {
				t.Errorf("tls objects %v, want %s", got.tls, want)
			}
		})
	}
}

// keyLogLines counts the CLIENT_TRAFFIC_SECRET_0 lines of a key log (one
// a TLS 1.3 connection) and fails unless it is the owner's only.
func keyLogLines(t *testing.T, path string) int {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("%s: mode %v, want 0600", path, st.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "CLIENT_TRAFFIC_SECRET_0 ")
}

// TestClientCommandsTLSKeyLog: produce and consume over TLS with
// --tls-keylog K, captured by `live --tls-keylog K` on lo: the capture
// decrypts (the records produced and fetched, no note), both runs
// appended to K. replay's target connection writes its keys with
// --tls-keylog-out, its --tls-keylog reading the capture's.
func TestClientCommandsTLSKeyLog(t *testing.T) {
	mustLiveCapture(t)
	keylog := filepath.Join(t.TempDir(), "keys.log")
	cert := tlstest.Cert(t, false)
	var after [2]int
	pcap, port := liveTLSCapture(t, &cert, keylog, func(addr string) {
		if code, _, errs := runClientCmd(t, "v0\nv1\nv2\nv3\nv4\n", "produce", "-b", addr, "-t", "cli-topic", "-p", "0",
			"--tls-insecure", "--tls-keylog", keylog); code != 0 {
			t.Fatalf("produce: exit %d: %s", code, errs)
		}
		after[0] = keyLogLines(t, keylog)
		if code, out, errs := runClientCmd(t, "", "consume", "-b", addr, "-t", "cli-topic", "-e", "-q",
			"--tls-insecure", "--tls-keylog", keylog); code != 0 || strings.Count(out, "\n") != 5 {
			t.Fatalf("consume: exit %d: %s\n%s", code, errs, out)
		}
		after[1] = keyLogLines(t, keylog)
	})
	if after[0] == 0 || after[1] <= after[0] {
		t.Errorf("key log connections after produce %d, after consume %d: want some, then more", after[0], after[1])
	}
	got := readTLSRun(t, pcap, port, "--tls-keylog", keylog)
	want := []string{"<nil>=v0", "<nil>=v1", "<nil>=v2", "<nil>=v3", "<nil>=v4"}
	if !slices.Equal(got.produced, want) || !slices.Equal(got.fetched, want) || len(got.notes) > 0 || len(got.tls) != 1 {
		t.Errorf("decrypted: APIs %v\nproduced %v\nfetched %v\nnotes %q\ntls %v", got.apis, got.produced, got.fetched, got.notes, got.tls)
	}

	target := startCluster(t, kfake.NumBrokers(1), kfake.AllowAutoTopicCreation(), kfake.TLS(&tls.Config{Certificates: []tls.Certificate{cert}}))
	out := filepath.Join(t.TempDir(), "replay-keys.log")
	code, stdout, errs := runClientCmd(t, "", "replay", pcap, "-p", port, "-b", target.ListenAddrs()[0], "--speed", "max", "--format", "json",
		"--tls-keylog", keylog, "--tls-insecure", "--tls-keylog-out", out)
	var rep replay.Report
	if code != 0 || json.Unmarshal([]byte(stdout), &rep) != nil || rep.Total.Records != 5 {
		t.Errorf("replay: exit %d, %d records sent, stderr %s\n%s", code, rep.Total.Records, errs, stdout)
	}
	if n := keyLogLines(t, out); n == 0 {
		t.Errorf("replay --tls-keylog-out wrote no TLS 1.3 connection's keys")
	}
}
