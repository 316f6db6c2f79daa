package dissect

import (
	"bytes"
	"testing"

	"github.com/kdissect/kdissect/internal/tlstest"
)

// BenchmarkTLSRead dissects the same conversation (3000 exchanges, about
// 26 MB of frames, in 1448-byte segments) in plaintext and over TLS 1.3
// and 1.2 (AES-128-GCM, ChaCha20-Poly1305), decrypted with its key log:
// what decryption adds to reading a capture. b.SetBytes counts the
// capture file's bytes.
//
//	go test ./dissect -run '^$' -bench TLSRead -benchmem
func BenchmarkTLSRead(b *testing.B) {
	reqs, resps := benchConversation(3000)
	for _, v := range tlstest.BenchVariants() {
		b.Run(v.Name, func(b *testing.B) {
			clock := testClock()
			c := newConn(b, linkVariants[0], 40000, 9093, &clock)
			pkts := c.handshake()
			opts := Options{Ports: []uint16{9093}}
			if v.Config == nil {
				for i := range reqs {
					pkts = append(pkts, c.send(true, reqs[i], seg(len(reqs[i]))...)...)
					pkts = append(pkts, c.send(false, resps[i], seg(len(resps[i]))...)...)
				}
			} else {
				chunks, kl := tlsConversation(b, v.Config, reqs, resps)
				for _, ch := range chunks {
					pkts = append(pkts, c.send(ch.fromClient, ch.data, seg(len(ch.data))...)...)
				}
				opts.TLSKeys = keyLog(b, kl)
			}
			capture := writePcap(b, linkVariants[0].link, append(pkts, c.close()...))
			b.SetBytes(int64(len(capture)))
			for b.Loop() {
				n := 0
				if err := New(opts).ReadCapture(bytes.NewReader(capture), func(*Exchange) { n++ }); err != nil || n != len(reqs) {
					b.Fatalf("%d exchanges, %v", n, err)
				}
			}
		})
	}
}

// benchConversation is n exchanges of 1 to 16 KB requests and small
// responses, like a producer's.
func benchConversation(n int) (reqs, resps [][]byte) {
	for i := range n {
		corr := int32(i + 1)
		req := reqFrame(95, 1, corr, "bench", filler(1024+(i*4099)%15360, byte(i)))
		resp := respFrame(corr, filler(40, byte(i)))
		reqs, resps = append(reqs, req), append(resps, resp)
	}
	return reqs, resps
}

// seg cuts n bytes into 1448-byte segments.
func seg(n int) []int {
	s := make([]int, 0, n/1448+1)
	for ; n > 1448; n -= 1448 {
		s = append(s, 1448)
	}
	return s
}
