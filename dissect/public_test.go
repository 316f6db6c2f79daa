package dissect

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// publicDir is where the shared public captures live, relative to this
// package: ../shared/pcaps-public from the repository root.
const publicDir = "../../shared/pcaps-public"

// publicPorts reads ports.tsv: capture file → broker port.
func publicPorts(t *testing.T) map[string]uint16 {
	t.Helper()
	f, err := os.Open(filepath.Join(publicDir, "ports.tsv"))
	if err != nil {
		t.Skipf("public captures not available: %v", err)
	}
	defer f.Close()
	ports := map[string]uint16{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 {
			continue
		}
		p, err := strconv.ParseUint(fields[1], 10, 16)
		if err != nil {
			t.Fatalf("ports.tsv: %q: %v", sc.Text(), err)
		}
		ports[fields[0]] = uint16(p)
	}
	return ports
}

func readPublic(t *testing.T, name string, port uint16) ([]*Exchange, Stats) {
	t.Helper()
	d := New(Options{Ports: []uint16{port}})
	var got []*Exchange
	if err := d.ReadFile(filepath.Join(publicDir, name), func(e *Exchange) { got = append(got, e) }); err != nil {
		t.Fatal(err)
	}
	return got, d.Stats()
}

// pub is what SOURCES.md (and tshark) say of an exchange.
type pub struct {
	stream   int
	key, ver int16 // -1: response without request
	corr     int32
	clientID string // "-": null
	reqSize  int32  // 0: no request
	respSize int32  // 0: no response
}

