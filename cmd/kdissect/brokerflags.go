package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/twmb/franz-go/pkg/sasl/aws"
	"github.com/twmb/franz-go/pkg/sasl/oauth"

	"github.com/kdissect/kdissect/client"
)

// brokerFlags are the connection flags of the commands that talk to a
// live cluster (broker, produce, consume).
type brokerFlags struct {
	brokers      []string
	timeout      time.Duration
	clientID     string
	tls          bool
	tlsCA        string
	tlsInsecure  bool
	saslMech     string
	saslUser     string
	saslPassword string
	saslToken    string
	tlsCert      string
	tlsKey       string
	tlsKeyLog    string   // --tls-keylog (replay: --tls-keylog-out): the session keys written
	keyLog       *os.File // open once tlsConfig ran; closeKeyLog closes it
	props        []string // -X name=value
	propFiles    []string // -F
	saslNeeded   bool     // security.protocol sasl_*
	propsApplied bool
	ignored      []string // properties kdissect does not use, warned of by open
	fs           *pflag.FlagSet
}

func (f *brokerFlags) register(fs *pflag.FlagSet) {
	f.registerAs(fs, "tls-keylog")
}

// registerAs registers the flags, the key log written under keyLogFlag:
// replay's --tls-keylog reads the capture's keys, so its target
// connection's are written with --tls-keylog-out.
func (f *brokerFlags) registerAs(fs *pflag.FlagSet, keyLogFlag string) {
	f.fs = fs
	fs.StringSliceVarP(&f.brokers, "brokers", "b", nil, "bootstrap broker HOST:PORT (IPv6 as [::1]:9092), repeatable or comma-separated")
	fs.DurationVar(&f.timeout, "timeout", client.DefaultRequestTimeout, "request timeout")
	fs.StringVar(&f.clientID, "client-id", client.DefaultClientID, "ClientId of the requests")
	fs.BoolVar(&f.tls, "tls", false, "connect with TLS (system roots unless --tls-ca)")
	fs.StringVar(&f.tlsCA, "tls-ca", "", "PEM file of the CA certificates to trust (implies --tls)")
	fs.BoolVar(&f.tlsInsecure, "tls-insecure", false, "do not verify the broker's certificate (implies --tls)")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "PEM file of the client certificate, for mutual TLS (with --tls-key; implies --tls)")
	fs.StringVar(&f.tlsKey, "tls-key", "", "PEM file of the client certificate's private key")
	fs.StringVar(&f.tlsKeyLog, keyLogFlag, "", "append the TLS session keys to this NSS key log (SSLKEYLOGFILE) file, created 0600, to decrypt a capture of this traffic (implies --tls)")
	fs.StringVar(&f.saslMech, "sasl-mechanism", "", "SASL mechanism: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER or AWS_MSK_IAM")
	fs.StringVar(&f.saslUser, "sasl-user", "", "SASL user name (AWS_MSK_IAM: the access key id, default $AWS_ACCESS_KEY_ID)")
	fs.StringVar(&f.saslPassword, "sasl-password", "", "SASL password (default $KDISSECT_SASL_PASSWORD; AWS_MSK_IAM: the secret key, default $AWS_SECRET_ACCESS_KEY)")
	fs.StringVar(&f.saslToken, "sasl-token", "", "OAUTHBEARER token (default $KDISSECT_SASL_TOKEN)")
	fs.StringArrayVarP(&f.props, "property", "X", nil, "client property NAME=VALUE with librdkafka/Java names (bootstrap.servers, security.protocol, sasl.mechanism, ssl.ca.location, ...), repeatable")
	fs.StringArrayVarP(&f.propFiles, "config", "F", nil, "file of NAME=VALUE client properties (kcat's -F, a Java client.properties)")
}

