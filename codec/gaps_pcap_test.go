package codec

// The frames of the project's captures (testdata/pcaps), cut and punched
// as TestGappedFramesCut and TestGappedFramesInterior do with the golden
// and generated frames: real Kafka traffic, with Fetch responses of many
// batches in every codec, legacy message sets and control batches.
//
// A tiny pcap reader, not package dissect (which imports this one): the
// captures are classic pcap files of complete loopback connections with
// no packet lost (testdata/pcaps/README.md), so each direction's TCP
// payload is taken in sequence order and split at the Kafka size
// prefixes; a response is matched to its request by CorrelationId.

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// pcapFrames returns the Kafka frames of the capture at path.
func pcapFrames(t *testing.T, path string) []gapFrame {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 24 || binary.LittleEndian.Uint32(data) != 0xa1b2c3d4 {
		t.Fatalf("%s: not a little-endian microsecond pcap", path)
	}
	link := binary.LittleEndian.Uint32(data[20:])
	type dirKey struct {
		src, dst string
	}
	type seg struct {
		seq     uint32
		payload []byte
	}
	streams := map[dirKey][]seg{}
	var order []dirKey
	for off := 24; off+16 <= len(data); {
		incl := int(binary.LittleEndian.Uint32(data[off+8:]))
		pkt := data[off+16 : off+16+incl]
		off += 16 + incl
		var ip []byte
		switch link {
		case 1: // Ethernet
			if len(pkt) < 14 || binary.BigEndian.Uint16(pkt[12:]) != 0x0800 {
				continue
			}
			ip = pkt[14:]
		case 276: // Linux SLL2
			if len(pkt) < 20 || binary.BigEndian.Uint16(pkt) != 0x0800 {
				continue
			}
			ip = pkt[20:]
		default:
			t.Fatalf("%s: link type %d", path, link)
		}
		if len(ip) < 20 || ip[0]>>4 != 4 || ip[9] != 6 {
			continue
		}
		ihl := int(ip[0]&0xf) * 4
		total := int(binary.BigEndian.Uint16(ip[2:]))
		tcp := ip[ihl:total]
		doff := int(tcp[12]>>4) * 4
		payload := tcp[doff:]
		k := dirKey{
			fmt.Sprintf("%v:%d", ip[12:16], binary.BigEndian.Uint16(tcp)),
			fmt.Sprintf("%v:%d", ip[16:20], binary.BigEndian.Uint16(tcp[2:])),
		}
		if _, seen := streams[k]; !seen {
			order = append(order, k)
			streams[k] = nil
		}
		if len(payload) > 0 {
			streams[k] = append(streams[k], seg{binary.BigEndian.Uint32(tcp[4:]), payload})
		}
	}
	// Each direction's bytes, in sequence order, retransmissions dropped.
	bytesOf := func(segs []seg) []byte {
		if len(segs) == 0 {
			return nil
		}
		base := segs[0].seq
		sort.SliceStable(segs, func(i, j int) bool { return segs[i].seq-base < segs[j].seq-base })
		var out []byte
		for _, s := range segs {
			rel := int(s.seq - base)
			if rel+len(s.payload) <= len(out) {
				continue
			}
			if rel > len(out) {
				t.Fatalf("%s: bytes lost in a stream", path)
			}
			out = append(out, s.payload[len(out)-rel:]...)
		}
		return out
	}
	split := func(b []byte) (frames [][]byte) {
		for len(b) >= 4 {
			n := int(binary.BigEndian.Uint32(b))
			if 4+n > len(b) {
				break
			}
			frames = append(frames, b[4:4+n])
			b = b[4+n:]
		}
		return frames
	}
	var out []gapFrame
	for _, k := range order {
		if k.dst[len(k.dst)-5:] != ":9092" {
			continue
		}
		type req struct{ key, version int16 }
		asked := map[int32]req{}
		for i, f := range split(bytesOf(streams[k])) {
			if len(f) < 8 {
				continue
			}
			key, version := int16(binary.BigEndian.Uint16(f)), int16(binary.BigEndian.Uint16(f[2:]))
			asked[int32(binary.BigEndian.Uint32(f[4:]))] = req{key, version}
			if api, ok := LookupAPI(key); ok && api.SupportsVersion(version) {
				out = append(out, gapFrame{fmt.Sprintf("%s %s %s request %d", filepath.Base(path), k.src, api.Name, i), api, version, false, f})
			}
		}
		for i, f := range split(bytesOf(streams[dirKey{k.dst, k.src}])) {
			if len(f) < 4 {
				continue
			}
			r, ok := asked[int32(binary.BigEndian.Uint32(f))]
			if api, known := LookupAPI(r.key); ok && known && api.SupportsVersion(r.version) {
				out = append(out, gapFrame{fmt.Sprintf("%s %s %s response %d", filepath.Base(path), k.src, api.Name, i), api, r.version, true, f})
			}
		}
	}
	return out
}

