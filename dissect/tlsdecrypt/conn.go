package tlsdecrypt

import (
	"encoding/binary"
	"fmt"
)

// Dir is the direction of a connection's bytes.
type Dir uint8

const (
	ClientToServer Dir = iota
	ServerToClient
)

func (d Dir) String() string {
	if d == ClientToServer {
		return "client"
	}
	return "server"
}

// TLS record content types.
const (
	recChangeCipherSpec = 20
	recAlert            = 21
	recHandshake        = 22
	recApplicationData  = 23
)

const (
	// maxRecord is the largest record body accepted: 2^14 plus the
	// expansion RFC 5246 allows (2048); TLS 1.3 allows only 256 of it.
	maxRecord = 1<<14 + 2048
	// maxHandshake bounds a handshake message collected across records
	// (a certificate chain is the largest).
	maxHandshake = 1 << 20
	// maxSeqTries bounds the sequence numbers tried on a record found
	// after a loss that swallowed record headers: each try is one AEAD
	// open of the record.
	maxSeqTries = 64
)

// Handler receives what a Conn decrypts. The slices are only valid during
// the call.
type Handler interface {
	// Plaintext takes application data, in stream order.
	Plaintext(dir Dir, b []byte)
	// Lost says n bytes of application data were lost at this point of
	// the plaintext stream: records the capture lacks.
	Lost(dir Dir, n int64)
	// Note takes a problem: a record that does not decrypt, keys
	// missing, a loss that could not be stepped over.
	Note(dir Dir, msg string)
}

// Info is what a connection's handshake said and how decryption went.
type Info struct {
	ClientRandom [32]byte
	SNI          string
	Version      uint16 // negotiated: 0x0303 is TLS 1.2, 0x0304 TLS 1.3; 0 before the ServerHello
	Suite        uint16 // negotiated cipher suite
	ClientHello  bool   // a ClientHello was read
	ServerHello  bool   // a ServerHello was read
	NoKeys       bool   // encrypted records came, and the key source had no secrets for the connection
	Records      int64  // records read, both directions
	Decrypted    int64  // records decrypted
	LostRecords  int64  // records stepped over after losses
}

// VersionName is Info.Version as "1.2" or "1.3".
func (i *Info) VersionName() string { return VersionName(i.Version) }

// SuiteName is Info.Suite as IANA names it, "" before a ServerHello.
func (i *Info) SuiteName() string {
	if !i.ServerHello {
		return ""
	}
	return SuiteName(i.Suite)
}

type halfMode uint8

const (
	modeNormal   halfMode = iota
	modeSkipping          // stepping to the end of a record a loss hit
	modeScanning          // looking for the next record header after a loss
	modeDead              // nothing more is decrypted in the direction
)

// half is the record layer state of one direction.
type half struct {
	dir  Dir
	mode halfMode
	pos  int64 // stream offset of the next byte fed

	hdr      [5]byte
	nhdr     int
	rec      []byte // the body of the record being collected
	recLen   int
	recStart int64

	hs  []byte // handshake bytes short of a whole message
	ccs bool   // TLS 1.2: a ChangeCipherSpec was read, records are encrypted

	keyed  bool
	keys   dirKeys
	secret []byte // TLS 1.3: the current traffic secret
	app    bool   // TLS 1.3: application traffic keys (after Finished)
	seq    uint64

	// Loss recovery: the stream offset of the first record lost, the
	// sequence number it had, the record end to skip to (modeSkipping),
	// and the bytes after the loss (modeScanning).
	lostFrom int64
	lostSeq  uint64
	skipTo   int64
	scan     []byte
	scanPos  int64
	scanAt   int
}

// Conn decrypts one TCP connection's TLS streams. Feed it each
// direction's bytes in stream order, and Hole for bytes the capture lost.
// It is not safe for concurrent use.
type Conn struct {
	keys  KeySource
	h     Handler
	info  Info
	sr    [32]byte // server random
	su    suite
	suOK  bool
	tls13 bool

	looked  bool
	secrets Secrets
	half    [2]half
	scratch []byte // decrypted record
	// Encrypted records that came before their keys did (a client logs
	// its secrets after the server's first flight has crossed): each is
	// its direction, header and body; held counts their bytes.
	hold []held
	held int
}

// held is an encrypted record kept until the keys come.
type held struct {
	dir Dir
	rec []byte // header and body
}

// maxHeld bounds the encrypted bytes held while a connection's keys are
// not known; past it, the connection is taken to have none.
const maxHeld = 1 << 20

