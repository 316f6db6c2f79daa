package capfilter

import (
	"encoding/binary"
	"net/netip"
	"strconv"
	"strings"
)

// The abstract syntax of an expression. Parsing resolves everything that
// does not depend on the link type (addresses, ports, qualifier rules);
// compiling (compile.go) lays it out for one link type.
type node interface{ isNode() }

type andNode struct{ l, r node }
type orNode struct{ l, r node }
type notNode struct{ x node }

func (*andNode) isNode()  {}
func (*orNode) isNode()   {}
func (*notNode) isNode()  {}
func (*primNode) isNode() {}

// proto is a protocol qualifier or primitive.
type proto uint8

const (
	protoNone proto = iota
	protoIP
	protoIP6
	protoTCP
	protoUDP
	protoSCTP
)

var protoNames = map[string]proto{"ip": protoIP, "ip6": protoIP6, "tcp": protoTCP, "udp": protoUDP, "sctp": protoSCTP}

func (p proto) String() string {
	for k, v := range protoNames {
		if v == p {
			return k
		}
	}
	return "none"
}

// IP protocol numbers.
const (
	ipprotoTCP  = 6
	ipprotoUDP  = 17
	ipprotoSCTP = 132
	ipprotoFrag = 44 // IPv6 fragment header
)

// number is the IP protocol number of a transport protocol qualifier.
func (p proto) number() uint32 {
	switch p {
	case protoTCP:
		return ipprotoTCP
	case protoUDP:
		return ipprotoUDP
	case protoSCTP:
		return ipprotoSCTP
	}
	return 0
}

// dir is a direction qualifier.
type dir uint8

const (
	dirEither dir = iota // src or dst: the default
	dirSrc
	dirDst
	dirBoth // src and dst
)

// addrType is a type qualifier.
type addrType uint8

const (
	typeHost addrType = iota + 1
	typeNet
	typePort
	typePortRange
)

var typeNames = map[string]addrType{"host": typeHost, "net": typeNet, "port": typePort, "portrange": typePortRange}

// quals are the qualifiers of a primitive with a value (host 10.0.0.1, tcp
// dst port 9092). A bare value later in the expression takes the
// qualifiers of the primitive before it, as in tcpdump: "port 9092 or 9093"
// is "port 9092 or port 9093". ok is false where there are none to take.
type quals struct {
	proto proto
	dir   dir
	typ   addrType
	ok    bool
}

// primKind is what a primitive tests.
type primKind uint8

const (
	primProto primKind = iota + 1 // ip, ip6, tcp, udp, sctp on their own
	primAddr                      // host or net: an address under a mask
	primPort                      // port or portrange
	primVLAN                      // vlan [ID]
)

// primNode is one primitive.
type primNode struct {
	kind  primKind
	proto proto
	dir   dir
	// addr and mask are the address and mask of primAddr: 4 bytes for
	// IPv4, 16 for IPv6. A host has an all-ones mask.
	addr, mask []byte
	lo, hi     uint16 // primPort: the inclusive range (lo == hi for port)
	vlanID     int    // primVLAN: the VLAN id to match, or -1 for any
	// depth counts the vlan primitives before this one in the expression.
	// As in libpcap, each vlan moves the link-layer offsets of everything
	// written after it by the 4 bytes of an 802.1Q tag, whatever the
	// and/or structure: "vlan and port 9092" looks for the port inside
	// the tag.
	depth int
	pos   int    // where the primitive starts in the expression
	text  string // the value as written, for messages
}

// parser is a recursive-descent parser over the tokens of one expression.
// Precedence follows libpcap: not binds tightest; and and or are equal
// and associate to the left ("a or b and c" is "(a or b) and c").
type parser struct {
	expr  string
	toks  []token
	i     int
	vlans int // vlan primitives parsed so far
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) peekAt(k int) token {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return p.toks[len(p.toks)-1]
}
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

func isAnd(t token) bool { return t.kind == tokAnd || (t.kind == tokWord && t.text == "and") }
func isOr(t token) bool  { return t.kind == tokOr || (t.kind == tokWord && t.text == "or") }
func isNot(t token) bool { return t.kind == tokNot || (t.kind == tokWord && t.text == "not") }

// isKeyword reports whether w is a word of the subset's grammar.
func isKeyword(w string) bool {
	if _, ok := protoNames[w]; ok {
		return true
	}
	if _, ok := typeNames[w]; ok {
		return true
	}
	switch w {
	case "and", "or", "not", "src", "dst", "vlan", "mask":
		return true
	}
	return false
}

