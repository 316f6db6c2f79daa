package client

import (
	"context"
	"crypto/tls"
	"net"
	"time"
)

// Defaults, as the Perl Kafka package had them (Kafka.pm: $REQUEST_TIMEOUT
// 1.5 s, $SEND_MAX_ATTEMPTS 4, $RETRY_BACKOFF 200 ms).
const (
	DefaultRequestTimeout   = 1500 * time.Millisecond
	DefaultMaxAttempts      = 4
	DefaultRetryBackoff     = 200 * time.Millisecond
	DefaultClientID         = "kdissect"
	DefaultMaxResponseBytes = 256 << 20
	softwareName            = "kdissect"
	softwareVersion         = "0.1.0"
)

// Config configures a Conn (Dial) and a Client (New). The zero value is
// usable: every zero field takes its default.
type Config struct {
	// Brokers are the bootstrap addresses, "host:port" each: IPv4
	// ("127.0.0.1:9092"), IPv6 in brackets ("[::1]:9092") or a host name.
	// A port-less address gets 9092. Only New uses them.
	Brokers []string

	// ClientID is the ClientId of every request header; "" sends an empty
	// string. Nil-able ClientIds are not offered: brokers log them.
	ClientID *string

	// RequestTimeout bounds each request: writing it and reading its
	// response, plus the time the request itself asks the broker to wait
	// (Fetch MaxWaitMs, Produce TimeoutMs when acks are awaited). Default
	// 1.5 s. A context deadline that comes sooner wins.
	RequestTimeout time.Duration
	// DialTimeout bounds opening a connection: TCP, TLS, ApiVersions and
	// SASL. Default: RequestTimeout.
	DialTimeout time.Duration

	// MaxAttempts is how many times the Client sends a request that fails
	// with a retriable error (see Error.Retriable), metadata refreshed
	// between attempts. Default 4; 1 disables retries. Produce is retried
	// only when a duplicate is impossible (see Producer).
	MaxAttempts int
	// RetryBackoff is the pause between attempts. Default 200 ms.
	RetryBackoff time.Duration

	// TLS, when set, wraps every connection in TLS with this
	// configuration (ServerName defaults to the host of the address).
	TLS *tls.Config
	// SASL, when set, authenticates every connection (KIP-43, KIP-152).
	SASL *SASL

	// MaxVersions caps the version negotiated per ApiKey. A key absent
	// from the map is capped by the codec only.
	MaxVersions map[int16]int16
	// NoVersionNegotiation skips the ApiVersions request (for brokers
	// before Kafka 0.10, which close the connection on it): every API is
	// then assumed at the codec's highest version capped by MaxVersions.
	NoVersionNegotiation bool

	// AllowAutoTopicCreation sets Metadata's AllowAutoTopicCreation (v4+)
	// in the Client's metadata requests for named topics; default false.
	AllowAutoTopicCreation bool

	// MaxResponseBytes is the largest response frame accepted; a larger
	// size prefix fails the request and closes the connection. Default
	// 256 MiB.
	MaxResponseBytes int32

	// DialFunc, when set, opens the TCP connections instead of net.Dialer.
	DialFunc func(ctx context.Context, network, address string) (net.Conn, error)
}

func (c *Config) requestTimeout() time.Duration {
	if c.RequestTimeout > 0 {
		return c.RequestTimeout
	}
	return DefaultRequestTimeout
}

func (c *Config) dialTimeout() time.Duration {
	if c.DialTimeout > 0 {
		return c.DialTimeout
	}
	return c.requestTimeout()
}

func (c *Config) maxAttempts() int {
	if c.MaxAttempts > 0 {
		return c.MaxAttempts
	}
	return DefaultMaxAttempts
}

func (c *Config) retryBackoff() time.Duration {
	if c.RetryBackoff > 0 {
		return c.RetryBackoff
	}
	return DefaultRetryBackoff
}

func (c *Config) clientID() string {
	if c.ClientID != nil {
		return *c.ClientID
	}
	return DefaultClientID
}

func (c *Config) maxResponseBytes() int32 {
	if c.MaxResponseBytes > 0 {
		return c.MaxResponseBytes
	}
	return DefaultMaxResponseBytes
}

// withDefaultPort returns addr with ":9092" added when it has no port.
func withDefaultPort(addr string) string {
	if _, _, err := net.SplitHostPort(addr); err == nil {
		return addr
	}
	host := addr
	if len(host) > 1 && host[0] == '[' && host[len(host)-1] == ']' {
		host = host[1 : len(host)-1]
	}
	return net.JoinHostPort(host, "9092")
}
