package stats

import (
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/codec"
)

// sentByTshark is what tshark reads of the requests to port 9092 of a
// capture, independently of kdissect: per client id, the (ApiKey,
// ApiVersion) pairs, and the ClientSoftwareName/Version pairs of its
// ApiVersions requests.
type sentByTshark struct {
	versions map[string]map[[2]int16]bool
	software map[string]map[string]bool // "name version"
}

func tsharkRequests(t *testing.T, path string) sentByTshark {
	t.Helper()
	if _, err := exec.LookPath("tshark"); err != nil {
		t.Skip("tshark not on PATH")
	}
	out, err := exec.Command("tshark", "-r", path, "-d", "tcp.port==9092,kafka", "-Y", "tcp.dstport == 9092 && kafka",
		"-T", "fields", "-E", "aggregator=,", "-e", "kafka.client_id", "-e", "kafka.api_key", "-e", "kafka.api_version",
		"-e", "kafka.client_software_name", "-e", "kafka.client_software_version").Output()
	if err != nil {
		t.Fatalf("tshark %s: %v", path, err)
	}
	s := sentByTshark{versions: map[string]map[[2]int16]bool{}, software: map[string]map[string]bool{}}
	for line := range strings.Lines(string(out)) {
		f := strings.Split(strings.TrimRight(line, "\n"), "\t")
		if len(f) < 3 || f[1] == "" {
			continue
		}
		ids, keys, vers := strings.Split(f[0], ","), strings.Split(f[1], ","), strings.Split(f[2], ",")
		if len(ids) != len(keys) || len(keys) != len(vers) {
			t.Fatalf("tshark line %q: fields of different counts", line)
		}
		for i := range keys {
			k, err1 := strconv.Atoi(keys[i])
			v, err2 := strconv.Atoi(vers[i])
			if err1 != nil || err2 != nil {
				t.Fatalf("tshark line %q", line)
			}
			if s.versions[ids[i]] == nil {
				s.versions[ids[i]] = map[[2]int16]bool{}
			}
			s.versions[ids[i]][[2]int16{int16(k), int16(v)}] = true
		}
		// Software: only on a lone ApiVersions request, as a client sends
		// it first on its connection.
		if len(f) >= 5 && f[3] != "" && len(keys) == 1 {
			if s.software[ids[0]] == nil {
				s.software[ids[0]] = map[string]bool{}
			}
			s.software[ids[0]][f[3]+" "+f[4]] = true
		}
	}
	return s
}

// byClientID gathers a report's rows per client id (a client id's rows
// differ by software: a kcat run that sent no ApiVersions is a row apart).
func byClientID(rows []*ClientVersions) (versions map[string]map[[2]int16]bool, software map[string]map[string]bool, removed map[string][]string) {
	versions, software, removed = map[string]map[[2]int16]bool{}, map[string]map[string]bool{}, map[string][]string{}
	for _, c := range rows {
		id := *c.ClientID
		if versions[id] == nil {
			versions[id], software[id] = map[[2]int16]bool{}, map[string]bool{}
		}
		for _, a := range c.APIs {
			for _, v := range a.Versions {
				versions[id][[2]int16{a.Key, v}] = true
			}
		}
		if c.SoftwareName != nil {
			software[id][*c.SoftwareName+" "+*c.SoftwareVersion] = true
		}
		for _, r := range c.Removed {
			removed[id] = append(removed[id], fmt.Sprintf("%s v%d %s %s", r.Name, r.Version, r.RemovedIn, r.KIP))
		}
	}
	return versions, software, removed
}

