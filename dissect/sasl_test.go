package dissect

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/gopacket/gopacket/layers"

	"github.com/kdissect/kdissect/codec"
)

// saslHandshake returns a SaslHandshake request (Mechanism) and its
// response (ErrorCode, Mechanisms [mech]).
func saslHandshake(ver int16, corr int32, mech string, errorCode int16) (req, resp []byte) {
	body := binary.BigEndian.AppendUint16(nil, uint16(len(mech)))
	body = append(body, mech...)
	req = reqFrame(17, ver, corr, "sasl-client", body)
	rb := binary.BigEndian.AppendUint16(nil, uint16(errorCode))
	rb = binary.BigEndian.AppendUint32(rb, 1)
	rb = binary.BigEndian.AppendUint16(rb, uint16(len(mech)))
	rb = append(rb, mech...)
	return req, respFrame(corr, rb)
}

// token frames a raw SASL token: a size, then the bytes.
func token(b string) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

// saslFlow is a connection that authenticates with SaslHandshake v0 and
// raw tokens, then sends Metadata and ApiVersions requests.
func saslFlow(t *testing.T, mech string, tokens [][2]string) ([]byte, int) {
	clock := testClock()
	c := newConn(t, ethernet, 40000, 9092, &clock)
	pkts := c.handshake()
	hreq, hresp := saslHandshake(0, 1, mech, 0)
	pkts = append(pkts, c.send(true, hreq)...)
	pkts = append(pkts, c.send(false, hresp)...)
	for _, tk := range tokens {
		pkts = append(pkts, c.send(true, token(tk[0]))...)
		pkts = append(pkts, c.send(false, token(tk[1]))...)
	}
	for corr := int32(2); corr <= 3; corr++ {
		pkts = append(pkts, c.send(true, reqFrame(3, 1, corr, "sasl-client", []byte{0, 0, 0, 0}))...)
		pkts = append(pkts, c.send(false, respFrame(corr, filler(30, 1)))...)
	}
	pkts = append(pkts, c.close()...)
	return writePcap(t, layers.LinkTypeEthernet, pkts), len(tokens)
}

// After a SaslHandshake v0 (KIP-43), raw tokens become SASL token
// pseudo-exchanges, an empty broker token included, and the Kafka
// requests after them decode as usual: no bogus ApiKey, no implausible
// frame size.
func TestSASLHandshakeV0(t *testing.T) {
	flows := []struct {
		mech   string
		tokens [][2]string
	}{
		// PLAIN (RFC 4616): one token, the broker answers with an empty one.
		// "\x00alice" read as a request header is ApiKey 97.
		{"PLAIN", [][2]string{{"\x00alice\x00alice-secret", ""}}},
		// SCRAM (RFC 5802): client-first, server-first, client-final,
		// server-final.
		{"SCRAM-SHA-256", [][2]string{
			{"n,,n=alice,r=rOprNGfwEbeRWgbNEkqO", "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"},
			{"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=", "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="},
		}},
		// A mechanism whose round trips we do not count: the phase ends
		// when a Kafka request comes.
		{"GSSAPI", [][2]string{{"\x60\x82\x02\x10token-1", "\x60\x81\x90reply-1"}, {"\x60\x10token-2", ""}, {"\x05\x04wrap", "\x05\x04wrap-reply"}}},
	}
	for _, fl := range flows {
		for _, valid := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/valid=%v", fl.mech, valid), func(t *testing.T) {
				capture, n := saslFlow(t, fl.mech, fl.tokens)
				opts := Options{}
				if valid {
					opts.ValidRequest = func(k, v int16) bool {
						api, ok := codec.LookupAPI(k)
						return ok && api.SupportsVersion(v)
					}
				}
				d := New(opts)
				got, err := readAll(t, d, capture)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != 1+n+2 {
					for _, e := range got {
						t.Log(describe(e))
					}
					t.Fatalf("%d exchanges, want %d", len(got), 1+n+2)
				}
				if e := got[0]; e.APIKey != 17 || e.APIVersion != 0 || e.Response == nil || len(e.Notes) > 0 || e.SASLToken {
					t.Errorf("handshake: %s", describe(e))
				}
				for i, tk := range fl.tokens {
					e := got[1+i]
					if !e.SASLToken || e.SASLMechanism != fl.mech || e.APIKey != -1 || e.CorrelationID != -1 ||
						string(e.Request.Bytes) != tk[0] || e.Response == nil || string(e.Response.Bytes) != tk[1] || int(e.Response.Size) != len(tk[1]) {
						t.Errorf("token %d: %s", i, describe(e))
					}
					want := fmt.Sprintf("SASL %s token after SaslHandshake v0 (KIP-43), no Kafka header: client %d bytes, broker %d bytes; content redacted", fl.mech, len(tk[0]), len(tk[1]))
					if len(e.Notes) != 1 || e.Notes[0].Text != want {
						t.Errorf("token %d notes %q, want %q", i, e.Notes, want)
					}
					// The decoder leaves the tokens alone.
					NewDecoder(DecodeOptions{}).Decode(e)
					if len(e.Notes) != 1 {
						t.Errorf("token %d after decoding: %q", i, e.Notes)
					}
				}
				for _, e := range got[1+n:] {
					if e.APIKey != 3 || e.Response == nil || len(e.Notes) > 0 || e.SASLToken {
						t.Errorf("after authentication: %s", describe(e))
					}
				}
				if st := d.Stats(); st.LostBytes != 0 || len(st.Problems) != 0 || st.Frames != int64(2+2*n+4) {
					t.Errorf("stats %+v", st)
				}
			})
		}
	}
}

// A failed SaslHandshake v0 starts no SASL phase, and SaslHandshake v1
// (KIP-152: tokens in SaslAuthenticate requests) needs none.
func TestSASLNoRawPhase(t *testing.T) {
	for _, tc := range []struct {
		name      string
		ver       int16
		errorCode int16
	}{{"v0 refused", 0, 33}, {"v1", 1, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			clock := testClock()
			c := newConn(t, ethernet, 40000, 9092, &clock)
			hreq, hresp := saslHandshake(tc.ver, 1, "PLAIN", tc.errorCode)
			pkts := c.send(true, hreq)
			pkts = append(pkts, c.send(false, hresp)...)
			// SaslAuthenticate v1 carrying the PLAIN token.
			auth := reqFrame(36, 1, 2, "sasl-client", cat([]byte{0, 0, 0, 19}, []byte("\x00alice\x00alice-pass")))
			pkts = append(pkts, c.send(true, auth)...)
			pkts = append(pkts, c.send(false, respFrame(2, filler(12, 1)))...)
			got, err := readAll(t, New(Options{}), writePcap(t, layers.LinkTypeEthernet, pkts))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 || got[1].APIKey != 36 || got[1].SASLToken || got[1].Response == nil || len(got[1].Notes) > 0 {
				for _, e := range got {
					t.Log(describe(e))
				}
				t.Fatal("SaslAuthenticate not read as a Kafka request")
			}
		})
	}
}
