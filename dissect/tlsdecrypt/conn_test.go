package tlsdecrypt

import (
	"bytes"
	"crypto/tls"
	"testing"
)

// suiteCases are the configurations of the Go client tested: TLS 1.3
// (crypto/tls negotiates TLS_AES_128_GCM_SHA256 between Go peers on
// AES hardware) and TLS 1.2 with each AEAD.
var suiteCases = []struct {
	name  string
	rsa   bool
	max   uint16
	suite uint16
}{
	{"1.3", false, tls.VersionTLS13, 0},
	{"1.2-ECDHE-RSA-AES128-GCM", true, tls.VersionTLS12, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256},
	{"1.2-ECDHE-RSA-AES256-GCM", true, tls.VersionTLS12, tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384},
	{"1.2-ECDHE-RSA-CHACHA20", true, tls.VersionTLS12, tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256},
	{"1.2-ECDHE-ECDSA-AES128-GCM", false, tls.VersionTLS12, tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256},
	{"1.2-ECDHE-ECDSA-CHACHA20", false, tls.VersionTLS12, tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256},
}

func clientConfig(max, suite uint16) *tls.Config {
	cfg := &tls.Config{MaxVersion: max}
	if suite != 0 {
		cfg.CipherSuites = []uint16{suite}
	}
	return cfg
}

func TestDecryptGoSessions(t *testing.T) {
	certs := map[bool]tls.Certificate{true: selfSigned(t, true), false: selfSigned(t, false)}
	for _, tc := range suiteCases {
		t.Run(tc.name, func(t *testing.T) {
			s := runSession(t, clientConfig(tc.max, tc.suite), certs[tc.rsa], messages(12))
			c := decryptWhole(t, s)
			in := c.Info()
			if in.Version != s.state.Version || in.Suite != s.state.CipherSuite || in.SNI != "kafka.test" {
				t.Fatalf("info %+v, want version %x suite %x", in, s.state.Version, s.state.CipherSuite)
			}
			if want := SuiteName(s.state.CipherSuite); in.SuiteName() != want || tc.suite != 0 && want != tls.CipherSuiteName(tc.suite) {
				t.Fatalf("suite name %q", in.SuiteName())
			}
		})
	}
}

// TestNoKeys: without secrets nothing is decrypted, and the handshake
// still says SNI, version and suite.
func TestNoKeys(t *testing.T) {
	s := runSession(t, clientConfig(tls.VersionTLS13, 0), selfSigned(t, false), messages(3))
	if !IsClientHello(s.c2s) || IsClientHello(s.s2c) {
		t.Fatal("IsClientHello")
	}
	for _, keys := range []KeySource{nil, NewKeyLog()} {
		var col collector
		c := NewConn(keys, &col)
		feedSession(c, s)
		c.Close()
		in := c.Info()
		if !in.NoKeys || in.VersionName() != "1.3" || in.SuiteName() != "TLS_AES_128_GCM_SHA256" || in.SNI != "kafka.test" {
			t.Fatalf("info %+v", in)
		}
		if len(col.plain[0])+len(col.plain[1]) != 0 || len(col.notes) != 2 {
			t.Fatalf("plaintext %d bytes, notes %q", len(col.plain[0])+len(col.plain[1]), col.notes)
		}
	}
}

// TestWrongKey: a key log line with a wrong secret gives a note per
// direction and no plaintext.
func TestWrongKey(t *testing.T) {
	for _, tc := range suiteCases[:2] {
		s := runSession(t, clientConfig(tc.max, tc.suite), selfSigned(t, tc.rsa), messages(3))
		// Change the last hex digit of every secret.
		lines := bytes.Split(bytes.Clone(s.keylog), []byte("\n"))
		for _, l := range lines {
			if len(l) > 0 {
				l[len(l)-1] = "10"[b2i(l[len(l)-1] == '1')]
			}
		}
		var col collector
		c := NewConn(keyLogOf(t, bytes.Join(lines, []byte("\n"))), &col)
		feedSession(c, s)
		if len(col.plain[0])+len(col.plain[1]) != 0 || len(col.notes) != 2 {
			t.Fatalf("%s: plaintext %d bytes, notes %q", tc.name, len(col.plain[0])+len(col.plain[1]), col.notes)
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
