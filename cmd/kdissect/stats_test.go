package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/kdissect/kdissect/internal/capedit"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/output/stats"
)

// The JSON of `kdissect stats --format json`, as the test reads it.
type statsOut struct {
	Capture struct {
		Packets       int64 `json:"packets"`
		Exchanges     int64 `json:"exchanges"`
		RequestBytes  int64 `json:"request_bytes"`
		ResponseBytes int64 `json:"response_bytes"`
		Errors        int64 `json:"errors"`
	} `json:"capture"`
	APIs []struct {
		APIKey *int `json:"api_key"`
		API    string
		trafficOut
	} `json:"apis"`
	Partitions []struct {
		Topic           string `json:"topic"`
		Partition       int    `json:"partition"`
		ProducedRecords int64  `json:"produced_records"`
		ProducedBytes   int64  `json:"produced_bytes"`
		FetchedRecords  int64  `json:"fetched_records"`
		FetchedBytes    int64  `json:"fetched_bytes"`
	} `json:"partitions"`
	Errors []struct {
		Name  string `json:"name"`
		Count int64  `json:"count"`
	} `json:"errors"`
	PartitionErrors []struct {
		Topic     string `json:"topic"`
		Partition *int   `json:"partition"`
		Name      string `json:"name"`
		Count     int64  `json:"count"`
	} `json:"partition_errors"`
	Clients []struct {
		ClientID *string `json:"client_id"`
		trafficOut
	} `json:"clients"`
	Connections []struct {
		Stream int `json:"stream"`
		trafficOut
	} `json:"connections"`
}

type trafficOut struct {
	Exchanges     int64 `json:"exchanges"`
	NoResponse    int64 `json:"no_response"`
	RequestBytes  int64 `json:"request_bytes"`
	ResponseBytes int64 `json:"response_bytes"`
	Errors        int64 `json:"errors"`
	Latency       struct {
		Count uint64 `json:"count"`
		P50   *int64 `json:"p50"`
		P90   *int64 `json:"p90"`
		P99   *int64 `json:"p99"`
		Max   *int64 `json:"max"`
		Exact bool   `json:"exact"`
	} `json:"latency_us"`
}

// recount is what the test counts itself from `kdissect read --format
// json`, keyed as the stats rows are.
type recount struct {
	traffic    map[string]*recountTraffic // "api:Produce", "client:x", "stream:3", "total"
	partitions map[string][4]int64        // "topic/partition": produced records, bytes, fetched records, bytes
	errors     map[string]int64           // by name
	errorsAt   map[string]int64           // "topic/partition/name"
}

type recountTraffic struct {
	exchanges, noResponse, reqBytes, respBytes, errors int64
	latencies                                          []int64
}

func newRecount() *recount {
	return &recount{traffic: map[string]*recountTraffic{}, partitions: map[string][4]int64{}, errors: map[string]int64{}, errorsAt: map[string]int64{}}
}

func (rc *recount) row(key string) *recountTraffic {
	r := rc.traffic[key]
	if r == nil {
		r = &recountTraffic{}
		rc.traffic[key] = r
	}
	return r
}

// recountAPI names a JSON Lines exchange's API as the stats rows do.
func recountAPI(ex map[string]any) string {
	api := "unknown"
	if name, ok := ex["api"].(string); ok {
		api = name
	} else if key, ok := ex["api_key"].(float64); ok {
		api = fmt.Sprintf("Unknown(%d)", int(key)) // a key the codec does not know
	}
	if ex["api_key"] == nil && ex["request"] == nil && ex["correlation_id"].(float64) == -1 {
		api = "SASL token"
	}
	return api
}

