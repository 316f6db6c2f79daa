package replay

import (
	"slices"

	"github.com/kdissect/kdissect/dissect"
)

// Unmatched lists the values of Options.APIs, Streams and Topics that
// no captured request had: a selection by one of them selects nothing
// (a typo, or the wrong capture); and the captured names of
// Options.TopicMap that no request names: the renaming renames nothing.
// Each value is judged on its own, not with the other options.
type Unmatched struct {
	APIs      []int16  `json:"apis"`       // ApiKeys
	Streams   []int    `json:"streams"`    // captured connections
	Topics    []string `json:"topics"`     // as given in Options.Topics
	MapTopics []string `json:"map_topics"` // TopicMap's captured names, sorted
}

// Empty reports whether every value selected something.
func (u *Unmatched) Empty() bool {
	return len(u.APIs) == 0 && len(u.Streams) == 0 && len(u.Topics) == 0 && len(u.MapTopics) == 0
}

// selectionSeen records which values of Options.APIs, Streams and
// Topics a captured request had. It is for the goroutine calling Add.
type selectionSeen struct {
	apis    map[int16]bool
	streams map[int]bool
	topics  map[string]bool
	mapped  map[string]bool // TopicMap's captured names seen
}

// see records the values ex (a request, decoded) has.
func (s *selectionSeen) see(o *Options, ex *dissect.Exchange) {
	if ex.Request == nil || ex.SASLToken {
		return
	}
	if s.apis == nil {
		s.apis, s.streams, s.topics, s.mapped = map[int16]bool{}, map[int]bool{}, map[string]bool{}, map[string]bool{}
	}
	if slices.Contains(o.APIs, ex.APIKey) {
		s.apis[ex.APIKey] = true
	}
	if slices.Contains(o.Streams, ex.Stream) {
		s.streams[ex.Stream] = true
	}
	if ex.Decoded == nil {
		return
	}
	for _, tp := range ex.Decoded.Topics {
		if _, ok := o.TopicMap[tp.Topic]; ok {
			s.mapped[tp.Topic] = true
		}
	}
	for _, want := range o.Topics {
		if s.topics[want] {
			continue
		}
		for _, tp := range ex.Decoded.Topics {
			if topicMatches(want, tp) {
				s.topics[want] = true
				break
			}
		}
	}
}

// unmatched returns the values of o's selection never seen.
func (s *selectionSeen) unmatched(o *Options) Unmatched {
	u := Unmatched{APIs: []int16{}, Streams: []int{}, Topics: []string{}, MapTopics: []string{}}
	for from := range o.TopicMap {
		if !s.mapped[from] {
			u.MapTopics = append(u.MapTopics, from)
		}
	}
	slices.Sort(u.MapTopics)
	for _, k := range o.APIs {
		if !s.apis[k] && !slices.Contains(u.APIs, k) {
			u.APIs = append(u.APIs, k)
		}
	}
	for _, n := range o.Streams {
		if !s.streams[n] && !slices.Contains(u.Streams, n) {
			u.Streams = append(u.Streams, n)
		}
	}
	for _, t := range o.Topics {
		if !s.topics[t] && !slices.Contains(u.Topics, t) {
			u.Topics = append(u.Topics, t)
		}
	}
	return u
}
