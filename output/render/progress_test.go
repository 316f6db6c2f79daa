package render

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

// TestProgress checks that the bar stays hidden for a quick read, shows
// bytes and exchanges once reading takes longer than Delay, redraws at
// most every Interval, and is cleared at the end and before output.
func TestProgress(t *testing.T) {
	var errOut bytes.Buffer
	p := NewProgress(&errOut)
	now := time.Unix(0, 0)
	p.Now = func() time.Time { return now }
	data := bytes.Repeat([]byte("x"), 100<<10)
	r := p.File("big.pcap", int64(len(data)), bytes.NewReader(data))
	buf := make([]byte, 1<<10)

	// Quick: nothing shown.
	for range 10 {
		r.Read(buf)
		now = now.Add(10 * time.Millisecond)
	}
	if errOut.Len() != 0 {
		t.Fatalf("bar shown before the delay: %q", errOut.String())
	}
	// Slow: shown, at most every Interval.
	now = now.Add(time.Second)
	p.Exchange()
	p.Exchange()
	r.Read(buf)
	if !strings.Contains(errOut.String(), "big.pcap") || !strings.Contains(errOut.String(), "2 exchanges") || !strings.Contains(errOut.String(), "of 100 KiB") {
		t.Fatalf("bar lacks the file, exchanges or bytes: %q", errOut.String())
	}
	n := errOut.Len()
	r.Read(buf) // within the interval
	if errOut.Len() != n {
		t.Errorf("redrawn within the interval")
	}
	now = now.Add(100 * time.Millisecond)
	r.Read(buf)
	if errOut.Len() == n {
		t.Errorf("not redrawn after the interval")
	}
	// Output clears the bar first.
	var out bytes.Buffer
	n = errOut.Len()
	io.WriteString(p.Output(&out), "row\n")
	if errOut.Len() == n || out.String() != "row\n" {
		t.Errorf("output did not clear the bar, or was changed: %q", out.String())
	}
	// Cleared bars are not cleared twice; Done after a redraw clears.
	now = now.Add(100 * time.Millisecond)
	r.Read(buf)
	n = errOut.Len()
	p.Done()
	if errOut.Len() == n {
		t.Errorf("Done did not clear the bar")
	}
	n = errOut.Len()
	p.Done()
	if errOut.Len() != n {
		t.Errorf("Done cleared twice")
	}
}

// TestColors checks that colour is off in the zero value and paints
// errors and notes when on.
func TestColors(t *testing.T) {
	var off Colors
	if off.Error("E") != "E" || off.Note("N") != "N" {
		t.Error("zero Colors paints")
	}
	on := NewColors(true)
	if s := on.Error("E"); !strings.Contains(s, "\x1b[") || !strings.Contains(s, "E") {
		t.Errorf("Error not painted: %q", s)
	}
	if s := on.Note("N"); !strings.Contains(s, "\x1b[33") {
		t.Errorf("Note not yellow: %q", s)
	}
}
