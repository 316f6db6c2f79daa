package client

import (
	"context"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/sasl"

	"github.com/kdissect/kdissect/codec"
)

// SASL mechanisms Conn implements.
const (
	SASLPlain       = "PLAIN"         // RFC 4616
	SASLScramSHA256 = "SCRAM-SHA-256" // RFC 5802, RFC 7677; KIP-84
	SASLScramSHA512 = "SCRAM-SHA-512"
)

// SASL holds credentials for SASL authentication: SaslHandshake v1 names
// the mechanism, then SaslAuthenticate requests carry its messages
// (KIP-152). The password is never logged nor put in an error.
type SASL struct {
	Mechanism string // SASLPlain, SASLScramSHA256 or SASLScramSHA512; ignored when Impl is set
	User      string
	Password  string
	// Impl, when set, runs the exchange instead: any franz-go
	// pkg/sasl mechanism, such as oauth.Auth{Token: t}.AsMechanism()
	// (OAUTHBEARER, KIP-255) or aws.ManagedStreamingIAM (AWS_MSK_IAM).
	// Its Name is the mechanism asked for in SaslHandshake; Authenticate
	// is given the broker's "host:port".
	Impl sasl.Mechanism
}

// name is the mechanism's name as SaslHandshake carries it.
func (s *SASL) name() string {
	if s.Impl != nil {
		return s.Impl.Name()
	}
	return s.Mechanism
}

// minScramIterations is the fewest PBKDF2 iterations accepted from a
// server, as Kafka's ScramMechanism requires (and RFC 7677 recommends).
const minScramIterations = 4096

// authenticate runs the SASL exchange on a fresh connection.
func (c *Conn) authenticate(ctx context.Context, s *SASL) error {
	hv, err := c.Version(17)
	if err != nil {
		return err
	}
	if hv < 1 {
		return clientError(ErrUnsupportedVersion, "SaslHandshake v1 is needed (the broker offers only v0, whose raw token framing is not implemented)", nil)
	}
	hs := &codec.SaslHandshakeRequest{Mechanism: s.name()}
	m, err := c.RoundTrip(ctx, hs, hv)
	if err != nil {
		return err
	}
	hr := m.(*codec.SaslHandshakeResponse)
	if hr.ErrorCode != 0 {
		e := kafkaError(hr.ErrorCode)
		e.Message = fmt.Sprintf("mechanism %s; the broker offers %s", s.name(), strings.Join(hr.Mechanisms, ", "))
		return e
	}
	av, err := c.Version(36)
	if err != nil {
		return err
	}
	if s.Impl != nil {
		return c.authenticateImpl(ctx, s.Impl, av)
	}
	var mech saslMechanism
	switch s.Mechanism {
	case SASLPlain:
		mech = &plainMech{user: s.User, pass: s.Password}
	case SASLScramSHA256:
		mech = &scramMech{user: s.User, pass: s.Password, hash: sha256.New}
	case SASLScramSHA512:
		mech = &scramMech{user: s.User, pass: s.Password, hash: sha512.New}
	default:
		return clientError(ErrUnsupportedSaslMechanism, "client side: "+s.Mechanism, nil)
	}
	challenge := []byte(nil)
	for step := 0; ; step++ {
		msg, done, err := mech.next(challenge)
		if err != nil {
			return clientError(ErrSaslAuthenticationFailed, s.Mechanism, err)
		}
		if done && msg == nil {
			return nil
		}
		challenge, err = c.saslRound(ctx, s.Mechanism, msg, av)
		if err != nil {
			return err
		}
		if done {
			// The final server message still needs checking (SCRAM).
			if _, _, err := mech.next(challenge); err != nil {
				return clientError(ErrSaslAuthenticationFailed, s.Mechanism, err)
			}
			return nil
		}
		if step > 4 {
			return clientError(ErrSaslAuthenticationFailed, s.Mechanism+": too many rounds", nil)
		}
	}
}

// saslRound sends one SaslAuthenticate message and returns the server's.
func (c *Conn) saslRound(ctx context.Context, mech string, msg []byte, av int16) ([]byte, error) {
	m, err := c.RoundTrip(ctx, &codec.SaslAuthenticateRequest{AuthBytes: msg}, av)
	if err != nil {
		if errors.Is(err, ErrCannotReceive) {
			// Brokers close the connection on bad credentials
			// (some after an answer with the error, some without).
			return nil, ErrSaslAuthenticationFailed.with("", -1, mech+": the broker closed the connection", err)
		}
		return nil, err
	}
	ar := m.(*codec.SaslAuthenticateResponse)
	if ar.ErrorCode != 0 {
		return nil, partitionError(ar.ErrorCode, "", -1, ar.ErrorMessage)
	}
	return ar.AuthBytes, nil
}

// authenticateImpl runs a franz-go mechanism: its first message, then
// each server message to its session until the session says it is done
// (sending a last message it may return, as franz-go's client does).
func (c *Conn) authenticateImpl(ctx context.Context, m sasl.Mechanism, av int16) error {
	name := m.Name()
	sess, msg, err := m.Authenticate(ctx, c.addr)
	if err != nil {
		return clientError(ErrSaslAuthenticationFailed, name, err)
	}
	for step := 0; ; step++ {
		resp, err := c.saslRound(ctx, name, msg, av)
		if err != nil {
			return err
		}
		done, next, err := sess.Challenge(resp)
		if err != nil {
			return clientError(ErrSaslAuthenticationFailed, name, err)
		}
		if done {
			if next != nil {
				_, err = c.saslRound(ctx, name, next, av)
			}
			return err
		}
		if step > 4 {
			return clientError(ErrSaslAuthenticationFailed, name+": too many rounds", nil)
		}
		msg = next
	}
}

