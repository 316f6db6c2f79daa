package kcat

import (
	"bytes"
	"crypto/tls"
	"testing"

	"github.com/kdissect/kdissect/client"
)

// kcat -L -J's object: the originating broker named host:port/id (or
// /bootstrap when it is not among the brokers), the query, brokers,
// topics with librdkafka's error text on a topic or partition, replicas
// and in-sync replicas as {"id"} objects.
func TestWriteMetadataJSON(t *testing.T) {
	md := &client.Metadata{ControllerID: 2,
		Brokers: []client.BrokerMetadata{{NodeID: 1, Host: "h1", Port: 9092}, {NodeID: 2, Host: "h2", Port: 9093}},
		Topics: []client.TopicMetadata{
			{Name: "gone", Err: client.ErrorForCode(3)},
			{Name: "t", Partitions: []client.PartitionMetadata{
				{Partition: 0, Leader: 1, Replicas: []int32{1, 2}, ISR: []int32{1}},
				{Partition: 1, Leader: -1, Replicas: []int32{2}, Err: client.ErrorForCode(5)},
				{Partition: 2, Leader: 2, Replicas: []int32{2}, ISR: []int32{2}, Err: client.ErrorForCode(87)},
			}}}}
	var b bytes.Buffer
	if err := WriteMetadataJSON(&b, md, "h2:9093", "ssl://", []string{"gone", "t"}); err != nil {
		t.Fatal(err)
	}
	want := `{"originating_broker":{"id":2,"name":"ssl://h2:9093/2"},"query":{"topic":"gone,t"},"controllerid":2,` +
		`"brokers":[{"id":1,"name":"h1:9092"},{"id":2,"name":"h2:9093"}],` +
		`"topics":[{"topic":"gone","error":"Broker: Unknown topic or partition","partitions":[]},` +
		`{"topic":"t","partitions":[{"partition":0,"leader":1,"replicas":[{"id":1},{"id":2}],"isrs":[{"id":1}]},` +
		`{"partition":1,"error":"Broker: Leader not available","leader":-1,"replicas":[{"id":2}],"isrs":[]},` +
		`{"partition":2,"error":"Broker: ` + client.ErrorForCode(87).(*client.Error).Name() + `","leader":2,"replicas":[{"id":2}],"isrs":[{"id":2}]}]}]}` + "\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	WriteMetadataJSON(&b, &client.Metadata{ControllerID: -1}, "seed:9092", "", nil)
	if want := `{"originating_broker":{"id":-1,"name":"seed:9092/bootstrap"},"query":{"topic":"*"},"controllerid":-1,"brokers":[],"topics":[]}` + "\n"; b.String() != want {
		t.Errorf("bootstrap, all topics: %s", b.String())
	}
}

func TestScheme(t *testing.T) {
	tc, sasl := &tls.Config{}, &client.SASL{Mechanism: client.SASLPlain}
	for _, c := range []struct {
		cfg  client.Config
		want string
	}{{client.Config{}, ""}, {client.Config{TLS: tc}, "ssl://"}, {client.Config{SASL: sasl}, "sasl_plaintext://"}, {client.Config{TLS: tc, SASL: sasl}, "sasl_ssl://"}} {
		if got := Scheme(c.cfg); got != c.want {
			t.Errorf("%+v: %q, want %q", c.cfg, got, c.want)
		}
	}
}
