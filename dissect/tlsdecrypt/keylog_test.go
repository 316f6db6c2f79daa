package tlsdecrypt

import (
	"bytes"
	"strings"
	"testing"
)

func TestKeyLog(t *testing.T) {
	cr := strings.Repeat("ab", 32)
	in := strings.Join([]string{
		"# a comment",
		"",
		"CLIENT_RANDOM " + cr + " " + strings.Repeat("01", 48),
		"CLIENT_HANDSHAKE_TRAFFIC_SECRET " + cr + " " + strings.Repeat("02", 32),
		"SERVER_HANDSHAKE_TRAFFIC_SECRET " + cr + " " + strings.Repeat("03", 32),
		"CLIENT_TRAFFIC_SECRET_0 " + cr + " " + strings.Repeat("04", 48),
		"SERVER_TRAFFIC_SECRET_0 " + cr + "   " + strings.Repeat("05", 48) + "\r",
		"EXPORTER_SECRET " + cr + " " + strings.Repeat("06", 32),    // unknown to us: ignored
		"CLIENT_RANDOM " + cr[:62] + " " + strings.Repeat("01", 48), // short random
		"CLIENT_RANDOM " + cr + " " + strings.Repeat("01", 47),      // short master secret
		"CLIENT_RANDOM " + cr + " zz" + strings.Repeat("01", 47),    // not hex
		"CLIENT_RANDOM " + cr, // no secret
	}, "\n")
	k := NewKeyLog()
	if err := k.Read(strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	if m, n := k.Malformed(); m != 4 || n != 10 || k.Len() != 1 {
		t.Fatalf("malformed %d of %d lines, %d randoms", m, n, k.Len())
	}
	var r [32]byte
	for i := range r {
		r[i] = 0xab
	}
	s, ok := k.Lookup(r)
	if !ok || !bytes.Equal(s.Master, bytes.Repeat([]byte{1}, 48)) || s.ClientHandshake[0] != 2 ||
		s.ServerHandshake[0] != 3 || s.ClientTraffic[0] != 4 || len(s.ServerTraffic) != 48 || s.ServerTraffic[0] != 5 {
		t.Fatalf("secrets %+v", s)
	}
	if _, ok := (Sources{NewKeyLog(), k}).Lookup(r); !ok {
		t.Fatal("Sources does not ask its second source")
	}
	r[0] = 0
	if _, ok := k.Lookup(r); ok {
		t.Fatal("found secrets for another random")
	}
}