// add counts one JSON Lines exchange.
func (rc *recount) add(t *testing.T, ex map[string]any) {
	api := recountAPI(ex)
	client := "client:(none)"
	if id, ok := ex["client_id"].(string); ok {
		client = "client:" + id
	}
	errs := ex["errors"].([]any)
	for _, key := range []string{"total", "api:" + api, client, "stream:" + strconv.Itoa(int(ex["stream"].(float64)))} {
		r := rc.row(key)
		r.exchanges++
		if v, ok := ex["request_size"].(float64); ok {
			r.reqBytes += int64(v)
			if ex["response_size"] == nil {
				r.noResponse++
			}
		}
		if v, ok := ex["response_size"].(float64); ok {
			r.respBytes += int64(v)
		}
		r.errors += int64(len(errs))
		if v, ok := ex["latency_us"].(float64); ok {
			r.latencies = append(r.latencies, int64(v))
		}
	}
	// Topic IDs to names, as the exchange's topics resolved them.
	names := map[string]string{}
	for _, tp := range ex["topics"].([]any) {
		tp := tp.(map[string]any)
		if id, ok := tp["topic_id"].(string); ok {
			if name, ok := tp["topic"].(string); ok && name != "" {
				names[id] = name
			}
		}
	}
	for _, e := range errs {
		e := e.(map[string]any)
		name := e["name"].(string)
		rc.errors[name]++
		topic, hasTopic := e["topic"].(string)
		if id, ok := e["topic_id"].(string); ok && !hasTopic {
			topic, hasTopic = "id:"+id, true
		}
		part, hasPart := e["partition"].(float64)
		if !hasPart {
			part = -1
		}
		if hasTopic || hasPart {
			rc.errorsAt[fmt.Sprintf("%s/%d/%s", topic, int(part), name)]++
		}
	}
	// Records: Produce requests, Fetch responses.
	var body map[string]any
	var topicsKey, partsKey, partKey string
	produce := false
	switch ex["api_key"] {
	case 0.0:
		body, _ = ex["request"].(map[string]any)
		topicsKey, partsKey, partKey, produce = "TopicData", "PartitionData", "Index", true
	case 1.0:
		body, _ = ex["response"].(map[string]any)
		topicsKey, partsKey, partKey = "Responses", "Partitions", "PartitionIndex"
	}
	if body == nil {
		return
	}
	topics, _ := body[topicsKey].([]any)
	for _, tp := range topics {
		tp := tp.(map[string]any)
		topic, _ := tp["Name"].(string)
		if s, ok := tp["Topic"].(string); ok {
			topic = s
		}
		if id, ok := tp["TopicId"].(string); ok {
			topic = names[id]
			if topic == "" {
				topic = "id:" + id
			}
		}
		parts, _ := tp[partsKey].([]any)
		for _, p := range parts {
			p := p.(map[string]any)
			entries, ok := p["Records"].([]any)
			if !ok {
				continue // null
			}
			key := fmt.Sprintf("%s/%d", topic, int(p[partKey].(float64)))
			c := rc.partitions[key]
			for _, e := range entries {
				e := e.(map[string]any)
				var n, size int64
				switch {
				case e["BatchLength"] != nil:
					recs, _ := e["Records"].([]any) // null in a batch not captured
					n, size = int64(len(recs)), 12+int64(e["BatchLength"].(float64))
				case e["Messages"] != nil:
					msgs, _ := e["Messages"].([]any)
					n, size = int64(len(msgs)), 12+int64(e["MessageSize"].(float64))
				default:
					n, size = 1, 12+int64(e["MessageSize"].(float64))
				}
				if produce {
					c[0] += n
					c[1] += size
				} else {
					c[2] += n
					c[3] += size
				}
			}
			rc.partitions[key] = c
		}
	}
}

