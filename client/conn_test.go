package client

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kdissect/kdissect/codec"
)

// TestDialNegotiates: against kfake, every API both sides know is
// negotiated at min(codec max, broker max), MaxVersions caps it, and keys
// the broker does not offer are unsupported.
func TestDialNegotiates(t *testing.T) {
	noLeaks(t)
	c := newCluster(t)
	ctx := testCtx(t)
	cn, err := Dial(ctx, c.ListenAddrs()[0], &Config{MaxVersions: map[int16]int16{3: 4}})
	if err != nil {
		t.Fatal(err)
	}
	defer cn.Close()
	if cn.apiVersion != 5 {
		t.Errorf("ApiVersions answered at v%d, want v5", cn.apiVersion)
	}
	for _, av := range cn.APIVersions() {
		if av.BrokerMax < 0 || av.CodecMax < 0 {
			if av.Negotiated != -1 {
				t.Errorf("%s: negotiated v%d though one side lacks it", av.Name, av.Negotiated)
			}
			continue
		}
		want := min(av.BrokerMax, av.CodecMax)
		if av.Key == 3 {
			want = 4
		}
		if want < max(av.BrokerMin, av.CodecMin) {
			want = -1
		}
		if av.Negotiated != want {
			t.Errorf("%s: negotiated v%d, want v%d (broker v%d-v%d, codec v%d-v%d)", av.Name, av.Negotiated, want, av.BrokerMin, av.BrokerMax, av.CodecMin, av.CodecMax)
		}
	}
	if v, _ := cn.Version(0); v != 13 {
		t.Errorf("Produce negotiated v%d, want 13", v)
	}
	// kfake does not serve LeaderAndIsr (a controller-to-broker API).
	if _, err := cn.Version(4); !errors.Is(err, ErrUnsupportedVersion) {
		t.Errorf("LeaderAndIsr: %v", err)
	}
}

