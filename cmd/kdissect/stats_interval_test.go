package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/internal/capedit"
	"github.com/kdissect/kdissect/output/stats"
)

// The interval parts of `kdissect stats --format json --interval`, as the
// test reads them.
type intervalStatsOut struct {
	statsOut
	Notes []struct {
		Kind      string `json:"kind"`
		Exchanges int64  `json:"exchanges"`
		Notes     int64  `json:"notes"`
		Example   string `json:"example"`
	} `json:"notes"`
	Interval *struct {
		Origin       *string `json:"origin"`
		AskedUs      int64   `json:"asked_us"`
		WidthUs      int64   `json:"width_us"`
		MaxIntervals int     `json:"max_intervals"`
	} `json:"interval"`
	Intervals []intervalOut `json:"intervals"`
}

type intervalOut struct {
	Start    string `json:"start"`
	OffsetUs int64  `json:"offset_us"`
	trafficOut
	Records int64 `json:"records"`
	APIs    []struct {
		API string `json:"api"`
		trafficOut
		Records int64 `json:"records"`
	} `json:"apis"`
}

// intervalKey is an interval and an API ("" for all).
type intervalKey struct {
	index int64
	api   string
}

// TestStatsIntervalsAgreeWithJSON checks stats --interval on every
// capture of testdata/pcaps and pcaps-public against read --format json:
// the intervals sum to the capture's totals (exchanges, bytes each way,
// records, errors, exchanges without response), each interval's APIs sum
// to the interval, the intervals are contiguous from the origin (empty
// ones as zeros), and each interval's and API's exchanges, bytes, records,
// errors and latency p50/p99 equal what the test computes from the JSON
// Lines grouped by the same intervals (the interval of "ts"): exactly while
// the latency is marked exact (at most 1024 samples), within
// stats.RelativeError beyond. Each capture runs at 100ms intervals and,
// to merge intervals on real traffic, at 7ms with --max-intervals 5.
func TestStatsIntervalsAgreeWithJSON(t *testing.T) {
	for _, c := range append(oracleCaptures(t), damagedCaptures(t)...) {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			port := strconv.Itoa(c.port)
			exs := jsonLines(t, "read", "--format", "json", "-p", port, c.path)
			for _, args := range [][]string{{"--interval", "100ms"}, {"--interval", "7ms", "--max-intervals", "5"}} {
				code, out, errs := runCLI(t, append(append([]string{"stats", "--format", "json", "-p", port}, args...), c.path)...)
				if code != 0 {
					t.Fatalf("stats %v: exit %d: %s", args, code, errs)
				}
				var st intervalStatsOut
				if err := json.Unmarshal([]byte(out), &st); err != nil {
					t.Fatalf("stats output is not JSON: %v", err)
				}
				checkIntervals(t, strings.Join(args, " "), &st, exs)
			}
		})
	}
}

