package codec

// Summary is what one request or response body touches: topic-partitions,
// non-zero error codes with where they were reported, and record sets. It
// is filled by Message.Summarize, driven by the schema's @topic, @topicid,
// @partition, @partitions and @error annotations.
//
// Of a body read from a gapped Reader, fields not captured are left out: a
// partition whose index was not captured is not listed, nor a topic whose
// name and ID were not (its partitions neither; its errors are, without a
// topic), an error code not captured is no error, a records field not
// captured is no record set.
type Summary struct {
	Topics  []TopicPartitions
	Errors  []ErrorRef
	Records []RecordsRef

	index map[topicKey]int // Topics position, built once Topics grows
	// parts holds, for a topic with many partitions, the set of them, so
	// that a body naming thousands of partitions (a replica Fetch) costs
	// linear time; parallel to Topics, nil while a topic has few.
	parts []map[int32]struct{}
}

// TopicPartitions is one topic and the partitions of it a body touches.
// Topic is empty when the body names the topic only by TopicId (KIP-516).
type TopicPartitions struct {
	Topic      string
	TopicID    UUID
	Partitions []int32
}

// ErrorRef is a non-zero error code and where it was reported. Topic and
// TopicID are empty and Partition is -1 when not applicable.
type ErrorRef struct {
	Code      int16
	Topic     string
	TopicID   UUID
	Partition int32
}

// RecordsRef is a records field and the topic-partition it belongs to.
type RecordsRef struct {
	Records   *Records
	Topic     string
	TopicID   UUID
	Partition int32
}

// Reset empties s for reuse.
func (s *Summary) Reset() {
	s.Topics = s.Topics[:0]
	s.Errors = s.Errors[:0]
	s.Records = s.Records[:0]
	s.parts = s.parts[:0]
	clear(s.index)
}

// sumCtx is the topic and partition the generated summarize methods are inside.
type sumCtx struct {
	topic        string
	topicID      UUID
	hasTopic     bool
	partition    int32
	hasPartition bool
	// topicLost says a topic field of the struct was not captured: an
	// empty name or a zero TopicId (no ID) beside it does not name the
	// topic.
	topicLost bool
}

func (c sumCtx) withTopic(t string) sumCtx {
	c.topic, c.hasPartition = t, false
	if !c.topicLost || t != "" { // beside a topic field lost, "" names nothing
		c.hasTopic, c.topicLost = true, false
	}
	return c
}

func (c sumCtx) withTopicID(id UUID) sumCtx {
	c.topicID, c.hasPartition = id, false
	if !c.topicLost || !id.IsZero() { // beside a topic field lost, no ID names nothing
		c.hasTopic, c.topicLost = true, false
	}
	return c
}

// withoutTopic leaves c under no known topic: a topic field was not
// captured (a gapped Reader).
func (c sumCtx) withoutTopic() sumCtx {
	c.topic, c.topicID, c.hasTopic = "", UUID{}, false
	c.hasPartition, c.topicLost = false, true
	return c
}

// withoutPartition leaves c under no known partition.
func (c sumCtx) withoutPartition() sumCtx {
	c.hasPartition = false
	return c
}

func (c sumCtx) withPartition(p int32) sumCtx {
	c.partition, c.hasPartition = p, true
	return c
}

func (c sumCtx) partitionOrNone() int32 {
	if c.hasPartition {
		return c.partition
	}
	return -1
}

type topicKey struct {
	name string
	id   UUID
}

// topic returns the position of the topic of c in s.Topics, adding it.
func (s *Summary) topic(c sumCtx) int {
	k := topicKey{c.topic, c.topicID}
	if s.index != nil {
		if i, ok := s.index[k]; ok {
			return i
		}
	} else {
		for i := range s.Topics {
			if s.Topics[i].Topic == k.name && s.Topics[i].TopicID == k.id {
				return i
			}
		}
	}
	s.Topics = append(s.Topics, TopicPartitions{Topic: c.topic, TopicID: c.topicID})
	s.parts = append(s.parts, nil)
	i := len(s.Topics) - 1
	switch {
	case s.index != nil:
		s.index[k] = i
	case len(s.Topics) > 16: // linear search stops paying off
		s.index = make(map[topicKey]int, 2*len(s.Topics))
		for j := range s.Topics {
			s.index[topicKey{s.Topics[j].Topic, s.Topics[j].TopicID}] = j
		}
	}
	return i
}

func (s *Summary) addTopic(c sumCtx) {
	if c.hasTopic {
		s.topic(c)
	}
}

func (s *Summary) addPartition(c sumCtx) {
	if !c.hasTopic || !c.hasPartition {
		return
	}
	i := s.topic(c)
	t := &s.Topics[i]
	if s.parts[i] == nil {
		for _, p := range t.Partitions {
			if p == c.partition {
				return
			}
		}
		t.Partitions = append(t.Partitions, c.partition)
		if len(t.Partitions) > 16 { // linear search stops paying off
			s.parts[i] = make(map[int32]struct{}, 2*len(t.Partitions))
			for _, p := range t.Partitions {
				s.parts[i][p] = struct{}{}
			}
		}
		return
	}
	if _, seen := s.parts[i][c.partition]; !seen {
		s.parts[i][c.partition] = struct{}{}
		t.Partitions = append(t.Partitions, c.partition)
	}
}

func (s *Summary) addError(code int16, c sumCtx) {
	e := ErrorRef{Code: code, Partition: c.partitionOrNone()}
	if c.hasTopic {
		e.Topic, e.TopicID = c.topic, c.topicID
	}
	s.Errors = append(s.Errors, e)
}

func (s *Summary) addRecords(r *Records, c sumCtx) {
	s.Records = append(s.Records, RecordsRef{Records: r, Topic: c.topic, TopicID: c.topicID, Partition: c.partitionOrNone()})
}
