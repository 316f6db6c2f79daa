package capfilter

import (
	"slices"

	"golang.org/x/net/bpf"
)

// AcceptLength is what a compiled program returns for a packet it accepts:
// the number of bytes to keep, libpcap's largest snap length. A socket
// filter truncates packets to it, so it must not be smaller than the
// capture's snap length.
const AcceptLength = 262144

// emitter generates classic BPF backwards, from the return instructions to
// the entry point. Every jump goes forward in BPF, so generating backwards
// means each jump's target already has a position when the jump is
// written: no label fix-ups. A label is an instruction's index counted
// from the end of the program.
type emitter struct {
	rev []bpf.Instruction // the program, last instruction first
}

// push prepends an instruction and returns its label.
func (e *emitter) push(ins bpf.Instruction) int {
	e.rev = append(e.rev, ins)
	return len(e.rev) - 1
}

// dist is the skip, for the instruction about to be pushed, that lands on
// label l.
func (e *emitter) dist(l int) int { return len(e.rev) - l - 1 }

// cond pushes a conditional jump to t or f. Conditional jumps reach at
// most 255 instructions; a farther target goes through an unconditional
// jump (32-bit reach) placed right after the conditional one.
func (e *emitter) cond(c bpf.JumpTest, val uint32, t, f int) int {
	for {
		switch {
		case e.dist(t) > 255:
			t = e.push(bpf.Jump{Skip: uint32(e.dist(t))})
		case e.dist(f) > 255:
			f = e.push(bpf.Jump{Skip: uint32(e.dist(f))})
		default:
			return e.push(bpf.JumpIf{Cond: c, Val: val, SkipTrue: uint8(e.dist(t)), SkipFalse: uint8(e.dist(f))})
		}
	}
}

// gen generates x so that it continues at label t when x holds and at f
// when it does not, and returns x's entry label. Short-circuit evaluation
// follows the formula left to right, which keeps the loads in libpcap's
// order: a load beyond the end of the packet rejects the packet outright,
// so order matters for truncated packets.
func (e *emitter) gen(x *bexpr, t, f int) int {
	switch x.op {
	case opTrue:
		return t
	case opFalse:
		return f
	case opAnd:
		return e.gen(x.l, e.gen(x.r, t, f), f)
	case opOr:
		return e.gen(x.l, t, e.gen(x.r, t, f))
	case opNot:
		return e.gen(x.l, f, t)
	}
	return e.test(x.t, t, f)
}

// test generates a load and its comparisons. Several values for
// JumpEqual share the load: a chain of jeq, each falling through to the
// next.
func (e *emitter) test(ts test, t, f int) int {
	l := f
	for i := len(ts.vals) - 1; i >= 0; i-- {
		l = e.cond(ts.cond, ts.vals[i], t, l)
	}
	if ts.mask != 0 {
		e.push(bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: ts.mask})
	}
	if ts.indirect {
		e.push(bpf.LoadIndirect{Off: ts.off, Size: int(ts.size)})
		return e.push(bpf.LoadMemShift{Off: ts.ipOff})
	}
	return e.push(bpf.LoadAbsolute{Off: ts.off, Size: int(ts.size)})
}

// generate returns the program for x: it returns AcceptLength for a packet
// x holds for and 0 for any other.
func generate(x *bexpr) []bpf.Instruction {
	switch x.op {
	case opTrue:
		return []bpf.Instruction{bpf.RetConstant{Val: AcceptLength}}
	case opFalse:
		return []bpf.Instruction{bpf.RetConstant{Val: 0}}
	}
	e := &emitter{}
	reject := e.push(bpf.RetConstant{Val: 0})
	accept := e.push(bpf.RetConstant{Val: AcceptLength})
	if entry := e.gen(x, accept, reject); entry != len(e.rev)-1 {
		e.push(bpf.Jump{Skip: uint32(e.dist(entry))})
	}
	slices.Reverse(e.rev)
	return e.rev
}
