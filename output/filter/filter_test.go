package filter

import (
	"testing"
	"time"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

func TestParseAPI(t *testing.T) {
	for in, want := range map[string]int16{"Produce": 0, "produce": 0, "1": 1, "ListOffsets": 2, " metadata ": 3, "SaslAuthenticate": 36} {
		got, err := ParseAPI(in)
		if err != nil || got != want {
			t.Errorf("ParseAPI(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "Produc", "-1", "70000"} {
		if _, err := ParseAPI(in); err == nil {
			t.Errorf("ParseAPI(%q) accepted", in)
		}
	}
}

func TestSetMatch(t *testing.T) {
	id := "rdkafka"
	topicID := codec.UUID{1, 2, 3}
	t0 := time.Unix(1700000000, 0)
	ex := &dissect.Exchange{
		Stream: 3, APIKey: 0, APIVersion: 7, ClientID: &id,
		Request:  &dissect.Frame{Time: t0},
		Response: &dissect.Frame{Time: t0.Add(20 * time.Millisecond)},
		Decoded: &dissect.Decoded{
			Topics: []codec.TopicPartitions{{Topic: "orders", Partitions: []int32{0}}, {TopicID: topicID, Partitions: []int32{1}}},
			Errors: []codec.ErrorRef{{Code: 6, Topic: "orders", Partition: 0}},
		},
	}
	noResp := &dissect.Exchange{Stream: 1, APIKey: 1, Request: &dissect.Frame{Time: t0}, Decoded: &dissect.Decoded{}}
	sasl := &dissect.Exchange{APIKey: -1, SASLToken: true, Request: &dissect.Frame{Time: t0}}
	cases := []struct {
		name string
		s    *Set
		want [3]bool // ex, noResp, sasl
	}{
		{"nil", nil, [3]bool{true, true, true}},
		{"zero", &Set{}, [3]bool{true, true, true}},
		{"api", &Set{APIs: []int16{0}}, [3]bool{true, false, false}},
		{"apis", &Set{APIs: []int16{2, 1}}, [3]bool{false, true, false}},
		{"topic", &Set{Topics: []string{"orders"}}, [3]bool{true, false, false}},
		{"topic id base64", &Set{Topics: []string{topicID.String()}}, [3]bool{true, false, false}},
		{"topic id hex", &Set{Topics: []string{topicID.Hex()}}, [3]bool{true, false, false}},
		{"other topic", &Set{Topics: []string{"payments"}}, [3]bool{false, false, false}},
		{"client id", &Set{ClientIDs: []string{"x", "rdkafka"}}, [3]bool{true, false, false}},
		{"errors", &Set{Errors: true}, [3]bool{true, false, false}},
		{"min latency met", &Set{MinLatency: 20 * time.Millisecond}, [3]bool{true, false, false}},
		{"min latency not met", &Set{MinLatency: 21 * time.Millisecond}, [3]bool{false, false, false}},
		{"stream", &Set{Streams: []int{1}}, [3]bool{false, true, false}},
		{"all", &Set{APIs: []int16{0}, Topics: []string{"orders"}, ClientIDs: []string{"rdkafka"}, Errors: true, MinLatency: time.Millisecond, Streams: []int{3}}, [3]bool{true, false, false}},
	}
	for _, c := range cases {
		for i, e := range []*dissect.Exchange{ex, noResp, sasl} {
			if got := c.s.Match(e); got != c.want[i] {
				t.Errorf("%s: exchange %d: Match %v, want %v", c.name, i, got, c.want[i])
			}
		}
	}
	if s := (&Set{APIs: []int16{0, 1}, Errors: true}).String(); s != "api Produce, Fetch; errors" {
		t.Errorf("String() = %q", s)
	}
}
