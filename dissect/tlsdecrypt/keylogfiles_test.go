package tlsdecrypt

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// KeyLogFiles follows a file a client writes while a capture runs: a file
// that does not exist yet (optional), a connection's lines appended one
// by one and the last one half written, a file truncated and rewritten.
func TestKeyLogFilesFollow(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "keys.log")
	if _, err := OpenKeyLogFiles([]string{path}, false); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), path) {
		t.Errorf("a missing file, not optional: %v", err)
	}
	k, err := OpenKeyLogFiles([]string{path}, true)
	if err != nil {
		t.Fatal(err)
	}
	cr := [32]byte{1, 2, 3}
	if _, ok := k.Lookup(cr); ok {
		t.Fatal("secrets of a file that does not exist")
	}
	client, server := bytes.Repeat([]byte{0xc}, 32), bytes.Repeat([]byte{0x5}, 32)
	line := func(label string, cr [32]byte, secret []byte) string {
		return label + " " + hex.EncodeToString(cr[:]) + " " + hex.EncodeToString(secret) + "\n"
	}
	serverLine := line("SERVER_TRAFFIC_SECRET_0", cr, server)
	appendTo := func(s string) {
		t.Helper()
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	appendTo("# a comment\nnot a key log line\n" + line("CLIENT_TRAFFIC_SECRET_0", cr, client) + serverLine[:40])
	s, ok := k.Lookup(cr)
	if !ok || !bytes.Equal(s.ClientTraffic, client) || s.ServerTraffic != nil || s.Complete() {
		t.Fatalf("half of a connection's lines written: %+v, %v", s, ok)
	}
	appendTo(serverLine[40:])
	if s, ok = k.Lookup(cr); !ok || !bytes.Equal(s.ServerTraffic, server) || !s.Complete() {
		t.Fatalf("the rest of the line written: %+v, %v", s, ok)
	}
	if bad, lines := k.Malformed(); bad != 1 || lines != 3 { // the comment is no line
		t.Errorf("malformed %d of %d lines, want 1 of 3", bad, lines)
	}
	// Truncated and rewritten, shorter: read from the start again; the
	// keys read before stay known.
	cr2 := [32]byte{9}
	if err := os.WriteFile(path, []byte(line("CLIENT_RANDOM", cr2, bytes.Repeat([]byte{7}, 48))), 0o600); err != nil {
		t.Fatal(err)
	}
	if s, ok := k.Lookup(cr2); !ok || len(s.Master) != 48 {
		t.Errorf("after a rewrite: %+v, %v", s, ok)
	}
	if s, ok := k.Lookup(cr); !ok || !s.Complete() {
		t.Errorf("keys read before the rewrite: %+v, %v", s, ok)
	}
}
