package client

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kdissect/kdissect/codec"
)

// Conn is one connection to one broker: TCP, optionally TLS and SASL, with
// the API versions negotiated when it opened. Requests are sent one at a
// time (callers queue, in the order they arrive) and every response's
// CorrelationId is checked against its request's; a mismatch, a write or
// read failure or a timeout closes the connection, after which every call
// returns ErrClosed: open a new Conn (Client does so by itself).
//
// A Conn is safe for concurrent use.
type Conn struct {
	addr string
	cfg  *Config
	nc   net.Conn

	sem    chan struct{} // held while a request is in flight
	nextID int32         // next CorrelationId; guarded by sem
	wbuf   []byte        // request frame buffer; guarded by sem

	closeOnce sync.Once
	closed    atomic.Bool
	cause     atomic.Pointer[error] // why the connection closed

	broker     map[int16]brokerRange // as the broker advertised them
	negotiated map[int16]int16       // per key; absent: not usable
	apiVersion int16                 // ApiVersions version that was answered
}

type brokerRange struct{ min, max int16 }

// Dial opens a connection to the broker at addr ("host:port", IPv6 as
// "[::1]:9092"; 9092 when the port is missing), wrapped in TLS when
// cfg.TLS is set, negotiates API versions with ApiVersions (KIP-35; the
// ApiVersions version itself per KIP-511: the highest both know, retried at
// the broker's highest when it answers UNSUPPORTED_VERSION) and
// authenticates with SASL when cfg.SASL is set. The whole takes at most
// cfg.DialTimeout (default the request timeout, 1.5 s).
//
// Errors: ErrCannotConnect wrapping the cause (a net error, ErrTimeout, a
// Kafka error such as ErrSaslAuthenticationFailed); a nil cfg means the
// defaults.
func Dial(ctx context.Context, addr string, cfg *Config) (*Conn, error) {
	if cfg == nil {
		cfg = new(Config)
	}
	addr = withDefaultPort(addr)
	ctx, cancel := context.WithTimeout(ctx, cfg.dialTimeout())
	defer cancel()
	fail := func(cause error) error {
		return clientError(ErrCannotConnect, addr, cause)
	}
	var nc net.Conn
	var err error
	if cfg.DialFunc != nil {
		nc, err = cfg.DialFunc(ctx, "tcp", addr)
	} else {
		var d net.Dialer
		nc, err = d.DialContext(ctx, "tcp", addr)
	}
	if err != nil {
		return nil, fail(classifyNetErr(ctx, err, nil))
	}
	if cfg.TLS != nil {
		tc := cfg.TLS.Clone()
		if tc.ServerName == "" {
			if host, _, err := net.SplitHostPort(addr); err == nil {
				tc.ServerName = host
			}
		}
		tlsConn := tls.Client(nc, tc)
		if err := tlsConn.HandshakeContext(ctx); err != nil {
			nc.Close()
			return nil, fail(classifyNetErr(ctx, err, nil))
		}
		nc = tlsConn
	}
	c := &Conn{addr: addr, cfg: cfg, nc: nc, sem: make(chan struct{}, 1)}
	if cfg.NoVersionNegotiation {
		c.negotiated = make(map[int16]int16)
		for _, api := range codec.APIs() {
			v := api.MaxVersion
			if m, ok := cfg.MaxVersions[api.Key]; ok {
				v = min(v, m)
			}
			if v >= api.MinVersion {
				c.negotiated[api.Key] = v
			}
		}
	} else if err := c.negotiate(ctx); err != nil {
		c.close(err)
		return nil, fail(err)
	}
	if cfg.SASL != nil {
		if err := c.authenticate(ctx, cfg.SASL); err != nil {
			c.close(err)
			return nil, fail(err)
		}
	}
	return c, nil
}

// Addr returns the address the connection was opened to.
func (c *Conn) Addr() string { return c.addr }

// Close closes the connection. Requests in flight fail with ErrClosed.
// Close is idempotent.
func (c *Conn) Close() error {
	c.close(clientError(ErrClosed, "closed by the client", nil))
	return nil
}

// close closes the connection once, remembering why.
func (c *Conn) close(cause error) {
	c.closeOnce.Do(func() {
		c.cause.Store(&cause)
		c.closed.Store(true)
		c.nc.Close()
	})
}

// Closed reports whether the connection is closed (by Close or after a
// failure); a closed Conn is useless.
func (c *Conn) Closed() bool { return c.closed.Load() }

