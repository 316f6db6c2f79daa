// Package capgen writes synthetic Kafka captures of any size, as a stream
// in constant memory: many client connections to one broker, each a TCP
// handshake, then the exchanges of a librdkafka client (kcat) encoded by
// our codec at the versions it negotiates —
// ApiVersions and Metadata, then either a producer's Produce requests or a
// consumer group member's FindCoordinator, JoinGroup, SyncGroup and Fetch
// requests with Heartbeats and OffsetCommits — cut into MTU-sized
// segments, then a FIN (or, for one connection in 16, silence: an idle
// timeout must flush it). Each connection's producer or consumer uses one
// compression codec, all five in turn across connections. Closed
// connections are replaced by new ones on new client ports, so connections
// come and go all through the capture.
//
// It is for benchmarks and memory tests, which need captures larger than
// any file worth keeping in the repository.
package capgen

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"time"
)

// Config says what capture to write. The zero value of each field takes
// the default its comment gives.
type Config struct {
	// Bytes stops the capture once about this many bytes are written (the
	// last exchange is finished); 0 means no limit, then Exchanges must be set.
	Bytes int64
	// Exchanges stops the capture after this many exchanges; 0: no limit.
	Exchanges int
	// Conns is how many connections are open at once; default 64.
	Conns int
	// PerConn is the mean number of exchanges of a connection; default 50.
	PerConn int
	// Segment is the largest TCP payload of a packet, in bytes; default
	// 1460 (an Ethernet MTU of 1500).
	Segment int
	// Tick is the capture time between packets; default 1 ms.
	Tick time.Duration
	// Seed makes the capture reproducible: the same Config writes the same bytes.
	Seed uint64
	// Port is the broker's TCP port; default 9092.
	Port uint16
}

// Result says what was written.
type Result struct {
	Bytes     int64 // bytes written, the pcap file header included
	Packets   int64
	Exchanges int   // requests answered by a response
	Records   int64 // records in Produce requests and Fetch responses
}

// conn is one synthetic connection's state.
type conn struct {
	client, broker endpoint
	corr           int32
	left           int  // exchanges still to make
	silent         bool // ends without a FIN
	step           int  // 0: handshake, 1: exchanges, 2: close
	consumer       bool
	codec          int // index in compressions
	done           int // exchanges made
}

