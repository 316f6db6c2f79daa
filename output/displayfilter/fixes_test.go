package displayfilter

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/dissect"
)

// TestPacketKeys holds the JSON Lines keys records_aborted,
// request_packets, response_packets and packet_comments to their meaning
// there (render/packets.go): 1-based frame numbers, nil for a side not
// captured, the comments in order.
func TestPacketKeys(t *testing.T) {
	ex := produceExchange()
	ex.Request.FilePacket, ex.Request.LastFilePacket = 3, 4
	ex.Response.FilePacket, ex.Response.LastFilePacket = 6, 6
	ex.Decoded.RecordsAborted = 2
	ex.PacketComments = []string{"first", "second"}
	bare := produceExchange()
	bare.Response = nil
	for _, tc := range []struct {
		expr     string
		ex, bare bool
	}{
		{`records_aborted == 2`, true, false},
		{`records_aborted == 0`, false, true},
		{`request_packets[0] == 4 && request_packets[1] == 5`, true, false},
		{`response_packets != nil && response_packets[0] == 7 && response_packets[1] == 7`, true, false},
		{`response_packets == nil`, false, true},
		{`len(packet_comments) == 2 && packet_comments[1] == "second" && "first" in packet_comments`, true, false},
		{`len(packet_comments) == 0`, false, true},
	} {
		f, err := Compile(tc.expr)
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		for _, c := range []struct {
			name string
			want bool
		}{{"ex", tc.ex}, {"bare", tc.bare}} {
			e := ex
			if c.name == "bare" {
				e = bare
			}
			got, err := f.Match(e)
			if err != nil || got != c.want {
				t.Errorf("%s on %s: %v, %v; want %v", tc.expr, c.name, got, err, c.want)
			}
		}
	}
	cols, err := CompileColumns([]string{"records_aborted", "request_packets", "response_packets", "packet_comments"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		want []string
	}{
		{"ex", []string{"2", "[4,5]", "[7,7]", `["first","second"]`}},
		{"bare", []string{"0", "[1,1]", "", ""}},
	} {
		e := ex
		if c.name == "bare" {
			e = bare
		}
		got := cols.Row(e)
		for i := range c.want {
			if got[i] != c.want[i] {
				t.Errorf("%s column %s: %q, want %q", c.name, cols.Names()[i], got[i], c.want[i])
			}
		}
	}
}

// TestNotBool: a -Y whose value is not a condition is a compile error
// with its position, whether expr's checker sees the type (stream), the
// contract's nullable keys give it (api, latency) or the body types do
// (request.Acks); a value only the exchange decides still compiles.
func TestNotBool(t *testing.T) {
	for _, tc := range []struct {
		expr      string
		line, col int
		got       string
	}{
		{`stream`, 1, 1, "int"},
		{`api`, 1, 1, "string"},
		{`latency`, 1, 1, "time.Duration"},
		{`request.Acks`, 1, 9, "int16"},
		{"\n  tls", 2, 3, "*displayfilter.TLS"},
		{`errors[0].code`, 1, 11, "int16"},
	} {
		_, err := Compile(tc.expr)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%q: %v, want an *Error", tc.expr, err)
			continue
		}
		want := "expected bool, but got " + tc.got
		if e.Line != tc.line || e.Column != tc.col || !strings.HasPrefix(e.Message, want) {
			t.Errorf("%q: %d:%d %q, want %d:%d %q", tc.expr, e.Line, e.Column, e.Message, tc.line, tc.col, want)
		}
	}
	for _, src := range []string{`request.TransactionalId == nil`, `request.AllowAutoTopicCreation`, `tls.encrypted`, `latency == nil || latency > duration("1ms")`, `api_key in [0, 1]`, `(client_id ?? "") startsWith "rd"`} {
		if _, err := Compile(src); err != nil {
			t.Errorf("%s: %v", src, err)
		}
	}
	if _, err := CompileColumns([]string{"stream", "api", "request.Acks", "latency"}); err != nil {
		t.Errorf("columns: %v", err)
	}
}

