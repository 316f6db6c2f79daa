package replay

import (
	"fmt"
	"strings"
	"sync"

	"github.com/kdissect/kdissect/codec"
)

// state is what the replay learnt from the capture and from the target's
// answers, shared by every replayed connection.
type state struct {
	mu sync.Mutex
	// topic IDs: captured ID → captured name; target name → target ID.
	capturedNames map[codec.UUID]string
	targetIDs     map[string]codec.UUID
	targetNames   map[codec.UUID]string // target ID → name
	topicMap      map[string]string     // --map-topic

	// producers: captured (id, epoch) → the target's.
	producers      map[pidEpoch]pidEpoch
	latestProducer map[int64]pidEpoch       // captured id → the target's newest
	members        map[string]string        // captured member id → target's
	generations    map[groupGen]int32       // captured generation/epoch of a group → target's
	coordinators   map[coordinatorKey]int32 // (key type, key) → target node id
	// sequences: per captured producer and partition, the sequence the
	// next batch sent gets, and the last captured base sequences given
	// one (a batch the captured client sent again keeps its).
	nextSequence  map[seqKey]int32
	sentSequence  map[seqKey]*recentBatches
	telemetry     map[codec.UUID]telemetryID // captured client instance id → target's
	subscriptions map[int32]int32            // captured subscription id → target's
}

// recentBatches are the last batches of a producer and partition given
// a sequence: captured base sequence → sequence sent. A producer
// re-sends only batches still in flight (at most 5 per partition for an
// idempotent producer), so the last recentBatchCount are enough, and the
// memory does not grow with the batches sent.
type recentBatches struct {
	base, seq [recentBatchCount]int32
	n         int // batches recorded, the last at (n-1)%recentBatchCount
}

const recentBatchCount = 16

func (r *recentBatches) find(base int32) (int32, bool) {
	for i := range min(r.n, recentBatchCount) {
		if r.base[i] == base {
			return r.seq[i], true
		}
	}
	return 0, false
}

func (r *recentBatches) add(base, seq int32) {
	r.base[r.n%recentBatchCount], r.seq[r.n%recentBatchCount] = base, seq
	r.n++
}

type pidEpoch struct {
	id    int64
	epoch int16
}

type seqKey struct {
	producer  pidEpoch // captured
	topic     string   // as sent
	partition int32
}

type groupGen struct {
	group string
	gen   int32
}

// coordinatorKey is a FindCoordinator key: type 0 group, 1 transaction.
type coordinatorKey struct {
	typ int8
	key string
}

func newState(topicMap map[string]string) *state {
	return &state{
		capturedNames:  map[codec.UUID]string{},
		targetIDs:      map[string]codec.UUID{},
		targetNames:    map[codec.UUID]string{},
		topicMap:       topicMap,
		producers:      map[pidEpoch]pidEpoch{},
		latestProducer: map[int64]pidEpoch{},
		members:        map[string]string{},
		generations:    map[groupGen]int32{},
		coordinators:   map[coordinatorKey]int32{},
		nextSequence:   map[seqKey]int32{},
		sentSequence:   map[seqKey]*recentBatches{},
		telemetry:      map[codec.UUID]telemetryID{},
		subscriptions:  map[int32]int32{},
	}
}

// mapTopic returns the name a captured topic is sent as.
func (s *state) mapTopic(name string) string {
	if to, ok := s.topicMap[name]; ok {
		return to
	}
	return name
}

// learnCapturedTopics records the captured topic IDs whose names the
// decoder resolved.
func (s *state) learnCapturedTopics(tps []codec.TopicPartitions) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, tp := range tps {
		if tp.Topic != "" && !tp.TopicID.IsZero() {
			s.capturedNames[tp.TopicID] = tp.Topic
		}
	}
}

// learnTargetTopics records the topic IDs a target's response names
// next to topic names.
func (s *state) learnTargetTopics(resp codec.Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	resp.WalkFields(func(refs []codec.FieldRef) {
		var name string
		var id *codec.UUID
		named := false
		for _, r := range refs {
			switch p := r.Ptr.(type) {
			case *codec.UUID:
				if id == nil && r.Info.Has(codec.FieldTopicID) {
					id = p
				}
			case *string, **string:
				if !named && r.Info.Has(codec.FieldTopic) {
					name, named = refString(r), true
				}
			}
		}
		if name != "" && id != nil && !id.IsZero() {
			s.targetIDs[name] = *id
			s.targetNames[*id] = name
		}
	})
}

