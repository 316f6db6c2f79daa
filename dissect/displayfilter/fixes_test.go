package displayfilter

import (
	"testing"
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