// NewConn returns a Conn that looks its secrets up in keys (nil: none)
// and hands what it decrypts to h.
func NewConn(keys KeySource, h Handler) *Conn {
	c := &Conn{keys: keys, h: h}
	c.half[0].dir, c.half[1].dir = ClientToServer, ServerToClient
	return c
}

// Info returns what the handshake said and how decryption went.
func (c *Conn) Info() Info { return c.info }

// Feed takes the next bytes of direction dir.
func (c *Conn) Feed(dir Dir, b []byte) {
	hf := &c.half[dir&1]
	for len(b) > 0 {
		switch hf.mode {
		case modeDead:
			hf.pos += int64(len(b))
			return
		case modeSkipping:
			n := int(min(int64(len(b)), hf.skipTo-hf.pos))
			hf.pos += int64(n)
			b = b[n:]
			if hf.pos == hf.skipTo {
				c.skipped(hf)
			}
		case modeScanning:
			hf.scan = append(hf.scan, b...)
			hf.pos += int64(len(b))
			c.rescan(hf)
			return
		default:
			if hf.nhdr < 5 {
				n := copy(hf.hdr[hf.nhdr:], b)
				hf.nhdr += n
				hf.pos += int64(n)
				b = b[n:]
				if hf.nhdr < 5 {
					return
				}
				hf.recStart = hf.pos - 5
				hf.recLen = int(binary.BigEndian.Uint16(hf.hdr[3:]))
				if !plausibleHeader(hf.hdr[:], false) {
					c.die(hf, fmt.Sprintf("bytes at offset %d are not a TLS record", hf.recStart))
					continue
				}
				hf.rec = hf.rec[:0]
			}
			n := min(len(b), hf.recLen-len(hf.rec))
			hf.rec = append(hf.rec, b[:n]...)
			hf.pos += int64(n)
			b = b[n:]
			if len(hf.rec) == hf.recLen {
				hf.nhdr = 0
				c.record(hf, hf.hdr[0], hf.rec)
			}
		}
	}
}

// plausibleHeader reports whether h is a TLS record header; encrypted
// says it must be one of an encrypted record.
func plausibleHeader(h []byte, encrypted bool) bool {
	n := int(binary.BigEndian.Uint16(h[3:]))
	if h[1] != 3 || n > maxRecord {
		return false
	}
	if encrypted {
		return h[2] == 3 && h[0] >= recAlert && h[0] <= recApplicationData && n > 0
	}
	return h[0] >= recChangeCipherSpec && h[0] <= recApplicationData
}

// die ends decryption in direction hf with a note.
func (c *Conn) die(hf *half, msg string) {
	if hf.mode != modeDead {
		hf.mode = modeDead
		hf.scan, hf.rec = nil, nil
		c.h.Note(hf.dir, msg)
	}
}

// encrypted reports whether a record of type typ in direction hf is
// encrypted.
func (c *Conn) encrypted(hf *half, typ byte) bool {
	if c.tls13 {
		return typ == recApplicationData
	}
	return hf.ccs
}

// record handles a whole record.
func (c *Conn) record(hf *half, typ byte, body []byte) {
	c.info.Records++
	if !c.encrypted(hf, typ) {
		switch typ {
		case recHandshake:
			c.handshake(hf, body)
		case recChangeCipherSpec:
			if c.info.ServerHello && !c.tls13 {
				hf.ccs = true
			}
		case recAlert:
			if len(body) >= 2 && body[0] == 2 {
				c.h.Note(hf.dir, fmt.Sprintf("TLS alert %d (fatal) before encryption", body[1]))
			}
		case recApplicationData:
			c.die(hf, "application data before the handshake set keys")
		}
		return
	}
	if !c.ready(hf) {
		if !c.looked && !c.info.NoKeys && hf.mode != modeDead {
			c.holdRecord(hf, body)
		}
		return
	}
	pt, inner, ok := c.open(hf, &hf.keys, hf.hdr, body, hf.seq)
	if !ok && c.tls13 && !hf.app && c.toApp(hf) {
		// The handshake keys do not open it: the Finished was not seen
		// (or no handshake secrets were logged); try the next keys.
		pt, inner, ok = c.open(hf, &hf.keys, hf.hdr, body, hf.seq)
	}
	if !ok {
		c.die(hf, fmt.Sprintf("record %d does not decrypt: wrong key in the key log?", hf.seq))
		return
	}
	hf.seq++
	c.info.Decrypted++
	switch inner {
	case recApplicationData:
		if len(pt) > 0 {
			c.h.Plaintext(hf.dir, pt)
		}
	case recHandshake:
		c.handshake(hf, pt)
	case recAlert:
		if len(pt) >= 2 && pt[0] == 2 {
			c.h.Note(hf.dir, fmt.Sprintf("TLS alert %d (fatal)", pt[1]))
		}
	}
}

