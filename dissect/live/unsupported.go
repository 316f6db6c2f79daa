//go:build !linux && !libpcap

package live

import (
	"fmt"
	"runtime"
)

// open fails: without libpcap, live capture uses Linux's AF_PACKET sockets.
func open(opts Options) (opened, error) {
	return opened{}, fmt.Errorf("%w on %s without libpcap: build kdissect with -tags libpcap", ErrUnsupported, runtime.GOOS)
}
