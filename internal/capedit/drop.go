package capedit

import "fmt"

// DropIndexes returns an Options.Drop that drops the input packets at the
// given 0-based indexes (out-of-range and repeated indexes are harmless).
func DropIndexes(indexes ...int) func(Packet) bool {
	set := make(map[int]struct{}, len(indexes))
	for _, i := range indexes {
		set[i] = struct{}{}
	}
	return func(p Packet) bool {
		_, ok := set[p.Index]
		return ok
	}
}

// RandomDrop returns an Options.Drop that drops each packet with
// probability frac (0 ≤ frac ≤ 1; 0.005 drops one packet in 200), as
// independent losses. With payloadOnly, only TCP segments that carry
// payload (by their IP and TCP headers' lengths, so a segment cut by an
// earlier snap length still counts) can be dropped: lost data, not a lost
// pure ACK, SYN or FIN; other packets, and packets whose link type or
// headers do not decode, are kept.
//
// The choice is a function of seed and the packet's index alone: the same
// seed drops the same packets of the same capture, in any run and whatever
// else Options says, and for one seed a larger frac drops a superset of the
// packets a smaller one drops. RandomDrop panics if frac is not in [0, 1].
//
// The function it returns reuses a packet decoder: it is not safe for
// concurrent use (Rewrite calls it from one goroutine).
func RandomDrop(frac float64, seed int64, payloadOnly bool) func(Packet) bool {
	if !(frac >= 0 && frac <= 1) {
		panic(fmt.Sprintf("capedit: RandomDrop fraction %v not in [0, 1]", frac))
	}
	var dec *tcpDecoder
	if payloadOnly {
		dec = newTCPDecoder()
	}
	return func(p Packet) bool {
		if unitFloat(seed, p.Index) >= frac {
			return false
		}
		if dec != nil {
			n, ok := dec.payload(p.LinkType, p.Data)
			return ok && n > 0
		}
		return true
	}
}

// unitFloat returns a number in [0, 1) that looks random and depends only
// on seed and i: splitmix64 (Steele, Lea and Flood) of the seed, offset by
// i, mixed again; the top 53 bits as a float64.
func unitFloat(seed int64, i int) float64 {
	z := mix64(mix64(uint64(seed)) + uint64(i)*0x9e3779b97f4a7c15)
	return float64(z>>11) / (1 << 53)
}

func mix64(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
