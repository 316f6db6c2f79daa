package render

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Progress shows how far the reading of a capture file has got, on one
// terminal line: the file, a bar, bytes read of the file's size, the
// exchanges found so far and the time taken. It appears only once reading
// has taken longer than Delay, so that quick reads show nothing, redraws
// at most every Interval, and is erased when the file is read or before
// output is written to the same terminal (see Output). The caller decides
// whether there is a terminal to draw on.
//
// It draws itself (a carriage return, the line, an erase to the end of
// the line) rather than through a progress bar library: what it shows is
// one line that changes ten times a second, and the libraries at hand
// measure rates and elapsed time from their first draw, which here comes a
// second into the read.
type Progress struct {
	// Delay is how long reading goes on before the bar appears.
	Delay time.Duration
	// Interval is the least time between two redraws.
	Interval time.Duration
	// Now returns the time; tests set it.
	Now func() time.Time

	mu        sync.Mutex
	w         io.Writer
	name      string
	total     int64
	read      int64
	exchanges int
	start     time.Time
	last      time.Time
	shown     bool
}

// NewProgress returns a progress display on w (standard error).
func NewProgress(w io.Writer) *Progress {
	return &Progress{Delay: time.Second, Interval: 100 * time.Millisecond, Now: time.Now, w: w}
}

// File starts showing the reading of the file called name, of total
// bytes, from r: it returns r wrapped to count the bytes read. Call Done
// when the file is read.
func (p *Progress) File(name string, total int64, r io.Reader) io.Reader {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	p.name, p.total, p.read, p.exchanges = name, total, 0, 0
	p.start, p.last = p.Now(), time.Time{}
	return progressReader{r, p}
}

type progressReader struct {
	r io.Reader
	p *Progress
}

func (pr progressReader) Read(b []byte) (int, error) {
	n, err := pr.r.Read(b)
	pr.p.mu.Lock()
	pr.p.read += int64(n)
	pr.p.tick()
	pr.p.mu.Unlock()
	return n, err
}

// Exchange counts one more exchange found.
func (p *Progress) Exchange() {
	p.mu.Lock()
	p.exchanges++
	p.mu.Unlock()
}

// barWidth is the width of the bar in cells.
const barWidth = 24

// tick redraws when it is time to.
func (p *Progress) tick() {
	now := p.Now()
	if now.Sub(p.start) < p.Delay || now.Sub(p.last) < p.Interval {
		return
	}
	p.last = now
	frac := 0.0
	if p.total > 0 {
		frac = min(1, float64(p.read)/float64(p.total))
	}
	full := int(frac * barWidth)
	bar := strings.Repeat("█", full) + strings.Repeat("░", barWidth-full)
	line := fmt.Sprintf("\r%s %s %3d%% %s of %s · %d exchanges · %s\x1b[K",
		progressName(p.name), bar, int(frac*100), humanBytes(p.read), humanBytes(p.total), p.exchanges,
		now.Sub(p.start).Truncate(100*time.Millisecond))
	io.WriteString(p.w, line)
	p.shown = true
}

// progressName is the file's name as the line shows it: sanitised, and
// its end when long.
func progressName(name string) string {
	name = sanitize(name)
	const max = 32
	if n := utf8.RuneCountInString(name); n > max {
		r := []rune(name)
		name = "…" + string(r[n-max+1:])
	}
	return name
}

// Done erases the bar: the file is read.
func (p *Progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

func (p *Progress) clear() {
	if p.shown {
		io.WriteString(p.w, "\r\x1b[K")
		p.shown = false
	}
}

// Output wraps the writer of the command's output: before output is
// written the bar is erased, so that the two do not mix on one terminal;
// it comes back at the next redraw.
func (p *Progress) Output(w io.Writer) io.Writer { return progressOutput{w, p} }

type progressOutput struct {
	w io.Writer
	p *Progress
}

func (po progressOutput) Write(b []byte) (int, error) {
	po.p.mu.Lock()
	po.p.clear()
	po.p.mu.Unlock()
	return po.w.Write(b)
}
