package capfilter

import "fmt"

// tokKind is the kind of a lexical token.
type tokKind uint8

const (
	tokEOF    tokKind = iota
	tokWord           // keyword, number, address, range: anything made of word characters
	tokLParen         // (
	tokRParen         // )
	tokNot            // ! (the keyword not is a tokWord)
	tokAnd            // && (the keyword and is a tokWord)
	tokOr             // || (the keyword or is a tokWord)
)

// token is one lexical token and where it starts in the expression.
type token struct {
	kind tokKind
	text string
	pos  int // byte offset in the expression
}

// isWordByte reports whether c can be part of a word. Dots, colons,
// slashes and hyphens are word characters so that addresses (10.0.0.1,
// fe80::1), networks (10.0.0.0/8) and port ranges (9092-9095) are single
// words, as libpcap's scanner makes them; arithmetic, which would need '-'
// and '/' as operators, is outside the subset anyway.
func isWordByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '.', ':', '/', '-', '_':
		return true
	}
	return false
}

// lex splits expr into tokens, ending with a tokEOF token. A character
// outside the subset's syntax (brackets, comparison and arithmetic
// operators) is an unsupported-syntax error that names it.
func lex(expr string) ([]token, error) {
	var toks []token
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '(':
			toks = append(toks, token{tokLParen, "(", i})
			i++
		case c == ')':
			toks = append(toks, token{tokRParen, ")", i})
			i++
		case c == '!' && (i+1 == len(expr) || expr[i+1] != '='):
			toks = append(toks, token{tokNot, "!", i})
			i++
		case c == '&' && i+1 < len(expr) && expr[i+1] == '&':
			toks = append(toks, token{tokAnd, "&&", i})
			i += 2
		case c == '|' && i+1 < len(expr) && expr[i+1] == '|':
			toks = append(toks, token{tokOr, "||", i})
			i += 2
		case isWordByte(c):
			j := i
			for j < len(expr) && isWordByte(expr[j]) {
				j++
			}
			toks = append(toks, token{tokWord, expr[i:j], i})
			i = j
		default:
			// Name the whole operator (!=, <=, >>) rather than its first byte.
			j := i + 1
			for j < len(expr) && j < i+2 && !isWordByte(expr[j]) && expr[j] != ' ' && expr[j] != '(' && expr[j] != ')' {
				j++
			}
			what := expr[i:j]
			if c >= 0x80 || c < 0x20 {
				what = fmt.Sprintf("byte 0x%02x", c)
			}
			return nil, unsupportedf(expr, i, what, "%q at offset %d is not supported: arithmetic, comparisons and packet-data accesses (tcp[13] & 2 != 0) are outside the subset", what, i)
		}
	}
	toks = append(toks, token{kind: tokEOF, pos: len(expr)})
	return toks, nil
}
