// Package replay re-sends the Kafka requests of a capture to a broker
// through kdissect's client stack, and compares the broker's answers with
// the captured ones.
//
// The flow:
//
//	dissect.Exchange (decoded) ─ Add ─► plan: per captured connection, the
//	    requests in captured order, selected (Options.APIs, Topics,
//	    Streams, ReadOnly) and with topics renamed (Options.TopicMap)
//	Run ─► per captured connection a new client.Conn to the target (to the
//	    partition leader or coordinator the target names when it is not
//	    the bootstrap broker), requests rewritten with the target's state
//	    just before each is sent:
//	      - version: the captured one when the target supports it, else the
//	        nearest it supports (fields the lower version cannot hold are
//	        reported), or as captured with Options.KeepVersions;
//	      - topic IDs (KIP-516): the target's ID of the same topic name;
//	      - producer id and epoch: the target's, from the replayed
//	        InitProducerId and EndTxn answers; record batch base sequences
//	        renumbered from 0 per producer and partition, and the batch
//	        CRC-32C recomputed;
//	      - group member ids and generations (and KIP-848 member epochs):
//	        the target's, from the replayed answers;
//	      - SASL: never replayed; each connection authenticates with
//	        Options.Client.SASL instead.
//	    A request is sent no earlier than its captured offset from the
//	    first request divided by Options.Speed, and only once every request
//	    whose response was captured before it was sent has been answered
//	    (on every connection being replayed): the capture's causal order.
//	Report ─► per API and overall: sent, answered, errors by name captured
//	    and replayed, latency p50/p99 captured and replayed, records sent,
//	    requests skipped and downgraded.
//
// Replay holds the decoded exchanges it will send in memory.
package replay