// negotiate sends ApiVersions and fills the version tables.
func (c *Conn) negotiate(ctx context.Context) error {
	api, _ := codec.LookupAPI(18)
	v := api.MaxVersion
	if m, ok := c.cfg.MaxVersions[18]; ok {
		v = min(v, m)
	}
	for range 3 {
		req := &codec.ApiVersionsRequest{ClientSoftwareName: softwareName, ClientSoftwareVersion: softwareVersion, NodeId: -1}
		body, err := c.roundTripRaw(ctx, 18, v, req.AppendTo(nil, v), 0)
		if err != nil {
			return err
		}
		resp := new(codec.ApiVersionsResponse)
		_, derr := codec.Decode(resp, body, v)
		if derr != nil || resp.ErrorCode == ErrUnsupportedVersion.code {
			// KIP-511: a broker that does not know version v answers
			// with a v0 body listing the ApiVersions versions it knows.
			v0 := new(codec.ApiVersionsResponse)
			if _, err := codec.Decode(v0, body, 0); err != nil {
				if derr != nil {
					return clientError(ErrBadResponse, "ApiVersions", derr)
				}
				return clientError(ErrBadResponse, "ApiVersions", err)
			}
			if v0.ErrorCode != ErrUnsupportedVersion.code {
				if derr != nil {
					return clientError(ErrBadResponse, "ApiVersions", derr)
				}
				return ErrorForCode(v0.ErrorCode)
			}
			next := int16(0)
			for _, k := range v0.ApiKeys {
				if k.ApiKey == codec.ApiKeyApiVersions {
					next = k.MaxVersion
				}
			}
			if next >= v {
				next = v - 1
			}
			if next < 0 {
				return ErrorForCode(v0.ErrorCode)
			}
			v = next
			continue
		}
		if resp.ErrorCode != 0 {
			return ErrorForCode(resp.ErrorCode)
		}
		c.apiVersion = v
		c.setVersions(resp.ApiKeys)
		return nil
	}
	return clientError(ErrUnsupportedVersion, "ApiVersions: no version in common", nil)
}

// setVersions records the broker's ranges and picks, per ApiKey, the
// highest version both sides support within MaxVersions.
func (c *Conn) setVersions(keys []codec.ApiVersionsResponseApiVersion) {
	c.broker = make(map[int16]brokerRange, len(keys))
	c.negotiated = make(map[int16]int16, len(keys))
	for _, k := range keys {
		c.broker[k.ApiKey] = brokerRange{k.MinVersion, k.MaxVersion}
		api, ok := codec.LookupAPI(k.ApiKey)
		if !ok {
			continue
		}
		v := min(api.MaxVersion, k.MaxVersion)
		if m, ok := c.cfg.MaxVersions[k.ApiKey]; ok {
			v = min(v, m)
		}
		if v >= max(api.MinVersion, k.MinVersion) {
			c.negotiated[k.ApiKey] = v
		}
	}
}

// Version returns the version negotiated for key: the highest the codec
// and the broker both support, within Config.MaxVersions. It returns an
// error matching ErrUnsupportedVersion when there is none.
func (c *Conn) Version(key int16) (int16, error) {
	if v, ok := c.negotiated[key]; ok {
		return v, nil
	}
	msg := codec.APIName(key) + ": no version supported by both the broker and the client"
	if r, ok := c.broker[key]; ok {
		msg += fmt.Sprintf(" (broker v%d-v%d)", r.min, r.max)
	} else if c.broker != nil {
		msg += " (the broker does not offer it)"
	}
	return -1, clientError(ErrUnsupportedVersion, msg, nil)
}

// APIVersion describes one ApiKey as the broker offers it, as the codec
// knows it and as negotiated.
type APIVersion struct {
	Key                  int16
	Name                 string
	BrokerMin, BrokerMax int16 // -1 when the broker does not offer the key
	CodecMin, CodecMax   int16 // -1 when the codec does not know the key
	Negotiated           int16 // -1 when no version is usable
}

// APIVersions returns every ApiKey that the broker offers or the codec
// knows, sorted by key, with the negotiated version. With
// NoVersionNegotiation the broker columns are -1.
func (c *Conn) APIVersions() []APIVersion {
	seen := map[int16]bool{}
	var out []APIVersion
	add := func(key int16) {
		if seen[key] {
			return
		}
		seen[key] = true
		av := APIVersion{Key: key, Name: codec.APIName(key), BrokerMin: -1, BrokerMax: -1, CodecMin: -1, CodecMax: -1, Negotiated: -1}
		if r, ok := c.broker[key]; ok {
			av.BrokerMin, av.BrokerMax = r.min, r.max
		}
		if api, ok := codec.LookupAPI(key); ok {
			av.CodecMin, av.CodecMax = api.MinVersion, api.MaxVersion
		}
		if v, ok := c.negotiated[key]; ok {
			av.Negotiated = v
		}
		out = append(out, av)
	}
	for k := range c.broker {
		add(k)
	}
	for _, api := range codec.APIs() {
		add(api.Key)
	}
	slices.SortFunc(out, func(a, b APIVersion) int { return int(a.Key) - int(b.Key) })
	return out
}

