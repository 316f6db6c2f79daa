package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kdissect/kdissect/output/stats"
)

// clientVersionsJSON is one client of the inventory ("client_versions"):
// who it is, the APIs and versions its requests used, those Kafka
// removed, and the features its requests show.
type clientVersionsJSON struct {
	Client          string             `json:"client"` // IP address, without port
	ClientID        *string            `json:"client_id"`
	SoftwareName    *string            `json:"software_name"` // null: no ApiVersions v3+ captured
	SoftwareVersion *string            `json:"software_version"`
	Connections     int64              `json:"connections"`
	Exchanges       int64              `json:"exchanges"`
	APIs            []clientAPIJSON    `json:"apis"`
	Removed         []removedJSON      `json:"removed"`
	Features        clientFeaturesJSON `json:"features"`
	// CompatibleWithKafka4: no version it used was removed in 4.0.
	CompatibleWithKafka4 bool `json:"compatible_with_kafka_4"`
	// NewestBroker: the newest release serving every version it used;
	// null when none it used was removed (4.3 serves them all).
	NewestBroker      *string `json:"newest_broker"`
	VersionsNotListed int64   `json:"versions_not_listed,omitempty"`
}

type clientAPIJSON struct {
	API      string  `json:"api"`
	APIKey   int16   `json:"api_key"`
	Versions []int16 `json:"versions"`
}

type removedJSON struct {
	API       string `json:"api"`
	APIKey    int16  `json:"api_key"`
	Version   int16  `json:"version"`
	RemovedIn string `json:"removed_in"`
	KIP       string `json:"kip"`
}

type clientFeaturesJSON struct {
	Idempotence    bool     `json:"idempotence"`
	Transactions   bool     `json:"transactions"`
	KIP848         bool     `json:"kip848"`
	Compression    []string `json:"compression"`
	SASLMechanisms []string `json:"sasl_mechanisms"`
	TLS            bool     `json:"tls"`
	TLSVersions    []string `json:"tls_versions"`
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func clientVersionsToJSON(rows []*stats.ClientVersions) []clientVersionsJSON {
	out := []clientVersionsJSON{}
	for _, c := range rows {
		j := clientVersionsJSON{Client: c.Client, ClientID: c.ClientID, SoftwareName: c.SoftwareName, SoftwareVersion: c.SoftwareVersion,
			Connections: c.Connections, Exchanges: c.Exchanges, APIs: []clientAPIJSON{}, Removed: []removedJSON{},
			CompatibleWithKafka4: c.CompatibleWithKafka4, VersionsNotListed: c.VersionsNotListed}
		for _, a := range c.APIs {
			j.APIs = append(j.APIs, clientAPIJSON{a.Name, a.Key, a.Versions})
		}
		for _, r := range c.Removed {
			j.Removed = append(j.Removed, removedJSON{r.Name, r.Key, r.Version, r.RemovedIn, r.KIP})
		}
		f := c.Features
		j.Features = clientFeaturesJSON{f.Idempotence, f.Transactions, f.KIP848, orEmpty(f.Compression), orEmpty(f.SASLMechanisms), f.TLS, orEmpty(f.TLSVersions)}
		if c.NewestBroker != "" {
			nb := c.NewestBroker
			j.NewestBroker = &nb
		}
		out = append(out, j)
	}
	return out
}

// writeClientVersions writes the client inventory, a block per client;
// nothing when no request was captured.
func writeClientVersions(w io.Writer, rows []*stats.ClientVersions) error {
	if len(rows) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("\nClients and Kafka 4 readiness\n")
	kv := func(k, v string) { fmt.Fprintf(&b, "    %-14s %s\n", k, v) }
	for _, c := range rows {
		soft := "software not known (no ApiVersions v3+ captured)"
		if c.SoftwareName != nil {
			soft = sanitize(*c.SoftwareName + " " + *c.SoftwareVersion)
		}
		fmt.Fprintf(&b, "  %s client id %s, %s: %d connections, %d requests\n", c.Client, sanitize(txnIDText(c.ClientID)), soft, c.Connections, c.Exchanges)
		var apis []string
		for _, a := range c.APIs {
			vs := make([]string, len(a.Versions))
			for i, v := range a.Versions {
				vs[i] = strconv.Itoa(int(v))
			}
			apis = append(apis, a.Name+" v"+strings.Join(vs, ","))
		}
		kv("apis", strings.Join(apis, "; "))
		if c.VersionsNotListed > 0 {
			kv("", fmt.Sprintf("and %d API versions more, not listed", c.VersionsNotListed))
		}
		// One item per API and release: "Produce v0,1 (removed in 4.0, KIP-896)".
		var removed []string
		for i := 0; i < len(c.Removed); {
			r, vs := c.Removed[i], []string{}
			for ; i < len(c.Removed) && c.Removed[i].Key == r.Key && c.Removed[i].RemovedIn == r.RemovedIn; i++ {
				vs = append(vs, strconv.Itoa(int(c.Removed[i].Version)))
			}
			removed = append(removed, fmt.Sprintf("%s v%s (removed in %s, %s)", r.Name, strings.Join(vs, ","), r.RemovedIn, r.KIP))
		}
		if len(removed) == 0 {
			removed = []string{"none"}
		}
		kv("removed", strings.Join(removed, "; "))
		kv("features", featuresText(c.Features))
		switch {
		case c.NewestBroker == "":
			kv("kafka 4", "ready: it used no version Kafka removed (as of 4.3.0)")
		case c.CompatibleWithKafka4:
			kv("kafka 4", "ready for 4.0; newest broker "+c.NewestBroker)
		default:
			kv("kafka 4", "not ready: newest broker "+c.NewestBroker)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func featuresText(f stats.ClientFeatures) string {
	var parts []string
	for _, on := range []struct {
		set  bool
		name string
	}{{f.Idempotence, "idempotence"}, {f.Transactions, "transactions"}, {f.KIP848, "KIP-848 consumer group"}} {
		if on.set {
			parts = append(parts, on.name)
		}
	}
	if len(f.Compression) > 0 {
		parts = append(parts, "compression "+strings.Join(f.Compression, ","))
	}
	if len(f.SASLMechanisms) > 0 {
		parts = append(parts, "SASL "+sanitize(strings.Join(f.SASLMechanisms, ",")))
	}
	if f.TLS {
		parts = append(parts, "TLS "+strings.Join(f.TLSVersions, ","))
	}
	if len(parts) == 0 {
		return "none seen"
	}
	return strings.Join(parts, ", ")
}