// Write writes the capture c describes to w as a classic pcap (Ethernet,
// IPv4, microsecond timestamps).
func Write(w io.Writer, c Config) (Result, error) {
	if c.Bytes <= 0 && c.Exchanges <= 0 {
		return Result{}, fmt.Errorf("capgen: neither Bytes nor Exchanges set: the capture would not end")
	}
	c = c.withDefaults()
	rng := rand.New(rand.NewPCG(c.Seed, 7))
	tr, err := newTraffic(rng)
	if err != nil {
		return Result{}, err
	}
	p := &pcapWriter{w: bufio.NewWriterSize(w, 1<<16), pkt: make([]byte, 0, 2048)}
	if err := p.header(262144); err != nil {
		return Result{}, err
	}
	clock := time.Unix(1764460800, 0)
	var res Result
	send := func(from, to *endpoint, flags byte, payload []byte) error {
		clock = clock.Add(c.Tick)
		return p.packet(clock, from, to, flags, payload)
	}
	segments := func(from, to *endpoint, frame []byte) error {
		for len(frame) > 0 {
			n := min(len(frame), c.Segment)
			if err := send(from, to, flagACK|flagPSH, frame[:n]); err != nil {
				return err
			}
			frame = frame[n:]
		}
		return nil
	}
	nextPort := uint16(20000)
	serial, wraps := 0, 0
	newConn := func() *conn {
		cn := &conn{
			// A new client address each time the ports wrap: every
			// connection has a 4-tuple of its own.
			client:   endpoint{ip: [4]byte{10, byte(1 + wraps), byte(nextPort >> 8), byte(nextPort)}, port: nextPort, seq: rng.Uint32()},
			broker:   endpoint{ip: [4]byte{10, 0, 0, 9}, port: c.Port, seq: rng.Uint32()},
			corr:     1,
			left:     1 + rng.IntN(2*c.PerConn),
			silent:   rng.IntN(16) == 0,
			consumer: serial%2 == 1,
			codec:    (serial / 2) % len(compressions),
		}
		serial++
		nextPort++
		if nextPort == 0 {
			nextPort = 20000
			wraps++
		}
		return cn
	}
	cs := make([]*conn, c.Conns)
	for i := range cs {
		cs[i] = newConn()
	}
	var req, resp []byte // copies of the templates, with CorrelationIds patched
	for turn := 0; (c.Bytes <= 0 || p.bytes < c.Bytes) && (c.Exchanges <= 0 || res.Exchanges < c.Exchanges); turn++ {
		// Round robin, so that no connection waits without bound for its
		// turn (as a random pick would, more the longer the capture).
		i := turn % len(cs)
		cn := cs[i]
		switch cn.step {
		case 0:
			if err := send(&cn.client, &cn.broker, flagSYN, nil); err != nil {
				return res, err
			}
			if err := send(&cn.broker, &cn.client, flagSYN|flagACK, nil); err != nil {
				return res, err
			}
			if err := send(&cn.client, &cn.broker, flagACK, nil); err != nil {
				return res, err
			}
			cn.step = 1
		case 1:
			ex := tr.next(cn, rng)
			req = append(req[:0], ex.req...)
			resp = append(resp[:0], ex.resp...)
			patchCorr(req, false, cn.corr)
			patchCorr(resp, true, cn.corr)
			if err := segments(&cn.client, &cn.broker, req); err != nil {
				return res, err
			}
			if err := segments(&cn.broker, &cn.client, resp); err != nil {
				return res, err
			}
			res.Exchanges++
			res.Records += int64(ex.records)
			cn.corr++
			cn.done++
			cn.left--
			if cn.left == 0 {
				cn.step = 2
			}
		case 2:
			if !cn.silent {
				if err := send(&cn.client, &cn.broker, flagFIN|flagACK, nil); err != nil {
					return res, err
				}
				if err := send(&cn.broker, &cn.client, flagFIN|flagACK, nil); err != nil {
					return res, err
				}
				if err := send(&cn.client, &cn.broker, flagACK, nil); err != nil {
					return res, err
				}
			}
			cs[i] = newConn()
		}
	}
	if err := p.w.Flush(); err != nil {
		return res, fmt.Errorf("write capture: %w", err)
	}
	res.Bytes, res.Packets = p.bytes, p.packets
	return res, nil
}

func (c Config) withDefaults() Config {
	if c.Conns <= 0 {
		c.Conns = 64
	}
	if c.PerConn <= 0 {
		c.PerConn = 50
	}
	if c.Segment <= 0 {
		c.Segment = 1460
	}
	if c.Tick <= 0 {
		c.Tick = time.Millisecond
	}
	if c.Port == 0 {
		c.Port = 9092
	}
	return c
}

// next returns the connection's next exchange: a client's start-up
// (ApiVersions, Metadata; for a consumer the group join), then its steady
// state.
func (t *traffic) next(cn *conn, rng *rand.Rand) *exchange {
	switch n := cn.done; {
	case n == 0:
		return &t.apiVersions
	case n == 1:
		return &t.metadata
	case !cn.consumer:
		return &t.produce[cn.codec][rng.IntN(variants)]
	case n == 2:
		return &t.findCoordinator
	case n == 3:
		return &t.joinGroup
	case n == 4:
		return &t.syncGroup
	case n%16 == 0:
		return &t.offsetCommit
	case n%8 == 0:
		return &t.heartbeat
	case rng.IntN(4) == 0:
		return &t.emptyFetch[0][0]
	default:
		return &t.fetch[cn.codec][rng.IntN(variants)]
	}
}
