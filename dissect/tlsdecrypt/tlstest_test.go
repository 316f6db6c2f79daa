package tlsdecrypt

import (
	"bytes"
	"crypto/tls"
	"io"
	"net"
	"sync"
	"testing"

	"github.com/kdissect/kdissect/internal/tlstest"
)

// wire records the bytes a server-side net.Conn reads and writes: the
// client's stream and the server's.
type wire struct {
	net.Conn
	mu     sync.Mutex
	c2s    bytes.Buffer
	s2c    bytes.Buffer
	events []event
}

// event is a chunk of one direction, in the order the bytes crossed.
type event struct {
	dir  Dir
	data []byte
}

func (w *wire) Read(b []byte) (int, error) {
	n, err := w.Conn.Read(b)
	w.mu.Lock()
	w.c2s.Write(b[:n])
	if n > 0 {
		w.events = append(w.events, event{ClientToServer, bytes.Clone(b[:n])})
	}
	w.mu.Unlock()
	return n, err
}

func (w *wire) Write(b []byte) (int, error) {
	w.mu.Lock()
	w.s2c.Write(b)
	w.events = append(w.events, event{ServerToClient, bytes.Clone(b)})
	w.mu.Unlock()
	return w.Conn.Write(b)
}

// session is one recorded TLS connection: the wire bytes, the key log,
// and the application bytes each side wrote.
type session struct {
	c2s, s2c   []byte
	events     []event
	keylog     []byte
	sent, recv []byte // client's and server's application data
	state      tls.ConnectionState
}

// reply is what the server answers to a message.
func reply(m []byte) []byte {
	r := make([]byte, len(m)+3)
	for i, b := range m {
		r[i] = b ^ 0x5a
	}
	return r
}

// runSession runs a client and a server of crypto/tls over a pipe: the
// client writes each message (one record each), the server answers each.
func runSession(t testing.TB, client *tls.Config, cert tls.Certificate, msgs [][]byte) *session {
	t.Helper()
	cp, sp := net.Pipe()
	w := &wire{Conn: sp}
	var kl bytes.Buffer
	client = client.Clone()
	client.KeyLogWriter = &kl
	client.InsecureSkipVerify = true
	client.ServerName = "kafka.test"
	srv := tls.Server(w, &tls.Config{Certificates: []tls.Certificate{cert}})
	var s session
	done := make(chan error, 1)
	go func() {
		for _, m := range msgs {
			got := make([]byte, len(m))
			if _, err := io.ReadFull(srv, got); err != nil {
				done <- err
				return
			}
			r := reply(got)
			s.recv = append(s.recv, r...)
			if _, err := srv.Write(r); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	cl := tls.Client(cp, client)
	for _, m := range msgs {
		if _, err := cl.Write(m); err != nil {
			t.Fatal(err)
		}
		s.sent = append(s.sent, m...)
		if _, err := io.ReadFull(cl, make([]byte, len(m)+3)); err != nil {
			t.Fatal(err)
		}
	}
	s.state = cl.ConnectionState()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Close the pipe, not the TLS connections: a close_notify would
	// wait for a reader.
	cp.Close()
	sp.Close()
	w.mu.Lock()
	s.c2s, s.s2c = bytes.Clone(w.c2s.Bytes()), bytes.Clone(w.s2c.Bytes())
	s.events = w.events
	w.mu.Unlock()
	s.keylog = kl.Bytes()
	return &s
}

// messages returns n messages of varied sizes, up to 3 records' worth.
func messages(n int) [][]byte {
	var ms [][]byte
	for i := range n {
		m := make([]byte, 1+(i*7919)%40000)
		for j := range m {
			m[j] = byte(i + j*31)
		}
		ms = append(ms, m)
	}
	return ms
}

// collector is a Handler keeping each direction's plaintext, with zeros
// for bytes lost, and the lost runs.
type collector struct {
	plain [2][]byte
	lost  [2][][2]int64 // offset, length
	notes []string
}

func (c *collector) Plaintext(d Dir, b []byte) { c.plain[d] = append(c.plain[d], b...) }
func (c *collector) Lost(d Dir, n int64) {
	c.lost[d] = append(c.lost[d], [2]int64{int64(len(c.plain[d])), n})
	c.plain[d] = append(c.plain[d], make([]byte, n)...)
}
func (c *collector) Note(d Dir, m string) { c.notes = append(c.notes, d.String()+": "+m) }

// feedChunks feeds b in chunks of varied sizes, as TCP segments would cut it.
func feedChunks(c *Conn, d Dir, b []byte, seed int) {
	for i := 0; len(b) > 0; i++ {
		n := min(len(b), 1+(i*2654435761+seed)%1500)
		c.Feed(d, b[:n])
		b = b[n:]
	}
}

// feedSession feeds a session's bytes in the order they crossed, each
// chunk cut further.
func feedSession(c *Conn, s *session) {
	for i, e := range s.events {
		feedChunks(c, e.dir, e.data, i)
	}
}

func keyLogOf(t testing.TB, b []byte) *KeyLog {
	t.Helper()
	k := NewKeyLog()
	if err := k.Read(bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	if m, _ := k.Malformed(); m != 0 {
		t.Fatalf("%d malformed key log lines", m)
	}
	return k
}

// decryptWhole decrypts a session fed in wire order and fails unless both
// plaintexts come out whole, with no note.
func decryptWhole(t testing.TB, s *session) *Conn {
	t.Helper()
	var col collector
	c := NewConn(keyLogOf(t, s.keylog), &col)
	feedSession(c, s)
	if len(col.notes) > 0 {
		t.Fatalf("notes: %q", col.notes)
	}
	if !bytes.Equal(col.plain[0], s.sent) || !bytes.Equal(col.plain[1], s.recv) {
		t.Fatalf("plaintext: client %d bytes (want %d), server %d (want %d)", len(col.plain[0]), len(s.sent), len(col.plain[1]), len(s.recv))
	}
	return c
}

func selfSigned(t testing.TB, useRSA bool) tls.Certificate { return tlstest.Cert(t, useRSA) }
