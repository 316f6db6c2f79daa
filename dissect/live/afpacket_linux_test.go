//go:build linux && !libpcap

package live

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/layers"
	"golang.org/x/net/bpf"

	"github.com/kdissect/kdissect/dissect/capfilter"
)

func TestOpenErrors(t *testing.T) {
	_, err := Open(Options{Interface: "any"})
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "libpcap") {
		t.Errorf("any: %v, want ErrUnsupported naming the libpcap build", err)
	}
	_, err = Open(Options{Interface: "nosuchif0"})
	if !errors.Is(err, ErrNoInterface) || !strings.Contains(err.Error(), `"nosuchif0"`) || !strings.Contains(err.Error(), "lo") {
		t.Errorf("nosuchif0: %v, want ErrNoInterface naming it and the interfaces there are", err)
	}
	_, err = Open(Options{Interface: "lo", SnapLen: DefaultSnapLen + 1})
	if err == nil {
		t.Error("snap length beyond the maximum accepted")
	}
}

// TestCaptureVLANFilter runs a filter with vlan (user space) on lo: no
// frame on lo is tagged, so nothing passes, and every packet the kernel
// delivered is counted as rejected.
func TestCaptureVLANFilter(t *testing.T) {
	needCapture(t)
	addr := echoServer(t)
	f, err := capfilter.Parse(fmt.Sprintf("vlan or tcp port %d", addr.Port))
	if err != nil {
		t.Fatal(err)
	}
	h, err := Open(Options{Interface: "lo", Filter: f})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	stop := capture(t, h)
	exchange(t, addr, "x")
	got := stop()
	// "vlan or tcp port P": the port is looked for inside a tag, so no
	// untagged frame matches, as with tcpdump -r.
	if len(got) != 0 {
		t.Errorf("captured %d packets, want none", len(got))
	}
	if st := h.Stats(); st.Rejected == 0 {
		t.Errorf("stats %+v: want rejected packets", st)
	}
}

func TestPrograms(t *testing.T) {
	port, _ := capfilter.Parse("tcp port 9092")
	vlan, _ := capfilter.Parse("vlan 100 and tcp port 9092")
	for _, tc := range []struct {
		f              *capfilter.Filter
		loopback       bool
		kernel, user   bool
		dropsOutgoing  bool
		acceptsInKernl bool
	}{
		{nil, false, false, false, false, false},
		{port, false, true, false, false, false},
		{port, true, true, false, true, false},
		{vlan, false, false, true, false, false},
		{vlan, true, true, true, true, true},
	} {
		kernel, user, err := programs(tc.f, layers.LinkTypeEthernet, tc.loopback)
		if err != nil {
			t.Fatal(err)
		}
		if (kernel != nil) != tc.kernel || (user != nil) != tc.user {
			t.Errorf("%v loopback %v: kernel %v, user %v", tc.f, tc.loopback, kernel != nil, user != nil)
		}
		if tc.dropsOutgoing != (len(kernel) > 0 && kernel[0] == bpf.LoadExtension{Num: bpf.ExtType}) {
			t.Errorf("%v loopback %v: program %v", tc.f, tc.loopback, kernel)
		}
		if tc.acceptsInKernl && len(kernel) != 4 {
			t.Errorf("%v loopback %v: kernel program %v, want the outgoing check and accept", tc.f, tc.loopback, kernel)
		}
		if _, err := bpf.Assemble(kernel); kernel != nil && err != nil {
			t.Error(err)
		}
	}
}

func TestInsertTag(t *testing.T) {
	frame := []byte{1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 0x08, 0x00, 0x45}
	buf := append(make([]byte, tagRoom), frame...)
	insertTag(buf, 0x88a8, 0x6064) // priority 3, VLAN 100
	want := []byte{1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 0x88, 0xa8, 0x60, 0x64, 0x08, 0x00, 0x45}
	if !bytes.Equal(buf, want) {
		t.Errorf("insertTag = % x, want % x", buf, want)
	}
}