// TestGappedFramesPcaps cuts and punches the frames of every project
// capture: of each key, version and side the longest frame, the shortest
// and one between (KDISSECT_GAP_PCAPS_ALL=1: every frame, some minutes).
// Frames up to 512 bytes are cut at every offset; longer ones at every
// offset of their first 128 bytes and at 512 offsets spread over the
// rest, and punched at a matching stride.
func TestGappedFramesPcaps(t *testing.T) {
	files, err := filepath.Glob("../testdata/pcaps/*.pcap")
	if err != nil || len(files) == 0 {
		t.Fatalf("no captures: %v", err)
	}
	type group struct {
		key, version int16
		response     bool
	}
	groups := map[group][]gapFrame{}
	var all []gapFrame
	for _, file := range files {
		for _, f := range pcapFrames(t, file) {
			g := group{f.api.Key, f.version, f.response}
			groups[g] = append(groups[g], f)
			all = append(all, f)
		}
	}
	picked := all
	if os.Getenv("KDISSECT_GAP_PCAPS_ALL") != "1" {
		picked = nil
		for _, f := range all {
			g := groups[group{f.api.Key, f.version, f.response}]
			sort.SliceStable(g, func(i, j int) bool { return len(g[i].frame) > len(g[j].frame) })
			if g[0].name == f.name || g[len(g)-1].name == f.name || g[len(g)/2].name == f.name {
				picked = append(picked, f)
			}
		}
	}
	var frames, decodes, records int
	{
		for _, f := range picked {
			clean := decodeGapFrame(f, f.frame, len(f.frame), nil)
			if clean.err != nil || clean.rest != 0 {
				t.Errorf("%s: does not decode whole: %v, %d bytes left", f.name, clean.err, clean.rest)
				continue
			}
			frames++
			records += clean.count
			cleanJSON := parseJSON(t, clean.json)
			stride := 1
			if n := len(f.frame); n > 512 {
				stride = max(1, (n-128)/512)
			}
			if testing.Short() {
				stride *= 8
			}
			ok := true
			for k := 0; k < len(f.frame) && ok; {
				gaps := []Gap{{k, len(f.frame)}}
				cut := decodeGapFrame(f, cutFrame(f.frame, k, nil), len(f.frame), nil)
				decodes++
				ok = checkGapDecode(t, f, clean, cut, gaps, cleanJSON)
				if k < 128 {
					k++
				} else {
					k += stride
				}
			}
			for _, n := range []int{1, 5, 40} {
				for a := 0; a+n < len(f.frame) && ok; a += stride {
					gaps := []Gap{{a, a + n}}
					cut := decodeGapFrame(f, cutFrame(f.frame, len(f.frame), gaps), len(f.frame), gaps)
					decodes++
					ok = checkGapDecode(t, f, clean, cut, gaps, cleanJSON)
				}
			}
		}
	}
	if frames < 100 || records == 0 || len(all) < 1000 {
		t.Fatalf("%d frames, %d records: the captures were not read", frames, records)
	}
	t.Logf("%d of the %d frames of %d captures (%d records), %d decodes with gaps", frames, len(all), len(files), records, decodes)
}
