package client

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Property is one client property as librdkafka's -X name=value or a
// line of a Java client.properties file gives it.
type Property struct {
	Name, Value string
}

// ConnSettings are the connection settings the librdkafka and Java
// client properties set: what a command turns into a Config (paths are
// read by the caller, not here).
type ConnSettings struct {
	Brokers       []string      // bootstrap.servers, metadata.broker.list: HOST:PORT
	ClientID      string        // client.id
	Timeout       time.Duration // request.timeout.ms, socket.timeout.ms
	TLS           bool          // security.protocol ssl or sasl_ssl
	TLSCA         string        // ssl.ca.location: a PEM file's path
	TLSCert       string        // ssl.certificate.location: a PEM file's path
	TLSKey        string        // ssl.key.location: a PEM file's path
	TLSInsecure   bool          // enable.ssl.certificate.verification=false
	SASLMechanism string        // sasl.mechanism(s); sasl.jaas.config's PlainLoginModule: PLAIN
	SASLUser      string        // sasl.username, sasl.jaas.config's username
	SASLPassword  string        // sasl.password, sasl.jaas.config's password
	SASLToken     string        // sasl.oauthbearer.token
	SASLNeeded    bool          // security.protocol sasl_*: a mechanism is needed
}

// connProps are the property names ApplyProperties understands, each
// with what it sets.
var connProps = map[string]func(s *ConnSettings, v string) error{
	"bootstrap.servers":    func(s *ConnSettings, v string) error { s.Brokers = splitList(v); return nil },
	"metadata.broker.list": func(s *ConnSettings, v string) error { s.Brokers = splitList(v); return nil },
	"client.id":            func(s *ConnSettings, v string) error { s.ClientID = v; return nil },
	"security.protocol":    (*ConnSettings).setSecurityProtocol,
	"sasl.mechanism":       func(s *ConnSettings, v string) error { s.SASLMechanism = v; return nil },
	"sasl.mechanisms":      func(s *ConnSettings, v string) error { s.SASLMechanism = v; return nil },
	"sasl.username":        func(s *ConnSettings, v string) error { s.SASLUser = v; return nil },
	"sasl.password":        func(s *ConnSettings, v string) error { s.SASLPassword = v; return nil },
	"sasl.oauthbearer.token": func(s *ConnSettings, v string) error {
		s.SASLToken = v
		return nil
	},
	"sasl.jaas.config":         (*ConnSettings).setJAAS,
	"ssl.ca.location":          func(s *ConnSettings, v string) error { s.TLSCA = v; return nil },
	"ssl.certificate.location": func(s *ConnSettings, v string) error { s.TLSCert = v; return nil },
	"ssl.key.location":         func(s *ConnSettings, v string) error { s.TLSKey = v; return nil },
	"enable.ssl.certificate.verification": func(s *ConnSettings, v string) error {
		b, err := strconv.ParseBool(v)
		s.TLSInsecure = !b
		return err
	},
	"request.timeout.ms": (*ConnSettings).setTimeoutMs,
	"socket.timeout.ms":  (*ConnSettings).setTimeoutMs,
}

// unusedProps are Kafka client settings (the Java client's and
// librdkafka's names) that a client.properties file or a kcat command
// line commonly holds and the connection has no use for: they are
// reported as ignored rather than refused, so that such a file works as
// it is. A name in neither list is refused: most likely a typo.
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

// ApplyProperties sets s from props in order, a later one winning over
// an earlier. keep, when not nil, is asked with each property's name and
// says to leave what it sets as it is (a command-line flag given wins
// over a property). Names of Kafka client settings the connection does
// not use are returned in ignored, in order. Errors: an unknown name
// (the error lists the known ones), or a value the property refuses (the
// error names the property, not the value: it may be a secret).
func (s *ConnSettings) ApplyProperties(props []Property, keep func(name string) bool) (ignored []string, err error) {
	for _, p := range props {
		set, ok := connProps[p.Name]
		if !ok && unusedProps[p.Name] {
			ignored = append(ignored, p.Name)
			continue
		}
		if !ok {
			return ignored, fmt.Errorf("property %q is not known; known: %s (and Kafka client settings kdissect does not use, ignored with a warning: %s)",
				p.Name, strings.Join(slices.Sorted(maps.Keys(connProps)), ", "), strings.Join(slices.Sorted(maps.Keys(unusedProps)), ", "))
		}
		if keep != nil && keep(p.Name) {
			continue
		}
		if err := set(s, p.Value); err != nil {
			return ignored, fmt.Errorf("property %s: %w", p.Name, err)
		}
	}
	return ignored, nil
}

// ParseProperty splits "name=value" (librdkafka's -X); the name is
// trimmed of blanks, the value kept as it is. Error: no '='.
func ParseProperty(s string) (Property, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		return Property{}, fmt.Errorf("%q: want property=value", s)
	}
	return Property{Name: strings.TrimSpace(k), Value: v}, nil
}

// ReadProperties reads a property file: "name=value" lines (Java's
// "name: value" too), '#' and '!' comments, blank lines skipped. Errors:
// a line without a name and a separator (the error gives its number,
// from 1), or the reader's.
func ReadProperties(r io.Reader) ([]Property, error) {
	var out []Property
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		i := strings.IndexAny(line, "=:")
		if i <= 0 {
			return nil, &PropertyLineError{Line: n}
		}
		out = append(out, Property{Name: strings.TrimSpace(line[:i]), Value: strings.TrimSpace(line[i+1:])})
	}
	return out, sc.Err()
}

// PropertyLineError is a line of a property file that is not
// name=value; Line counts from 1.
type PropertyLineError struct{ Line int }

func (e *PropertyLineError) Error() string {
	return fmt.Sprintf("line %d: want property=value", e.Line)
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

func (s *ConnSettings) setTimeoutMs(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return fmt.Errorf("want a positive number of milliseconds")
	}
	s.Timeout = time.Duration(n) * time.Millisecond
	return nil
}

func (s *ConnSettings) setSecurityProtocol(v string) error {
	switch strings.ToLower(v) {
	case "plaintext", "sasl_plaintext":
	case "ssl", "sasl_ssl":
		s.TLS = true
	default:
		return fmt.Errorf("want plaintext, ssl, sasl_plaintext or sasl_ssl")
	}
	s.SASLNeeded = strings.HasPrefix(strings.ToLower(v), "sasl_")
	return nil
}

// jaasOption matches one key="value" option of a Java JAAS line.
var jaasOption = regexp.MustCompile(`(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"`)

// setJAAS reads user name and password out of a Java client's
// sasl.jaas.config (PlainLoginModule or ScramLoginModule); other login
// modules (Kerberos, OAuth callbacks) have no equivalent here.
func (s *ConnSettings) setJAAS(v string) error {
	if !strings.Contains(v, "PlainLoginModule") && !strings.Contains(v, "ScramLoginModule") {
		return fmt.Errorf("only PlainLoginModule and ScramLoginModule are understood")
	}
	for _, m := range jaasOption.FindAllStringSubmatch(v, -1) {
		val := strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(m[2])
		switch m[1] {
		case "username":
			s.SASLUser = val
		case "password":
			s.SASLPassword = val
		}
	}
	if s.SASLMechanism == "" && strings.Contains(v, "PlainLoginModule") {
		s.SASLMechanism = "PLAIN"
	}
	return nil
}