// looksLikeValue reports whether a word is an address or number rather
// than a (possibly unsupported) keyword or name.
func looksLikeValue(w string) bool {
	return w != "" && ('0' <= w[0] && w[0] <= '9' || strings.Contains(w, ":"))
}

// describe names a token for a message.
func describe(t token) string {
	if t.kind == tokEOF {
		return "the end of the expression"
	}
	return strconv.Quote(t.text)
}

// parse parses a whole expression; a nil node (for an empty expression)
// matches every packet, as in tcpdump.
func parse(expr string) (node, error) {
	toks, err := lex(expr)
	if err != nil {
		return nil, err
	}
	p := &parser{expr: expr, toks: toks}
	if p.peek().kind == tokEOF {
		return nil, nil
	}
	n, _, err := p.parseExpr(quals{})
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEOF {
		return nil, p.unexpected(t, "and, or or the end of the expression")
	}
	return n, nil
}

// unexpected is the error for token t where want was expected. A word
// that is not part of the subset is named as unsupported: it is most
// likely a libpcap primitive (ether, proto, less...) we do not compile.
func (p *parser) unexpected(t token, want string) error {
	if t.kind == tokEOF {
		return syntaxf(p.expr, t.pos, "", "the expression ends where %s was expected", want)
	}
	if t.kind == tokRParen && want != ")" {
		return syntaxf(p.expr, t.pos, t.text, "unbalanced \")\" at offset %d", t.pos)
	}
	if t.kind == tokWord && !isKeyword(t.text) && !looksLikeValue(t.text) {
		return unsupportedf(p.expr, t.pos, t.text, "%q at offset %d is not supported", t.text, t.pos)
	}
	return syntaxf(p.expr, t.pos, t.text, "unexpected %s at offset %d, expected %s", describe(t), t.pos, want)
}

// parseExpr parses unary expressions joined by and/or. q are the
// qualifiers a bare value at the start would take; it returns those a bare
// value after the expression takes.
func (p *parser) parseExpr(q quals) (node, quals, error) {
	n, q, err := p.parseUnary(q)
	if err != nil {
		return nil, q, err
	}
	for {
		t := p.peek()
		and := isAnd(t)
		if !and && !isOr(t) {
			return n, q, nil
		}
		p.next()
		var r node
		r, q, err = p.parseUnary(q)
		if err != nil {
			return nil, q, err
		}
		if and {
			n = &andNode{n, r}
		} else {
			n = &orNode{n, r}
		}
	}
}

func (p *parser) parseUnary(q quals) (node, quals, error) {
	t := p.peek()
	switch {
	case isNot(t):
		p.next()
		x, q, err := p.parseUnary(q)
		if err != nil {
			return nil, q, err
		}
		return &notNode{x}, q, nil
	case t.kind == tokLParen:
		p.next()
		// As in libpcap, a parenthesised expression starts without
		// qualifiers to inherit, and the ones from before it apply after it.
		x, _, err := p.parseExpr(quals{})
		if err != nil {
			return nil, q, err
		}
		if c := p.next(); c.kind != tokRParen {
			return nil, q, p.unexpected(c, "\")\" to close the \"(\" at offset "+strconv.Itoa(t.pos))
		}
		return x, q, nil
	case t.kind == tokWord && !isAnd(t) && !isOr(t):
		if isKeyword(t.text) {
			return p.parsePrimitive()
		}
		if !looksLikeValue(t.text) && !q.ok {
			return nil, q, unsupportedf(p.expr, t.pos, t.text, "%q at offset %d is not supported", t.text, t.pos)
		}
		if !q.ok {
			return nil, q, syntaxf(p.expr, t.pos, t.text, "%q at offset %d needs a qualifier such as host, net or port", t.text, t.pos)
		}
		n, err := p.parseValue(q)
		return n, q, err
	}
	return nil, q, p.unexpected(t, "a primitive such as host, port or tcp")
}