// TestConstantMistakes: a duration text time.ParseDuration rejects, and
// a comparison of keys with constants of another type, fail to compile
// with their position instead of on every exchange.
func TestConstantMistakes(t *testing.T) {
	for _, tc := range []struct {
		expr      string
		line, col int
		msg       string
	}{
		{`latency > duration("1xs")`, 1, 20, `time: unknown unit "xs"`},
		{"api == \"Produce\" &&\n latency < duration(\"\")", 2, 21, `time: invalid duration ""`},
		{`latency > "1ms"`, 1, 9, "invalid operation: > (mismatched types time.Duration and string)"},
		{`latency_us > "5"`, 1, 12, "invalid operation: > (mismatched types int64 and string)"},
		{`api_key == "0"`, 1, 9, "invalid operation: == (mismatched types int and string)"},
	} {
		for _, compile := range []func(string) error{
			func(s string) error { _, err := Compile(s); return err },
			func(s string) error { _, err := CompileColumns([]string{s}); return err },
		} {
			err := compile(tc.expr)
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("%q: %v, want an *Error", tc.expr, err)
				continue
			}
			if e.Line != tc.line || e.Column != tc.col || !strings.HasPrefix(e.Message, tc.msg) {
				t.Errorf("%q: %d:%d %q, want %d:%d %q", tc.expr, e.Line, e.Column, e.Message, tc.line, tc.col, tc.msg)
			}
		}
	}
	// A text only the exchange gives is still checked there.
	f, err := Compile(`latency > duration(api)`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Match(produceExchange()); err == nil {
		t.Error(`duration(api) on a Produce: no error`)
	}
}

// TestListIndexPastEnd: an index past the end of one of the contract's
// lists is nil, as in a body, not an error on that exchange; a field the
// list's entries lack is still a compile error.
func TestListIndexPastEnd(t *testing.T) {
	ex := produceExchange() // one error, one topic, one note
	bare := produceExchange()
	bare.Response = nil
	bare.Decoded.Errors, bare.Decoded.Topics, bare.Notes = nil, nil, nil
	for _, tc := range []struct {
		expr     string
		ex, bare bool
	}{
		{`errors[0].name == "MEMBER_ID_REQUIRED"`, false, false},
		{`errors[0].name == "NOT_LEADER_OR_FOLLOWER" && errors[-1].partition == 2`, true, false},
		{`errors[1] == nil && errors[1].name == nil`, true, true},
		{`topics[0].topic == "orders" && topics[0].partitions[0] == 2`, true, false},
		{`topics[0] == nil`, false, true},
		{`any(topics, .partitions[5] == 1)`, false, false},
		{`notes[0] == "a note"`, true, false},
		{`notes[3] == nil`, true, true},
		{`response_packets[0] == 1 && response_packets[1] == 1`, true, false},
		{`response_packets[0] == nil`, false, true},
		{`packet_comments[0] == nil`, true, true},
		{`"orders" in map(topics, .topic) && all(errors, .code == 6)`, true, false},
	} {
		f, err := Compile(tc.expr)
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		for _, c := range []struct {
			name string
			ex   *dissect.Exchange
			want bool
		}{{"ex", ex, tc.ex}, {"bare", bare, tc.bare}} {
			got, err := f.Match(c.ex)
			if err != nil || got != c.want {
				t.Errorf("%s on %s: %v, %v; want %v", tc.expr, c.name, got, err, c.want)
			}
		}
	}
	cols, err := CompileColumns([]string{"errors[0].name", "topics[0].partitions", "notes[2]"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cols.Row(ex), []string{"NOT_LEADER_OR_FOLLOWER", "[2]", ""}; !slices.Equal(got, want) {
		t.Errorf("columns: %q, want %q", got, want)
	}
	_, err = Compile(`errors[0].nme == "X"`)
	var e *Error
	if !errors.As(err, &e) || e.Column != 11 || !strings.HasPrefix(e.Message, "unknown field nme (fields here: code, name, partition, topic, topic_id)") {
		t.Errorf("errors[0].nme: %v", err)
	}
}

// TestErrorQuotesShort: an error quotes at most maxQuoted characters of
// the expression from its position, with "…" where it cut: an expression
// of too many nodes is not echoed whole.
func TestErrorQuotesShort(t *testing.T) {
	var parts []string
	for i := range 6000 {
		parts = append(parts, fmt.Sprintf("stream == %d", i))
	}
	long := strings.Join(parts, " || ")
	_, err := Compile(long)
	if err == nil {
		t.Fatal("an expression of 6000 comparisons compiled")
	}
	msg := err.Error()
	if !strings.Contains(msg, "exceeds maximum allowed nodes") || !strings.Contains(msg, `…")`) || len(msg) > 250 {
		t.Errorf("%d bytes: %.300s", len(msg), msg)
	}
	_, err = Compile(`foo == 1`) // short: quoted whole
	if err == nil || !strings.HasSuffix(err.Error(), `(at "foo == 1")`) {
		t.Errorf("foo == 1: %v", err)
	}
}
