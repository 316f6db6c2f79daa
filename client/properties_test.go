package client

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestReadProperties: a kcat -F file and a Java client.properties (with
// "name: value", '!' comments and blanks around '=') read the same; a
// line without a separator is an error that gives its number.
func TestReadProperties(t *testing.T) {
	in := "# kcat\n\nbootstrap.servers=b1:9092,b2:9092\n! java\nsecurity.protocol = SASL_SSL\nsasl.mechanism: PLAIN\nsasl.password=a=b\n"
	got, err := ReadProperties(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Property{{"bootstrap.servers", "b1:9092,b2:9092"}, {"security.protocol", "SASL_SSL"}, {"sasl.mechanism", "PLAIN"}, {"sasl.password", "a=b"}}
	if !slices.Equal(got, want) {
		t.Errorf("read %q, want %q", got, want)
	}
	_, err = ReadProperties(strings.NewReader("a=b\n\nno separator\n"))
	var le *PropertyLineError
	if !errors.As(err, &le) || le.Line != 3 || err.Error() != "line 3: want property=value" {
		t.Errorf("bad line: %v", err)
	}
	if p, err := ParseProperty(" client.id =x=y"); err != nil || p != (Property{"client.id", "x=y"}) {
		t.Errorf("ParseProperty: %q, %v", p, err)
	}
	if _, err := ParseProperty("client.id"); err == nil || err.Error() != `"client.id": want property=value` {
		t.Errorf("ParseProperty without '=': %v", err)
	}
}

// TestApplyProperties: each property sets its setting, a later one wins,
// keep leaves a setting as it is, unused Kafka settings are returned as
// ignored, an unknown name lists the known ones, a bad value's error
// names the property and not the value.
func TestApplyProperties(t *testing.T) {
	s := ConnSettings{ClientID: "flag", Timeout: time.Second}
	ignored, err := s.ApplyProperties([]Property{
		{"metadata.broker.list", "a:1"}, {"bootstrap.servers", " b:1 , c:2 ,"}, {"client.id", "prop"},
		{"security.protocol", "SASL_SSL"}, {"acks", "all"}, {"request.timeout.ms", "2500"},
		{"sasl.jaas.config", `org.apache.kafka.common.security.plain.PlainLoginModule required username="al\"ice" password="s3\\cret";`},
		{"ssl.ca.location", "/ca.pem"}, {"enable.ssl.certificate.verification", "false"}, {"group.id", "g"},
	}, func(name string) bool { return name == "client.id" })
	if err != nil {
		t.Fatal(err)
	}
	want := ConnSettings{Brokers: []string{"b:1", "c:2"}, ClientID: "flag", Timeout: 2500 * time.Millisecond, TLS: true, TLSCA: "/ca.pem",
		TLSInsecure: true, SASLMechanism: "PLAIN", SASLUser: `al"ice`, SASLPassword: `s3\cret`, SASLNeeded: true}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("settings\n%+v\nwant\n%+v", s, want)
	}
	if !slices.Equal(ignored, []string{"acks", "group.id"}) {
		t.Errorf("ignored %q", ignored)
	}

	var p ConnSettings
	_, err = p.ApplyProperties([]Property{{"sasl.kerberos.service.name", "kafka"}}, nil)
	if err == nil || !strings.Contains(err.Error(), `"sasl.kerberos.service.name" is not known; known: bootstrap.servers, client.id,`) || !strings.Contains(err.Error(), "ignored with a warning: acks,") {
		t.Errorf("unknown property: %v", err)
	}
	for _, c := range []Property{{"socket.timeout.ms", "-5"}, {"security.protocol", "kerberos"},
		{"sasl.jaas.config", `com.sun.security.auth.module.Krb5LoginModule required keyTab="x";`}} {
		_, err := p.ApplyProperties([]Property{c}, nil)
		if err == nil || !strings.HasPrefix(err.Error(), "property "+c.Name+": ") || strings.Contains(err.Error(), c.Value) {
			t.Errorf("%s=%s: %v", c.Name, c.Value, err)
		}
	}
	if _, err := p.ApplyProperties([]Property{{"security.protocol", "plaintext"}}, nil); err != nil || p.TLS || p.SASLNeeded {
		t.Errorf("plaintext: %+v, %v", p, err)
	}
}
