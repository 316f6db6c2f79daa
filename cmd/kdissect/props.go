package main

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// clientProps are the librdkafka and Java client property names -X and -F
// accept, each setting one of the connection flags (a flag given on the
// command line wins).
var clientProps = map[string]func(f *brokerFlags, v string) error{
	"bootstrap.servers":    func(f *brokerFlags, v string) error { f.brokers = splitList(v); return nil },
	"metadata.broker.list": func(f *brokerFlags, v string) error { f.brokers = splitList(v); return nil },
	"client.id":            func(f *brokerFlags, v string) error { f.clientID = v; return nil },
	"security.protocol":    (*brokerFlags).setSecurityProtocol,
	"sasl.mechanism":       func(f *brokerFlags, v string) error { f.saslMech = v; return nil },
	"sasl.mechanisms":      func(f *brokerFlags, v string) error { f.saslMech = v; return nil },
	"sasl.username":        func(f *brokerFlags, v string) error { f.saslUser = v; return nil },
	"sasl.password":        func(f *brokerFlags, v string) error { f.saslPassword = v; return nil },
	"sasl.oauthbearer.token": func(f *brokerFlags, v string) error {
		f.saslToken = v
		return nil
	},
	"sasl.jaas.config":         (*brokerFlags).setJAAS,
	"ssl.ca.location":          func(f *brokerFlags, v string) error { f.tlsCA = v; return nil },
	"ssl.certificate.location": func(f *brokerFlags, v string) error { f.tlsCert = v; return nil },
	"ssl.key.location":         func(f *brokerFlags, v string) error { f.tlsKey = v; return nil },
	"enable.ssl.certificate.verification": func(f *brokerFlags, v string) error {
		b, err := strconv.ParseBool(v)
		f.tlsInsecure = !b
		return err
	},
	"request.timeout.ms": func(f *brokerFlags, v string) error { return f.setTimeoutMs(v) },
	"socket.timeout.ms":  func(f *brokerFlags, v string) error { return f.setTimeoutMs(v) },
}

// propFlag is the command-line flag each property stands for: a flag
// given explicitly wins over the property.
var propFlag = map[string]string{
	"bootstrap.servers": "brokers", "metadata.broker.list": "brokers", "client.id": "client-id",
	"sasl.mechanism": "sasl-mechanism", "sasl.mechanisms": "sasl-mechanism",
	"sasl.username": "sasl-user", "sasl.password": "sasl-password", "sasl.oauthbearer.token": "sasl-token",
	"ssl.ca.location": "tls-ca", "ssl.certificate.location": "tls-cert", "ssl.key.location": "tls-key",
	"enable.ssl.certificate.verification": "tls-insecure",
	"request.timeout.ms":                  "timeout", "socket.timeout.ms": "timeout",
}

// unusedProps are Kafka client settings (the Java client's and
// librdkafka's names) that a client.properties file or a kcat command
// line commonly holds and kdissect's commands have no use for: they are
// ignored with a warning rather than refused, so that such a file works
// as it is. A name in neither list is refused: most likely a typo.
var unusedProps = map[string]bool{
	"acks": true, "auto.commit.interval.ms": true, "auto.offset.reset": true, "batch.num.messages": true, "batch.size": true,
	"buffer.memory": true, "client.dns.lookup": true, "compression.codec": true, "compression.type": true,
	"connections.max.idle.ms": true, "delivery.timeout.ms": true, "enable.auto.commit": true, "enable.idempotence": true,
	"fetch.max.bytes": true, "fetch.max.wait.ms": true, "fetch.min.bytes": true, "fetch.wait.max.ms": true,
	"group.id": true, "group.instance.id": true, "heartbeat.interval.ms": true, "isolation.level": true,
	"key.deserializer": true, "key.serializer": true, "linger.ms": true, "max.in.flight.requests.per.connection": true,
	"max.partition.fetch.bytes": true, "max.poll.interval.ms": true, "max.poll.records": true, "message.max.bytes": true,
	"metadata.max.age.ms": true, "partition.assignment.strategy": true, "queue.buffering.max.ms": true,
	"receive.buffer.bytes": true, "reconnect.backoff.ms": true, "retries": true, "retry.backoff.ms": true,
	"send.buffer.bytes": true, "session.timeout.ms": true, "ssl.endpoint.identification.algorithm": true,
	"statistics.interval.ms": true, "value.deserializer": true, "value.serializer": true,
	"basic.auth.credentials.source": true, "basic.auth.user.info": true, "schema.registry.url": true,
}