// targetID returns the target's ID of the topic (by the name sent).
func (s *state) targetID(name string) (codec.UUID, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.targetIDs[name]
	return id, ok
}

func (s *state) setTargetID(name string, id codec.UUID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.targetIDs[name] = id
	s.targetNames[id] = name
}

// targetName returns the name of a target topic ID ("" when unknown).
func (s *state) targetName(id codec.UUID) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.targetNames[id]
}

// topicRewrite rewrites the topics of req in place: names through the
// topic map, captured topic IDs to the target's IDs of the same names
// (lookup asks the target for those it has not named yet). With
// fillNames a struct naming its topic only by ID gets the name too (for
// a version that has no ID). It returns the names sent, and notes.
func (s *state) topicRewrite(req codec.Message, fillNames bool, lookup func(name string) (codec.UUID, bool)) (notes []string) {
	req.WalkFields(func(refs []codec.FieldRef) {
		for _, r := range refs {
			if !r.Info.Has(codec.FieldTopic) {
				continue
			}
			switch p := r.Ptr.(type) {
			case *[]string:
				for j, n := range *p {
					(*p)[j] = s.mapTopic(n)
				}
			default:
				if n := refString(r); n != "" {
					if m := s.mapTopic(n); m != n {
						setRefString(r, m)
					}
				}
			}
		}
		for _, r := range refs {
			p, ok := r.Ptr.(*codec.UUID)
			if !ok || !r.Info.Has(codec.FieldTopicID) || p.IsZero() {
				continue
			}
			s.mu.Lock()
			name, ok := s.capturedNames[*p]
			s.mu.Unlock()
			if !ok {
				notes = append(notes, fmt.Sprintf("topic ID %s: no name for it in the capture, sent as captured", *p))
				continue
			}
			name = s.mapTopic(name)
			if fillNames {
				fillName(refs, name)
			}
			tid, ok := s.targetID(name)
			if !ok && lookup != nil {
				tid, ok = lookup(name)
			}
			if !ok {
				notes = append(notes, fmt.Sprintf("topic %s: the target has no ID for it, sent with the captured ID", name))
				continue
			}
			*p = tid
		}
	})
	return notes
}

// learnProducer records the producer id and epoch the target gave in
// answer to a request whose captured answer gave captured ones
// (InitProducerId, EndTxn v5+).
func (s *state) learnProducer(captured, target pidEpoch) {
	if captured.id < 0 || target.id < 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.producers[captured] = target
	s.latestProducer[captured.id] = target
}

// producer returns the target's producer for a captured one.
func (s *state) producer(captured pidEpoch) (pidEpoch, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.producers[captured]; ok {
		return t, true
	}
	t, ok := s.latestProducer[captured.id]
	return t, ok
}

// producerRewrite rewrites every ProducerId/ProducerEpoch pair of req
// that names a captured producer the target has given an id for.
func (s *state) producerRewrite(req codec.Message) {
	req.WalkFields(func(refs []codec.FieldRef) {
		for _, r := range refs {
			id, ok := r.Ptr.(*int64)
			if !ok || !r.Info.Has(codec.FieldProducerID) || *id < 0 {
				continue
			}
			epoch := producerEpochOf(refs, r.Info.Name)
			c := pidEpoch{id: *id, epoch: -1}
			if epoch != nil {
				c.epoch = *epoch
			}
			t, ok := s.producer(c)
			if !ok {
				continue
			}
			*id = t.id
			if epoch != nil {
				*epoch = t.epoch
			}
		}
	})
}

// producerEpochOf returns the epoch field paired with the producer id
// field called idName among refs (ProducerEpoch with ProducerId,
// V3AndBelowProducerEpoch with V3AndBelowProducerId), or nil.
func producerEpochOf(refs []codec.FieldRef, idName string) *int16 {
	want := strings.TrimSuffix(idName, "Id") + "Epoch"
	for _, r := range refs {
		if p, ok := r.Ptr.(*int16); ok && r.Info.Has(codec.FieldProducerEpoch) && r.Info.Name == want {
			return p
		}
	}
	return nil
}

