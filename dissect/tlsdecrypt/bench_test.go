package tlsdecrypt

import (
	"testing"
)

// discard is a Handler that keeps nothing.
type discard struct{}

func (discard) Plaintext(Dir, []byte) {}
func (discard) Lost(Dir, int64)       {}
func (discard) Note(Dir, string)      {}

// BenchmarkDecrypt decrypts a recorded session (about 240 KB each way,
// records of up to 16 KB) fed in 1448-byte segments; b.SetBytes counts the
// ciphertext.
func BenchmarkDecrypt(b *testing.B) {
	for _, tc := range suiteCases[:4] {
		b.Run(tc.name, func(b *testing.B) {
			s := runSession(b, clientConfig(tc.max, tc.suite), selfSigned(b, tc.rsa), messages(12))
			kl := keyLogOf(b, s.keylog)
			b.SetBytes(int64(len(s.c2s) + len(s.s2c)))
			for b.Loop() {
				c := NewConn(kl, discard{})
				for _, e := range s.events {
					for d := e.data; len(d) > 0; {
						n := min(len(d), 1448)
						c.Feed(e.dir, d[:n])
						d = d[n:]
					}
				}
			}
		})
	}
}
