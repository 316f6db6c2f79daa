package client

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

// newCluster starts an in-process kfake cluster closed with the test.
func newCluster(t testing.TB, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// newClient returns a Client bootstrapped from the cluster's first broker,
// closed with the test; mod may change the config.
func newClient(t testing.TB, c *kfake.Cluster, mod func(*Config)) *Client {
	t.Helper()
	cfg := Config{Brokers: c.ListenAddrs()[:1]}
	if mod != nil {
		mod(&cfg)
	}
	cl, err := New(testCtx(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	return cl
}

// testCtx returns a context ending with the test or after 30 s.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// noLeaks registers a check, run after the test's other cleanups (so after
// clients and clusters are closed), that no goroutine runs this package's
// code outside a test function.
func noLeaks(t *testing.T) {
	t.Helper()
	t.Cleanup(func() {
		var leaked []string
		for deadline := time.Now().Add(2 * time.Second); ; {
			leaked = leakedGoroutines()
			if len(leaked) == 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		for _, g := range leaked {
			t.Errorf("leaked goroutine:\n%s", g)
		}
	})
}

func leakedGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		if !strings.Contains(g, "kdissect/kdissect/client.") {
			continue
		}
		if strings.Contains(g, "testing.tRunner") || strings.Contains(g, "leakedGoroutines") {
			continue
		}
		out = append(out, g)
	}
	return out
}
