package tlsdecrypt

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestKeys13RFC8448 derives the record key and IV of the server handshake
// traffic secret of RFC 8448 section 3 (simple 1-RTT handshake).
func TestKeys13RFC8448(t *testing.T) {
	secret := unhex(t, `b6 7b 7d 69 0c c1 6c 4e 75 e5 42 13 cb 2d 37 b4
		e9 c9 12 bc de d9 10 5d 42 be fd 59 d3 91 ad 38`)
	key, err := expandLabel(sha256.New, secret, "key", 16)
	if err != nil {
		t.Fatal(err)
	}
	iv, err := expandLabel(sha256.New, secret, "iv", 12)
	if err != nil {
		t.Fatal(err)
	}
	if want := unhex(t, "3f ce 51 60 09 c2 17 27 d0 f2 e4 e8 6e e4 03 bc"); !bytes.Equal(key, want) {
		t.Errorf("key % x, want % x", key, want)
	}
	if want := unhex(t, "5d 31 3e b2 67 12 76 ee 13 00 0b 30"); !bytes.Equal(iv, want) {
		t.Errorf("iv % x, want % x", iv, want)
	}
}

// TestPRF12 checks the TLS 1.2 PRF with SHA-256 against the test vector
// published with it (IETF TLS working group, "TLS 1.2 PRF test vectors").
func TestPRF12(t *testing.T) {
	secret := unhex(t, "9b be 43 6b a9 40 f0 17 b1 76 52 84 9a 71 db 35")
	seed := unhex(t, "a0 ba 9f 93 6c da 31 18 27 a6 f7 96 ff d5 19 8c")
	want := unhex(t, `e3 f2 29 ba 72 7b e1 7b 8d 12 26 20 55 7c d4 53
		c2 aa b2 1d 07 c3 d4 95 32 9b 52 d4 e6 1e db 5a
		6b 30 17 91 e9 0d 35 c9 c9 a4 6b 4e 14 ba f9 af
		0f a0 22 f7 07 7d ef 17 ab fd 37 97 c0 56 4b ab
		4f bc 91 66 6e 9d ef 9b 97 fc e3 4f 79 67 89 ba
		a4 80 82 d1 22 ee 42 c5 a7 2e 5a 51 10 ff f7 01
		87 34 7b 66`)
	if got := prf12(sha256.New, secret, "test label", seed, len(want)); !bytes.Equal(got, want) {
		t.Errorf("PRF % x\nwant % x", got, want)
	}
}
