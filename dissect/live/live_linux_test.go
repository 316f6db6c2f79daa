//go:build linux

package live

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"golang.org/x/sys/unix"

	"github.com/kdissect/kdissect/dissect/capfilter"
)

// needCapture skips the test unless this process may open packet sockets
// on lo.
func needCapture(t *testing.T) {
	t.Helper()
	h, err := Open(Options{Interface: "lo"})
	switch {
	case errors.Is(err, ErrPermission):
		t.Skipf("live capture test skipped: not root and no CAP_NET_RAW (%v)", err)
	case errors.Is(err, ErrUnsupported):
		t.Skipf("live capture test skipped: AF_PACKET unavailable (%v)", err)
	case err != nil:
		t.Fatal(err)
	}
	h.Close()
}

// withoutNetRaw runs fn on an OS thread that lacks CAP_NET_RAW, as a
// process run by an ordinary user does. Capabilities belong to threads on
// Linux; the thread stays locked to the goroutine, so it exits with it
// rather than serve other goroutines without the capability.
func withoutNetRaw(t *testing.T, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
		var data [2]unix.CapUserData
		if err := unix.Capget(&hdr, &data[0]); err != nil {
			t.Errorf("capget: %v", err)
			return
		}
		data[0].Effective &^= 1 << unix.CAP_NET_RAW
		data[0].Permitted &^= 1 << unix.CAP_NET_RAW
		if err := unix.Capset(&hdr, &data[0]); err != nil {
			t.Errorf("capset: %v", err)
			return
		}
		fn()
	}()
	<-done
}

func TestOpenWithoutPermission(t *testing.T) {
	check := func(err error) {
		t.Helper()
		if !errors.Is(err, ErrPermission) || !strings.HasPrefix(err.Error(), "live capture needs root or CAP_NET_RAW: ") {
			t.Errorf("Open without CAP_NET_RAW: %v, want ErrPermission", err)
		}
	}
	if os.Geteuid() != 0 {
		h, err := Open(Options{Interface: "lo"})
		if err == nil {
			h.Close()
			t.Skip("this process has CAP_NET_RAW without being root")
		}
		check(err)
		return
	}
	withoutNetRaw(t, func() {
		_, err := Open(Options{Interface: "lo"})
		check(err)
	})
}

// captured is a copy of a packet Run delivered.
type captured struct {
	data []byte
	ci   gopacket.CaptureInfo
}

// capture runs h in the background until stop is called, which cancels
// it and waits (bounded) for Run to return.
func capture(t *testing.T, h *Handle) (stop func() []captured) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var got []captured
	done := make(chan error, 1)
	go func() {
		done <- h.Run(ctx, func(data []byte, ci gopacket.CaptureInfo) bool {
			if ci.CaptureLength != len(data) {
				t.Errorf("CaptureLength %d, data %d bytes", ci.CaptureLength, len(data))
			}
			mu.Lock()
			got = append(got, captured{bytes.Clone(data), ci})
			mu.Unlock()
			return true
		})
	}()
	return func() []captured {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(drainTimeout + 5*time.Second):
			t.Fatal("Run did not return after its context was cancelled")
		}
		mu.Lock()
		defer mu.Unlock()
		return got
	}
}

// echoServer accepts connections on 127.0.0.1 and echoes what it reads.
func echoServer(t *testing.T) *net.TCPAddr {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				io.Copy(c, c)
			}()
		}
	}()
	return ln.Addr().(*net.TCPAddr)
}

