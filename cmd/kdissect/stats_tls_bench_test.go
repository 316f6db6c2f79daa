package main

import (
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kdissect/kdissect/internal/capgen"
	"github.com/kdissect/kdissect/internal/tlstest"
)

// BenchmarkStatsTLS times `kdissect stats` on the same conversation
// (capgen's samples, every API it writes, about 32 MB of Kafka frames as
// BenchmarkStatsCommand's capture, one connection in 1448-byte segments)
// captured in plaintext and over TLS, decrypted with --tls-keylog: what
// decryption adds to stats. Each variant first checks that stats counts
// the same exchanges and bytes as in plaintext.
//
//	go test ./cmd/kdissect -run '^$' -bench StatsTLS -benchmem
func BenchmarkStatsTLS(b *testing.B) {
	frames := statsBenchFrames(b, 32<<20)
	dir := b.TempDir()
	plain := filepath.Join(dir, "plain.pcap")
	writeBenchCapture(b, plain, frames)
	want := statsTotals(b, plain)
	for _, v := range tlstest.BenchVariants() {
		b.Run(v.Name, func(b *testing.B) {
			path, args := plain, []string{"stats", plain}
			if v.Config != nil {
				wire, kl := tlsWireOf(b, v.Config, frames)
				path = filepath.Join(b.TempDir(), "tls.pcap")
				keys := filepath.Join(b.TempDir(), "keys.log")
				writeBenchCapture(b, path, wire)
				if err := os.WriteFile(keys, kl, 0o600); err != nil {
					b.Fatal(err)
				}
				args = []string{"stats", path, "--tls-keylog", keys}
				if got := statsTotals(b, path, args[2:]...); got != want {
					b.Fatalf("stats decrypted %+v, plaintext %+v", got, want)
				}
			}
			st, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(st.Size())
			var stderr strings.Builder
			for b.Loop() {
				if code := run(args, nil, io.Discard, &stderr); code != 0 {
					b.Fatalf("exit %d: %s", code, stderr.String())
				}
			}
		})
	}
}

// statsBenchFrames repeats capgen's sample exchanges, CorrelationIds
// renumbered, until their frames add up to size bytes.
func statsBenchFrames(b *testing.B, size int) [][2][]byte {
	samples, err := capgen.Samples(1)
	if err != nil {
		b.Fatal(err)
	}
	var frames [][2][]byte
	for n, corr := 0, int32(1); n < size; corr++ {
		s := samples[int(corr)%len(samples)]
		req, resp := bytes.Clone(s.Request), bytes.Clone(s.Response)
		binary.BigEndian.PutUint32(req[8:], uint32(corr)) // size, key, version, then CorrelationId
		binary.BigEndian.PutUint32(resp[4:], uint32(corr))
		frames = append(frames, [2][]byte{req, resp})
		n += len(req) + len(resp)
	}
	return frames
}

func writeBenchCapture(b *testing.B, path string, frames [][2][]byte) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := capgen.WriteExchanges(f, frames); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}

// statsTotals are the exchanges and Kafka bytes stats counts in a capture.
type statsTotal struct {
	Exchanges     int   `json:"exchanges"`
	RequestBytes  int64 `json:"request_bytes"`
	ResponseBytes int64 `json:"response_bytes"`
	Holes         int   `json:"holes"`
}

func statsTotals(b *testing.B, path string, extra ...string) statsTotal {
	var out, errb bytes.Buffer
	if code := run(append([]string{"stats", path, "--format", "json"}, extra...), nil, &out, &errb); code != 0 {
		b.Fatalf("stats: exit %d: %s", code, errb.String())
	}
	var v struct {
		Capture statsTotal `json:"capture"`
	}
	if err := json.Unmarshal(out.Bytes(), &v); err != nil || v.Capture.Exchanges == 0 {
		b.Fatalf("stats json: %v %+v", err, v)
	}
	return v.Capture
}

// benchWire records what a server-side conn reads and writes, in order.
type benchWire struct {
	net.Conn
	mu     sync.Mutex
	chunks []struct {
		fromClient bool
		data       []byte
	}
}

func (w *benchWire) add(fromClient bool, b []byte) {
	w.mu.Lock()
	w.chunks = append(w.chunks, struct {
		fromClient bool
		data       []byte
	}{fromClient, bytes.Clone(b)})
	w.mu.Unlock()
}

func (w *benchWire) Read(b []byte) (int, error) {
	n, err := w.Conn.Read(b)
	w.add(true, b[:n])
	return n, err
}

func (w *benchWire) Write(b []byte) (int, error) {
	w.add(false, b)
	return w.Conn.Write(b)
}

// tlsWireOf carries the frames over crypto/tls (client config cfg, an
// ECDSA certificate) across a pipe, each request then its response, and
// returns the TLS bytes as WriteExchanges takes them (each run of client
// bytes, then the server's that followed) and the client's key log.
func tlsWireOf(b *testing.B, cfg *tls.Config, frames [][2][]byte) ([][2][]byte, []byte) {
	cp, sp := net.Pipe()
	w := &benchWire{Conn: sp}
	srv := tls.Server(w, &tls.Config{Certificates: []tls.Certificate{tlstest.Cert(b, false)}})
	var kl bytes.Buffer
	cfg = cfg.Clone()
	cfg.KeyLogWriter, cfg.InsecureSkipVerify, cfg.ServerName = &kl, true, tlstest.ServerName
	done := make(chan error, 1)
	go func() {
		for _, f := range frames {
			if _, err := io.ReadFull(srv, make([]byte, len(f[0]))); err != nil {
				done <- err
				return
			}
			if _, err := srv.Write(f[1]); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	cl := tls.Client(cp, cfg)
	for _, f := range frames {
		if _, err := cl.Write(f[0]); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(cl, make([]byte, len(f[1]))); err != nil {
			b.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	cp.Close()
	sp.Close()
	var out [][2][]byte
	var cur [2][]byte
	for _, ch := range w.chunks {
		if len(ch.data) == 0 {
			continue
		}
		if ch.fromClient && cur[1] != nil {
			out, cur = append(out, cur), [2][]byte{}
		}
		if ch.fromClient {
			cur[0] = append(cur[0], ch.data...)
		} else {
			cur[1] = append(cur[1], ch.data...)
		}
	}
	return append(out, cur), kl.Bytes()
}
