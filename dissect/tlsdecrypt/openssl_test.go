package tlsdecrypt

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"os/exec"
	"testing"
	"time"
)

// opensslSession runs `openssl s_client` (OpenSSL's TLS 1.3, offering only
// suite) against a crypto/tls server that logs the keys: the client sends
// lines, asks for KeyUpdates ("k": it updates its keys, "K": the server
// updates too), and the server answers each line.
func opensslSession(t *testing.T, suite string, lines []string) *session {
	t.Helper()
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not installed (CI installs it)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var kl bytes.Buffer
	cfg := &tls.Config{Certificates: []tls.Certificate{selfSigned(t, false)}, MinVersion: tls.VersionTLS13, KeyLogWriter: &kl}
	cmd := exec.Command("openssl", "s_client", "-connect", ln.Addr().String(), "-tls1_3",
		"-ciphersuites", suite, "-servername", "kafka.test")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	raw, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	w := &wire{Conn: raw}
	srv := tls.Server(w, cfg)
	type line struct {
		s   string
		err error
	}
	got := make(chan line)
	go func() {
		rd := bufio.NewReader(srv)
		for {
			l, err := rd.ReadString('\n')
			got <- line{l, err}
			if err != nil {
				return
			}
		}
	}()
	read := func() int {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.c2s.Len()
	}
	var s session
	for _, l := range lines {
		before := read()
		if _, err := io.WriteString(stdin, l+"\n"); err != nil {
			t.Fatal(err)
		}
		if l == "k" || l == "K" {
			// A command: s_client sends a KeyUpdate record. The next
			// line must wait for it, or s_client reads both at once
			// and takes the line for part of the command.
			deadline := time.Now().Add(10 * time.Second)
			for read() == before {
				if time.Now().After(deadline) {
					t.Fatalf("no KeyUpdate from openssl (%s)", stderr.String())
				}
				time.Sleep(time.Millisecond)
			}
			continue
		}
		g := <-got
		if g.err != nil {
			t.Fatalf("server read: %v (openssl: %s)", g.err, stderr.String())
		}
		s.sent = append(s.sent, g.s...)
		r := fmt.Sprintf("echo %d %s", len(g.s), g.s)
		s.recv = append(s.recv, r...)
		if _, err := io.WriteString(srv, r); err != nil {
			t.Fatal(err)
		}
	}
	stdin.Close()
	cmd.Wait()
	raw.Close()
	s.state = srv.ConnectionState()
	s.keylog = kl.Bytes()
	w.mu.Lock()
	s.events = w.events
	w.mu.Unlock()
	return &s
}

// TestDecryptOpenSSL13: TLS 1.3 with each AEAD (crypto/tls between Go
// peers always picks AES-128-GCM), and KeyUpdates both ways.
func TestDecryptOpenSSL13(t *testing.T) {
	lines := []string{"hello", "k", "after a client KeyUpdate", "K", "after both updated", "k", "K", "last"}
	for _, suite := range []string{"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"} {
		t.Run(suite, func(t *testing.T) {
			s := opensslSession(t, suite, lines)
			if got := tls.CipherSuiteName(s.state.CipherSuite); got != suite {
				t.Fatalf("negotiated %s", got)
			}
			c := decryptWhole(t, s)
			if in := c.Info(); in.SuiteName() != suite || in.VersionName() != "1.3" || in.SNI != "kafka.test" {
				t.Fatalf("info %+v", in)
			}
		})
	}
}