// TestClientVersionsCaptures holds the client inventory of captures made
// by testdata/pcaps/regen.sh to what tshark reads of their requests: the
// same (ApiKey, ApiVersion) pairs and software per client id, and every
// pair Kafka removed listed as removed. Old clients: kcat told not to ask
// for versions (broker.version.fallback 0.8.2 and 0.9.0: Produce and Fetch
// v0 and v1, no ApiVersions) and kcat capped by a broker advertising no
// newer than Produce v2 and Fetch v3 (kcat_legacy_msgset), the same told
// apart by client id (kcat_old_versions); modern:
// franz-go (the franz_* captures).
func TestClientVersionsCaptures(t *testing.T) {
	for _, c := range []struct {
		file string
		// wantRemoved: per client id, the removed versions the scenario
		// uses (regen.sh says which), "" for none.
		wantRemoved map[string]string
	}{
		{"kcat_legacy_msgset.pcap", map[string]string{"rdkafka": "Produce v0 4.0 KIP-896, Produce v1 4.0 KIP-896, Produce v2 4.0 KIP-896, " +
			"Fetch v0 4.0 KIP-896, Fetch v1 4.0 KIP-896, Fetch v3 4.0 KIP-896, ListOffsets v0 4.0 KIP-896"}},
		{"kcat_old_versions.pcap", map[string]string{
			"kcat-0.9.0": "Produce v1 4.0 KIP-896, Fetch v1 4.0 KIP-896, ListOffsets v0 4.0 KIP-896",
			"kcat-0.8.2": "Produce v0 4.0 KIP-896, Fetch v0 4.0 KIP-896, ListOffsets v0 4.0 KIP-896"}},
		{"franz_idempotent.pcap", nil},
		{"franz_groups.pcap", nil},
		{"franz_transactions.pcap", nil},
		{"franz_admin.pcap", nil},
	} {
		t.Run(c.file, func(t *testing.T) {
			path := "../../testdata/pcaps/" + c.file
			sent := tsharkRequests(t, path)
			rows := collect(t, path).ClientVersions
			versions, software, removed := byClientID(rows)
			if len(versions) != len(sent.versions) {
				t.Errorf("client ids %d, tshark %d", len(versions), len(sent.versions))
			}
			for id, want := range sent.versions {
				if !mapsEqual(versions[id], want) {
					t.Errorf("%s: versions %v, tshark %v", id, keysOf(versions[id]), keysOf(want))
				}
				if !mapsEqual(software[id], sent.software[id]) {
					t.Errorf("%s: software %v, tshark %v", id, keysOf(software[id]), keysOf(sent.software[id]))
				}
				var wantRemoved []string
				for p := range want {
					if r, ok := codec.RemovedVersion(p[0], p[1]); ok {
						wantRemoved = append(wantRemoved, fmt.Sprintf("%s v%d %s %s", codec.APIName(p[0]), p[1], r.Release, r.KIP))
					}
				}
				got := slices.Sorted(slices.Values(removed[id]))
				if slices.Sort(wantRemoved); !slices.Equal(got, wantRemoved) {
					t.Errorf("%s: removed %q, from tshark's versions %q", id, got, wantRemoved)
				}
				var scenario []string
				if c.wantRemoved[id] != "" {
					scenario = strings.Split(c.wantRemoved[id], ", ")
				}
				if slices.Sort(scenario); !slices.Equal(got, scenario) {
					t.Errorf("%s: removed %q, the scenario uses %q", id, got, scenario)
				}
			}
			for _, r := range rows {
				if r.Client != "127.0.0.1" {
					t.Errorf("client %q", r.Client)
				}
				if r.CompatibleWithKafka4 != (len(r.Removed) == 0) || (r.NewestBroker == "3.9") != !r.CompatibleWithKafka4 {
					t.Errorf("%s: compatible %v, newest broker %q, removed %d", *r.ClientID, r.CompatibleWithKafka4, r.NewestBroker, len(r.Removed))
				}
			}
		})
	}
}

func mapsEqual[K comparable](a, b map[K]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

func keysOf[K comparable](m map[K]bool) []string {
	var out []string
	for k := range m {
		out = append(out, fmt.Sprint(k))
	}
	slices.Sort(out)
	return out
}

// TestClientVersionsFeatures: the features of franz-go clients whose
// scenario (internal/franzclient) is known by their client ids: the
// idempotent producers compress with the codec their id names, the
// KIP-848 members use ConsumerGroupHeartbeat, the transactional producers
// transactions; the classic group members none of these.
func TestClientVersionsFeatures(t *testing.T) {
	got := map[string]ClientFeatures{}
	for _, f := range []string{"franz_idempotent.pcap", "franz_groups.pcap", "franz_transactions.pcap"} {
		for _, r := range collect(t, "../../testdata/pcaps/"+f).ClientVersions {
			got[*r.ClientID] = r.Features
		}
	}
	for _, codec := range []string{"none", "gzip", "snappy", "lz4", "zstd"} {
		f := got["kdissect-idempotent-producer-"+codec]
		if !f.Idempotence || f.Transactions || !slices.Equal(f.Compression, []string{codec}) {
			t.Errorf("producer-%s: %+v", codec, f)
		}
	}
	for _, id := range []string{"kdissect-groups-848-1", "kdissect-groups-848-2"} {
		if f := got[id]; !f.KIP848 || f.Idempotence || f.Transactions {
			t.Errorf("%s: %+v", id, f)
		}
	}
	for _, id := range []string{"kdissect-groups-classic-1", "kdissect-groups-classic-2"} {
		if f := got[id]; f.KIP848 || f.Idempotence || f.Transactions || len(f.Compression) > 0 {
			t.Errorf("%s: %+v", id, f)
		}
	}
	for _, id := range []string{"kdissect-transactions-txn-b", "kdissect-transactions-txn-d", "kdissect-transactions-session-a", "kdissect-transactions-session-c"} {
		if f := got[id]; !f.Transactions || f.TLS || len(f.SASLMechanisms) > 0 {
			t.Errorf("%s: %+v", id, f)
		}
	}
}
