package dissect

import (
	"cmp"
	"container/heap"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/kdissect/kdissect/dissect/tlsdecrypt"
)

// mergeSource reads the captures of ReadCaptures as one packet sequence,
// on the reading goroutine (readAhead). It first reads every capture's
// first packet, and orders the captures by its time (rank); then it
// merges their packets by time, equal times in rank order, opening each
// capture only when the merge reaches its first packet and closing it at
// its end. For files that follow one another (a ring buffer) that is one
// file open at a time, read to its end before the next one opens.
type mergeSource struct {
	caps    []Capture
	stop    func() bool
	secrets *tlsdecrypt.KeyLog // the files' embedded TLS secrets
	// beforeRead, set by readAhead, runs before each read from a Pipe
	// capture; false says to give up reading (nobody waits any more).
	beforeRead func() bool

	started bool
	stopped bool
	files   []*capFile // captures with a first packet, by rank
	waiting int        // files[waiting:] are not open yet
	open    capHeap    // open captures, by their next packet
	cur     *capFile   // the capture of the packet returned last

	mu      sync.Mutex // the results, read by ReadCaptures while reading may go on
	errs    []error
	patched int64
}

// capFile is one capture and, while it is open, its next packet (the
// head), whose bytes are the reader's until the capture is advanced.
type capFile struct {
	index  int // in mergeSource.caps
	rank   int
	first  time.Time // its first packet's time
	closer io.Closer // nil: nothing to close
	cr     *captureReader
	data   []byte
	ci     gopacket.CaptureInfo
	link   layers.LinkType
	num    uint32 // the head's number in the capture
	// comments are the head's pcapng comments, nil for most packets.
	comments []string
	read     int64 // packets read of it since it was opened
}

// next returns the next packet of the merged sequence, the index of its
// capture and its number there; data is valid until the next call. The error is io.EOF at the
// end of every capture (or once stop said so); the captures' own errors
// are collected for result.
func (m *mergeSource) next() (data []byte, ci gopacket.CaptureInfo, link layers.LinkType, src int32, num uint32, err error) {
	if !m.started {
		m.started = true
		m.start()
	}
	if m.stopped || (m.stop != nil && m.stop()) {
		m.end()
		return nil, ci, 0, 0, 0, io.EOF
	}
	if f := m.cur; f != nil {
		m.cur = nil
		m.advance(f)
	}
	for m.waiting < len(m.files) && (len(m.open) == 0 || m.files[m.waiting].first.Before(m.open[0].ci.Timestamp)) {
		f := m.files[m.waiting]
		m.waiting++
		if f.cr != nil || m.reopen(f) {
			heap.Push(&m.open, f)
		}
	}
	if len(m.open) == 0 {
		return nil, ci, 0, 0, 0, io.EOF
	}
	f := m.open[0]
	m.cur = f
	return f.data, f.ci, f.link, int32(f.index), f.num, nil
}

// comments returns the pcapng comments of the packet next returned last.
func (m *mergeSource) comments() []string {
	if m.cur == nil {
		return nil
	}
	return m.cur.comments
}

// start reads the first packet of every capture and orders them. A
// capture read once (Reader) keeps its first packet, and so does a lone
// capture; the other files are closed until their turn.
func (m *mergeSource) start() {
	for i, c := range m.caps {
		if m.stop != nil && m.stop() {
			m.stopped = true
			return
		}
		f := &capFile{index: i}
		if !m.openFile(f) {
			continue
		}
		if !m.read(f) {
			continue
		}
		f.first = f.ci.Timestamp
		if c.Reader == nil && len(m.caps) > 1 {
			f.closeFile()
		}
		m.files = append(m.files, f)
	}
	// Parts whose first packets have the same time (timestamps of coarse
	// resolution) are in the order of their names, numbers in them
	// compared as numbers: cap.pcap9 before cap.pcap10, as tcpdump -C
	// names its files.
	slices.SortStableFunc(m.files, func(a, b *capFile) int {
		if c := a.first.Compare(b.first); c != 0 {
			return c
		}
		return compareNatural(m.caps[a.index].Name, m.caps[b.index].Name)
	})
	for i, f := range m.files {
		f.rank = i
	}
}