// ready makes sure direction hf has keys, looking them up at the first
// encrypted record, and reports whether it has.
func (c *Conn) ready(hf *half) bool {
	if hf.keyed {
		return true
	}
	if !c.suOK {
		c.die(hf, fmt.Sprintf("cipher suite %s not decrypted (only the AEAD suites are)", c.info.SuiteName()))
		return false
	}
	if !c.looked && !c.info.NoKeys {
		var s Secrets
		ok := false
		if c.keys != nil && c.info.ClientHello {
			s, ok = c.keys.Lookup(c.info.ClientRandom)
		}
		full := c.held+len(c.hold) > maxHeld
		switch {
		case ok && (s.Complete() || full):
			c.secrets, c.looked = s, true
			c.replay()
			// The records held of this direction set its keys (and
			// sequence number) already, or ended it.
			if hf.keyed || hf.mode == modeDead {
				return hf.keyed && hf.mode != modeDead
			}
		case c.keys == nil || !c.info.ClientHello || full:
			c.info.NoKeys = true
		default:
			return false // held (see hold): the keys, or the rest of them, may come later
		}
	}
	if c.info.NoKeys {
		c.noKeys()
		return false
	}
	var err error
	if c.tls13 {
		sec := c.secrets.ClientHandshake
		if hf.dir == ServerToClient {
			sec = c.secrets.ServerHandshake
		}
		if sec == nil {
			return c.toApp(hf)
		}
		hf.secret = sec
		hf.keys, err = keys13(c.su, sec)
	} else {
		if c.secrets.Master == nil {
			c.die(hf, "encrypted: the key log has no CLIENT_RANDOM line for this TLS 1.2 connection")
			return false
		}
		var cl, sv dirKeys
		cl, sv, err = keys12(c.su, c.secrets.Master, c.info.ClientRandom, c.sr)
		hf.keys = cl
		if hf.dir == ServerToClient {
			hf.keys = sv
		}
	}
	if err != nil {
		c.die(hf, fmt.Sprintf("deriving keys: %v", err))
		return false
	}
	hf.keyed = true
	return true
}

// toApp switches a TLS 1.3 direction to its application traffic keys,
// and reports whether it could.
func (c *Conn) toApp(hf *half) bool {
	sec := c.secrets.ClientTraffic
	if hf.dir == ServerToClient {
		sec = c.secrets.ServerTraffic
	}
	if sec == nil {
		c.die(hf, "encrypted: the key log has no traffic secret for this direction")
		return false
	}
	return c.rekey(hf, sec, true)
}

func (c *Conn) rekey(hf *half, secret []byte, app bool) bool {
	k, err := keys13(c.su, secret)
	if err != nil {
		c.die(hf, fmt.Sprintf("deriving keys: %v", err))
		return false
	}
	hf.keys, hf.secret, hf.app, hf.seq, hf.keyed = k, secret, app, 0, true
	return true
}

// open decrypts a record body with keys k and sequence number seq,
// without touching body; it returns the plaintext and its content type.
func (c *Conn) open(hf *half, k *dirKeys, hdr [5]byte, body []byte, seq uint64) ([]byte, byte, bool) {
	var nonce [12]byte
	if c.tls13 {
		if len(body) < 17 {
			return nil, 0, false
		}
		pt, err := k.aead.Open(c.scratch[:0], k.nonce(&nonce, seq, nil), body, hdr[:])
		if err != nil {
			return nil, 0, false
		}
		c.scratch = pt[:0]
		i := len(pt) - 1
		for i >= 0 && pt[i] == 0 {
			i--
		}
		if i < 0 {
			return nil, 0, false
		}
		return pt[:i], pt[i], true
	}
	var explicit []byte
	ct := body
	if !c.su.chacha {
		if len(body) < 8 {
			return nil, 0, false
		}
		explicit, ct = body[:8], body[8:]
	}
	if len(ct) < 16 {
		return nil, 0, false
	}
	var aad [13]byte
	binary.BigEndian.PutUint64(aad[:], seq)
	aad[8], aad[9], aad[10] = hdr[0], hdr[1], hdr[2]
	binary.BigEndian.PutUint16(aad[11:], uint16(len(ct)-16))
	pt, err := k.aead.Open(c.scratch[:0], k.nonce(&nonce, seq, explicit), ct, aad[:])
	if err != nil {
		return nil, 0, false
	}
	c.scratch = pt[:0]
	return pt, hdr[0], true
}