// rewriteBatches returns a copy of raw (the records of one partition of
// a Produce request, sent as topic[partition]) whose v2 batches carry the
// target's producer id and epoch, base sequences renumbered from 0 for
// each captured producer and partition over the batches sent (see
// sequence), and recomputed CRC-32Cs. Batches
// without a producer id (not idempotent) and message sets are left as
// they are; raw itself is not modified. When a batch names a producer
// the target has not given an id for, it returns the producer, ok false.
func (s *state) rewriteBatches(raw []byte, topic string, partition int32) (out []byte, missing *pidEpoch) {
	for pos, rest := 0, raw; ; {
		entry, next, ok := codec.NextRawBatch(rest)
		if !ok {
			break
		}
		at := pos
		pos, rest = pos+len(entry), next
		p, ok := codec.ReadBatchProducer(entry)
		if !ok || p.ProducerId < 0 {
			continue // a message set, or a producer that is not idempotent
		}
		c := pidEpoch{id: p.ProducerId, epoch: p.ProducerEpoch}
		t, ok := s.producer(c)
		if !ok {
			return nil, &c
		}
		if out == nil {
			out = append([]byte(nil), raw...)
		}
		p.ProducerId, p.ProducerEpoch = t.id, t.epoch
		if p.BaseSequence >= 0 {
			p.BaseSequence = s.sequence(seqKey{producer: c, topic: topic, partition: partition}, p.BaseSequence, p.Records)
		}
		if err := codec.SetBatchProducer(out[at:pos], p); err != nil {
			panic(err) // NextRawBatch framed it and ReadBatchProducer read it as v2
		}
	}
	if out == nil {
		return raw, nil
	}
	return out, nil
}

// sequence returns the base sequence a captured batch (base sequence
// base, records records) of a producer and partition is sent with: the
// next one after the batches sent before it, so that the sequences the
// target sees have no gap whatever the selection left out; a batch
// whose captured base sequence was already sent (the captured client
// sent it again) gets the same as before, and the target deduplicates
// it as the captured broker did. Sequences wrap at 2^31 as Kafka's do.
func (s *state) sequence(k seqKey, base, records int32) int32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	recent := s.sentSequence[k]
	if recent == nil {
		recent = &recentBatches{}
		s.sentSequence[k] = recent
	}
	if seq, ok := recent.find(base); ok {
		return seq
	}
	seq := s.nextSequence[k]
	recent.add(base, seq)
	s.nextSequence[k] = int32((int64(seq) + int64(max(records, 1))) & 0x7fffffff)
	return seq
}

// learnGroup records the member id and generation (member epoch) a
// target's response gave its requester where the captured response gave
// others. Only the response's own top-level MemberId and generation are
// the requester's: the member lists of a JoinGroup answer come in the
// coordinator's order (kfake and Kafka iterate a map), and the Leader
// the target elects need not be the captured one, so pairing those
// would map one member's id to another's, and that member's later
// requests (SyncGroup's assignments, LeaveGroup) would speak for
// another.
func (s *state) learnGroup(group string, captured, target codec.Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tr := topRefs(target)
	for _, c := range topRefs(captured) {
		var t codec.FieldRef
		for _, r := range tr {
			if r.Info == c.Info {
				t = r
			}
		}
		switch cp := c.Ptr.(type) {
		case *string:
			if c.Info.Has(codec.FieldMemberID) && c.Info.Name == "MemberId" && t.Ptr != nil {
				if ca, ta := *cp, *t.Ptr.(*string); ca != "" && ta != "" {
					s.members[ca] = ta
				}
			}
		case *int32:
			if c.Info.Has(codec.FieldGeneration) && t.Ptr != nil {
				if ca, ta := *cp, *t.Ptr.(*int32); ca > 0 && ta > 0 {
					s.generations[groupGen{group, ca}] = ta
				}
			}
		}
	}
}

// groupRewrite rewrites the member ids and generations of req (group is
// its GroupId) to the target's.
func (s *state) groupRewrite(req codec.Message, group string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	req.WalkFields(func(refs []codec.FieldRef) {
		for _, r := range refs {
			switch p := r.Ptr.(type) {
			case *string:
				if r.Info.Has(codec.FieldMemberID) {
					if t, ok := s.members[*p]; ok {
						*p = t
					}
				}
			case *int32:
				if r.Info.Has(codec.FieldGeneration) && *p > 0 {
					if t, ok := s.generations[groupGen{group, *p}]; ok {
						*p = t
					}
				}
			}
		}
	})
}

func (s *state) setCoordinator(k coordinatorKey, node int32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.coordinators[k] = node
}

func (s *state) coordinator(k coordinatorKey) (int32, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.coordinators[k]
	return n, ok
}
