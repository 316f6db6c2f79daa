package dissect

import (
	"bufio"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"time"
)

// This file writes large synthetic captures as a stream, in constant
// memory, for the memory benchmark and the streaming tests: many client
// connections to one broker, each a TCP handshake, request/response pairs
// (Produce requests of about 6 KB cut into 1460-byte segments with small
// responses, and Fetch requests with 4 KB responses), then a FIN, or, for
// one connection in 16, silence after its last response (the idle timeout
// flushes it). Closed connections are replaced by new ones on new client
// ports, so connections come and go all through the capture. Packets are
// 1 ms apart.

// genCapture configures writeGenCapture.
type genCapture struct {
	conns     int   // connections open at once
	perConn   int   // exchanges per connection
	bytes     int64 // stop after about this many bytes of capture
	exchanges int   // or after this many exchanges (0: no limit)
	seed      uint64
	tick      time.Duration // between packets; 0 means 1 ms
}

// genConn is one synthetic connection's state.
type genConn struct {
	port       uint16
	cseq, bseq uint32
	corr       int32
	left       int  // exchanges still to make
	silent     bool // ends without a FIN
	step       int  // 0: handshake, 1: request, 2: response, 3: close
}

// writeGenCapture writes the capture to w as a classic pcap (Ethernet,
// IPv4) and returns the number of exchanges in it.
func writeGenCapture(w io.Writer, g genCapture) (exchanges int, err error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	rng := rand.New(rand.NewPCG(g.seed, 7))
	tick := g.tick
	if tick == 0 {
		tick = time.Millisecond
	}
	clock := time.Unix(1700000000, 0)
	var hdr [24]byte
	binary.LittleEndian.PutUint32(hdr[0:], pcapMagicMicro)
	binary.LittleEndian.PutUint16(hdr[4:], 2)
	binary.LittleEndian.PutUint16(hdr[6:], 4)
	binary.LittleEndian.PutUint32(hdr[16:], 262144)
	binary.LittleEndian.PutUint32(hdr[20:], 1) // Ethernet
	if _, err := bw.Write(hdr[:]); err != nil {
		return 0, err
	}
	written := int64(len(hdr))
	pkt := make([]byte, 0, 2048)
	send := func(c *genConn, fromClient bool, flags byte, payload []byte) error {
		clock = clock.Add(tick)
		pkt = pkt[:0]
		pkt = append(pkt, 0, 1, 2, 3, 4, 5, 0, 6, 7, 8, 9, 10, 0x08, 0x00)
		ipStart := len(pkt)
		src, dst := [4]byte{10, 1, byte(c.port >> 8), byte(c.port)}, [4]byte{10, 0, 0, 9}
		sport, dport := c.port, uint16(9092)
		seq, ack := &c.cseq, c.bseq
		if !fromClient {
			src, dst = dst, src
			sport, dport = dport, sport
			seq, ack = &c.bseq, c.cseq
		}
		total := 20 + 20 + len(payload)
		pkt = append(pkt, 0x45, 0, byte(total>>8), byte(total), 0, 0, 0x40, 0, 64, 6, 0, 0)
		pkt = append(pkt, src[:]...)
		pkt = append(pkt, dst[:]...)
		_ = ipStart
		pkt = binary.BigEndian.AppendUint16(pkt, sport)
		pkt = binary.BigEndian.AppendUint16(pkt, dport)
		pkt = binary.BigEndian.AppendUint32(pkt, *seq)
		pkt = binary.BigEndian.AppendUint32(pkt, ack)
		pkt = append(pkt, 0x50, flags, 0xff, 0xff, 0, 0, 0, 0)
		pkt = append(pkt, payload...)
		*seq += uint32(len(payload))
		if flags&(0x02|0x01) != 0 { // SYN, FIN
			*seq++
		}
		var rec [16]byte
		binary.LittleEndian.PutUint32(rec[0:], uint32(clock.Unix()))
		binary.LittleEndian.PutUint32(rec[4:], uint32(clock.Nanosecond()/1000))
		binary.LittleEndian.PutUint32(rec[8:], uint32(len(pkt)))
		binary.LittleEndian.PutUint32(rec[12:], uint32(len(pkt)))
		if _, err := bw.Write(rec[:]); err != nil {
			return err
		}
		if _, err := bw.Write(pkt); err != nil {
			return err
		}
		written += int64(len(rec) + len(pkt))
		return nil
	}
	const (
		fFIN, fSYN, fPSH, fACK = 0x01, 0x02, 0x08, 0x10
	)
	nextPort := uint16(20000)
	newGen := func() *genConn {
		c := &genConn{port: nextPort, cseq: rng.Uint32(), bseq: rng.Uint32(), corr: 1, left: 1 + rng.IntN(2*g.perConn), silent: rng.IntN(16) == 0}
		nextPort++
		if nextPort == 0 {
			nextPort = 20000
		}
		return c
	}
	cs := make([]*genConn, g.conns)
	for i := range cs {
		cs[i] = newGen()
	}
	body := filler(6000, 3)
	fetchResp := filler(4096, 5)
	var frame []byte
	for turn := 0; written < g.bytes && (g.exchanges == 0 || exchanges < g.exchanges); turn++ {
		// Round robin, so that no connection waits without bound for its
		// turn (as a random pick would, more the longer the capture).
		i := turn % len(cs)
		c := cs[i]
		switch c.step {
		case 0:
			for _, p := range []struct {
				client bool
				flags  byte
			}{{true, fSYN}, {false, fSYN | fACK}, {true, fACK}} {
				if err := send(c, p.client, p.flags, nil); err != nil {
					return exchanges, err
				}
			}
			c.step = 1
		case 1:
			if c.corr%10 == 0 {
				frame = reqFrame(1, 11, c.corr, "gen-consumer", filler(60, 1))
			} else {
				frame = reqFrame(0, 9, c.corr, "gen-producer", body)
			}
			for len(frame) > 0 {
				n := min(len(frame), 1460)
				if err := send(c, true, fACK|fPSH, frame[:n]); err != nil {
					return exchanges, err
				}
				frame = frame[n:]
			}
			c.step = 2
		case 2:
			if c.corr%10 == 0 {
				frame = respFrame(c.corr, fetchResp)
			} else {
				frame = respFrame(c.corr, filler(60, 2))
			}
			for len(frame) > 0 {
				n := min(len(frame), 1460)
				if err := send(c, false, fACK|fPSH, frame[:n]); err != nil {
					return exchanges, err
				}
				frame = frame[n:]
			}
			exchanges++
			c.corr++
			c.left--
			c.step = 1
			if c.left == 0 {
				c.step = 3
			}
		case 3:
			if !c.silent {
				for _, p := range []struct {
					client bool
					flags  byte
				}{{true, fFIN | fACK}, {false, fFIN | fACK}, {true, fACK}} {
					if err := send(c, p.client, p.flags, nil); err != nil {
						return exchanges, err
					}
				}
			}
			cs[i] = newGen()
		}
	}
	return exchanges, bw.Flush()
}
