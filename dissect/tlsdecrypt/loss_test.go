package tlsdecrypt

import (
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"testing"
)

// records returns the [start, end) of each record of a stream.
func records(b []byte) [][2]int {
	var rs [][2]int
	for off := 0; off+5 <= len(b); {
		end := off + 5 + int(binary.BigEndian.Uint16(b[off+3:]))
		rs = append(rs, [2]int{off, end})
		off = end
	}
	return rs
}

// feedLossy feeds a session in wire order with the [from, to) runs of
// direction dir's stream given as holes.
func feedLossy(c *Conn, s *session, dir Dir, cut [][2]int) {
	var pos [2]int
	for _, e := range s.events {
		b := e.data
		if e.dir != dir {
			c.Feed(e.dir, b)
			pos[e.dir] += len(b)
			continue
		}
		for len(b) > 0 {
			p := pos[dir]
			n, hole := len(b), false
			for _, h := range cut {
				switch {
				case p >= h[0] && p < h[1]:
					n, hole = min(n, h[1]-p), true
				case h[0] > p:
					n = min(n, h[0]-p)
				}
			}
			if hole {
				c.Hole(dir, int64(n))
			} else {
				c.Feed(dir, b[:n])
			}
			b = b[n:]
			pos[dir] += n
		}
	}
}

// TestLostRecords cuts holes into the server's stream (inside a record,
// across record headers, on record boundaries) and checks that the
// records they hit are lost whole, as lost plaintext of their length, and
// every other record decrypts.
func TestLostRecords(t *testing.T) {
	certs := map[bool]tls.Certificate{true: selfSigned(t, true), false: selfSigned(t, false)}
	for _, tc := range suiteCases[:4] {
		t.Run(tc.name, func(t *testing.T) {
			s := runSession(t, clientConfig(tc.max, tc.suite), certs[tc.rsa], messages(12))
			rs := records(s.s2c)
			n := len(rs)
			r := func(i int) [2]int { return rs[n-i] } // counted from the end: application data
			cases := []struct {
				name string
				cut  [][2]int
				hit  int // records lost
			}{
				{"inside a record", [][2]int{{r(3)[0] + 10, r(3)[0] + 20}}, 1},
				{"a record's end", [][2]int{{r(3)[0] + 100, r(3)[1]}}, 1},
				{"one record whole", [][2]int{{r(5)[0], r(5)[1]}}, 1},
				{"two records whole", [][2]int{{r(6)[0], r(5)[1]}}, 2},
				{"across headers", [][2]int{{r(7)[0] + 30, r(5)[0] + 40}}, 3},
				{"a header", [][2]int{{r(4)[0] + 2, r(4)[0] + 4}}, 1},
				{"two holes", [][2]int{{r(8)[0] + 30, r(8)[0] + 40}, {r(3)[0] + 1, r(2)[0] + 3}}, 3},
			}
			for _, cs := range cases {
				var col collector
				c := NewConn(keyLogOf(t, s.keylog), &col)
				feedLossy(c, s, ServerToClient, cs.cut)
				if len(col.notes) > 0 {
					t.Errorf("%s: notes %q", cs.name, col.notes)
					continue
				}
				if !bytes.Equal(col.plain[0], s.sent) {
					t.Errorf("%s: client stream differs", cs.name)
				}
				got, want := col.plain[1], s.recv
				if len(got) != len(want) {
					t.Errorf("%s: %d bytes of server plaintext, want %d", cs.name, len(got), len(want))
					continue
				}
				// Blank the lost runs in a copy of what was sent:
				// the rest must be equal.
				w := bytes.Clone(want)
				var lost int64
				for _, l := range col.lost[1] {
					clear(w[l[0] : l[0]+l[1]])
					lost += l[1]
				}
				if !bytes.Equal(got, w) || lost == 0 {
					t.Errorf("%s: server plaintext differs outside the %d bytes lost", cs.name, lost)
				}
				if in := c.Info(); in.LostRecords != int64(cs.hit) {
					t.Errorf("%s: %d records lost, want %d", cs.name, in.LostRecords, cs.hit)
				}
			}
		})
	}
}

// TestLossInHandshake: a hole before the keys are known ends decryption
// of the direction with a note, and the other direction still decrypts.
func TestLossInHandshake(t *testing.T) {
	s := runSession(t, clientConfig(tls.VersionTLS12, tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256), selfSigned(t, false), messages(3))
	var col collector
	c := NewConn(keyLogOf(t, s.keylog), &col)
	rs := records(s.s2c)
	feedLossy(c, s, ServerToClient, [][2]int{{rs[1][0] + 7, rs[1][0] + 9}}) // the Certificate
	if len(col.notes) != 1 || len(col.plain[1]) != 0 || !bytes.Equal(col.plain[0], s.sent) {
		t.Fatalf("notes %q, %d bytes from the server, client stream equal: %v", col.notes, len(col.plain[1]), bytes.Equal(col.plain[0], s.sent))
	}
}

// TestTruncated: a stream that ends inside a record gives what came
// before it, and no panic.
func TestTruncated(t *testing.T) {
	s := runSession(t, clientConfig(tls.VersionTLS13, 0), selfSigned(t, false), messages(6))
	rs := records(s.s2c)
	cut := rs[len(rs)-2][0] + 50
	var col collector
	c := NewConn(keyLogOf(t, s.keylog), &col)
	var pos int
	for _, e := range s.events {
		if e.dir == ServerToClient {
			b := e.data[:max(0, min(len(e.data), cut-pos))]
			pos += len(e.data)
			c.Feed(e.dir, b)
			continue
		}
		c.Feed(e.dir, e.data)
	}
	lastLen := rs[len(rs)-1][1] - rs[len(rs)-1][0] - 5 - 17
	prevLen := rs[len(rs)-2][1] - rs[len(rs)-2][0] - 5 - 17
	if want := s.recv[:len(s.recv)-lastLen-prevLen]; !bytes.Equal(col.plain[1], want) {
		t.Fatalf("%d bytes, want %d", len(col.plain[1]), len(want))
	}
}
