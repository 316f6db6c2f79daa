package client

import (
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/aws"
	"github.com/twmb/franz-go/pkg/sasl/oauth"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// TestSASLImplAgainstKfake: a franz-go mechanism given as SASL.Impl runs
// its whole exchange (SCRAM's two rounds and the server signature check)
// against kfake's SASL server; a wrong password fails the dial.
func TestSASLImplAgainstKfake(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.EnableSASL(), kfake.Superuser(SASLScramSHA512, "u", "p"), kfake.SeedTopics(1, "s"))
	ctx := testCtx(t)
	good := scram.Auth{User: "u", Pass: "p"}.AsSha512Mechanism()
	cl, err := New(ctx, Config{Brokers: c.ListenAddrs(), SASL: &SASL{Impl: good}})
	if err != nil {
		t.Fatal(err)
	}
	if md, err := cl.Metadata(ctx, "s"); err != nil || len(md.Topics) != 1 {
		t.Errorf("metadata after auth: %v", err)
	}
	cl.Close()
	bad := scram.Auth{User: "u", Pass: "wrong"}.AsSha512Mechanism()
	if _, err := Dial(ctx, c.ListenAddrs()[0], &Config{SASL: &SASL{Impl: bad}}); !errors.Is(err, ErrSaslAuthenticationFailed) {
		t.Errorf("wrong password: %v", err)
	}
}

// saslRecorder makes kfake accept any mechanism in SaslHandshake and
// record the SaslAuthenticate bytes, answering each with reply.
func saslRecorder(c *kfake.Cluster, reply func(auth []byte) (code int16, answer []byte)) (mechs *[]string, auths *[][]byte) {
	var mu sync.Mutex
	mechs, auths = new([]string), new([][]byte)
	c.ControlKey(int16(kmsg.SASLHandshake), func(kr kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kr.(*kmsg.SASLHandshakeRequest)
		mu.Lock()
		*mechs = append(*mechs, req.Mechanism)
		mu.Unlock()
		return req.ResponseKind(), nil, true
	})
	c.ControlKey(int16(kmsg.SASLAuthenticate), func(kr kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kr.(*kmsg.SASLAuthenticateRequest)
		mu.Lock()
		*auths = append(*auths, append([]byte(nil), req.SASLAuthBytes...))
		mu.Unlock()
		resp := req.ResponseKind().(*kmsg.SASLAuthenticateResponse)
		resp.ErrorCode, resp.SASLAuthBytes = reply(req.SASLAuthBytes)
		return resp, nil, true
	})
	return mechs, auths
}

// TestSASLOauthBearer: OAUTHBEARER through franz-go's oauth mechanism:
// the handshake names it, the one message is RFC 7628's client response
// with the token; a server error (a JSON status, then
// SASL_AUTHENTICATION_FAILED on the client's %x01) fails the dial.
func TestSASLOauthBearer(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.SeedTopics(1, "o"))
	mechs, auths := saslRecorder(c, func(auth []byte) (int16, []byte) {
		switch string(auth) {
		case "n,,\x01auth=Bearer good-token\x01\x01":
			return 0, nil
		case "\x01":
			return 58, nil // SASL_AUTHENTICATION_FAILED
		}
		return 0, []byte(`{"status":"invalid_token"}`)
	})
	ctx := testCtx(t)
	cl, err := New(ctx, Config{Brokers: c.ListenAddrs(), SASL: &SASL{Impl: oauth.Auth{Token: "good-token"}.AsMechanism()}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Metadata(ctx, "o"); err != nil {
		t.Error(err)
	}
	cl.Close()
	if len(*mechs) == 0 || (*mechs)[0] != "OAUTHBEARER" || len(*auths) != 1 {
		t.Errorf("handshakes %q, %d authenticate requests", *mechs, len(*auths))
	}
	_, err = Dial(ctx, c.ListenAddrs()[0], &Config{SASL: &SASL{Impl: oauth.Auth{Token: "bad"}.AsMechanism()}})
	if !errors.Is(err, ErrSaslAuthenticationFailed) {
		t.Errorf("bad token: %v", err)
	}
}

// TestSASLAwsMskIam: AWS_MSK_IAM through franz-go's aws mechanism sends
// the signed kafka-cluster:Connect payload MSK checks (version 2020_10_22,
// the access key in the credential scope, a SigV4 signature).
func TestSASLAwsMskIam(t *testing.T) {
	noLeaks(t)
	t.Setenv("AWS_REGION", "eu-west-3")
	c := newCluster(t, kfake.SeedTopics(1, "a"))
	mechs, auths := saslRecorder(c, func([]byte) (int16, []byte) { return 0, []byte(`{"version":"2020_10_22","request-id":"x"}`) })
	ctx := testCtx(t)
	m := aws.Auth{AccessKey: "AKIDEXAMPLE", SecretKey: "secret", UserAgent: "kdissect-test"}.AsManagedStreamingIAMMechanism()
	cl, err := New(ctx, Config{Brokers: c.ListenAddrs(), SASL: &SASL{Impl: m}})
	if err != nil {
		t.Fatal(err)
	}
	cl.Close()
	if len(*mechs) == 0 || (*mechs)[0] != "AWS_MSK_IAM" || len(*auths) != 1 {
		t.Fatalf("handshakes %q, %d authenticate requests", *mechs, len(*auths))
	}
	var p map[string]string
	if err := json.Unmarshal((*auths)[0], &p); err != nil {
		t.Fatal(err)
	}
	if p["action"] != "kafka-cluster:Connect" || p["version"] != "2020_10_22" || p["host"] != "127.0.0.1" ||
		len(p["x-amz-signature"]) != 64 || p["x-amz-credential"][:12] != "AKIDEXAMPLE/" || p["user-agent"] != "kdissect-test" {
		t.Errorf("payload %v", p)
	}
}