// exchange sends each message over one connection to addr and waits for
// its echo, then closes the connection and waits for the server's close:
// every segment of the connection has crossed lo when it returns.
func exchange(t *testing.T, addr *net.TCPAddr, msgs ...string) {
	t.Helper()
	c, err := net.DialTimeout("tcp4", addr.String(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	for _, m := range msgs {
		if _, err := io.WriteString(c, m); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, len(m))
		if _, err := io.ReadFull(c, buf); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	if n, err := io.Copy(io.Discard, c); n != 0 || err != nil {
		t.Fatalf("after close: %d bytes, %v", n, err)
	}
}

// TestCaptureLoopback captures TCP traffic on lo with a filter for one
// port while traffic also flows on another: every segment of the
// filtered connection is seen exactly once (lo hands packet sockets each
// packet twice), in order, and nothing else is.
func TestCaptureLoopback(t *testing.T) {
	needCapture(t)
	want, other := echoServer(t), echoServer(t)
	f, err := capfilter.Parse(fmt.Sprintf("tcp port %d", want.Port))
	if err != nil {
		t.Fatal(err)
	}
	h, err := Open(Options{Interface: "lo", Filter: f})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if h.LinkType() != layers.LinkTypeEthernet {
		t.Errorf("lo link type %v, want Ethernet", h.LinkType())
	}
	stop := capture(t, h)
	msgs := []string{"hello-1", "hello-2", "hello-3"}
	exchange(t, other, "not-this-1", "not-this-2")
	exchange(t, want, msgs...)
	// Stopped right after the last echo: the packets still queued in the
	// kernel must be delivered.
	got := stop()

	seen := map[string]int{}
	var syn, fin int
	for _, p := range got {
		pkt := gopacket.NewPacket(p.data, layers.LayerTypeEthernet, gopacket.Default)
		tcp, _ := pkt.Layer(layers.LayerTypeTCP).(*layers.TCP)
		if tcp == nil {
			t.Fatalf("captured a packet that is not TCP: %v", pkt)
		}
		if int(tcp.SrcPort) != want.Port && int(tcp.DstPort) != want.Port {
			t.Errorf("captured %d > %d, outside the filter", tcp.SrcPort, tcp.DstPort)
		}
		if tcp.SYN && !tcp.ACK {
			syn++
		}
		if tcp.FIN {
			fin++
		}
		if len(tcp.Payload) > 0 {
			seen[string(tcp.Payload)]++
		}
	}
	for _, m := range msgs {
		// Each message goes out and comes back: two segments with its bytes.
		if seen[m] != 2 {
			t.Errorf("%q seen in %d segments, want 2 (once each way)", m, seen[m])
		}
	}
	if syn != 1 || fin != 2 {
		t.Errorf("%d SYN and %d FIN segments, want 1 and 2", syn, fin)
	}
	st := h.Stats()
	if st.Captured != uint64(len(got)) || st.Received < st.Captured || st.Rejected != 0 {
		t.Errorf("stats %+v for %d packets", st, len(got))
	}
	h.Close()
	if after := h.Stats(); after.Received != st.Received || after.Captured != st.Captured {
		t.Errorf("stats after Close %+v, before %+v", after, st)
	}
}

// TestStopIdle checks that cancelling a capture that sees no traffic
// returns at once.
func TestStopIdle(t *testing.T) {
	needCapture(t)
	f, _ := capfilter.Parse("tcp port 1 and host 192.0.2.1")
	h, err := Open(Options{Interface: "lo", Filter: f})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := h.Run(ctx, func([]byte, gopacket.CaptureInfo) bool { return true }); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Run took %v to stop", d)
	}
	// A cancelled context before Run: it returns too.
	if err := h.Run(ctx, func([]byte, gopacket.CaptureInfo) bool { return true }); err != nil {
		t.Fatal(err)
	}
}

// TestCallbackStops checks that Run returns when its callback says so.
func TestCallbackStops(t *testing.T) {
	needCapture(t)
	addr := echoServer(t)
	f, _ := capfilter.Parse(fmt.Sprintf("tcp port %d", addr.Port))
	h, err := Open(Options{Interface: "lo", Filter: f})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	done := make(chan int, 1)
	go func() {
		n := 0
		h.Run(context.Background(), func([]byte, gopacket.CaptureInfo) bool {
			n++
			return n < 3
		})
		done <- n
	}()
	exchange(t, addr, "a", "b", "c")
	select {
	case n := <-done:
		if n != 3 {
			t.Errorf("Run went on for %d packets, want 3", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after the callback said stop")
	}
}