// RoundTrip sends req at version exactly as given (no field is rewritten;
// the header gets the next CorrelationId and the configured ClientId) and
// returns the decoded response. It does not check the version against the
// negotiated one: the broker answers what it answers. A Produce request
// with Acks 0 gets no response: RoundTrip then returns (nil, nil) once the
// request is written.
//
// Errors: ErrUnsupportedVersion when the codec has no layout for version;
// ErrCannotSend when the request could not be written; ErrNoAcknowledgement
// (wrapping ErrTimeout or ErrCannotReceive) when it was written but no
// response came; ErrCorrelationMismatch when the response is another
// request's; ErrBadResponse when it cannot be decoded; ErrClosed on a
// closed Conn. All but ErrBadResponse and ErrUnsupportedVersion close the
// connection. A Kafka error code inside the response is not an error here.
func (c *Conn) RoundTrip(ctx context.Context, req codec.Message, version int16) (codec.Message, error) {
	if req == nil || req.IsResponse() {
		return nil, clientError(ErrInvalidArgument, "RoundTrip needs a request body", nil)
	}
	key := req.APIKey()
	api, ok := codec.LookupAPI(key)
	if !ok || !api.SupportsVersion(version) {
		return nil, clientError(ErrUnsupportedVersion, fmt.Sprintf("%s v%d: the codec has no layout for it", codec.APIName(key), version), nil)
	}
	if p, ok := req.(*codec.ProduceRequest); ok && p.Acks == 0 {
		return nil, c.send(ctx, key, version, req.AppendTo(nil, version), extraWait(req))
	}
	body, err := c.roundTripRaw(ctx, key, version, req.AppendTo(nil, version), extraWait(req))
	if err != nil {
		return nil, err
	}
	resp := api.NewResponse()
	if _, err := codec.Decode(resp, body, version); err != nil {
		return nil, clientError(ErrBadResponse, fmt.Sprintf("%s v%d response", api.Name, version), err)
	}
	return resp, nil
}

// RoundTripRaw sends a request of the given key and version whose body
// (everything after the request header) is body, and returns the response
// body (everything after the response header, whose version is derived
// from key and version). The bytes are sent as given; only the header is
// built here. Errors are RoundTrip's; a key the codec does not know gets
// request header v1 and response header v0.
func (c *Conn) RoundTripRaw(ctx context.Context, key, version int16, body []byte) ([]byte, error) {
	return c.roundTripRaw(ctx, key, version, body, 0)
}

// SendRaw sends a request that gets no response (Produce with Acks 0),
// body as RoundTripRaw takes it.
func (c *Conn) SendRaw(ctx context.Context, key, version int16, body []byte) error {
	return c.send(ctx, key, version, body, 0)
}

// extraWait is how long the broker may hold req by its own fields.
func extraWait(req codec.Message) time.Duration {
	switch r := req.(type) {
	case *codec.FetchRequest:
		return time.Duration(max(r.MaxWaitMs, 0)) * time.Millisecond
	case *codec.ProduceRequest:
		if r.Acks != 0 {
			return time.Duration(max(r.TimeoutMs, 0)) * time.Millisecond
		}
	case *codec.JoinGroupRequest:
		// The coordinator holds the answer until every member joined,
		// up to the rebalance timeout (the session timeout at v0, which
		// has none).
		return time.Duration(max(r.RebalanceTimeoutMs, r.SessionTimeoutMs, 0)) * time.Millisecond
	}
	return 0
}

// acquire takes the connection for one request.
func (c *Conn) acquire(ctx context.Context) error {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return clientError(ErrTimeout, "waiting for the connection to "+c.addr, ctx.Err())
	}
	if c.closed.Load() {
		<-c.sem
		return c.closedErr()
	}
	return nil
}

func (c *Conn) release() { <-c.sem }

func (c *Conn) closedErr() error {
	var cause error
	if p := c.cause.Load(); p != nil {
		cause = *p
	}
	if e, ok := cause.(*Error); ok && e.code == ErrClosed.code {
		return e
	}
	return clientError(ErrClosed, "connection to "+c.addr+" closed earlier", cause)
}