func checkIntervals(t *testing.T, run string, st *intervalStatsOut, exs []map[string]any) {
	t.Helper()
	if st.Interval == nil {
		t.Fatalf("%s: no \"interval\"", run)
	}
	if st.Interval.MaxIntervals > 0 && len(st.Intervals) > st.Interval.MaxIntervals {
		t.Errorf("%s: %d intervals, more than %d", run, len(st.Intervals), st.Interval.MaxIntervals)
	}
	if len(exs) == 0 {
		if len(st.Intervals) != 0 || st.Interval.Origin != nil {
			t.Errorf("%s: %d intervals, origin %v without exchanges", run, len(st.Intervals), st.Interval.Origin)
		}
		return
	}
	if st.Interval.Origin == nil {
		t.Fatalf("%s: no origin", run)
	}
	origin, err := time.Parse(time.RFC3339Nano, *st.Interval.Origin)
	if err != nil {
		t.Fatalf("%s: origin: %v", run, err)
	}
	width := time.Duration(st.Interval.WidthUs) * time.Microsecond
	if width < time.Duration(st.Interval.AskedUs)*time.Microsecond {
		t.Fatalf("%s: width %v below the one asked", run, width)
	}

	// The recount, by interval (its rows "total" and "api:NAME"), and the
	// records by interval and API ("" for all).
	want := map[int64]*recount{}
	wantRecords := map[intervalKey]int64{}
	var records int64
	for _, ex := range exs {
		ts, err := time.Parse(time.RFC3339Nano, ex["ts"].(string))
		if err != nil {
			t.Fatal(err)
		}
		d := ts.Sub(origin)
		idx := int64(d / width)
		if d < 0 && d%width != 0 {
			idx--
		}
		if want[idx] == nil {
			want[idx] = newRecount()
		}
		want[idx].add(t, ex)
		n := capturedRecords(ex)
		wantRecords[intervalKey{idx, ""}] += n
		wantRecords[intervalKey{idx, recountAPI(ex)}] += n
		records += n
	}
	wantRow := func(idx int64, row string) *recountTraffic {
		if rc := want[idx]; rc != nil && rc.traffic[row] != nil {
			r := rc.traffic[row]
			delete(rc.traffic, row)
			return r
		}
		return &recountTraffic{}
	}

	check := func(where string, got trafficOut, gotRecords int64, w *recountTraffic, wRecords int64) {
		t.Helper()
		if got.Exchanges != w.exchanges || got.NoResponse != w.noResponse || got.RequestBytes != w.reqBytes || got.ResponseBytes != w.respBytes || gotRecords != wRecords || got.Errors != w.errors {
			t.Errorf("%s %s: %d exchanges, %d without response, %d+%d bytes, %d records, %d errors; the JSON Lines %d, %d, %d+%d, %d, %d",
				run, where, got.Exchanges, got.NoResponse, got.RequestBytes, got.ResponseBytes, gotRecords, got.Errors,
				w.exchanges, w.noResponse, w.reqBytes, w.respBytes, wRecords, w.errors)
		}
		if got.Latency.Count != uint64(len(w.latencies)) {
			t.Errorf("%s %s: %d latencies, the JSON Lines %d", run, where, got.Latency.Count, len(w.latencies))
			return
		}
		if len(w.latencies) == 0 {
			if got.Latency.P50 != nil {
				t.Errorf("%s %s: latency without samples", run, where)
			}
			return
		}
		s := slices.Clone(w.latencies)
		slices.Sort(s)
		for _, pc := range []struct {
			p   float64
			got int64
		}{{50, *got.Latency.P50}, {99, *got.Latency.P99}} {
			exact := nearestRankOf(s, pc.p)
			if got.Latency.Exact && pc.got != exact || math.Abs(float64(pc.got-exact)) > float64(exact)*stats.RelativeError+1 {
				t.Errorf("%s %s: p%v %dµs, the JSON Lines %dµs (exact %v)", run, where, pc.p, pc.got, exact, got.Latency.Exact)
			}
		}
	}

	// What the intervals sum to.
	type sums struct{ exchanges, noResp, req, resp, records, errors int64 }
	var sum sums
	first := st.Intervals[0].OffsetUs / st.Interval.WidthUs
	for i, row := range st.Intervals {
		idx := first + int64(i)
		if row.OffsetUs != idx*st.Interval.WidthUs {
			t.Errorf("%s: interval %d at %dµs, want %dµs: not contiguous", run, i, row.OffsetUs, idx*st.Interval.WidthUs)
		}
		if start, _ := time.Parse(time.RFC3339Nano, row.Start); !start.Equal(origin.Add(time.Duration(idx) * width)) {
			t.Errorf("%s: interval %d starts at %s", run, i, row.Start)
		}
		check("interval "+strconv.FormatInt(idx, 10), row.trafficOut, row.Records, wantRow(idx, "total"), wantRecords[intervalKey{idx, ""}])
		var apis sums
		for _, a := range row.APIs {
			check("interval "+strconv.FormatInt(idx, 10)+" "+a.API, a.trafficOut, a.Records, wantRow(idx, "api:"+a.API), wantRecords[intervalKey{idx, a.API}])
			apis.exchanges += a.Exchanges
			apis.req += a.RequestBytes
			apis.resp += a.ResponseBytes
			apis.records += a.Records
			apis.errors += a.Errors
		}
		if apis.exchanges != row.Exchanges || apis.req != row.RequestBytes || apis.resp != row.ResponseBytes || apis.records != row.Records || apis.errors != row.Errors {
			t.Errorf("%s: interval %d: its APIs sum to %d exchanges, %d+%d bytes, %d records, %d errors; the interval %d, %d+%d, %d, %d", run, idx,
				apis.exchanges, apis.req, apis.resp, apis.records, apis.errors, row.Exchanges, row.RequestBytes, row.ResponseBytes, row.Records, row.Errors)
		}
		sum.exchanges += row.Exchanges
		sum.noResp += row.NoResponse
		sum.req += row.RequestBytes
		sum.resp += row.ResponseBytes
		sum.records += row.Records
		sum.errors += row.Errors
	}
	for idx, rc := range want {
		for row := range rc.traffic {
			if row == "total" || strings.HasPrefix(row, "api:") {
				t.Errorf("%s: interval %d %s in the JSON Lines, not in stats", run, idx, row)
			}
		}
	}
	cp := st.Capture
	if sum.exchanges != cp.Exchanges || sum.req != cp.RequestBytes || sum.resp != cp.ResponseBytes || sum.errors != cp.Errors || sum.records != records {
		t.Errorf("%s: intervals sum to %d exchanges, %d+%d bytes, %d errors, %d records; the totals %d, %d+%d, %d and (JSON Lines) %d records",
			run, sum.exchanges, sum.req, sum.resp, sum.errors, sum.records, cp.Exchanges, cp.RequestBytes, cp.ResponseBytes, cp.Errors, records)
	}
	var noResp int64
	for _, a := range st.APIs {
		noResp += a.NoResponse
	}
	if sum.noResp != noResp {
		t.Errorf("%s: intervals count %d exchanges without response, the APIs %d", run, sum.noResp, noResp)
	}
}