// nearestRank is the exact nearest-rank percentile of sorted samples.
func nearestRank(sorted []int64, p float64) int64 {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// checkTraffic compares a stats row with the recount.
func checkTraffic(t *testing.T, where string, got trafficOut, want *recountTraffic) {
	t.Helper()
	if want == nil {
		t.Errorf("%s: in stats, not in the recount", where)
		return
	}
	if got.Exchanges != want.exchanges || got.NoResponse != want.noResponse || got.RequestBytes != want.reqBytes ||
		got.ResponseBytes != want.respBytes || got.Errors != want.errors {
		t.Errorf("%s: stats say %d exchanges, %d without response, %d+%d bytes, %d errors; the recount %d, %d, %d+%d, %d",
			where, got.Exchanges, got.NoResponse, got.RequestBytes, got.ResponseBytes, got.Errors,
			want.exchanges, want.noResponse, want.reqBytes, want.respBytes, want.errors)
	}
	lat := got.Latency
	if lat.Count != uint64(len(want.latencies)) {
		t.Errorf("%s: %d latencies, the recount %d", where, lat.Count, len(want.latencies))
		return
	}
	if len(want.latencies) == 0 {
		if lat.Max != nil {
			t.Errorf("%s: latency without samples", where)
		}
		return
	}
	s := slices.Clone(want.latencies)
	slices.Sort(s)
	if *lat.Max != s[len(s)-1] {
		t.Errorf("%s: max latency %dµs, the recount %dµs", where, *lat.Max, s[len(s)-1])
	}
	for _, pc := range []struct {
		p   float64
		got int64
	}{{50, *lat.P50}, {90, *lat.P90}, {99, *lat.P99}} {
		want := nearestRank(s, pc.p)
		tol := 0.0
		if !lat.Exact {
			tol = stats.RelativeError * float64(want)
		}
		if math.Abs(float64(pc.got-want)) > tol {
			t.Errorf("%s: p%v latency %dµs, the recount %dµs (exact %v)", where, pc.p, pc.got, want, lat.Exact)
		}
	}
}

// TestStatsAgreesWithJSONRecount runs `kdissect stats --format json` on
// every test capture and checks it against a recount from `kdissect read
// --format json`: totals, per API, per client id and per connection
// counts, bytes and latencies (max exactly, percentiles as the histogram
// promises), records and bytes per topic-partition, errors by name and by
// topic-partition.
func TestStatsAgreesWithJSONRecount(t *testing.T) {
	for _, c := range oracleCaptures(t) {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			port := strconv.Itoa(c.port)
			code, out, errs := runCLI(t, "stats", "--format", "json", "-p", port, c.path)
			if code != 0 {
				t.Fatalf("stats: exit %d: %s", code, errs)
			}
			var st statsOut
			if err := json.Unmarshal([]byte(out), &st); err != nil {
				t.Fatalf("stats output is not JSON: %v\n%s", err, out)
			}
			code, out, errs = runCLI(t, "read", "--format", "json", "-p", port, c.path)
			if code != 0 {
				t.Fatalf("read: exit %d: %s", code, errs)
			}
			rc := newRecount()
			sc := bufio.NewScanner(strings.NewReader(out))
			sc.Buffer(nil, 64<<20)
			for sc.Scan() {
				var ex map[string]any
				if err := json.Unmarshal(sc.Bytes(), &ex); err != nil {
					t.Fatal(err)
				}
				rc.add(t, ex)
			}
			total := rc.row("total")
			if st.Capture.Exchanges != total.exchanges || st.Capture.RequestBytes != total.reqBytes ||
				st.Capture.ResponseBytes != total.respBytes || st.Capture.Errors != total.errors {
				t.Errorf("totals: stats %+v, recount %+v", st.Capture, *total)
			}
			if st.Capture.Packets == 0 {
				t.Error("no packets counted")
			}
			rows := 0
			for _, a := range st.APIs {
				checkTraffic(t, "api "+a.API, a.trafficOut, rc.traffic["api:"+a.API])
				rows++
			}
			for _, cl := range st.Clients {
				id := "(none)"
				if cl.ClientID != nil {
					id = *cl.ClientID
				}
				checkTraffic(t, "client "+id, cl.trafficOut, rc.traffic["client:"+id])
				rows++
			}
			for _, conn := range st.Connections {
				checkTraffic(t, "stream "+strconv.Itoa(conn.Stream), conn.trafficOut, rc.traffic["stream:"+strconv.Itoa(conn.Stream)])
				rows++
			}
			if rows != len(rc.traffic)-1 {
				t.Errorf("stats have %d API, client and connection rows, the recount %d", rows, len(rc.traffic)-1)
			}
			if len(st.Partitions) != len(rc.partitions) {
				t.Errorf("stats have %d topic-partitions, the recount %d: %v", len(st.Partitions), len(rc.partitions), rc.partitions)
			}
			for _, p := range st.Partitions {
				key := fmt.Sprintf("%s/%d", p.Topic, p.Partition)
				want, ok := rc.partitions[key]
				got := [4]int64{p.ProducedRecords, p.ProducedBytes, p.FetchedRecords, p.FetchedBytes}
				if !ok || got != want {
					t.Errorf("%s: stats %v, recount %v", key, got, want)
				}
			}
			if len(st.Errors) != len(rc.errors) {
				t.Errorf("stats have %d error names, the recount %d", len(st.Errors), len(rc.errors))
			}
			for _, e := range st.Errors {
				if rc.errors[e.Name] != e.Count {
					t.Errorf("error %s: stats %d, recount %d", e.Name, e.Count, rc.errors[e.Name])
				}
			}
			if len(st.PartitionErrors) != len(rc.errorsAt) {
				t.Errorf("stats have %d errors by topic-partition, the recount %d", len(st.PartitionErrors), len(rc.errorsAt))
			}
			for _, e := range st.PartitionErrors {
				part := -1
				if e.Partition != nil {
					part = *e.Partition
				}
				key := fmt.Sprintf("%s/%d/%s", e.Topic, part, e.Name)
				if rc.errorsAt[key] != e.Count {
					t.Errorf("error %s: stats %d, recount %d", key, e.Count, rc.errorsAt[key])
				}
			}
		})
	}
}

