package client

import (
	"encoding/binary"
	"io"
	"net"
	"sync"
	"testing"

	"github.com/kdissect/kdissect/codec"
)

// rawServer is a tiny TCP server on loopback for the conditions no real
// broker produces on demand (a wrong CorrelationId, a connection cut in
// the middle of a response) and for recording the exact bytes a client
// sends. Each accepted connection is served by handle; everything is
// closed with the test.
type rawServer struct {
	ln    net.Listener
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns []net.Conn
}

func newRawServer(t *testing.T, handle func(c net.Conn)) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns = append(s.conns, c)
			s.mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer c.Close()
				handle(c)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		s.mu.Lock()
		for _, c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		s.wg.Wait()
	})
	return s
}

func (s *rawServer) addr() string { return s.ln.Addr().String() }

// readRequest reads one request frame and returns it whole (size prefix
// included) with its key, version and CorrelationId.
func readRequest(c net.Conn) (frame []byte, key, version int16, corr int32, err error) {
	var sz [4]byte
	if _, err = io.ReadFull(c, sz[:]); err != nil {
		return
	}
	n := binary.BigEndian.Uint32(sz[:])
	frame = make([]byte, 4+n)
	copy(frame, sz[:])
	if _, err = io.ReadFull(c, frame[4:]); err != nil {
		return
	}
	key = int16(binary.BigEndian.Uint16(frame[4:]))
	version = int16(binary.BigEndian.Uint16(frame[6:]))
	corr = int32(binary.BigEndian.Uint32(frame[8:]))
	return
}

// writeResponse writes body as the response with CorrelationId corr, the
// header version derived from key and version.
func writeResponse(c net.Conn, key, version int16, corr int32, body []byte) error {
	b := []byte{0, 0, 0, 0}
	hdr := codec.ResponseHeader{CorrelationId: corr}
	b = hdr.AppendTo(b, codec.ResponseHeaderVersion(key, version))
	b = append(b, body...)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	_, err := c.Write(b)
	return err
}