// nearestRankOf is the nearest-rank percentile of sorted samples.
func nearestRankOf(sorted []int64, p float64) int64 {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// TestStatsNotesAgreeWithJSON checks the Notes section on every capture
// against the notes of read --format json: per kind (dissect.NoteKind, as
// the dissector gives each note, whose texts are those of the JSON Lines)
// the exchanges carrying one and the notes, and the example is a note of
// its kind; and that no note of any capture is of no kind.
func TestStatsNotesAgreeWithJSON(t *testing.T) {
	kinds := map[string]int64{}
	for _, c := range append(oracleCaptures(t), damagedCaptures(t)...) {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			port := strconv.Itoa(c.port)
			type count struct{ exchanges, notes int64 }
			want := map[string]*count{}
			typed := typedNotes(t, c.path, uint16(c.port))
			lines := jsonLines(t, "read", "--format", "json", "-p", port, c.path)
			if len(lines) != len(typed) {
				t.Fatalf("%d exchanges in the JSON Lines, the dissector makes %d", len(lines), len(typed))
			}
			examples := map[string]bool{} // note texts of each kind, "kind\x00text"
			for i, ex := range lines {
				if len(ex["notes"].([]any)) != len(typed[i]) {
					t.Fatalf("exchange %d: notes %q in the JSON Lines, the dissector's %q", i, ex["notes"], typed[i])
				}
				seen := map[string]bool{}
				for j, n := range ex["notes"].([]any) {
					if j >= len(typed[i]) || typed[i][j].Text != n.(string) {
						t.Fatalf("exchange %d: notes %q in the JSON Lines, the dissector's %q", i, ex["notes"], typed[i])
					}
					k := string(typed[i][j].Kind)
					examples[k+"\x00"+n.(string)] = true
					if k == string(dissect.NoteOther) {
						t.Errorf("note of no kind: %q", n)
					}
					if want[k] == nil {
						want[k] = &count{}
					}
					want[k].notes++
					if !seen[k] {
						seen[k] = true
						want[k].exchanges++
					}
				}
			}
			code, out, errs := runCLI(t, "stats", "--format", "json", "-p", port, c.path)
			if code != 0 {
				t.Fatalf("stats: exit %d: %s", code, errs)
			}
			var st intervalStatsOut
			if err := json.Unmarshal([]byte(out), &st); err != nil {
				t.Fatal(err)
			}
			if st.Interval != nil || st.Intervals != nil {
				t.Error("intervals without --interval")
			}
			for i, n := range st.Notes {
				w := want[n.Kind]
				if w == nil || w.exchanges != n.Exchanges || w.notes != n.Notes {
					t.Errorf("kind %q: stats say %d exchanges, %d notes; the JSON Lines %+v", n.Kind, n.Exchanges, n.Notes, w)
				}
				if !examples[n.Kind+"\x00"+n.Example] {
					t.Errorf("kind %q: example %q is no note of the kind", n.Kind, n.Example)
				}
				if i > 0 && n.Exchanges > st.Notes[i-1].Exchanges {
					t.Errorf("notes not ordered by exchanges: %q after %q", n.Kind, st.Notes[i-1].Kind)
				}
				delete(want, n.Kind)
				kinds[n.Kind] += n.Exchanges
			}
			for k, w := range want {
				t.Errorf("kind %q: %+v in the JSON Lines, not in stats", k, *w)
			}
		})
	}
	t.Logf("exchanges by kind of note over all captures: %v", kinds)
	// The damaged captures make these; that every note is made with a kind
	// is checked in the code that makes them (dissect's
	// TestNoteSitesHaveKinds).
	for _, k := range []dissect.NoteKind{dissect.NoteCRCMismatch, dissect.NoteTruncated, dissect.NoteGap, dissect.NoteNoResponse} {
		if kinds[string(k)] == 0 {
			t.Errorf("no exchange with a note of kind %q in any capture", k)
		}
	}
}