// openFile opens f's capture and detects its format.
func (m *mergeSource) openFile(f *capFile) bool {
	c := &m.caps[f.index]
	r := c.Reader
	if r == nil {
		if c.Open == nil {
			m.fail(f, errors.New("nothing to read: no Open and no Reader"))
			return false
		}
		rc, err := c.Open()
		if err != nil {
			m.fail(f, err)
			return false
		}
		r, f.closer = rc, rc
	}
	if c.Pipe {
		r = &pauseReader{r: r, m: m}
	}
	cr, err := openCaptureKeys(r, m.secrets)
	if err != nil {
		m.fail(f, err)
		f.closeFile()
		return false
	}
	f.cr = cr
	return true
}

// reopen opens f again for its turn and reads its first packet.
func (m *mergeSource) reopen(f *capFile) bool {
	return m.openFile(f) && m.read(f)
}

// read reads f's next packet into its head; at the end of the capture or
// at damage it closes f and returns false.
func (m *mergeSource) read(f *capFile) bool {
	data, ci, link, err := f.cr.next()
	if err != nil {
		if !errors.Is(err, io.EOF) {
			m.fail(f, err)
		}
		m.mu.Lock()
		m.patched += f.cr.patched()
		m.mu.Unlock()
		f.closeFile()
		return false
	}
	f.data, f.ci, f.link, f.num = data, ci, link, uint32(f.read)
	f.comments = f.cr.comments
	f.read++
	return true
}

// advance moves the capture at the top of the merge, whose packet was
// taken, to its next packet.
func (m *mergeSource) advance(f *capFile) {
	if m.read(f) {
		heap.Fix(&m.open, 0)
	} else {
		heap.Pop(&m.open)
	}
}

func (m *mergeSource) fail(f *capFile, err error) {
	if m.stopped || (m.stop != nil && m.stop()) {
		return // a capture ended on purpose
	}
	m.mu.Lock()
	m.errs = append(m.errs, &CaptureError{Name: m.caps[f.index].Name, Index: f.index, Err: err})
	m.mu.Unlock()
}

// end closes every capture still open.
func (m *mergeSource) end() {
	m.stopped = true
	for _, f := range m.open {
		f.closeFile()
	}
	m.open, m.cur = nil, nil
	for _, f := range m.files[m.waiting:] {
		f.closeFile() // a Reader's, kept from start
	}
	m.waiting = len(m.files)
}

// result returns the captures' errors and the pcap records patched so far.
func (m *mergeSource) result() ([]error, int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.errs), m.patched
}

func (f *capFile) closeFile() {
	if f.closer != nil {
		f.closer.Close()
	}
	f.closer, f.cr, f.data, f.read = nil, nil, nil, 0
}

// compareNatural compares two names as text, except that runs of digits
// compare by their numbers.
func compareNatural(a, b string) int {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Compare(len(na), len(nb)); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

// digitRun returns the length of the run of ASCII digits s starts with.
func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// capHeap orders the open captures by their next packet's time, then rank.
type capHeap []*capFile

func (h capHeap) Len() int { return len(h) }
func (h capHeap) Less(i, j int) bool {
	if c := h[i].ci.Timestamp.Compare(h[j].ci.Timestamp); c != 0 {
		return c < 0
	}
	return h[i].rank < h[j].rank
}
func (h capHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *capHeap) Push(x any)   { *h = append(*h, x.(*capFile)) }
func (h *capHeap) Pop() any {
	old := *h
	f := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return f
}

// errGaveUp ends the reading of a Pipe capture nobody waits for any more.
var errGaveUp = errors.New("reading given up")

// pauseReader is a Pipe capture's input: before each read, which may
// block, it lets readAhead hand over the packets read so far.
type pauseReader struct {
	r io.Reader
	m *mergeSource
}

func (p *pauseReader) Read(b []byte) (int, error) {
	if p.m.beforeRead != nil && !p.m.beforeRead() {
		return 0, errGaveUp
	}
	return p.r.Read(b)
}
