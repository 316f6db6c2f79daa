package displayfilter

import (
	"errors"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// produceExchange is a Produce v7 exchange of 40ms to orders[2], its
// response NOT_LEADER_OR_FOLLOWER.
func produceExchange() *dissect.Exchange {
	api, _ := codec.LookupAPI(0)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	id := "rdkafka"
	return &dissect.Exchange{
		Stream: 3, Client: netip.MustParseAddrPort("10.0.0.1:40000"), Broker: netip.MustParseAddrPort("10.0.0.9:9092"),
		APIKey: 0, APIVersion: 7, CorrelationID: 12, ClientID: &id,
		Request:  &dissect.Frame{Time: t0, Size: 120},
		Response: &dissect.Frame{Time: t0.Add(40 * time.Millisecond), Size: 60},
		Notes:    []dissect.Note{dissect.NewNote(dissect.NoteOther, "a note")},
		Decoded: &dissect.Decoded{
			API: api,
			Request: &codec.ProduceRequest{Acks: -1, TimeoutMs: 30000, TopicData: []codec.ProduceRequestTopicProduceData{
				{Name: "orders", PartitionData: []codec.ProduceRequestPartitionProduceData{{Index: 2}}}}},
			Response: &codec.ProduceResponse{Responses: []codec.ProduceResponseTopicProduceResponse{
				{Name: "orders", PartitionResponses: []codec.ProduceResponsePartitionProduceResponse{{Index: 2, ErrorCode: 6}}}}},
			ResponseVersion: 7,
			Topics:          []codec.TopicPartitions{{Topic: "orders", Partitions: []int32{2}}},
			Errors:          []codec.ErrorRef{{Code: 6, Topic: "orders", Partition: 2}},
			Records:         5,
		},
	}
}

func TestMatch(t *testing.T) {
	ex := produceExchange()
	fetch := produceExchange()
	fetch.APIKey = 1
	fetch.Decoded.API, _ = codec.LookupAPI(1)
	fetch.Decoded.Request = &codec.FetchRequest{}
	fetch.Decoded.Response = nil
	fetch.Response = nil
	for _, tc := range []struct {
		expr         string
		produce, fch bool
	}{
		{`api == "Produce" && api_key == 0 && api_version == 7`, true, false},
		{`latency == duration("40ms") && latency_us == 40000`, true, false},
		{`latency > duration("50ms")`, false, false},
		{`latency < duration("50ms")`, true, false}, // no response: nil, not less
		{`latency == nil`, false, true},
		{`any(errors, .name == "NOT_LEADER_OR_FOLLOWER" && .partition == 2)`, true, true},
		{`"orders" in map(topics, .topic)`, true, true},
		{`client_id startsWith "rd" && client contains "10.0.0.1" && broker matches ":9092$"`, true, true},
		{`ts == "2026-01-02T03:04:05.000000006Z" && stream == 3 && correlation_id == 12`, true, true},
		{`request.Acks == -1`, true, false},
		{`request.Acks != 0`, true, false}, // Fetch has no Acks: != is false
		{`not (request.Acks == 0)`, true, true},
		{`request.TopicData[0].PartitionData[-1].Index == 2`, true, false},
		{`request.TopicData[9].Name == "orders"`, false, false},
		{`any(response.Responses, any(.PartitionResponses, .ErrorCode == 6))`, true, false},
		{`len(response.Responses) == 0`, false, true},
		{`request.TransactionalId == nil`, true, true}, // Fetch has none: nil
		{`tls == nil`, true, true},
		{`request_size > 100 && response_size == 60 && records == 5 && len(notes) == 1`, true, false},
	} {
		f, err := Compile(tc.expr)
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		for _, c := range []struct {
			ex   *dissect.Exchange
			want bool
		}{{ex, tc.produce}, {fetch, tc.fch}} {
			got, err := f.Match(c.ex)
			if err != nil || got != c.want {
				t.Errorf("%s on %s: %v, %v; want %v", tc.expr, c.ex.Decoded.API.Name, got, err, c.want)
			}
		}
	}
}

func TestCompileErrors(t *testing.T) {
	for _, tc := range []struct {
		expr      string
		line, col int
		msg       string
	}{
		{`foo == 1`, 1, 1, "unknown name foo"},
		{"api == \"Produce\" &&\n  request.Ack == 1", 2, 11, "unknown field Ack"},
		{`any(response.Responses, .PartitionResponse == nil)`, 1, 26, "unknown field PartitionResponse"},
		{`api ==`, 1, 6, "unexpected token EOF"},
	} {
		_, err := Compile(tc.expr)
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("%q: %v, want an *Error", tc.expr, err)
		}
		if e.Line != tc.line || e.Column != tc.col || e.Message[:len(tc.msg)] != tc.msg {
			t.Errorf("%q: %d:%d %q, want %d:%d %q", tc.expr, e.Line, e.Column, e.Message, tc.line, tc.col, tc.msg)
		}
	}
}

func TestColumns(t *testing.T) {
	cols, err := CompileColumns([]string{"api", "client_id", "latency", "topics", "errors", "request.Acks", "request.TopicData[0]", "response.ThrottleTimeMs", "request.Nothing ?? 1"})
	if err == nil {
		t.Fatal("request.Nothing compiled")
	}
	cols, err = CompileColumns([]string{"api", "client_id", "latency", "topics", "errors", "request.Acks", "request.TopicData[0].Name", "response.ThrottleTimeMs", "len(errors)"})
	if err != nil {
		t.Fatal(err)
	}
	got := cols.Row(produceExchange())
	want := []string{"Produce", "rdkafka", "40ms", `[{"topic":"orders","partitions":[2]}]`,
		`[{"code":6,"name":"NOT_LEADER_OR_FOLLOWER","topic":"orders","partition":2}]`, "-1", "orders", "0", "1"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("column %s: %q, want %q", cols.Names()[i], got[i], want[i])
		}
	}
}

// TestConcurrentMatch runs one filter on many goroutines (go test -race).
func TestConcurrentMatch(t *testing.T) {
	f, err := Compile(`request.Acks == -1 && any(errors, .code == 6)`)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ex := produceExchange()
			for range 200 {
				if ok, err := f.Match(ex); !ok || err != nil {
					t.Errorf("Match: %v, %v", ok, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
