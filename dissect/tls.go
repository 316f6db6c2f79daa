package dissect

import (
	"fmt"
	"strings"
	"time"

	"github.com/kdissect/kdissect/dissect/tlsdecrypt"
)

// TLSInfo says what the TLS handshake of an exchange's connection
// negotiated.
type TLSInfo struct {
	Version string // "1.2", "1.3"
	Cipher  string // the cipher suite as IANA names it: TLS_AES_128_GCM_SHA256
	SNI     string // the server name the client asked for; "" when none
	// Encrypted says the connection was not decrypted (no keys, a
	// cipher suite not supported, a wrong key): the exchange stands for
	// the whole connection, with a note, and carries no frame.
	Encrypted bool
	// Time is the capture time of the ClientHello.
	Time time.Time
}

// tlsConn is the TLS layer of a connection whose client opened with a
// ClientHello: reassembled bytes go through it, and its plaintext to the
// framers.
type tlsConn struct {
	c     *conn
	dec   *tlsdecrypt.Conn
	cause HoleCause // of the hole being handed over
	info  *TLSInfo  // once the ServerHello was read
	hello time.Time
	shown bool // the connection's encrypted exchange was emitted
	plain bool // some plaintext came
	notes []Note
}

// maybeTLS starts the TLS layer when the client's first bytes are a
// ClientHello, and reports whether it did. Called once per connection,
// at its first bytes.
func (c *conn) maybeTLS(dir frameDir, data []byte, ref pktRef) bool {
	if dir != toBroker || !tlsdecrypt.IsClientHello(data) {
		return false
	}
	t := &tlsConn{c: c, hello: captureTime(ref.time)}
	t.dec = tlsdecrypt.NewConn(c.s.tlsKeys, t)
	c.tls = t
	c.s.d.stats.TLSConnections++
	return true
}

// feed hands TLS bytes of the connection to the decrypter.
func (t *tlsConn) feed(dir frameDir, data []byte) {
	t.dec.Feed(tlsdecrypt.Dir(dir), data)
	t.check()
}

// hole hands a hole of the TLS stream to the decrypter.
func (t *tlsConn) hole(dir frameDir, n int64, cause HoleCause) {
	t.cause = cause
	t.dec.Hole(tlsdecrypt.Dir(dir), n)
	t.check()
}

// tlsInfo returns what the handshake negotiated, nil before the
// ServerHello.
func (t *tlsConn) tlsInfo() *TLSInfo {
	if t.info == nil {
		in := t.dec.Info()
		if !in.ServerHello {
			return nil
		}
		t.info = &TLSInfo{Version: in.VersionName(), Cipher: in.SuiteName(), SNI: in.SNI, Time: t.hello}
	}
	return t.info
}

// check emits the connection's encrypted exchange once it is sure that
// nothing of it will be decrypted.
func (t *tlsConn) check() {
	if t.shown || t.plain || len(t.notes) == 0 {
		return
	}
	in := t.dec.Info()
	if in.Decrypted > 0 {
		return
	}
	t.encrypted()
}

// encrypted emits the exchange that stands for a connection not decrypted.
func (t *tlsConn) encrypted() {
	if t.shown {
		return
	}
	t.shown = true
	c := t.c
	c.s.d.stats.TLSEncrypted++
	info := TLSInfo{Time: t.hello, Encrypted: true}
	if p := t.tlsInfo(); p != nil {
		info = *p
		info.Encrypted = true
	}
	ex := c.newExchange()
	ex.CorrelationID = -1
	ex.TLS = &info
	what := []string{"TLS"}
	if info.Version != "" {
		what = append(what, info.Version, info.Cipher)
	}
	if info.SNI != "" {
		what = append(what, "SNI "+info.SNI)
	}
	hint := "give --tls-keylog"
	if !t.dec.Info().NoKeys && len(t.notes) > 0 {
		hint = "not decrypted"
	}
	ex.AddNote(NoteEncrypted, fmt.Sprintf("encrypted (%s): %s", strings.Join(what, " "), hint))
	ex.Notes = append(ex.Notes, t.notes...)
	c.s.ord.add(ex, orderKey{c.s.loc.ref.index, c.stream, -1}, nil, true)
}

// Plaintext takes decrypted application data (tlsdecrypt.Handler).
func (t *tlsConn) Plaintext(d tlsdecrypt.Dir, b []byte) {
	t.plain = true
	if fr := t.c.fr[d]; fr != nil {
		fr.feed(b, &t.c.s.loc)
	}
}

// Lost takes application data lost with records not captured.
func (t *tlsConn) Lost(d tlsdecrypt.Dir, n int64) {
	if fr := t.c.fr[d]; fr != nil && n > 0 {
		fr.hole(n, t.cause)
	}
}

// Note takes a decryption problem: on the connection's encrypted
// exchange when nothing was decrypted, else for Stats.
func (t *tlsConn) Note(d tlsdecrypt.Dir, msg string) {
	msg = fmt.Sprintf("TLS %s→: %s", d, msg)
	if !t.plain && !t.shown {
		t.notes = append(t.notes, NewNote(NoteTLSProblem, msg))
		return
	}
	c := t.c
	c.s.problem(fmt.Sprintf("stream %d (%v → %v): %s", c.stream, c.client, c.broker, msg))
}

// finish ends the TLS layer with the connection: a connection that
// decrypted nothing (it ended in the handshake) still gets its exchange.
// One whose encrypted handshake records decrypted, with no note, and that
// then closed with no application data (kafka-python's first
// connection) carried nothing, and shows nothing, as in plaintext.
func (t *tlsConn) finish() {
	t.dec.Close()
	if !t.plain && (t.dec.Info().Decrypted == 0 || len(t.notes) > 0) {
		t.encrypted()
	}
}

// addTLSKeys adds a source of TLS secrets to the session's: those a
// capture file embeds (pcapng Decryption Secrets Blocks).
func (s *Session) addTLSKeys(k tlsdecrypt.KeySource) {
	if s.tlsKeys == nil {
		s.tlsKeys = k
		return
	}
	s.tlsKeys = tlsdecrypt.Sources{s.tlsKeys, k}
}