// saslMechanism produces the client's messages. next is given the
// server's last message (nil first) and returns the client's next one;
// done says it is the last the client sends (next is then called once
// more with the server's answer to check it).
type saslMechanism interface {
	next(challenge []byte) (msg []byte, done bool, err error)
}

type plainMech struct {
	user, pass string
	sent       bool
}

func (p *plainMech) next([]byte) ([]byte, bool, error) {
	if p.sent {
		return nil, true, nil
	}
	p.sent = true
	return []byte("\x00" + p.user + "\x00" + p.pass), true, nil
}

// scramMech is the client side of SCRAM (RFC 5802) without channel
// binding, as Kafka uses it.
type scramMech struct {
	user, pass string
	hash       func() hash.Hash
	nonce      string // client nonce; settable for tests

	step            int
	clientFirstBare string
	serverSignature []byte
}

// saslName escapes a SCRAM user name (RFC 5802 5.1).
func saslName(s string) string {
	return strings.NewReplacer("=", "=3D", ",", "=2C").Replace(s)
}

func (s *scramMech) next(challenge []byte) ([]byte, bool, error) {
	s.step++
	switch s.step {
	case 1:
		if s.nonce == "" {
			b := make([]byte, 24)
			rand.Read(b)
			s.nonce = base64.RawStdEncoding.EncodeToString(b)
		}
		s.clientFirstBare = "n=" + saslName(s.user) + ",r=" + s.nonce
		return []byte("n,," + s.clientFirstBare), false, nil
	case 2:
		msg, err := s.clientFinal(string(challenge))
		return msg, true, err
	case 3:
		return nil, true, s.checkServerFinal(string(challenge))
	}
	return nil, true, fmt.Errorf("SCRAM: unexpected step %d", s.step)
}

// scramAttrs parses "k=v,k=v" into a map (values may hold '=').
func scramAttrs(msg string) map[byte]string {
	out := map[byte]string{}
	for part := range strings.SplitSeq(msg, ",") {
		if len(part) >= 2 && part[1] == '=' {
			out[part[0]] = part[2:]
		}
	}
	return out
}

func (s *scramMech) clientFinal(serverFirst string) ([]byte, error) {
	a := scramAttrs(serverFirst)
	if e, ok := a['e']; ok {
		return nil, fmt.Errorf("SCRAM: server error %q", e)
	}
	if _, ok := a['m']; ok {
		return nil, fmt.Errorf("SCRAM: server requires an unsupported extension")
	}
	nonce, salt64, iters := a['r'], a['s'], a['i']
	if !strings.HasPrefix(nonce, s.nonce) || len(nonce) <= len(s.nonce) {
		return nil, fmt.Errorf("SCRAM: server nonce does not extend the client nonce")
	}
	salt, err := base64.StdEncoding.DecodeString(salt64)
	if err != nil || len(salt) == 0 {
		return nil, fmt.Errorf("SCRAM: bad salt %q", salt64)
	}
	n, err := strconv.Atoi(iters)
	if err != nil || n < minScramIterations {
		return nil, fmt.Errorf("SCRAM: iteration count %q, want at least %d", iters, minScramIterations)
	}
	salted, err := pbkdf2.Key(s.hash, s.pass, salt, n, s.hash().Size())
	if err != nil {
		return nil, fmt.Errorf("SCRAM: PBKDF2: %w", err)
	}
	clientKey := hmacSum(s.hash, salted, []byte("Client Key"))
	h := s.hash()
	h.Write(clientKey)
	storedKey := h.Sum(nil)
	withoutProof := "c=" + base64.StdEncoding.EncodeToString([]byte("n,,")) + ",r=" + nonce
	authMessage := s.clientFirstBare + "," + serverFirst + "," + withoutProof
	clientSig := hmacSum(s.hash, storedKey, []byte(authMessage))
	proof := make([]byte, len(clientKey))
	for i := range proof {
		proof[i] = clientKey[i] ^ clientSig[i]
	}
	serverKey := hmacSum(s.hash, salted, []byte("Server Key"))
	s.serverSignature = hmacSum(s.hash, serverKey, []byte(authMessage))
	return []byte(withoutProof + ",p=" + base64.StdEncoding.EncodeToString(proof)), nil
}

func (s *scramMech) checkServerFinal(serverFinal string) error {
	a := scramAttrs(serverFinal)
	if e, ok := a['e']; ok {
		return fmt.Errorf("SCRAM: server error %q", e)
	}
	v, err := base64.StdEncoding.DecodeString(a['v'])
	if err != nil || !hmac.Equal(v, s.serverSignature) {
		return fmt.Errorf("SCRAM: the server's signature does not verify")
	}
	return nil
}

func hmacSum(h func() hash.Hash, key, msg []byte) []byte {
	m := hmac.New(h, key)
	m.Write(msg)
	return m.Sum(nil)
}
