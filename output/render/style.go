package render

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"

	"github.com/fatih/color"

	"github.com/kdissect/kdissect/dissect"
)

// Colors paints the parts of the views a reader should not miss: errors
// red, notes yellow, exchange headings bold. The zero value paints
// nothing. Colour is decided by the caller (a terminal, --no-color,
// NO_COLOR): fatih/color's own global switch is not consulted, so that a
// library writer never colours a file or a pipe by itself.
type Colors struct {
	on                   bool
	err, note, head, dim *color.Color
}

// NewColors returns Colors that paint when on.
func NewColors(on bool) Colors {
	if !on {
		return Colors{}
	}
	c := Colors{
		on:   true,
		err:  color.New(color.FgRed, color.Bold),
		note: color.New(color.FgYellow),
		head: color.New(color.Bold),
		dim:  color.New(color.Faint),
	}
	for _, x := range []*color.Color{c.err, c.note, c.head, c.dim} {
		x.EnableColor() // decided above, not by the package's global
	}
	return c
}

func (c Colors) paint(x *color.Color, s string) string {
	if !c.on || s == "" {
		return s
	}
	return x.Sprint(s)
}

// Error paints an error.
func (c Colors) Error(s string) string { return c.paint(c.err, s) }

// Note paints a note.
func (c Colors) Note(s string) string { return c.paint(c.note, s) }

// Heading paints a heading.
func (c Colors) Heading(s string) string { return c.paint(c.head, s) }

// Dim paints what matters less (offsets, redacted bytes).
func (c Colors) Dim(s string) string { return c.paint(c.dim, s) }

// tsFormat is a capture time in the views: RFC 3339, nanoseconds, UTC.
const tsFormat = "2006-01-02T15:04:05.000000000Z07:00"

// apiLabel names the exchange's API: "Produce v7", "key 99 v1", "SASL
// token (PLAIN)", or "unknown API" for a response without its request.
func apiLabel(ex *dissect.Exchange) string {
	switch {
	case ex.SASLToken:
		mech := ex.SASLMechanism
		if mech == "" {
			mech = "unknown mechanism"
		}
		return "SASL token (" + sanitize(mech) + ")"
	case ex.Decoded != nil && ex.Decoded.API != nil:
		return fmt.Sprintf("%s v%d", ex.Decoded.API.Name, ex.APIVersion)
	case ex.APIKey >= 0:
		return fmt.Sprintf("key %d v%d", ex.APIKey, ex.APIVersion)
	}
	return "unknown API"
}

// exchangeHeading writes the heading block of an exchange, shared by the
// detail and hexdump views: what, when, where, who, how long, how big,
// what it touched, and its notes.
func exchangeHeading(b *bufio.Writer, n int, ex *dissect.Exchange, c Colors) {
	dec := ex.Decoded
	if dec == nil {
		dec = &dissect.Decoded{}
	}
	fmt.Fprintf(b, "%s · %s · stream %d · %s → %s\n",
		c.Heading(fmt.Sprintf("Exchange %d · %s", n, apiLabel(ex))),
		ex.Time().UTC().Format(tsFormat), ex.Stream, ex.Client, ex.Broker)
	var parts []string
	if ex.File != "" {
		parts = append(parts, "file "+sanitize(ex.File))
	}
	if !ex.SASLToken {
		parts = append(parts, "correlation id "+strconv.Itoa(int(ex.CorrelationID)))
	}
	if ex.ClientID != nil {
		parts = append(parts, "client id "+strconv.Quote(*ex.ClientID))
	}
	if lat, ok := ex.Latency(); ok {
		parts = append(parts, "latency "+formatLatency(lat))
	}
	parts = append(parts, frameSummary("request", ex.Request, ex.File), frameSummary("response", ex.Response, ex.File))
	fmt.Fprintf(b, "  %s\n", strings.Join(parts, " · "))
	parts = parts[:0]
	if len(dec.Topics) > 0 {
		parts = append(parts, "topics "+sanitize(FormatTopics(dec.Topics)))
	}
	if dec.Records > 0 {
		parts = append(parts, "records "+strconv.Itoa(dec.Records))
	}
	if len(dec.Errors) > 0 {
		parts = append(parts, c.Error("errors "+sanitize(FormatErrors(dec.Errors))))
	}
	if len(parts) > 0 {
		fmt.Fprintf(b, "  %s\n", strings.Join(parts, " · "))
	}
	for _, note := range ex.Notes {
		fmt.Fprintf(b, "  %s\n", c.Note("note: "+sanitize(note.Text)))
	}
}

// frameSummary says a frame's size (as its size prefix says, as
// request_size and response_size in JSON), the packets, numbered from 1
// as Wireshark and tshark number them, that carried its first and last
// bytes (request_packets and response_packets in JSON), and
// how many of its bytes the capture lacks and why. With several files,
// the packet's file is named where it is not the exchange's, file.
func frameSummary(side string, f *dissect.Frame, file string) string {
	if f == nil {
		return "no " + side
	}
	s := fmt.Sprintf("%s %s in %s", side, plural(int(f.Size), "byte"), packetSpan(f, file))
	if hs := frameHoles(f); len(hs) > 0 {
		s += fmt.Sprintf(" (%d not captured: %s)", lostIn(hs, 0, 4+int(f.Size)), causes(hs))
	}
	return s
}
