// Package tlstest gives tests a self-signed certificate for a TLS server.
package tlstest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"testing"
	"time"
)

// ServerName is the name the certificates are for.
const ServerName = "kafka.test"

// Cert returns a self-signed certificate for ServerName, valid for an
// hour either side of now: RSA 2048 (for the ECDHE_RSA suites) or ECDSA
// P-256 (for ECDHE_ECDSA and TLS 1.3).
func Cert(t testing.TB, useRSA bool) tls.Certificate {
	t.Helper()
	var key, pub any
	if useRSA {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			t.Fatal(err)
		}
		key, pub = k, &k.PublicKey
	} else {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		key, pub = k, &k.PublicKey
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: ServerName},
		DNSNames:     []string{ServerName},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// BenchVariant is a client configuration the TLS benchmarks compare,
// Config nil for plaintext.
type BenchVariant struct {
	Name   string
	Config *tls.Config
}

// BenchVariants are plaintext, TLS 1.3 (AES-128-GCM, with AES-NI) and
// TLS 1.2 with AES-128-GCM and ChaCha20-Poly1305.
func BenchVariants() []BenchVariant {
	return []BenchVariant{
		{"plain", nil},
		{"tls1.3-aes128gcm", &tls.Config{MinVersion: tls.VersionTLS13}},
		{"tls1.2-aes128gcm", &tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}}},
		{"tls1.2-chacha20", &tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256}}},
	}
}