// Exchange lists per capture: the facts SOURCES.md states, with request
// and response counts and CorrelationIds cross-checked against
// `tshark -d tcp.port==P,kafka -T fields -e tcp.stream -e kafka.len
// -e kafka.correlation_id -e kafka.api_key` (TShark 4.0.17).
var publicWant = map[string][]pub{
	"arkime_kafka.pcap":                  {{0, 2, 0, 0, "", 75, 0}},
	"deepflow_00-produce-v7-sw8.pcap":    {{0, 0, 7, 1, "kafka-python-producer-1", 308, 65}},
	"deepflow_00-produce-v9.pcap":        {{0, 0, 9, 47, "console-producer", 152, 55}},
	"deepflow_01-fetch-v12-ok.pcap":      {{0, 1, 12, 15603, "consumer-console-consumer-8919-1", 116, 17}},
	"deepflow_01-fetch-v12-unknown.pcap": {{0, 1, 12, 20, "consumer-console-consumer-84107-1", 73, 17}},
	"deepflow_11-join-group-v7.pcap":     {{0, 11, 7, 120, "consumer-zzzz12-1", 141, 75}},
	"deepflow_13-leave-group-v4.pcap":    {{0, 13, 4, 201, "consumer-zzzz12-1", 94, 72}},
	"deepflow_14-sync-group-v5.pcap":     {{0, 14, 5, 120, "consumer-zzzz12-1", 207, 66}},
	"deepflow_18-api-versions-v3.pcap":   {{0, 18, 3, 2, "adminclient-1", 49, 435}},
	"deepflow_mixed-with-unsupported.pcap": {
		{0, 1, 13, 15551976, "consumer-frauddetectionservice-1", 72, 17},
		{1, 8, 8, 15551977, "consumer-frauddetectionservice-1", 169, 27},
		{1, 12, 4, 15551978, "consumer-frauddetectionservice-1", 141, 12},
	},
	"go-sniffer_kafka.pcap": {
		{0, 3, 0, 1, "kafka-python-producer-1", 43, 75},
		{1, 0, 1, 1, "kafka-python-producer-1", 1120, 36},
	},
	"ndpi_kafka.pcapng": {
		{0, 18, 0, 129, "rdkafka", 21, 346},
		{0, 3, 2, 130, "rdkafka", 40, 116},
		{0, -1, -1, 131, "-", 0, 116},
		{1, -1, -1, 140, "-", 0, 346},
		{1, -1, -1, 141, "-", 0, 116},
		{1, 3, 2, 142, "rdkafka", 40, 116},
		{2, 3, 2, 164, "rdkafka", 40, 116},
		{3, 18, 0, 168, "rdkafka", 21, 346},
		{4, 0, 3, 2, "rdkafka", 444, 57},
		{4, 0, 3, 3, "rdkafka", 377, 57},
		{5, 3, 2, 212, "rdkafka", 40, 0},
		{6, 18, 0, 4, "rdkafka", 21, 0},
		{7, 18, 0, 15, "rdkafka", 21, 0},
		{8, 18, 3, 3, "console-producer", 52, 442},
		{8, 22, 4, 4, "console-producer", 43, 22},
		{8, 3, 12, 5, "console-producer", 60, 122},
		{8, 0, 9, 6, "console-producer", 136, 58},
	},
	"wswiki-kafka-testcases-v4_fetch.pcapng": {
		{0, 1, 0, 0, "test", 58, 287}, {1, 1, 0, 1, "test", 65, 45},
		{2, 1, 1, 2, "test", 58, 291}, {3, 1, 1, 3, "test", 65, 49},
		{4, 1, 2, 4, "test", 58, 521}, {5, 1, 2, 5, "test", 65, 49},
		{6, 1, 3, 6, "test", 62, 521}, {7, 1, 3, 7, "test", 69, 49},
	},
	"wswiki-kafka-testcases-v4_join-group.pcapng": {
		{0, 11, 0, 0, "test", 73, 29}, {1, 11, 1, 1, "test", 77, 29},
	},
	"wswiki-kafka-testcases-v4_metadata.pcapng": {
		{0, 3, 0, 0, "test", 18, 1467}, {1, 3, 0, 1, "test", 34, 141}, {2, 3, 0, 2, "test", 41, 96},
		{3, 3, 1, 3, "test", 18, 41}, {4, 3, 1, 4, "test", 34, 149},
		{5, 3, 2, 5, "test", 18, 65}, {6, 3, 2, 6, "test", 34, 173},
	},
	"wswiki-kafka-testcases-v4_offset-commit.pcapng": {
		{0, 8, 0, 0, "test", 154, 40}, {1, 8, 1, 1, "test", 198, 40}, {2, 8, 2, 2, "test", 174, 40},
	},
	"wswiki-kafka-testcases-v4_offsets.pcapng": {
		{0, 2, 0, 0, "test", 94, 62}, {1, 2, 0, 1, "test", 85, 59},
		{2, 2, 1, 2, "test", 82, 98}, {3, 2, 1, 3, "test", 77, 83},
	},
	"wswiki-kafka-testcases-v4_produce.pcapng": {
		{0, 3, 2, 0, "console-producer", 38, 132}, {1, 0, 2, 1, "console-producer", 117, 46},
		{2, 3, 2, 0, "console-producer", 38, 132}, {3, 0, 2, 1, "console-producer", 160, 46},
		{4, 3, 2, 0, "console-producer", 38, 132}, {5, 0, 2, 1, "console-producer", 170, 46},
		{6, 3, 2, 0, "console-producer", 38, 132}, {7, 0, 2, 1, "console-producer", 162, 46},
	},
	"wswiki-kafka-testcases-v4_string-type.pcapng": {
		{0, 20, 0, 0, "test", 1712, 0}, {1, 20, 0, 1, "test", 75, 0}, {2, 20, 0, 2, "test", 20, 0},
	},
	"wswiki-kafka-testcases-v4_unsupported-version.pcapng": {
		{0, 10000, 0, 0, "test", 14, 0}, {0, -1, -1, 655360000, "-", 0, 4},
		{1, 7, 0, 1, "-", 18, 0}, {1, -1, -1, 458752, "-", 0, 10},
		{2, 7, 1000, 2, "test", 18, 0}, {2, -1, -1, 459752, "-", 0, 10},
		{3, 18, 0, 3, "test", 14, 0}, {3, -1, -1, 1179648, "-", 0, 34},
	},
}

