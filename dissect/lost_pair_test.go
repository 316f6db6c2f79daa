package dissect

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/internal/capedit"
)

// These tests drop packets of real kcat traffic (capedit) where a lost
// request and a lost response sit close together, or where the last
// response is lost before the broker closes, and compare what is
// recovered with the clean capture: its exchanges minus exactly what the
// packets dropped carried.

// kcatProduce holds connection 0 (client port 52096): ApiVersions (1),
// Metadata (2), then Produce v7 requests 3, 4 and 5, each request and
// each response (64 bytes) in one packet, then both FINs. 0-based
// indexes of its packets:
const (
	kcatProduce      = "../testdata/pcaps/kcat_produce_none.pcap"
	kcatProduceResp3 = 11 // the response to Produce 3
	kcatProduceReq4  = 13 // Produce request 4
	kcatProduceResp4 = 14 // the response to Produce 4
	kcatProduceResp5 = 16 // the response to Produce 5, the last before the broker's FIN
)

// dropped reads a capture, and the same capture with the packets at the
// given 0-based indexes dropped; it returns the exchanges of each.
func dropped(t *testing.T, path string, drop ...int) (clean, damaged []*Exchange) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := capedit.Rewrite(&buf, bytes.NewReader(b), capedit.Options{Drop: capedit.DropIndexes(drop...)}); err != nil {
		t.Fatal(err)
	}
	if clean, err = readAll(t, New(Options{}), b); err != nil {
		t.Fatal(err)
	}
	if damaged, err = readAll(t, New(Options{}), buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	return clean, damaged
}

// byStreamCorr indexes exchanges by stream and CorrelationId.
func byStreamCorr(exs []*Exchange) map[[2]int]*Exchange {
	out := map[[2]int]*Exchange{}
	for _, ex := range exs {
		out[[2]int{ex.Stream, int(ex.CorrelationID)}] = ex
	}
	return out
}

// sameFrameBytes reports whether two frames, either possibly nil, hold the
// same bytes.
func sameFrameBytes(a, b *Frame) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Size == b.Size && bytes.Equal(a.Bytes, b.Bytes)
}

// checkUntouched checks that every clean exchange but those of stream 0
// with the CorrelationIds in touched is in damaged as it was: the same
// frames and notes.
func checkUntouched(t *testing.T, clean, damaged []*Exchange, touched ...int) {
	t.Helper()
	got := byStreamCorr(damaged)
	for _, c := range clean {
		if c.Stream == 0 && slices.Contains(touched, int(c.CorrelationID)) {
			continue
		}
		d := got[[2]int{c.Stream, int(c.CorrelationID)}]
		if d == nil || !sameFrameBytes(c.Request, d.Request) || !sameFrameBytes(c.Response, d.Response) || strings.Join(NoteTexts(c.Notes), "|") != strings.Join(NoteTexts(d.Notes), "|") {
			t.Errorf("untouched exchange changed: %s", describe(c))
			if d != nil {
				t.Logf("got %s", describe(d))
			}
		}
	}
	if want := len(clean) - len(touched) + countMissing(clean, touched); len(damaged) != want {
		for _, d := range damaged {
			t.Logf("got %s", describe(d))
		}
		t.Errorf("%d exchanges, want %d", len(damaged), want)
	}
}

// countMissing is how many of the touched exchanges of stream 0 are
// still there (as a request alone or a response alone).
func countMissing(clean []*Exchange, touched []int) int {
	n := 0
	for _, c := range clean {
		if c.Stream == 0 && slices.Contains(touched, int(c.CorrelationID)) {
			n++
		}
	}
	return n
}

