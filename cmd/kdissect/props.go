package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/kdissect/kdissect/client"
)

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

// readPropFile reads a -F property file (client.ReadProperties).
func readPropFile(path string) ([]client.Property, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, inputError{fmt.Errorf("-F: %w", err)}
	}
	defer fh.Close()
	props, err := client.ReadProperties(fh)
	if le := (*client.PropertyLineError)(nil); errors.As(err, &le) {
		return nil, errors.New("-F " + path + " " + err.Error()) // one layer: errorLine would add ": "
	} else if err != nil {
		return nil, inputError{fmt.Errorf("-F %s: %w", path, err)}
	}
	return props, nil
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
	var all []client.Property
	for _, path := range f.propFiles {
		kv, err := readPropFile(path)
		if err != nil {
			return err
		}
		all = append(all, kv...)
	}
	for _, x := range f.props {
		p, err := client.ParseProperty(x)
		if err != nil {
			return errors.New("-X " + err.Error()) // one layer: errorLine would add ": "
		}
		all = append(all, p)
	}
	s := f.settings()
	ignored, err := s.ApplyProperties(all, func(name string) bool { return f.flagGiven(propFlag[name]) })
	f.ignored = append(f.ignored, ignored...)
	if err != nil {
		return err
	}
	f.setSettings(s)
	return nil
}

// settings are the flags' connection settings, for the properties to
// change.
func (f *brokerFlags) settings() client.ConnSettings {
	return client.ConnSettings{
		Brokers: f.brokers, ClientID: f.clientID, Timeout: f.timeout,
		TLS: f.tls, TLSCA: f.tlsCA, TLSCert: f.tlsCert, TLSKey: f.tlsKey, TLSInsecure: f.tlsInsecure,
		SASLMechanism: f.saslMech, SASLUser: f.saslUser, SASLPassword: f.saslPassword, SASLToken: f.saslToken,
		SASLNeeded: f.saslNeeded,
	}
}

func (f *brokerFlags) setSettings(s client.ConnSettings) {
	f.brokers, f.clientID, f.timeout = s.Brokers, s.ClientID, s.Timeout
	f.tls, f.tlsCA, f.tlsCert, f.tlsKey, f.tlsInsecure = s.TLS, s.TLSCA, s.TLSCert, s.TLSKey, s.TLSInsecure
	f.saslMech, f.saslUser, f.saslPassword, f.saslToken = s.SASLMechanism, s.SASLUser, s.SASLPassword, s.SASLToken
	f.saslNeeded = s.SASLNeeded
}