// parsePrimitive parses a primitive that starts with a keyword: [proto]
// [dir] [type] value, a protocol on its own, or vlan [ID].
func (p *parser) parsePrimitive() (node, quals, error) {
	start := p.peek()
	if start.text == "vlan" {
		p.next()
		n := &primNode{kind: primVLAN, vlanID: -1, depth: p.vlans, pos: start.pos, text: "vlan"}
		p.vlans++
		if t := p.peek(); t.kind == tokWord && looksLikeValue(t.text) {
			p.next()
			id, ok := parseNumber(t.text)
			if !ok || id > 4095 {
				return nil, quals{}, syntaxf(p.expr, t.pos, t.text, "VLAN id %q at offset %d: want a number from 0 to 4095", t.text, t.pos)
			}
			n.vlanID = int(id)
			n.text = "vlan " + t.text
		}
		return n, quals{}, nil
	}
	var q quals
	sawDir, sawType := false, false
	if pr, ok := protoNames[p.peek().text]; ok {
		q.proto = pr
		p.next()
	}
	if t := p.peek(); t.kind == tokWord && (t.text == "src" || t.text == "dst") {
		p.next()
		sawDir = true
		q.dir = dirSrc
		if t.text == "dst" {
			q.dir = dirDst
		}
		// "src or dst", "dst and src" and so on are one qualifier.
		if op, other := p.peek(), p.peekAt(1); (isAnd(op) || isOr(op)) && other.kind == tokWord &&
			(other.text == "src" || other.text == "dst") && other.text != t.text {
			p.next()
			p.next()
			q.dir = dirEither
			if isAnd(op) {
				q.dir = dirBoth
			}
		}
	}
	if ty, ok := typeNames[p.peek().text]; ok && p.peek().kind == tokWord {
		q.typ = ty
		p.next()
		sawType = true
	}
	if !sawDir && !sawType {
		if q.proto == protoNone {
			// A keyword that cannot start a primitive (and, mask...).
			return nil, q, p.unexpected(start, "a primitive such as host, port or tcp")
		}
		return &primNode{kind: primProto, proto: q.proto, depth: p.vlans, pos: start.pos, text: start.text}, quals{}, nil
	}
	if !sawType {
		q.typ = typeHost
	}
	q.ok = true
	if err := p.checkQuals(q, start); err != nil {
		return nil, q, err
	}
	if p.peek().kind == tokLParen {
		n, err := p.parseValueGroup(q)
		return n, q, err
	}
	n, err := p.parseValue(q)
	return n, q, err
}

// checkQuals rejects qualifier combinations libpcap rejects, in its words.
func (p *parser) checkQuals(q quals, at token) error {
	switch q.typ {
	case typeHost, typeNet:
		if q.proto.number() != 0 {
			return syntaxf(p.expr, at.pos, at.text, "'%s' modifier applied to %s", q.proto, map[addrType]string{typeHost: "host", typeNet: "net"}[q.typ])
		}
	case typePort, typePortRange:
		if q.proto == protoIP || q.proto == protoIP6 {
			return syntaxf(p.expr, at.pos, at.text, "illegal qualifier of 'port': '%s' (use tcp, udp or sctp, or none)", q.proto)
		}
	}
	return nil
}

// parseValueGroup parses "(value or value ...)" after qualifiers, as in
// "host (10.0.0.1 or 10.0.0.2)": every value takes the qualifiers.
func (p *parser) parseValueGroup(q quals) (node, error) {
	open := p.next()
	n, err := p.parseValueUnary(q)
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if t.kind == tokRParen {
			p.next()
			return n, nil
		}
		and := isAnd(t)
		if !and && !isOr(t) {
			return nil, p.unexpected(t, "and, or or \")\" to close the \"(\" at offset "+strconv.Itoa(open.pos))
		}
		p.next()
		r, err := p.parseValueUnary(q)
		if err != nil {
			return nil, err
		}
		if and {
			n = &andNode{n, r}
		} else {
			n = &orNode{n, r}
		}
	}
}

func (p *parser) parseValueUnary(q quals) (node, error) {
	t := p.peek()
	switch {
	case isNot(t):
		p.next()
		x, err := p.parseValueUnary(q)
		if err != nil {
			return nil, err
		}
		return &notNode{x}, nil
	case t.kind == tokLParen:
		return p.parseValueGroup(q)
	}
	return p.parseValue(q)
}

