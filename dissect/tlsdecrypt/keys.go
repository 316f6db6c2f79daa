package tlsdecrypt

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"hash"

	"golang.org/x/crypto/chacha20poly1305"
)

// suite is what decryption needs of a cipher suite.
type suite struct {
	id      uint16
	tls13   bool
	keyLen  int
	chacha  bool             // ChaCha20-Poly1305, else AES-GCM
	hash    func() hash.Hash // the PRF's (1.2) or HKDF's (1.3)
	hashLen int
}

// suites are the AEAD suites decrypted; others are noted as unsupported.
var suites = map[uint16]suite{
	0x1301: {id: 0x1301, tls13: true, keyLen: 16, hash: sha256.New, hashLen: 32},               // TLS_AES_128_GCM_SHA256
	0x1302: {id: 0x1302, tls13: true, keyLen: 32, hash: sha512.New384, hashLen: 48},            // TLS_AES_256_GCM_SHA384
	0x1303: {id: 0x1303, tls13: true, keyLen: 32, chacha: true, hash: sha256.New, hashLen: 32}, // TLS_CHACHA20_POLY1305_SHA256
	0xc02f: {id: 0xc02f, keyLen: 16, hash: sha256.New, hashLen: 32},                            // ECDHE_RSA AES_128_GCM_SHA256
	0xc030: {id: 0xc030, keyLen: 32, hash: sha512.New384, hashLen: 48},                         // ECDHE_RSA AES_256_GCM_SHA384
	0xc02b: {id: 0xc02b, keyLen: 16, hash: sha256.New, hashLen: 32},                            // ECDHE_ECDSA AES_128_GCM_SHA256
	0xc02c: {id: 0xc02c, keyLen: 32, hash: sha512.New384, hashLen: 48},                         // ECDHE_ECDSA AES_256_GCM_SHA384
	0xcca8: {id: 0xcca8, keyLen: 32, chacha: true, hash: sha256.New, hashLen: 32},              // ECDHE_RSA CHACHA20_POLY1305
	0xcca9: {id: 0xcca9, keyLen: 32, chacha: true, hash: sha256.New, hashLen: 32},              // ECDHE_ECDSA CHACHA20_POLY1305
	0xccaa: {id: 0xccaa, keyLen: 32, chacha: true, hash: sha256.New, hashLen: 32},              // DHE_RSA CHACHA20_POLY1305
	0x009c: {id: 0x009c, keyLen: 16, hash: sha256.New, hashLen: 32},                            // RSA AES_128_GCM_SHA256
	0x009d: {id: 0x009d, keyLen: 32, hash: sha512.New384, hashLen: 48},                         // RSA AES_256_GCM_SHA384
	0x009e: {id: 0x009e, keyLen: 16, hash: sha256.New, hashLen: 32},                            // DHE_RSA AES_128_GCM_SHA256
	0x009f: {id: 0x009f, keyLen: 32, hash: sha512.New384, hashLen: 48},                         // DHE_RSA AES_256_GCM_SHA384
}

// SuiteName returns the IANA name of a cipher suite, or 0xXXXX.
func SuiteName(id uint16) string { return tls.CipherSuiteName(id) }

// VersionName returns "1.0" .. "1.3" for a TLS protocol version, or 0xXXXX.
func VersionName(v uint16) string {
	switch v {
	case 0x0301, 0x0302, 0x0303, 0x0304:
		return fmt.Sprintf("1.%d", v-0x0301)
	case 0:
		return ""
	}
	return fmt.Sprintf("0x%04X", v)
}

// overhead is the ciphertext bytes a record adds to its plaintext, beside
// its 5-byte header: the explicit nonce (TLS 1.2 GCM), the tag, and the
// inner content type (TLS 1.3; padding assumed absent, as senders do).
func (s suite) overhead() int {
	switch {
	case s.tls13:
		return 16 + 1
	case s.chacha:
		return 16
	}
	return 8 + 16
}

