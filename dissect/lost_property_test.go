package dissect

import (
	"bytes"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/internal/capedit"
)

// TestLostPacketsPairWholeExchanges drops 1 to 4 packets carrying data,
// close together, from a real capture of MTU-sized packets (kcat_mtu), many times over:
// every exchange whose request and response frames are both whole in the
// damaged copy is reported paired, and nothing is invented: every frame is
// a frame of the clean capture (its lost bytes holes), a request and a
// response are paired only if the clean capture pairs them, and
// CorrelationIds, API keys and versions, topic-partitions, error codes
// and record counts are the clean exchange's (counts at most).
//
// KDISSECT_LOSS_SEED (default 26) and KDISSECT_LOSS_TRIALS (default 200)
// choose the drops.
func TestLostPacketsPairWholeExchanges(t *testing.T) {
	seed, trials := envInt(t, "KDISSECT_LOSS_SEED", 26), envInt(t, "KDISSECT_LOSS_TRIALS", 200)
	if testing.Short() {
		trials = min(trials, 20)
	}
	gz, err := os.ReadFile(mtuCapture)
	if err != nil {
		t.Fatal(err)
	}
	var plain bytes.Buffer // read once, not ungzipped for every trial
	if _, err := capedit.Rewrite(&plain, bytes.NewReader(gz), capedit.Options{}); err != nil {
		t.Fatal(err)
	}
	pkts := loadCapture(t, mtuCapture)
	frames, ok := originalFrames(pkts)
	if !ok {
		t.Fatal("kcat_mtu is not a clean capture")
	}
	ref, err := readAll(t, New(Options{}), plain.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	// The clean exchange of each original frame.
	owner := map[*origFrame]*Exchange{}
	type pair struct{ req, resp *origFrame }
	var whole []pair // the clean exchanges with both frames
	dec := NewDecoder(DecodeOptions{})
	for _, ex := range ref {
		var p pair
		if ex.Request != nil {
			p.req = findFrame(frames, ex.Request, ex.Client, ex.Broker)
			owner[p.req] = ex
		}
		if ex.Response != nil {
			p.resp = findFrame(frames, ex.Response, ex.Broker, ex.Client)
			owner[p.resp] = ex
		}
		if (ex.Request != nil && p.req == nil) || (ex.Response != nil && p.resp == nil) {
			t.Fatalf("clean frame not found: %s", describe(ex))
		}
		if p.req != nil && p.resp != nil {
			whole = append(whole, p)
		}
		dec.Decode(ex)
	}
	payload := payloadPackets(pkts)
	rng := rand.New(rand.NewPCG(uint64(seed), 26))
	for trial := range trials {
		// Kernel drops come in bursts: 1 to 4 of 8 packets in a row that
		// carry data, so that a lost request and a lost response are
		// often close together.
		drop := map[int]bool{}
		at := rng.IntN(len(payload) - burstSpan + 1)
		for n := 1 + rng.IntN(4); len(drop) < n; {
			drop[payload[at+rng.IntN(burstSpan)]] = true
		}
		var buf bytes.Buffer
		if _, err := capedit.Rewrite(&buf, bytes.NewReader(plain.Bytes()), capedit.Options{Drop: func(p capedit.Packet) bool { return drop[p.Index] }}); err != nil {
			t.Fatal(err)
		}
		got, err := readAll(t, New(Options{}), buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		dropped := slices.Sorted(maps.Keys(drop))
		fail := func(format string, args ...any) {
			t.Helper()
			t.Errorf("trial %d, packets %v dropped: "+format, append([]any{trial, dropped}, args...)...)
		}
		// Nothing invented.
		paired := map[*Exchange]bool{} // clean exchanges found paired
		for _, e := range got {
			var owners []*Exchange
			for _, f := range sides(e) {
				i := origIndex(frames, f)
				if i < 0 {
					fail("invented frame (%d of %d bytes, holes %v): %s", len(f.f.Bytes), f.f.Size, f.f.Holes, describe(e))
					continue
				}
				owners = append(owners, owner[&frames[i]])
			}
			if len(owners) == 0 {
				continue
			}
			c := owners[0]
			if len(owners) == 2 && owners[1] != c {
				fail("request and response of different exchanges paired: %s", describe(e))
				continue
			}
			if len(owners) == 2 && e.Request.Captured() && e.Response.Captured() {
				paired[c] = true
			}
			if e.CorrelationID != -1 && e.CorrelationID != c.CorrelationID {
				fail("CorrelationId %d, the clean exchange's is %d: %s", e.CorrelationID, c.CorrelationID, describe(e))
			}
			if e.APIKey != -1 && (e.APIKey != c.APIKey || e.APIVersion != c.APIVersion) {
				fail("ApiKey %d v%d, the clean exchange's is %d v%d: %s", e.APIKey, e.APIVersion, c.APIKey, c.APIVersion, describe(e))
			}
			if !hasHoles(e) {
				continue // its frames are the clean ones: so is what they decode to
			}
			dec.Decode(e)
			if e.Decoded.Records > c.Decoded.Records {
				fail("%d records, the clean exchange has %d: %s", e.Decoded.Records, c.Decoded.Records, describe(e))
			}
			for _, er := range e.Decoded.Errors {
				if !slices.Contains(c.Decoded.Errors, er) {
					fail("error %v the clean exchange does not have: %s", er, describe(e))
				}
			}
			for _, tp := range e.Decoded.Topics {
				for _, p := range tp.Partitions {
					if !slices.ContainsFunc(c.Decoded.Topics, func(ct codec.TopicPartitions) bool {
						return ct.Topic == tp.Topic && ct.TopicID == tp.TopicID && slices.Contains(ct.Partitions, p)
					}) {
						fail("topic-partition %s[%d] the clean exchange does not have: %s", tp.Topic, p, describe(e))
					}
				}
			}
		}
		// Every exchange whose frames are both whole is paired.
		for _, p := range whole {
			if lostAny(p.req, drop) || lostAny(p.resp, drop) {
				continue
			}
			if c := owner[p.req]; !paired[c] {
				fail("exchange whose frames were both captured not paired: %s", describe(c))
				for _, e := range got {
					if e.Stream == c.Stream && (e.CorrelationID == c.CorrelationID || e.CorrelationID == -1) {
						t.Logf("got %s", describe(e))
					}
				}
			}
		}
		if t.Failed() {
			return
		}
	}
}

// burstSpan is how many packets in a row carrying data the packets a
// trial drops are chosen from.
const burstSpan = 8

// lostAny reports whether a packet that carried bytes of o was dropped.
func lostAny(o *origFrame, drop map[int]bool) bool {
	return slices.ContainsFunc(o.pkts, func(i int) bool { return drop[i] })
}

func hasHoles(e *Exchange) bool {
	return e.Request != nil && len(e.Request.Holes) > 0 || e.Response != nil && len(e.Response.Holes) > 0
}

// envInt reads an integer setting of a test from the environment.
func envInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return n
}
