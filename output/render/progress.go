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
// terminal line: the file, a bar, bytes read of the file's size (of all
// the files', for several read as one capture), the
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
	names     []string
	cur       int     // the file read last
	reads     []int64 // bytes read of each file
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
	return p.Files([]string{name}, []int64{total})(0, r)
}

// Files starts showing the reading of several files as one capture, of
// the given names and sizes in bytes (0: unknown): the bar shows the bytes
// read of all of them, beside the name of the file read last. It returns
// the function that wraps a reader of file i to count the bytes read,
// each time the file is opened: a file opened again counts from 0 again.
// Call Done when they are read.
func (p *Progress) Files(names []string, sizes []int64) func(i int, r io.Reader) io.Reader {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	p.names, p.reads, p.cur = names, make([]int64, len(names)), 0
	p.total, p.read, p.exchanges = 0, 0, 0
	for _, n := range sizes {
		p.total += n
	}
	p.start, p.last = p.Now(), time.Time{}
	return func(i int, r io.Reader) io.Reader {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.read -= p.reads[i]
		p.reads[i] = 0
		return progressReader{r, p, i}
	}
}

type progressReader struct {
	r io.Reader
	p *Progress
	i int
}

func (pr progressReader) Read(b []byte) (int, error) {
	n, err := pr.r.Read(b)
	pr.p.mu.Lock()
	pr.p.read += int64(n)
	pr.p.reads[pr.i] += int64(n)
	pr.p.cur = pr.i
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
		p.label(), bar, int(frac*100), humanBytes(p.read), humanBytes(p.total), p.exchanges,
		now.Sub(p.start).Truncate(100*time.Millisecond))
	io.WriteString(p.w, line)
	p.shown = true
}

// label names the file read last, and says how many there are.
func (p *Progress) label() string {
	if len(p.names) == 0 {
		return ""
	}
	name := progressName(p.names[p.cur])
	if len(p.names) > 1 {
		name += fmt.Sprintf(" (of %d files)", len(p.names))
	}
	return name
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