// arm sets the connection deadline for one request and interrupts it when
// ctx is done; the returned function disarms, waiting for an interruption
// already under way so that it cannot hit the next request.
func (c *Conn) arm(ctx context.Context, extra time.Duration) func() {
	deadline := time.Now().Add(c.cfg.requestTimeout() + extra)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	c.nc.SetDeadline(deadline)
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(fired)
		c.nc.SetDeadline(time.Unix(1, 0))
	})
	return func() {
		if !stop() {
			<-fired
		}
	}
}

// writeFrame writes size, header and body as one frame and returns the
// CorrelationId used.
func (c *Conn) writeFrame(key, version int16, body []byte) (int32, error) {
	id := c.nextID
	c.nextID++
	if c.nextID < 0 {
		c.nextID = 0
	}
	hv := codec.RequestHeaderVersion(key, version)
	if _, ok := codec.LookupAPI(key); !ok {
		hv = 1
	}
	clientID := c.cfg.clientID()
	hdr := codec.RequestHeader{RequestApiKey: key, RequestApiVersion: version, CorrelationId: id, ClientId: &clientID}
	b := append(c.wbuf[:0], 0, 0, 0, 0)
	b = hdr.AppendTo(b, hv)
	b = append(b, body...)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	if cap(b) <= 1<<20 {
		c.wbuf = b
	}
	_, err := c.nc.Write(b)
	return id, err
}

// send writes one request that gets no response.
func (c *Conn) send(ctx context.Context, key, version int16, body []byte, extra time.Duration) error {
	if err := c.acquire(ctx); err != nil {
		return err
	}
	defer c.release()
	stop := c.arm(ctx, extra)
	defer stop()
	if _, err := c.writeFrame(key, version, body); err != nil {
		err = clientError(ErrCannotSend, c.what(key, version), classifyNetErr(ctx, err, nil))
		c.close(err)
		return err
	}
	return nil
}

func (c *Conn) what(key, version int16) string {
	return fmt.Sprintf("%s v%d to %s", codec.APIName(key), version, c.addr)
}

// roundTripRaw writes one request and reads its response body.
func (c *Conn) roundTripRaw(ctx context.Context, key, version int16, body []byte, extra time.Duration) ([]byte, error) {
	if err := c.acquire(ctx); err != nil {
		return nil, err
	}
	defer c.release()
	stop := c.arm(ctx, extra)
	defer stop()
	id, err := c.writeFrame(key, version, body)
	if err != nil {
		err = clientError(ErrCannotSend, c.what(key, version), classifyNetErr(ctx, err, nil))
		c.close(err)
		return nil, err
	}
	resp, err := c.readFrame()
	if err != nil {
		err = clientError(ErrNoAcknowledgement, c.what(key, version), classifyNetErr(ctx, err, ErrCannotReceive))
		c.close(err)
		return nil, err
	}
	if len(resp) < 4 {
		err := clientError(ErrBadResponse, c.what(key, version), fmt.Errorf("response frame of %d bytes", len(resp)))
		c.close(err)
		return nil, err
	}
	if got := int32(binary.BigEndian.Uint32(resp)); got != id {
		err := clientError(ErrCorrelationMismatch, fmt.Sprintf("%s: CorrelationId %d in the response, %d in the request", c.what(key, version), got, id), nil)
		c.close(err)
		return nil, err
	}
	r := codec.NewReader(resp)
	var hdr codec.ResponseHeader
	hv := codec.ResponseHeaderVersion(key, version)
	if _, ok := codec.LookupAPI(key); !ok {
		hv = 0
	}
	hdr.ReadFrom(r, hv)
	if err := r.Err(); err != nil {
		return nil, clientError(ErrBadResponse, c.what(key, version)+": response header", err)
	}
	return resp[r.Offset():], nil
}

// readFrame reads one size-prefixed frame.
func (c *Conn) readFrame() ([]byte, error) {
	var sz [4]byte
	if _, err := io.ReadFull(c.nc, sz[:]); err != nil {
		return nil, err
	}
	n := int32(binary.BigEndian.Uint32(sz[:]))
	if n < 0 || n > c.cfg.maxResponseBytes() {
		return nil, fmt.Errorf("response size %d outside 0..%d", n, c.cfg.maxResponseBytes())
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(c.nc, buf); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return buf, nil
}

// classifyNetErr wraps a deadline error in ErrTimeout (with ctx's error
// too when ctx ended), and any other I/O error in other (returned as it is
// when other is nil).
func classifyNetErr(ctx context.Context, err error, other *Error) error {
	if ctx.Err() != nil {
		return clientError(ErrTimeout, "", errors.Join(ctx.Err(), err))
	}
	var ne net.Error
	if errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return clientError(ErrTimeout, "", err)
	}
	if other == nil {
		return err
	}
	msg := ""
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "connection closed by the broker"
	}
	return clientError(other, msg, err)
}
