// Package tlsdecrypt decrypts captured TLS 1.2 and 1.3 connections given
// their session secrets in the NSS key log format (SSLKEYLOGFILE): the TLS
// record layer of each direction, reassembled across TCP segments, the
// ClientHello and ServerHello read for the randoms, version, cipher suite
// and server name, the traffic keys derived (TLS 1.2 PRF, TLS 1.3
// HKDF-Expand-Label) and the AEAD records opened (AES-128/256-GCM,
// ChaCha20-Poly1305). Lost ciphertext becomes lost plaintext of a known
// length: record sequence numbers are counted, so the records after a
// loss still decrypt.
package tlsdecrypt

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"sync"
)

// Secrets are the session secrets a key log holds for one client random.
// TLS 1.2 needs Master; TLS 1.3 the four traffic secrets.
type Secrets struct {
	Master          []byte // CLIENT_RANDOM: the 48-byte master secret
	ClientHandshake []byte // CLIENT_HANDSHAKE_TRAFFIC_SECRET
	ServerHandshake []byte // SERVER_HANDSHAKE_TRAFFIC_SECRET
	ClientTraffic   []byte // CLIENT_TRAFFIC_SECRET_0
	ServerTraffic   []byte // SERVER_TRAFFIC_SECRET_0
}

// Complete reports whether s holds what a connection needs: the master
// secret (TLS 1.2), or both application traffic secrets (TLS 1.3; the
// handshake secrets only open the handshake). A client appends the lines
// of one connection one by one, so a source read while it writes may
// hold some of them only.
func (s Secrets) Complete() bool {
	return s.Master != nil || s.ClientTraffic != nil && s.ServerTraffic != nil
}

// KeySource gives the secrets of the connection whose ClientHello carried
// clientRandom. It is asked when a connection's first encrypted record
// arrives, and again at its next records while the secrets it gave are
// not Complete, so a source can learn keys while a capture runs.
type KeySource interface {
	Lookup(clientRandom [32]byte) (Secrets, bool)
}

// KeyLog is a KeySource read from NSS key log lines. It is safe for
// concurrent use: one goroutine may add lines while another looks up.
type KeyLog struct {
	mu        sync.RWMutex
	m         map[[32]byte]*Secrets
	lines     int
	malformed int
}

// NewKeyLog returns an empty key log.
func NewKeyLog() *KeyLog { return &KeyLog{m: make(map[[32]byte]*Secrets)} }

// Read adds the lines of r. Malformed lines are counted (Malformed), never
// fatal; the error is r's.
func (k *KeyLog) Read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		k.AddLine(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading key log: %w", err)
	}
	return nil
}

// AddLine adds one key log line: LABEL <client random, 64 hex digits>
// <secret, hex>. Empty lines, comments (#) and unknown labels are ignored;
// it reports whether the line was malformed.
func (k *KeyLog) AddLine(line []byte) (malformed bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] == '#' {
		return false
	}
	f := bytes.Fields(line)
	k.mu.Lock()
	defer k.mu.Unlock()
	k.lines++
	if len(f) != 3 {
		k.malformed++
		return true
	}
	var slot func(*Secrets) *[]byte
	switch string(f[0]) {
	case "CLIENT_RANDOM":
		slot = func(s *Secrets) *[]byte { return &s.Master }
	case "CLIENT_HANDSHAKE_TRAFFIC_SECRET":
		slot = func(s *Secrets) *[]byte { return &s.ClientHandshake }
	case "SERVER_HANDSHAKE_TRAFFIC_SECRET":
		slot = func(s *Secrets) *[]byte { return &s.ServerHandshake }
	case "CLIENT_TRAFFIC_SECRET_0":
		slot = func(s *Secrets) *[]byte { return &s.ClientTraffic }
	case "SERVER_TRAFFIC_SECRET_0":
		slot = func(s *Secrets) *[]byte { return &s.ServerTraffic }
	default:
		return false // EXPORTER_SECRET, CLIENT_EARLY_TRAFFIC_SECRET, RSA, ...: not needed
	}
	var cr [32]byte
	if hex.DecodedLen(len(f[1])) != 32 {
		k.malformed++
		return true
	}
	secret := make([]byte, hex.DecodedLen(len(f[2])))
	if _, err := hex.Decode(cr[:], f[1]); err != nil {
		k.malformed++
		return true
	}
	if _, err := hex.Decode(secret, f[2]); err != nil || len(secret) == 0 ||
		string(f[0]) == "CLIENT_RANDOM" && len(secret) != 48 {
		k.malformed++
		return true
	}
	s := k.m[cr]
	if s == nil {
		s = &Secrets{}
		k.m[cr] = s
	}
	*slot(s) = secret
	return false
}

// Lookup returns the secrets logged for clientRandom (KeySource).
func (k *KeyLog) Lookup(clientRandom [32]byte) (Secrets, bool) {
	k.mu.RLock()
	defer k.mu.RUnlock()
	s, ok := k.m[clientRandom]
	if !ok {
		return Secrets{}, false
	}
	return *s, true
}

// Len returns how many client randoms have secrets.
func (k *KeyLog) Len() int {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return len(k.m)
}

// Malformed returns how many lines were malformed, of Lines read (comments
// and empty lines not counted).
func (k *KeyLog) Malformed() (malformed, lines int) {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return k.malformed, k.lines
}

// Sources is a KeySource that asks each of its sources in turn.
type Sources []KeySource

// Lookup returns the first source's Complete secrets for clientRandom,
// else the first source's incomplete ones.
func (ss Sources) Lookup(clientRandom [32]byte) (Secrets, bool) {
	var some Secrets
	found := false
	for _, s := range ss {
		sec, ok := s.Lookup(clientRandom)
		if ok && sec.Complete() {
			return sec, true
		}
		if ok && !found {
			some, found = sec, true
		}
	}
	return some, found
}
