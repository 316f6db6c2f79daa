package client

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kversion"
)

func TestConnBrokerRange(t *testing.T) {
	noLeaks(t)
	v := kversion.V3_0_0()
	c := newCluster(t, kfake.MaxVersions(v))
	cn, err := Dial(testCtx(t), c.ListenAddrs()[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cn.Close()
	wantMax, _ := v.LookupMaxKeyVersion(0)
	lo, hi, ok := cn.BrokerRange(0)
	if !ok || hi != wantMax || lo < 0 || lo > hi {
		t.Errorf("BrokerRange(Produce) = %d, %d, %v; want max %d", lo, hi, ok, wantMax)
	}
	// An ApiKey Kafka 3.0 does not have: not advertised.
	if lo, hi, ok := cn.BrokerRange(68); ok {
		t.Errorf("BrokerRange(ConsumerGroupHeartbeat) = %d, %d, true; want not offered", lo, hi)
	}
	nn, err := Dial(testCtx(t), c.ListenAddrs()[0], &Config{NoVersionNegotiation: true})
	if err != nil {
		t.Fatal(err)
	}
	defer nn.Close()
	if _, _, ok := nn.BrokerRange(0); ok {
		t.Error("BrokerRange without negotiation: ok true")
	}
}
