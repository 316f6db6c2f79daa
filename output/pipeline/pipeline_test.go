package pipeline_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/output"
	"github.com/kdissect/kdissect/output/filter"
	"github.com/kdissect/kdissect/output/pipeline"
	"github.com/kdissect/kdissect/output/render"
)

// The captures are real kcat and franz-go traffic (testdata/pcaps/regen.sh).
var captures = []string{"franz_groups.pcap", "franz_transactions.pcap", "kcat_produce_lz4.pcap", "kcat_metadata_offsets.pcap"}

var decodeOpts = dissect.DecodeOptions{Records: codec.RecordDecodeOptions{MaxDecompressedBytes: codec.DefaultMaxDecompressedBytes}}

// serial returns the JSON line of every exchange of the capture, each
// decoded in turn by dissect itself.
func serial(t *testing.T, path string) []string {
	t.Helper()
	dec := dissect.NewDecoder(decodeOpts)
	var lines []string
	var buf bytes.Buffer
	w := render.NewJSONLines(&buf, false)
	if err := dissect.New(dissect.Options{Ports: []uint16{9092}}).ReadFile(path, func(ex *dissect.Exchange) {
		dec.Decode(ex)
		buf.Reset()
		if err := w.Write(ex); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, buf.String())
	}); err != nil {
		t.Fatal(err)
	}
	if len(lines) < 5 {
		t.Fatalf("%s: %d exchanges", path, len(lines))
	}
	return lines
}

// lineTap renders each exchange it takes as its JSON line, at Add: a
// plain Tap.
type lineTap struct {
	buf    bytes.Buffer
	w      *render.JSONLines
	lines  []string
	failAt int // Add fails on this exchange (1 is the first); 0: never
	closed bool
}

func newLineTap() *lineTap {
	t := &lineTap{}
	t.w = render.NewJSONLines(&t.buf, false)
	return t
}

func (t *lineTap) Add(ex *dissect.Exchange) error {
	if t.failAt > 0 && len(t.lines)+1 == t.failAt {
		return errors.New("broken pipe")
	}
	t.buf.Reset()
	if err := t.w.Write(ex); err != nil {
		return err
	}
	if err := t.w.Flush(); err != nil {
		return err
	}
	t.lines = append(t.lines, t.buf.String())
	return nil
}

func (t *lineTap) Close() error { t.closed = true; return nil }

// source reads the capture at path into the pipeline, with frames from
// pool (nil: none).
func source(t *testing.T, path string, pool *dissect.FramePool) pipeline.Source {
	return func(p *pipeline.Pipeline) {
		d := dissect.New(dissect.Options{Ports: []uint16{9092}, FramePool: pool})
		if err := d.ReadFile(path, p.Put); err != nil {
			t.Error(err)
		}
	}
}

// Through the pipeline, on every core, a tap takes the exchanges dissect
// itself makes, decoded as the serial decoder decodes them, in capture
// order: a plain Tap and a Renderer (JSON Lines' tap, rendered on the
// workers) alike, with frames recycled through a pool and poisoned once
// released (a tap that kept a frame would see 0xAA).
func TestRunMatchesDissect(t *testing.T) {
	for _, name := range captures {
		path := "../../testdata/pcaps/" + name
		want := serial(t, path)
		plain := newLineTap()
		var rendered bytes.Buffer
		jw := render.NewJSONLines(&rendered, false)
		pool := &dissect.FramePool{Poison: true}
		res, err := pipeline.Run(context.Background(), source(t, path, pool),
			pipeline.Options{Decode: decodeOpts, Pool: pool, Workers: 4},
			plain, render.TapOf(jw))
		if err != nil {
			t.Fatal(err)
		}
		if err := jw.Flush(); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(plain.lines, want) {
			t.Errorf("%s: the plain tap took %d exchanges unlike dissect's %d", name, len(plain.lines), len(want))
		}
		if got := rendered.String(); got != joined(want) {
			t.Errorf("%s: the rendering tap wrote %d bytes unlike dissect's %d", name, len(got), len(joined(want)))
		}
		if res.Seen != int64(len(want)) || res.Passed != int64(len(want)) {
			t.Errorf("%s: %+v, want %d seen and passed", name, res, len(want))
		}
		if plain.closed {
			t.Errorf("%s: Run closed a tap: the caller closes them", name)
		}
	}
}

func joined(lines []string) string {
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(l)
	}
	return b.String()
}

// decider records every verdict it hears, in order, and the origin.
type decider struct {
	*lineTap
	verdicts []bool
	origins  []time.Time
}

func (d *decider) SetOrigin(at time.Time) { d.origins = append(d.origins, at) }

func (d *decider) Decide(_ *dissect.Exchange, passed bool) { d.verdicts = append(d.verdicts, passed) }

