package dissect

import (
	"bytes"
	"crypto/tls"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kdissect/kdissect/dissect/tlsdecrypt"
	"github.com/kdissect/kdissect/internal/tlstest"
)

// tlsChunk is what one side wrote on a TLS connection, in wire order.
type tlsChunk struct {
	fromClient bool
	data       []byte
}

// tlsWire records what a server-side conn reads and writes, in order.
type tlsWire struct {
	net.Conn
	mu     sync.Mutex
	chunks []tlsChunk
}

func (w *tlsWire) Read(b []byte) (int, error) {
	n, err := w.Conn.Read(b)
	if n > 0 {
		w.mu.Lock()
		w.chunks = append(w.chunks, tlsChunk{true, bytes.Clone(b[:n])})
		w.mu.Unlock()
	}
	return n, err
}

func (w *tlsWire) Write(b []byte) (int, error) {
	w.mu.Lock()
	w.chunks = append(w.chunks, tlsChunk{false, bytes.Clone(b)})
	w.mu.Unlock()
	return w.Conn.Write(b)
}

// tlsConversation carries Kafka frames over crypto/tls (client config
// cfg, an ECDSA certificate): each request, then its response. It returns
// the TLS bytes in wire order and the key log.
func tlsConversation(t testing.TB, cfg *tls.Config, reqs, resps [][]byte) ([]tlsChunk, []byte) {
	t.Helper()
	cp, sp := net.Pipe()
	w := &tlsWire{Conn: sp}
	srv := tls.Server(w, &tls.Config{Certificates: []tls.Certificate{tlstest.Cert(t, false)}})
	var kl bytes.Buffer
	cfg = cfg.Clone()
	cfg.KeyLogWriter, cfg.InsecureSkipVerify, cfg.ServerName = &kl, true, "kafka.test"
	done := make(chan error, 1)
	go func() {
		for i := range reqs {
			if _, err := io.ReadFull(srv, make([]byte, len(reqs[i]))); err != nil {
				done <- err
				return
			}
			if _, err := srv.Write(resps[i]); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	cl := tls.Client(cp, cfg)
	for i := range reqs {
		if _, err := cl.Write(reqs[i]); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(cl, make([]byte, len(resps[i]))); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	cp.Close()
	sp.Close()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.chunks, kl.Bytes()
}

// tlsCapture is a pcap of one TLS connection on port 9093 carrying n
// Kafka exchanges, its key log, and the exchanges expected.
func tlsCapture(t testing.TB, cfg *tls.Config, n int, port uint16) ([]byte, []byte, []exchangeSpec) {
	specs, reqs, resps := conversation(n, 1)
	chunks, kl := tlsConversation(t, cfg, reqs, resps)
	clock := testClock()
	c := newConn(t, linkVariants[0], 40000, port, &clock)
	pkts := c.handshake()
	for _, ch := range chunks {
		pkts = append(pkts, c.send(ch.fromClient, ch.data, 1448, 1448, 1448)...)
	}
	pkts = append(pkts, c.close()...)
	return writePcap(t, linkVariants[0].link, pkts), kl, specs
}

func keyLog(t testing.TB, b []byte) *tlsdecrypt.KeyLog {
	k := tlsdecrypt.NewKeyLog()
	if err := k.Read(bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	return k
}

// TestTLSDecrypted: the exchanges of a TLS connection, decrypted with its
// key log, are those sent, with the TLS facts of the handshake.
func TestTLSDecrypted(t *testing.T) {
	for _, tc := range []struct {
		cfg            *tls.Config
		version, suite string
	}{
		{&tls.Config{MaxVersion: tls.VersionTLS13}, "1.3", "TLS_AES_128_GCM_SHA256"},
		{&tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256}}, "1.2", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"},
	} {
		capture, kl, specs := tlsCapture(t, tc.cfg, 20, 9093)
		got, err := readAll(t, New(Options{Ports: []uint16{9093}, TLSKeys: keyLog(t, kl)}), capture)
		if err != nil {
			t.Fatal(err)
		}
		checkExchanges(t, got, specs, false)
		for _, e := range got {
			if e.TLS == nil || e.TLS.Version != tc.version || e.TLS.Cipher != tc.suite || e.TLS.SNI != "kafka.test" || e.TLS.Encrypted {
				t.Fatalf("TLS %+v, want %s %s", e.TLS, tc.version, tc.suite)
			}
		}
	}
}

// TestTLSWithoutKeys: without keys a TLS connection is one exchange with
// a note naming SNI, version and suite, and nothing framed as Kafka
// (before, its records were frames of 369295616 bytes).
func TestTLSWithoutKeys(t *testing.T) {
	capture, _, _ := tlsCapture(t, &tls.Config{MaxVersion: tls.VersionTLS13}, 5, 9093)
	for _, keys := range []tlsdecrypt.KeySource{nil, tlsdecrypt.NewKeyLog()} {
		d := New(Options{Ports: []uint16{9093}, TLSKeys: keys})
		got, err := readAll(t, d, capture)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].TLS == nil || !got[0].TLS.Encrypted || got[0].Request != nil || got[0].Response != nil {
			for _, e := range got {
				t.Logf("%s", describe(e))
			}
			t.Fatalf("%d exchanges", len(got))
		}
		note := strings.Join(NoteTexts(got[0].Notes), "; ")
		if !strings.Contains(note, "encrypted (TLS 1.3 TLS_AES_128_GCM_SHA256 SNI kafka.test): give --tls-keylog") {
			t.Fatalf("note %q", note)
		}
		if st := d.Stats(); st.TLSConnections != 1 || st.TLSEncrypted != 1 || st.Frames != 0 {
			t.Fatalf("stats: %d TLS, %d encrypted, %d frames", st.TLSConnections, st.TLSEncrypted, st.Frames)
		}
	}
}

// TestTLSSecretsBlock: keys embedded in the pcapng by `editcap
// --inject-secrets` decrypt with no key source given.
func TestTLSSecretsBlock(t *testing.T) {
	if _, err := exec.LookPath("editcap"); err != nil {
		t.Skip("editcap not installed (CI installs tshark)")
	}
	capture, kl, specs := tlsCapture(t, &tls.Config{MaxVersion: tls.VersionTLS13}, 10, 9093)
	dir := t.TempDir()
	in, keys, out := filepath.Join(dir, "in.pcap"), filepath.Join(dir, "keys.log"), filepath.Join(dir, "out.pcapng")
	if err := os.WriteFile(in, capture, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keys, kl, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("editcap", "--inject-secrets", "tls,"+keys, in, out).CombinedOutput(); err != nil {
		t.Fatalf("editcap: %v: %s", err, b)
	}
	ng, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t, New(Options{Ports: []uint16{9093}}), ng)
	if err != nil {
		t.Fatal(err)
	}
	checkExchanges(t, got, specs, false)
	if got[0].TLS == nil || got[0].TLS.Encrypted {
		t.Fatalf("TLS %+v", got[0].TLS)
	}
}

// tlsPackets are the packets of one TLS connection from client port
// cport carrying specs' frames, 1448-byte segments, and its key log.
func tlsPackets(t *testing.T, cport uint16, n int, firstCorr int32) ([]synthPacket, []byte, []exchangeSpec) {
	specs, reqs, resps := conversation(n, firstCorr)
	chunks, kl := tlsConversation(t, &tls.Config{MaxVersion: tls.VersionTLS13}, reqs, resps)
	clock := testClock()
	c := newConn(t, linkVariants[0], cport, 9093, &clock)
	pkts := c.handshake()
	for _, ch := range chunks {
		pkts = append(pkts, c.send(ch.fromClient, ch.data, 1448, 1448, 1448)...)
	}
	return append(pkts, c.close()...), kl, specs
}

// TestTLSDamage: a segment lost in the middle of one connection's
// responses, a wrong key line for a second connection, no key for a
// third: the first loses the exchanges the records hit and decrypts the
// rest, the others are one encrypted exchange each, and a fourth, whole,
// decrypts; no panic, nothing framed from ciphertext.
func TestTLSDamage(t *testing.T) {
	lossy, kl1, specs1 := tlsPackets(t, 40001, 30, 1)
	wrong, kl2, _ := tlsPackets(t, 40002, 5, 1)
	nokey, _, _ := tlsPackets(t, 40003, 5, 1)
	whole, kl4, specs4 := tlsPackets(t, 40004, 5, 1)
	// Drop the 20th packet from the broker after the handshake's.
	var kept []synthPacket
	fromBroker := 0
	for _, p := range lossy {
		if bytes.Contains(p.data[:40], []byte{0x23, 0x85}) && len(p.data) > 100 { // source port 9093
			fromBroker++
			if fromBroker == 20 {
				continue
			}
		}
		kept = append(kept, p)
	}
	if len(kept) != len(lossy)-1 {
		t.Fatal("no packet dropped")
	}
	// A wrong secret: the last hex digit of each line changed.
	bad := bytes.Split(bytes.Clone(kl2), []byte("\n"))
	for _, l := range bad {
		if len(l) > 0 {
			l[len(l)-1] = map[bool]byte{true: '0', false: '1'}[l[len(l)-1] != '0']
		}
	}
	keys := keyLog(t, bytes.Join([][]byte{kl1, bytes.Join(bad, []byte("\n")), kl4}, []byte("\n")))
	var all []synthPacket
	for _, ps := range [][]synthPacket{kept, wrong, nokey, whole} {
		all = append(all, ps...)
	}
	d := New(Options{Ports: []uint16{9093}, TLSKeys: keys})
	got, err := readAll(t, d, writePcap(t, linkVariants[0].link, all))
	if err != nil {
		t.Fatal(err)
	}
	by := map[int][]*Exchange{}
	for _, e := range got {
		by[e.Stream] = append(by[e.Stream], e)
	}
	// The lossy connection: every exchange is one of those sent, the
	// ones whose bytes were lost have notes.
	ok, noted := 0, 0
	for _, e := range by[0] {
		if e.TLS == nil || e.TLS.Encrypted {
			t.Fatalf("stream 0: %s", describe(e))
		}
		if len(e.Notes) > 0 {
			noted++
			continue
		}
		w := specs1[e.CorrelationID-1]
		if e.Request == nil || !bytes.Equal(e.Request.Bytes, w.req) || e.Response == nil || !bytes.Equal(e.Response.Bytes, w.resp) {
			t.Fatalf("stream 0: %s differs from what was sent", describe(e))
		}
		ok++
	}
	if noted == 0 || ok < 25 {
		t.Errorf("stream 0: %d exchanges whole, %d with notes", ok, noted)
	}
	for _, s := range []int{1, 2} {
		if len(by[s]) != 1 || !by[s][0].TLS.Encrypted {
			t.Fatalf("stream %d: %d exchanges", s, len(by[s]))
		}
	}
	if n := strings.Join(NoteTexts(by[1][0].Notes), "; "); !strings.Contains(n, "does not decrypt") {
		t.Errorf("stream 1 notes %q", n)
	}
	if n := strings.Join(NoteTexts(by[2][0].Notes), "; "); !strings.Contains(n, "give --tls-keylog") {
		t.Errorf("stream 2 notes %q", n)
	}
	checkExchanges(t, by[3], specs4, false)
	if st := d.Stats(); st.TLSConnections != 4 || st.TLSEncrypted != 2 {
		t.Errorf("stats: %d TLS, %d encrypted", st.TLSConnections, st.TLSEncrypted)
	}
}

// TestTLSAnyPort: with AnyPort a TLS connection on a port not given is
// found by its ClientHello, and decrypted.
func TestTLSAnyPort(t *testing.T) {
	capture, kl, specs := tlsCapture(t, &tls.Config{MaxVersion: tls.VersionTLS13}, 5, 18093)
	got, err := readAll(t, New(Options{AnyPort: true, TLSKeys: keyLog(t, kl)}), capture)
	if err != nil {
		t.Fatal(err)
	}
	checkExchanges(t, got, specs, false)
}
