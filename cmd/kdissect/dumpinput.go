package main

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// Hex dumps as tools print them: an offset, the bytes in hex, and an
// ASCII column. xxd ("00000000: 0012 0003  .."), tshark -x and od -A x
// -t x1z ("0000  00 12 00 03   .."), hexdump -C ("00000000  00 12 00 03
// |..|").
var (
	dumpOffset = regexp.MustCompile(`^([0-9a-fA-F]{4,16})(:?)[ \t]+(.*)$`)
	// A tshark -x data source: "Frame (74 bytes):", "Reassembled TCP
	// (3013 bytes):", "Decompressed Records (...)".
	dumpSection = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9 ]*) \((\d+) bytes\):$`)
	// An ASCII column: hexdump -C's |...|, od's >...<.
	dumpASCII = regexp.MustCompile(`\s(\|.*\||>.*<)\s*$`)
	dumpEnd   = regexp.MustCompile(`^[0-9a-fA-F]{4,16}$`)
	gap       = regexp.MustCompile(`[ \t]{2,}`)
	// hexdump without -C and od -x: 2-byte words in the machine's byte
	// order (a 7-digit offset, then groups of 4 digits).
	wordDump = regexp.MustCompile(`^[0-9a-fA-F]{7}( [0-9a-fA-F]{4})+[ \t]*\r?\n`)
)

// parseHexDump reads data as the hex dump of xxd, tshark -x, hexdump -C or
// od: ok is false when it is not one (then it is plain hex, or not hex).
// From tshark -x output of a reassembled PDU, the "Reassembled TCP"
// section is taken, as it holds the Kafka frame; else the first section.
// Each line's byte count is checked against the next line's offset, which
// is what tells a hex-looking ASCII column from the bytes.
func parseHexDump(data []byte) (b []byte, section string, ok bool) {
	type line struct {
		off    uint64
		colon  bool
		fields []string // runs of the rest separated by two or more blanks
		ascii  bool     // a |...| or >...< column was cut off
	}
	type sect struct {
		name   string
		lines  []line
		end    uint64 // the offset after the last byte, when hasEnd
		hasEnd bool
	}
	var sects []sect
	cur := -1
	for raw := range strings.Lines(string(data)) {
		l := strings.TrimRight(raw, "\r\n")
		if strings.TrimSpace(l) == "" {
			continue
		}
		if m := dumpSection.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			sects = append(sects, sect{name: m[1]})
			cur = len(sects) - 1
			continue
		}
		m := dumpOffset.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil && dumpEnd.MatchString(strings.TrimSpace(l)) && cur >= 0 {
			// hexdump and od end with the offset after the last byte.
			end, err := strconv.ParseUint(strings.TrimSpace(l), 16, 64)
			if err != nil {
				return nil, "", false
			}
			sects[cur].end, sects[cur].hasEnd = end, true
			continue
		}
		if m == nil {
			return nil, "", false
		}
		off, err := strconv.ParseUint(m[1], 16, 64)
		if err != nil {
			return nil, "", false
		}
		rest := m[3]
		asc := false
		if a := dumpASCII.FindStringIndex(" " + rest); a != nil {
			rest, asc = rest[:max(a[0]-1, 0)], true
		}
		if cur < 0 || off == 0 && len(sects[cur].lines) > 0 {
			// tshark -x without section headers: a new packet restarts at 0.
			sects = append(sects, sect{name: "Frame"})
			cur = len(sects) - 1
		}
		sects[cur].lines = append(sects[cur].lines, line{off: off, colon: m[2] == ":", fields: gap.Split(strings.TrimSpace(rest), -1), ascii: asc})
	}
	if len(sects) == 0 {
		return nil, "", false
	}
	pick := sects[0]
	for _, s := range sects {
		if s.name == "Reassembled TCP" {
			pick = s
		}
	}
	if len(pick.lines) == 0 {
		return nil, "", false
	}
	// hexBytes decodes the hex groups of the leading fields that are hex
	// only, up to n bytes (n < 0: no limit).
	hexBytes := func(fields []string, n int) ([]byte, bool) {
		var out []byte
		for _, f := range fields {
			var chunk []byte
			for _, g := range strings.Fields(f) {
				if len(g)%2 != 0 {
					return out, len(out) > 0
				}
				d, err := hex.DecodeString(g)
				if err != nil {
					return out, len(out) > 0
				}
				chunk = append(chunk, d...)
			}
			if n >= 0 && len(out)+len(chunk) > n {
				break // the ASCII column looked like hex
			}
			out = append(out, chunk...)
		}
		return out, len(out) > 0
	}
	evidence := len(pick.lines) > 1
	for i, l := range pick.lines {
		want := -1
		if i+1 == len(pick.lines) && pick.hasEnd {
			if pick.end <= l.off {
				return nil, "", false
			}
			want = int(pick.end - l.off)
		}
		if i+1 < len(pick.lines) {
			next := pick.lines[i+1].off
			if next <= l.off || next-l.off > 256 {
				return nil, "", false
			}
			want = int(next - l.off)
		}
		if l.colon || l.ascii || len(l.fields) > 1 {
			evidence = true
		}
		got, ok := hexBytes(l.fields, want)
		if !ok || want >= 0 && len(got) != want || uint64(len(b)) != l.off-pick.lines[0].off {
			return nil, "", false
		}
		b = append(b, got...)
	}
	if !evidence {
		return nil, "", false // one line of plain hex whose first group reads as an offset
	}
	return b, pick.name, true
}

// packetPayload returns the TCP payload of b when b is a whole packet, as
// tshark -x dumps a frame: Ethernet, Linux cooked (SLL) or raw IP,
// carrying TCP, its IP length agreeing with the bytes. It says what it
// found, for a note.
func packetPayload(b []byte) ([]byte, string, bool) {
	for _, first := range []gopacket.LayerType{layers.LayerTypeEthernet, layers.LayerTypeLinuxSLL, layers.LayerTypeIPv4, layers.LayerTypeIPv6} {
		p := gopacket.NewPacket(b, first, gopacket.DecodeOptions{Lazy: false, NoCopy: true})
		tcp, _ := p.Layer(layers.LayerTypeTCP).(*layers.TCP)
		if tcp == nil || p.ErrorLayer() != nil {
			continue
		}
		var what string
		switch ip := p.NetworkLayer().(type) {
		case *layers.IPv4:
			if int(ip.Length) != len(ip.Contents)+len(ip.Payload) || int(ip.IHL)*4 != len(ip.Contents) {
				continue
			}
			what = fmt.Sprintf("IPv4 %s:%d → %s:%d", ip.SrcIP, tcp.SrcPort, ip.DstIP, tcp.DstPort)
		case *layers.IPv6:
			if int(ip.Length) != len(ip.Payload) {
				continue
			}
			what = fmt.Sprintf("IPv6 [%s]:%d → [%s]:%d", ip.SrcIP, tcp.SrcPort, ip.DstIP, tcp.DstPort)
		default:
			continue
		}
		if len(tcp.Payload) == 0 {
			continue
		}
		return bytes.Clone(tcp.Payload), what, true
	}
	return nil, "", false
}

// dumpFrame reads data as a hex dump (parseHexDump); a dump of a whole
// packet (tshark -x of a frame) gives its TCP payload. The notes say what
// was read.
func dumpFrame(data []byte) ([]byte, []string, bool) {
	if wordDump.Match(data) {
		return nil, nil, false // parseFrameInput says why
	}
	b, section, ok := parseHexDump(data)
	if !ok {
		return nil, nil, false
	}
	notes := []string{fmt.Sprintf("read as a hex dump (%s section, %d bytes)", section, len(b))}
	if section == "Frame" {
		if p, what, ok := packetPayload(b); ok {
			notes = append(notes, fmt.Sprintf("the dump is a packet (%s): its TCP payload of %d bytes is decoded", what, len(p)))
			b = p
		}
	}
	return b, notes, true
}
