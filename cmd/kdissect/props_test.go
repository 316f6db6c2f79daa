//go:build linux

package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

// writeFile writes content to name in dir and returns the path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPropertiesSASL: a kcat-style -F client.properties file (SCRAM over
// SASL_PLAINTEXT), a Java one with sasl.jaas.config, and -X properties
// connect to a kfake that requires SASL; a wrong password is refused; an
// unknown name is an error that lists the known ones. (kcat itself does
// not authenticate to kfake: librdkafka finds no SaslHandshake v0 in its
// ApiVersions and gives up, so kcat is no oracle here.)
func TestPropertiesSASL(t *testing.T) {
	c := startCluster(t, kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-256", "alice", "s3cret"), kfake.SeedTopics(1, "sasl"))
	addr := c.ListenAddrs()[0]
	dir := t.TempDir()
	props := writeFile(t, dir, "client.properties", "# as a Java or kcat user writes it\nbootstrap.servers="+addr+
		"\nsecurity.protocol=SASL_PLAINTEXT\nsasl.mechanisms=SCRAM-SHA-256\nsasl.username=alice\nsasl.password=s3cret\n")
	code, ours, errs := runClientCmd(t, "", "broker", "-F", props, "-J", "-t", "sasl")
	if code != 0 || !strings.Contains(ours, `"query":{"topic":"sasl"}`) || !strings.Contains(ours, `"name":"sasl_plaintext://`+addr+`/0"`) {
		t.Errorf("-F: exit %d, we print\n%s\n%s", code, ours, errs)
	}
	x := []string{"-X", "bootstrap.servers=" + addr, "-X", "security.protocol=sasl_plaintext", "-X", "sasl.mechanism=SCRAM-SHA-256",
		"-X", "sasl.username=alice", "-X", "sasl.password=s3cret"}
	code, _, errs = runClientCmd(t, "hello\n", append([]string{"produce", "-t", "sasl", "-p", "0"}, x...)...)
	if code != 0 {
		t.Fatalf("produce -X: exit %d: %s", code, errs)
	}
	code, out, errs := runClientCmd(t, "", append([]string{"consume", "-t", "sasl", "-e", "-q"}, x...)...)
	if code != 0 || out != "hello\n" {
		t.Errorf("consume -X: exit %d, %q, %s", code, out, errs)
	}
	// A later -X wins over -F; the flag over both.
	if code, _, errs := runClientCmd(t, "", "broker", "-F", props, "-X", "sasl.password=wrong"); code != exitInput || !strings.Contains(errs, "SASL_AUTHENTICATION_FAILED") || strings.Contains(errs, "wrong") {
		t.Errorf("-X sasl.password=wrong: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := runClientCmd(t, "", "broker", "-F", props, "-X", "sasl.password=wrong", "--sasl-password", "s3cret"); code != 0 {
		t.Errorf("--sasl-password over -X: exit %d, stderr %q", code, errs)
	}
	code, _, errs = runClientCmd(t, "", "broker", "-F", props, "-X", "sasl.kerberos.service.name=kafka")
	if code != exitUsage || !strings.Contains(errs, `"sasl.kerberos.service.name" is not known`) || !strings.Contains(errs, "bootstrap.servers, client.id,") {
		t.Errorf("unknown property: exit %d, stderr %q", code, errs)
	}
	// A client.properties file as Confluent's templates write it: the
	// settings kdissect has no use for are ignored, each with a warning.
	cc := writeFile(t, dir, "cc.properties", "bootstrap.servers="+addr+"\nsecurity.protocol=SASL_PLAINTEXT\nsasl.mechanisms=SCRAM-SHA-256\nsasl.username=alice\nsasl.password=s3cret\nsession.timeout.ms=45000\nacks=all\n")
	if code, _, errs := runClientCmd(t, "", "broker", "-F", cc, "-X", "group.id=g"); code != 0 ||
		!strings.Contains(errs, "property session.timeout.ms is a Kafka client setting kdissect does not use: ignored") || !strings.Contains(errs, "property group.id is") {
		t.Errorf("client.properties with settings not used: exit %d, stderr %q", code, errs)
	}
	jaas := writeFile(t, dir, "java.properties", "bootstrap.servers: "+addr+"\nsecurity.protocol = SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n"+
		`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="s3cret";`+"\n")
	if code, _, errs := runClientCmd(t, "", "broker", "-F", jaas, "-J"); code != 0 {
		t.Errorf("Java properties with sasl.jaas.config: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := runClientCmd(t, "", "broker", "-X", "bootstrap.servers="+addr, "-X", "security.protocol=SASL_SSL"); code != exitUsage || !strings.Contains(errs, "needs a mechanism") {
		t.Errorf("SASL_SSL without a mechanism: exit %d, stderr %q", code, errs)
	}
}

// pemCert makes a certificate signed by parent (self-signed when parent is
// nil) and writes it and its key as PEM files; it returns the certificate,
// its key and the two paths.
func pemCert(t *testing.T, dir, name string, isCA bool, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey, string, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, IsCA: isCA, BasicConstraintsValid: true,
	}
	signer, signerKey := tmpl, key
	if parent != nil {
		signer, signerKey = parent, parentKey
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signerKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	kder, _ := x509.MarshalECPrivateKey(key)
	cp := writeFile(t, dir, name+".pem", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})))
	kp := writeFile(t, dir, name+".key", string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})))
	return cert, key, cp, kp
}

// TestMutualTLSKcat: a kfake that requires a client certificate signed by
// its CA; --tls-ca/--tls-cert/--tls-key and the ssl.*.location properties
// connect, as kcat does with the same properties (same -L -J output);
// without the client certificate the connection fails (exit 1).
func TestMutualTLSKcat(t *testing.T) {
	needKcat(t)
	dir := t.TempDir()
	ca, caKey, caPath, _ := pemCert(t, dir, "ca", true, nil, nil)
	_, _, srvCert, srvKey := pemCert(t, dir, "server", false, ca, caKey)
	_, _, cliCert, cliKey := pemCert(t, dir, "client", false, ca, caKey)
	pair, err := tls.LoadX509KeyPair(srvCert, srvKey)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	c := startCluster(t, kfake.TLS(&tls.Config{Certificates: []tls.Certificate{pair}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}), kfake.SeedTopics(1, "mtls"))
	addr := c.ListenAddrs()[0]
	x := []string{"-X", "security.protocol=ssl", "-X", "ssl.ca.location=" + caPath,
		"-X", "ssl.certificate.location=" + cliCert, "-X", "ssl.key.location=" + cliKey}
	theirs := kcatOn(t, "", append([]string{"-b", addr, "-L", "-J", "-t", "mtls"}, x...)...)
	code, ours, errs := runClientCmd(t, "", append([]string{"broker", "-b", addr, "-J", "-t", "mtls"}, x...)...)
	if code != 0 || ours != theirs+"\n" {
		t.Errorf("-X ssl.*: exit %d, we print\n%s\nkcat prints\n%s\n%s", code, ours, theirs, errs)
	}
	if code, _, errs := runClientCmd(t, "", "broker", "-b", addr, "--tls-ca", caPath, "--tls-cert", cliCert, "--tls-key", cliKey); code != 0 {
		t.Errorf("--tls-cert: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := runClientCmd(t, "", "broker", "-b", addr, "--tls-ca", caPath); code != exitInput {
		t.Errorf("no client certificate: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := runClientCmd(t, "", "broker", "-b", addr, "--tls-cert", cliCert); code != exitUsage {
		t.Errorf("--tls-cert without --tls-key: exit %d, stderr %q", code, errs)
	}
}
