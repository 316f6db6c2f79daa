package capedit

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
)

// Split reads the capture src as Rewrite does and writes its packets into
// n classic pcap files held in memory: packet p into file part(p) (0 to
// n-1), each file with the same header, its packets in input order; as
// editcap -c splits a capture into files, or as captures at n points each
// see some of the traffic. It returns the files and, for each input
// packet, its file and its 0-based number there.
func Split(src io.Reader, n int, part func(p Packet) int) (files [][]byte, where []Place, err error) {
	var all bytes.Buffer
	_, err = Rewrite(&all, src, Options{Drop: func(p Packet) bool {
		k := part(p)
		if k < 0 || k >= n {
			panic(fmt.Sprintf("capedit.Split: packet %d into file %d of %d", p.Index, k, n))
		}
		where = append(where, Place{File: k})
		return false
	}})
	if err != nil {
		return nil, nil, err
	}
	b := all.Bytes()
	files = make([][]byte, n)
	for k := range files {
		files[k] = slices.Clip(b[:24]) // Rewrite's little-endian header
	}
	b = b[24:]
	for i := range where {
		size := 16 + int(binary.LittleEndian.Uint32(b[8:12]))
		k := where[i].File
		files[k] = append(files[k], b[:size]...)
		b = b[size:]
	}
	count := make([]int, n)
	for i := range where {
		where[i].Packet = count[where[i].File]
		count[where[i].File]++
	}
	return files, where, nil
}

// Place is where Split put a packet: its file and its 0-based number there.
type Place struct{ File, Packet int }