// rewriteTo writes to path a copy of the capture src that capedit edits
// with opts, and returns it.
func rewriteTo(t *testing.T, path string, src []byte, opts capedit.Options) ([]byte, capedit.Result) {
	t.Helper()
	var buf bytes.Buffer
	res, err := capedit.Rewrite(&buf, bytes.NewReader(src), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), res
}

// statsCapture runs `stats --format json` on path and returns the fields
// of its "capture" object that T names.
func statsCapture[T any](t *testing.T, path string) T {
	t.Helper()
	code, out, errs := runCLI(t, "stats", "--format", "json", path)
	if code != 0 {
		t.Fatalf("stats: exit %d: %s", code, errs)
	}
	var st struct {
		Capture T `json:"capture"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	return st.Capture
}

// stats says what a capture lacks: the packets the snap length cut and
// the bytes it cut, the runs of segments lost and their bytes, exactly as
// the damage was done (internal/capedit).
func TestStatsCaptureLoss(t *testing.T) {
	src, err := os.ReadFile("../../testdata/pcaps/kcat_produce_lz4.pcap")
	if err != nil {
		t.Fatal(err)
	}
	type loss struct {
		SnapPackets int64 `json:"snap_truncated_packets"`
		SnapBytes   int64 `json:"snap_bytes"`
		Holes       int64 `json:"holes"`
		HoleBytes   int64 `json:"hole_bytes"`
	}
	for _, tc := range []struct {
		name string
		opts capedit.Options
	}{
		{"snap 128", capedit.Options{Snap: 128}},
		{"packet 11 lost", capedit.Options{Drop: capedit.DropIndexes(11)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// What the damage takes, counted from the packets themselves.
			var want loss
			drop := tc.opts.Drop
			tc.opts.Drop = func(p capedit.Packet) bool {
				pkt := gopacket.NewPacket(p.Data, p.LinkType, gopacket.NoCopy)
				tcp, _ := pkt.Layer(layers.LayerTypeTCP).(*layers.TCP)
				if drop != nil && drop(p) {
					if tcp != nil && len(tcp.Payload) > 0 {
						want.Holes++
						want.HoleBytes += int64(len(tcp.Payload))
					}
					return true
				}
				if tc.opts.Snap > 0 && len(p.Data) > tc.opts.Snap && tcp != nil {
					want.SnapPackets++
					want.SnapBytes += int64(len(p.Data) - tc.opts.Snap)
				}
				return false
			}
			path := filepath.Join(t.TempDir(), "damaged.pcap")
			rewriteTo(t, path, src, tc.opts)
			if got := statsCapture[loss](t, path); got != want || want == (loss{}) {
				t.Errorf("stats say %+v, the damage was %+v", got, want)
			}
			code, out, _ := runCLI(t, "stats", path)
			line := "snap length"
			if tc.opts.Snap == 0 {
				line = "not captured"
			}
			if code != 0 || !strings.Contains(out, line) {
				t.Errorf("table without a %q line:\n%s", line, out)
			}
		})
	}
}

// A capture cut short part way: stats counts the exchanges before the
// damage, as read prints them, and exits 1 with the damage on stderr.
func TestStatsOfDamagedCapture(t *testing.T) {
	b, err := os.ReadFile("../../testdata/pcaps/franz_groups.pcap")
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.pcap")
	if err := os.WriteFile(cut, b[:len(b)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "read", "--format", "json", cut)
	if code != exitInput || !strings.Contains(errs, "capture damaged") {
		t.Fatalf("read: exit %d, %q", code, errs)
	}
	read := strings.Count(out, "\n")
	code, out, errs = runCLI(t, "stats", "--format", "json", cut)
	var st struct {
		Capture struct{ Exchanges int } `json:"capture"`
	}
	if code != exitInput || !strings.Contains(errs, "capture damaged") || json.Unmarshal([]byte(out), &st) != nil || st.Capture.Exchanges != read || read == 0 {
		t.Errorf("stats: exit %d, %d exchanges (read printed %d), stderr %q", code, st.Capture.Exchanges, read, errs)
	}
}
