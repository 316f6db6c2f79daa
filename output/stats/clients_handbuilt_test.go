package stats

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// TestClientVersionsHandBuilt: what no capture in testdata shows: a TLS
// connection with SASL (mechanism from SaslHandshake, TLS version from the
// handshake), a ShareFetch v0 (removed in 4.1, so ready for 4.0 with 3.9
// no limit: newest broker 4.0), the ApiVersions coming after the other
// requests of its connection; two connections of one client from two
// ports are one row, another address another row; and the bound on
// versions per connection.
func TestClientVersionsHandBuilt(t *testing.T) {
	c := New()
	id := "app"
	tls := &dissect.TLSInfo{Version: "1.3"}
	from := func(addr string) netip.AddrPort { return netip.MustParseAddrPort(addr) }
	add := func(stream int, client string, key, version int16, req codec.Message) {
		c.Add(&dissect.Exchange{Stream: stream, Client: from(client), Broker: from("10.0.0.9:9093"), APIKey: key, APIVersion: version,
			ClientID: &id, Request: &dissect.Frame{}, TLS: tls, Decoded: &dissect.Decoded{Request: req}})
	}
	add(0, "10.0.0.1:40000", codec.ApiKeySaslHandshake, 1, &codec.SaslHandshakeRequest{Mechanism: "SCRAM-SHA-512"})
	add(0, "10.0.0.1:40000", codec.ApiKeyShareFetch, 0, nil)
	add(0, "10.0.0.1:40000", codec.ApiKeyApiVersions, 3, &codec.ApiVersionsRequest{ClientSoftwareName: "app-client", ClientSoftwareVersion: "1.0"})
	add(1, "10.0.0.1:40001", codec.ApiKeyApiVersions, 3, &codec.ApiVersionsRequest{ClientSoftwareName: "app-client", ClientSoftwareVersion: "1.0"})
	add(1, "10.0.0.1:40001", codec.ApiKeyMetadata, 12, nil)
	tls = nil
	add(2, "10.0.0.2:40000", codec.ApiKeyApiVersions, 2, &codec.ApiVersionsRequest{}) // v2: no software
	rows := c.Report().ClientVersions
	if len(rows) != 2 {
		t.Fatalf("%d rows", len(rows))
	}
	a, b := rows[0], rows[1]
	if a.Client != "10.0.0.1" || a.Connections != 2 || a.Exchanges != 5 || a.SoftwareName == nil || *a.SoftwareName != "app-client" {
		t.Errorf("first row %+v", a)
	}
	f := a.Features
	if !f.TLS || !slices.Equal(f.TLSVersions, []string{"1.3"}) || !slices.Equal(f.SASLMechanisms, []string{"SCRAM-SHA-512"}) {
		t.Errorf("features %+v", f)
	}
	if len(a.Removed) != 1 || a.Removed[0].Name != "ShareFetch" || a.Removed[0].RemovedIn != "4.1" || a.Removed[0].KIP != "KIP-932" ||
		!a.CompatibleWithKafka4 || a.NewestBroker != "4.0" {
		t.Errorf("removed %+v, compatible %v, newest %q", a.Removed, a.CompatibleWithKafka4, a.NewestBroker)
	}
	if b.Client != "10.0.0.2" || b.SoftwareName != nil || b.Features.TLS || !b.CompatibleWithKafka4 || b.NewestBroker != "" {
		t.Errorf("second row %+v", b)
	}

	c = New()
	for v := range maxClientVersions + 5 {
		add(0, "10.0.0.1:40000", 1000, int16(v), nil)
	}
	if r := c.Report().ClientVersions[0]; len(r.APIs[0].Versions) != maxClientVersions || r.VersionsNotListed != 5 {
		t.Errorf("%d versions listed, %d not", len(r.APIs[0].Versions), r.VersionsNotListed)
	}
}