// direction keys: an AEAD and its fixed IV (TLS 1.2 GCM: the 4-byte salt;
// otherwise the 12 bytes XORed with the sequence number).
type dirKeys struct {
	aead cipher.AEAD
	iv   []byte
}

func newAEAD(s suite, key []byte) (cipher.AEAD, error) {
	if s.chacha {
		return chacha20poly1305.New(key)
	}
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(b)
}

// prf12 is the TLS 1.2 PRF (RFC 5246 section 5): P_hash(secret, label+seed).
func prf12(h func() hash.Hash, secret []byte, label string, seed []byte, n int) []byte {
	ls := append([]byte(label), seed...)
	mac := hmac.New(h, secret)
	mac.Write(ls)
	a := mac.Sum(nil)
	out := make([]byte, 0, n+mac.Size())
	for len(out) < n {
		mac.Reset()
		mac.Write(a)
		mac.Write(ls)
		out = mac.Sum(out)
		mac.Reset()
		mac.Write(a)
		a = mac.Sum(a[:0])
	}
	return out[:n]
}

// keys12 derives both directions' keys of a TLS 1.2 AEAD suite from the
// master secret (RFC 5246 6.3, RFC 5288, RFC 7905): key_block =
// PRF(master, "key expansion", server_random + client_random).
func keys12(s suite, master []byte, clientRandom, serverRandom [32]byte) (client, server dirKeys, err error) {
	ivLen := 4
	if s.chacha {
		ivLen = 12
	}
	seed := append(append([]byte(nil), serverRandom[:]...), clientRandom[:]...)
	kb := prf12(s.hash, master, "key expansion", seed, 2*s.keyLen+2*ivLen)
	ck, sk := kb[:s.keyLen], kb[s.keyLen:2*s.keyLen]
	civ, siv := kb[2*s.keyLen:2*s.keyLen+ivLen], kb[2*s.keyLen+ivLen:]
	if client.aead, err = newAEAD(s, ck); err != nil {
		return
	}
	if server.aead, err = newAEAD(s, sk); err != nil {
		return
	}
	client.iv, server.iv = civ, siv
	return
}

// expandLabel is TLS 1.3's HKDF-Expand-Label (RFC 8446 7.1) with an empty
// context.
func expandLabel(h func() hash.Hash, secret []byte, label string, n int) ([]byte, error) {
	full := "tls13 " + label
	info := make([]byte, 0, 4+len(full))
	info = binary.BigEndian.AppendUint16(info, uint16(n))
	info = append(info, byte(len(full)))
	info = append(info, full...)
	info = append(info, 0) // context: empty
	return hkdf.Expand(h, secret, string(info), n)
}

// keys13 derives the record keys of a TLS 1.3 traffic secret (RFC 8446 7.3).
func keys13(s suite, secret []byte) (dirKeys, error) {
	key, err := expandLabel(s.hash, secret, "key", s.keyLen)
	if err != nil {
		return dirKeys{}, err
	}
	iv, err := expandLabel(s.hash, secret, "iv", 12)
	if err != nil {
		return dirKeys{}, err
	}
	a, err := newAEAD(s, key)
	return dirKeys{aead: a, iv: iv}, err
}

// nextSecret is the traffic secret after a KeyUpdate (RFC 8446 7.2).
func nextSecret(s suite, secret []byte) ([]byte, error) {
	return expandLabel(s.hash, secret, "traffic upd", s.hashLen)
}

// nonce writes into dst the per-record nonce: the IV XOR the sequence
// number (TLS 1.3, TLS 1.2 ChaCha20), or salt + explicit nonce (TLS 1.2 GCM).
func (k *dirKeys) nonce(dst *[12]byte, seq uint64, explicit []byte) []byte {
	if len(k.iv) == 4 {
		copy(dst[:4], k.iv)
		copy(dst[4:], explicit)
		return dst[:]
	}
	copy(dst[:], k.iv)
	var s [8]byte
	binary.BigEndian.PutUint64(s[:], seq)
	for i := range s {
		dst[4+i] ^= s[i]
	}
	return dst[:]
}
