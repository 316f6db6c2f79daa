package dissect

import (
	"bytes"
	"crypto/tls"
	"io"
	"net"
	"testing"

	"github.com/kdissect/kdissect/internal/tlstest"
)

// tlsHandshakeOnly is the wire bytes of a TLS connection (client config
// cfg) that completes its handshake and closes with no application
// data, as kafka-python's first connection does, and its key log. It runs
// over loopback TCP, whose buffers let the TLS 1.3 server write its
// session tickets to a client that does not read them.
func tlsHandshakeOnly(t *testing.T, cfg *tls.Config) ([]tlsChunk, []byte) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	wire := make(chan *tlsWire, 1)
	go func() {
		sc, err := ln.Accept()
		if err != nil {
			wire <- nil
			return
		}
		w := &tlsWire{Conn: sc}
		srv := tls.Server(w, &tls.Config{Certificates: []tls.Certificate{tlstest.Cert(t, false)}})
		_, _ = io.Copy(io.Discard, srv) // the handshake, then the client's close
		sc.Close()
		wire <- w
	}()
	var kl bytes.Buffer
	cfg = cfg.Clone()
	cfg.KeyLogWriter, cfg.InsecureSkipVerify, cfg.ServerName = &kl, true, "kafka.test"
	cl, err := tls.Dial("tcp", ln.Addr().String(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cl.Close()
	w := <-wire
	if w == nil {
		t.Fatal("accept failed")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.chunks, kl.Bytes()
}

// TestTLSHandshakeOnly: a TLS connection that carried no application
// data, its keys known, shows nothing, as a plaintext connection that
// carried nothing (before, it was an exchange "encrypted: give
// --tls-keylog" beside the key it had); without its keys it is still its
// one encrypted exchange.
func TestTLSHandshakeOnly(t *testing.T) {
	for _, cfg := range []*tls.Config{
		{MinVersion: tls.VersionTLS13},
		{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384}},
	} {
		chunks, kl := tlsHandshakeOnly(t, cfg)
		clock := testClock()
		c := newConn(t, linkVariants[0], 40000, 9093, &clock)
		pkts := c.handshake()
		for _, ch := range chunks {
			pkts = append(pkts, c.send(ch.fromClient, ch.data, 1448, 1448, 1448)...)
		}
		capture := writePcap(t, linkVariants[0].link, append(pkts, c.close()...))
		d := New(Options{Ports: []uint16{9093}, TLSKeys: keyLog(t, kl)})
		got, err := readAll(t, d, capture)
		if err != nil {
			t.Fatal(err)
		}
		st := d.Stats()
		if len(got) != 0 || st.TLSConnections != 1 || st.TLSEncrypted != 0 || len(st.Problems) > 0 {
			for _, e := range got {
				t.Logf("%s", describe(e))
			}
			t.Errorf("max TLS %x, keys known: %d exchanges, stats %d TLS, %d encrypted, problems %q", cfg.MaxVersion, len(got), st.TLSConnections, st.TLSEncrypted, st.Problems)
		}
		got, err = readAll(t, New(Options{Ports: []uint16{9093}}), capture)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].TLS == nil || !got[0].TLS.Encrypted {
			t.Errorf("max TLS %x, no keys: %d exchanges", cfg.MaxVersion, len(got))
		}
	}
}