// handshake takes handshake bytes: messages may span records.
func (c *Conn) handshake(hf *half, b []byte) {
	if len(hf.hs) > 0 {
		hf.hs = append(hf.hs, b...)
		b = hf.hs
	}
	for len(b) >= 4 {
		n := int(b[1])<<16 | int(b[2])<<8 | int(b[3])
		if n > maxHandshake {
			c.die(hf, fmt.Sprintf("handshake message of %d bytes", n))
			return
		}
		if len(b) < 4+n {
			break
		}
		c.message(hf, b[0], b[4:4+n])
		b = b[4+n:]
		if hf.mode == modeDead {
			return
		}
	}
	hf.hs = append(hf.hs[:0], b...)
}

// message handles one handshake message.
func (c *Conn) message(hf *half, typ byte, body []byte) {
	switch {
	case typ == hsClientHello && hf.dir == ClientToServer && !c.info.ClientHello:
		h, ok := parseHello(typ, body)
		if !ok {
			c.h.Note(hf.dir, "malformed ClientHello")
			return
		}
		c.info.ClientHello = true
		c.info.ClientRandom, c.info.SNI = h.random, h.sni
	case typ == hsServerHello && hf.dir == ServerToClient:
		h, ok := parseHello(typ, body)
		if !ok {
			c.h.Note(hf.dir, "malformed ServerHello")
			return
		}
		if h.random == helloRetry {
			return // a HelloRetryRequest: the ServerHello follows the second ClientHello
		}
		c.info.ServerHello = true
		c.sr, c.info.Version, c.info.Suite = h.random, h.version, h.suite
		c.su, c.suOK = suites[h.suite]
		c.tls13 = h.version == 0x0304
		if c.suOK && c.su.tls13 != c.tls13 {
			c.suOK = false
		}
	case typ == hsFinished && c.tls13 && hf.keyed && !hf.app:
		c.toApp(hf)
	case typ == hsKeyUpdate && c.tls13 && hf.app:
		sec, err := nextSecret(c.su, hf.secret)
		if err != nil {
			c.die(hf, fmt.Sprintf("KeyUpdate: %v", err))
			return
		}
		c.rekey(hf, sec, true)
	}
}

// holdRecord keeps an encrypted record of direction hf until the keys come.
func (c *Conn) holdRecord(hf *half, body []byte) {
	r := make([]byte, 0, 5+len(body))
	r = append(append(r, hf.hdr[:]...), body...)
	c.hold = append(c.hold, held{hf.dir, r})
	c.held += len(r)
}

// replay decrypts the records held, now that the keys came.
func (c *Conn) replay() {
	hold := c.hold
	c.hold, c.held = nil, 0
	// The record being read when the keys came has its header in hdr.
	hdrs := [2][5]byte{c.half[0].hdr, c.half[1].hdr}
	defer func() { c.half[0].hdr, c.half[1].hdr = hdrs[0], hdrs[1] }()
	for _, h := range hold {
		hf := &c.half[h.dir]
		if hf.mode != modeNormal {
			continue
		}
		copy(hf.hdr[:], h.rec[:5])
		c.record(hf, h.rec[0], h.rec[5:])
	}
}

// noKeys ends decryption of both directions: the key source has no
// secrets for the connection.
func (c *Conn) noKeys() {
	c.info.NoKeys = true
	c.hold, c.held = nil, 0
	for i := range c.half {
		c.die(&c.half[i], "encrypted: no key for this connection in the key log")
	}
}

// Close ends the connection: records still held for their keys are
// decrypted with the secrets known by now, even some only, or given up,
// the connection taken to have no keys.
func (c *Conn) Close() {
	if len(c.hold) == 0 {
		return
	}
	if c.keys != nil && c.info.ClientHello && !c.info.NoKeys {
		if s, ok := c.keys.Lookup(c.info.ClientRandom); ok {
			c.secrets, c.looked = s, true
			c.replay()
			return
		}
	}
	c.noKeys()
}
