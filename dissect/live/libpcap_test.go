//go:build libpcap

package live

import (
	"errors"
	"testing"
)

// TestLibpcapAny checks what only the libpcap build does: capture on
// every interface at once.
func TestLibpcapAny(t *testing.T) {
	needCapture(t)
	h, err := Open(Options{Interface: "any"})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	t.Logf("any: link type %v", h.LinkType())
	if _, err := Open(Options{Interface: "nosuchif0"}); !errors.Is(err, ErrNoInterface) {
		t.Errorf("nosuchif0: %v, want ErrNoInterface", err)
	}
}
