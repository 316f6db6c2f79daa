// Package replay re-sends the Kafka requests of a capture to a broker
// through kdissect's client stack, and compares the broker's answers with
// the captured ones.
//
// The flow:
//
//	Start ─► connects to the target (its metadata: brokers, topic IDs)
//	dissect.Exchange (decoded) ─ Add ─► per request: selected
//	    (Options.APIs, Topics, Streams, ReadOnly), copied, with topics
//	    renamed (Options.TopicMap) and fetch sessions undone (below),
//	    then held in the read-ahead window (Options.Window: requests and
//	    bytes, in all and per captured connection); Add blocks while it
//	    is full. Requests are sent while the capture is still being read,
//	    and let go (counted in the report) once answered: memory does
//	    not grow with the capture.
//	sched ─► each captured connection with requests held gets a runner:
//	    a new client.Conn to each target broker it needs, at most
//	    Options.Concurrency at once, the connection holding the oldest
//	    request first; when all are taken, a runner whose connection has
//	    nothing held, else one whose next request waits for the causal
//	    order, is stopped for it (its connections closed; its requests
//	    stay held and a later runner opens new ones; the report notes
//	    it). The members of a rebalance count as one slot: while a
//	    JoinGroup or SyncGroup is answered, a request the capture sent
//	    before that answer gets a runner beyond Options.Concurrency
//	    (another member's JoinGroup may be what the broker waits for;
//	    the report notes it). The oldest request held never waits for
//	    another, so the window always drains. Each request is rewritten with the target's state just
//	    before it is sent, and routed as a client would:
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
//	        CurrentLeaderEpoch fields carry the target's epochs;
//	      - requests naming several groups or transactional ids
//	        (DescribeGroups, DeleteGroups, OffsetFetch v8+,
//	        ConsumerGroupDescribe, ShareGroupDescribe, StreamsGroupDescribe,
//	        DescribeTransactions; see keyRouted) are split by the target's
//	        coordinators (FindCoordinator v4+ asks for them all at once),
//	        and the answers merged, keys answered NOT_COORDINATOR sent
//	        again where a fresh lookup says;
//	      - other group and transaction APIs go to the coordinator (from
//	        the replayed FindCoordinator answers, else asked of the
//	        target), CreateTopics, DeleteTopics, CreatePartitions and the
//	        other controller APIs to the controller; an answer
//	        NOT_COORDINATOR or NOT_CONTROLLER sends the request once more
//	        where the target now says;
//	      - fetch sessions (KIP-227): the target never saw the captured
//	        session ids, so every Fetch v7+ is sent without a session
//	        (SessionId 0, SessionEpoch -1), an incremental one naming all
//	        its session's partitions as the captured requests left them
//	        (see fetchSessions); the report notes how many;
//	      - version: the captured one when the broker it goes to supports
//	        it, else the nearest it supports (fields the lower version
//	        cannot hold are reported), or as captured with
//	        Options.KeepVersions; each part of a split request at the
//	        version its own broker offers (the report lists a downgrade
//	        of one broker's parts with the broker's address); a Produce
//	        whose sent version carries the other record format has its
//	        records converted (message set ↔ record batch v2, see
//	        convertProduceRecords), with Options.ReadOnly a Metadata
//	        v0-v3 goes at v4 with AllowAutoTopicCreation false when the
//	        target offers it (see readOnlyMetadata);
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
//	    handed over before it whose response was captured before it was
//	    sent has been answered (on every captured connection, with a
//	    runner or waiting for one): the capture's causal order.
//	Wait ─► waits for the requests held, then the report: per API and
//	    overall, sent, answered, errors by name captured and replayed,
//	    latency p50/p99 captured and replayed, records sent, requests
//	    skipped and downgraded.
//
// Replay holds in memory the requests of its window, and what it learnt
// of the capture and the target that later requests need: topic IDs,
// producer ids (with the last sequences of each producer and partition),
// member ids, generations, coordinators, fetch sessions' partitions. The
// report keeps counts and bounded lists (MaxFailures, Options.MaxPlan,
// MaxNotes).
package replay
