// Package replay re-sends the Kafka requests of a capture to a broker
// through kdissect's client stack, and compares the broker's answers with
// the captured ones.
//
// The flow:
//
//	dissect.Exchange (decoded) ─ Add ─► plan: per captured connection, the
//	    requests in captured order, selected (Options.APIs, Topics,
//	    Streams, ReadOnly) and with topics renamed (Options.TopicMap)
//	Run ─► per captured connection a new client.Conn to each target broker
//	    it needs, requests rewritten with the target's state just before
//	    each is sent, and routed as a client would:
//	      - leader-routed requests (Produce, Fetch, ListOffsets,
//	        DeleteRecords, OffsetForLeaderEpoch, DescribeProducers; see
//	        leaderRouted) are split by the target's partition leaders, the
//	        parts sent at once and their answers merged into one response,
//	        compared and counted as one request; its replayed latency is
//	        from the first part sent to the last answer, retries included.
//	        Partitions answered NOT_LEADER_OR_FOLLOWER (or another
//	        leadership error), and parts whose connection failed, are sent
//	        again to the leader a refreshed metadata names when that is
//	        safe: reads, DeleteRecords, and Produce batches that are all
//	        idempotent (never others: they could be appended twice).
//	        CurrentLeaderEpoch fields carry the target's epochs; a split
//	        Fetch leaves its fetch session (a full fetch per part);
//	      - group and transaction APIs go to the coordinator (from the
//	        replayed FindCoordinator answers, else asked of the target),
//	        CreateTopics, DeleteTopics, CreatePartitions and the other
//	        controller APIs to the controller; an answer NOT_COORDINATOR or
//	        NOT_CONTROLLER sends the request once more where the target
//	        now says (a request naming several groups goes whole to the
//	        first one's coordinator);
//	      - version: the captured one when the target supports it, else the
//	        nearest it supports (fields the lower version cannot hold are
//	        reported), or as captured with Options.KeepVersions;
//	      - topic IDs (KIP-516): the target's ID of the same topic name;
//	      - producer id and epoch: the target's, from the replayed
//	        InitProducerId and EndTxn answers; record batch base sequences
//	        renumbered from 0 per producer and partition over the batches
//	        actually sent (a selection that leaves a Produce out leaves no
//	        gap), and the batch CRC-32C recomputed;
//	      - telemetry (KIP-714) client instance and subscription ids: the
//	        target's, from its GetTelemetrySubscriptions answers;
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