// Every shared capture gives the exchanges SOURCES.md describes: complete
// frames, matched by CorrelationId, orphans noted and nothing else noted.
func TestPublicCaptures(t *testing.T) {
	ports := publicPorts(t)
	if len(ports) != len(publicWant) {
		t.Errorf("ports.tsv lists %d captures, the test knows %d", len(ports), len(publicWant))
	}
	for name, port := range ports {
		t.Run(name, func(t *testing.T) {
			want, ok := publicWant[name]
			if !ok {
				t.Fatalf("no expectations for %s", name)
			}
			got, st := readPublic(t, name, port)
			if len(got) != len(want) {
				for _, e := range got {
					t.Log(describe(e))
				}
				t.Fatalf("%d exchanges, want %d", len(got), len(want))
			}
			for i, w := range want {
				e := got[i]
				if e.Stream != w.stream || e.APIKey != w.key || e.APIVersion != w.ver || e.CorrelationID != w.corr {
					t.Errorf("exchange %d: %s, want stream %d key %d v%d corr %d", i, describe(e), w.stream, w.key, w.ver, w.corr)
				}
				switch {
				case w.clientID == "-" && e.ClientID != nil:
					t.Errorf("exchange %d: client id %q, want null", i, *e.ClientID)
				case w.clientID != "-" && (e.ClientID == nil || *e.ClientID != w.clientID):
					t.Errorf("exchange %d: client id %v, want %q", i, e.ClientID, w.clientID)
				}
				checkFrame(t, i, "request", e.Request, w.reqSize)
				checkFrame(t, i, "response", e.Response, w.respSize)
				switch {
				case w.reqSize == 0:
					if len(e.Notes) != 1 || e.Notes[0].Text != "response without a captured request" {
						t.Errorf("exchange %d: notes %q", i, e.Notes)
					}
				case w.respSize == 0:
					// The one note says why no response came.
					if e.NoResponse == ResponseSeen || len(e.Notes) != 1 || e.Notes[0].Text != e.NoResponse.String() && e.NoResponse != ConnectionIdle {
						t.Errorf("exchange %d: no response (%v), notes %q", i, e.NoResponse, e.Notes)
					}
				case len(e.Notes) != 0:
					t.Errorf("exchange %d: notes %q", i, e.Notes)
				}
				if i > 0 && e.Order() < got[i-1].Order() {
					t.Errorf("exchange %d out of capture order", i)
				}
			}
			if st.Skipped != 0 || st.KafkaPackets != st.Packets || st.LostBytes != 0 {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

func checkFrame(t *testing.T, i int, what string, f *Frame, size int32) {
	t.Helper()
	switch {
	case size == 0 && f != nil:
		t.Errorf("exchange %d: unexpected %s of %d bytes", i, what, f.Size)
	case size != 0 && f == nil:
		t.Errorf("exchange %d: no %s, want %d bytes", i, what, size)
	case f != nil && (f.Size != size || len(f.Bytes) != int(size)):
		t.Errorf("exchange %d: %s of %d/%d bytes, want %d", i, what, len(f.Bytes), f.Size, size)
	}
}

// Specific facts SOURCES.md points out, beyond the exchange lists.
func TestPublicCaptureDetails(t *testing.T) {
	ports := publicPorts(t)
	// SOURCES.md says the OffsetCommit and Heartbeat responses share one
	// 47-byte segment; the file has them in two (frames 4 and 7: 31 + 16 =
	// 47 bytes), and the requests are not pipelined. Shared segments are
	// covered by the synthetic TestCaptureOrderAcrossConnections.
	t.Run("mixed: Fetch answered last, ordered first", func(t *testing.T) {
		got, _ := readPublic(t, "deepflow_mixed-with-unsupported.pcap", ports["deepflow_mixed-with-unsupported.pcap"])
		fetch := got[0]
		for _, e := range got[1:] {
			if fetch.Response.Packet <= e.Response.Packet {
				t.Errorf("the Fetch response (packet %d) is not the last", fetch.Response.Packet)
			}
		}
		if got[1].Response.Packet != 3 || got[2].Response.Packet != 6 {
			t.Errorf("OffsetCommit and Heartbeat responses in packets %d and %d, want 3 and 6", got[1].Response.Packet, got[2].Response.Packet)
		}
		if l, ok := fetch.Latency(); !ok || l < 400*time.Millisecond {
			t.Errorf("Fetch latency %v, want about 0.5 s", l)
		}
	})
	t.Run("go-sniffer: orig_len below incl_len, Produce v1 frame whole", func(t *testing.T) {
		got, st := readPublic(t, "go-sniffer_kafka.pcap", ports["go-sniffer_kafka.pcap"])
		if st.PatchedRecords != 20 || st.Packets != 20 {
			t.Errorf("patched %d of %d records", st.PatchedRecords, st.Packets)
		}
		p := got[1].Request
		// The 1033-byte JSON value ends the frame: '}' as its last byte.
		if p.Size != 1120 || len(p.Bytes) != 1120 || p.Bytes[len(p.Bytes)-1] != '}' {
			t.Errorf("Produce request %d/%d bytes, last %q", len(p.Bytes), p.Size, p.Bytes[len(p.Bytes)-1])
		}
	})
	t.Run("arkime: VLAN, empty client id, no response", func(t *testing.T) {
		got, st := readPublic(t, "arkime_kafka.pcap", 9092)
		e := got[0]
		if e.ClientID == nil || *e.ClientID != "" || e.Response != nil || e.Broker.String() != "10.176.192.13:9092" || e.Client.String() != "10.10.10.10:65056" {
			t.Errorf("%s %v → %v", describe(e), e.Client, e.Broker)
		}
		if st.Connections != 1 || st.Packets != 5 {
			t.Errorf("stats %+v", st)
		}
	})
	t.Run("ndpi: two interfaces, duplicates, time going backwards", func(t *testing.T) {
		got, st := readPublic(t, "ndpi_kafka.pcapng", 9092)
		if st.Connections != 9 || st.Packets != 41 {
			t.Errorf("stats %+v", st)
		}
		// Interface 0 is in microseconds, interface 1 in nanoseconds.
		if want := time.Unix(1681844706, 292198000); !got[0].Request.Time.Equal(want) {
			t.Errorf("first request at %v, want %v", got[0].Request.Time.UTC(), want.UTC())
		}
		if want := time.Unix(1703132763, 91754606); !got[16].Request.Time.Equal(want) {
			t.Errorf("Produce v9 at %v, want %v", got[16].Request.Time.UTC(), want.UTC())
		}
		// Frames 17 and 18 are the same segment, and frame 19's clock is
		// earlier than frame 18's: one exchange, positive order.
		seen := map[[2]int64]bool{}
		for _, e := range got {
			k := [2]int64{int64(e.Stream), int64(e.CorrelationID)}
			if seen[k] {
				t.Errorf("duplicate exchange stream %d corr %d", e.Stream, e.CorrelationID)
			}
			seen[k] = true
		}
		if e := got[9]; e.Request.Packet != 16 || e.Response.Packet != 19 {
			t.Errorf("Produce corr 3: %s", describe(e))
		}
	})
	t.Run("fetch-v12-unknown: nanosecond pcap", func(t *testing.T) {
		got, _ := readPublic(t, "deepflow_01-fetch-v12-unknown.pcap", 9092)
		if want := time.Unix(1647312695, 0); !got[0].Request.Time.Equal(want) {
			t.Errorf("time %v", got[0].Request.Time)
		}
	})
	t.Run("all at once: streams numbered on across files", func(t *testing.T) {
		names := slices.Sorted(func(yield func(string) bool) {
			for n := range ports {
				if !yield(n) {
					return
				}
			}
		})
		d := New(Options{Ports: []uint16{9092, 36333}})
		streams := 0
		for _, n := range names {
			max := -1
			if err := d.ReadFile(filepath.Join(publicDir, n), func(e *Exchange) {
				if e.Stream < streams {
					t.Errorf("%s: stream %d reused", n, e.Stream)
				}
				max = maxOf(max, e.Stream)
			}); err != nil {
				t.Fatal(err)
			}
			streams = d.Stats().Connections
			if max >= streams {
				t.Errorf("%s: stream %d beyond %d connections", n, max, streams)
			}
		}
		if streams != 61 {
			t.Errorf("%d connections in all, want 61", streams)
		}
	})
}

func maxOf(a, b int) int { return max(a, b) }
