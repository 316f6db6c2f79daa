//go:build libpcap

package capfilter

import (
	"strings"
	"testing"
)

// TestLibpcapFallback checks that the libpcap build compiles what the
// built-in compiler does not, and still rejects what libpcap rejects.
func TestLibpcapFallback(t *testing.T) {
	f, err := Parse("tcp[tcpflags] & tcp-syn != 0 and port 9092")
	if err != nil {
		t.Fatal(err)
	}
	m := NewMatcher(f)
	syn := ethPackets["v4tcp"]
	if ok, err := m.Match(eth, syn.bytes()); err != nil || ok {
		t.Errorf("PSH|ACK segment: match %v, %v; want no match", ok, err)
	}
	if _, err := Parse("tcp[13] &"); err == nil || !strings.Contains(err.Error(), "libpcap") {
		t.Errorf("bad syntax: %v, want libpcap's error", err)
	}
	if f, err := Parse("port 9092"); err != nil || f.external != nil {
		t.Errorf("subset expression: %v, external %v; want the built-in compiler", err, f.external != nil)
	}
}
