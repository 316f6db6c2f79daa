package tlsdecrypt

import (
	"bytes"
	"crypto/tls"
	"strings"
	"testing"
)

// TestKeysCompletedLater: a key source that has some of a TLS 1.3
// connection's lines only when its first encrypted records come (the
// client is still writing them, as OpenSSL writes CLIENT_TRAFFIC_SECRET_0
// last) is asked again: the records held decrypt once the rest come.
// Before, the first lines found were taken as all there were, and the
// client's direction did not decrypt ("no traffic secret").
func TestKeysCompletedLater(t *testing.T) {
	s := runSession(t, clientConfig(tls.VersionTLS13, 0), selfSigned(t, false), messages(6))
	var first, rest [][]byte
	for l := range bytes.Lines(s.keylog) {
		if bytes.HasPrefix(l, []byte("CLIENT_TRAFFIC_SECRET_0 ")) {
			rest = append(rest, l)
		} else {
			first = append(first, l)
		}
	}
	if len(rest) != 1 {
		t.Fatalf("key log %q", s.keylog)
	}
	kl := keyLogOf(t, bytes.Join(first, nil))
	var col collector
	c := NewConn(kl, &col)
	for i, e := range s.events {
		if i == len(s.events)/2 {
			kl.AddLine(bytes.TrimSpace(rest[0]))
		}
		feedChunks(c, e.dir, e.data, i)
	}
	c.Close()
	if len(col.notes) > 0 || !bytes.Equal(col.plain[0], s.sent) || !bytes.Equal(col.plain[1], s.recv) {
		t.Fatalf("notes %q; plaintext: client %d bytes (want %d), server %d (want %d)", col.notes, len(col.plain[0]), len(s.sent), len(col.plain[1]), len(s.recv))
	}

	// The rest never comes: at Close the records held decrypt with what
	// there is, the server's direction, and the client's has a note.
	col = collector{}
	c = NewConn(keyLogOf(t, bytes.Join(first, nil)), &col)
	feedSession(c, s)
	c.Close()
	if c.Info().NoKeys || len(col.plain[0]) != 0 || !bytes.Equal(col.plain[1], s.recv) || len(col.notes) != 1 || !strings.Contains(col.notes[0], "no traffic secret") {
		t.Fatalf("NoKeys %v, notes %q; plaintext: client %d bytes, server %d (want %d)", c.Info().NoKeys, col.notes, len(col.plain[0]), len(col.plain[1]), len(s.recv))
	}
}
