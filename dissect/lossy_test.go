package dissect

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"
	"unsafe"

	"github.com/kdissect/kdissect/codec"
)

// This file removes packets at random from a real capture of kcat traffic
// on a network of Ethernet-sized packets (testdata/pcaps/kcat_mtu.pcap.gz,
// made by bench/kcatcap.sh) and measures what is recovered against what
// the lost packets left: every record of a record batch none of whose
// bytes was lost can be decoded.

const mtuCapture = "../testdata/pcaps/kcat_mtu.pcap.gz"

// streamRange is a run of bytes of one direction of a connection.
type streamRange struct {
	dir      [2]netip.AddrPort
	from, to int64
}

// payloadRanges returns, by packet index, the stream range of each packet
// that carries payload, in a clean capture.
func payloadRanges(pkts []capPacket) map[int]streamRange {
	out := map[int]streamRange{}
	next := map[[2]netip.AddrPort]int64{}
	for i, p := range pkts {
		if !p.tcp || p.payload == 0 {
			continue
		}
		k := [2]netip.AddrPort{p.src, p.dst}
		out[i] = streamRange{k, next[k], next[k] + int64(p.payload)}
		next[k] += int64(p.payload)
	}
	return out
}

// batchSpan is a record batch (or legacy message) of a clean frame: its
// stream range and the records decoding counts in it.
type batchSpan struct {
	streamRange
	records int
}

// recordBatches returns the record batches of the records the exchanges
// count (Produce requests, Fetch responses), with their stream ranges.
func recordBatches(t *testing.T, ref []*Exchange, frames []origFrame) []batchSpan {
	t.Helper()
	dec := NewDecoder(DecodeOptions{})
	var out []batchSpan
	for _, ex := range ref {
		dec.Decode(ex)
		var f *Frame
		var dir [2]netip.AddrPort
		switch {
		case ex.APIKey == codec.ApiKeyProduce && ex.Request != nil:
			f, dir = ex.Request, [2]netip.AddrPort{ex.Client, ex.Broker}
		case ex.APIKey == codec.ApiKeyFetch && ex.Response != nil:
			f, dir = ex.Response, [2]netip.AddrPort{ex.Broker, ex.Client}
		default:
			continue
		}
		var o *origFrame
		for i := range frames {
			if frames[i].dir == dir && frames[i].first == int(f.Packet) && sameOutsideHoles(frames[i].bytes, f) {
				o = &frames[i]
			}
		}
		if o == nil {
			t.Fatalf("frame not found: %s", describe(ex))
		}
		for _, rr := range ex.Decoded.RecordSets {
			raw := rr.Records.Raw
			if len(raw) == 0 {
				continue
			}
			// Raw aliases the frame's bytes.
			at := int64(uintptr(unsafe.Pointer(&raw[0])) - uintptr(unsafe.Pointer(&f.Bytes[0])))
			base := o.start + 4 + at
			pos := 0
			for _, e := range rr.Records.Set.Entries {
				size := int(int32(uint32(raw[pos+8])<<24 | uint32(raw[pos+9])<<16 | uint32(raw[pos+10])<<8 | uint32(raw[pos+11])))
				n := 1
				if e.Batch != nil {
					n = len(e.Batch.Records)
				} else if len(e.Message.Inner) > 0 {
					n = len(e.Message.Inner)
				}
				out = append(out, batchSpan{streamRange{dir, base + int64(pos), base + int64(pos+12+size)}, n})
				pos += 12 + size
			}
		}
	}
	return out
}

// Packets removed at random from a real MTU-sized capture, 0.05% to 1%
// of those carrying data, with several seeds each: no frame is invented,
// each frame is an original one with the lost bytes as holes, no exchange
// counts more records than the clean one, and the records recovered are
// at least 95% of those in batches none of whose bytes was lost.
func TestLossyRealCapture(t *testing.T) {
	pkts := loadCapture(t, mtuCapture)
	frames, ok := originalFrames(pkts)
	if !ok {
		t.Fatal("kcat_mtu is not a clean capture")
	}
	ref, err := readAll(t, New(Options{}), writeCapture(t, pkts))
	if err != nil {
		t.Fatal(err)
	}
	refRecords := map[[2]int64]int{} // by request packet and CorrelationId
	batches := recordBatches(t, ref, frames)
	for _, ex := range ref {
		refRecords[[2]int64{ex.Order(), int64(ex.CorrelationID)}] = ex.Decoded.Records
	}
	ranges := payloadRanges(pkts)
	payload := payloadPackets(pkts)
	for _, frac := range []float64{0.0005, 0.0025, 0.01} {
		t.Run(fmt.Sprint(frac*100, "%"), func(t *testing.T) {
			var bound, got, lostPkts int
			for seed := range uint64(12) {
				rng := rand.New(rand.NewPCG(seed, uint64(frac*1e6)))
				n := max(1, int(frac*float64(len(payload))+rng.Float64()))
				drop := map[int]bool{}
				for len(drop) < n {
					drop[payload[rng.IntN(len(payload))]] = true
				}
				lostPkts += n
				var damaged []capPacket
				for i, p := range pkts {
					if !drop[i] {
						damaged = append(damaged, p)
					}
				}
				for _, b := range batches {
					whole := true
					for i := range drop {
						r := ranges[i]
						if r.dir == b.dir && r.from < b.to && r.to > b.from {
							whole = false
						}
					}
					if whole {
						bound += b.records
					}
				}
				exs, err := readAll(t, New(Options{}), writeCapture(t, damaged))
				if err != nil {
					t.Fatal(err)
				}
				dec := NewDecoder(DecodeOptions{})
				for _, e := range exs {
					dec.Decode(e)
					for _, f := range sides(e) {
						if origIndex(frames, f) < 0 {
							t.Errorf("seed %d: invented frame (%d of %d bytes, holes %v): %s", seed, len(f.f.Bytes), f.f.Size, f.f.Holes, describe(e))
						}
					}
					if e.Decoded.Records == 0 {
						continue
					}
					order := e.Order()
					if e.Request != nil {
						order = int64(damaged[e.Request.Packet].orig)
					}
					want, ok := refRecords[[2]int64{order, int64(e.CorrelationID)}]
					if !ok || e.Decoded.Records > want {
						t.Errorf("seed %d: %d records, the clean exchange has %d: %s", seed, e.Decoded.Records, want, describe(e))
					}
					got += e.Decoded.Records
				}
			}
			t.Logf("%d packets lost in 12 runs: %d records recovered of %d in batches with no byte lost", lostPkts, got, bound)
			if float64(got) < 0.95*float64(bound) {
				t.Errorf("%d records recovered, want at least 95%% of %d", got, bound)
			}
		})
	}
}