// typedNotes returns the notes of every exchange of the capture at path,
// with their kinds, as the dissector makes them for port, in the order
// read writes the exchanges.
func typedNotes(t *testing.T, path string, port uint16) [][]dissect.Note {
	t.Helper()
	dec := dissect.NewDecoder(dissect.DecodeOptions{})
	var notes [][]dissect.Note
	if err := dissect.New(dissect.Options{Ports: []uint16{port}}).ReadFile(path, func(ex *dissect.Exchange) {
		dec.Decode(ex)
		notes = append(notes, ex.Notes)
	}); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return notes
}

// damagedCaptures writes damaged copies of a few of the project's
// captures (internal/capedit): cut to a snap length, a packet lost, the
// capture stopped half way, and the last payload byte of the larger
// packets flipped (record batches then fail their CRC).
func damagedCaptures(t *testing.T) []oracleCapture {
	t.Helper()
	dir := t.TempDir()
	flip := func(p capedit.Packet) bool {
		pkt := gopacket.NewPacket(p.Data, p.LinkType, gopacket.NoCopy)
		if tcp, ok := pkt.Layer(layers.LayerTypeTCP).(*layers.TCP); ok && len(tcp.Payload) > 200 {
			tcp.Payload[len(tcp.Payload)-1] ^= 0xff // the packet's bytes: capedit writes them after Drop
		}
		return false
	}
	var cs []oracleCapture
	for _, d := range []struct {
		name, src string
		opts      capedit.Options
	}{
		{"snap150", "franz_groups.pcap", capedit.Options{Snap: 150}},
		{"snap150", "kcat_produce_lz4.pcap", capedit.Options{Snap: 150}},
		{"drop11", "kcat_produce_lz4.pcap", capedit.Options{Drop: capedit.DropIndexes(11)}},
		{"half", "franz_groups.pcap", capedit.Options{Limit: 150}},
		{"flipped", "kcat_produce_none.pcap", capedit.Options{Drop: flip}},
	} {
		src, err := os.ReadFile(filepath.Join("../../testdata/pcaps", d.src))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := capedit.Rewrite(&buf, bytes.NewReader(src), d.opts); err != nil {
			t.Fatalf("%s %s: %v", d.name, d.src, err)
		}
		path := filepath.Join(dir, d.name+"-"+d.src)
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		cs = append(cs, oracleCapture{path, 9092})
	}
	return cs
}

// TestStatsIntervalOrigin: the intervals start at the capture's first
// packet, as tshark's -z io,stat (frame 1's time, from tshark).
func TestStatsIntervalOrigin(t *testing.T) {
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		t.Skip("tshark not installed")
	}
	for _, name := range []string{"franz_groups.pcap", "kcat_mtu.pcap.gz", "kcat_sll2_any.pcap"} {
		path := filepath.Join("../../testdata/pcaps", name)
		out, err := exec.Command(tshark, "-r", path, "-c", "1", "-T", "fields", "-e", "frame.time_epoch").Output()
		if err != nil {
			t.Fatalf("%s: tshark: %v", name, err)
		}
		sec, frac, _ := strings.Cut(strings.TrimSpace(string(out)), ".")
		frac = (frac + "000000000")[:9]
		s, err1 := strconv.ParseInt(sec, 10, 64)
		ns, err2 := strconv.ParseInt(frac, 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: tshark's time %q", name, out)
		}
		code, js, errs := runCLI(t, "stats", "--format", "json", "--interval", "1s", path)
		if code != 0 {
			t.Fatalf("%s: stats: exit %d: %s", name, code, errs)
		}
		var st intervalStatsOut
		if err := json.Unmarshal([]byte(js), &st); err != nil {
			t.Fatal(err)
		}
		if st.Interval == nil || st.Interval.Origin == nil {
			t.Fatalf("%s: no origin", name)
		}
		origin, err := time.Parse(time.RFC3339Nano, *st.Interval.Origin)
		if want := time.Unix(s, ns); err != nil || !origin.Equal(want) {
			t.Errorf("%s: origin %s, tshark's frame 1 at %s", name, *st.Interval.Origin, want.UTC().Format(time.RFC3339Nano))
		}
	}
}

// TestStatsIntervalFlags: bad --interval and --max-intervals values are
// usage errors (exit 2) that say what is wrong.
func TestStatsIntervalFlags(t *testing.T) {
	path := "../../testdata/pcaps/kcat_group.pcap"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--interval", "-1s"}, "--interval must be positive"},
		{[]string{"--interval", "0s"}, "--interval must be positive"},
		{[]string{"--max-intervals", "1000"}, "--max-intervals needs --interval"},
		{[]string{"--interval", "1s", "--max-intervals", "0"}, "--max-intervals must be at least 1"},
		{[]string{"--max-intervals", "10"}, "--max-intervals needs --interval"},
		{[]string{"--interval", "soon"}, "invalid argument"},
	} {
		code, _, errs := runCLI(t, append(append([]string{"stats"}, tc.args...), path)...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("stats %v: exit %d, stderr %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}
