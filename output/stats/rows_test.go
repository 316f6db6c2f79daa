package stats

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// TestRowsCapped: beyond maxRows keys, connections, client ids,
// topic-partitions and errors by topic-partition are counted in one Other
// row each, so the tables stay bounded, and nothing is lost from the
// counts.
func TestRowsCapped(t *testing.T) {
	c := New()
	c.maxRows = 10
	const n = 25
	for i := range n {
		id := fmt.Sprintf("client-%d", i)
		ex := &dissect.Exchange{
			Stream:   i,
			Client:   netip.AddrPortFrom(netip.MustParseAddr("10.0.0.1"), uint16(40000+i)),
			Broker:   netip.MustParseAddrPort("10.0.0.9:9092"),
			APIKey:   0,
			ClientID: &id,
			Request:  &dissect.Frame{Size: 100},
			Decoded: &dissect.Decoded{
				Errors:     []codec.ErrorRef{{Code: 6, Topic: "orders", Partition: int32(i)}},
				RecordSets: []codec.RecordsRef{{Records: &codec.Records{Set: &codec.RecordSet{}}, Topic: "orders", Partition: int32(i)}},
			},
		}
		c.Add(ex)
	}
	r := c.Report()
	if len(r.Connections) != 11 || len(r.Clients) != 11 || len(r.Partitions) != 11 || len(r.PartitionErrors) != 11 {
		t.Fatalf("rows: %d connections, %d clients, %d partitions, %d partition errors; want 11 each",
			len(r.Connections), len(r.Clients), len(r.Partitions), len(r.PartitionErrors))
	}
	var conns, clients, produces, errs int64
	for _, x := range r.Connections {
		conns += x.Exchanges
		if x.Stream == -1 && (x.Client != Other || x.Exchanges != n-10) {
			t.Errorf("other connections row: %+v", x)
		}
	}
	for _, x := range r.Clients {
		clients += x.Exchanges
		if *x.ClientID == Other && x.Exchanges != n-10 {
			t.Errorf("other client ids row: %d exchanges, want %d", x.Exchanges, n-10)
		}
	}
	for _, x := range r.Partitions {
		produces += x.Produces
		if x.Topic == Other && (x.Partition != -1 || x.Produces != n-10) {
			t.Errorf("other partitions row: %+v", x)
		}
	}
	for _, x := range r.PartitionErrors {
		errs += x.Count
	}
	if conns != n || clients != n || produces != n || errs != n || r.Totals.Exchanges != n {
		t.Errorf("counts: connections %d, clients %d, produces %d, errors %d, total %d; want %d each", conns, clients, produces, errs, r.Totals.Exchanges, n)
	}
}