// config validates the flags (usage errors) and builds the client config.
func (f *brokerFlags) config() (client.Config, error) {
	var cfg client.Config
	if err := f.resolve(); err != nil {
		return cfg, err
	}
	if len(f.brokers) == 0 {
		return cfg, fmt.Errorf("a broker is needed: -b HOST:PORT")
	}
	if f.timeout <= 0 {
		return cfg, fmt.Errorf("--timeout must be positive, got %v", f.timeout)
	}
	cfg.Brokers = f.brokers
	cfg.RequestTimeout = f.timeout
	id := f.clientID
	cfg.ClientID = &id
	tc, err := f.tlsConfig()
	if err != nil {
		return cfg, err
	}
	cfg.TLS = tc
	if f.saslNeeded && f.saslMech == "" {
		return cfg, fmt.Errorf("security.protocol SASL_* needs a mechanism: sasl.mechanism or --sasl-mechanism")
	}
	if f.saslMech != "" {
		if cfg.SASL, err = f.sasl(); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// resolve applies -F and -X to the flags, once.
func (f *brokerFlags) resolve() error {
	if f.propsApplied {
		return nil
	}
	f.propsApplied = true
	return f.applyProps()
}

// tlsConfig builds the TLS configuration of the flags, nil for none.
func (f *brokerFlags) tlsConfig() (*tls.Config, error) {
	if !f.tls && f.tlsCA == "" && !f.tlsInsecure && f.tlsCert == "" && f.tlsKey == "" && f.tlsKeyLog == "" {
		return nil, nil
	}
	tc := &tls.Config{InsecureSkipVerify: f.tlsInsecure}
	if f.tlsKeyLog != "" && f.keyLog == nil {
		kl, err := openKeyLogWriter(f.tlsKeyLog)
		if err != nil {
			return nil, inputError{err}
		}
		f.keyLog = kl
	}
	if f.keyLog != nil {
		tc.KeyLogWriter = f.keyLog
	}
	if f.tlsCA != "" {
		pem, err := os.ReadFile(f.tlsCA)
		if err != nil {
			return nil, inputError{fmt.Errorf("--tls-ca: %w", err)}
		}
		tc.RootCAs = x509.NewCertPool()
		if !tc.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--tls-ca %s: no PEM certificate in it", f.tlsCA)
		}
	}
	if (f.tlsCert == "") != (f.tlsKey == "") {
		return nil, fmt.Errorf("--tls-cert and --tls-key (ssl.certificate.location, ssl.key.location) go together")
	}
	if f.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(f.tlsCert, f.tlsKey)
		if err != nil {
			return nil, inputError{fmt.Errorf("client certificate: %w", err)}
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

// sasl builds the SASL configuration of the flags.
func (f *brokerFlags) sasl() (*client.SASL, error) {
	or := func(v, env string) string {
		if v == "" {
			return os.Getenv(env)
		}
		return v
	}
	switch m := strings.ToUpper(f.saslMech); m {
	case client.SASLPlain, client.SASLScramSHA256, client.SASLScramSHA512:
		return &client.SASL{Mechanism: m, User: f.saslUser, Password: or(f.saslPassword, "KDISSECT_SASL_PASSWORD")}, nil
	case "OAUTHBEARER":
		tok := or(f.saslToken, "KDISSECT_SASL_TOKEN")
		if tok == "" {
			return nil, fmt.Errorf("OAUTHBEARER needs a token: --sasl-token, sasl.oauthbearer.token or $KDISSECT_SASL_TOKEN")
		}
		return &client.SASL{Impl: oauth.Auth{Token: tok}.AsMechanism()}, nil
	case "AWS_MSK_IAM":
		a := aws.Auth{
			AccessKey:    or(f.saslUser, "AWS_ACCESS_KEY_ID"),
			SecretKey:    or(f.saslPassword, "AWS_SECRET_ACCESS_KEY"),
			SessionToken: os.Getenv("AWS_SESSION_TOKEN"),
		}
		if a.AccessKey == "" || a.SecretKey == "" {
			return nil, fmt.Errorf("AWS_MSK_IAM needs an access key and a secret key: --sasl-user/--sasl-password or $AWS_ACCESS_KEY_ID/$AWS_SECRET_ACCESS_KEY")
		}
		return &client.SASL{Impl: a.AsManagedStreamingIAMMechanism()}, nil
	}
	return nil, fmt.Errorf("--sasl-mechanism %q: want PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER or AWS_MSK_IAM", f.saslMech)
}

// connect opens the client; failing to reach the cluster is an input
// error (exit 1).
func (f *brokerFlags) connect(ctx context.Context, mod func(*client.Config)) (*client.Client, error) {
	cfg, err := f.config()
	if err != nil {
		return nil, err
	}
	if mod != nil {
		mod(&cfg)
	}
	cl, err := client.New(ctx, cfg)
	if err != nil {
		return nil, inputError{err}
	}
	return cl, nil
}

// open connects for a command: the command's context, cancelled by an
// interrupt, and the client; done closes both.
func (f *brokerFlags) open(io cmdIO, mod func(*client.Config)) (ctx context.Context, cl *client.Client, done func(), err error) {
	ctx, cancel := io.interruptible()
	cl, err = f.connect(ctx, mod)
	for _, name := range f.ignored {
		fmt.Fprintf(io.errOut, "kdissect: warning: property %s is a Kafka client setting kdissect does not use: ignored\n", name)
	}
	f.ignored = nil
	if err != nil {
		cancel()
		f.closeKeyLog()
		return nil, nil, nil, err
	}
	return ctx, cl, func() { cl.Close(); cancel(); f.closeKeyLog() }, nil
}

// closeKeyLog closes the key log written, if any (after the client: its
// connections write to it until they close).
func (f *brokerFlags) closeKeyLog() {
	if f.keyLog != nil {
		f.keyLog.Close()
		f.keyLog = nil
	}
}

// cmdIO is what a command's run reads, writes and runs under: its
// streams and context, taken from cobra when it runs (cli/cli's
// IOStreams), so that run functions need no *cobra.Command.
type cmdIO struct {
	ctx         context.Context
	in          io.Reader
	out, errOut io.Writer
}

// ioOf takes cmd's streams and context (background when none).
func ioOf(cmd *cobra.Command) cmdIO {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	return cmdIO{ctx: ctx, in: cmd.InOrStdin(), out: cmd.OutOrStdout(), errOut: cmd.ErrOrStderr()}
}

// interruptible returns the command's context cancelled by an interrupt.
func (c cmdIO) interruptible() (context.Context, context.CancelFunc) {
	ctx := c.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	return signal.NotifyContext(ctx, os.Interrupt)
}
