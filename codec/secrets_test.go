package codec

import (
	"strings"
	"testing"
)

func TestRedactSASL(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
		secret         bool
	}{
		{"PLAIN", "\x00alice\x00s3cret", "\x00alice\x00***", true},
		{"PLAIN with authzid", "admin\x00alice\x00s3cret", "admin\x00alice\x00***", true},
		{"SCRAM client-first", "n,,n=alice,r=fyko+d2lbbFgONRv9qkxdawL", "n,,n=alice,r=fyko+d2lbbFgONRv9qkxdawL", false},
		{"SCRAM client-final", "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=",
			"c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=***", true},
		{"OAUTHBEARER", "n,a=alice,\x01auth=Bearer eyJhbGciOi.payload.sig\x01host=broker\x01\x01",
			"n,a=alice,\x01auth=Bearer ***\x01host=broker\x01\x01", true},
		{"binary (GSSAPI)", "\x60\x82\x02\x10\x06\x09\x2a\x86\x48\x86\xf7", "***", true},
		{"unknown text", "hello", "***", true},
	} {
		got, secret := RedactSASL([]byte(c.in))
		if got != c.want || secret != c.secret {
			t.Errorf("%s: RedactSASL(%q) = %q, %v; want %q, %v", c.name, c.in, got, secret, c.want, c.secret)
		}
		if secret && strings.Contains(got, "s3cret") || strings.Contains(got, "v0X8v3Bz2T0") || strings.Contains(got, "eyJhbGci") {
			t.Errorf("%s: secret left in %q", c.name, got)
		}
	}
}

// TestSecretsInJSON checks that generated JSON redacts SASL tokens and
// @secret fields by default and shows them with ShowSecrets.
func TestSecretsInJSON(t *testing.T) {
	req := &SaslAuthenticateRequest{AuthBytes: []byte("\x00alice\x00s3cret")}
	w := NewJSONWriter(nil)
	req.WriteJSON(w, 2)
	if got := string(w.Bytes()); got != `{"AuthBytes":{"redacted":"\u0000alice\u0000***","bytes":13}}` {
		t.Errorf("redacted: %s", got)
	}
	w = NewJSONWriter(nil)
	w.ShowSecrets = true
	req.WriteJSON(w, 2)
	if got := string(w.Bytes()); got != `{"AuthBytes":{"base64":"AGFsaWNlAHMzY3JldA=="}}` {
		t.Errorf("--show-secrets: %s", got)
	}

	tok := &CreateDelegationTokenResponse{Hmac: []byte{1, 2, 3, 4}, TokenId: "tok"}
	w = NewJSONWriter(nil)
	tok.WriteJSON(w, 3)
	if got := string(w.Bytes()); !strings.Contains(got, `"Hmac":{"redacted":"***","bytes":4}`) {
		t.Errorf("hmac: %s", got)
	}
	// The response's AuthBytes (SCRAM server messages) hold no client secret.
	resp := &SaslAuthenticateResponse{AuthBytes: []byte("r=abc,s=c2FsdA==,i=4096")}
	w = NewJSONWriter(nil)
	resp.WriteJSON(w, 2)
	if got := string(w.Bytes()); !strings.Contains(got, `"AuthBytes":"r=abc,s=c2FsdA==,i=4096"`) {
		t.Errorf("server-first: %s", got)
	}
}

func TestConfigValueRedaction(t *testing.T) {
	jaas := `org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="hunter2";`
	retention := "604800000"
	req := &AlterConfigsRequest{Resources: []AlterConfigsRequestAlterConfigsResource{{ResourceType: 4, ResourceName: "1",
		Configs: []AlterConfigsRequestAlterableConfig{
			{Name: "listener.name.sasl_ssl.plain.sasl.jaas.config", Value: &jaas},
			{Name: "log.retention.ms", Value: &retention},
			{Name: "ssl.key.password", Value: nil},
		}}}}
	w := NewJSONWriter(nil)
	req.WriteJSON(w, 1)
	got := string(w.Bytes())
	if strings.Contains(got, "hunter2") || !strings.Contains(got, `"Value":{"redacted":"***","bytes":`) ||
		!strings.Contains(got, `"Value":"604800000"`) || !strings.Contains(got, `"Name":"ssl.key.password","Value":null`) {
		t.Errorf("redacted configs: %s", got)
	}
	w = NewJSONWriter(nil)
	w.ShowSecrets = true
	req.WriteJSON(w, 1)
	if !strings.Contains(string(w.Bytes()), "hunter2") {
		t.Errorf("--show-secrets: %s", w.Bytes())
	}
	for name, want := range map[string]bool{"ssl.truststore.password": true, "sasl.jaas.config": true,
		"sasl.oauthbearer.client.credentials.client.secret": true, "ssl.keystore.key": true,
		"retention.ms": false, "cleanup.policy": false, "ssl.keystore.type": false} {
		if IsSensitiveConfig(name) != want {
			t.Errorf("IsSensitiveConfig(%q) = %v", name, !want)
		}
	}
}