// parseValue parses the value of a primitive with qualifiers q.
func (p *parser) parseValue(q quals) (node, error) {
	t := p.peek()
	if t.kind != tokWord || isKeyword(t.text) {
		return nil, p.unexpected(t, "an address, network or port")
	}
	p.next()
	n := &primNode{proto: q.proto, dir: q.dir, depth: p.vlans, pos: t.pos, text: t.text}
	switch q.typ {
	case typePort, typePortRange:
		n.kind = primPort
		lo, hi, err := p.parsePorts(t, q.typ == typePortRange)
		if err != nil {
			return nil, err
		}
		n.lo, n.hi = lo, hi
		return n, nil
	}
	n.kind = primAddr
	var err error
	if q.typ == typeHost {
		n.addr, n.mask, err = p.parseHost(t)
	} else {
		n.addr, n.mask, err = p.parseNet(t)
	}
	if err != nil {
		return nil, err
	}
	switch {
	case len(n.addr) == 4 && q.proto == protoIP6:
		return nil, syntaxf(p.expr, t.pos, t.text, "'ip6' modifier applied to ip %s %s", typeWord(q.typ), t.text)
	case len(n.addr) == 16 && q.proto == protoIP:
		return nil, syntaxf(p.expr, t.pos, t.text, "'ip' modifier applied to ip6 %s %s", typeWord(q.typ), t.text)
	}
	return n, nil
}

func typeWord(t addrType) string {
	for k, v := range typeNames {
		if v == t {
			return k
		}
	}
	return "?"
}

// parsePorts parses a port number, or "A-B" for a range (reversed bounds
// are swapped, as libpcap does).
func (p *parser) parsePorts(t token, isRange bool) (lo, hi uint16, err error) {
	one := func(s string) (uint16, error) {
		n, ok := parseNumber(s)
		switch {
		case !ok && !looksLikeValue(s):
			return 0, unsupportedf(p.expr, t.pos, t.text, "port name %q at offset %d: only port numbers are supported", s, t.pos)
		case !ok:
			return 0, syntaxf(p.expr, t.pos, t.text, "bad port number %q at offset %d", s, t.pos)
		case n > 65535:
			return 0, syntaxf(p.expr, t.pos, t.text, "illegal port number %d > 65535", n)
		}
		return uint16(n), nil
	}
	if !isRange {
		v, err := one(t.text)
		return v, v, err
	}
	a, b, ok := strings.Cut(t.text, "-")
	if !ok || strings.Contains(b, "-") {
		return 0, 0, syntaxf(p.expr, t.pos, t.text, "bad port range %q at offset %d: want FIRST-LAST", t.text, t.pos)
	}
	if lo, err = one(a); err != nil {
		return 0, 0, err
	}
	if hi, err = one(b); err != nil {
		return 0, 0, err
	}
	if lo > hi {
		lo, hi = hi, lo
	}
	return lo, hi, nil
}

