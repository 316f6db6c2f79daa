package capedit

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/gopacket/gopacket"
)

// sortMoves checks moves and returns them sorted by Before.
func sortMoves(moves []Move) ([]Move, error) {
	moves = slices.Clone(moves)
	slices.SortFunc(moves, func(a, b Move) int { return a.Before - b.Before })
	for k, m := range moves {
		if m.Before < 0 || m.Packet <= m.Before || m.Early < 0 {
			return nil, fmt.Errorf("move of packet %d before packet %d, %v early: not a packet moved earlier", m.Packet, m.Before, m.Early)
		}
		if k > 0 && m.Before <= moves[k-1].Packet {
			return nil, fmt.Errorf("moves of packets %d and %d overlap", moves[k-1].Packet, m.Packet)
		}
	}
	return moves, nil
}

// heldPacket is a packet read while a move's span is open.
type heldPacket struct {
	i    int
	data []byte
	ci   gopacket.CaptureInfo
}

// mover carries out Options.Moves: from a move's Before to its Packet,
// packets are held, then written after the moved one.
type mover struct {
	open  bool
	early gopacket.CaptureInfo // Before's capture information
	held  []heldPacket
}

// packet takes input packet i (dropped: Drop left it out) and writes what
// can be written with out.
func (mv *mover) packet(moves *[]Move, i int, data []byte, ci gopacket.CaptureInfo, dropped bool, out func(int, []byte, gopacket.CaptureInfo) error, res *Result) error {
	if len(*moves) == 0 {
		if dropped {
			return nil
		}
		return out(i, data, ci)
	}
	m := (*moves)[0]
	if i == m.Before {
		mv.open, mv.early = true, ci
	}
	if !mv.open {
		if dropped {
			return nil
		}
		return out(i, data, ci)
	}
	if i < m.Packet {
		if !dropped {
			mv.held = append(mv.held, heldPacket{i, bytes.Clone(data), ci})
		}
		return nil
	}
	*moves = (*moves)[1:]
	if !dropped {
		ci.Timestamp = mv.early.Timestamp.Add(-m.Early)
		if err := out(i, data, ci); err != nil {
			return err
		}
		res.Moved++
	}
	return mv.flush(out)
}

// flush writes the packets held.
func (mv *mover) flush(out func(int, []byte, gopacket.CaptureInfo) error) error {
	for _, h := range mv.held {
		if err := out(h.i, h.data, h.ci); err != nil {
			return err
		}
	}
	mv.open, mv.held = false, nil
	return nil
}
