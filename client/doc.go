// Package client is kdissect's Kafka client: connections to brokers, a
// cluster client with metadata and retries, a producer and a consumer,
// all built on the codec package. It is the Go successor of the Perl CPAN
// package Kafka 1.05 (Kafka::Connection, ::IO, ::Producer, ::Consumer,
// ::Message, ::Exceptions) and keeps its semantics where they still fit:
//
//   - bootstrap from one address or a list; a 1.5 s request timeout;
//   - up to 4 attempts with a 200 ms backoff and a metadata refresh between
//     them, on retriable errors only, and never a blind retry of a Produce
//     whose outcome is unknown (only an idempotent producer, whose sequence
//     numbers let the broker drop a duplicate, retries those);
//   - a CorrelationId mismatch is fatal: the connection is closed;
//   - one error type carrying Kafka's code, name, description and
//     retriable flag, plus client-side codes (cannot connect, cannot send,
//     no acknowledgement, ...);
//   - messages with Key, Value, Offset, NextOffset and Valid/Error for
//     damaged entries.
//
// Beyond it: every API key and version the codec knows, negotiated per key
// with ApiVersions (KIP-35, KIP-511); record batches v2 with headers
// (KIP-82, KIP-98); all five compression codecs; the idempotent producer;
// TLS; SASL PLAIN and SCRAM-SHA-256/512; a raw request path (Conn.RoundTrip,
// Client.RoundTrip) that sends any codec request at any version unchanged.
//
// Layers:
//
//	Conn      one broker connection: Dial, RoundTrip, RoundTripRaw
//	Client    the cluster: New, Metadata, RoundTrip, Request, BrokerConn
//	Producer  Produce, ProduceByKey
//	Consumer  Fetch, ListOffset, CommitOffset, CommittedOffset, JoinGroup, ConsumeGroup
//	ConnSettings  librdkafka and Java client properties: ApplyProperties, ReadProperties
//
// Every blocking call takes a context.Context; the package keeps no global
// mutable state and starts no goroutine that outlives a call.
package client