func knownProps() string {
	names := make([]string, 0, len(clientProps))
	for n := range clientProps {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

func splitList(v string) []string {
	var out []string
	for s := range strings.SplitSeq(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (f *brokerFlags) setTimeoutMs(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return fmt.Errorf("want a positive number of milliseconds")
	}
	f.timeout = time.Duration(n) * time.Millisecond
	return nil
}

func (f *brokerFlags) setSecurityProtocol(v string) error {
	switch strings.ToLower(v) {
	case "plaintext", "sasl_plaintext":
	case "ssl", "sasl_ssl":
		f.tls = true
	default:
		return fmt.Errorf("want plaintext, ssl, sasl_plaintext or sasl_ssl")
	}
	f.saslNeeded = strings.HasPrefix(strings.ToLower(v), "sasl_")
	return nil
}

// jaasOption matches one key="value" option of a Java JAAS line.
var jaasOption = regexp.MustCompile(`(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"`)

// setJAAS reads user name and password out of a Java client's
// sasl.jaas.config (PlainLoginModule or ScramLoginModule); other login
// modules (Kerberos, OAuth callbacks) have no equivalent here.
func (f *brokerFlags) setJAAS(v string) error {
	if !strings.Contains(v, "PlainLoginModule") && !strings.Contains(v, "ScramLoginModule") {
		return fmt.Errorf("only PlainLoginModule and ScramLoginModule are understood")
	}
	for _, m := range jaasOption.FindAllStringSubmatch(v, -1) {
		val := strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(m[2])
		switch m[1] {
		case "username":
			f.saslUser = val
		case "password":
			f.saslPassword = val
		}
	}
	if f.saslMech == "" && strings.Contains(v, "PlainLoginModule") {
		f.saslMech = "PLAIN"
	}
	return nil
}

// readPropFile reads a property file: "name=value" lines (Java's
// "name: value" too), '#' and '!' comments, blank lines skipped.
func readPropFile(path string) ([][2]string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, inputError{fmt.Errorf("-F: %w", err)}
	}
	defer fh.Close()
	var out [][2]string
	sc := bufio.NewScanner(fh)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		i := strings.IndexAny(line, "=:")
		if i <= 0 {
			return nil, fmt.Errorf("-F %s line %d: want property=value", path, n)
		}
		out = append(out, [2]string{strings.TrimSpace(line[:i]), strings.TrimSpace(line[i+1:])})
	}
	if err := sc.Err(); err != nil {
		return nil, inputError{fmt.Errorf("-F %s: %w", path, err)}
	}
	return out, nil
}

// flagGiven says whether the flag was given on the command line (replay
// also names the brokers --broker).
func (f *brokerFlags) flagGiven(name string) bool {
	if name == "" || f.fs == nil {
		return false
	}
	if name == "brokers" && f.fs.Lookup("broker") != nil && f.fs.Changed("broker") {
		return true
	}
	return f.fs.Changed(name)
}

// applyProps sets the flags from -F files, then -X properties, in order:
// a later one wins, a flag given on the command line wins over both.
// An unknown property name is an error that lists the known ones.
func (f *brokerFlags) applyProps() error {
	var all [][2]string
	for _, path := range f.propFiles {
		kv, err := readPropFile(path)
		if err != nil {
			return err
		}
		all = append(all, kv...)
	}
	for _, x := range f.props {
		k, v, ok := strings.Cut(x, "=")
		if !ok {
			return fmt.Errorf("-X %q: want property=value", x)
		}
		all = append(all, [2]string{strings.TrimSpace(k), v})
	}
	for _, kv := range all {
		set, ok := clientProps[kv[0]]
		if !ok && unusedProps[kv[0]] {
			f.ignored = append(f.ignored, kv[0])
			continue
		}
		if !ok {
			return fmt.Errorf("property %q is not known; known: %s (and Kafka client settings kdissect does not use, ignored with a warning: %s)", kv[0], knownProps(), strings.Join(slices.Sorted(maps.Keys(unusedProps)), ", "))
		}
		if f.flagGiven(propFlag[kv[0]]) {
			continue
		}
		if err := set(f, kv[1]); err != nil {
			return fmt.Errorf("property %s: %w", kv[0], err) // not the value: it may be a secret
		}
	}
	return nil
}
