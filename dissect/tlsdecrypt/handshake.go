package tlsdecrypt

import "encoding/binary"

// Handshake message types read.
const (
	hsClientHello = 1
	hsServerHello = 2
	hsFinished    = 20
	hsKeyUpdate   = 24
)

// IsClientHello reports whether b, the first bytes a client sent on a
// connection, start a TLS handshake record carrying a ClientHello:
// 0x16 0x03 0x0X, a record length, handshake type 1. It needs 6 bytes.
func IsClientHello(b []byte) bool {
	return len(b) >= 6 && b[0] == recHandshake && b[1] == 3 && b[2] <= 4 &&
		binary.BigEndian.Uint16(b[3:5]) > 0 && b[5] == hsClientHello
}

// helloRetry is the ServerHello.random of a HelloRetryRequest (RFC 8446 4.1.3).
var helloRetry = [32]byte{
	0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11, 0xbe, 0x1d, 0x8c, 0x02, 0x1e, 0x65, 0xb8, 0x91,
	0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb, 0x8c, 0x5e, 0x07, 0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c,
}

// reader reads TLS vectors; it stops (ok false) at the first overrun.
type reader struct {
	b  []byte
	ok bool
}

func (r *reader) next(n int) []byte {
	if !r.ok || n > len(r.b) {
		r.ok = false
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) u8() int {
	if v := r.next(1); v != nil {
		return int(v[0])
	}
	return 0
}

func (r *reader) u16() int {
	if v := r.next(2); v != nil {
		return int(binary.BigEndian.Uint16(v))
	}
	return 0
}

func (r *reader) vec8() []byte  { return r.next(r.u8()) }
func (r *reader) vec16() []byte { return r.next(r.u16()) }

// hello is what a ClientHello or ServerHello says.
type hello struct {
	random  [32]byte
	version uint16 // legacy_version, or supported_versions' choice (ServerHello)
	suite   uint16 // ServerHello
	sni     string // ClientHello
}

// parseHello reads a ClientHello or ServerHello body (after the 4-byte
// handshake header).
func parseHello(typ byte, body []byte) (hello, bool) {
	var h hello
	r := reader{b: body, ok: true}
	h.version = uint16(r.u16())
	copy(h.random[:], r.next(32))
	r.vec8() // legacy_session_id
	if typ == hsClientHello {
		r.vec16() // cipher_suites
		r.vec8()  // compression methods
	} else {
		h.suite = uint16(r.u16())
		r.u8() // compression method
	}
	if !r.ok {
		return h, false
	}
	if len(r.b) == 0 {
		return h, true // no extensions
	}
	ext := reader{b: r.vec16(), ok: r.ok}
	for ext.ok && len(ext.b) > 0 {
		typ16 := ext.u16()
		data := reader{b: ext.vec16(), ok: ext.ok}
		switch {
		case typ16 == 0 && typ == hsClientHello: // server_name
			list := reader{b: data.vec16(), ok: data.ok}
			for list.ok && len(list.b) > 0 {
				kind := list.u8()
				name := list.vec16()
				if kind == 0 && list.ok {
					h.sni = string(name)
					break
				}
			}
		case typ16 == 43 && typ == hsServerHello: // supported_versions
			if v := data.u16(); data.ok {
				h.version = uint16(v)
			}
		}
	}
	return h, true
}
