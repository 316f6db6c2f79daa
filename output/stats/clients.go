package stats

import (
	"cmp"
	"slices"
	"strings"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// maxClientVersions bounds the distinct (ApiKey, ApiVersion) pairs one
// connection remembers: a real client uses a few dozen; a hostile capture
// could claim any of 2^32, and those beyond count in VersionsNotListed.
const maxClientVersions = 1024

// ClientVersions is one client of the client inventory: the connections
// from one IP address with the same client id and the same
// ClientSoftwareName and ClientSoftwareVersion (ApiVersions v3+, KIP-511).
// The port is left out because a client opens a connection per broker
// and a new one on each reconnect, from a new port each time: grouped by
// port, one client would be many rows. Two processes on one host with the
// same client id and software are one row (Connections says how many
// connections it stands for).
type ClientVersions struct {
	Client   string  // the client's IP address, without port; Other past MaxRows connections
	ClientID *string // the first seen on each connection; nil: none seen (header v0, only responses)
	// SoftwareName and SoftwareVersion are nil when no ApiVersions v3+
	// request of the connection was captured: sent at v0-2 (clients before
	// KIP-511), not sent, or lost.
	SoftwareName, SoftwareVersion *string
	Connections                   int64
	Exchanges                     int64 // exchanges whose request was captured
	APIs                          []APIVersionsUsed
	// VersionsNotListed counts the requests whose (ApiKey, ApiVersion)
	// pair is in neither APIs nor Removed: a connection lists at most
	// maxClientVersions pairs.
	VersionsNotListed int64
	// Removed lists the versions it used that a Kafka release removed
	// (codec.Removals), by ApiKey then version.
	Removed  []RemovedVersionUsed
	Features ClientFeatures
	// CompatibleWithKafka4 says it used no version Kafka 4.0 removed:
	// what it sent would be served by 4.0 (it may be able to send newer
	// versions too; the capture shows only those it chose).
	CompatibleWithKafka4 bool
	// NewestBroker is the newest Kafka release serving every version it
	// used ("3.9" when it used one removed in 4.0); "" when it used none
	// removed, so every release up to 4.3 serves them as far as the
	// definitions show.
	NewestBroker string
}

// APIVersionsUsed is one API a client used and the versions of its
// requests, ascending.
type APIVersionsUsed struct {
	Key      int16
	Name     string
	Versions []int16
}

// RemovedVersionUsed is a version a client used that Kafka removed.
type RemovedVersionUsed struct {
	Key       int16
	Name      string
	Version   int16
	RemovedIn string // the release: "4.0"
	KIP       string
}

// ClientFeatures are what a client's requests show it uses.
type ClientFeatures struct {
	// Idempotence: an InitProducerId without a TransactionalId, or a
	// Produce batch with a ProducerId outside a transaction.
	Idempotence bool
	// Transactions: an InitProducerId or Produce with a TransactionalId,
	// a transactional Produce batch, or a transaction API
	// (AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, TxnOffsetCommit).
	Transactions bool
	// KIP848: a ConsumerGroupHeartbeat, the consumer group protocol of
	// KIP-848.
	KIP848 bool
	// Compression lists the codecs of its Produce batches and messages
	// ("none", "gzip", "snappy", "lz4", "zstd"), in that order.
	Compression []string
	// SASLMechanisms lists the mechanisms its SaslHandshake requests
	// named, sorted.
	SASLMechanisms []string
	// TLSVersions lists the TLS versions its connections negotiated
	// ("1.2", "1.3"), sorted; TLS says it has any (a connection not
	// decrypted counts, with its version).
	TLS         bool
	TLSVersions []string
}

// clientConn is what one connection shows of its client, kept by stream
// and grouped into ClientVersions rows by Report, so that exchanges may
// come in any order (the ApiVersions after the others).
type clientConn struct {
	addr                          string
	clientID                      *string
	softwareName, softwareVersion *string
	exchanges                     int64
	versions                      map[apiVersion]struct{}
	versionsNotListed             int64
	idempotence, transactions     bool
	kip848, tls                   bool
	codecs                        uint8 // bit per codec.Compression 0-7
	sasl, tlsVersions             []string
}

type apiVersion struct{ key, version int16 }

// clientConns are the connections of the client inventory; at most
// maxRows, the others counted together in stream -1 (client Other).
type clientConns map[int]*clientConn

func (cc clientConns) add(ex *dissect.Exchange, dec *dissect.Decoded, maxRows int) {
	conn := cc[ex.Stream]
	if conn == nil {
		stream, addr := ex.Stream, ex.Client.Addr().String()
		if len(cc) >= maxRows {
			stream, addr = -1, Other
		}
		if conn = cc[stream]; conn == nil {
			conn = &clientConn{addr: addr, versions: map[apiVersion]struct{}{}}
			cc[stream] = conn
		}
	}
	if ex.TLS != nil {
		conn.tls = true
		conn.tlsVersions = addSorted(conn.tlsVersions, ex.TLS.Version)
	}
	if ex.SASLToken || ex.Request == nil || ex.APIKey < 0 {
		return
	}
	conn.exchanges++
	if conn.clientID == nil && ex.ClientID != nil {
		id := *ex.ClientID
		conn.clientID = &id
	}
	k := apiVersion{ex.APIKey, ex.APIVersion}
	if _, ok := conn.versions[k]; !ok {
		if len(conn.versions) < maxClientVersions {
			conn.versions[k] = struct{}{}
		} else {
			conn.versionsNotListed++
		}
	}
	switch ex.APIKey {
	case codec.ApiKeyConsumerGroupHeartbeat:
		conn.kip848 = true
	case codec.ApiKeyAddPartitionsToTxn, codec.ApiKeyAddOffsetsToTxn, codec.ApiKeyEndTxn, codec.ApiKeyTxnOffsetCommit:
		conn.transactions = true
	}
	switch req := dec.Request.(type) {
	case *codec.ApiVersionsRequest:
		if ex.APIVersion >= 3 && conn.softwareName == nil {
			name, version := req.ClientSoftwareName, req.ClientSoftwareVersion
			conn.softwareName, conn.softwareVersion = &name, &version
		}
	case *codec.InitProducerIdRequest:
		if req.TransactionalId == nil {
			conn.idempotence = true
		} else {
			conn.transactions = true
		}
	case *codec.SaslHandshakeRequest:
		conn.sasl = addSorted(conn.sasl, req.Mechanism)
	case *codec.ProduceRequest:
		if req.TransactionalId != nil {
			conn.transactions = true
		}
		for _, rr := range dec.RecordSets {
			if rr.Records == nil || rr.Records.Set == nil {
				continue
			}
			for _, e := range rr.Records.Set.Entries {
				switch {
				case e.Batch != nil:
					conn.codecs |= 1 << (e.Batch.Compression() & 7)
					if e.Batch.IsTransactional() {
						conn.transactions = true
					} else if e.Batch.ProducerId >= 0 {
						conn.idempotence = true
					}
				case e.Message != nil:
					conn.codecs |= 1 << (e.Message.Compression() & 7)
				}
			}
		}
	}
}

// addSorted adds s to the sorted set list.
func addSorted(list []string, s string) []string {
	i, found := slices.BinarySearch(list, s)
	if found {
		return list
	}
	return slices.Insert(list, i, s)
}

// clientKey groups connections into rows.
type clientKey struct {
	addr, clientID, name, version string
	hasID, hasSoftware            bool
}

func strOr(p *string) (string, bool) {
	if p == nil {
		return "", false
	}
	return *p, true
}

// report groups the connections into rows, by client address, client id,
// software name and version (absent ones first).
func (cc clientConns) report() []*ClientVersions {
	rows := map[clientKey]*ClientVersions{}
	used := map[*ClientVersions]map[apiVersion]struct{}{}
	codecs := map[*ClientVersions]uint8{}
	for _, conn := range cc {
		if conn.exchanges == 0 && !conn.tls {
			continue
		}
		k := clientKey{addr: conn.addr}
		k.clientID, k.hasID = strOr(conn.clientID)
		k.name, k.hasSoftware = strOr(conn.softwareName)
		k.version, _ = strOr(conn.softwareVersion)
		row := rows[k]
		if row == nil {
			row = &ClientVersions{Client: conn.addr, ClientID: conn.clientID,
				SoftwareName: conn.softwareName, SoftwareVersion: conn.softwareVersion}
			rows[k] = row
			used[row] = map[apiVersion]struct{}{}
		}
		row.Connections++
		row.Exchanges += conn.exchanges
		row.VersionsNotListed += conn.versionsNotListed
		for v := range conn.versions {
			used[row][v] = struct{}{}
		}
		codecs[row] |= conn.codecs
		f := &row.Features
		f.Idempotence = f.Idempotence || conn.idempotence
		f.Transactions = f.Transactions || conn.transactions
		f.KIP848 = f.KIP848 || conn.kip848
		f.TLS = f.TLS || conn.tls
		for _, s := range conn.sasl {
			f.SASLMechanisms = addSorted(f.SASLMechanisms, s)
		}
		for _, s := range conn.tlsVersions {
			f.TLSVersions = addSorted(f.TLSVersions, s)
		}
	}
	out := make([]*ClientVersions, 0, len(rows))
	for _, row := range rows {
		row.finish(used[row], codecs[row])
		out = append(out, row)
	}
	slices.SortFunc(out, func(a, b *ClientVersions) int {
		return cmp.Or(cmp.Compare(a.Client, b.Client), compareOpt(a.ClientID, b.ClientID),
			compareOpt(a.SoftwareName, b.SoftwareName), compareOpt(a.SoftwareVersion, b.SoftwareVersion))
	})
	return out
}

// compareOpt orders nil first, then by value.
func compareOpt(a, b *string) int {
	switch {
	case a == nil || b == nil:
		return cmp.Compare(b2i(a != nil), b2i(b != nil))
	}
	return strings.Compare(*a, *b)
}

// finish fills the lists of a row from the versions its connections used.
func (row *ClientVersions) finish(used map[apiVersion]struct{}, codecs uint8) {
	pairs := make([]apiVersion, 0, len(used))
	for v := range used {
		pairs = append(pairs, v)
	}
	slices.SortFunc(pairs, func(a, b apiVersion) int {
		return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.version, b.version))
	})
	row.CompatibleWithKafka4 = true
	for _, p := range pairs {
		name := codec.APIName(p.key)
		if n := len(row.APIs); n == 0 || row.APIs[n-1].Key != p.key {
			row.APIs = append(row.APIs, APIVersionsUsed{Key: p.key, Name: name})
		}
		api := &row.APIs[len(row.APIs)-1]
		api.Versions = append(api.Versions, p.version)
		r, ok := codec.RemovedVersion(p.key, p.version)
		if !ok {
			continue
		}
		row.Removed = append(row.Removed, RemovedVersionUsed{Key: p.key, Name: name, Version: p.version, RemovedIn: r.Release, KIP: r.KIP})
		if r.Release == "4.0" {
			row.CompatibleWithKafka4 = false
		}
		if row.NewestBroker == "" || r.LastServed < row.NewestBroker {
			row.NewestBroker = r.LastServed
		}
	}
	for c := range 8 {
		if codecs&(1<<c) != 0 {
			row.Features.Compression = append(row.Features.Compression, codec.Compression(c).String())
		}
	}
}