// parseNumber parses a number the way libpcap's scanner does: decimal,
// 0x hexadecimal, or octal with a leading 0.
func parseNumber(s string) (uint64, bool) {
	base, digits := 10, s
	switch {
	case len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X"):
		base, digits = 16, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, digits = 8, s[1:]
	}
	for i := 0; i < len(digits); i++ {
		// Reject what strconv would take but libpcap would not: signs,
		// underscores, 0b and 0o prefixes.
		c := digits[i]
		if !('0' <= c && c <= '9' || base == 16 && ('a' <= c && c <= 'f' || 'A' <= c && c <= 'F')) {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(digits, base, 32)
	return n, err == nil
}

// parseIPv4 parses one to four dotted decimal parts ("10", "10.1",
// "10.1.2.3"), returning the address (missing parts zero) and the number of
// parts given.
func parseIPv4(s string) (a [4]byte, parts int, ok bool) {
	for part := range strings.SplitSeq(s, ".") {
		if parts == 4 || part == "" || len(part) > 3 {
			return a, 0, false
		}
		n, err := strconv.ParseUint(part, 10, 8)
		if err != nil {
			return a, 0, false
		}
		a[parts] = byte(n)
		parts++
	}
	return a, parts, parts > 0
}

// parseHost parses the value of host: a full IPv4 or IPv6 address, or, as
// libpcap allows, a partial IPv4 address ("10.1"), which is a network.
func (p *parser) parseHost(t token) (addr, mask []byte, err error) {
	s := t.text
	if strings.Contains(s, "/") {
		return nil, nil, syntaxf(p.expr, t.pos, t.text, "%q at offset %d: mask syntax is for networks only (net %s)", s, t.pos, s)
	}
	if strings.Contains(s, ":") {
		a, perr := netip.ParseAddr(s)
		if perr != nil || a.Zone() != "" {
			return nil, nil, syntaxf(p.expr, t.pos, t.text, "bad IPv6 address %q at offset %d", s, t.pos)
		}
		b := a.As16()
		return b[:], ones(16, 128), nil
	}
	if v, ok := parseNumber(s); ok {
		// A plain number is the whole 32-bit address, as in libpcap:
		// "host 10" is 0.0.0.10.
		return binary.BigEndian.AppendUint32(nil, uint32(v)), ones(4, 32), nil
	}
	a, parts, ok := parseIPv4(s)
	if !ok {
		if looksLikeValue(s) {
			return nil, nil, syntaxf(p.expr, t.pos, t.text, "bad IPv4 address %q at offset %d", s, t.pos)
		}
		return nil, nil, unsupportedf(p.expr, t.pos, t.text, "host name %q at offset %d: only numeric addresses are supported", s, t.pos)
	}
	return a[:], ones(4, 8*parts), nil
}

// numericNet turns a network written as a plain number into an address
// and mask as libpcap does: leading zero bytes are shifted out, each
// taking a byte off the mask ("net 10" is 10.0.0.0/8, "net 0x0a01" is
// 10.1.0.0/16).
func numericNet(v uint32) (addr, mask []byte) {
	m := uint32(0xffffffff)
	for v != 0 && v&0xff000000 == 0 {
		v <<= 8
		m <<= 8
	}
	return binary.BigEndian.AppendUint32(nil, v), binary.BigEndian.AppendUint32(nil, m)
}

// parseNet parses the value of net: N, N/len or (IPv4) N mask M, where N
// may be a partial IPv4 address whose length gives the mask.
func (p *parser) parseNet(t token) (addr, mask []byte, err error) {
	s := t.text
	bad := func(format string, args ...any) ([]byte, []byte, error) {
		return nil, nil, syntaxf(p.expr, t.pos, t.text, format, args...)
	}
	base, bits, hasLen := strings.Cut(s, "/")
	if strings.Contains(base, ":") {
		a, perr := netip.ParseAddr(base)
		if perr != nil || a.Zone() != "" {
			return bad("bad IPv6 network %q at offset %d", s, t.pos)
		}
		n := 128
		if hasLen {
			v, err := strconv.ParseUint(bits, 10, 8)
			if err != nil || v > 128 {
				return bad("bad prefix length in %q at offset %d: want 0 to 128", s, t.pos)
			}
			n = int(v)
		}
		if m := p.peek(); m.kind == tokWord && m.text == "mask" {
			return bad("%q at offset %d: mask is for IPv4 networks; write %s/LEN", m.text, m.pos, base)
		}
		b := a.As16()
		return checkNet(p, t, b[:], ones(16, n))
	}
	var a []byte
	var m []byte
	if v, ok := parseNumber(base); ok {
		a, m = numericNet(uint32(v))
	} else {
		a4, parts, ok := parseIPv4(base)
		if !ok {
			if looksLikeValue(base) {
				return bad("bad IPv4 network %q at offset %d", s, t.pos)
			}
			return nil, nil, unsupportedf(p.expr, t.pos, t.text, "network name %q at offset %d: only numeric networks are supported", s, t.pos)
		}
		a, m = a4[:], ones(4, 8*parts)
	}
	if hasLen {
		v, err := strconv.ParseUint(bits, 10, 8)
		if err != nil || v > 32 {
			return bad("bad mask length in %q at offset %d: want 0 to 32", s, t.pos)
		}
		m = ones(4, int(v))
	}
	if mt := p.peek(); mt.kind == tokWord && mt.text == "mask" {
		if hasLen {
			return bad("%q at offset %d: give a mask length or a mask, not both", s, t.pos)
		}
		p.next()
		mv := p.next()
		ma, mparts, ok := parseIPv4(mv.text)
		if mv.kind != tokWord || !ok || mparts != 4 {
			return bad("bad mask %s at offset %d: want a dotted IPv4 mask", describe(mv), mv.pos)
		}
		m = ma[:]
	}
	return checkNet(p, t, a, m)
}

// checkNet rejects a network with bits set outside its mask, as libpcap does.
func checkNet(p *parser, t token, addr, mask []byte) ([]byte, []byte, error) {
	for i := range addr {
		if addr[i]&^mask[i] != 0 {
			return nil, nil, syntaxf(p.expr, t.pos, t.text, "non-network bits set in %q at offset %d", t.text, t.pos)
		}
	}
	return addr, mask, nil
}

// ones returns an n-byte mask with its first bits bits set.
func ones(n, bits int) []byte {
	m := make([]byte, n)
	for i := range m {
		switch {
		case bits >= 8:
			m[i] = 0xff
			bits -= 8
		case bits > 0:
			m[i] = byte(0xff << (8 - bits))
			bits = 0
		}
	}
	return m
}