// TestApiVersionsFallback: a broker that knows only ApiVersions v0-v2
// answers our v5 request with a v0 body holding UNSUPPORTED_VERSION and
// its range (KIP-511); the client asks again at v2 and negotiates.
func TestApiVersionsFallback(t *testing.T) {
	noLeaks(t)
	vs := kversion.Stable()
	vs.SetMaxKeyVersion(18, 2)
	vs.SetMaxKeyVersion(3, 7)
	c := newCluster(t, kfake.MaxVersions(vs))
	cn, err := Dial(testCtx(t), c.ListenAddrs()[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cn.Close()
	if cn.apiVersion != 2 {
		t.Errorf("ApiVersions answered at v%d, want v2", cn.apiVersion)
	}
	if v, _ := cn.Version(3); v != 7 {
		t.Errorf("Metadata negotiated v%d, want v7", v)
	}
}

// TestApiVersionsFallbackToV0: a broker whose UNSUPPORTED_VERSION answer
// lists no ApiVersions range gets v0.
func TestApiVersionsFallbackToV0(t *testing.T) {
	noLeaks(t)
	var seen []int16
	var mu sync.Mutex
	s := newRawServer(t, func(c net.Conn) {
		for {
			_, key, v, corr, err := readRequest(c)
			if err != nil || key != 18 {
				return
			}
			mu.Lock()
			seen = append(seen, v)
			mu.Unlock()
			resp := &codec.ApiVersionsResponse{ErrorCode: 35}
			if v == 0 {
				resp = &codec.ApiVersionsResponse{ApiKeys: []codec.ApiVersionsResponseApiVersion{{ApiKey: 18, MaxVersion: 0}, {ApiKey: 3, MaxVersion: 0}}}
			}
			writeResponse(c, 18, v, corr, resp.AppendTo(nil, 0))
		}
	})
	cn, err := Dial(testCtx(t), s.addr(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cn.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen[0] != 5 || seen[1] != 4 && seen[1] != 0 {
		t.Logf("versions tried: %v", seen)
	}
	if seen[len(seen)-1] != 0 {
		t.Errorf("versions tried %v, want to end at v0", seen)
	}
	if v, _ := cn.Version(3); v != 0 {
		t.Errorf("Metadata v%d, want v0", v)
	}
}

// TestRoundTripRaw: the raw path sends a body as given and returns the
// response body, which decodes at the same version; RoundTrip refuses a
// version the codec has no layout for.
func TestRoundTripRaw(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.SeedTopics(2, "raw"))
	ctx := testCtx(t)
	cn, err := Dial(ctx, c.ListenAddrs()[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cn.Close()
	name := "raw"
	for _, v := range []int16{0, 1, 4, 9, 12, 13} {
		req := &codec.MetadataRequest{Topics: []codec.MetadataRequestTopic{{Name: &name}}}
		body, err := cn.RoundTripRaw(ctx, 3, v, req.AppendTo(nil, v))
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		resp := new(codec.MetadataResponse)
		if _, err := codec.Decode(resp, body, v); err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 2 {
			t.Errorf("v%d: %+v", v, resp.Topics)
		}
		m, err := cn.RoundTrip(ctx, req, v)
		if err != nil || len(m.(*codec.MetadataResponse).Topics) != 1 {
			t.Errorf("RoundTrip v%d: %v", v, err)
		}
	}
	if _, err := cn.RoundTrip(ctx, &codec.MetadataRequest{}, 99); !errors.Is(err, ErrUnsupportedVersion) {
		t.Errorf("v99: %v", err)
	}
	if _, err := cn.RoundTrip(ctx, &codec.MetadataResponse{}, 1); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("a response as request: %v", err)
	}
	// The connection is still usable after refusals.
	if _, err := cn.RoundTrip(ctx, &codec.ApiVersionsRequest{}, 0); err != nil {
		t.Error(err)
	}
}

// TestConcurrentRoundTrips: many goroutines share one Conn; every answer
// matches its request.
func TestConcurrentRoundTrips(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.SeedTopics(1, "a", "b", "c"))
	ctx := testCtx(t)
	cn, err := Dial(ctx, c.ListenAddrs()[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cn.Close()
	var wg sync.WaitGroup
	names := []string{"a", "b", "c"}
	for i := range 30 {
		wg.Go(func() {
			name := names[i%3]
			m, err := cn.RoundTrip(ctx, &codec.MetadataRequest{Topics: []codec.MetadataRequestTopic{{Name: &name}}}, 12)
			if err != nil {
				t.Error(err)
				return
			}
			if got := *m.(*codec.MetadataResponse).Topics[0].Name; got != name {
				t.Errorf("asked for %s, got %s", name, got)
			}
		})
	}
	wg.Wait()
}

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestConnectionRefused: Dial and New report ErrCannotConnect, wrapping
// the network error.
func TestConnectionRefused(t *testing.T) {
	noLeaks(t)
	addr := freeAddr(t)
	_, err := Dial(testCtx(t), addr, nil)
	var ne *net.OpError
	if !errors.Is(err, ErrCannotConnect) || !errors.As(err, &ne) {
		t.Errorf("Dial: %v", err)
	}
	_, err = New(testCtx(t), Config{Brokers: []string{addr}})
	if !errors.Is(err, ErrCannotConnect) {
		t.Errorf("New: %v", err)
	}
	if _, err := New(testCtx(t), Config{}); !errors.Is(err, ErrNoKnownBrokers) {
		t.Errorf("New without brokers: %v", err)
	}
}

// TestCorrelationMismatch: a response carrying another CorrelationId is
// fatal: the request fails with ErrCorrelationMismatch, the connection is
// closed, and later requests fail with ErrClosed. During Dial (the
// ApiVersions answer) it fails the dial.
func TestCorrelationMismatch(t *testing.T) {
	noLeaks(t)
	s := newRawServer(t, func(c net.Conn) {
		for {
			_, key, v, corr, err := readRequest(c)
			if err != nil {
				return
			}
			writeResponse(c, key, v, corr+7, (&codec.MetadataResponse{}).AppendTo(nil, v))
		}
	})
	ctx := testCtx(t)
	cn, err := Dial(ctx, s.addr(), &Config{NoVersionNegotiation: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cn.RoundTrip(ctx, &codec.MetadataRequest{}, 1)
	if !errors.Is(err, ErrCorrelationMismatch) {
		t.Fatalf("got %v", err)
	}
	if !cn.Closed() {
		t.Error("connection left open")
	}
	if _, err := cn.RoundTrip(ctx, &codec.MetadataRequest{}, 1); !errors.Is(err, ErrClosed) {
		t.Errorf("after mismatch: %v", err)
	}
	_, err = Dial(ctx, s.addr(), nil)
	if !errors.Is(err, ErrCannotConnect) || !errors.Is(err, ErrCorrelationMismatch) {
		t.Errorf("Dial: %v", err)
	}
}

// TestBrokerClosesMidRequest: a broker that closes the connection after
// reading the request, or in the middle of its response, makes the request
// fail at once with ErrNoAcknowledgement wrapping ErrCannotReceive.
func TestBrokerClosesMidRequest(t *testing.T) {
	noLeaks(t)
	for _, half := range []bool{false, true} {
		s := newRawServer(t, func(c net.Conn) {
			_, key, v, corr, err := readRequest(c)
			if err != nil {
				return
			}
			if half {
				body := (&codec.MetadataResponse{Brokers: make([]codec.MetadataResponseBroker, 3)}).AppendTo(nil, v)
				b := []byte{0, 0, 1, 0, byte(corr >> 24), byte(corr >> 16), byte(corr >> 8), byte(corr)}
				c.Write(append(b, body[:5]...))
			}
			_ = key
		})
		ctx := testCtx(t)
		cn, err := Dial(ctx, s.addr(), &Config{NoVersionNegotiation: true, RequestTimeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err = cn.RoundTrip(ctx, &codec.MetadataRequest{}, 1)
		if !errors.Is(err, ErrNoAcknowledgement) || !errors.Is(err, ErrCannotReceive) || errors.Is(err, ErrTimeout) {
			t.Errorf("half=%v: %v", half, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("half=%v: took %v", half, d)
		}
	}
}

// TestRequestTimeout: a broker that never answers makes the request fail
// after the request timeout with ErrNoAcknowledgement wrapping ErrTimeout;
// a cancelled context ends it at once, wrapping context.Canceled.
func TestRequestTimeout(t *testing.T) {
	noLeaks(t)
	c := newCluster(t)
	// kfake holds every Metadata request until the test ends.
	release := make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	c.ControlKey(int16(kmsg.Metadata), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		c.SleepControl(func() { <-release })
		return nil, nil, false
	})
	ctx := testCtx(t)
	cn, err := Dial(ctx, c.ListenAddrs()[0], &Config{RequestTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = cn.RoundTrip(ctx, &codec.MetadataRequest{}, 12)
	d := time.Since(start)
	if !errors.Is(err, ErrNoAcknowledgement) || !errors.Is(err, ErrTimeout) {
		t.Errorf("got %v", err)
	}
	if d < 250*time.Millisecond || d > 3*time.Second {
		t.Errorf("timed out after %v, want about 300ms", d)
	}

	cn, err = Dial(ctx, c.ListenAddrs()[0], &Config{RequestTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer cn.Close()
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(100*time.Millisecond, cancel)
	start = time.Now()
	_, err = cn.RoundTrip(cctx, &codec.MetadataRequest{}, 12)
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("cancel took %v", d)
	}
	once.Do(func() { close(release) })
}

// TestSASL: PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 against kfake with SASL
// enabled; a wrong password fails the dial with SASL_AUTHENTICATION_FAILED;
// an unknown mechanism with UNSUPPORTED_SASL_MECHANISM.
func TestSASL(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.EnableSASL(),
		kfake.Superuser(SASLPlain, "plainuser", "plainpass"),
		kfake.Superuser(SASLScramSHA256, "user256", "pass256"),
		kfake.Superuser(SASLScramSHA512, "user512", "pass,=512"),
		kfake.SeedTopics(1, "s"))
	ctx := testCtx(t)
	for _, s := range []SASL{
		{Mechanism: SASLPlain, User: "plainuser", Password: "plainpass"},
		{Mechanism: SASLScramSHA256, User: "user256", Password: "pass256"},
		{Mechanism: SASLScramSHA512, User: "user512", Password: "pass,=512"},
	} {
		cl, err := New(ctx, Config{Brokers: c.ListenAddrs(), SASL: &s})
		if err != nil {
			t.Fatalf("%s: %v", s.Mechanism, err)
		}
		md, err := cl.Metadata(ctx, "s")
		if err != nil || len(md.Topics) != 1 {
			t.Errorf("%s: metadata after auth: %v", s.Mechanism, err)
		}
		cl.Close()
		bad := s
		bad.Password = "wrong"
		_, err = Dial(ctx, c.ListenAddrs()[0], &Config{SASL: &bad})
		if !errors.Is(err, ErrCannotConnect) || !errors.Is(err, ErrSaslAuthenticationFailed) {
			t.Errorf("%s with a wrong password: %v", s.Mechanism, err)
		}
	}
	_, err := Dial(ctx, c.ListenAddrs()[0], &Config{SASL: &SASL{Mechanism: "GSSAPI"}})
	if !errors.Is(err, ErrUnsupportedSaslMechanism) {
		t.Errorf("GSSAPI: %v", err)
	}
}

// TestSCRAMVector: the SCRAM-SHA-256 exchange of RFC 7677 section 3,
// byte for byte, including the server signature check.
func TestSCRAMVector(t *testing.T) {
	m := &scramMech{user: "user", pass: "pencil", hash: sha256.New, nonce: "rOprNGfwEbeRWgbNEkqO"}
	first, done, err := m.next(nil)
	if err != nil || done || string(first) != "n,,n=user,r=rOprNGfwEbeRWgbNEkqO" {
		t.Fatalf("client-first %q %v %v", first, done, err)
	}
	final, done, err := m.next([]byte("r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"))
	want := "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
	if err != nil || !done || string(final) != want {
		t.Fatalf("client-final %q, want %q (%v)", final, want, err)
	}
	if _, _, err := m.next([]byte("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")); err != nil {
		t.Errorf("server-final: %v", err)
	}
	m2 := &scramMech{user: "user", pass: "pencil", hash: sha256.New, nonce: "rOprNGfwEbeRWgbNEkqO"}
	m2.next(nil)
	m2.next([]byte("r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"))
	if _, _, err := m2.next([]byte("v=AAAATRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")); err == nil {
		t.Error("a forged server signature verified")
	}
	m3 := &scramMech{user: "user", pass: "pencil", hash: sha256.New, nonce: "abc"}
	m3.next(nil)
	if _, _, err := m3.next([]byte("r=abcdef,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=1024")); err == nil {
		t.Error("accepted 1024 iterations")
	}
	if _, _, err := (&scramMech{nonce: "abc", step: 1}).next([]byte("r=xyz,s=AA==,i=4096")); err == nil {
		t.Error("accepted a nonce that does not extend ours")
	}
	if saslName("a=b,c") != "a=3Db=2Cc" {
		t.Error("saslname escaping")
	}
}

// TestTLS: a kfake cluster listening with TLS; the client verifies its
// certificate with the given roots, and fails to connect without them.
func TestTLS(t *testing.T) {
	noLeaks(t)
	cert, pool := selfSigned(t)
	c := newCluster(t, kfake.TLS(&tls.Config{Certificates: []tls.Certificate{cert}}), kfake.SeedTopics(1, "tls"))
	ctx := testCtx(t)
	cl, err := New(ctx, Config{Brokers: c.ListenAddrs(), TLS: &tls.Config{RootCAs: pool}})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	p, _ := NewProducer(cl, ProducerConfig{})
	if _, err := p.Produce(ctx, "tls", 0, Record{Value: []byte("over tls")}); err != nil {
		t.Fatal(err)
	}
	fr, err := NewConsumer(cl, ConsumerConfig{}).Fetch(ctx, "tls", 0, 0)
	if err != nil || len(fr.Messages) != 1 || string(fr.Messages[0].Value) != "over tls" {
		t.Errorf("fetch over TLS: %v %+v", err, fr)
	}
	_, err = Dial(ctx, c.ListenAddrs()[0], &Config{TLS: &tls.Config{}})
	if !errors.Is(err, ErrCannotConnect) {
		t.Errorf("untrusted certificate: %v", err)
	}
}

func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "kfake"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		DNSNames:     []string{"localhost"},
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:         true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// TestSendRaw: a request that gets no answer (Produce, Acks 0) sent raw
// leaves the connection in step: the next request's answer is its own.
// DialFunc replaces the dialer.
func TestSendRaw(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "sr"))
	ctx := testCtx(t)
	dials := 0
	cfg := &Config{DialFunc: func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials++
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}}
	cn, err := Dial(ctx, c.ListenAddrs()[0], cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cn.Close()
	if dials != 1 {
		t.Errorf("%d dials through DialFunc", dials)
	}
	now := time.Now().UnixMilli()
	b := codec.RecordBatch{PartitionLeaderEpoch: -1, BaseTimestamp: now, MaxTimestamp: now, ProducerId: -1, ProducerEpoch: -1, BaseSequence: -1, Records: []codec.Record{{Value: []byte("raw")}}}
	req := &codec.ProduceRequest{Acks: 0, TimeoutMs: 1000, TopicData: []codec.ProduceRequestTopicProduceData{{Name: "sr",
		PartitionData: []codec.ProduceRequestPartitionProduceData{{Index: 0, Records: codec.Records{Raw: b.AppendTo(nil)}}}}}}
	if err := cn.SendRaw(ctx, 0, 9, req.AppendTo(nil, 9)); err != nil {
		t.Fatal(err)
	}
	// RoundTrip of an Acks 0 Produce returns no response either.
	if m, err := cn.RoundTrip(ctx, req, 9); m != nil || err != nil {
		t.Fatalf("acks 0 RoundTrip: %v %v", m, err)
	}
	fetch := &codec.FetchRequest{ReplicaId: -1, MaxWaitMs: 1000, MinBytes: 1, MaxBytes: 1 << 20, SessionEpoch: -1,
		Topics: []codec.FetchRequestFetchTopic{{Topic: "sr", Partitions: []codec.FetchRequestFetchPartition{{FetchOffset: 0, PartitionMaxBytes: 1 << 20, CurrentLeaderEpoch: -1, LastFetchedEpoch: -1, LogStartOffset: -1}}}}}
	for hwm, i := int64(0), 0; hwm < 2; i++ {
		if i == 20 {
			t.Fatalf("high watermark %d: the raw produces were not written", hwm)
		}
		fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		m, err := cn.RoundTrip(fctx, fetch, 11)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		hwm = m.(*codec.FetchResponse).Responses[0].Partitions[0].HighWatermark
	}
}

// TestFetchGrowsForLargeRecord: before Fetch v3 a broker answers a record
// larger than the fetch size with a partial one; Fetch asks again with a
// larger size until the record fits.
func TestFetchGrowsForLargeRecord(t *testing.T) {
	noLeaks(t)
	big := codec.AppendMessageSet(nil, 1, codec.CompressionNone, []codec.LegacyMessage{{Offset: 0, Timestamp: 1, Value: make([]byte, 5000)}})
	var sizes []int32
	var mu sync.Mutex
	var port int32
	s := newRawServer(t, func(c net.Conn) {
		for {
			frame, key, v, corr, err := readRequest(c)
			if err != nil {
				return
			}
			var body []byte
			switch key {
			case 3:
				name := "big"
				body = (&codec.MetadataResponse{Brokers: []codec.MetadataResponseBroker{{Host: "127.0.0.1", Port: port}},
					Topics: []codec.MetadataResponseTopic{{Name: &name, Partitions: []codec.MetadataResponsePartition{{ReplicaNodes: []int32{0}, IsrNodes: []int32{0}}}}}}).AppendTo(nil, v)
			case 1:
				req := new(codec.FetchRequest)
				hv := codec.RequestHeaderVersion(1, v)
				r := codec.NewReader(frame[4:])
				new(codec.RequestHeader).ReadFrom(r, hv)
				req.ReadFrom(r, v)
				n := req.Topics[0].Partitions[0].PartitionMaxBytes
				mu.Lock()
				sizes = append(sizes, n)
				mu.Unlock()
				set := big
				if int(n) < len(set) {
					set = set[:n]
				}
				body = (&codec.FetchResponse{Responses: []codec.FetchResponseFetchableTopicResponse{{Topic: "big",
					Partitions: []codec.FetchResponsePartitionData{{HighWatermark: 1, Records: codec.Records{Raw: set}}}}}}).AppendTo(nil, v)
			default:
				return
			}
			writeResponse(c, key, v, corr, body)
		}
	})
	_, p, _ := net.SplitHostPort(s.addr())
	pn, _ := strconv.Atoi(p)
	port = int32(pn)
	ctx := testCtx(t)
	cl, err := New(ctx, Config{Brokers: []string{s.addr()}, NoVersionNegotiation: true, MaxVersions: map[int16]int16{1: 2, 3: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	fr, err := NewConsumer(cl, ConsumerConfig{MaxBytes: 1000}).Fetch(ctx, "big", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(fr.Messages) != 1 || len(fr.Messages[0].Value) != 5000 || fr.PartialBytes != 0 {
		t.Errorf("%d messages, partial %d", len(fr.Messages), fr.PartialBytes)
	}
	if len(sizes) != 4 || sizes[0] != 1000 || sizes[3] != 8000 {
		t.Errorf("fetch sizes %v, want 1000 doubling to 8000", sizes)
	}
}