// The filters, -Y and -c take the same exchanges whether -Y runs on the
// workers or, with a Decider, in capture order: the first Count of those
// that pass both Filter and Display, as filtering dissect's own in turn
// takes; a Decider hears of every exchange that entered, in order, and
// whether it passed.
func TestRunFilters(t *testing.T) {
	path := "../../testdata/pcaps/franz_transactions.pcap"
	all := serial(t, path)
	// The exchange filters and -Y of the serial reference: the APIs the
	// capture has most of, and a -Y on the correlation ID.
	f := &filter.Set{APIs: []int16{0, 24, 22, 26, 3}}
	disp := func(ex *dissect.Exchange) bool { return ex.CorrelationID%2 == 0 }
	var kinds []bool // whether each exchange passes Filter and Display
	var passing []string
	var first time.Time // of the first exchange, which the filters leave out
	{
		dec := dissect.NewDecoder(decodeOpts)
		i := 0
		if err := dissect.New(dissect.Options{Ports: []uint16{9092}}).ReadFile(path, func(ex *dissect.Exchange) {
			if i == 0 {
				first = ex.Request.Time
			}
			dec.Decode(ex)
			ok := f.Match(ex) && disp(ex)
			kinds = append(kinds, ok)
			if ok {
				passing = append(passing, all[i])
			}
			i++
		}); err != nil {
			t.Fatal(err)
		}
	}
	if len(passing) < 4 || len(passing) == len(all) || kinds[0] {
		t.Fatalf("%d of %d exchanges pass (the first: %v): the filters choose nothing", len(passing), len(all), kinds[0])
	}
	for _, count := range []int64{0, 3} {
		want := passing
		if count > 0 {
			want = passing[:count]
		}
		for _, inOrder := range []bool{false, true} {
			t.Run(fmt.Sprintf("count=%d/ordered=%v", count, inOrder), func(t *testing.T) {
				var tap output.Tap
				lt := newLineTap()
				d := &decider{lineTap: newLineTap()}
				if inOrder {
					tap = d
				} else {
					tap = lt
				}
				res, err := pipeline.Run(context.Background(), source(t, path, nil),
					pipeline.Options{Decode: decodeOpts, Filter: f, Display: disp, Count: count, Workers: 3}, tap)
				if err != nil {
					t.Fatal(err)
				}
				got := lt.lines
				if inOrder {
					got = d.lines
					// Every exchange that entered is decided, in order;
					// past -c none passes.
					n := len(d.verdicts)
					if n == 0 || n > len(kinds) {
						t.Fatalf("%d verdicts of %d exchanges", n, len(kinds))
					}
					wantV := slices.Clone(kinds[:n])
					passed := int64(0)
					for i := range wantV {
						if wantV[i] && count > 0 && passed >= count {
							wantV[i] = false
						}
						if wantV[i] {
							passed++
						}
					}
					if !slices.Equal(d.verdicts, wantV) {
						t.Errorf("verdicts %v, want %v", d.verdicts, wantV)
					}
					// The origin is the first exchange's, passed or not.
					if len(d.origins) != 1 || !d.origins[0].Equal(first) {
						t.Errorf("origins %v, want once the first exchange's %v", d.origins, first)
					}
				}
				if !slices.Equal(got, want) {
					t.Errorf("took %d exchanges, want the %d that pass", len(got), len(want))
				}
				if res.Passed != int64(len(want)) || res.Seen != int64(len(all)) {
					t.Errorf("%+v, want %d passed of %d seen", res, len(want), len(all))
				}
			})
		}
	}
}

// A tap whose Add fails is not called again, the run stops taking
// exchanges (Done), Run returns the error, and the other taps go on
// taking what was already in flight in order.
func TestRunTapFails(t *testing.T) {
	path := "../../testdata/pcaps/franz_groups.pcap"
	all := serial(t, path)
	bad := newLineTap()
	bad.failAt = 3
	good := newLineTap()
	var done bool
	res, err := pipeline.Run(context.Background(), func(p *pipeline.Pipeline) {
		d := dissect.New(dissect.Options{Ports: []uint16{9092}})
		if err := d.ReadFile(path, func(ex *dissect.Exchange) {
			p.Put(ex)
			p.Sync() // one at a time: the failure is seen before the next
		}); err != nil {
			t.Error(err)
		}
		done = p.Done()
	}, pipeline.Options{Decode: decodeOpts}, bad, good)
	if err == nil || err.Error() != "broken pipe" {
		t.Fatalf("Run returned %v, want the tap's error", err)
	}
	if !done {
		t.Error("Done is false after a tap failed")
	}
	if len(bad.lines) != 2 {
		t.Errorf("the failing tap took %d exchanges, want the 2 before it failed", len(bad.lines))
	}
	if !slices.Equal(good.lines, all[:3]) {
		t.Errorf("the other tap took %d exchanges, want the 3 that entered", len(good.lines))
	}
	if res.Seen != int64(len(all)) || res.Passed != 3 {
		t.Errorf("%+v, want %d seen, 3 passed", res, len(all))
	}
}