// Issue 26, item 1: Produce request 4 and the response to Produce 3 lost
// (one packet each way). The two responses after the broker's hole (the
// one to the lost request 4, and the one to request 5) are real frames:
// request 3 alone has no response, request 5 is paired, and response 4
// stands alone, as tshark shows them ("Response (Request Missing)").
func TestLostRequestAndResponseKeepResponses(t *testing.T) {
	clean, damaged := dropped(t, kcatProduce, kcatProduceResp3, kcatProduceReq4)
	c := byStreamCorr(clean)
	got := byStreamCorr(damaged)
	for _, id := range []int{3, 4, 5} {
		if e := c[[2]int{0, id}]; e == nil || e.Request == nil || e.Response == nil || e.APIKey != 0 || len(e.Request.Holes)+len(e.Response.Holes) > 0 {
			t.Fatalf("clean capture: Produce %d is not a whole exchange of stream 0", id)
		}
	}
	checkUntouched(t, clean, damaged, 3, 4, 5)

	e3 := got[[2]int{0, 3}]
	if e3 == nil || !sameFrameBytes(e3.Request, c[[2]int{0, 3}].Request) || e3.Response != nil || e3.NoResponse != ResponseLost {
		t.Fatalf("Produce 3: want its request alone, its response lost; got %v", e3)
	}
	for _, n := range e3.Notes {
		if n.Kind != NoteNoResponse {
			t.Errorf("Produce 3: note %q", n)
		}
	}
	e4 := got[[2]int{0, 4}]
	if e4 == nil || e4.Request != nil || !sameFrameBytes(e4.Response, c[[2]int{0, 4}].Response) {
		t.Fatalf("response 4: want the response alone; got %v", e4)
	}
	if !hasNoteKind(e4, NoteNoRequest) {
		t.Errorf("response 4: notes %q, want one saying its request was not captured", e4.Notes)
	}
	e5 := got[[2]int{0, 5}]
	if e5 == nil || !sameFrameBytes(e5.Request, c[[2]int{0, 5}].Request) || !sameFrameBytes(e5.Response, c[[2]int{0, 5}].Response) {
		t.Fatalf("Produce 5: want it paired; got %v", e5)
	}
	for _, n := range e5.Notes {
		if k := n.Kind; k != NoteGap {
			t.Errorf("Produce 5: note %q (%s)", n, k)
		}
	}
	if n, m := unanswered(damaged), unanswered(clean); n != m+1 {
		t.Errorf("%d requests without a response, want %d: the clean capture's and Produce 3", n, m+1)
	}
}

// Issue 26, item 2: the response to Produce 5 lost, then the broker's
// FIN: its sequence number shows the response was sent. Request 5 says
// its response was not captured, and how much of the broker's stream was
// lost; everything else is as in the clean capture.
func TestLostResponseBeforeClose(t *testing.T) {
	clean, damaged := dropped(t, kcatProduce, kcatProduceResp5)
	c := byStreamCorr(clean)
	if e := c[[2]int{0, 5}]; e == nil || e.Response == nil || e.Response.Size != 60 {
		t.Fatal("clean capture: Produce 5 of stream 0 is not answered by a 64-byte frame")
	}
	checkUntouched(t, clean, damaged, 5)
	e5 := byStreamCorr(damaged)[[2]int{0, 5}]
	if e5 == nil || !sameFrameBytes(e5.Request, c[[2]int{0, 5}].Request) || e5.Response != nil {
		t.Fatalf("Produce 5: want its request alone; got %v", e5)
	}
	want := "response not captured: 64 bytes of the broker's stream lost before the connection closed"
	if e5.NoResponse != ResponseLost || len(e5.Notes) != 1 || e5.Notes[0].Text != want {
		t.Errorf("Produce 5: reason %v, notes %q; want %q", e5.NoResponse, e5.Notes, want)
	}
	if k := e5.Notes[0].Kind; k != NoteNoResponse {
		t.Errorf("note kind %q, want %q", k, NoteNoResponse)
	}
}

// The last response sent before the broker's FIN with nothing lost: the
// request sent after it was not answered (the Fetch that kcat leaves
// waiting when it exits), and that is what the note says.
func TestClosedBeforeResponseUnchanged(t *testing.T) {
	n := 0
	for _, ex := range readExchanges(t, kcatProduce) {
		if ex.Response == nil && ex.Request != nil {
			n++
			if ex.NoResponse != ConnectionClosed || len(ex.Notes) != 1 || ex.Notes[0].Text != ConnectionClosed.String() {
				t.Errorf("%s: reason %v, want %v", describe(ex), ex.NoResponse, ConnectionClosed)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d requests without a response, want 1 (the last Fetch)", n)
	}
}

func hasNoteKind(ex *Exchange, kind NoteKind) bool {
	for _, n := range ex.Notes {
		if n.Kind == kind {
			return true
		}
	}
	return false
}

// unanswered counts the requests without a response, as stats does.
func unanswered(exs []*Exchange) int {
	n := 0
	for _, ex := range exs {
		if ex.Request != nil && ex.Response == nil {
			n++
		}
	}
	return n
}
